"""The debug record: which graph node and which line of the user's code each instruction
of a program comes from, and what it writes. Written beside the program, read by the
build's messages and by the inspector (`python -m inspector`).

    build/host/gpt2/gpt2.pte  ->  build/host/gpt2/gpt2.debug.json

It stays out of the program file, so what ships to a device carries none of it. Form:

    {"version": 1, "methods": [{"name": "forward", "instructions": [
        {"index": 0, "kind": "KernelCall", "op": "aten::cumsum.out", "nodes": ["cumsum"],
         "module": "transformer.h.0.attn", "source": "modeling_gpt2.py:211",
         "code": "mask = attention_mask.cumsum(-1)",
         "outputs": [{"slot": 3, "dtype": "Long", "shape": [1, 7]}]}, ...]}]}

`index` is the instruction's position in the method (the trace's "instruction");
`outputs` the tensors it writes: argument `slot` of the call (and `item` of a tensor
list), at its planned (upper-bound) shape; a DelegateCall's also name the graph `node`
and its `node_output` (index into its outputs) that each one is. A DelegateCall lists every node it runs; its
module and source are its first node's.
codegen/oplist.py reads it (without torch) to name the source line of each operator use.
"""

import json
import os

from program.model import Tensor, TensorList

VERSION = 1


def debug_path_for(pte_path: str) -> str:
    """build/host/mlp/mlp.pte -> build/host/mlp/mlp.debug.json"""
    return os.path.splitext(pte_path)[0] + ".debug.json"


def written_tensors(values: list, args: list, num_inputs: int,
                    written_by: list | None = None) -> list[dict]:
    """The tensors a call with `args` (value ids; the first `num_inputs` read, the rest
    written) writes, as debug record `outputs` entries. `written_by` (delegate calls)
    names per written arg the graph node and its output index that produce it."""
    found = []
    for slot in range(num_inputs, len(args)):
        value = values[args[slot]]
        if isinstance(value, Tensor):
            origin = {}
            if written_by is not None:
                node, output = written_by[slot - num_inputs]
                origin = {"node": node, "node_output": output}
            found.append({"slot": slot, **_tensor_entry(value), **origin})
        elif isinstance(value, TensorList):
            found += [{"slot": slot, "item": item, **_tensor_entry(values[vid])}
                      for item, vid in enumerate(value.items)]
    return found


def _tensor_entry(tensor: Tensor) -> dict:
    return {"dtype": tensor.scalar_type, "shape": list(tensor.sizes)}


def read_debug_record(pte_path: str) -> dict | None:
    """The record beside `pte_path`, or None when there is none (or it is not one)."""
    try:
        with open(debug_path_for(pte_path)) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("version") == VERSION else None


def instruction_sources(record: dict | None, method_index: int) -> list[dict]:
    """The instruction entries of method `method_index`, or [] when unknown."""
    methods = (record or {}).get("methods") or []
    if not 0 <= method_index < len(methods):
        return []
    entries = methods[method_index].get("instructions") or []
    return [e if isinstance(e, dict) else {} for e in entries]


def where(entry: dict) -> str:
    """"modeling_gpt2.py:211 in transformer.h.0.attn", or "" when nothing is known."""
    source, module = entry.get("source") or "", entry.get("module") or ""
    return source + (f" in {module}" if module else "") if source else module
