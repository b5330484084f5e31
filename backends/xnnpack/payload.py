"""A group of claimed calls -> the XNNPACK delegate payload (schema/xnnpack.fbs bytes).

GraphBuilder collects the subgraph's values and nodes in the flatbuffer JSON form of
backends/xnnpack/schema/xnnpack.fbs; serialize() compiles it with flatc, like the
program itself (program/pte.py), so the bytes always follow the schema.

CLI: python -m backends.xnnpack.payload PROGRAM.pte   (prints each delegate's subgraph)
"""

import json
import os
import sys

from codegen.roots import PACKAGE
from program.flatc import flatbuffer_to_json, json_to_flatbuffer

SCHEMA = os.path.join(PACKAGE, "backends", "xnnpack", "schema", "xnnpack.fbs")
FILE_IDENTIFIER = b"TLX1"


class GraphBuilder:
    """Values are keyed by program value id; `args` is the DelegateCall's argument list."""

    def __init__(self, args: list, constants: list, outputs: list, channels_last=()):
        self.args = list(args)
        self.constants = set(constants)
        self.channels_last = set(channels_last)
        self.values: list = []
        self.nodes: list = []
        self.index: dict = {}
        self.outputs = [self.value(v) for v in outputs]

    def value(self, vid: int) -> int:
        """The subgraph value for program value `vid` (a delegate argument or internal)."""
        if vid not in self.index:
            entry = {}
            if vid in self.args:
                entry = {"arg": self.args.index(vid), "constant": vid in self.constants}
            if vid in self.channels_last:
                entry["layout"] = "ChannelsLast"
            self.index[vid] = len(self.values)
            self.values.append(entry)
        return self.index[vid]

    def temp(self, channels_last: bool = False) -> int:
        """A new subgraph value no program value stands for (computed inside)."""
        self.values.append({"layout": "ChannelsLast"} if channels_last else {})
        return len(self.values) - 1

    def scalar(self, number) -> int:
        self.values.append({"scalar": True, "scalar_value": float(number)})
        return len(self.values) - 1

    def arg(self, vid: int) -> int:
        """Position of program value `vid` in the delegate's arguments."""
        return self.args.index(vid)

    def node(self, kind: str, inputs: list, output: int, shape=None, **attrs) -> None:
        """Appends a node reading subgraph values `inputs` and writing `output`."""
        node = {"kind": kind, "inputs": inputs, "output": output, **attrs}
        if shape is not None:
            node["shape"] = [{"size": size, "arg": arg} for size, arg in shape]
        self.nodes.append(node)

    def to_dict(self) -> dict:
        return {"values": self.values, "nodes": self.nodes, "outputs": self.outputs}

    def serialize(self) -> bytes:
        return compile_json(self.to_dict())


def compile_json(graph: dict) -> bytes:
    return json_to_flatbuffer(SCHEMA, graph, FILE_IDENTIFIER)


def decode(data: bytes) -> dict:
    """A payload's JSON form (for printing and tests)."""
    return flatbuffer_to_json(SCHEMA, data)


def main(argv=None) -> int:
    from program.pte import read_program
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m backends.xnnpack.payload PROGRAM.pte", file=sys.stderr)
        return 2
    program, _ = read_program(argv[0])
    for method in program.methods:
        for i, d in enumerate(method.delegates):
            print(f"# {method.name}: delegate {i} ({d.backend})")
            if d.backend == "xnnpack":
                print(json.dumps(decode(d.data), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
