"""Which kernel of llm::cache_attention a build picks (tailor/llm/kernels.py's
KERNEL_LIBRARIES, listed by manifests/models/gpt_kv.yaml): the optimized one on the host
target, the portable one when the build's own libraries leave `optimized` out
(profile=size, libraries=portable,prim). Each build runs up to its kernel plan only."""

import os

import pytest
import yaml

from codegen import build_layout
from tailor.llm.kernels import KERNEL_LIBRARIES
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-llm-libraries")


def test_the_cached_gpt_manifests_list_the_llm_libraries():
    for name in ("nanogpt", "gpt_kv", "nanogpt_8da4w"):
        with open(os.path.join(REPO, "manifests", "models", name + ".yaml")) as f:
            assert tuple(yaml.safe_load(f)["kernel_libraries"]) == KERNEL_LIBRARIES


@pytest.mark.parametrize("options, layout, library", [
    ((), {}, "llm_optimized"),
    (("profile=size",), {"profile": "size"}, "llm_portable"),
    (("libraries=portable,prim",), {"libraries": ["portable", "prim"]}, "llm_portable"),
], ids=["host", "profile=size", "libraries=portable,prim"])
def test_the_build_picks_the_kernel_its_libraries_allow(options, layout, library):
    plan = build_layout.kernel_plan(build_layout.output_dir(["gpt_kv"], build_dir=BUILD, **layout))
    run_scons("model=gpt_kv", "build_dir=" + BUILD, *options, plan)
    with open(os.path.join(REPO, plan)) as f:
        kernels = yaml.safe_load(f)["kernels"]
    chosen = [k for k in kernels if k["op"] == "llm::cache_attention.out"]
    assert [k["library"] for k in chosen] == [library]
