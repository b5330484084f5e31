"""Exact dtype selection: a runtime built for a Float-only add program carries Float add
and nothing else, so an Int add program fails on it with an error naming the op and the
dtype (never wrong results), and it is smaller than one with add in every dtype
(`ops=aten::add.out`), which runs the Int program; a runtime in which two libraries serve
one op in different dtypes runs each of them."""

import os
import subprocess

import numpy as np
import pytest
import torch

from codegen import build_layout
from codegen.errors import ManifestError
from codegen.oplist import parse_oplist
from tests.conftest import REPO
from tests.ops import harness

BUILD = build_layout.tree("test-ops-dtypes")


class Add(torch.nn.Module):
    def forward(self, a, b):
        return a + b


@pytest.fixture(scope="module")
def programs():
    """{"Float": (pte relative to the repo, [input .npy paths]), "Int": ...}"""
    from exporter.export import export

    made = {}
    directory = os.path.join(REPO, BUILD, "programs")
    os.makedirs(directory, exist_ok=True)
    for name, dtype in (("Float", torch.float32), ("Int", torch.int32)):
        inputs = [torch.arange(6, dtype=dtype).reshape(2, 3), torch.arange(3, dtype=dtype)]
        pte = os.path.join(directory, f"add_{name.lower()}.pte")
        export(Add(), tuple(inputs)).save(pte)
        paths = []
        for i, value in enumerate(inputs):
            paths.append(os.path.join(directory, f"add_{name.lower()}_input_{i}.npy"))
            np.save(paths[-1], value.numpy())
        made[name] = (os.path.relpath(pte, REPO), paths)
    return made


def _build(programs, ops: str = "") -> str:
    """The runtime of the Float program, with `ops` (every dtype) added to its selection."""
    pte = programs["Float"][0]
    harness.scons(f"programs={pte}", "libraries=portable,prim", f"ops={ops}",
                  "build_dir=" + BUILD)
    runner = harness.runner_path([pte], "portable", build_dir=BUILD, ops=ops)
    assert os.path.exists(runner), runner
    return runner


@pytest.fixture(scope="module")
def float_runner(programs):
    return _build(programs)


def _run(runner, program, inputs, tmp_path):
    out = str(tmp_path / "out.npy")
    command = [runner, os.path.join(REPO, program)]
    for path in inputs:
        command += ["--input", path]
    proc = subprocess.run(command + ["--output", out], capture_output=True, text=True)
    return proc, out


def test_float_program_runs_on_the_float_runtime(programs, float_runner, tmp_path):
    pte, inputs = programs["Float"]
    proc, out = _run(float_runner, pte, inputs, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    want = np.load(inputs[0]) + np.load(inputs[1])
    np.testing.assert_array_equal(np.load(out), want)


def test_int_program_fails_naming_the_op_and_the_dtype(programs, float_runner, tmp_path):
    pte, inputs = programs["Int"]
    proc, out = _run(float_runner, pte, inputs, tmp_path)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 1, log
    # Refused at load, before any run: the kernel table carries each kernel's dtypes.
    assert ("method 'forward': instruction 0: aten::add.out argument 0 has dtype Int, which "
            "this runtime did not select for it (selected: Float)") in log, log
    assert "cannot load method 'forward': NotSupported" in log, log
    assert not os.path.exists(out)


def test_float_only_runtime_is_smaller_than_one_with_add_in_every_dtype(programs, float_runner,
                                                                        tmp_path):
    # The same kernel source and op, only its dtypes differ: what selection by dtype saves.
    every_dtype_runner = _build(programs, "aten::add.out")
    pte, inputs = programs["Int"]
    proc, out = _run(every_dtype_runner, pte, inputs, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    np.testing.assert_array_equal(np.load(out), np.load(inputs[0]) + np.load(inputs[1]))

    def total_size(path):  # `size` prints text, data, bss, dec, ...; dec is their sum
        lines = subprocess.run(["size", path], capture_output=True, text=True,
                               check=True).stdout.splitlines()
        return int(lines[1].split()[3])

    assert total_size(float_runner) < total_size(every_dtype_runner)


def _shared_op_programs(exported: list) -> dict:
    """{op: {library: a program in which that library's kernel runs the op}} for every op
    that two of the host target's libraries serve and the cases call in dtypes of both
    (the resolver's choice, as the build makes it)."""
    from codegen.resolve import resolve_kernels

    libs = harness.load_libraries("optimized")  # the host target's order from optimized on
    served: dict[str, dict] = {}
    for e in exported:
        with open(e.oplist_path) as f:
            oplist = parse_oplist(f.read(), e.oplist_path)
        try:
            plan = resolve_kernels(oplist, libs)
        except ManifestError:
            continue  # a case no host library runs (XNNPACK-only dtypes)
        for k in plan.kernels:
            served.setdefault(k.op, {}).setdefault(k.library, e)
    declared = {}
    for lib in libs:
        for op in lib.ops():
            declared.setdefault(op, set()).add(lib.name)
    return {op: served[op] for op, names in declared.items()
            if len(names) > 1 and len(served.get(op, {})) > 1}


def test_ops_two_libraries_serve_run_in_each_dtype_in_one_runtime(tmp_path):
    # One runtime holds, for every op the host's libraries share (optimized Float beside
    # portable's other dtypes), a program calling it in a dtype of each library: a dtype
    # the build accepted must never be refused at run time, also when both kernels share
    # code (kernels/portable/util/where.h): its inline code, which both kernels' units
    # emit and the linker keeps once, must not carry one unit's dtypes into the other.
    fingerprint = harness._exporter_fingerprint()
    harness.export_missing(harness.case_params(), fingerprint)
    exported = []
    for case, dtype in harness.case_params():
        try:
            exported.append(harness.export_case(case, dtype, fingerprint))
        except Exception:  # tests/ops/test_ops.py reports a case that does not export
            continue
    by_op = _shared_op_programs(exported)
    assert "aten::where.self_out" in by_op and len(by_op) >= 15, sorted(by_op)
    programs = {e.pte: e for per_library in by_op.values() for e in per_library.values()}
    runner = harness.build_programs("optimized", sorted(programs),
                                    build_layout.tree("test-ops-shared"))
    build = harness.LibraryBuild("optimized", runner, selection=None)
    for i, e in enumerate(sorted(programs.values(), key=lambda e: e.pte)):
        run_dir = tmp_path / str(i)
        run_dir.mkdir()
        harness.run_and_compare(build, e, str(run_dir))
