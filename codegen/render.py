"""KernelPlan (kernel_plan.yaml) -> gen/: register_kernels.cpp, functions.h, selected_dtypes.h;
BackendPlan (backend_plan.yaml, codegen/backends.py) -> gen/register_backends.cpp.

Python decides what goes in (which kernels, symbols, unboxing expressions, masks); the
templates in templates/ fix the C++ shape, one template per output file. The output
depends only on the plan, so the same plan gives the same bytes.

CLI: python -m codegen.render --plan kernel_plan.yaml [--backend-plan backend_plan.yaml]
         --out-dir gen/
"""

import argparse
import json
import os
import sys
from dataclasses import dataclass

import jinja2

from codegen.backends import BackendPlan
from codegen.backends import parse_plan as parse_backend_plan
from codegen.cpp_types import kind_signature, native_params, return_type, unbox
from codegen.dtypes import ALL_DTYPES_MASK
from codegen.errors import run_cli
from codegen.kernel_manifest import manifest_op_name
from codegen.resolve import KernelChoice, KernelPlan, parse_plan
from codegen.roots import PACKAGE
from codegen.schema import Schema, parse_schema
from codegen.yaml_io import write_text

TEMPLATE_DIR = os.path.join(PACKAGE, "templates")
ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
                         undefined=jinja2.StrictUndefined, trim_blocks=True,
                         lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
ENV.filters["c_string"] = json.dumps  # op names and keys are ASCII: a valid C literal

OUTPUTS = ("register_kernels.cpp", "functions.h", "selected_dtypes.h")
BACKENDS_OUTPUT = "register_backends.cpp"


@dataclass(frozen=True)
class Wrapper:
    name: str                 # "wrap_0"
    op: str
    native: str               # "tailor::native::addmm_out"
    args: tuple[str, ...]     # the unboxed arguments after ctx
    result_slot: int | None   # args[] index a non-tensor return is stored in
    kinds: str                # KernelEntry::args: the kind of every slot, "TTST"


@dataclass(frozen=True)
class Declaration:
    schema: str
    return_type: str
    function: str             # unqualified: "addmm_out"
    params: tuple[str, ...]


@dataclass(frozen=True)
class NamespaceDecls:
    namespace: str            # "tailor::native"
    declarations: tuple[Declaration, ...]


@dataclass(frozen=True)
class DtypeRow:
    library: str
    op: str
    mask: str                 # "0x48u"
    dtypes: str               # "Float, Long" (the comment)


def _qualifier(namespace: str) -> str:
    """Runtime types are unqualified inside namespace tailor, `::tailor::X` elsewhere."""
    return "" if namespace == "tailor" or namespace.startswith("tailor::") else "::tailor::"


def _wrapper(name: str, op: str, native: str, schema: Schema) -> Wrapper:
    args = tuple(unbox(a.type, f"args[{i}]->") for i, a in enumerate(schema.call_args))
    slot = len(schema.call_args) if schema.value_returns else None
    return Wrapper(name, op, native, args, slot, kind_signature(schema))


def kernel_declaration(k: KernelChoice, global_scope: bool = False) -> tuple[str, Declaration]:
    """(namespace, declaration) of a chosen kernel, as its schema gives it; with
    `global_scope`, its runtime types spelled to be read outside any namespace."""
    namespace, _, function = k.native.rpartition("::")
    schema = parse_schema(k.schema, where=f"kernel plan: {k.op}")
    q = "::tailor::" if global_scope else _qualifier(namespace)
    params = native_params(schema, q)
    return namespace, Declaration(str(schema), return_type(schema, q), function, tuple(params))


def _declarations(plan: KernelPlan) -> tuple[NamespaceDecls, ...]:
    by_namespace: dict[str, dict[tuple, Declaration]] = {}
    for k in plan.kernels:
        namespace, decl = kernel_declaration(k)
        by_namespace.setdefault(namespace, {})[(decl.function, decl.params)] = decl
    return tuple(NamespaceDecls(ns, tuple(d for _, d in sorted(decls.items())))
                 for ns, decls in sorted(by_namespace.items()))


def _prepack_declarations(plan: KernelPlan) -> list[tuple[str, str]]:
    """(namespace, name) of every kernel's KernelPrepack object, declared once each."""
    return sorted({tuple(k.prepack.rsplit("::", 1)) for k in plan.kernels if k.prepack})


def dtype_rows(selections) -> tuple[DtypeRow, ...]:
    """The rows of `selections` (DtypeSelection) as selected_dtypes.h and the kernel units
    (site_scons/kernel_units.py) write them."""
    return tuple(DtypeRow(s.library, s.op, f"0x{s.mask:x}u",
                          "all dtypes" if s.mask == ALL_DTYPES_MASK
                          else ", ".join(s.dtypes) or "none")
                 for s in selections)


def render_files(plan: KernelPlan) -> dict[str, str]:
    """{file name: text} of every generated file."""
    wrappers = {}
    for k in plan.kernels:
        if k.wrapper not in wrappers:
            schema = parse_schema(k.schema, where=f"kernel plan: {k.op}")
            wrappers[k.wrapper] = _wrapper(k.wrapper, k.op, k.native, schema)
    rows = dtype_rows(plan.selected_dtypes)
    # Each table row carries its own kernel's mask: two libraries' kernels of one op
    # were chosen for different dtypes.
    selected = {(s.library, s.op): s.mask for s in plan.selected_dtypes}
    masks = {(k.library, k.op): "0x%xu" % (
        ALL_DTYPES_MASK if plan.select_all
        else selected.get((k.library, manifest_op_name(k.op)), 0)) for k in plan.kernels}
    context = {"plan": plan, "wrappers": sorted(wrappers.values(), key=lambda w: w.name),
               "kinds": {name: w.kinds for name, w in wrappers.items()}, "masks": masks,
               "namespaces": _declarations(plan), "dtype_rows": rows,
               "prepacks": _prepack_declarations(plan)}
    return {name: ENV.get_template(f"{name}.j2").render(context) for name in OUTPUTS}


def render_backends(plan: BackendPlan) -> str:
    """The text of gen/register_backends.cpp: the runtime's backend table."""
    return ENV.get_template(f"{BACKENDS_OUTPUT}.j2").render({"backends": plan})


def _parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m codegen.render",
                                description=__doc__.split("\n")[0])
    p.add_argument("--plan", required=True, help="kernel_plan.yaml")
    p.add_argument("--backend-plan", help="backend_plan.yaml: also write register_backends.cpp")
    p.add_argument("--out-dir", required=True, help="directory for the generated files")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    with open(args.plan) as f:
        plan = parse_plan(f.read(), args.plan)
    for name, text in render_files(plan).items():
        write_text(os.path.join(args.out_dir, name), text)
    if args.backend_plan:
        with open(args.backend_plan) as f:
            backends = parse_backend_plan(f.read(), args.backend_plan)
        write_text(os.path.join(args.out_dir, BACKENDS_OUTPUT), render_backends(backends))
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
