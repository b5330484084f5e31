"""The kernel units: one generated translation unit per selected kernel source, each
compiled to an object of its own and archived into the build's obj/kernels.a.

A unit (templates/kernel_unit.cpp.j2) #defines its source's library, path and the ops its
manifest gives it, and the dtype rows the resolver chose that library's kernels of those
ops for (runtime/kernel/dtype_selection.h); then it #includes the source and checks its
kernels' signatures (codegen/signature_checks). It reads nothing else of the build, so its
name is its source's path and a digest of its text:
  <target dir>/gen/kernels/kernels.portable.op_add.<digest>.cpp -> obj/kernels/....o
Every build of one target configuration that selects a source alike (another model set,
another build directory through the shared cache) compiles it once, and a model that
gains an operator compiles only that operator's kernel.

The linker takes a member of kernels.a when the generated kernel table names one of its
kernels, which it does for every unit of the build. stage_compile.py declares the units.
"""

import functools
import hashlib
import json
import os
import re
import subprocess

import jinja2

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


@functools.lru_cache(maxsize=None)
def _template(repo: str) -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(repo, "templates")),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    env.filters["c_string"] = json.dumps  # library names are ASCII: a valid C literal
    return env.get_template(_TEMPLATE)


def render_units(plan, kernel_files: list, repo: str) -> list[tuple[str, str]]:
    """[(unit name, unit text)], one per kernel source of `kernel_files`."""
    # Imported here: size_report.py runs as a script without the repository on sys.path.
    from codegen.roots import find_source
    from codegen.signature_checks import signature_checks

    libraries = source_libraries(plan)
    source_ops = dict(plan.source_ops)
    units = []
    for path in kernel_files:
        library, ops = libraries[path], source_ops[path]
        rows = [s for s in plan.selected_dtypes if s.library == library and s.op in ops]
        with open(find_source(path)) as f:
            checks = signature_checks(plan, path, f.read())
        text = _template(repo).render(source=path, library=library, ops="|".join(ops),
                                      select_all=plan.select_all, rows=rows, checks=checks)
        digest = hashlib.sha256(text.encode()).hexdigest()[:DIGEST_CHARS]
        units.append(("%s.%s" % (flat_name(path), digest), text))
    return units


@functools.lru_cache(maxsize=64)
def _units_of(sources_text: str, plan_text: str, plan_path: str, repo: str) -> tuple:
    from codegen.resolve import parse_plan
    kernel_files = [line.strip() for line in sources_text.splitlines() if line.strip()]
    return tuple(render_units(parse_plan(plan_text, plan_path), kernel_files, repo))


def read_units(sources_path: str, plan_path: str, repo: str) -> tuple:
    """The units of a resolved build: its kernel_sources.txt and kernel_plan.yaml."""
    with open(sources_path) as f:
        sources_text = f.read()
    with open(plan_path) as f:
        plan_text = f.read()
    return _units_of(sources_text, plan_text, plan_path, repo)


def write_archive(target: str, objects: list, ar: list) -> None:
    """Archives `objects` (in order) into `target`, whole or not at all: `ar` adds to an
    archive that exists, so it writes a fresh one beside it first."""
    tmp = target + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    subprocess.run(ar + ["rcs", tmp] + objects, check=True)
    os.replace(tmp, target)
