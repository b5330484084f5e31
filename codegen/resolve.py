"""Selected ops (selected_ops.yaml) + kernel libraries -> KernelPlan (kernel_plan.yaml).

Rule, for each (op, kernel key) a model needs: walk the target's kernel_libraries in
precedence order; in each library take the kernel with exactly that key, else its
`arg_meta: null` kernel unless that kernel lists `dtypes:` not covering every dtype in
the key; the first hit wins. Method load does the same lookup on the generated table
(exact key, then ""), so every needed key lands on the chosen kernel: an `arg_meta: null`
kernel is registered under "", or under the call's key when another library's
`arg_meta: null` kernel already holds "" for the op.

An op selected with `dtypes: all` (an explicit op list, or --select all) must work for
any key, so it gets what the rule above gives every possible key: each exact kernel of
each library (an earlier library wins a key), up to and including the first library
with an `arg_meta: null` kernel for every dtype, which ends the walk. One that lists its
`dtypes:` is passed over (it would be called for dtypes it refuses), unless no library
has one for every dtype.

--select all selects every op of every library with `dtypes: all` (no selective build)
and renders TL_SELECT_ALL_DTYPES. A needed op or key no library provides stops with one
ManifestError listing all of them.

CLI: python -m codegen.resolve --oplist selected_ops.yaml --target TARGET.yaml
         --out kernel_plan.yaml [--sources-out kernel_sources.txt] [--select all]
"""

import argparse
import re
import os
import sys
from dataclasses import dataclass

from codegen.dtypes import ALL_DTYPES, dtype_mask
from codegen.errors import ManifestError, run_cli
from codegen.kernel_manifest import KernelLibrary, LibraryKernel, load_library, manifest_op_name
from codegen.nearest_kernel import Offer, describe_missing
from codegen.oplist import OpList, OpUse, merge_oplists, parse_oplist
from codegen.roots import find_source, in_project
from codegen.schema import load_aten_schemas
from codegen.target import is_library_path, load_target
from codegen.yaml_io import dump_yaml, load_yaml, write_text

_HEADER = """\
# Kernel plan, written by codegen/resolve.py: one kernel per (op, key), sorted by (op, key).
# key '' is an `arg_meta: null` kernel (any dtype and dim order). selected_dtypes: the
# dtypes each chosen kernel (library, op) may instantiate (mask bit = ATen ScalarType code).
"""


@dataclass(frozen=True)
class KernelChoice:
    op: str          # "aten::addmm.out"
    key: str         # "" for an arg_meta: null kernel
    native: str      # "tailor::native::addmm_out"
    wrapper: str     # "wrap_0": the generated unboxing function
    library: str     # "portable"
    source: str      # "kernels/portable/op_addmm.cpp"
    schema: str      # the op's full schema string
    scratch_bytes: int = 0  # its manifest's scratch_bytes (runtime/kernel/kernel_scratch.h)
    prepack: str = ""       # its manifest's prepack: KernelPrepack object (prepack.h)


@dataclass(frozen=True)
class DtypeSelection:
    """The dtypes one library's kernel of an op was chosen for: only these are compiled
    into it (gen/selected_dtypes.h), and Method load refuses the others."""
    library: str                # "portable"
    op: str                     # as the manifest spells it: "addmm.out", "tailor_prim::mul.int"
    dtypes: tuple[str, ...]     # sorted

    @property
    def mask(self) -> int:
        return dtype_mask(self.dtypes)


@dataclass(frozen=True)
class KernelPlan:
    select_all: bool                              # every dtype of every kernel
    libraries: tuple[str, ...]                    # precedence order searched
    kernels: tuple[KernelChoice, ...]             # sorted by (op, key)
    selected_dtypes: tuple[DtypeSelection, ...]   # sorted by (op, library); empty when select_all
    # Per kernel source, every op (as the manifest spells it) its library declares in that
    # file, chosen or not: the only names its code may read a dtype mask for (the kernel unit's
    # TL_KERNEL_OPS, runtime/kernel/dtype_selection.h).
    source_ops: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(sorted({k.source for k in self.kernels}))

    @property
    def scratch_bytes(self) -> int:
        """Bytes of one kernel scratch slice: the most any chosen kernel takes."""
        return max((k.scratch_bytes for k in self.kernels), default=0)


def _key_dtypes(key: str) -> set[str]:
    """The tensor dtypes in a kernel key: "Float;0,1|Long;0" -> {Float, Long}."""
    return {part.partition(";")[0] for part in key.split("|") if part}


def _serves(kernel: LibraryKernel, key: str) -> bool:
    """Whether an `arg_meta: null` kernel takes calls with `key`."""
    return kernel.dtypes is None or _key_dtypes(key) <= set(kernel.dtypes)


def _pick(op: str, key: str, libraries) -> LibraryKernel | None:
    for library in libraries:
        found = {k.key: k for k in library.kernels_for(op)}
        if key in found:
            return found[key]
        if "" in found and _serves(found[""], key):
            return found[""]
    return None


def _offered(kernel: LibraryKernel) -> str:
    if kernel.key:
        return kernel.key
    if kernel.dtypes is None:
        return "arg_meta: null (any dtype)"
    return f"arg_meta: null ({', '.join(kernel.dtypes)})"


def _can_take(kernel: LibraryKernel) -> set[str]:
    """The dtypes a kernel may be called with: its key's, else those its `dtypes:` lists."""
    if kernel.key:
        return _key_dtypes(kernel.key)
    return set(ALL_DTYPES if kernel.dtypes is None else kernel.dtypes)


def _pick_all(op: str, libraries) -> list[LibraryKernel]:
    picked: dict[str, LibraryKernel] = {}
    partial = None  # the first `arg_meta: null` kernel that lists its dtypes
    for library in libraries:
        for kernel in library.kernels_for(op):
            if kernel.key == "" and kernel.dtypes is not None:
                # "" must take every dtype: a later library's unrestricted kernel holds it.
                partial = partial or kernel
                continue
            picked.setdefault(kernel.key, kernel)
        if "" in picked:
            break
    if "" not in picked and partial is not None:
        picked[""] = partial
    return list(picked.values())


def _check_schemas(libraries) -> None:
    seen: dict[str, LibraryKernel] = {}
    for library in libraries:
        for kernel in library.kernels:
            first = seen.setdefault(kernel.op, kernel)
            if first.schema != kernel.schema:
                raise ManifestError(f"{kernel.entry}: schema {kernel.schema} differs from "
                                    f"{first.schema} at {first.entry}; one op has one schema: "
                                    "make them the same")


def _who(models) -> str:
    if not models:
        return "op list"
    return ("models " if len(models) > 1 else "model ") + ", ".join(models)


@dataclass(frozen=True)
class _Missing:
    """One operator use no library serves."""
    use: OpUse
    key: str | None          # None: the op with all dtypes (an op list)
    has_op: bool             # some library has the op, for other dtypes


def _schema_of(op: str, libraries):
    for lib in libraries:
        for kernel in lib.kernels_for(op):
            return kernel.schema
    return load_aten_schemas().get(op)


def _named_dtypes(op: str, key: str, libraries) -> str:
    """"self: Bool, out: Long" for kernel key "Bool;0|Long;0", or the bare dtypes."""
    dtypes = [part.partition(";")[0] for part in key.split("|") if part]
    schema = _schema_of(op, libraries)
    names = [a.name for a in schema.key_args] if schema is not None else []
    if len(names) != len(dtypes):
        return ", ".join(sorted(set(dtypes)))
    return ", ".join(f"{n}: {d}" for n, d in zip(names, dtypes))


def _describe(group: list[_Missing], libraries) -> list[str]:
    """The message lines of missing uses of one op with the same named dtypes."""
    m = group[0]
    models, sources = set(), []
    for g in group:
        models |= set(dict(g.use.kernel_keys).get(g.key, g.use.models))
        sources += [s for s in (g.use.sources_of(g.key) if g.key is not None else ())
                    if s not in sources]
    what = "all dtypes" if m.key is None else _named_dtypes(m.use.op, m.key, libraries)
    head = f"{m.use.op} ({what}), {_who(sorted(models))}"
    if m.has_op:
        offers = [Offer(k.library, k.key, k.dtypes) for lib in libraries
                  for k in lib.kernels_for(m.use.op)]
        schema = _schema_of(m.use.op, libraries)
        clauses = []
        for g in group:
            lacks, _ = describe_missing(g.key, offers, schema)
            clauses.append(f"no kernel for key '{g.key}'" + (f"; {lacks}" if lacks else ""))
        head += ": " + "; ".join(clauses)
        if not all(describe_missing(g.key, offers, schema)[0] for g in group):
            offered = sorted({_offered(k) for lib in libraries
                              for k in lib.kernels_for(m.use.op)})
            head += f"; the libraries have {', '.join(offered)}"
    else:
        head += ": no library has the op"
    shown = [f"  at {where}" for where in sources[:3]]       # under the op's line
    if len(sources) > 3:
        shown.append(f"  ... and {len(sources) - 3} more (kernel_keys in selected_ops.yaml)")
    return [head] + shown


def _missing_error(missing: list[_Missing], libraries, target_path: str, source: str):
    names = ", ".join(lib.name for lib in libraries)
    paths = ", ".join(lib.path for lib in libraries)
    where = f" (kernel_libraries of {target_path})" if target_path else ""
    in_target = f" in {target_path}" if target_path else ""
    groups: dict[tuple, list[_Missing]] = {}
    for m in missing:
        what = None if m.key is None else _named_dtypes(m.use.op, m.key, libraries)
        groups.setdefault((m.use.op, what, m.has_op), []).append(m)
    lines = [line for group in groups.values() for line in _describe(group, libraries)]
    fixes = []
    if any(not m.has_op for m in missing):
        fixes.append(f"add a kernel for each op no library has to one of {paths}, or add a "
                     f"library that has it to kernel_libraries{in_target}")
    kinds = set()
    for m in missing:
        if m.has_op:
            offers = [Offer(k.library, k.key, k.dtypes) for lib in libraries
                      for k in lib.kernels_for(m.use.op)]
            kinds |= describe_missing(m.key, offers, _schema_of(m.use.op, libraries))[1] \
                or {"dtype"}
    if "dtype" in kinds:
        fixes.append("give the op's kernel the missing dtypes (`arg_meta: null` with them in "
                     "its `dtypes:`, or an entry whose type_alias lists them), or export the "
                     "model with dtypes the kernels support")
    if kinds & {"rank", "dim order"}:
        fixes.append("give the op a kernel for that rank or dim order (a kernel that handles "
                     "it, declared with it in its dim_order_alias), or export the model so the "
                     "op sees a rank and dim order the kernels take")
    return ManifestError(
        f"{source}: {len(groups)} operator use(s) have no kernel in [{names}]{where}:\n  "
        + "\n  ".join(lines) + "\n" + "\n".join(f"fix: {fix}" for fix in fixes))


def resolve_kernels(selection: OpList, libraries: list[KernelLibrary], select_all: bool = False,
                    target_path: str = "", source: str = "selected_ops.yaml") -> KernelPlan:
    """Picks one kernel per needed (op, key) from `libraries` (precedence order)."""
    _check_schemas(libraries)
    if select_all:
        everything = OpList(tuple(OpUse(op, all_dtypes=True)
                                  for lib in libraries for op in lib.ops()))
        selection = merge_oplists([selection, everything])
    chosen: dict[tuple[str, str], LibraryKernel] = {}
    dtypes: dict[tuple[str, str], set] = {}   # (op as the manifest spells it, library)
    missing = []
    for use in selection.ops:
        if not any(lib.kernels_for(use.op) for lib in libraries):
            keys = [key for key, _ in use.kernel_keys]
            missing += [_Missing(use, key, False) for key in (keys or [None])]
            continue
        picked = _pick_all(use.op, libraries) if use.all_dtypes else []
        served = [(kernel, _can_take(kernel)) for kernel in picked]
        for kernel in picked:
            chosen.setdefault((kernel.op, kernel.key), kernel)
        for key, models in use.kernel_keys:
            kernel = _pick(use.op, key, libraries)
            if kernel is None:
                missing.append(_Missing(use, key, True))
                continue
            served.append((kernel, _key_dtypes(key)))
            # "" is one kernel per op: another null kernel is registered for its key.
            holder = chosen.setdefault((kernel.op, kernel.key), kernel)
            if holder is not kernel:
                chosen[(kernel.op, key)] = kernel
        # Each kernel gets the dtypes of the keys it was chosen for (with all dtypes, every
        # one it can take), not the op's union: two libraries' kernels of one op compile
        # disjoint cases. Dtypes no key names (a Tensor[]'s elements) may reach any of them.
        unkeyed = set(use.dtypes) - set().union(*(d for _, d in served))
        for kernel, key_dtypes in served:
            dtypes.setdefault((manifest_op_name(use.op), kernel.library), set()).update(
                key_dtypes | unkeyed)
    if missing:
        raise _missing_error(missing, libraries, target_path, source)
    wrappers: dict[tuple[str, str], str] = {}
    kernels = []
    for (op, key), k in sorted(chosen.items()):
        wrapper = wrappers.setdefault((op, k.native), f"wrap_{len(wrappers)}")
        kernels.append(KernelChoice(op, key, k.native, wrapper, k.library, k.source,
                                    str(k.schema), k.scratch_bytes, k.prepack))
    selected = () if select_all else tuple(DtypeSelection(library, op, tuple(sorted(d)))
                                           for (op, library), d in sorted(dtypes.items()))
    return KernelPlan(select_all, tuple(lib.name for lib in libraries), tuple(kernels), selected,
                      _source_ops(kernels, libraries))


def _source_ops(kernels: list[KernelChoice], libraries) -> tuple:
    """(source, ops its library declares in it) for each source of `kernels`."""
    declared: dict[tuple[str, str], set] = {}
    for library in libraries:
        for k in library.kernels:
            declared.setdefault((library.name, k.source), set()).add(manifest_op_name(k.op))
    owners = {k.source: k.library for k in kernels}
    return tuple((source, tuple(sorted(declared.get((library, source), ()))))
                 for source, library in sorted(owners.items()))


def choice_report(selection: OpList, libraries: list[KernelLibrary],
                  own: frozenset[str] = frozenset()) -> list[str]:
    """One line per op that several libraries serve, or that a library in `own` (a
    model's own) serves: which library takes which dtypes. The same rule as resolve_kernels."""
    lines = []
    for use in selection.ops:
        served: dict[str, set] = {}
        for key, _ in use.kernel_keys:
            kernel = _pick(use.op, key, libraries)
            if kernel is not None:
                served.setdefault(f"{kernel.library} ({kernel.source})", set()).update(
                    _key_dtypes(key))
        if len(served) > 1 or any(where.partition(" ")[0] in own for where in served):
            lines.append(f"{use.op}: " + "; ".join(
                f"{', '.join(sorted(dtypes))} -> {where}"
                for where, dtypes in sorted(served.items(), key=lambda item: sorted(item[1]))))
    return lines


def check_kernel_sources(plan: KernelPlan, libraries: list[KernelLibrary],
                         locate=find_source) -> None:
    """Each chosen kernel's source exists and defines its function, and belongs to one
    library (its kernel unit compiles it once, under its library's dtype selection), so
    a manifest typo stops the build naming the entry, not with a compiler or linker error."""
    entries = {(k.library, k.native, k.source): k.entry for lib in libraries
               for k in lib.kernels}
    texts: dict[str, str | None] = {}
    owners: dict[str, str] = {}
    for k in plan.kernels:
        where = entries.get((k.library, k.native, k.source), f"kernel library {k.library}")
        owner = owners.setdefault(k.source, k.library)
        if owner != k.library:
            raise ManifestError(f"{where}: kernel libraries {owner} and {k.library} both take "
                                f"kernels from {k.source}, which is compiled once, with one "
                                "library's dtype selection; give each library its own file")
        if k.source not in texts:
            path = locate(k.source)  # the file of a `source:` path (codegen/roots.py)
            texts[k.source] = open(path).read() if os.path.isfile(path) else None
        if texts[k.source] is None:
            raise ManifestError(f"{where}: the source of {k.op}'s kernel, {k.source}, does not "
                                "exist; create it or point `source:` at the file that "
                                "defines the kernel")
        function = k.native.rpartition("::")[2]
        if not re.search(rf"\b{re.escape(function)}\s*\(", texts[k.source]):
            raise ManifestError(f"{where}: kernel_name says {k.native}, but {k.source} "
                                f"defines no function {function}; fix kernel_name or "
                                "`source:`")


def check_plan_covers(plan: KernelPlan, selection: OpList) -> None:
    """Looks up every (op, key) of the op list in the plan as Method load does in the
    table rendered from it (the exact key, else the op's `arg_meta: null` kernel) and
    checks that kernel's dtype row holds the key's dtypes: a call the build accepted is
    never refused at load or in its kernel's dtype switch."""
    if plan.select_all:
        return
    table = {(k.op, k.key): k for k in plan.kernels}
    rows = {(s.library, s.op): set(s.dtypes) for s in plan.selected_dtypes}
    for use in selection.ops:
        for key, _ in use.kernel_keys:
            kernel = table.get((use.op, key)) or table.get((use.op, ""))
            row = rows.get((kernel.library, manifest_op_name(use.op)), set()) if kernel else set()
            if kernel is None or not _key_dtypes(key) <= row:
                raise ManifestError(
                    f"internal error: the kernel plan cannot serve {use.op} with key {key!r} "
                    f"(kernel: {kernel.library + ' ' + kernel.native if kernel else 'none'}, "
                    f"dtypes: {', '.join(sorted(row)) or 'none'}); please report it")


def plan_to_yaml(plan: KernelPlan) -> str:
    data = {
        "select": "all" if plan.select_all else "selected",
        "libraries": list(plan.libraries),
        "kernels": [dict(op=k.op, key=k.key, native=k.native, wrapper=k.wrapper,
                         library=k.library, source=k.source, schema=k.schema,
                         **({"scratch_bytes": k.scratch_bytes} if k.scratch_bytes else {}),
                         **({"prepack": k.prepack} if k.prepack else {}))
                    for k in plan.kernels],
        "selected_dtypes": [{"library": s.library, "op": s.op, "dtypes": list(s.dtypes),
                             "mask": f"0x{s.mask:x}"} for s in plan.selected_dtypes],
        "sources": {source: list(ops) for source, ops in plan.source_ops},
    }
    return dump_yaml(data, _HEADER)


def parse_plan(text: str, path: str) -> KernelPlan:
    """kernel_plan.yaml text -> KernelPlan (the format plan_to_yaml writes)."""
    data = load_yaml(text, path)
    try:
        return KernelPlan(
            data["select"] == "all", tuple(data["libraries"]),
            tuple(KernelChoice(**k) for k in data["kernels"]),
            tuple(DtypeSelection(s["library"], s["op"], tuple(s["dtypes"]))
                  for s in data["selected_dtypes"]),
            tuple((source, tuple(ops)) for source, ops in data["sources"].items()))
    except (KeyError, TypeError) as e:
        raise ManifestError(f"{path}: not a kernel plan ({e!r}); write it with "
                            "python -m codegen.resolve") from None


def _parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m codegen.resolve",
                                description=__doc__.split("\n")[0])
    p.add_argument("--oplist", action="append", default=[], help="selected_ops.yaml")
    p.add_argument("--target", required=True, help="manifests/targets/<name>.yaml")
    p.add_argument("--out", required=True, help="kernel_plan.yaml to write")
    p.add_argument("--sources-out", help="kernel source list (default: kernel_sources.txt "
                                         "beside --out)")
    p.add_argument("--select", choices=("selected", "all"), default="selected",
                   help="all: every kernel of every library, every dtype")
    p.add_argument("--libraries", help="kernel libraries in precedence order, comma "
                                       "separated (default: the target's)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    if not args.oplist and args.select != "all":
        raise ManifestError("give --oplist selected_ops.yaml (or --select all)")
    target = load_target(args.target)
    names = args.libraries.split(",") if args.libraries else target.kernel_libraries
    for name in names:
        if not os.path.exists(target.library_path(name)):
            raise ManifestError(f"--libraries: there is no {target.library_path(name)}")
    libraries = [load_library(target.library_path(name)) for name in names]
    # The user's libraries: named by their path, or the project's (codegen/roots.py).
    own = frozenset(lib.name for name, lib in zip(names, libraries)
                    if is_library_path(name) or in_project(target.library_path(name)))
    lists = []
    for path in args.oplist:
        with open(path) as f:
            lists.append(parse_oplist(f.read(), path))
    plan = resolve_kernels(merge_oplists(lists), libraries, args.select == "all", target.path,
                           ", ".join(args.oplist) or "--select all")
    check_kernel_sources(plan, libraries)
    check_plan_covers(plan, merge_oplists(lists))
    for line in choice_report(merge_oplists(lists), libraries, own):
        print(f"  kernel choice: {line}")
    write_text(args.out, plan_to_yaml(plan))
    sources_out = args.sources_out or os.path.join(os.path.dirname(args.out),
                                                   "kernel_sources.txt")
    write_text(sources_out, "".join(f"{s}\n" for s in plan.sources))
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
