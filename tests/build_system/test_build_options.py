"""The build's option readers, without running a build: target lists, compiler
launchers, whether a target's binaries run here."""

import dataclasses
import os
import shutil
import sys

import pytest

from codegen.errors import ManifestError
from codegen.target import load_target
from tests.conftest import REPO

sys.path.insert(0, os.path.join(REPO, "site_scons"))
import stage_check  # noqa: E402
import targets  # noqa: E402


def target(name: str):
    return load_target(os.path.join(REPO, "manifests", "targets", name + ".yaml"))


def test_target_list_keeps_order_and_drops_repeats():
    assert targets.target_names("host, linux-aarch64,host") == ["host", "linux-aarch64"]


def test_unknown_target_in_a_list_is_named_with_a_suggestion():
    with pytest.raises(ManifestError) as e:
        targets.target_names("host,linux-arch64")
    assert "target=linux-arch64: there is no manifests/targets/linux-arch64.yaml" in str(e.value)
    assert "did you mean 'linux-aarch64'" in str(e.value)


def test_launcher_option_overrides_the_target_and_none_disables_it():
    with_launcher = dataclasses.replace(target("host"), launcher="sh")
    assert targets.compiler_launcher(with_launcher, "") == "sh"
    assert targets.compiler_launcher(with_launcher, "none") == ""
    assert targets.compiler_launcher(target("host"), "") == ""


def test_a_target_launcher_that_is_missing_names_the_manifest():
    missing = dataclasses.replace(target("host"), launcher="no-such-ccache")
    with pytest.raises(ManifestError) as e:
        targets.compiler_launcher(missing, "")
    assert "manifests/targets/host.yaml" in str(e.value)
    assert "launcher: no-such-ccache" in str(e.value) and "launcher=none" in str(e.value)


def test_host_runs_here_and_a_foreign_arch_without_emulator_does_not():
    assert stage_check.cannot_run_here(target("host")) == ""
    android = dataclasses.replace(target("linux-aarch64"), emulator=())
    assert "builds for arm64" in stage_check.cannot_run_here(android)


def test_a_missing_emulator_skips_instead_of_failing():
    qemu = target("linux-aarch64")
    gone = dataclasses.replace(qemu, emulator=("no-such-qemu",) + qemu.emulator[1:])
    assert "its emulator no-such-qemu is not installed" in stage_check.cannot_run_here(gone)
    if shutil.which("qemu-aarch64"):
        assert stage_check.cannot_run_here(qemu) == ""
