"""Tracing and numeric debugging through the XNNPACK delegate (host-xnnpack, trace=1):
a delegate call is one traced instruction named by its backend, and its outputs are
compared with the graph nodes the debug record says they are."""

import json
import os
import subprocess
import sys

import pytest

from codegen import build_layout
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-trace")
# Beside the portable kernels, so that XNNPACK takes mlp_ln's linear layers (beside the
# optimized ones it takes only groups with a dense convolution or an average pooling).
OUT = os.path.join(REPO, build_layout.output_dir(["mlp_ln"], build_dir=BUILD, target="host-xnnpack",
                                                 trace=True, libraries=["portable", "prim"]))
PROGRAM = build_layout.program(OUT, "mlp_ln")
INSTALL = "apt-get install -y libxnnpack-dev libpthreadpool-dev libcpuinfo-dev"


@pytest.fixture(scope="module")
def built():
    if not os.path.exists("/usr/include/xnnpack.h"):
        pytest.skip("XNNPACK is not installed; install it: " + INSTALL)
    run_scons("target=host-xnnpack", "model=mlp_ln", "libraries=portable,prim", "trace=1",
              "build_dir=" + BUILD)
    with open(os.path.join(OUT, "mlp_ln.debug.json")) as f:
        return json.load(f)["methods"][0]["instructions"]


def test_delegate_calls_are_traced_and_compared(built, tmp_path):
    trace, dump = str(tmp_path / "t.json"), str(tmp_path / "dump")
    subprocess.run([build_layout.runner(OUT), PROGRAM, "--check", "--repeat", "3",
                    "--trace", trace, "--dump-intermediates", dump], check=True,
                   capture_output=True)
    with open(trace) as f:
        calls = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "delegate"]
    delegates = [d["index"] for d in built if d["kind"] == "DelegateCall"]
    assert delegates and {e["name"] for e in calls} == {"xnnpack"}
    assert sorted(e["args"]["instruction"] for e in calls) == sorted(delegates * 3)

    proc = subprocess.run([sys.executable, "-m", "inspector", PROGRAM, "--dump-dir", dump,
                           "--manifest", "manifests/models/mlp_ln.yaml"],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [line for line in proc.stdout.splitlines()
            if len(line.split()) > 1 and line.split()[1] == "xnnpack"]
    assert len(rows) == len(delegates)
    assert all("e-0" in row and "not compared" not in row for row in rows), rows
