"""<build>/outputs.json: what one build made, relative to its directory, for scripts
outside SCons (codegen/build_layout.py says where that directory is):

    {"runner": "bin/runner", "kernel_plan": "kernel_plan.yaml",
     "programs": {"mlp": "mlp.pte"}, "apps": {"mlp": "bin/llm"},
     "library": "lib/libtailor.so",      # lib=shared or lib=static only
     "fuzzer": "bin/fuzz_program"}       # sanitize=fuzzer only

codegen/build_layout.outputs() reads it.
"""

import json
import os

from SCons.Script import Action

from codegen import build_layout
from program.atomic import write_text_atomic


def _write(target, source, env):
    write_text_atomic(str(target[0]), source[0].get_contents().decode())
    return 0


def wire_outputs(ctx, compiled, selection, programs) -> list:
    out = ctx.tenv.Dir(ctx.out).abspath

    def relative(node) -> str:
        return os.path.relpath(node.abspath, out)

    record = {"runner": relative(compiled.runner[0]),
              "kernel_plan": relative(selection.plan_yaml),
              "programs": {model.name: relative(pte) for model, pte, _ in programs},
              "apps": {model.name: relative(app) for model, app in compiled.apps}}
    if ctx.plan.lib in ("shared", "static"):
        record["library"] = build_layout.library("", ctx.plan.lib)
    if compiled.fuzzer is not None:
        record["fuzzer"] = relative(compiled.fuzzer[0])
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    return ctx.tenv.Command("%s/%s" % (ctx.out, build_layout.OUTPUTS), ctx.tenv.Value(text),
                            Action(_write, None))
