"""Codegen stages: op info (selected_ops.yaml) -> kernel plan (kernel_plan.yaml, and the
kernel sources it takes: kernel_sources.txt; stage_compile.py compiles a unit of each) ->
glue (gen/register_kernels.cpp, functions.h, selected_dtypes.h, register_backends.cpp)."""

import os
from dataclasses import dataclass

from SCons.Script import Action

from codegen import build_layout
from codegen.backends import plan_backends
from program.atomic import write_text_atomic
from stage_context import python_module


@dataclass(frozen=True)
class Selection:
    plan_yaml: object    # kernel_plan.yaml: compiling waits for it (a missing kernel stops
                         # the build before anything compiles)
    sources: list        # the glue the variant compiles besides the runtime
    backends: tuple      # codegen.backends.Backend of the target, with their sources


def write_value(target, source, env):
    """Writes the Value node's text to the target file."""
    write_text_atomic(str(target[0]), source[0].read() + "\n")
    return 0


def _codegen_sources(ctx) -> list:
    return ctx.sources("codegen/*.py") + ctx.sources("program/*.py") + ["schema/aten_ops.yaml"]


def wire_oplist(ctx, programs: list, libraries: list):
    """Every operator, dtype and dim order the models use (plus ops=) -> selected_ops.yaml."""
    plan, tenv = ctx.plan, ctx.tenv
    # Paths through ${SOURCES[i]}: a literal build path in a command would keep other
    # build directories from sharing the output through a cache (build_cache.py).
    args = " ".join("--model %s=${SOURCES[%d]}" % (model.name, i)
                    for i, (model, _, _) in enumerate(programs))
    extra_programs = [tenv.File(path if os.path.isabs(path) else "#" + path)
                      for path in plan.programs]
    if extra_programs:  # listed in a file: thousands of paths overflow a command line
        program_list = tenv.Command(
            "%s/programs.txt" % ctx.out, tenv.Value("\n".join(n.path for n in extra_programs)),
            Action(write_value, None))
        args += " --program-list ${SOURCES[%d]}" % (len(programs) + len(extra_programs))
        extra_programs.append(program_list[0])
    if plan.ops:
        flag = "--ops-yaml" if plan.ops.endswith((".yaml", ".yml")) else "--ops"
        args += " %s %s" % (flag, plan.ops)
    if plan.select == "all":
        args += " --all"
    oplist = tenv.Command(
        "%s/selected_ops.yaml" % ctx.out,
        [pte for _, pte, _ in programs] + extra_programs + libraries,
        Action(python_module("codegen.oplist") + " %s %s --target %s --out $TARGET"
               % (args, " ".join("--libraries " + lib for lib in libraries),
                  ctx.target_manifest),
               ctx.label("listing operators -> $TARGET")))
    tenv.Depends(oplist, _codegen_sources(ctx))
    return oplist[0]


def wire_resolve(ctx, oplist, libraries: list, chosen_libraries: tuple):
    """One kernel per (op, dtypes), or one clear error before compiling."""
    plan_yaml, _ = ctx.tenv.Command(
        [build_layout.kernel_plan(ctx.out), "%s/kernel_sources.txt" % ctx.out],
        [oplist, ctx.target_manifest] + libraries,
        Action(python_module("codegen.resolve") + " --oplist ${SOURCES[0]} --target "
               "${SOURCES[1]} --out ${TARGETS[0]}"
               + (" --select all" if ctx.plan.select == "all" else "")
               + (" --libraries " + ",".join(chosen_libraries) if chosen_libraries else ""),
               ctx.label("resolving kernels -> ${TARGETS[0]}")))
    ctx.tenv.Depends(plan_yaml, _codegen_sources(ctx))
    return plan_yaml


def wire_backend_plan(ctx):
    """The target's delegate backends (backends/<name>/backend.yaml) -> backend_plan.yaml."""
    backends = plan_backends(ctx.target.backends, ctx.target.path, ctx.repo)
    backend_plan = ctx.tenv.Command(
        "%s/backend_plan.yaml" % ctx.out,
        [ctx.target_manifest]
        + ["backends/%s/backend.yaml" % b.name for b in backends.backends],
        Action(python_module("codegen.backends") + " --target ${SOURCES[0]} --out $TARGET",
               ctx.label("listing backends -> $TARGET")))
    ctx.tenv.Depends(backend_plan, _codegen_sources(ctx))
    return backend_plan[0], backends.backends


def wire_render(ctx, plan_yaml, backend_plan) -> list:
    """The glue: the kernel and backend tables, the kernels' declarations and dtypes."""
    tenv = ctx.tenv
    gen = "%s/gen" % ctx.out
    glue = tenv.Command(
        ["%s/register_kernels.cpp" % gen, "%s/functions.h" % gen,
         "%s/selected_dtypes.h" % gen, "%s/register_backends.cpp" % gen],
        [plan_yaml, backend_plan],
        Action(python_module("codegen.render") + " --plan ${SOURCES[0]} --backend-plan "
               "${SOURCES[1]} --out-dir ${TARGET.dir}",
               ctx.label("generating glue -> %s" % tenv.Dir(gen).path)))
    tenv.Depends(glue, _codegen_sources(ctx) + ctx.sources("templates/*.j2"))
    return [glue[0], glue[3]]


def wire_codegen(ctx, programs: list, libraries: list, chosen_libraries: tuple) -> Selection:
    oplist = wire_oplist(ctx, programs, libraries)
    plan_yaml = wire_resolve(ctx, oplist, libraries, chosen_libraries)
    backend_plan, backends = wire_backend_plan(ctx)
    return Selection(plan_yaml, wire_render(ctx, plan_yaml, backend_plan), backends)
