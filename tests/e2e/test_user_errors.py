"""Bad input to the build: one readable message naming the file, the entry and the fix,
a non-zero exit, no traceback and nothing compiled."""

import os

import pytest

from codegen import build_layout
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-errors")


def scons_error(*args: str) -> str:
    proc = run_scons(*args, "build_dir=" + BUILD, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0, text
    assert "Traceback" not in text, text
    assert "compiling" not in text, text
    return text


def write_manifest(tmp_path, body: str) -> str:
    path = tmp_path / "bad_model.yaml"
    path.write_text(body)
    return str(path)


def test_unknown_model_lists_the_known_ones():
    text = scons_error("model=mpl")
    assert "model=mpl: there is no manifests/models/mpl.yaml" in text
    assert "mlp" in text


def test_unknown_key_in_a_model_manifest(tmp_path):
    path = write_manifest(tmp_path, "description: x\nfactory: examples.mlp.model:make_mlp\n"
                                    "tolerence: {atol: 1.0e-5, rtol: 1.0e-5}\n")
    text = scons_error("model=" + path)
    assert path in text and "unknown key 'tolerence'" in text


@pytest.mark.parametrize("factory, message", [
    ("examples.mlp.model.make_mlp", "is not 'module:function'"),
    ("examples.nope:make", "examples.nope"),
    ("examples.mlp.model:make_mpl", "make_mpl"),
])
def test_factory_that_does_not_resolve(tmp_path, factory, message):
    path = write_manifest(tmp_path, f"description: x\nfactory: {factory}\n")
    text = scons_error("model=" + path)
    assert path in text and message in text


def test_unknown_option_is_named():
    text = scons_error("modle=mlp")
    assert "unknown option(s): modle" in text


def test_operator_list_typo_is_named():
    text = scons_error("ops=aten::ad.out")
    assert "aten::ad.out is not an ATen operator" in text


def test_a_missing_kernel_names_the_line_of_the_model_that_needs_it(tmp_path):
    # A library without cumsum: the message shows the dtypes by argument and the source.
    (tmp_path / "scans.py").write_text(
        "import torch\n\n\n"
        "class Scan(torch.nn.Module):\n"
        "    def forward(self, mask):\n"
        "        return mask.cumsum(-1)\n\n\n"
        "def make():\n"
        "    return Scan(), (torch.ones(2, 5, dtype=torch.bool),)\n")
    path = tmp_path / "scan.yaml"
    path.write_text("description: x\nfactory: scans:make\n")
    text = scons_error(f"model={path}", "libraries=prim")
    assert "aten::cumsum.out (self: Bool, out: Long), model scan: no library has the op\n" \
        "    at scan: scans.py:6\n" in text
    assert text.count("fix:") == 1


def test_a_program_for_a_backend_the_target_lacks_stops_the_build(tmp_path):
    from backends.xnnpack import XnnpackPartitioner
    from examples.mlp.model import make_mlp
    from exporter.export import export
    module, inputs = make_mlp()
    pte = tmp_path / "mlp_xnnpack.pte"
    # Every group XNNPACK can run, as beside the portable kernels (host-xnnpack, beside
    # the optimized ones, would leave a linear-only model undelegated).
    export(module, inputs, partitioner=XnnpackPartitioner()).save(str(pte))
    text = scons_error(f"programs={pte}")
    assert "delegates to xnnpack, which target host does not have" in text
    assert "target=host-xnnpack" in text


# --- refused at plan time, before anything is exported ---------------------------------

@pytest.mark.parametrize("body, message", [
    ("description: x\nfactory: [examples.mlp.model:make_mlp\n", ":3: not valid YAML: "),
    ("description: x\nfactory: examples.mlp.model:make_mlp\ndescription: y\n",
     ":3: not valid YAML: key 'description' is given twice (first on line 1); keep one"),
    ("description: x\nfactory: examples.mlp.model:make_mlp\ndata: [examples/mlp/*.bin]\n",
     ": data: 'examples/mlp/*.bin' matches no file"),
])
def test_broken_model_manifest_is_named_with_its_line(tmp_path, body, message):
    path = write_manifest(tmp_path, body)
    text = scons_error("model=" + path)
    assert path + message in text
    assert "exporting" not in text


def test_model_name_cannot_leave_the_models_folder():
    text = scons_error("model=../targets/host")
    assert "model=../targets/host: a model is a manifest name in manifests/models/" in text


def test_generate_needs_a_model_with_an_app():
    text = scons_error("model=mlp", "generate=hello")
    assert "generate= runs each model's app, and manifests/models/mlp.yaml has no app:" in text


def test_an_absolute_build_dir_is_honoured(tmp_path):
    """build_dir=/abs/path builds there, not in a relative copy under the checkout."""
    from tests.conftest import REPO
    out = tmp_path / "out"
    proc = run_scons("model=mlp", "build_dir=" + str(out), "-n")
    assert f"linking {out}/host/mlp/bin/runner" in proc.stdout, proc.stdout
    assert not os.path.exists(os.path.join(REPO, str(out).lstrip("/")))


def test_a_second_build_in_one_build_dir_waits_for_the_first(tmp_path):
    """While another build holds the build directory, scons says so and waits."""
    import fcntl
    import subprocess
    import time
    from tests.conftest import REPO, SCONS
    out = tmp_path / "locked"
    out.mkdir()
    with open(out / ".lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write("4242\n")
        held.flush()
        proc = subprocess.Popen([SCONS, "model=mlp", "build_dir=" + str(out), "-n"], cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first = proc.stdout.readline() + proc.stdout.readline()
        assert f"another build is using {out} (pid 4242); waiting for it to finish" in first
        time.sleep(0.5)
        assert proc.poll() is None  # still waiting
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, first + rest
    assert "linking" in rest


def test_model_kernel_library_that_does_not_exist(tmp_path):
    path = write_manifest(tmp_path, "description: x\nfactory: examples.mlp.model:make_mlp\n"
                                    "kernel_libraries: [examples/mlp/kernels.yaml]\n")
    text = scons_error("model=" + path)
    assert ("kernel_libraries: 'examples/mlp/kernels.yaml' is not a kernel manifest; name a "
            ".yaml file relative to the repository") in text and path in text


def test_model_kernel_library_may_not_shadow_a_builtin_one(tmp_path):
    shadow = os.path.join(BUILD, "portable.yaml")
    os.makedirs(os.path.dirname(os.path.join(REPO, shadow)), exist_ok=True)
    with open(os.path.join(REPO, shadow), "w") as f:
        f.write("- op: add.out\n  kernels: [{arg_meta: null, kernel_name: x::add_out}]\n")
    path = write_manifest(tmp_path, "description: x\nfactory: examples.mlp.model:make_mlp\n"
                                    f"kernel_libraries: [{shadow}]\n")
    text = scons_error("model=" + path)
    assert (f"kernel_libraries: '{shadow}' would be library 'portable', which "
            "manifests/kernels/portable.yaml already names; rename the file") in text
