"""codegen/profile.py: build profile manifests."""

import pytest

from codegen import profile as profiles
from codegen.errors import ManifestError

PATH = "manifests/profiles/small.yaml"


def test_the_size_profile_loads():
    size = profiles.load_profile("size", "profile=size")
    assert "-Os" in size.cxxflags and "-flto" in size.linkflags
    assert size.link_sources == ("runtime/platform/default/terminate.cpp",)
    # Not the optimized kernels; the quantized ones only serve quantized models.
    assert size.kernel_libraries == ("quantized", "portable", "prim")
    assert profiles.load_profile("none", "profile=none") is None


def test_unknown_profile_names_the_choices():
    with pytest.raises(ManifestError) as e:
        profiles.load_profile("sise", "profile=sise")
    assert str(e.value).startswith("profile=sise: there is no manifests/profiles/sise.yaml; "
                                   "did you mean 'size'?")
    assert "none" in str(e.value)


@pytest.mark.parametrize("text, message", [
    ("cxxflag: [-Os]", "unknown key 'cxxflag'; did you mean 'cxxflags'?"),
    ("cxxflags: -Os", "cxxflags must be a list of strings"),
    ("link_sources: [runtime/nowhere.cpp]", "link_sources names runtime/nowhere.cpp, which "
                                            "does not exist"),
    ("- a list", "a profile is a YAML mapping"),
    ("kernel_libraries: [fast]", "kernel_libraries names fast, but there is no "
                                 "manifests/kernels/fast.yaml"),
])
def test_validation(text, message):
    with pytest.raises(ManifestError) as e:
        profiles.parse_profile(text, PATH)
    assert str(e.value).startswith(PATH + ": ")
    assert message in str(e.value)
