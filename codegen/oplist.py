"""Programs and op lists -> OpList (selected_ops.yaml): which ops, dtypes, dim orders.

Sources, combined into one selection (union):
  * a program (.pte): per KernelCall, the dtype and dim order of each Tensor argument in
    schema order (its kernel key, docs/internals.md), and apart from them the dtype of
    each Scalar argument (Int/Double/Bool -> Long/Double/Bool): kernels read Scalars in
    their compute dtype and never switch on them, so scalar dtypes are reported but do
    not add instantiations. Schemas come from
    schema/aten_ops.yaml and the kernel libraries given; for an op with no known schema
    every Tensor value is recorded by position;
  * an op list string "aten::add.out,aten::mm.out": no dtype information, so `dtypes: all`;
  * a YAML op list in the format this stage writes, so outputs can be fed back.

  * --all: every op of the kernel libraries given, with `dtypes: all`.

CLI: python -m codegen.oplist [--ops LIST] [--ops-yaml F ...] [--model NAME=PROGRAM.pte ...]
         [--libraries LIBRARY.yaml ...] [--all] [--out selected_ops.yaml] [PROGRAM.pte ...]
     Without --out the op info is printed.
"""

import argparse
import os
import re
import sys
from dataclasses import dataclass

from codegen.dtypes import SCALAR_VALUE_DTYPES, is_dtype
from codegen.errors import ManifestError, run_cli, suggest
from codegen.schema import (OptionalType, Schema, is_scalar, is_tensor, is_tensor_list,
                            load_aten_schemas)
from codegen.target import load_target
from codegen.yaml_io import dump_yaml, load_yaml, write_text
from program import model
from program.debug_record import instruction_sources, read_debug_record
from program.debug_record import where as debug_where

_OP_RE = re.compile(r"^[A-Za-z_]\w*::[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$")
_HEADER = """\
# Selected operators, written by codegen/oplist.py; feed back with --ops-yaml.
# dtypes: every tensor dtype the op's calls use (what its kernel is compiled for);
#   `all`: unknown, so any dtype. scalar_dtypes: the dtypes of its Scalar arguments.
# kernel_keys: each call's kernel key (docs/internals.md), the models making that call
#   and, from each program's debug record, the source lines making it.
"""


@dataclass(frozen=True)
class OpUse:
    op: str                                   # "aten::add.out"
    dtypes: tuple[str, ...] = ()              # tensor dtypes, sorted; ignored when all_dtypes
    all_dtypes: bool = False                  # from an op list: any dtype may be used
    dim_orders: tuple[str, ...] = ()          # sorted: "0,1", "0,2,3,1", ...
    kernel_keys: tuple[tuple[str, tuple[str, ...]], ...] = ()  # sorted (key, models)
    models: tuple[str, ...] = ()              # sorted
    scalar_dtypes: tuple[str, ...] = ()       # of Scalar arguments, sorted
    sources: tuple[tuple[str, tuple[str, ...]], ...] = ()  # sorted (key, where it is called:
                                              # "gpt2: modeling_gpt2.py:211 in h.0.attn")

    def sources_of(self, key: str) -> tuple[str, ...]:
        return next((s for k, s in self.sources if k == key), ())


@dataclass(frozen=True)
class OpList:
    ops: tuple[OpUse, ...] = ()               # sorted by op

    def get(self, op: str) -> OpUse | None:
        return next((u for u in self.ops if u.op == op), None)


class _Collector:
    """Accumulates sets per op; `oplist()` freezes them sorted."""

    def __init__(self):
        self.ops: dict[str, dict] = {}

    def use(self, op: str) -> dict:
        return self.ops.setdefault(op, {"dtypes": set(), "all": False, "dim_orders": set(),
                                        "keys": {}, "models": set(),
                                        "scalar_dtypes": set(), "sources": {}})

    def add(self, u: OpUse) -> None:
        rec = self.use(u.op)
        rec["dtypes"] |= set(u.dtypes)
        rec["scalar_dtypes"] |= set(u.scalar_dtypes)
        rec["all"] |= u.all_dtypes
        rec["dim_orders"] |= set(u.dim_orders)
        rec["models"] |= set(u.models)
        for key, models in u.kernel_keys:
            rec["keys"].setdefault(key, set()).update(models)
        for key, sources in u.sources:
            rec["sources"].setdefault(key, set()).update(sources)

    def oplist(self) -> OpList:
        return OpList(tuple(
            OpUse(op, () if r["all"] else tuple(sorted(r["dtypes"])), r["all"],
                  tuple(sorted(r["dim_orders"])),
                  tuple((k, tuple(sorted(m))) for k, m in sorted(r["keys"].items())),
                  tuple(sorted(r["models"])), tuple(sorted(r["scalar_dtypes"])),
                  tuple((k, tuple(sorted(s))) for k, s in sorted(r["sources"].items())))
            for op, r in sorted(self.ops.items())))


def merge_oplists(oplists: list[OpList]) -> OpList:
    """The union of several selections: every op, dtype, key and model of each."""
    collector = _Collector()
    for oplist in oplists:
        for u in oplist.ops:
            collector.add(u)
    return collector.oplist()


def _value(values: list, vid, where: str) -> model.Value:
    if not isinstance(vid, int) or not 0 <= vid < len(values):
        raise ManifestError(f"{where}: value id {vid} is out of range ({len(values)} values); "
                            "the program is corrupt: export it again")
    return values[vid]


def _call_record(call: model.KernelCall, schema: Schema | None, values: list, where: str):
    """(key, tensor dtypes, scalar dtypes, dim_orders) of one KernelCall."""
    args = call.args
    if schema is not None:
        expected = len(schema.call_args) + len(schema.value_returns)
        if len(args) != expected:
            raise ManifestError(f"{where}: {len(args)} arguments, but the schema {schema} "
                                f"takes {expected}; the program and the schema disagree: "
                                "export it again")
        typed = list(zip(schema.call_args, args))
    else:
        typed = [(None, vid) for vid in args]
    dtypes, scalar_dtypes, orders = set(), set(), set()
    for arg, vid in typed:
        value = _value(values, vid, where)
        kind = model.kind_name(value)
        if arg is None or is_tensor(arg.type):
            if kind != "Tensor":
                if arg is None or (value is None and isinstance(arg.type, OptionalType)):
                    continue  # unknown schema: not a tensor; or an absent `Tensor?`
                raise ManifestError(f"{where}: argument '{arg.name}' ({arg.type}) is a "
                                    f"{kind} value; export the model again")
            tensors = [value]
        elif is_tensor_list(arg.type) and isinstance(value, (model.TensorList,
                                                              model.OptionalTensorList)):
            tensors = [t for t in (_value(values, item, where) for item in value.items
                                   if item >= 0) if isinstance(t, model.Tensor)]
        else:
            if is_scalar(arg.type) and kind in SCALAR_VALUE_DTYPES:
                scalar_dtypes.add(SCALAR_VALUE_DTYPES[kind])
            continue
        for tensor in tensors:
            dtypes.add(tensor.scalar_type)
            orders.add(model.dim_order_key(tensor.dim_order))
    return model.kernel_key(values, args), dtypes, scalar_dtypes, orders


def ops_from_program(program: model.Program, name: str, schemas: dict[str, Schema],
                     where: str, debug: dict | None = None) -> OpList:
    """Op info of every KernelCall in every method of `program`, made by model `name`;
    with the program's debug record, also the source line of each call."""
    collector = _Collector()
    for method_index, method in enumerate(program.methods):
        origins = instruction_sources(debug, method_index)
        for number, call in method.kernel_calls():
            at = f"{where}: method {method.name} instruction {number}"
            if not 0 <= call.op_index < len(method.operators):
                raise ManifestError(f"{at}: operator {call.op_index} is out of range; the "
                                    "program is corrupt: export it again")
            op = method.operators[call.op_index].qualified_name
            key, dtypes, scalar_dtypes, orders = _call_record(call, schemas.get(op),
                                                              method.values, f"{at} ({op})")
            rec = collector.use(op)
            rec["dtypes"] |= dtypes
            rec["scalar_dtypes"] |= scalar_dtypes
            rec["dim_orders"] |= orders
            rec["keys"].setdefault(key, set()).add(name)
            rec["models"].add(name)
            origin = debug_where(origins[number]) if number < len(origins) else ""
            if origin:
                rec["sources"].setdefault(key, set()).add(f"{name}: {origin}")
    return collector.oplist()


def _qualify(op: str, where: str) -> str:
    op = op if "::" in op else f"aten::{op}"
    if not _OP_RE.match(op):
        raise ManifestError(f"{where}: '{op}' is not an operator name; write "
                            "namespace::name.overload, e.g. aten::add.out")
    return op


def ops_from_list(text: str, aten: dict[str, Schema] | None = None,
                  where: str = "--ops") -> OpList:
    """"aten::add.out,aten::mm.out" -> every dtype of each op ("add.out" means aten::).

    With `aten`, an aten:: op that is not an ATen operator is an error.
    """
    ops = sorted({_qualify(n.strip(), where) for n in text.split(",") if n.strip()})
    for op in ops:
        if aten is not None and op.startswith("aten::") and op not in aten:
            close = suggest(op, aten) or "; give the overload too, e.g. aten::add.out"
            raise ManifestError(f"{where}: {op} is not an ATen operator{close}")
    return OpList(tuple(OpUse(op, all_dtypes=True) for op in ops))


def _string_list(value, where: str, what: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ManifestError(f"{where}: {what} must be a list, e.g. {what}: [a, b]")
    return [str(v) for v in value]


def _parse_use(op: str, rec, where: str) -> OpUse:
    rec = rec or {}
    known = ("dtypes", "scalar_dtypes", "dim_orders", "kernel_keys", "models")
    if not isinstance(rec, dict) or set(rec) - set(known):
        raise ManifestError(f"{where}: {op} may only have {', '.join(known)}")
    dtypes = rec.get("dtypes", "all")
    all_dtypes = dtypes == "all"
    dtypes = [] if all_dtypes else _string_list(dtypes, f"{where}: {op}", "dtypes")
    scalar_dtypes = _string_list(rec.get("scalar_dtypes"), f"{where}: {op}", "scalar_dtypes")
    for d in dtypes + scalar_dtypes:
        if not is_dtype(d):
            raise ManifestError(f"{where}: {op}: '{d}' is not a dtype; write a list of "
                                "dtype names (Float, Long, ...) or `all`")
    keys, sources = {}, {}
    for item in rec.get("kernel_keys") or []:
        if not (isinstance(item, dict) and {"key", "models"} <= set(item)
                <= {"key", "models", "sources"}):
            raise ManifestError(f"{where}: {op}: each kernel_keys item is "
                                "{key: 'Float;0,1|Float;0,1', models: [mlp], sources: [...]}")
        key = "" if item["key"] is None else str(item["key"])
        if not model.is_kernel_key(key):
            raise ManifestError(f"{where}: {op}: '{key}' is not a kernel key like "
                                "Float;0,1|Float;0,1 (docs/internals.md)")
        keys.setdefault(key, set()).update(_string_list(item["models"], where, "models"))
        sources.setdefault(key, set()).update(_string_list(item.get("sources"), where,
                                                           "sources"))
    return OpUse(op, tuple(sorted(set(dtypes))), all_dtypes,
                 tuple(sorted(set(_string_list(rec.get("dim_orders"), where, "dim_orders")))),
                 tuple((k, tuple(sorted(m))) for k, m in sorted(keys.items())),
                 tuple(sorted(set(_string_list(rec.get("models"), where, "models")))),
                 tuple(sorted(set(scalar_dtypes))),
                 tuple((k, tuple(sorted(v))) for k, v in sorted(sources.items()) if v))


def parse_oplist(text: str, path: str) -> OpList:
    """selected_ops.yaml text -> OpList (the format oplist_to_yaml writes)."""
    data = load_yaml(text, path) or {}
    if not isinstance(data, dict) or set(data) - {"operators"} or not isinstance(
            data.get("operators") or {}, dict):
        raise ManifestError(f"{path}: an op list is a mapping `operators: {{aten::add.out: "
                            "{dtypes: [Float]}, ...}`")
    return merge_oplists([OpList(tuple(_parse_use(_qualify(str(op), path), rec, path)
                                       for op, rec in (data.get("operators") or {}).items()))])


def oplist_to_yaml(oplist: OpList) -> str:
    operators = {u.op: {"dtypes": "all" if u.all_dtypes else list(u.dtypes),
                        **({"scalar_dtypes": list(u.scalar_dtypes)} if u.scalar_dtypes else {}),
                        "dim_orders": list(u.dim_orders),
                        "kernel_keys": [{"key": k, "models": list(m),
                                         **({"sources": list(u.sources_of(k))}
                                            if u.sources_of(k) else {})}
                                        for k, m in u.kernel_keys],
                        "models": list(u.models)}
                 for u in oplist.ops}
    return dump_yaml({"operators": operators}, _HEADER)


def check_delegates(program: model.Program, path: str, target) -> None:
    """A program exported for a backend needs a target with that backend: stop now, not
    when the runtime loads it, naming the targets that have it."""
    needed = sorted({d.backend for m in program.methods for d in m.delegates}
                    - set(target.backends))
    if not needed:
        return
    folder = os.path.dirname(target.path)
    having = sorted(name[:-5] for name in os.listdir(folder) if name.endswith(".yaml")
                    and set(needed) <= set(load_target(os.path.join(folder, name)).backends))
    raise ManifestError(
        f"{path}: the program delegates to {', '.join(needed)}, which target {target.name} "
        f"does not have; build it for "
        f"{' or '.join('target=' + t for t in having) or 'a target with that backend'}, or "
        f"export it for this target (export(..., target=\"{target.name}\"))")


def _parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m codegen.oplist", description=__doc__.split(
        "\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("programs", nargs="*", help="PROGRAM.pte (model name: the file's stem)")
    p.add_argument("--ops", action="append", default=[], help="aten::add.out,aten::mm.out")
    p.add_argument("--ops-yaml", action="append", default=[], help="a selected_ops.yaml")
    p.add_argument("--model", action="append", default=[], help="NAME=PROGRAM.pte")
    p.add_argument("--libraries", nargs="+", action="extend", default=[],
                   help="kernel library manifests: the schemas of their custom ops")
    p.add_argument("--all", action="store_true",
                   help="also select every op of --libraries, with every dtype")
    p.add_argument("--program-list", action="append", default=[],
                   help="a file listing PROGRAM.pte paths, one per line")
    p.add_argument("--target", help="the target manifest: a program delegated to a backend "
                                    "it does not have stops here")
    p.add_argument("--out", help="selected_ops.yaml to write (default: print)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    from codegen.kernel_manifest import load_library
    from program.pte import ProgramFormatError, read_program

    args = _parse_args(sys.argv[1:] if argv is None else argv)
    models = [tuple(m.split("=", 1)) for m in args.model]
    if any(len(m) != 2 or not m[0] for m in models):
        raise ManifestError("--model takes NAME=PROGRAM.pte, e.g. --model mlp=path/to/mlp.pte")
    listed = []
    for path in args.program_list:
        with open(path) as f:
            listed += [line.strip() for line in f if line.strip()]
    models += [(os.path.splitext(os.path.basename(p))[0], p) for p in args.programs + listed]
    if not (models or args.ops or args.ops_yaml or args.all):
        raise ManifestError("no op source: give PROGRAM.pte, --model, --ops, --ops-yaml "
                            "or --all")
    target = load_target(args.target) if args.target else None
    schemas = dict(load_aten_schemas())
    libraries = [load_library(path, load_aten_schemas()) for path in args.libraries]
    for library in libraries:
        schemas.update(library.schemas())
    lists = [ops_from_list(text, load_aten_schemas()) for text in args.ops]
    if args.all:
        lists.append(OpList(tuple(OpUse(op, all_dtypes=True)
                                  for library in libraries for op in library.ops())))
    for path in args.ops_yaml:
        with open(path) as f:
            lists.append(parse_oplist(f.read(), path))
    for name, path in models:
        try:
            program, _ = read_program(path)
        except (OSError, ProgramFormatError) as e:
            raise ManifestError(f"{path}: cannot read the program: {e}") from None
        if target is not None:
            check_delegates(program, path, target)
        lists.append(ops_from_program(program, name, schemas, path, read_debug_record(path)))
    text = oplist_to_yaml(merge_oplists(lists))
    if args.out:
        write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
