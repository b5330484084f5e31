"""Kernel libraries written as ExecuTorch writes its own (issue 19).

tests/codegen/executorch_style/ holds files written for these tests in the form of
ExecuTorch's portable functions.yaml, optimized.yaml, quantized.yaml, custom op files and
a backend's (Cadence's) functions.yaml: ATen's keys beside the entries (`variants`,
`cpp_no_default_args`, `dispatch`, `tags`), `func:` schemas without a namespace, defaults
of every kind, an in-place op and a functional op. Each loads, and these are the
concrete kernels read from it.
"""

import os
import subprocess
import sys

import pytest

from codegen.errors import ManifestError
from codegen.kernel_manifest import IGNORED_ENTRY_KEYS, load_library
from tests.conftest import REPO

STYLE_DIR = os.path.join(REPO, "tests", "codegen", "executorch_style")


def _load(name: str):
    return load_library(os.path.join(STYLE_DIR, f"{name}.yaml"))


def _kernels(library) -> list[tuple[str, str]]:
    return [(k.op, k.native) for k in library.kernels]


def test_portable_functions_yaml():
    lib = _load("functions")
    assert _kernels(lib) == [
        ("aten::abs.out", "torch::executor::native::abs_out"),
        ("aten::add.out", "torch::executor::native::add_out"),
        ("aten::bernoulli.float_out", "torch::executor::native::bernoulli_float_out"),
        ("aten::clamp.out", "torch::executor::native::clamp_out"),
        ("aten::full_like.out", "torch::executor::native::full_like_out"),
        ("aten::logical_xor.out", "torch::executor::native::logical_xor_out"),
        ("aten::mean.out", "torch::executor::native::mean_dtype_out"),
        ("aten::native_dropout.out", "torch::executor::native::native_dropout_out"),
        ("aten::scatter_reduce.two_out", "torch::executor::native::scatter_reduce_two_out")]
    assert all(k.key == "" and k.dtypes is None for k in lib.kernels)
    # `func: logical_xor.out(...)` without a namespace is the ATen op, with torch's schema.
    xor = lib.kernels_for("aten::logical_xor.out")[0]
    assert xor.schema.namespace == "aten" and [a.name for a in xor.schema.call_args] == [
        "self", "other", "out"]
    # copy_ is in-place: loaded, declared, never callable.
    assert len(lib.uncallable) == 1
    assert "entry 4 (op: copy_): aten::copy_ is in-place" in lib.uncallable[0]


def test_optimized_yaml_takes_precedence_like_a_fallback_merge():
    from codegen.oplist import OpList, OpUse
    from codegen.resolve import resolve_kernels
    optimized, portable = _load("optimized"), _load("functions")
    assert _kernels(optimized) == [
        ("aten::add.out", "torch::executor::native::opt_add_out"),
        ("aten::bmm.out", "torch::executor::native::opt_bmm_out"),
        ("aten::native_layer_norm.out", "torch::executor::native::opt_native_layer_norm_out"),
        ("aten::sum.IntList_out", "torch::executor::native::opt_sum_dim_out")]
    uses = (OpUse("aten::abs.out", ("Float",), kernel_keys=(("Float;0|Float;0", ("m",)),)),
            OpUse("aten::add.out", ("Float",),
                  kernel_keys=(("Float;0|Float;0|Float;0", ("m",)),)))
    plan = resolve_kernels(OpList(uses), [optimized, portable])
    chosen = {(c.op, c.library, c.native) for c in plan.kernels}
    assert chosen == {("aten::add.out", "optimized", "torch::executor::native::opt_add_out"),
                      ("aten::abs.out", "functions", "torch::executor::native::abs_out")}


def test_quantized_yaml():
    lib = _load("quantized")
    assert _kernels(lib) == [
        ("quantized_decomposed::choose_qparams.Tensor_out",
         "torch::executor::native::choose_qparams_tensor_out"),
        ("quantized_decomposed::dequantize_per_tensor.out",
         "torch::executor::native::dequantize_per_tensor_out"),
        ("quantized_decomposed::embedding_byte.dtype_out",
         "torch::executor::native::quantized_embedding_byte_dtype_out"),
        ("quantized_decomposed::quantize_per_tensor.out",
         "torch::executor::native::quantize_per_tensor_out")]
    qparams = lib.kernels_for("quantized_decomposed::choose_qparams.Tensor_out")[0].schema
    assert [a.name for a in qparams.call_args if a.is_out] == ["scale_out", "zero_point_out"]
    dequant = lib.kernels_for("quantized_decomposed::dequantize_per_tensor.out")[0].schema
    assert {a.name: a.default_value for a in dequant.arguments}["out_dtype"] is None


def test_custom_ops_yaml():
    lib = _load("custom_ops")
    assert _kernels(lib) == [
        ("aten::allclose.out", "torch::executor::native::allclose_out"),
        ("llama::sdpa_with_kv_cache.out", "torch::executor::native::sdpa_with_kv_cache_out"),
        ("llama::update_cache.out", "torch::executor::native::update_cache_out"),
        ("mylib::scatter_sum.out", "mylib::native::scatter_sum_out")]
    defaults = {a.name: a.default_value
                for a in lib.kernels_for("aten::allclose.out")[0].schema.arguments}
    assert (defaults["rtol"], defaults["atol"], defaults["equal_nan"]) == (1e-05, 1e-08, False)
    sdpa = lib.kernels_for("llama::sdpa_with_kv_cache.out")[0].schema
    assert {a.name: a.default_value for a in sdpa.arguments if a.default} == {
        "attn_mask": None, "drpout_p": 0.0, "is_causal": False, "scale": None}
    # key_cache and value_cache are written in place but are not out arguments.
    assert [a.name for a in sdpa.call_args if a.is_out] == ["out"]
    scatter = lib.kernels_for("mylib::scatter_sum.out")[0].schema
    assert [a.default_value for a in scatter.arguments[1:6]] == [[], None, None, False, 1]
    assert lib.uncallable == (
        f"{os.path.relpath(os.path.join(STYLE_DIR, 'custom_ops.yaml'))}:10: entry 2 (func: "
        "allclose.Tensor): aten::allclose.Tensor is functional (returns a new tensor): "
        "programs call only out variants",)


def test_backend_functions_yaml():
    lib = _load("cadence_functions")
    assert _kernels(lib) == [
        ("aten::_softmax.out", "impl::dsp::native::_softmax_out"),
        ("aten::add.out", "impl::dsp::native::add_out"),
        ("aten::clamp.out", "impl::dsp::native::clamp_out"),
        ("aten::permute_copy.out", "impl::dsp::native::permute_copy_out"),
        ("dsp::im2row.per_tensor_out", "impl::dsp::native::im2row_per_tensor_out"),
        ("dsp::quantize_per_tensor.out", "impl::dsp::native::quantize_per_tensor_out"),
        ("dsp::quantized_conv2d_nchw.per_tensor_out",
         "impl::dsp::native::quantized_conv2d_nchw_per_tensor_out"),
        ("dsp::quantized_linear.per_tensor_out",
         "impl::dsp::native::quantized_linear_per_tensor_out")]
    im2row = lib.kernels_for("dsp::im2row.per_tensor_out")[0]
    assert im2row.source == "kernels/cadence_functions/op_im2row.cpp"
    assert str(im2row.schema.arguments[1].type) == "int[2]"


def test_each_ignored_key_has_its_reason():
    assert sorted(IGNORED_ENTRY_KEYS) == ["cpp_no_default_args", "dispatch", "tags", "variants"]
    assert all(len(why) > 20 for why in IGNORED_ENTRY_KEYS.values())


def test_an_unknown_key_still_stops_the_load(tmp_path):
    text = open(os.path.join(STYLE_DIR, "quantized.yaml")).read()
    path = tmp_path / "quantized.yaml"
    path.write_text(text.replace("  variants: function", "  python_module: nn", 1))
    with pytest.raises(ManifestError, match="entry 1 .*unknown key 'python_module' in the "
                                            "entry; the keys are op, func, kernels"):
        load_library(str(path))


@pytest.mark.parametrize("name", ["functions", "optimized", "quantized", "custom_ops",
                                  "cadence_functions"])
def test_the_cli_loads_them(name):
    proc = subprocess.run([sys.executable, "-m", "codegen.kernel_manifest",
                           os.path.join(STYLE_DIR, f"{name}.yaml")],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"# {name}: {len(_load(name).kernels)} kernels\n")
