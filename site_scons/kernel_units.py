"""The kernel units: one generated translation unit per selected kernel source, each
compiled to an object of its own and archived into the build's obj/kernels.a.

A unit (templates/kernel_unit.cpp.j2) #defines its source's library, path and the ops its
manifest gives it, and the dtype rows the resolver chose that library's kernels of those
ops for (runtime/kernel/dtype_selection.h); then it #includes the source and checks its
kernels' signatures (codegen/signature_checks). It reads nothing else of the build, so its
name is its source's path and a digest of its text (less the checks' #line numbers, which
move with every edit above a kernel and change no code):
  <target dir>/gen/kernels/kernels.portable.op_add.<digest>.cpp -> obj/kernels/....o
Every build of one target configuration that selects a source alike (another model set,
another build directory through the shared cache) compiles it once, and a model that
gains an operator compiles only that operator's kernel. Everything a unit holds comes
from the kernel plan (kernel_plan.yaml) and the source.

The linker takes a member of kernels.a when the generated kernel table names one of its
kernels, which it does for every unit of the build. stage_compile.py declares the units.
"""

import functools
import hashlib
import os
import re
import subprocess

DIGEST_CHARS = 12
ARCHIVE = "kernels.a"
_TEMPLATE = "kernel_unit.cpp.j2"


def flat_name(source: str) -> str:
    """"kernels/portable/op_add.cpp" -> "kernels.portable.op_add": the unit's name without
    its digest, also what an archive member keeps of its path (its base name)."""
    return re.sub(r"[^A-Za-z0-9_]+", ".", os.path.splitext(source)[0]).strip(".")


def object_pattern(source: str) -> str:
    """A regular expression matching the object of any unit of `source`, as a path or as
    a member in a link map ("obj/kernels.a(kernels.portable.op_add.<digest>.o)")."""
    return r"(^|[/(])%s\.[0-9a-f]{%d}\.o\)?$" % (re.escape(flat_name(source)), DIGEST_CHARS)


def source_libraries(plan) -> dict[str, str]:
    """{kernel source: the library whose kernels it defines} (one library per source:
    codegen/resolve.py's check_kernel_sources)."""
    libraries: dict[str, str] = {}
    for k in plan.kernels:
        libraries.setdefault(k.source, k.library)
    return libraries


def render_units(plan) -> list[tuple[str, str]]:
    """[(unit name, unit text)], one per kernel source of `plan`."""
    # Imported here: size_report.py runs as a script without the repository on sys.path.
    from codegen.render import ENV, dtype_rows
    from codegen.roots import find_source
    from codegen.signature_checks import signature_checks

    libraries = source_libraries(plan)
    source_ops = dict(plan.source_ops)
    template = ENV.get_template(_TEMPLATE)
    units = []
    for path in plan.sources:
        library, ops = libraries[path], source_ops[path]
        rows = dtype_rows(s for s in plan.selected_dtypes if s.library == library and s.op in ops)
        with open(find_source(path)) as f:
            checks = signature_checks(plan, path, f.read())
        text = template.render(source=path, library=library, ops="|".join(ops),
                               select_all=plan.select_all, rows=rows, checks=checks)
        named = re.sub(r"^#line .*$", "", text, flags=re.MULTILINE)
        digest = hashlib.sha256(named.encode()).hexdigest()[:DIGEST_CHARS]
        units.append(("%s.%s" % (flat_name(path), digest), text))
    return units


@functools.lru_cache(maxsize=64)
def _units_of(plan_text: str, plan_path: str) -> tuple:
    from codegen.resolve import parse_plan
    return tuple(render_units(parse_plan(plan_text, plan_path)))


def read_units(plan_path: str) -> tuple:
    """The units of a resolved build, from its kernel_plan.yaml."""
    with open(plan_path) as f:
        return _units_of(f.read(), plan_path)


def write_archive(target: str, objects: list, ar: list) -> None:
    """Archives `objects` (in order) into `target`, whole or not at all: `ar` adds to an
    archive that exists, so it writes a fresh one beside it first."""
    tmp = target + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    subprocess.run(ar + ["rcs", tmp] + objects, check=True)
    os.replace(tmp, target)
