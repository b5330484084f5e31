"""Cross targets: the MLP built for linux-aarch64 and linux-aarch64-xnnpack passes its
self-check under qemu-aarch64 (run=1), and the binaries really are AArch64; a target
whose toolchain is missing stops with one message naming the install command."""

import os
import subprocess

import pytest

from codegen import build_layout
from tests.backends.conftest import require
from tests.conftest import REPO, passed_check, run_scons

BUILD = build_layout.tree("test-backends")
INSTALL = "apt-get install -y g++-aarch64-linux-gnu qemu-user"


@pytest.mark.parametrize("target", ["linux-aarch64", "linux-aarch64-xnnpack"])
def test_mlp_self_check_under_qemu(target):
    require("aarch64-linux-gnu-g++", INSTALL)
    require("qemu-aarch64", INSTALL)
    proc = run_scons("target=" + target, "model=mlp", "run=1", "build_dir=" + BUILD)
    assert "check passed" in proc.stdout or "is up to date" in proc.stdout, proc.stdout
    out = os.path.join(REPO, BUILD, target, "mlp")
    passed_check(out, "mlp")
    header = subprocess.run(["readelf", "-h", os.path.join(out, "bin", "runner")],
                            capture_output=True, text=True, check=True).stdout
    assert "AArch64" in header
    if target.endswith("xnnpack"):
        dynamic = subprocess.run(["readelf", "-d", os.path.join(out, "bin", "runner")],
                                 capture_output=True, text=True, check=True).stdout
        assert "libXNNPACK.so" in dynamic
        assert os.path.exists(os.path.join(REPO, BUILD, "sysroots", target, "usr", "include",
                                           "xnnpack.h"))


def test_android_without_an_ndk_says_what_to_install():
    env = {k: v for k, v in os.environ.items() if k not in ("ANDROID_NDK_HOME", "ANDROID_NDK")}
    proc = subprocess.run([os.path.join(REPO, ".venv", "bin", "scons"), "target=android-xnnpack",
                           "model=mlp", "build_dir=" + BUILD], cwd=REPO, capture_output=True,
                          text=True, env=env)
    assert proc.returncode != 0
    errors = [line for line in proc.stdout.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stdout
    assert "ANDROID_NDK_HOME or ANDROID_NDK is not set" in errors[0]
    assert "install the Android NDK" in errors[0] and "XNNPACK_ANDROID" in errors[0]


def test_missing_cross_compiler_says_what_to_install(monkeypatch):
    monkeypatch.syspath_prepend(os.path.join(REPO, "site_scons"))
    import targets
    from codegen.errors import ManifestError
    from codegen.target import load_target
    target = load_target(os.path.join(REPO, "manifests", "targets", "linux-aarch64.yaml"))
    broken = target.__class__(**{**target.__dict__, "cxx": "aarch64-nowhere-g++"})
    with pytest.raises(ManifestError, match="compiler aarch64-nowhere-g\\+\\+ not found; "
                       "install the cross compiler .*apt-get install -y g\\+\\+-aarch64"):
        targets.check_toolchain(broken)
