"""The two kernels of llm::cache_attention, llm::rope and llm::rms_norm (kernels/llm/)
against torch eager, through the op harness: every case of tests/ops/llm_cases.py
exported once, one runtime built per kernel library (`scons programs=...
libraries=<its manifest>,prim`), each program run and compared. The optimized kernel
runs again at each lower CPU level of this machine (TL_CPU_LEVEL: its narrower vectors)
and on two threads (its tasks split a token's heads then). A position outside the cache
is an error with a message, not a crash.
"""

import os
import subprocess

import numpy as np
import pytest

from tests.ops import harness, llm_cases

OPTIMIZED = "kernels/llm/llm_optimized.yaml"
PORTABLE = "kernels/llm/llm_portable.yaml"
# (library, CPU level, threads): level "" is the best one.
RUNS = ([(OPTIMIZED, "", 1), (OPTIMIZED, "", 2)]
        + [(OPTIMIZED, level, 1) for level in harness.cpu_levels()[:-1]] + [(PORTABLE, "", 1)])


def _run_id(library: str, level: str, threads: int = 1) -> str:
    name = os.path.splitext(os.path.basename(library))[0]
    return (f"{name}@{level}" if level else name) + (f"x{threads}" if threads > 1 else "")


_exported = {}
_runners = {}


def exported(case) -> harness.Exported:
    if not _exported:
        fingerprint = harness._exporter_fingerprint()
        harness.export_missing([(c, "Float") for c in llm_cases.CASES], fingerprint,
                               cases_module="tests.ops.llm_cases")
        for c in llm_cases.CASES:
            _exported[c.id] = harness.export_case(c, "Float", fingerprint)
    return _exported[case.id]


def runner(library: str) -> str:
    """The runtime of `library` (and prim) with every case's program, built once."""
    if library not in _runners:
        ptes = [exported(c).pte for c in llm_cases.CASES]
        _runners[library] = harness.build_programs(library, ptes)
    return _runners[library]


@pytest.mark.parametrize("case", llm_cases.CASES, ids=[c.id for c in llm_cases.CASES])
@pytest.mark.parametrize("library,level,threads", RUNS, ids=[_run_id(*r) for r in RUNS])
def test_the_kernel_matches_eager(library, level, threads, case, tmp_path):
    program = exported(case)
    assert program.ops == (case.op.replace(".default", ".out"),)
    build = harness.LibraryBuild(_run_id(library, level), runner(library),
                                 harness.Selection({}, {}), level)
    harness.run_and_compare(build, program, str(tmp_path), threads)


@pytest.mark.parametrize("library", [OPTIMIZED, PORTABLE], ids=["optimized", "portable"])
@pytest.mark.parametrize("bad", [1, -1])
def test_a_position_outside_the_cache_is_an_error(library, bad, tmp_path):
    """The mha case's first call has a cache of one position: input_pos [bad] is past it."""
    program = exported(llm_cases.CASES[0])
    inputs = list(program.inputs)
    inputs[3] = str(tmp_path / "input_pos.npy")
    np.save(inputs[3], np.array([bad], dtype=np.int64))
    command = [runner(library), os.path.join(harness.REPO, program.pte)]
    for path in inputs:
        command += ["--input", path]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert proc.returncode > 0, proc.stdout + proc.stderr  # an error, not a signal
    assert f"input_pos[0] = {bad} is outside the cache's 1 positions" in proc.stderr
