"""Kernel library manifest (functions.yaml format) -> KernelLibrary.

Each entry names an operator (`op: add.out`, an ATen op from schema/aten_ops.yaml, or
`func: mylib::custom.out(...) -> ...`, a custom op with its schema inline) and its
kernels. `arg_meta: null` is a kernel for any dim order (kernel key "") and any dtype,
or, with `dtypes: [Float, Long, ...]` beside it, for calls whose tensor arguments all
have listed dtypes (the resolver looks elsewhere for the others); an `arg_meta` mapping
names every Tensor argument (a `Tensor?` one may be left out: the kernel then serves
calls that pass None for it) as `[TypeAlias, DimOrderAlias]`, and
expands into one concrete kernel key per combination of alias values; all arguments
using one alias take the same value. `kernel_name: a::b::f` is C++ `a::b::native::f`.
`source:` overrides the kernel's file (default kernels/<library>/op_<base op>.cpp).
A kernel's `scratch_bytes: N` declares the temporary memory it takes from its thread's
scratch slice (runtime/kernel/kernel_scratch.h) instead of the stack; a runtime's slice
is the largest of its kernels'. `prepack: ns::object` names the kernel's KernelPrepack
(runtime/kernel/prepack.h): Method load packs each call's constant weight once with it.
The library's name is the file's stem.

CLI: python -m codegen.kernel_manifest LIBRARY.yaml...   (prints every concrete kernel)
"""

import itertools
import os
import re
import sys
from dataclasses import dataclass

from codegen import roots
from codegen.cpp_types import check_supported
from codegen.dtypes import DTYPE_NAMES, is_dtype
from codegen.errors import ManifestError, run_cli, suggest
from codegen.schema import (OptionalType, Schema, is_mutable, is_tensor, is_tensor_list,
                            load_aten_schemas, parse_schema)
from codegen.yaml_io import entry_lines, load_yaml
from program.model import dim_order_key, join_key, key_part

_ENTRY_KEYS = ("op", "func", "kernels", "type_alias", "dim_order_alias", "source")
# Keys of ExecuTorch's own files (portable functions.yaml, optimized.yaml, quantized.yaml,
# custom ops, Cadence's functions*.yaml) that describe the op to PyTorch's C++ codegen, not
# which kernel runs it: checked for shape, then ignored, each for the reason given.
IGNORED_ENTRY_KEYS = {
    "variants": "the ATen C++ API's shape (function, method); a kernel is always called "
                "as a function",
    "cpp_no_default_args": "which ATen C++ parameters lose their default; a program passes "
                           "every argument, defaults included",
    "dispatch": "PyTorch dispatch keys for the op's ATen kernels; Tailor picks kernels from "
                "`kernels:` alone",
    "tags": "ATen tags (nondeterministic_seeded, ...) read by torch's own passes; they do "
            "not change which kernel runs",
}
_KERNEL_KEYS = ("arg_meta", "kernel_name", "dtypes", "scratch_bytes", "prepack")
_KERNEL_NAME_RE = re.compile(r"^[A-Za-z_]\w*(::[A-Za-z_]\w*)+$")


@dataclass(frozen=True)
class LibraryKernel:
    """One concrete kernel: serves `op` for calls whose kernel key is `key`."""
    op: str                           # "aten::add.out"
    key: str                          # "Float;0,1|Float;0,1|Float;0,1", "" for arg_meta: null
    native: str                       # "tailor::native::add_out"
    dtypes: tuple[str, ...] | None    # the dtypes in `key`, or an arg_meta: null kernel's
                                      # `dtypes:`; None: any dtype
    source: str                       # "kernels/portable/op_add.cpp"
    library: str                      # "portable"
    schema: Schema
    entry: str                        # where it is declared, for messages
    scratch_bytes: int = 0            # temporary memory it takes (kernel_scratch.h)
    prepack: str = ""                 # its KernelPrepack object (prepack.h), "" for none


@dataclass(frozen=True)
class KernelLibrary:
    name: str                         # "portable"
    path: str                         # "manifests/kernels/portable.yaml"
    kernels: tuple[LibraryKernel, ...]  # sorted by (op, key)
    # Entries declaring nothing a program can call, as "<entry>: <why>" (a functional op).
    uncallable: tuple[str, ...] = ()

    def ops(self) -> tuple[str, ...]:
        return tuple(sorted({k.op for k in self.kernels}))

    def kernels_for(self, op: str) -> tuple[LibraryKernel, ...]:
        return tuple(k for k in self.kernels if k.op == op)

    def schemas(self) -> dict[str, Schema]:
        return {k.op: k.schema for k in self.kernels}


def manifest_op_name(op: str) -> str:
    """The op as a manifest spells it: "aten::add.out" -> "add.out"; others unchanged."""
    return op.removeprefix("aten::")


def native_symbol(kernel_name: str) -> str:
    """`a::b::f` -> `a::b::native::f` (the functions.yaml rule)."""
    namespace, _, function = kernel_name.rpartition("::")
    return f"{namespace}::native::{function}"


def base_op_name(op: str) -> str:
    """"aten::add.Scalar_out" -> "add", the kernel file's name: op_add.cpp."""
    return op.rpartition("::")[2].partition(".")[0]


def _fail(where: str, message: str) -> None:
    raise ManifestError(f"{where}: {message}")


def _check_keys(where: str, what: str, found: dict, allowed: tuple[str, ...],
                ignored: tuple[str, ...] = ()) -> None:
    for key in found:
        if key not in allowed and key not in ignored:
            _fail(where, f"unknown key '{key}' in {what}{suggest(str(key), allowed + ignored)}"
                         f"; the keys are {', '.join(allowed)}")


def _check_ignored_keys(entry: dict, where: str, schema: Schema) -> None:
    """The ignored keys still have the shape ExecuTorch's codegen expects."""
    def is_names(value) -> bool:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if "variants" in entry and not isinstance(entry["variants"], str):
        _fail(where, "variants must be a string such as `function` or `function, method`")
    if "cpp_no_default_args" in entry:
        names = entry["cpp_no_default_args"]
        arguments = [a.name for a in schema.arguments]
        if not is_names(names):
            _fail(where, "cpp_no_default_args must be a list of argument names, e.g. ['min']")
        for name in names:
            if name not in arguments:
                _fail(where, f"cpp_no_default_args names '{name}', not an argument of "
                             f"{schema.op}{suggest(name, arguments)}")
    if "dispatch" in entry and not isinstance(entry["dispatch"], (dict, type(None))):
        _fail(where, "dispatch must be a mapping of dispatch keys to kernels, e.g. {}")
    if "tags" in entry and not (isinstance(entry["tags"], str) or is_names(entry["tags"])):
        _fail(where, "tags must be a tag or a list of tags, e.g. nondeterministic_seeded")


def _schema_of(entry: dict, where: str, aten: dict[str, Schema]) -> Schema | None:
    """The entry's schema; None for an ATen in-place op (see _in_place)."""
    if ("op" in entry) == ("func" in entry):
        _fail(where, "give exactly one of `op: add.out` (an ATen op) or `func: "
                     "mylib::name.overload(args) -> returns` (a custom op)")
    if "op" in entry:
        name = str(entry["op"])
        op = name if "::" in name else f"aten::{name}"
        if _in_place(op, aten):
            return None
        if op not in aten:
            prefix = [o for o in aten if o.startswith(op + ".")][:3]
            # A missing overload ("softmax") is the usual slip: offer the overloads first.
            hint = (f"; did you mean {' or '.join(repr(p) for p in prefix)}?" if prefix
                    else suggest(op, aten))
            _fail(where, f"'{name}' is not an ATen operator in schema/aten_ops.yaml{hint} "
                         "(a custom op needs `func:` with its schema)")
        schema = aten[op]
    else:
        if not isinstance(entry["func"], str):
            _fail(where, "func must be a schema string: mylib::name.overload(args) -> returns")
        # No namespace means aten, as in ExecuTorch's files (`allclose.out(...)`).
        schema = parse_schema(entry["func"], "aten", where)
        known = aten.get(schema.op)
        if known is not None and _signature(known) != _signature(schema):
            _fail(where, f"func declares {schema.op} as '{schema}', but torch's schema is "
                         f"'{known}'; write `op: {manifest_op_name(schema.op)}` or copy "
                         "torch's schema")
    return schema


def _in_place(op: str, aten: dict[str, Schema]) -> bool:
    """An ATen in-place op (`copy_`, `index_put_`): its name ends in `_` and its base op
    has out variants. schema/aten_ops.yaml holds none: torch.export functionalizes them."""
    base = op.partition(".")[0]
    return (op.startswith("aten::") and op not in aten and base.endswith("_")
            and any(o.startswith(base[:-1] + ".") for o in aten))


def _signature(schema: Schema) -> tuple:
    """What a program's call depends on: argument names, types and order, and returns;
    not the defaults (a program passes every argument)."""
    return (tuple((a.name, str(a.type), a.kwarg_only) for a in schema.arguments),
            tuple(str(r.type) for r in schema.returns))


def _functional(schema: Schema) -> bool:
    """A functional op (`allclose.Tensor(...) -> Tensor`): it returns new tensors and
    writes none. The exporter lowers every call to an out variant, so no program calls it."""
    return (not any(is_mutable(a.type) for a in schema.arguments)
            and any(is_tensor(r.type) or is_tensor_list(r.type) for r in schema.returns))


def _type_aliases(entry: dict, where: str) -> dict[str, tuple[str, ...]]:
    aliases = entry.get("type_alias") or {}
    if not isinstance(aliases, dict):
        _fail(where, "type_alias must map alias names to dtype lists: {T0: [Float, Double]}")
    for name, dtypes in aliases.items():
        if not isinstance(dtypes, list) or not dtypes:
            _fail(where, f"type_alias {name} must be a non-empty list of dtypes, "
                         f"e.g. {name}: [Float, Double]")
        for d in dtypes:
            if not is_dtype(d):
                _fail(where, f"type_alias {name} lists '{d}', not a dtype"
                             f"{suggest(str(d), DTYPE_NAMES, 1)}; use one of "
                             f"{', '.join(DTYPE_NAMES)}")
    return {str(n): tuple(v) for n, v in aliases.items()}


def _null_kernel_dtypes(kernel: dict, where: str) -> tuple[str, ...] | None:
    """An `arg_meta: null` kernel's `dtypes:` (sorted), None without the key."""
    if "dtypes" not in kernel:
        return None
    dtypes = kernel["dtypes"]
    if not isinstance(dtypes, list) or not dtypes:
        _fail(where, "dtypes must be a non-empty list of the dtypes the kernel supports, "
                     "e.g. dtypes: [Float, Double]; leave it out for any dtype")
    for d in dtypes:
        if not is_dtype(d):
            _fail(where, f"dtypes lists '{d}', not a dtype{suggest(str(d), DTYPE_NAMES, 1)}; "
                         f"use one of {', '.join(DTYPE_NAMES)}")
    repeated = sorted({d for d in dtypes if dtypes.count(d) > 1})
    if repeated:
        _fail(where, f"dtypes lists {', '.join(repeated)} more than once; list each dtype once")
    return tuple(sorted(dtypes))


def _dim_order_aliases(entry: dict, where: str) -> dict[str, tuple[str, ...]]:
    aliases = entry.get("dim_order_alias") or {}
    if not isinstance(aliases, dict):
        _fail(where, "dim_order_alias must map alias names to dim order lists: "
                     "{D0: [[0, 1, 2, 3]]}")
    found = {}
    for name, orders in aliases.items():
        if not isinstance(orders, list) or not orders:
            _fail(where, f"dim_order_alias {name} must be a non-empty list of dim orders, "
                         f"e.g. {name}: [[0, 1], [0, 1, 2, 3]]")
        for order in orders:
            ok = isinstance(order, list) and all(type(i) is int for i in order)
            if not ok or sorted(order) != list(range(len(order))):
                _fail(where, f"dim_order_alias {name} lists {order}, not a dim order; a dim "
                             "order is a permutation of 0..rank-1, e.g. [0, 1, 2, 3] "
                             "(contiguous) or [0, 2, 3, 1] (channels last)")
        found[str(name)] = tuple(dim_order_key(o) for o in orders)
    clash = set(found) & set(entry.get("type_alias") or {})
    if clash:
        _fail(where, f"alias {sorted(clash)[0]} is both a type_alias and a dim_order_alias; "
                     "rename one")
    return found


def _expand_arg_meta(arg_meta, schema: Schema, where: str, types: dict, orders: dict):
    """arg_meta -> [(key, dtypes)], one per combination of alias values."""
    if not isinstance(arg_meta, dict) or not arg_meta:
        _fail(where, "arg_meta must be null (any dtype) or map each Tensor argument to "
                     "[TypeAlias, DimOrderAlias], e.g. {self: [T0, D0], out: [T0, D0]}")
    key_args = [a.name for a in schema.key_args]
    for name, meta in arg_meta.items():
        if name not in key_args:
            _fail(where, f"arg_meta names '{name}', not a Tensor argument of {schema.op}"
                         f"{suggest(str(name), key_args)}; its Tensor arguments are "
                         f"{', '.join(key_args)}")
        if not (isinstance(meta, list) and len(meta) == 2):
            _fail(where, f"arg_meta {name} must be [TypeAlias, DimOrderAlias], e.g. [T0, D0]")
        if meta[0] not in types:
            _fail(where, f"arg_meta {name} uses type alias '{meta[0]}', which type_alias does "
                         f"not define; add it: type_alias: {{{meta[0]}: [Float]}}")
        if meta[1] not in orders:
            _fail(where, f"arg_meta {name} uses dim order alias '{meta[1]}', which "
                         f"dim_order_alias does not define; add it: "
                         f"dim_order_alias: {{{meta[1]}: [[0, 1]]}}")
    missing = [a.name for a in schema.key_args
               if a.name not in arg_meta and not isinstance(a.type, OptionalType)]
    if missing:
        _fail(where, f"arg_meta does not name Tensor argument(s) {', '.join(missing)}; "
                     "a kernel key covers every Tensor argument: add "
                     + ", ".join(f"{m}: [T0, D0]" for m in missing))
    named = [a.name for a in schema.key_args if a.name in arg_meta]
    aliases = list(dict.fromkeys(a for n in named for a in arg_meta[n]))
    choices = [types[a] if a in types else orders[a] for a in aliases]
    expanded = []
    for combo in itertools.product(*choices):
        value = dict(zip(aliases, combo))
        key = join_key(key_part(value[arg_meta[n][0]], value[arg_meta[n][1]]) for n in named)
        expanded.append((key, tuple(sorted({value[arg_meta[n][0]] for n in named}))))
    return expanded


def _entry_kernels(entry, where: str, library: str, aten: dict) -> list[LibraryKernel] | str:
    """The entry's concrete kernels, or why the entry declares none Tailor can call."""
    if not isinstance(entry, dict):
        _fail(where, "an entry is a mapping with `op:` or `func:` and `kernels:`")
    _check_keys(where, "the entry", entry, _ENTRY_KEYS, tuple(IGNORED_ENTRY_KEYS))
    schema = _schema_of(entry, where, aten)
    if schema is None:
        return (f"aten::{entry['op']} is in-place: torch.export functionalizes it, so "
                "programs call its out variant")
    _check_ignored_keys(entry, where, schema)
    if _functional(schema):
        return (f"{schema.op} is functional (returns a new tensor): programs call only out "
                "variants")
    check_supported(schema, where)
    types, orders = _type_aliases(entry, where), _dim_order_aliases(entry, where)
    source = entry.get("source", f"kernels/{library}/op_{base_op_name(schema.op)}.cpp")
    if not isinstance(source, str) or os.path.isabs(source):
        _fail(where, f"source must be a path relative to the repository, e.g. "
                     f"kernels/{library}/op_{base_op_name(schema.op)}.cpp")
    kernels = entry.get("kernels")
    if not isinstance(kernels, list) or not kernels:
        _fail(where, "kernels must be a non-empty list of {arg_meta, kernel_name}")
    found = []
    for number, kernel in enumerate(kernels, 1):
        at = f"{where}: kernel {number}"
        if not isinstance(kernel, dict):
            _fail(at, "a kernel is a mapping {arg_meta: ..., kernel_name: ns::function}")
        _check_keys(at, "the kernel", kernel, _KERNEL_KEYS)
        name = kernel.get("kernel_name")
        if not isinstance(name, str) or not _KERNEL_NAME_RE.match(name):
            _fail(at, f"kernel_name {name!r} is not a C++ qualified name with a namespace; "
                      "write e.g. tailor::add_out (C++ tailor::native::add_out)")
        if "arg_meta" not in kernel:
            _fail(at, "arg_meta is missing; write `arg_meta: null` for a kernel that takes "
                      "any dtype and dim order")
        if kernel["arg_meta"] is None:
            expanded = [("", _null_kernel_dtypes(kernel, at))]
        elif "dtypes" in kernel:
            _fail(at, "dtypes goes with `arg_meta: null`; an arg_meta mapping takes its "
                      "dtypes from the entry's type_alias: remove dtypes")
        else:
            expanded = _expand_arg_meta(kernel["arg_meta"], schema, at, types, orders)
        scratch = kernel.get("scratch_bytes", 0)
        if not isinstance(scratch, int) or isinstance(scratch, bool) or scratch < 0:
            _fail(at, f"scratch_bytes {scratch!r} is not a byte count; write the bytes of "
                      "scratch the kernel takes, e.g. scratch_bytes: 65536")
        prepack = kernel.get("prepack", "")
        if not isinstance(prepack, str) or (prepack and not _KERNEL_NAME_RE.match(prepack)):
            _fail(at, f"prepack {prepack!r} is not a C++ qualified name with a namespace; "
                      "write the kernel's KernelPrepack object, e.g. "
                      "prepack: tailor::optimized::kMmPrepack")
        found += [LibraryKernel(schema.op, key, native_symbol(name), dtypes, source, library,
                                schema, at, scratch, prepack) for key, dtypes in expanded]
    return found


def _entry_label(entry, number: int, path: str, line: int | None) -> str:
    place = f"{path}:{line}" if line else path
    if isinstance(entry, dict) and isinstance(entry.get("op"), str):
        return f"{place}: entry {number} (op: {entry['op']})"
    if isinstance(entry, dict) and isinstance(entry.get("func"), str):
        return f"{place}: entry {number} (func: {entry['func'].partition('(')[0].strip()})"
    return f"{place}: entry {number}"


def parse_library(text: str, path: str, aten: dict[str, Schema]) -> KernelLibrary:
    """Manifest text -> KernelLibrary; `path` names the library (its stem) and messages."""
    name = os.path.splitext(os.path.basename(path))[0]
    data = load_yaml(text, path)
    if data is None or data == []:
        _fail(path, "the kernel library has no entries; add one (- op: add.out, kernels: "
                    "[{arg_meta: null, kernel_name: tailor::add_out}]) or remove the file "
                    "and its name from kernel_libraries")
    if not isinstance(data, list):
        _fail(path, "a kernel library is a YAML list of entries (- op: add.out ...)")
    lines = entry_lines(text)
    seen: dict[tuple[str, str], LibraryKernel] = {}
    uncallable = []
    for number, entry in enumerate(data, 1):
        where = _entry_label(entry, number, path, lines[number - 1] if lines else None)
        kernels = _entry_kernels(entry, where, name, aten)
        if isinstance(kernels, str):
            uncallable.append(f"{where}: {kernels}")
            continue
        for kernel in kernels:
            other = seen.get((kernel.op, kernel.key))
            if other:
                what = f"key {kernel.key}" if kernel.key else "arg_meta: null"
                _fail(where, f"{kernel.op} with {what} is already provided by {other.entry}; "
                             "keep one of them")
            seen[(kernel.op, kernel.key)] = kernel
    return KernelLibrary(name, path, tuple(seen[k] for k in sorted(seen)), tuple(uncallable))


def load_library(path: str, aten: dict[str, Schema] | None = None) -> KernelLibrary:
    with open(path) as f:
        text = f.read()
    return parse_library(text, roots.shown(path), aten or load_aten_schemas())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m codegen.kernel_manifest LIBRARY.yaml...", file=sys.stderr)
        return 2
    for path in argv:
        library = load_library(path)
        print(f"# {library.name}: {len(library.kernels)} kernels")
        for k in library.kernels:
            key = k.key or ("any: " + ", ".join(k.dtypes) if k.dtypes else "any")
            print(f"{k.op} [{key}] -> {k.native}  ({k.source})")
        for note in library.uncallable:
            print(f"# not callable: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
