"""site_scons/size_attribution.py: map parsing, symbol classification, and one real
attribution."""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

sys.path.insert(0, os.path.join(REPO, "site_scons"))
import size_attribution as sr  # noqa: E402

MAP = """\
Memory Configuration
Linker script and memory map

LOAD obj/a.o
.text           0x0000000000001000      0x300
 .text._ZN6tailor6Method7executeEv
                0x0000000000001000      0x120 build/host/obj/runtime/executor/method.o
 .text          0x0000000000001120       0x80 /usr/lib/gcc/x86_64-linux-gnu/12/libstdc++.a(cp-demangle.o)
 .text          0x00000000000011a0        0x0 empty.o
.debug_info     0x0000000000000000     0x5000
 .debug_info    0x0000000000001000      0x400 build/host/obj/runtime/executor/method.o
"""

RELU = sr.KernelInfo("aten::relu.out", "tailor::native::relu_out", "wrap_2",
                     "kernels/portable/op_relu.cpp")
ADD = sr.KernelInfo("aten::add.out", "tailor::native::add_out", "wrap_0",
                    "kernels/portable/op_add.cpp")
ADD_SCALAR = sr.KernelInfo("aten::add.Scalar_out", "tailor::native::add_scalar_out", "wrap_1",
                           "kernels/portable/op_add.cpp")


def test_parse_map_keeps_wrapped_names_and_output_sections():
    placed = sr.parse_map(MAP)
    assert placed == [
        (".text", 0x1000, 0x120, "build/host/obj/runtime/executor/method.o"),
        (".text", 0x1120, 0x80, "/usr/lib/gcc/x86_64-linux-gnu/12/libstdc++.a(cp-demangle.o)"),
        (".debug_info", 0x1000, 0x400, "build/host/obj/runtime/executor/method.o"),
    ]


def test_kernel_components_group_ops_by_source():
    groups = sr.kernel_components([RELU, ADD, ADD_SCALAR])
    assert groups == {"kernels/portable/op_relu.cpp": "kernel aten::relu.out",
                      "kernels/portable/op_add.cpp": "kernel aten::add.out + aten::add.Scalar_out"}


@pytest.mark.parametrize("path, component", [
    ("build/host/obj/runtime/executor/method.o", sr.EXECUTOR),
    ("/work/main/runtime/kernel/registry.cpp", sr.REGISTRY),
    ("./kernels/portable/op_add.cpp", "kernel aten::add.out + aten::add.Scalar_out"),
    ("/usr/lib/gcc/x86_64-linux-gnu/12/libstdc++.a(cp-demangle.o)", sr.LIBSTDCXX),
    ("/usr/lib/gcc/x86_64-linux-gnu/12/libgcc_eh.a(unwind-dw2.o)", sr.LIBGCC),
    ("build/schema/program_generated.h", sr.VERIFIER),
    ("build/host/mlp/gen/register_kernels.cpp", sr.GLUE),
    ("/work/main/backends/xnnpack/runtime/xnnpack_backend.cpp", "backend xnnpack"),
    ("somewhere/else.o", None),
])
def test_component_of_path(path, component):
    groups = sr.kernel_components([RELU, ADD, ADD_SCALAR])
    assert sr.component_of_path(path, groups) == component


@pytest.mark.parametrize("name, component", [
    ("tailor::native::relu_out(tailor::KernelContext&, tailor::Tensor const&, tailor::Tensor&)",
     "kernel aten::relu.out"),
    ("tailor::native::relu_out(tailor::KernelContext&, tailor::Tensor const&, tailor::Tensor&)"
     "::{lambda()#1}::operator()() const", "kernel aten::relu.out"),
    ("void tailor::native::add_detail::apply<float>(float const*, float*)",
     "kernel aten::add.out + aten::add.Scalar_out"),
    ("tailor::gen::wrap_1(tailor::KernelContext&, tailor::EValue**)",
     "kernel aten::add.out + aten::add.Scalar_out"),
    ("tailor::gen::kKernels", sr.GLUE),
    ("bool tailor::fb::Method::Verify<false>(flatbuffers::VerifierTemplate<false>&) const",
     sr.VERIFIER),
    ("tailor::Method::execute()", sr.EXECUTOR),
    ("std::terminate()", sr.LIBSTDCXX),
    ("(anonymous namespace)::run(char const*)", None),
])
def test_component_of_symbol(name, component):
    kernels = [RELU, ADD, ADD_SCALAR]
    assert sr.component_of_symbol(name, kernels, sr.kernel_components(kernels)) == component


@pytest.mark.parametrize("name, dtype", [
    ("void tailor::native::add_detail::apply<float>(float const*, float*)", "Float"),
    ("void tailor::native::copy<tailor::Half, 2>(tailor::Half const*)", "Half"),
    ("void tailor::native::copy<unsigned char>(unsigned char const*)", "Byte"),
    # Parameters are not the instance's dtype: ArrayRef<long> is just an argument.
    ("tailor::native::permute_copy_out(tailor::KernelContext&, tailor::ArrayRef<long>)", None),
    ("bool tailor::fb::Method::Verify<false>(flatbuffers::VerifierTemplate<false>&) const", None),
])
def test_dtype_of_symbol(name, dtype):
    assert sr.dtype_of_symbol(name) == dtype


def test_attribution_of_a_real_binary_sums_to_its_stripped_size(tmp_path):
    """A two-file program built here with -g: every byte lands somewhere, and the code of
    each file lands in the component its path names."""
    runtime = tmp_path / "runtime" / "executor"
    runtime.mkdir(parents=True)
    (runtime / "method.cpp").write_text(
        "namespace tailor { int step(int x) { int s = 0; for (int i = 0; i < x; ++i) "
        "s += i * x ^ (s >> 3); return s; } }\n")
    (tmp_path / "main.cpp").write_text(
        "namespace tailor { int step(int); }\nint main(int argc, char**) "
        "{ return tailor::step(argc) & 1; }\n")
    binary = tmp_path / "app"
    subprocess.run(["g++", "-Os", "-g", "-ffunction-sections", "-Wl,--gc-sections",
                    "-Wl,-Map," + str(binary) + ".map", str(runtime / "method.cpp"),
                    str(tmp_path / "main.cpp"), "-o", str(binary)], check=True)
    result = sr.attribute_files(str(binary), None, None)
    assert sum(result.components.values()) == result.stripped_bytes
    assert result.stripped_bytes == sr.stripped_size(str(binary))
    assert result.components[sr.EXECUTOR] > 0
    assert result.method.startswith("DWARF")


def test_kernel_in_the_kernel_archive_is_credited_to_its_kernel(tmp_path):
    """A default build (no -g) links each kernel's unit object from the variant's
    obj/kernels.a, so only the link map's archive member and the symbol name can credit
    their bytes: a kernel linked that way must not count as 0 bytes."""
    import kernel_units
    kernel = tmp_path / "kernels" / "portable" / "op_relu.cpp"
    kernel.parent.mkdir(parents=True)
    kernel.write_text(
        "namespace tailor::native {\n"
        "float* relu_out(float* x, int n) { for (int i = 0; i < n; ++i) "
        "x[i] = x[i] > 0 ? x[i] : 0; return x; }\n}\n")
    (tmp_path / "main.cpp").write_text(
        "namespace tailor::native { float* relu_out(float*, int); }\n"
        "int main(int argc, char**) { float x[4] = {-1, 2, -3, 4};\n"
        "  return (int)tailor::native::relu_out(x, argc)[0]; }\n")
    # Named as the build names a unit's object: its source, then a digest of its text.
    obj = "%s.%s.o" % (kernel_units.flat_name(RELU.source), "0" * kernel_units.DIGEST_CHARS)
    subprocess.run(["g++", "-O2", "-ffunction-sections", "-I.", "-c", str(kernel), "-o", obj],
                   cwd=tmp_path, check=True)
    kernel_units.write_archive(str(tmp_path / kernel_units.ARCHIVE), [str(tmp_path / obj)], ["ar"])
    subprocess.run(["g++", "-O2", "-ffunction-sections", "-Wl,--gc-sections",
                    "-Wl,-Map,app.map", "main.cpp", kernel_units.ARCHIVE, "-o", "app"],
                   cwd=tmp_path, check=True)
    with open(tmp_path / "app.map") as f:
        text = f.read()
    assert "%s(%s)" % (kernel_units.ARCHIVE, obj) in text  # the member, as matched
    result = sr.attribute(str(tmp_path / "app"), text, [RELU])
    assert result.components.get(sr.kernel_components([RELU])[RELU.source], 0) > 0
