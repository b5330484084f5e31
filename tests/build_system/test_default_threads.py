"""`threads:` in a target or model manifest: the kernel threads the build's runner and
apps use without --threads (a generated gen/build_defaults.cpp); --threads 0 is every
core."""

import json
import os
import subprocess
import sys

import pytest

from codegen import build_layout
from codegen.errors import ManifestError
from codegen.target import known_libraries, parse_target
from tests.conftest import REPO, run_scons

sys.path.insert(0, os.path.join(REPO, "site_scons"))
import stages  # noqa: E402

HOST = os.path.join(REPO, "manifests", "targets", "host.yaml")


def _target(extra: str):
    with open(HOST) as f:
        return parse_target(f.read() + extra, "targets/phone.yaml", known_libraries(HOST))


def test_a_target_sets_threads_and_bad_values_name_the_file():
    assert _target("threads: 0\n").threads == 0
    assert _target("threads: 4\n").threads == 4
    assert _target("").threads is None
    for bad in ("-1", "65", "two", "true"):
        with pytest.raises(ManifestError) as e:
            _target("threads: %s\n" % bad)
        assert "targets/phone.yaml: threads must be a count from 0 (every core) to 64, " \
               "e.g. threads: 2" in str(e.value)


def _model(threads, name="a.yaml"):
    return stages.ModelInfo(name, name, (), 0.0, 0.0, "", (), (), threads=threads)


def test_models_win_over_the_target_and_must_agree():
    target = _target("threads: 4\n")
    assert stages.default_threads(target, (_model(None),)) == 4
    assert stages.default_threads(target, (_model(2), _model(None, "b.yaml"))) == 2
    assert stages.default_threads(_target(""), (_model(None),)) == 1
    with pytest.raises(ManifestError) as e:
        stages.default_threads(target, (_model(2), _model(0, "b.yaml")))
    assert "a.yaml says threads: 2 and b.yaml threads: 0" in str(e.value)


def _threads_used(runner, pte, tmp_path, *args):
    summary = tmp_path / "summary.json"
    subprocess.run([runner, pte, "--json", str(summary), *args], check=True,
                   capture_output=True)
    return json.loads(summary.read_text())["threads"]


def test_a_model_manifests_threads_is_the_runners_default(tmp_path):
    manifest = tmp_path / "mlp_threads.yaml"
    with open(os.path.join(REPO, "manifests", "models", "mlp.yaml")) as f:
        manifest.write_text(f.read() + "threads: 2\n")
    run_scons("model=%s" % manifest)
    out = build_layout.outputs(os.path.join(REPO, build_layout.output_dir(["mlp_threads"])))
    runner, pte = out.runner, out.programs["mlp_threads"]
    assert _threads_used(runner, pte, tmp_path) == 2
    assert _threads_used(runner, pte, tmp_path, "--threads", "1") == 1
    assert _threads_used(runner, pte, tmp_path, "--threads", "0") == os.cpu_count()
