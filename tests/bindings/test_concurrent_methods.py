"""Methods of one program used from several threads at once through the C API, as
c_api/tailor.h allows: a program with a method XNNPACK runs whole, one with no delegate
(its GEMMs split over 2 kernel threads) and one with two delegates around a kernel and a
GEMM after them, built with lib=shared for host-xnnpack;
tests/bindings/concurrent_methods.cpp loads and runs them on 4 threads, 2 kernel threads
each, against a single-threaded run of each, which the test compares with torch eager; a
method's delegates share one thread pool.
Again under ThreadSanitizer (sanitize=thread), and the runner of that build on 2 threads:
no report."""

import os
import subprocess
import time

import numpy as np
import pytest
import torch
from torch import nn

from codegen import build_layout
from program.model import DelegateCall
from program.pte import read_program
from tests.conftest import REPO, run_scons

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = build_layout.tree("test-concurrent")
NAME = "three_methods"
INSTALL = "apt-get install -y libxnnpack-dev libpthreadpool-dev libcpuinfo-dev"


class ThreeMethods(nn.Module):
    """Sizes past the optimized GEMM's threshold for 2 threads (m * n * k >= 256 K)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 64)
        self.w = nn.Parameter(torch.randn(64, 128) / 8)

    def forward(self, x):           # one delegate: XNNPACK runs it whole
        return self.fc2(torch.relu(self.fc1(x)))

    def kernels(self, x):           # no delegate: XNNPACK has no bmm and no tanh
        return torch.tanh(torch.bmm(x.view(2, 16, 64), self.w.expand(2, 64, 128)))

    def mixed(self, x):             # two delegates around the tanh kernel, then the bmm's
        y = self.fc2(torch.tanh(self.fc1(x)))
        return torch.bmm(y.view(2, 16, 64), self.w.expand(2, 64, 128))


METHODS = ("forward", "kernels", "mixed")
DELEGATES = {"forward": 1, "kernels": 0, "mixed": 2}


@pytest.fixture(scope="module")
def program() -> str:
    if not os.path.exists("/usr/include/xnnpack.h"):
        pytest.skip("XNNPACK is not installed; install it: " + INSTALL)
    from backends.xnnpack.partitioner import XnnpackPartitioner
    from exporter.export import export
    x = (torch.randn(32, 64),)
    exported = export(ThreeMethods(), x, partitioner=XnnpackPartitioner(),
                      methods={"kernels": (x,), "mixed": (x,)})
    folder = os.path.join(REPO, BUILD, "programs")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, NAME + ".pte")
    exported.save(path)
    return path


def _build(program: str, *options: str) -> str:
    """Builds libtailor.so for `program`; returns the directory of its build."""
    run_scons("target=host-xnnpack", "programs=" + os.path.relpath(program, REPO),
              "lib=shared", "build_dir=" + BUILD, *options)
    sanitize = "thread" if "sanitize=thread" in options else ""
    return os.path.join(REPO, build_layout.output_dir(
        programs=[program], build_dir=BUILD, target="host-xnnpack", lib="shared",
        sanitize=sanitize))


def _run(out: str, program: str, tmp_path, flags=(), env=None) -> subprocess.CompletedProcess:
    """Compiles concurrent_methods.cpp against `out`'s library and runs it on `program`:
    4 threads, 2 kernel threads each."""
    lib_dir = os.path.join(out, "lib")
    exe = tmp_path / "concurrent_methods"
    subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread",
                    *flags, "-I", REPO, os.path.join(HERE, "concurrent_methods.cpp"), "-o",
                    str(exe), "-L", lib_dir, "-ltailor", "-Wl,-rpath," + lib_dir],
                   check=True)
    return subprocess.run([str(exe), program, "4", "20", "2",
                           str(tmp_path)], capture_output=True, text=True, env=env, timeout=300)


def test_the_methods_are_delegated_as_intended(program):
    methods = read_program(program)[0].methods
    assert [m.name for m in methods] == list(METHODS)
    for m in methods:
        calls = sum(isinstance(i, DelegateCall) for i in m.instructions)
        assert calls == DELEGATES[m.name], m.name


def test_methods_run_at_once_on_several_threads(program, tmp_path):
    proc = _run(_build(program), program, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 methods, 4 threads x 20 rounds, 2 kernel threads each: concurrent check passed" \
        in proc.stdout
    module = ThreeMethods().eval()
    for name in METHODS:   # the reference the threads matched is torch's
        x = np.fromfile(tmp_path / f"{name}.input.f32", dtype=np.float32).reshape(32, 64)
        got = np.fromfile(tmp_path / f"{name}.output.f32", dtype=np.float32)
        with torch.no_grad():
            want = getattr(module, name)(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(got.reshape(want.shape), want, atol=1e-5, rtol=1e-5)


def _threads_started(library: str, program: str, method: str) -> int:
    """How many threads loading `method` with 3 threads starts in this process."""
    import tailor
    loaded = tailor.Runtime(library).load(program)
    before = len(os.listdir("/proc/self/task"))
    loaded.method(method, threads=3)
    started = len(os.listdir("/proc/self/task")) - before
    loaded.close()
    return started


def test_a_methods_delegates_share_one_thread_pool(program):
    library = os.path.join(_build(program), "lib", "libtailor.so")
    kernels_only, one, two = (_threads_started(library, program, m)
                              for m in ("kernels", "forward", "mixed"))
    assert kernels_only == 2           # the kernels' pool: the caller and 2 workers
    assert one > kernels_only          # and XNNPACK's
    assert two == one                  # one pool for the method, not one per delegate


def test_delegate_threads_rest_when_kernels_split_after_them(program):
    """Before `mixed`'s bmm splits over the kernel threads, its delegates' pthreadpool
    workers are sent to sleep (Backend::rest): they would otherwise poll for their next
    job for tens of milliseconds, a core the bmm's threads, then the application, lose."""
    import tailor
    library = os.path.join(_build(program), "lib", "libtailor.so")
    x = np.random.default_rng(0).standard_normal((32, 64), dtype=np.float32)
    with tailor.Runtime(library).load(program) as loaded:
        method = loaded.method("mixed", threads=2)
        method.run(x)
        start = time.process_time()  # every thread of this process
        time.sleep(0.3)
        busy = time.process_time() - start
        assert busy < 0.005, f"{busy * 1000:.1f} ms of CPU while idle"


@pytest.mark.slow  # a sanitized library of its own: minutes (.ci/run runs the tier)
def test_no_data_race_under_thread_sanitizer(program, tmp_path):
    out = _build(program, "sanitize=thread")
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=1:exitcode=66:suppressions="
               + os.path.join(HERE, "tsan.supp"))
    proc = _run(out, program, tmp_path, ["-fsanitize=thread", "-g"], env)
    report = proc.stdout + proc.stderr
    assert "ThreadSanitizer" not in report, report
    assert proc.returncode == 0, report
    assert "concurrent check passed" in proc.stdout
    for method in METHODS:  # the runner of that build, on 2 threads
        proc = subprocess.run([os.path.join(out, "bin", "runner"), program, "--method", method,
                               "--threads", "2", "--repeat", "3"],
                              capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0 and "ThreadSanitizer" not in proc.stderr, proc.stderr
