"""The kernel shards: gen/kernels_<i>.cpp, each #including a share of the selected kernel
sources, each between #defines of its library, its path and the ops its manifest gives
it, and their #undefs (the dtype masks are per chosen kernel, read only by that source,
for those ops: runtime/kernel/dtype_selection.h), then checking their kernels'
signatures (codegen/signature_checks).

Which kernel files a runtime needs is known only after resolution, but SCons declares
its targets up front, so the number of shards cannot follow the number of kernels. It
follows the job count instead (scons -jN: N shards, at most MAX_SHARDS): one shard per
compiler the build runs at once compiles the kernels in parallel without paying the
runtime headers' parse more often than the parallelism repays. A build with another -j
renders other shards, and compiles (or fetches from a cache) their objects again.
"""

import json
import os
import re

import jinja2

from program.atomic import write_text_atomic

MAX_SHARDS = 16  # beyond this, shards hold a kernel or two and header parsing dominates
_TEMPLATE = "kernel_shard.cpp.j2"


def shard_count(jobs: int) -> int:
    return max(1, min(jobs, MAX_SHARDS))


def shard_stem(index: int) -> str:
    """The name shard `index` has in gen/ (as .cpp) and obj/ (as .o)."""
    return "kernels_%d" % index


def is_shard_object(path: str) -> bool:
    """Whether a link map's input object is a kernel shard (<variant>/obj/kernels_<i>.o)."""
    return re.search(r"(^|/)kernels_\d+\.o$", path.replace("\\", "/")) is not None


def _template(repo: str) -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(repo, "templates")),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    env.filters["c_string"] = json.dumps  # library names are ASCII: a valid C literal
    return env.get_template(_TEMPLATE)


def source_libraries(plan) -> dict[str, str]:
    """{kernel source: the library whose kernels it defines} (one library per source:
    codegen/resolve.py's check_kernel_sources)."""
    libraries: dict[str, str] = {}
    for k in plan.kernels:
        libraries.setdefault(k.source, k.library)
    return libraries


def write_kernel_shards(target, source, env):
    """SCons action: kernel_sources.txt + kernel_plan.yaml -> the shards in `target`."""
    # Imported here: size_report.py runs as a script without the repository on sys.path.
    from codegen.resolve import parse_plan
    from codegen.roots import find_source
    from codegen.signature_checks import signature_checks

    with open(str(source[0])) as f:
        kernel_files = [line.strip() for line in f if line.strip()]
    with open(str(source[1])) as f:
        plan = parse_plan(f.read(), str(source[1]))
    repo = env.Dir("#").abspath
    template = _template(repo)
    libraries = source_libraries(plan)
    ops = dict(plan.source_ops)
    for index, node in enumerate(target):
        sources = []
        for path in kernel_files[index::len(target)]:
            with open(find_source(path)) as f:
                sources.append({"path": path, "library": libraries[path],
                                "ops": "|".join(ops[path]),
                                "checks": signature_checks(plan, path, f.read())})
        write_text_atomic(str(node), template.render(index=index, count=len(target),
                                                     sources=sources))
    return 0
