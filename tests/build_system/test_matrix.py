"""A matrix build: one invocation builds the MLP for the host and for linux-aarch64
(one plan per target) and run=1 runs each pair's self-check, the aarch64 one under
qemu-aarch64. Each build directory gets its compile_commands.json."""

import json
import os
import shutil
import subprocess

import pytest

from codegen import build_layout
from tests.backends.conftest import require
from tests.conftest import REPO, passed_check, run_scons

BUILD = os.path.join(REPO, build_layout.tree("test-matrix"))
CACHE = os.path.join(REPO, build_layout.tree("test-shared-cache"))  # shared with test_shared_cache
INSTALL = "apt-get install -y g++-aarch64-linux-gnu qemu-user"


@pytest.fixture(scope="module")
def matrix_build():
    require("aarch64-linux-gnu-g++", INSTALL)
    require("qemu-aarch64", INSTALL)
    shutil.rmtree(BUILD, ignore_errors=True)
    return run_scons("model=mlp", "target=host,linux-aarch64", "run=1", "build_dir=" + BUILD,
                     "cache=" + CACHE)


def test_mlp_on_host_and_aarch64_in_one_build(matrix_build):
    for target, machine in (("host", "X86-64"), ("linux-aarch64", "AArch64")):
        out = build_layout.output_dir(["mlp"], build_dir=BUILD, target=target)
        program = os.path.relpath(build_layout.program(out, "mlp"), REPO)
        assert "checking %s against torch eager" % program in matrix_build.stdout
        passed_check(out, "mlp")
        header = subprocess.run(["readelf", "-h", build_layout.runner(out)],
                                capture_output=True, text=True, check=True).stdout
        assert machine in header
    assert matrix_build.stdout.count("check passed") == 2, matrix_build.stdout


def test_compile_commands_of_each_build_rerun_as_the_build_ran_them(matrix_build, tmp_path):
    for target, compiler in (("host", "g++"), ("linux-aarch64", "aarch64-linux-gnu-g++")):
        out = build_layout.output_dir(["mlp"], build_dir=BUILD, target=target)
        with open(os.path.join(out, "compile_commands.json")) as f:
            entries = {os.path.relpath(e["output"], BUILD): e for e in json.load(f)}
        units = [o for o in entries if o.startswith(os.path.join(target, "obj", "kernels", ""))]
        assert any("kernels.optimized.op_addmm." in o for o in units), sorted(entries)
        assert {
                os.path.join(target, "obj", "runtime", "executor", "method.o"),
                os.path.join(target, "obj", "runner", "runner.o")} <= set(entries)
        entry = entries[os.path.join(target, "obj", "runtime", "executor", "method.o")]
        command = entry["command"].split()
        assert command[0] == compiler and ".tmp" not in entry["command"]
        command[command.index("-o") + 1] = str(tmp_path / (target + ".o"))
        subprocess.run(command, cwd=entry["directory"], check=True)
        assert os.path.getsize(tmp_path / (target + ".o")) > 0
