"""Every case of tests/ops/cases/, in every dtype, against every kernel library and
XNNPACK.

One test per (library, case, dtype). A combination the library cannot run (the resolver
finds no kernel for one of the program's ops and dtypes; the XNNPACK partitioner leaves
one of its calls to the kernels) is skipped with the reason. Without XNNPACK installed,
its tests skip with one reason saying how to install it.
"""

import collections
import dataclasses
import os
import subprocess

import numpy as np
import pytest

from codegen.kernel_manifest import load_library, parse_library
from codegen.oplist import parse_oplist
from codegen.schema import load_aten_schemas
from tests.conftest import REPO
from tests.ops import harness
from tests.ops.cases import CASES

# Bugs the cases found that are not fixed yet, or not ours to fix: each test must fail
# (strict xfail) until the fix, which removes its entry here.
KNOWN_FAILURES: dict[str, str] = {
    # Not ours to fix: XNNPACK 2022's Multiply clamps its result (a max, then a min), which
    # turns NaN into -inf; SiLU is its sigmoid then its multiply (backends/xnnpack/nodes.py).
    "xnnpack/silu.default-overflow/Float":
        "XNNPACK's SiLU gives -inf where torch gives NaN (at -inf and NaN)",
}


def _param(library, case, dtype):
    test_id = f"{library}/{case.id}/{dtype}"
    known = KNOWN_FAILURES.get(test_id)
    # Only its wrong result or crash (an AssertionError) counts as the known failure.
    marks = [pytest.mark.xfail(reason=known, raises=AssertionError, strict=True)] if known else []
    return pytest.param(library, case, dtype, id=test_id, marks=marks)


PARAMS = [_param(library, case, dtype)
          for library in harness.libraries() for case, dtype in harness.case_params()]


_exported = {}


@pytest.fixture
def exported():
    """(case id, dtype) -> Exported, or the error that stopped its export: every case
    exported (or taken from the cache) once; one broken case fails only its own tests."""
    if not _exported:
        fingerprint = harness._exporter_fingerprint()
        harness.export_missing(harness.case_params(), fingerprint)
        for case, dtype in harness.case_params():
            try:
                _exported[(case.id, dtype)] = harness.export_case(case, dtype, fingerprint)
            except Exception as error:  # the case's own test reports it
                _exported[(case.id, dtype)] = f"{type(error).__name__}: {error}"
    return _exported


def _ok(exported) -> list:
    return [e for e in exported.values() if not isinstance(e, str)]


_selections = {}


def _selection(library: str, exported) -> harness.Selection:
    """The programs `library` runs, decided once (for XNNPACK: each case exported with its
    partitioner, which needs no XNNPACK installed); the same at every CPU level."""
    library = harness.split_library(library)[0]
    if library not in _selections:
        _selections[library] = harness.select_programs(library, _ok(exported))
    return _selections[library]


_builds = {}


@pytest.fixture
def built(exported):
    """library name -> LibraryBuild, built on first use (one scons run per library)."""
    def get(library):
        base, level = harness.split_library(library)
        if level and level != harness.CROSS and library not in _builds:  # capped at run time
            found = get(base)
            _builds[library] = dataclasses.replace(found, library=library, cpu_level=level)
        if library not in _builds:
            try:
                _builds[library] = harness.build_library(library, _selection(library, exported))
            except AssertionError as error:  # fail every test of the library, build once
                _builds[library] = error
        if isinstance(_builds[library], AssertionError):
            pytest.fail(f"the {library} build failed: {_builds[library]}", pytrace=False)
        return _builds[library]
    return get


@pytest.mark.parametrize("library,case,dtype", PARAMS)
def test_op(library, case, dtype, exported, built, tmp_path):
    missing = harness.unavailable(library)
    if missing:
        pytest.skip(missing)
    if isinstance(exported[(case.id, dtype)], str):
        pytest.fail(f"export failed: {exported[(case.id, dtype)]}", pytrace=False)
    selection = built(library).selection
    if (case.id, dtype) in selection.failed:
        pytest.fail(f"{library} export failed: {selection.failed[(case.id, dtype)]}",
                    pytrace=False)
    reason = selection.skipped.get((case.id, dtype))
    if reason:
        if f"{library}/{case.id}/{dtype}" in KNOWN_FAILURES:  # fixed by no longer running it
            pytest.fail(f"now skipped ({reason}): remove it from KNOWN_FAILURES", pytrace=False)
        pytest.skip(reason)
    program = selection.programs[(case.id, dtype)]
    if library == harness.XNNPACK:  # so a case cannot pass on the portable kernels
        harness.assert_delegated(program)
    harness.run_and_compare(built(library), program, str(tmp_path), threads=case.threads)


# The elementwise operators of ExecuTorch's portable library that torch.export emits
# (issue 29; logit and glu have cases in the shape section, rsub decomposes to sub).
EXECUTORCH_ELEMENTWISE = (
    "acos.out", "asin.out", "atan.out", "acosh.out", "asinh.out", "atanh.out", "cosh.out",
    "sinh.out", "tan.out", "ceil.out", "floor.out", "round.out", "round.decimals_out",
    "trunc.out", "sign.out", "reciprocal.out", "log2.out", "log10.out", "isnan.out",
    "isinf.out", "atan2.out", "fmod.Tensor_out", "fmod.Scalar_out", "remainder.Tensor_out",
    "remainder.Scalar_out", "bitwise_or.Tensor_out", "bitwise_or.Scalar_out",
    "bitwise_xor.Tensor_out", "bitwise_xor.Scalar_out", "bitwise_left_shift.Tensor_out",
    "bitwise_left_shift.Tensor_Scalar_out", "bitwise_right_shift.Tensor_out",
    "bitwise_right_shift.Tensor_Scalar_out", "__lshift__.Tensor_out", "__lshift__.Scalar_out",
    "__rshift__.Tensor_out", "__rshift__.Scalar_out", "logical_xor.out", "floor_divide.out",
    "floor_divide.Scalar_out")


def test_portable_runs_the_executorch_elementwise_ops(exported):
    """Portable declares each of them, some case calls each, and portable runs every
    program calling one (a skip would hide a missing dtype)."""
    wanted = {f"aten::{op}" for op in EXECUTORCH_ELEMENTWISE}
    library = load_library(os.path.join(harness.KERNELS_DIR, "portable.yaml"))
    assert sorted(wanted - set(library.ops())) == []
    calling = [e for e in _ok(exported) if wanted & set(e.ops)]
    assert sorted(wanted - {op for e in calling for op in e.ops}) == []
    skipped = _selection("portable", exported).skipped
    assert [f"{e.case.id} ({e.dtype}): {skipped[(e.case.id, e.dtype)]}" for e in calling
            if (e.case.id, e.dtype) in skipped] == []


@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_integer_division_by_zero_fails_the_call(op, exported, built, tmp_path):
    """torch raises ZeroDivisionError for an integer fmod or remainder by zero; the kernel
    fails the call with a message naming the op (its by_zero case, on a zero divisor)."""
    program = exported[(f"{op}.Tensor-by_zero", "Int")]
    inputs = []
    for name, values in (("self", [5, -7, 3, 0]), ("other", [2, 3, 0, 1])):
        inputs += ["--input", str(tmp_path / f"{name}.npy")]
        np.save(inputs[-1], np.array(values, np.int32))
    proc = subprocess.run([built("portable").runner, os.path.join(REPO, program.pte), *inputs],
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{op}.Tensor_out: integer division by zero" in proc.stderr


def test_random_ops_follow_the_seed_rule(exported, built, tmp_path):
    """README.md, Random operators: the same seed draws the same numbers on any number of
    threads (the first call splits into 8 chunks on 2 threads), another seed or the next
    run other ones, and --reset-state makes every run the first again."""
    program = exported[("rand.default", "Float")]
    runner = built("portable").runner

    def draw(name, *options):
        path = tmp_path / f"{name}.npy"
        proc = subprocess.run([runner, os.path.join(REPO, program.pte), "--output", str(path),
                               *options], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return np.load(path)

    first = draw("first", "--seed", "7")
    assert first.shape == (160, 128)
    np.testing.assert_array_equal(draw("again", "--seed", "7"), first)
    np.testing.assert_array_equal(draw("threads", "--seed", "7", "--threads", "2"), first)
    np.testing.assert_array_equal(
        draw("reset", "--seed", "7", "--repeat", "2", "--reset-state"), first)
    assert not np.array_equal(draw("other", "--seed", "8"), first)
    assert not np.array_equal(draw("second", "--seed", "7", "--repeat", "2"), first)
    assert not np.array_equal(draw("default"), first)  # seed 0


def test_self_check_compares_drawn_outputs_by_shape_and_dtype(exported, built, tmp_path):
    """run=1's check (runner --check) on a program of random ops: the exporter names their
    outputs drawn_<i>.npy, which the runner compares for shape and dtype, not values."""
    import shutil

    import torch

    from exporter.io_files import write_io
    program = exported[("rand.default", "Float")]
    pte = tmp_path / "rand.pte"
    shutil.copy(os.path.join(REPO, program.pte), pte)
    eager = [torch.from_numpy(np.load(p)) for p in program.expected]
    (tmp_path / "rand_io").mkdir()

    def check(outputs):
        write_io(str(tmp_path / "rand_io"), [], outputs, drawn=tuple(range(len(outputs))))
        return subprocess.run([built("portable").runner, str(pte), "--check"],
                              capture_output=True, text=True)

    proc = check(eager)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "output 0: shape [160, 128] Float, drawn from random operators" in proc.stdout
    assert not (tmp_path / "rand_io" / "expected_0.npy").exists()
    proc = check([eager[0].double(), *eager[1:]])
    assert proc.returncode == 1 and "eager has [160, 128] Double): FAILED" in proc.stdout


def test_data_dependent_sizes_are_set_by_the_kernel_within_the_planned_bound(built, tmp_path):
    """nonzero and masked_select (issue 29): the output is planned at torch.export's bound
    for its size (the input's element count at its upper bounds, or lower by a
    torch._check), the kernel sets the size it finds on each run, and a run past the bound
    fails the call naming the op, the size and the bound."""
    import torch

    from exporter.export import export

    class Select(torch.nn.Module):
        def forward(self, x, mask):
            found = torch.nonzero(x)
            torch._check(found.shape[0] <= 4)
            # masked_select's mask broadcasts its first row: torch's own range counts that
            # row's 3 elements, the exporter plans the broadcast's 8 x 3.
            return found, torch.masked_select(x, mask), torch.masked_select(x[0], mask)

    rows = torch.export.Dim("rows", max=8)
    example = torch.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])  # 2 rows: 1 would specialize
    program = export(Select(), (example, example > 1), dynamic_shapes=({0: rows}, {0: rows}))
    plan = sorted(tuple(v.sizes) for v in program.data.methods[0].values
                  if getattr(v, "dynamic", False))
    # The inputs at 8 rows; nonzero at the torch._check; masked_select at 8 x 3 twice.
    assert plan == [(4, 2), (8, 3), (8, 3), (24,), (24,)]
    pte = str(tmp_path / "select.pte")
    program.save(pte)

    def run(x, mask):
        args = [built("portable").runner, pte]
        for i, value in enumerate((x, mask)):
            args += ["--input", str(tmp_path / f"input_{i}.npy")]
            np.save(args[-1], value.numpy())
        for name in ("found", "kept", "row_kept"):
            args += ["--output", str(tmp_path / f"{name}.npy")]
        return subprocess.run(args, capture_output=True, text=True)

    x = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, -3.0], [0.0, 0.0, 0.0],
                      [0.0, 4.0, 0.0]])
    mask = x.abs() < 2
    proc = run(x, mask)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "found.npy"), torch.nonzero(x).numpy())
    np.testing.assert_array_equal(np.load(tmp_path / "kept.npy"), x[mask].numpy())
    np.testing.assert_array_equal(np.load(tmp_path / "row_kept.npy"),
                                  torch.masked_select(x[0], mask).numpy())

    x[3] = 1.0  # 7 nonzero elements: past the torch._check's 4 rows
    proc = run(x, mask)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ("nonzero.out: the result has 14 elements, more than the 8 its out tensor was "
            "planned for") in proc.stderr


def test_case_ids_are_unique():
    counts = collections.Counter(case.id for case in CASES)
    assert [i for i, n in counts.items() if n > 1] == []


@pytest.mark.parametrize("name", ["portable", "optimized", "quantized"])
def test_every_kernel_has_a_case(exported, name):
    library = load_library(os.path.join(harness.KERNELS_DIR, f"{name}.yaml"))
    covered = {op for e in _ok(exported) for op in e.ops}
    missing = [op for op in library.ops() if op not in covered]
    assert not missing, f"no case in tests/ops/cases/ exercises: {', '.join(missing)}"


@pytest.mark.parametrize("name", ["portable", "optimized", "quantized"])
def test_every_listed_dtype_has_a_case(exported, name):
    """A kernel's manifest `dtypes:` claims only dtypes some case runs it with."""
    library = load_library(os.path.join(harness.KERNELS_DIR, f"{name}.yaml"))
    run: dict[str, set] = collections.defaultdict(set)
    for e in _ok(exported):
        with open(e.oplist_path) as f:
            oplist = parse_oplist(f.read(), e.oplist_path)
        for use in oplist.ops:
            for key, _ in use.kernel_keys:
                run[use.op] |= {part.partition(";")[0] for part in key.split("|") if part}
    untested = [f"{k.op} ({', '.join(sorted(set(k.dtypes) - run[k.op]))})"
                for k in library.kernels if k.dtypes and not set(k.dtypes) <= run[k.op]]
    assert not untested, f"no case in tests/ops/cases/ runs: {'; '.join(untested)}"


def test_a_library_without_the_kernel_gives_a_skip_reason(exported):
    """The skip path, with a library that has relu.out for Float tensors of rank 2 only."""
    narrow = parse_library("""
- op: relu.out
  type_alias: {T0: [Float]}
  dim_order_alias: {D0: [[0, 1]]}
  kernels:
    - arg_meta: {self: [T0, D0], out: [T0, D0]}
      kernel_name: narrow::relu_out
""", "narrow.yaml", load_aten_schemas())
    libs = [narrow] + harness.load_libraries("prim")[1:]
    relu = {dtype: e for (case_id, dtype), e in exported.items() if case_id == "relu.default"}
    # Int: no kernel for the key; the case's permute: no such op in the library.
    reason = harness.unsupported_reason(relu["Int"], "narrow", libs)
    assert reason.startswith("unsupported: narrow has no kernel for ")
    assert "aten::relu.out (self: Int, out: Int)" in reason and "aten::permute_copy.out" in reason
    one_float_call = next(e for (case_id, dtype), e in exported.items()
                          if case_id == "relu.default-rank2" and dtype == "Float")
    assert harness.unsupported_reason(one_float_call, "narrow", libs) is None


def test_a_dtype_the_null_kernel_does_not_list_gives_a_skip_reason(exported):
    narrow = parse_library("""
- op: relu.out
  kernels:
    - arg_meta: null
      dtypes: [Float]
      kernel_name: narrow::relu_out
""", "narrow.yaml", load_aten_schemas())
    libs = [narrow] + harness.load_libraries("prim")[1:]
    float_call = exported[("relu.default-rank2", "Float")]
    assert harness.unsupported_reason(float_call, "narrow", libs) is None
    reason = harness.unsupported_reason(exported[("relu.default", "Int")], "narrow", libs)
    assert reason.startswith("unsupported: narrow has no kernel for ")
    assert "aten::relu.out (self: Int, out: Int)" in reason


def test_every_op_xnnpack_claims_has_a_case_it_delegates(exported):
    """Each operator the partitioner can claim runs inside a delegate in some case. An
    operator no program holds (torch decomposes hardswish; the exporter turns
    _unsafe_view into view_copy) counts when a case calling it runs on XNNPACK whole."""
    delegating = _selection(harness.XNNPACK, exported).programs.values()
    delegated = {op for e in delegating for op in e.delegated}
    in_programs = {op for e in _ok(exported) for op in e.ops}
    called = {"aten::" + e.case.op.partition(".")[0] for e in delegating}
    missing = [op for op in sorted(harness.xnnpack_ops()) if op not in delegated
               and (op in in_programs or op.partition(".")[0] not in called)]
    assert not missing, ("no case in tests/ops/cases/ runs on XNNPACK: "
                         f"{', '.join(missing)}")


def test_a_call_xnnpack_leaves_to_the_kernels_gives_the_partitioners_reason(exported):
    """The skip path for XNNPACK, and what a case it runs may leave to the kernels."""
    selection = _selection(harness.XNNPACK, exported)
    # add.Tensor's shapes include 0-d tensors; its xnnpack case drops them.
    assert "aten::add.out: rank 0 (XNNPACK takes 1 to 6 dims)" in \
        selection.skipped[("add.Tensor", "Float")]
    # A dtype it refuses: decided by its verdict on one add of that dtype.
    assert selection.skipped[("add.Tensor", "Int")] == \
        "unsupported: xnnpack does not delegate aten::add.out (Int): its partitioner refuses " \
        "those dtypes"
    fingerprint = harness._exporter_fingerprint()
    assert harness.xnnpack_skip_reason(harness.dtype_probe("Int", fingerprint)) == \
        "unsupported: xnnpack does not delegate aten::add.out: Int tensor (XNNPACK runs Float only)"
    assert harness.xnnpack_skip_reason(harness.dtype_probe("Float", fingerprint)) is None
    assert selection.skipped[("full.default", "Float")] == \
        "unsupported: xnnpack does not delegate aten::full.out: not an op its partitioner claims"
    # A permuted input's permute stays on the kernels; the op itself is delegated.
    add = selection.programs[("add.Tensor-xnnpack", "Float")]
    assert [op for op, _ in add.outside] == ["aten::permute_copy.out"]
    assert add.delegated == ("aten::add.out",)
