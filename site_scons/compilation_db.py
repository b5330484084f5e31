"""<build>/compile_commands.json: how each object of one build compiles, for clangd and
other tools (--compile-commands-dir=build/host/mlp), in the build directory it describes.

The commands are the build's own, less the compiler launcher (ccache, ...) and the
temporary output name the build writes first (targets._write_to_tmp).
"""

import json
import os

from codegen import roots
from program.atomic import write_text_atomic
from SCons.Script import Action, Scanner
from stage_compile import declare_kernel_units


def compile_entries(repo: str, objects: list) -> list:
    entries = []
    for obj in objects:
        env, source = obj.get_build_env(), obj.sources[0]
        # Every object compiles with CXXCOM: lib=shared adds -fPIC to it.
        command = env.Override({"TL_LAUNCHER": ""}).subst("$CXXCOM", target=[obj],
                                                          source=[source])
        entries.append({"directory": repo, "file": source.srcnode().path, "output": obj.path,
                        "command": command.replace(obj.path + ".tmp", obj.path).strip()})
    return sorted(entries, key=lambda e: e["output"])


_UNIT_ENTRIES: dict = {}  # kernel_plan.yaml path -> its units' entries


def _scan_units(node, env, path) -> list:
    """Declares the plan's kernel units (in SCons's main thread) and keeps their entries;
    no dependency: the database need not wait for them to compile."""
    objects = declare_kernel_units(node)
    if objects:
        _UNIT_ENTRIES[node.abspath] = compile_entries(env.Dir("#").abspath, objects)
    return []


def write_database(target, source, env):
    """The Value's entries and the kernel units' -> the target, whole or not at all."""
    entries = json.loads(source[0].read()) + _UNIT_ENTRIES.get(source[1].abspath, [])
    write_text_atomic(str(target[0]), json.dumps(sorted(entries, key=lambda e: e["output"]),
                                                 indent=1) + "\n")
    return 0


def wire_compilation_db(ctx, objects: list, selection, also_at_root: bool = False) -> list:
    """The database of `objects` and of the kernel units the resolved `selection` takes,
    in the build directory (and ./compile_commands.json for editors that look only there,
    with compiledb=1)."""
    text = json.dumps(compile_entries(ctx.repo, objects))
    paths = ["%s/compile_commands.json" % ctx.out] + (
        [os.path.join(roots.project_root(), "compile_commands.json")] if also_at_root else [])
    nodes = []
    for path in paths:
        node = ctx.tenv.Command(path, [ctx.tenv.Value(text), selection.plan_yaml],
                                Action(write_database, ctx.label("writing $TARGET")),
                                source_scanner=Scanner(_scan_units, name="kernel-unit-entries"))
        # A unit's name comes from the plan and its template.
        ctx.tenv.Depends(node, "templates/kernel_unit.cpp.j2")
        ctx.tenv.NoCache(node)
        nodes += node
    return nodes
