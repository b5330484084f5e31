"""`scons ... size=1`: the size apps of a build and its size report, as SCons nodes.

Per variant: bin/size_app (tests/size/app/size_app.cpp: load a program, run "forward";
the runtime as an application ships it) linked with the variant's kernels, and
size_report.{md,json,png} written by site_scons/size_report.py from the link maps and
ELF symbols of size_app, the runner, the kernel-less core app (one per target
configuration, build/<target>/core/bin/size_core) and, for contrast, the select=all
build's size_app.
"""

import sys

from SCons.Script import Action

from codegen import build_layout

APP_SOURCE = "tests/size/app/size_app.cpp"
EMPTY_TABLE_SOURCE = "tests/size/app/empty_kernel_table.cpp"
REPORT_SCRIPT = "site_scons/size_report.py"


def wire_size(tenv, genv, plan, out, objects, gen_objs, link_objs, runtime_lib, runner,
              plan_yaml, contrast):
    """Declares size_app, size_core and the report for one variant; returns the report.

    `contrast` is the select=all variant's directory ("#build/...") or None.
    """
    schema = "%s/schema/program_generated.h" % plan.root
    app_obj = tenv.Object("%s/tests/size/app/size_app.o" % objects, APP_SOURCE)
    empty_obj = tenv.Object("%s/tests/size/app/empty_kernel_table.o" % objects,
                            EMPTY_TABLE_SOURCE)
    tenv.Depends(app_obj + empty_obj, schema)
    size_app = genv.Program(build_layout.size_app(out), app_obj + gen_objs + link_objs
                            + [runtime_lib])
    size_core = tenv.Program(build_layout.size_core("%s/%s" % (plan.root, plan.target_dir)),
                             app_obj + empty_obj + link_objs + [runtime_lib])

    sources = [size_app[0], size_core[0], runner[0], plan_yaml]
    command = ('"%s" %s ${SOURCES[0]} --core ${SOURCES[1]} --runner ${SOURCES[2]}'
               " --plan ${SOURCES[3]}" % (sys.executable, REPORT_SCRIPT))
    if contrast:
        sources += [tenv.File(build_layout.size_app(contrast)),
                    tenv.File(build_layout.kernel_plan(contrast))]
        command += " --contrast ${SOURCES[4]} --contrast-plan ${SOURCES[5]}"
    command += " --title %s/%s --out ${TARGETS[0].base}" % (plan.target_dir, plan.variant)
    label = None if plan.verbose else "[%s] size report -> ${TARGETS[0]}" % plan.target_name
    report = tenv.Command(["%s/size_report.%s" % (out, ext) for ext in ("md", "json", "png")],
                          sources, Action(command, label))
    tenv.Depends(report, [REPORT_SCRIPT])
    # The report reads each binary's link map beside it.
    tenv.Depends(report, [str(node) + ".map" for node in sources if str(node).endswith(
        ("size_app", "size_core", "runner"))])
    return [size_app, size_core, report]
