"""Which exported programs a library runs: the resolver's verdict for a kernel library,
the partitioner's for XNNPACK (with the reason for each one skipped)."""

import os
from collections import Counter
from dataclasses import dataclass, field

from codegen.errors import ManifestError
from codegen.kernel_manifest import load_library
from codegen.oplist import parse_oplist
from codegen.resolve import resolve_kernels
from tests.conftest import REPO
from tests.ops.cases import OpCase
from tests.ops.harness.export import (Exported, _exporter_fingerprint, export_case,
                                      export_missing, partitioner)
from tests.ops.harness.libraries import (INPUT_PERMUTE, KERNELS_DIR, UNCHECKED_DTYPES,
                                         XNNPACK, XNNPACK_TARGET, _xnnpack_target,
                                         fallbacks, load_libraries, split_library)
from tests.ops.harness.program import _permuted_inputs


def unsupported_reason(exported: Exported, library: str, libs: list,
                       own_call: bool = False) -> str | None:
    """Why `library` (with its fallbacks: `libs`) cannot run the program, from the
    resolver; None if it can. With `own_call`, the first of `libs` must run at least one
    of the calls itself: a library that falls back to another kernel library (optimized to
    portable) would otherwise only test the fallback again."""
    with open(exported.oplist_path) as f:
        oplist = parse_oplist(f.read(), exported.oplist_path)
    try:
        plan = resolve_kernels(oplist, libs)
    except ManifestError as error:
        uses = [line.strip().split(", model")[0] for line in str(error).splitlines()[1:]
                if line.startswith("  ")]
        return f"unsupported: {library} has no kernel for {'; '.join(uses)}"
    if own_call and not any(k.library == libs[0].name for k in plan.kernels):
        uses = [f"{u.op} ({', '.join(u.dtypes)})" for u in oplist.ops]
        return (f"unsupported: {library} has no kernel for {'; '.join(uses)} (its fallback "
                f"{', '.join(lib.name for lib in libs[1:])} would run them all)")
    return None


@dataclass(frozen=True)
class Selection:
    """Which programs one library runs, and why it skips the other (case, dtype)s."""
    programs: dict                   # (case id, dtype) -> Exported
    skipped: dict                    # (case id, dtype) -> reason
    failed: dict = field(default_factory=dict)  # (case id, dtype) -> why its export failed


def select_programs(library: str, exported: list[Exported]) -> Selection:
    """The programs `library` can run: a kernel library's, from the resolver; XNNPACK's,
    from its partitioner (select_for_xnnpack)."""
    if library == XNNPACK:
        return select_for_xnnpack(exported)
    programs, skipped = {}, {}
    library = split_library(library)[0]
    libs = load_libraries(library)
    own_call = set(fallbacks(library)) != {"prim"}
    for e in exported:
        reason = unsupported_reason(e, library, libs, own_call)
        if reason:
            skipped[(e.case.id, e.dtype)] = reason
        else:
            programs[(e.case.id, e.dtype)] = e
    return Selection(programs, skipped)


def xnnpack_ops() -> frozenset:
    """The operators XnnpackPartitioner.check can claim (partitioner.OPS), and those a
    claimed call may fold into its node (partitioner.FOLDED: a PReLU's x > 0): it leaves
    any other call to the kernels as "not an XNNPACK node"."""
    from backends.xnnpack import partitioner
    return partitioner.OPS | partitioner.FOLDED


def xnnpack_skip_reason(exported: Exported) -> str | None:
    """Why XNNPACK does not run the case's calls (exported with its partitioner): the
    partitioner's reasons for the calls it left to the kernels, the permutes of permuted
    inputs excepted; None when it delegates the rest."""
    excused = _permuted_inputs(exported.case)
    reasons = []
    for op, why in exported.outside:
        if op == INPUT_PERMUTE and excused:
            excused -= 1
        elif f"{op}: {why}" not in reasons:
            reasons.append(f"{op}: {why}")
    if reasons:
        return f"unsupported: {XNNPACK} does not delegate {'; '.join(reasons)}"
    if not exported.delegated:
        return f"unsupported: {XNNPACK} has no call to delegate"
    return None


def dtype_probe(dtype: str, fingerprint: str) -> Exported:
    """An add of two [2] tensors of `dtype`, exported with the XNNPACK partitioner."""
    return export_case(OpCase("add.Tensor", (dtype,), [((2,), (2,))], name="dtype_probe"),
                       dtype, fingerprint, XNNPACK)


def _dtypes_refused(oplist, fingerprint: str, probed: dict) -> list[str]:
    """The program's ops (the input permutes aside) called with a dtype the partitioner
    refuses, as "op (dtypes)". It checks every tensor's dtype before anything
    op-specific (but the Long indices of a max pooling, which it checks are unused), so
    its verdict on one add per dtype holds for every op, and the cases it refuses need
    no export of their own."""
    refused = []
    for use in oplist.ops:
        if use.op == INPUT_PERMUTE:
            continue
        dtypes = [d for d in use.dtypes if d not in UNCHECKED_DTYPES.get(use.op, ())]
        for dtype in dtypes:
            if dtype not in probed:
                probed[dtype] = xnnpack_skip_reason(dtype_probe(dtype, fingerprint)) is None
        if not all(probed[d] for d in dtypes):
            refused.append(f"{use.op} ({', '.join(d for d in dtypes if not probed[d])})")
    return refused


def select_for_xnnpack(exported: list[Exported]) -> Selection:
    """The cases XNNPACK runs: each exported again with its partitioner, kept when the
    partitioner delegates every call (see xnnpack_skip_reason). A case whose program
    holds an op the partitioner does not know, or a dtype it refuses, is skipped without
    that export, as the partitioner would skip it."""
    programs, skipped, failed, probed = {}, {}, {}, {}
    # A transpose is never claimed, but the ones of permuted inputs may stay outside.
    known = xnnpack_ops() | {"aten::permute_copy.out"}
    libs = [load_library(os.path.join(KERNELS_DIR, f"{name}.yaml"))
            for name in _xnnpack_target().kernel_libraries]
    fingerprint = _exporter_fingerprint()
    candidates = []
    for e in exported:
        key = (e.case.id, e.dtype)
        unknown = sorted(set(e.ops) - known)
        if unknown:
            skipped[key] = (f"unsupported: {XNNPACK} does not delegate {', '.join(unknown)}: "
                            "not an op its partitioner claims")
            continue
        with open(e.oplist_path) as f:
            refused = _dtypes_refused(parse_oplist(f.read(), e.oplist_path), fingerprint,
                                      probed)
        if refused:
            skipped[key] = (f"unsupported: {XNNPACK} does not delegate {'; '.join(refused)}: "
                            "its partitioner refuses those dtypes")
            continue
        candidates.append(e)
    export_missing([(e.case, e.dtype) for e in candidates], fingerprint, XNNPACK)
    for e in candidates:
        key = (e.case.id, e.dtype)
        try:
            partitioned = export_case(e.case, e.dtype, fingerprint, XNNPACK)
        except Exception as error:  # the case's own test reports it
            failed[key] = f"{type(error).__name__}: {error}"
            continue
        reason = (xnnpack_skip_reason(partitioned)
                  or unsupported_reason(partitioned, XNNPACK_TARGET, libs))
        if reason:
            skipped[key] = reason
        else:
            programs[key] = partitioned
    return Selection(programs, skipped, failed)


def assert_delegated(exported: Exported) -> None:
    """Checks, in the .pte itself, that XNNPACK runs the case: the program has a
    delegate call, and no kernel call but the permutes of permuted inputs."""
    from program.pte import read_program
    method = read_program(os.path.join(REPO, exported.pte))[0].methods[0]
    kinds = Counter(type(i).__name__ for i in method.instructions)
    kernel_ops = Counter(method.operators[call.op_index].qualified_name
                         for _, call in method.kernel_calls())
    left = kernel_ops - Counter({INPUT_PERMUTE: _permuted_inputs(exported.case)})
    where = f"{exported.case.id} ({exported.dtype})"
    assert kinds["DelegateCall"] > 0, f"{where}: the program has no delegate call"
    assert not left, f"{where}: the portable kernels run {', '.join(sorted(left))}"
