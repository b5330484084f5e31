"""Target manifests."""

import textwrap

import pytest

from codegen.errors import ManifestError
from codegen.target import libraries_for_build, library_kind, load_target, parse_target

HOST = """
    description: Native build for this machine
    toolchain: gcc
    cxx: g++
    cxxflags: [-std=c++17, -O2, -fno-exceptions, -fno-rtti]
    linkflags: ['-Wl,--gc-sections']
    kernel_libraries: [portable, prim]
    backends: []
"""
LIBRARIES = frozenset({"portable", "prim", "optimized"})


def parse(text: str):
    return parse_target(textwrap.dedent(text), "manifests/targets/host.yaml", LIBRARIES)


def test_host_target():
    t = parse(HOST)
    assert (t.name, t.toolchain, t.cxx) == ("host", "gcc", "g++")
    assert t.kernel_libraries == ("portable", "prim")
    assert t.cxxflags == ("-std=c++17", "-O2", "-fno-exceptions", "-fno-rtti")
    assert t.library_path("prim") == "manifests/kernels/prim.yaml"


@pytest.mark.parametrize("change, message", [
    (("backends: []", "backend: []"), "unknown key 'backend'; did you mean 'backends'?"),
    (("[portable, prim]", "[portabel, prim]"),
     "kernel library 'portabel' is not in manifests/kernels/; did you mean 'portable'?; "
     "the libraries are optimized, portable, prim"),
    (("[portable, prim]", "[prim, prim]"), "'prim' is listed twice"),
    (("[portable, prim]", "[]"), "kernel_libraries is empty"),
    (("toolchain: gcc", "toolchain: msvc"), "toolchain 'msvc' is not supported; the "
     "toolchains are gcc, clang, android-ndk"),
    (("cxx: g++", "cxx: [g++]"), "cxx must be a string"),
    (("cxx: g++\n", ""), "cxx is missing; add e.g. cxx: g++"),
    (("['-Wl,--gc-sections']", "[-Wl,--gc-sections]"),
     "linkflags lists '-Wl' alone: YAML split '-Wl,--gc-sections' at the comma; quote it: "
     "['-Wl,--gc-sections']"),
])
def test_validation(change, message):
    with pytest.raises(ManifestError) as e:
        parse(textwrap.dedent(HOST).replace(*change))
    assert str(e.value).startswith("manifests/targets/host.yaml: ")
    assert message in str(e.value)


def test_a_target_file_is_parsed_once_until_it_changes(tmp_path):
    (tmp_path / "kernels").mkdir()
    for name in LIBRARIES:
        (tmp_path / "kernels" / f"{name}.yaml").write_text("[]\n")
    path = tmp_path / "targets" / "host.yaml"
    path.parent.mkdir()
    path.write_text(textwrap.dedent(HOST))
    first = load_target(str(path))
    assert load_target(str(path)) is first          # the build's second ask reads nothing
    path.write_text(textwrap.dedent(HOST).replace("[portable, prim]", "[optimized, portable]"))
    assert load_target(str(path)).kernel_libraries == ("optimized", "portable")


BUILTIN = {"optimized", "portable", "quantized", "prim"}
LLM = ("kernels/llm/llm_optimized.yaml", "kernels/llm/llm_portable.yaml")


@pytest.mark.parametrize("build, kept", [
    (("optimized", "quantized", "portable", "prim"), LLM),          # host
    (("quantized", "portable", "prim"), LLM[1:]),                   # profile=size
    (("portable", "prim"), LLM[1:]),                                # libraries=portable,prim
])
def test_a_model_library_of_a_kind_comes_only_into_builds_with_that_kind(build, kept):
    assert libraries_for_build(LLM, build, BUILTIN) == kept


def test_a_model_library_of_no_kind_comes_into_every_build():
    custom = ("examples/custom_linear/custom_linear.yaml", "my/kernels_v2.yaml")
    assert libraries_for_build(custom, ("portable", "prim"), BUILTIN) == custom
    assert library_kind("kernels/llm/llm_optimized.yaml", BUILTIN) == "optimized"
    assert library_kind("my/fast_kernels.yaml", BUILTIN) == ""
