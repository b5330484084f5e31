"""The `tailor` console command: the Python stages under one name.

    tailor init                       a project here: manifests/{models,kernels,targets}/
    tailor build --model M [--run] [--lib shared|static] ...   scons for this project
    tailor export --manifest manifests/models/mlp.yaml --out mlp.pte   (python -m exporter)
    tailor inspect mlp.pte            methods, their inputs/outputs, operators and memory
    tailor profile mlp.pte --trace T  timing tables and numeric debugging (python -m inspector)
    tailor run LIB.so mlp.pte --input x.npy [--output y.npy]   run through the C API

`export` and `profile` take exactly the arguments of the module they run; `build` its
own (tailor build --help) and any scons option (tailor/project.py).
"""

import argparse
import os
import sys
from collections import Counter

from program.model import DelegateCall, Tensor

USAGE = __doc__.split("\n\n")[1]


def describe_program(program) -> list[str]:
    """Lines describing a program (program.model.Program)."""
    lines = []
    for method in program.methods:
        lines.append(f"method '{method.name}': {len(method.instructions)} "
                     f"instructions, arenas {method.arena_sizes} bytes")
        for role in ("inputs", "outputs"):
            for position, value_id in enumerate(getattr(method, role)):
                lines.append(f"  {role[:-1]} {position}: "
                             f"{_describe_value(method.values[value_id])}")
        calls = Counter()
        for _, call in method.kernel_calls():
            op = method.operators[call.op_index]
            calls[f"{op.name}.{op.overload or 'default'}"] += 1
        calls["(delegate call)"] += sum(isinstance(i, DelegateCall) for i in method.instructions)
        for name, count in sorted(calls.items()):
            if count:
                lines.append(f"  operator {name} x{count}")
    return lines


def _describe_value(value) -> str:
    if not isinstance(value, Tensor):
        return "None" if value is None else type(value).__name__
    text = f"Tensor {value.scalar_type} {value.sizes}"
    if value.dynamic:
        text += f" (dynamic, from {value.min_sizes or '?'} up to {value.sizes})"
    return text


def inspect_program(path: str) -> int:
    from program.pte import ProgramFormatError, read_program

    try:
        program, segment = read_program(path)
    except (OSError, ProgramFormatError) as e:
        print(f"error: {path}: {e}", file=sys.stderr)
        return 1
    print(f"{path}: {len(program.methods)} method(s), constant segment "
          f"{len(segment):,} bytes")
    print("\n".join(describe_program(program)))
    return 0


def run_program(args: argparse.Namespace) -> int:
    import numpy as np

    from tailor.runtime import Runtime, TailorError

    try:
        program = Runtime(args.library).load(args.program)
        inputs = [np.load(path) for path in args.input]
        outputs = program.run(*inputs, method=args.method)
    except (OSError, ValueError, TailorError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for index, output in enumerate(outputs):
        print(f"output {index}: shape {list(output.shape)} {output.dtype}")
        if index < len(args.output):
            np.save(args.output[index], output)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "export":
        from exporter.__main__ import main as export_main
        return export_main(argv[1:])
    if argv and argv[0] == "profile":
        from inspector.__main__ import main as inspector_main
        return inspector_main(argv[1:])
    if argv and argv[0] == "build":
        from tailor.project import build
        return build(argv[1:], os.getcwd())
    parser = argparse.ArgumentParser(prog="tailor", usage=USAGE,
                                     description="Tailor's Python stages.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("init", help="start a project here: manifests/ and a .gitignore")
    commands.add_parser("build", help="build a runtime for this project's models (scons)")
    commands.add_parser("export", help="export a model manifest (python -m exporter)")
    commands.add_parser("profile", help="timings and numeric debugging (python -m inspector)")
    inspect = commands.add_parser("inspect", help="describe a program's methods and operators")
    inspect.add_argument("program", help="a .pte file")
    run = commands.add_parser("run", help="run a program through a lib=shared runtime")
    run.add_argument("library", help="libtailor.so from scons ... lib=shared")
    run.add_argument("program", help="a .pte file")
    run.add_argument("--method", default="forward")
    run.add_argument("--input", nargs="*", default=[], help="one .npy per input")
    run.add_argument("--output", nargs="*", default=[], help="write output i to the i-th file")
    args = parser.parse_args(argv)
    if args.command == "init":
        from tailor.project import init
        return init(os.getcwd())
    if args.command == "inspect":
        return inspect_program(args.program)
    return run_program(args)


if __name__ == "__main__":
    sys.exit(main())
