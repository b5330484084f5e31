"""Kernel plan + one kernel source -> C++ checks that the source defines each of its
kernels with the signature its schema gives (the one gen/functions.h declares).

Without them a definition that differs (a parameter missing, `const Tensor&` for a
`Tensor?`) is an overload the kernel table never calls, and the build fails at link time
with no word of the kernel's file. Each check is a static_assert that the kernel unit
compiling the source places, through `#line`, at the definition, so the compiler names
the kernel's file and line and says what to write (site_scons/kernel_units.py).

CLI: python -m codegen.signature_checks kernel_plan.yaml SOURCE   (prints the checks)
"""

import re
import sys

from codegen.errors import run_cli
from codegen.render import kernel_declaration
from codegen.resolve import KernelPlan, parse_plan


def definition_line(text: str, function: str) -> int:
    """The 1-based line where `function(` first appears in `text`, or 1."""
    found = re.search(rf"\b{re.escape(function)}\s*\(", text)
    return text.count("\n", 0, found.start()) + 1 if found else 1


def signature_checks(plan: KernelPlan, source: str, text: str) -> list[str]:
    """The check lines for the kernels `plan` takes from `source` (whose text is `text`)."""
    lines = []
    for native in sorted({k.native for k in plan.kernels if k.source == source}):
        kernel = next(k for k in plan.kernels if k.native == native and k.source == source)
        _, decl = kernel_declaration(kernel, global_scope=True)
        pointer = f"{decl.return_type} (*)({', '.join(decl.params)})"
        declared = f"{decl.return_type} {decl.function}({', '.join(decl.params)})"
        lines += [f'#line {definition_line(text, decl.function)} "{source}"',
                  f"static_assert(::tailor::is_same_v<decltype(&::{native}), {pointer}>,",
                  f'              "{native} must be defined as {declared}: the signature '
                  f'of {kernel.op} (gen/functions.h)");']
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m codegen.signature_checks kernel_plan.yaml SOURCE",
              file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        plan = parse_plan(f.read(), argv[0])
    with open(argv[1]) as f:
        print("\n".join(signature_checks(plan, argv[1], f.read())))
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
