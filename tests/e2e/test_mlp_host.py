"""End to end on the host: scons model=mlp run=1 from a clean build dir, then the built
runner against torch eager on inputs the test makes itself."""

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch
import yaml

from codegen import build_layout
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-e2e")
OUT = os.path.join(REPO, build_layout.output_dir(["mlp"], build_dir=BUILD))


@pytest.fixture(scope="module")
def first_build():
    shutil.rmtree(os.path.join(REPO, BUILD), ignore_errors=True)
    # cache= (none): this build makes everything itself, as a first build on a machine does.
    return run_scons("model=mlp", "run=1", "build_dir=" + BUILD, "cache=")


def test_build_runs_and_self_check_passes(first_build):
    out = first_build.stdout
    assert "exporting mlp" in out
    assert "check passed" in out
    for name in ("mlp.pte", "selected_ops.yaml", "kernel_plan.yaml", "gen/register_kernels.cpp",
                 "gen/functions.h", "gen/selected_dtypes.h", "bin/runner", "mlp.check.txt"):
        assert os.path.exists(os.path.join(OUT, name)), name


def test_outputs_json_says_what_the_build_made(first_build):
    with open(os.path.join(OUT, build_layout.OUTPUTS)) as f:
        outputs = json.load(f)
    assert outputs == {"runner": "bin/runner", "kernel_plan": "kernel_plan.yaml",
                       "programs": {"mlp": "mlp.pte"}, "apps": {}}
    made = build_layout.outputs(OUT)  # the reader scripts use: paths in OUT, as laid out
    assert (made.runner, made.kernel_plan, made.programs, made.library, made.fuzzer) == (
        build_layout.runner(OUT), build_layout.kernel_plan(OUT),
        {"mlp": build_layout.program(OUT, "mlp")}, "", "")
    assert all(os.path.isfile(p) for p in (made.runner, made.kernel_plan, made.programs["mlp"]))


def test_second_build_does_nothing(first_build):
    again = run_scons("model=mlp", "run=1", "build_dir=" + BUILD)
    assert "is up to date" in again.stdout
    for word in ("exporting", "compiling", "linking", "checking"):
        assert word not in again.stdout, again.stdout


def test_selection_is_exactly_the_mlp_ops(first_build):
    with open(os.path.join(OUT, "selected_ops.yaml")) as f:
        text = f.read()
    for op in ("aten::addmm.out", "aten::relu.out"):
        assert op in text
    # The weight transposes were folded into constants at export.
    assert "view_copy" not in text and "permute_copy" not in text
    # The binary holds the selected kernels and no other.
    symbols = subprocess.run(["nm", "-C", os.path.join(OUT, "bin", "runner")],
                             capture_output=True, text=True, check=True).stdout
    assert "addmm_out" in symbols and "relu_out" in symbols
    assert "view_copy_out" not in symbols and "permute_copy_out" not in symbols


@pytest.mark.parametrize("batch", [1, 3, 8])
def test_runner_matches_torch_at_any_batch(first_build, tmp_path, batch):
    from examples.mlp.model import make_mlp
    module, _ = make_mlp()
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(batch))
    np.save(tmp_path / "x.npy", x.numpy())
    proc = subprocess.run([os.path.join(OUT, "bin", "runner"), os.path.join(OUT, "mlp.pte"),
                           "--input", str(tmp_path / "x.npy"),
                           "--output", str(tmp_path / "y.npy")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = np.load(tmp_path / "y.npy")
    with torch.no_grad():
        want = module.eval()(x).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
def test_runs_on_a_small_thread_stack(first_build, threads):
    # The optimized GEMM behind addmm once took ~70 KB of stack on every thread; its
    # buffers now come from the method's kernel scratch, so a 16 KB stack (an embedded
    # target's) is enough, and the method reserves what the manifest declares.
    with open(os.path.join(REPO, "manifests", "kernels", "optimized.yaml")) as f:
        declared = {e["op"]: e["kernels"][0].get("scratch_bytes", 0) for e in yaml.safe_load(f)
                    if "op" in e}  # (custom operators are declared by `func:`)
    listed = subprocess.run([os.path.join(OUT, "bin", "runner"), os.path.join(OUT, "mlp.pte"),
                             "--list-methods"], capture_output=True, text=True).stdout
    assert f"kernel scratch {declared['addmm.out']} bytes a thread" in listed, listed
    proc = subprocess.run([os.path.join(OUT, "bin", "runner"), os.path.join(OUT, "mlp.pte"),
                           "--check", "--threads", str(threads), "--stack", "16K"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "check passed" in proc.stdout


def test_the_memory_limit_counts_every_thread_s_kernel_scratch(first_build):
    """Loading for N threads reserves N scratch slices (the GEMM's): the limit bounds them
    all, not one thread's figure."""
    runner, pte = os.path.join(OUT, "bin", "runner"), os.path.join(OUT, "mlp.pte")

    def run(limit: int, threads: int) -> subprocess.CompletedProcess:
        return subprocess.run([runner, pte, "--max-memory", str(limit), "--threads",
                               str(threads)], capture_output=True, text=True)

    def planned(threads: int) -> int:
        r = run(1, threads)
        found = re.search(r"method 'forward' plans (\d+) bytes of memory", r.stderr)
        assert r.returncode != 0 and found, r.stdout + r.stderr
        return int(found[1])

    one, four = planned(1), planned(4)
    assert four >= one + 3 * 65536, (one, four)
    assert run(four, 4).returncode == 0
    r = run(four - 1, 4)
    assert r.returncode != 0 and f"plans {four} bytes" in r.stderr, r.stderr


def test_a_dtype_the_runtime_did_not_select_is_rejected_at_load(first_build, tmp_path):
    # The MLP's runtime compiled relu for Float only: a Double relu is refused at load,
    # naming the operator and the dtype, instead of failing inside the kernel each run.
    from tests.runtime import programs as P
    for dtype, ok in (("Float", True), ("Double", False)):
        P.write(tmp_path / f"relu_{dtype}.pte", P.program(P.relu_method(dtype=dtype)))
        proc = subprocess.run([os.path.join(OUT, "bin", "runner"),
                               str(tmp_path / f"relu_{dtype}.pte")], capture_output=True,
                              text=True)
        assert (proc.returncode == 0) == ok, proc.stdout + proc.stderr
    assert ("method 'forward': instruction 0: aten::relu.out argument 0 has dtype Double, "
            "which this runtime did not select for it (selected: Float)") in proc.stderr
    assert "cannot load method 'forward': NotSupported" in proc.stderr


def test_batch_below_the_exported_minimum_is_rejected(first_build, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((0, 16), dtype=np.float32))
    proc = subprocess.run([os.path.join(OUT, "bin", "runner"), os.path.join(OUT, "mlp.pte"),
                           "--input", str(tmp_path / "x.npy")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "input 0: shape [0, 16] is below the exported minimum [1, 16]" in proc.stderr


def test_batch_beyond_the_planned_bound_is_rejected(first_build, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((9, 16), dtype=np.float32))
    proc = subprocess.run([os.path.join(OUT, "bin", "runner"), os.path.join(OUT, "mlp.pte"),
                           "--input", str(tmp_path / "x.npy")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "input 0" in (proc.stdout + proc.stderr)


def test_operator_without_kernel_stops_before_compiling(first_build):
    proc = run_scons("ops=aten::cholesky.out", "build_dir=" + BUILD, check=False)
    assert proc.returncode != 0
    text = proc.stdout + proc.stderr
    assert "aten::cholesky.out" in text and "portable" in text
    assert "compiling" not in text and "linking" not in text


def test_a_check_that_zeros_would_pass_warns(first_build):
    # With atol 100 every expected value of the MLP is within tolerance of zero: the check
    # passes, and says it proves nothing.
    proc = subprocess.run([os.path.join(OUT, "bin", "runner"), os.path.join(OUT, "mlp.pte"),
                           "--check", "--atol", "100"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning: output 0: every expected value is within tolerance of zero" in proc.stdout
    strict = subprocess.run([os.path.join(OUT, "bin", "runner"), os.path.join(OUT, "mlp.pte"),
                             "--check"], capture_output=True, text=True)
    assert strict.returncode == 0 and "warning" not in strict.stdout


def test_the_debug_record_names_the_source_of_each_instruction(first_build):
    import json
    with open(os.path.join(OUT, "mlp.debug.json")) as f:
        record = json.load(f)
    (method,) = record["methods"]
    assert [(i["op"], i["module"], i["source"]) for i in method["instructions"]] == [
        ("aten::addmm.out", "fc1", "model.py:22"), ("aten::relu.out", "relu", "model.py:22"),
        ("aten::addmm.out", "fc2", "model.py:22")]
    with open(os.path.join(OUT, "selected_ops.yaml")) as f:
        selected = yaml.safe_load(f)
    (key,) = selected["operators"]["aten::addmm.out"]["kernel_keys"]
    assert key["sources"] == ["mlp: model.py:22 in fc1", "mlp: model.py:22 in fc2"]


# --- interrupted and damaged builds ----------------------------------------------------

def test_signatures_live_in_the_build_dir(first_build):
    """`rm -rf <build_dir>` forgets the signatures with the files they describe."""
    assert os.path.exists(os.path.join(REPO, BUILD, ".sconsign.dblite"))
    leftovers = [os.path.join(root, f) for root, _, files in os.walk(os.path.join(REPO, BUILD))
                 for f in files if f.endswith(".tmp")]
    assert leftovers == []


@pytest.mark.usefixtures("no_build_cache")  # the dry run must show the compile, not the cache
def test_outputs_are_written_to_a_temporary_name(first_build):
    """Compile, archive and link write <target>.tmp; the rename makes the file appear."""
    host = os.path.join(REPO, BUILD, "host")
    for path in ("obj/runner/runner.o", "lib/libtailor_runtime.a"):
        os.unlink(os.path.join(host, path))
    dry = run_scons("model=mlp", "build_dir=" + BUILD, "verbose=1", "-n")
    run_scons("model=mlp", "build_dir=" + BUILD)
    lines = dry.stdout.splitlines()
    compile_ = next(line for line in lines if " -c " in line and "runner/runner.cpp" in line)
    assert "runner.o.tmp" in compile_
    link = next(line for line in lines if "bin/runner.tmp" in line)
    assert link.split()[1:3] == ["-o", os.path.join(BUILD, "host", "mlp", "bin", "runner.tmp")]
    assert any(line.startswith("ar ") and "libtailor_runtime.a.tmp" in line for line in lines)


@pytest.mark.usefixtures("no_build_cache")  # the link must run, not come from the cache
def test_link_interrupted_by_ctrl_c_is_redone(first_build):
    """Ctrl-C while linking leaves no runner a later build would take as up to date."""
    import signal
    import time
    runner = os.path.join(OUT, "bin", "runner")
    os.unlink(runner)
    proc = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "scons"),
                             "model=mlp", "build_dir=" + BUILD], cwd=REPO,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    for line in proc.stdout:
        if "linking" in line:
            time.sleep(0.02)  # the linker has started writing
            os.killpg(proc.pid, signal.SIGINT)
            break
    proc.communicate(timeout=60)
    # Either the link finished whole before the signal, or nothing is at the name.
    if os.path.exists(runner):
        assert subprocess.run([runner, "--help"], capture_output=True).returncode == 0
    again = run_scons("model=mlp", "build_dir=" + BUILD)
    assert subprocess.run([runner, "--help"], capture_output=True).returncode == 0, again.stdout


def test_deleted_check_files_come_back_from_their_archive(first_build):
    """<model>_io/ is unpacked from <model>.io.tar, the declared output a cache keeps:
    deleting it unpacks the same files again, without an export."""
    io_dir = os.path.join(OUT, "mlp_io")
    names = ["expected_0.npy", "input_0.npy"]
    before = {}
    for name in names:
        with open(os.path.join(io_dir, name), "rb") as f:
            before[name] = f.read()
    shutil.rmtree(io_dir)
    again = run_scons("model=mlp", "build_dir=" + BUILD)
    assert "exporting" not in again.stdout, again.stdout
    assert sorted(os.listdir(io_dir)) == sorted(names + ["files.txt"])
    for name in names:
        with open(os.path.join(io_dir, name), "rb") as f:
            assert f.read() == before[name], name
