"""Size budgets: the stripped size of each (target, build) must stay within
tests/size/budgets.yaml. Sizes are deterministic for a pinned toolchain, so a build over
its budget is a regression; the failure carries the binary's size report.

Every entry measures tests/size/app/size_app.cpp (load a program, run "forward") built
with `scons ... profile=size log=0 size=1` and stripped; the test also runs it, so the
measured binary is one that works.
"""

import os
import subprocess
import sys

import pytest
import yaml

from tests.conftest import REPO, run_scons

sys.path.insert(0, os.path.join(REPO, "site_scons"))
import size_attribution  # noqa: E402
from codegen import build_layout  # noqa: E402

BUILD = build_layout.tree("test-size")
BUDGETS = os.path.join(REPO, "tests", "size", "budgets.yaml")
PROFILE_ARGS = ("profile=size", "log=0", "size=1", "build_dir=" + BUILD)
SIZE_BUILD = dict(build_dir=BUILD, profile="size", log=False)  # as PROFILE_ARGS lay it out


def load_budgets() -> dict:
    with open(BUDGETS) as f:
        return yaml.safe_load(f)["host"]


def export_add_float(path: str) -> None:
    """A one-op program, x + y in Float, exported in its own process (torch)."""
    code = ("import torch, sys\n"
            "from exporter.export import export\n"
            "class Add(torch.nn.Module):\n"
            "    def forward(self, x, y):\n"
            "        return x + y\n"
            "export(Add(), (torch.ones(2, 3), torch.ones(2, 3))).save(sys.argv[1])\n")
    subprocess.run([sys.executable, "-c", code, path], cwd=REPO, check=True)


def build(entry: str) -> tuple:
    """Builds the entry's size app; returns (binary, kernel plan or None, program)."""
    if entry in ("core", "mlp"):
        variant = build_layout.output_dir(["mlp"], **SIZE_BUILD)
        binary = (build_layout.size_core(build_layout.config_dir(**SIZE_BUILD)) if entry == "core"
                  else build_layout.size_app(variant))
        run_scons("model=mlp", *PROFILE_ARGS, binary)
        return binary, None if entry == "core" else build_layout.kernel_plan(variant), \
            build_layout.program(variant, "mlp")
    if entry == "add_float":
        program = os.path.join(BUILD, "add_float.pte")
        os.makedirs(os.path.join(REPO, BUILD), exist_ok=True)
        export_add_float(os.path.join(REPO, program))
        variant = build_layout.output_dir(programs=[program], **SIZE_BUILD)
        binary = build_layout.size_app(variant)
        run_scons("programs=" + program, *PROFILE_ARGS, binary)
        return binary, build_layout.kernel_plan(variant), program
    variant = build_layout.output_dir([entry], **SIZE_BUILD)
    binary = build_layout.size_app(variant)
    run_scons("model=" + entry, *PROFILE_ARGS, binary)
    return binary, build_layout.kernel_plan(variant), build_layout.program(variant, entry)


@pytest.mark.parametrize("entry", list(load_budgets()))
def test_size_within_budget(entry):
    spec = load_budgets()[entry]
    if spec.get("pending"):
        pytest.skip("%s: no budget yet: %s" % (entry, spec["pending"]))
    binary, plan, program = build(entry)
    path = os.path.join(REPO, binary)

    # The measured binary works: it runs the program (core has no kernels: it must
    # refuse the program, which proves the table really is empty).
    run = subprocess.run([path, os.path.join(REPO, program)], capture_output=True)
    assert run.returncode == (1 if entry == "core" else 0), (entry, run)

    result = size_attribution.attribute_files(path, None, plan and os.path.join(REPO, plan))
    report = "\n".join("%10d  %s" % (n, c)
                       for c, n in size_attribution.ordered(result.components))
    assert result.stripped_bytes <= spec["budget"], (
        "%s: %s is %d stripped bytes, over its budget of %d in tests/size/budgets.yaml "
        "(reached %d when it was set). Size report:\n%s"
        % (entry, binary, result.stripped_bytes, spec["budget"], spec["reached"], report))
