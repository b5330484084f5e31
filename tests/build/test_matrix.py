"""A matrix build: one invocation builds the MLP for the host and for linux-aarch64
(one plan per target) and run=1 runs each pair's self-check, the aarch64 one under
qemu-aarch64."""

import os
import shutil
import subprocess

from tests.backends.conftest import require
from tests.conftest import REPO, run_scons

BUILD = os.path.join(REPO, "build", "test-matrix")
CACHE = os.path.join(REPO, "build", "test-shared-cache")  # shared with test_shared_cache
INSTALL = "apt-get install -y g++-aarch64-linux-gnu qemu-user"


def test_mlp_on_host_and_aarch64_in_one_build():
    require("aarch64-linux-gnu-g++", INSTALL)
    require("qemu-aarch64", INSTALL)
    shutil.rmtree(BUILD, ignore_errors=True)
    proc = run_scons("model=mlp", "target=host,linux-aarch64", "run=1", "build_dir=" + BUILD,
                     "cache=" + CACHE)
    for target, machine in (("host", "X86-64"), ("linux-aarch64", "AArch64")):
        out = os.path.join(BUILD, target, "mlp")
        program = os.path.relpath(os.path.join(out, "mlp.pte"), REPO)
        assert "checking %s against torch eager" % program in proc.stdout, proc.stdout
        with open(os.path.join(out, "mlp.check.txt")) as f:
            assert "check passed" in f.read()
        header = subprocess.run(["readelf", "-h", os.path.join(out, "bin", "runner")],
                                capture_output=True, text=True, check=True).stdout
        assert machine in header
    assert proc.stdout.count("check passed") == 2, proc.stdout
