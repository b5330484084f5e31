"""Runtime size by kernel selection: an add.out runtime with every dtype vs Float only,
the GPT runtime, and select=all, with the per-operator bytes of the GPT and select=all
builds. All built with the size profile (profile=size log=0) and measured stripped from
the size app (tests/size/app/size_app.cpp: load a program and run it).

    .venv/bin/python bench/kernel_sizes.py
"""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "site_scons"))
sys.path.insert(0, REPO)
import size_attribution  # noqa: E402
from bench import common  # noqa: E402
from codegen.build_layout import target_dir, tree  # noqa: E402

BUILD = tree("bench-sizes")
ARGS = ("profile=size", "log=0", "size=1", "build_dir=" + BUILD)
TARGET_DIR = os.path.join(BUILD, target_dir(profile="size", log=False))
ADD_PROGRAM = os.path.join(BUILD, "add_float.pte")


def scons(*args: str) -> None:
    common.scons(*args, *ARGS)


def export_add_float() -> None:
    code = ("import sys, torch\nfrom exporter.export import export\n"
            "class Add(torch.nn.Module):\n    def forward(self, x, y):\n        return x + y\n"
            "export(Add(), (torch.ones(2, 3), torch.ones(2, 3))).save(sys.argv[1])\n")
    os.makedirs(os.path.join(REPO, BUILD), exist_ok=True)
    subprocess.run([sys.executable, "-c", code, ADD_PROGRAM], cwd=REPO, check=True)


def measure(variant: str):
    folder = os.path.join(REPO, TARGET_DIR, variant)
    plan = os.path.join(folder, "kernel_plan.yaml")
    return size_attribution.attribute_files(os.path.join(folder, "bin", "size_app"), None,
                                       plan if os.path.exists(plan) else None)


def base_op(component: str) -> str:
    """"aten::add.Scalar_out + aten::add.out" and "aten::add.out" -> "add" (one source file)."""
    namespace, _, name = component.split(" + ")[0].rpartition("::")
    base = name.split(".")[0]
    return base if namespace == "aten" else f"{namespace}::{base}"


def kernel_bytes(result) -> dict:
    """Bytes per kernel source file (base operator), as the report attributes them."""
    found = {}
    for name, n in result.components.items():
        if name.startswith("kernel "):
            op = base_op(name[len("kernel "):])
            found[op] = found.get(op, 0) + n
    return found


def main() -> int:
    export_add_float()
    builds = [("add.out, Float only (one Float add program)", "add_float", ("programs=" + ADD_PROGRAM,)),
              ("add.out, every dtype (ops=aten::add.out)", "ops", ("ops=aten::add.out",)),
              ("GPT (model=gpt_tiny)", "gpt_tiny", ("model=gpt_tiny",)),
              ("every kernel and dtype (select=all)", "all", ("select=all",))]
    results = {}
    for label, variant, args in builds:
        print(f"building {label} ...", file=sys.stderr, flush=True)
        scons(*args, os.path.join(TARGET_DIR, variant, "bin", "size_app"))
        results[variant] = measure(variant)

    print("| runtime | stripped bytes | kernel bytes |\n|---|---:|---:|")
    for label, variant, _ in builds:
        r = results[variant]
        print(f"| {label} | {r.stripped_bytes:,} | {sum(kernel_bytes(r).values()):,} |")

    gpt, every = kernel_bytes(results["gpt_tiny"]), kernel_bytes(results["all"])
    print("\n| kernel file (base operator) | GPT build | select=all |\n|---|---:|---:|")
    for op in sorted(set(gpt) | set(every), key=lambda o: -every.get(o, gpt.get(o, 0))):
        print(f"| {op} | {gpt[op]:,} | {every.get(op, 0):,} |" if op in gpt
              else f"| {op} | — | {every[op]:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
