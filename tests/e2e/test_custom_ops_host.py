"""Custom operators and custom kernels end to end on the host: the custom_linear example
(a torch.library operator with its own C++ kernel) and the fast_add example (a user's
add.out for Float ahead of portable, which compiles only Long), each built with run=1
and compared with torch;
a kernel defined with the wrong signature stops the compile in the kernel's own file."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import yaml

from codegen import build_layout
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-custom-ops")


def _out(model: str) -> str:
    return os.path.join(REPO, BUILD, "host", model)


def _build_and_check(model: str):
    """scons model=M run=1, with the kernel resolution and the check run this time even
    when the build is up to date or an earlier run left them in the test cache (the tests
    read what both print): built from the cache first, then both made again without it."""
    run_scons(f"model={model}", "build_dir=" + BUILD)
    for made in (build_layout.check_report(_out(model), model),
                 build_layout.kernel_plan(_out(model))):
        if os.path.exists(made):
            os.remove(made)
    return run_scons(f"model={model}", "run=1", "build_dir=" + BUILD, "cache=")


@pytest.fixture(scope="module")
def custom_linear_build():
    return _build_and_check("custom_linear")


@pytest.fixture(scope="module")
def fast_add_build():
    return _build_and_check("fast_add")


def _plan(model: str) -> list[dict]:
    with open(os.path.join(_out(model), "kernel_plan.yaml")) as f:
        return yaml.safe_load(f)["kernels"]


def _run(model: str, tmp_path, *inputs: np.ndarray) -> list[np.ndarray]:
    command = [os.path.join(_out(model), "bin", "runner"),
               os.path.join(_out(model), model + ".pte")]
    for i, value in enumerate(inputs):
        np.save(tmp_path / f"in{i}.npy", value)
        command += ["--input", str(tmp_path / f"in{i}.npy")]
    command += ["--output", str(tmp_path / "out.npy")]
    proc = subprocess.run(command, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    outputs = sorted(tmp_path.glob("out*.npy"))
    return [np.load(p) for p in outputs]


def test_custom_linear_builds_its_kernel_and_passes_the_check(custom_linear_build):
    assert "check passed" in custom_linear_build.stdout
    assert ("kernel choice: mylib::custom_linear.out: Float -> custom_linear "
            "(examples/custom_linear/op_custom_linear.cpp)") in custom_linear_build.stdout
    chosen = {k["op"]: k for k in _plan("custom_linear")}
    assert chosen["mylib::custom_linear.out"]["library"] == "custom_linear"
    assert "aten::addmm.out" not in chosen  # every Linear went through the custom op
    with open(os.path.join(_out("custom_linear"), "gen", "functions.h")) as f:
        assert ("::tailor::Tensor& custom_linear_out(::tailor::KernelContext& ctx, const "
                "::tailor::Tensor& input, const ::tailor::Tensor& weight, const "
                "::tailor::Tensor* bias, ::tailor::Tensor& out);") in f.read()


@pytest.mark.parametrize("batch", [1, 5, 8])
def test_custom_linear_runtime_matches_the_float_mlp(custom_linear_build, tmp_path, batch):
    # The reference is the original MLP (nn.Linear), not the custom op's eager kernel.
    from examples.mlp.model import make_mlp
    module, _ = make_mlp()
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(batch))
    (got,) = _run("custom_linear", tmp_path, x.numpy())
    with torch.no_grad():
        want = module(x).numpy()
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)


def test_eager_runs_the_runtime_kernel_through_the_extension():
    from examples.custom_linear import extension, ops
    assert extension.load() is not None, "a C++ compiler is here: the extension must build"
    g = torch.Generator().manual_seed(0)
    x, w, b = torch.randn(3, 7, 16, generator=g), torch.randn(5, 16, generator=g), None
    for bias in (b, torch.randn(5, generator=g)):
        got = torch.ops.mylib.custom_linear(x, w, bias)
        torch.testing.assert_close(got, ops.reference(x, w, bias), atol=1e-5, rtol=1e-5)


def test_a_build_killed_midway_does_not_hang_the_next_load():
    """torch's `lock` file, left by a load killed while compiling, is cleared under the
    extension's own flock instead of being waited on forever."""
    from examples.custom_linear import extension
    extension.load()  # built, so the load below compiles nothing
    open(os.path.join(extension.BUILD_DIR, "lock"), "w").close()
    proc = subprocess.run([sys.executable, "-c", "from examples.custom_linear import extension;"
                           " assert extension.load() is not None"],
                          cwd=REPO, timeout=300, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert not os.path.exists(os.path.join(extension.BUILD_DIR, "lock"))


def test_swap_linears_replaces_every_linear_and_keeps_the_outputs():
    from torch import nn

    from examples.custom_linear.swap import CustomLinear, swap_linears
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(),
                          nn.Sequential(nn.Linear(6, 6, bias=False), nn.Linear(6, 2))).eval()
    x = torch.randn(3, 4)
    with torch.no_grad():
        want = model(x)
        swapped = swap_linears(model)
        got = swapped(x)
    assert not any(isinstance(m, nn.Linear) for m in swapped.modules())
    assert sum(isinstance(m, CustomLinear) for m in swapped.modules()) == 3
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_fast_add_takes_float_and_portable_the_rest(fast_add_build, tmp_path):
    assert "check passed" in fast_add_build.stdout
    assert ("kernel choice: aten::add.out: Float -> fast_add (examples/fast_add/op_fast_add.cpp)"
            "; Long -> portable (kernels/portable/op_add.cpp)") in fast_add_build.stdout
    adds = {k["library"]: k for k in _plan("fast_add") if k["op"] == "aten::add.out"}
    assert adds["fast_add"]["native"] == "fast::native::add_out"
    assert adds["portable"]["key"].startswith("Long;")
    symbols = subprocess.run(["nm", "-C", os.path.join(_out("fast_add"), "bin", "runner")],
                             capture_output=True, text=True, check=True).stdout
    assert "fast::native::add_out" in symbols and "tailor::native::add_out" in symbols


def test_each_add_kernel_compiles_only_the_dtypes_it_was_chosen_for(fast_add_build):
    # Dtype masks are per chosen kernel, not per op: portable's add.out serves Long alone,
    # so it compiles no Float case (with add.out's union, Float and Long, it compiled both).
    with open(os.path.join(_out("fast_add"), "gen", "selected_dtypes.h")) as f:
        header = f.read()
    assert '{"fast_add", "add.out", 0x40u},  // Float' in header
    assert '{"portable", "add.out", 0x10u},  // Long' in header
    with open(os.path.join(_out("fast_add"), "gen", "register_kernels.cpp")) as f:
        table = f.read()
    assert '"TTS!T", 0x10u},  // portable: kernels/portable/op_add.cpp' in table  # load check
    symbols = subprocess.run(["nm", "-C", os.path.join(_out("fast_add"), "bin", "runner")],
                             capture_output=True, text=True, check=True).stdout
    # portable add's loops, apply_elementwise<compute type, out type, mask, ...>
    loops = [line.partition(" tailor::native::apply_elementwise<")[2] for line in
             symbols.splitlines() if "apply_elementwise<" in line
             and "tailor::native::add_out(tailor::KernelContext&" in line]
    assert loops and all(loop.startswith("long, long, 16u,") for loop in loops), loops


def test_wrong_kernel_signature_fails_in_the_kernels_file(custom_linear_build, tmp_path):
    # A copy of the example's kernel with one parameter too many, in its own library.
    folder = os.path.join(REPO, BUILD, "bad_signature")
    os.makedirs(folder, exist_ok=True)
    source = os.path.join(folder, "op_custom_linear.cpp")
    with open(os.path.join(REPO, "examples", "custom_linear", "op_custom_linear.cpp")) as f:
        text = f.read().replace("const Tensor* bias, Tensor& out)",
                                "const Tensor* bias, int64_t extra, Tensor& out)")
    with open(source, "w") as f:
        f.write(text)
    relative = os.path.relpath(source, REPO)
    library = os.path.join(folder, "bad_linear.yaml")
    with open(os.path.join(REPO, "examples", "custom_linear", "custom_linear.yaml")) as f:
        manifest = f.read().replace("examples/custom_linear/op_custom_linear.cpp", relative)
    with open(library, "w") as f:
        f.write(manifest)
    model = tmp_path / "bad_signature.yaml"
    model.write_text("description: custom_linear with a kernel of the wrong signature\n"
                     "factory: examples.custom_linear.model:make_custom_linear_mlp\n"
                     f"kernel_libraries: [{os.path.relpath(library, REPO)}]\n")
    proc = run_scons(f"model={model}", "build_dir=" + BUILD, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0, text
    # The compiler points at the definition (line 14) in the kernel's own file.
    assert (f"{relative}:14:25: error: static assertion failed: mylib::native::"
            "custom_linear_out must be defined as") in text, text
