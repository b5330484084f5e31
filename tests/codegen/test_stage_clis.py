"""The stage CLIs end to end: files in, files out, one-line errors."""

import os
import subprocess
import sys

from codegen_helpers import program, scalar, tensor
from program.pte import serialize

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PORTABLE = """\
- op: relu.out
  kernels: [{arg_meta: null, kernel_name: tailor::relu_out}]
"""
TARGET = """\
toolchain: gcc
cxx: g++
kernel_libraries: [portable]
"""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True,
                          text=True)


def test_oplist_resolve_render(tmp_path):
    (tmp_path / "kernels").mkdir()
    (tmp_path / "targets").mkdir()
    (tmp_path / "kernels" / "portable.yaml").write_text(PORTABLE)
    (tmp_path / "targets" / "host.yaml").write_text(TARGET)
    values = [tensor("Float", [0, 1]), tensor("Float", [0, 1]), scalar("Int", 0)]
    (tmp_path / "tiny.pte").write_bytes(serialize(program(values, [("aten::relu.out", [0, 1])])))
    out = tmp_path / "out"
    steps = [
        ("codegen.oplist", "--model", f"tiny={tmp_path}/tiny.pte", "--out",
         f"{out}/selected_ops.yaml"),
        ("codegen.resolve", "--oplist", f"{out}/selected_ops.yaml", "--target",
         f"{tmp_path}/targets/host.yaml", "--out", f"{out}/kernel_plan.yaml"),
        ("codegen.render", "--plan", f"{out}/kernel_plan.yaml", "--out-dir", f"{out}/gen"),
    ]
    for step in steps:
        proc = run(*step)
        assert proc.returncode == 0, proc.stderr
    assert (out / "kernel_sources.txt").read_text() == "kernels/portable/op_relu.cpp\n"
    assert sorted(os.listdir(out / "gen")) == ["functions.h", "register_kernels.cpp",
                                               "selected_dtypes.h"]
    assert ('{"portable", "relu.out", 0x40u},  // Float'
            in (out / "gen" / "selected_dtypes.h").read_text())
    for name in ("selected_ops.yaml", "kernel_plan.yaml"):
        assert str(tmp_path) not in (out / name).read_text()

    # An op no library has: one message, no traceback, exit 1, nothing written.
    proc = run("codegen.resolve", "--oplist", f"{out}/selected_ops.yaml", "--target",
               f"{tmp_path}/targets/host.yaml", "--out", f"{out}/plan2.yaml")
    assert proc.returncode == 0
    (tmp_path / "kernels" / "portable.yaml").write_text(PORTABLE.replace("relu", "tanh"))
    proc = run("codegen.resolve", "--oplist", f"{out}/selected_ops.yaml", "--target",
               f"{tmp_path}/targets/host.yaml", "--out", f"{out}/plan3.yaml")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: ") and "aten::relu.out (self: Float, out: " \
                                                  "Float), model tiny: no library has the op" in proc.stderr
    assert not (out / "plan3.yaml").exists()


def test_missing_input_file_is_one_line():
    proc = run("codegen.render", "--plan", "no/such/kernel_plan.yaml", "--out-dir", "/tmp/x")
    assert proc.returncode == 1
    assert proc.stderr == "error: no/such/kernel_plan.yaml: No such file or directory\n"
