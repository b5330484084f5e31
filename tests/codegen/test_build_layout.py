"""codegen/build_layout.py names a build's directory as the build does (the build itself
calls it: site_scons/stages.py); the e2e tests read real builds through it."""

from codegen import build_layout as layout


def test_target_dir_names_what_changes_the_objects():
    assert layout.target_dir() == "host"
    assert layout.target_dir("host", profile="size", log=False) == "host-size-nolog"
    assert layout.target_dir("linux-aarch64", trace=True, lib="shared") == \
        "linux-aarch64-trace-shared"
    assert layout.target_dir(lib="static") == "host"  # the static library needs no -fPIC
    assert layout.target_dir(sanitize="address") == "host-asan"


def test_variant_names_the_model_set():
    assert layout.variant(["mlp", "gpt_tiny"]) == "mlp+gpt_tiny"
    assert layout.variant(programs=["/tmp/x/add.pte"], libraries=["portable", "prim"]) == \
        "add@portable+prim"
    assert layout.variant(["m"], libraries=["kernels/llm/llm_portable.yaml"]) == \
        "m@llm_portable"
    assert layout.variant() == "all" and layout.variant(select_all=True) == "all"
    assert layout.variant(["mlp"], select_all=True) == "mlp-all"
    many = layout.variant(list("abcde"))
    assert many.startswith("a+4-more-") and many == layout.variant(list("abcde"))
    assert many != layout.variant(list("abcdf"))


def test_output_dir():
    assert layout.output_dir(["mlp"], build_dir="build/t", lib="shared") == \
        "build/t/host-shared/mlp"
