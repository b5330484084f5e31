"""Compile and link stages: the runtime core once per target configuration (shared by
every model set), the variant's glue and its kernel units (kernel_units.py: an object per
kernel source, shared too, archived into the variant's obj/kernels.a), then bin/runner,
the models' apps and (lib=shared) lib/libtailor.so or (lib=static) lib/libtailor.a with
the files an application's build finds them by (stage_install.py)."""

import os
import shlex
from dataclasses import dataclass

from SCons.Script import Action, Scanner

from codegen import build_layout, roots
from codegen.errors import ManifestError
from program.atomic import write_text_atomic
from program.flatc import flatc

import kernel_units
import sysroot
from stage_codegen import write_value
from stage_install import wire_prefix


@dataclass(frozen=True)
class Compiled:
    runner: object       # bin/runner (its node list)
    apps: list           # [(model, app node)] for the models with an `app:`
    defaults: list       # what `scons` builds: runner, apps, shared library
    genv: object         # the environment that compiles generated code
    gen_objs: list       # glue and the kernel archive
    link_objs: list      # the profile's link sources
    runtime_lib: object  # lib/tailor_runtime.a
    objects: list        # every object the build's programs link but the kernel units'
                         # (compile_commands.json: declare_kernel_units gives those)
    fuzzer: object = None  # sanitize=fuzzer: bin/fuzz_program (its node list)


def _announce(ctx, what: str, node) -> list:
    """An alias that says where `node` is ("<what>: <path>") on every build, up to date
    or not: it is what the user came for (scripts read outputs.json instead)."""
    def say(target, source, env):
        print("%s: %s" % (what, roots.shown(str(source[0]))))
        return 0
    # One alias per build directory: a matrix build would merge same-named ones.
    alias = ctx.tenv.Alias("%s-path-%s" % (what.replace(" ", "-"), ctx.out), node,
                           Action(say, None))
    ctx.tenv.AlwaysBuild(alias)
    return alias


def _runtime_sources(ctx) -> list:
    """The runtime's sources; the event tracer's only when asked for, so the default
    runtime is byte for byte what it is without the tracer."""
    return [src for src in ctx.sources("runtime/**/*.cpp")
            if ctx.plan.trace or not src.startswith(os.path.join("runtime", "trace") + os.sep)]


def wire_schema_headers(ctx, backends) -> list:
    """program_generated.h and the backends' schema headers, once per build directory."""
    headers = []
    for schema in ["schema/program.fbs"] + sorted({s for b in backends for s in b.schemas}):
        headers += ctx.env.Command(
            "%s/schema/%s_generated.h" % (ctx.plan.root,
                                           os.path.splitext(os.path.basename(schema))[0]),
            schema,
            Action('"%s" --cpp -o ${TARGET.dir} $SOURCE'
                   % flatc(),
                   None if ctx.plan.verbose else "[schema] flatc $SOURCE"))
    ctx.tenv.Append(CPPPATH=["%s/schema" % ctx.plan.root])
    return headers


def _sysroot_stamp(ctx):
    """The target's private sysroot (sysroot_debs), unpacked once; None without one."""
    if not ctx.target.sysroot_debs:
        return None
    return ctx.tenv.Command(
        "%s/sysroots/%s/.debs" % (ctx.plan.root, ctx.plan.target_name),
        ctx.tenv.Value(" ".join(ctx.target.sysroot_debs)),
        Action(sysroot.unpack_debs, ctx.label("unpacking %s into its sysroot"
                                              % ", ".join(ctx.target.sysroot_debs))))


def _checkout_objects(ctx, sources: list, schema_headers, plan_yaml) -> list:
    """Objects of checkout sources that include the generated schema headers. Order
    only on the kernel plan: a missing kernel must stop the build before anything
    compiles."""
    objs = [obj for src in sources for obj in ctx.object_of(ctx.tenv, src)]
    ctx.tenv.Depends(objs, schema_headers)
    ctx.tenv.Requires(objs, plan_yaml)
    return objs


class _KernelUnits:
    """Declares the units of one build's kernel plan as SCons nodes: their text
    (gen/kernels/<unit>.cpp) and object (obj/kernels/<unit>.o) in the target directory,
    where every model set of the target configuration finds them. Only scanners declare,
    in SCons's main thread; actions read what the last one declared."""

    def __init__(self, ctx, plan_yaml):
        self.tenv, self.plan_node, self.plan = ctx.tenv, plan_yaml, plan_yaml.abspath
        self.config_dir = "%s/%s" % (ctx.plan.root, ctx.plan.target_dir)
        self.objects, self.error = [], None

    def declare(self) -> list:
        """The objects of the plan's units, or [] while it cannot be read: SCons may scan
        before the plan is resolved, and scans again once it is rebuilt."""
        try:
            units = kernel_units.read_units(self.plan)
        except Exception as e:  # missing, or an older build's naming a removed source
            self.objects, self.error = [], e
            return []
        nodes = []
        for name, text in units:
            path = self.tenv.File(build_layout.kernel_unit_object(self.config_dir, name)).abspath
            plans = _UNIT_PLANS.setdefault(path, [])
            if self.plan not in plans:
                plans.append(self.plan)
            if path not in _UNIT_OBJECTS:
                unit = self.tenv.Command(build_layout.kernel_unit_source(self.config_dir, name),
                                         self.tenv.Value(text),
                                         Action(_unit_writer(name, plans), None))
                # Written once the plan is: a plan about to be rebuilt may name units it
                # will not have (see _unit_writer).
                self.tenv.Requires(unit, self.plan_node)
                _UNIT_OBJECTS[path] = self.tenv.Object(path, unit)[0]
            nodes.append(_UNIT_OBJECTS[path])
        self.objects, self.error = nodes, None
        return nodes


def _unit_writer(name: str, plans: list):
    """The action writing unit `name`: its text, or, when no plan that declared it has it
    any more, a unit with no code. SCons scans the archive before its plan is rebuilt and
    again after; a unit the stale plan named (its kernel's signature since changed, say)
    is then no dependency of anything, but a parallel build may have started it already,
    and compiling its old text would fail the build."""
    def write(target, source, env):
        if any(name in (n for n, _ in kernel_units.read_units(p)) for p in plans
               if os.path.exists(p)):
            return write_value(target, source, env)
        write_text_atomic(str(target[0]), "// %s: of an earlier kernel plan, unused.\n" % name)
        return 0
    return write


# Declared once per SCons run, by the first build that selects a unit: a matrix or
# size=1 build wires several builds into one target directory.
_UNIT_OBJECTS: dict = {}   # object path -> node
_UNIT_PLANS: dict = {}     # object path -> the kernel plans that declared it
_BUILDS: dict = {}         # kernel_plan.yaml path -> _KernelUnits


def declare_kernel_units(plan_yaml) -> list:
    """For a scanner of a node whose source is a build's kernel plan: declares the
    plan's units and returns their objects ([] for any other node)."""
    units = _BUILDS.get(getattr(plan_yaml, "abspath", None))  # (a Value has no path)
    return units.declare() if units is not None else []


def _scan_units(node, env, path) -> list:
    """The archive's scanner: the units are its dependencies, so SCons compiles them,
    as many at once as it runs jobs, before it archives them."""
    return declare_kernel_units(node)


def _archive_units(target, source, env):
    # $SOURCES holds no scanned dependency: the units come from the scan.
    units = _BUILDS[source[0].abspath]
    if units.error is not None:
        print("error: cannot read the kernel units of %s: %s"
              % (roots.shown(units.plan), units.error))
        return 1
    kernel_units.write_archive(str(target[0]), [o.abspath for o in units.objects],
                               shlex.split(env.subst("$AR")))
    return 0


def _kernel_archive(ctx, selection):
    """<variant>/obj/kernels.a: the objects of the kernel sources the plan takes. They are
    known only once the kernels resolve, and SCons declares its nodes before it builds:
    the archive's source scanner reads the resolved plan and declares them."""
    _BUILDS[selection.plan_yaml.abspath] = _KernelUnits(ctx, selection.plan_yaml)
    archive = ctx.tenv.Command(
        "%s/obj/%s" % (ctx.out, kernel_units.ARCHIVE), selection.plan_yaml,
        Action(_archive_units, ctx.label("archiving the kernels -> $TARGET"), varlist=["AR"]),
        source_scanner=Scanner(_scan_units, name="kernel-units"))
    return archive[0]


def _shared_library(ctx, objs: list, c_api_objs: list) -> list:
    """lib/libtailor.so: the runtime, the selected kernels and the C API (c_api/tailor.h),
    exporting only the C API's functions. The C API lives outside runtime/ because its
    log sink replaces the platform's: no other program may link it. Its soname lets an
    application's link record libtailor.so, not the path it was linked from."""
    tenv = ctx.tenv
    exports = "c_api/exports.map"
    lib = tenv.SharedLibrary("%s/lib/tailor" % ctx.out, c_api_objs + objs,
                             SHLINKFLAGS=["$LINKFLAGS", "-shared", "-Wl,-soname,libtailor.so",
                                          "-Wl,--version-script=%s" % exports])
    tenv.Depends(lib, exports)
    return [lib, _announce(ctx, "shared library", lib)] + wire_prefix(ctx, lib)


def _static_library(ctx, objs: list, c_api_objs: list) -> list:
    """lib/libtailor.a: what libtailor.so holds, as one relocatable object (ld -r) in an
    archive. As separate members, the platform's weak log sink (default/posix.o, pulled
    in for its other functions) would keep the linker from taking the C API's."""
    tenv = ctx.tenv
    whole = tenv.Command("%s/obj/libtailor.o" % ctx.out, c_api_objs + objs,
                         Action("$CXX $CXXFLAGS -r -nostdlib -o $TARGET $SOURCES",
                                ctx.label("prelinking $TARGET")))
    lib = tenv.StaticLibrary("%s/lib/tailor" % ctx.out, whole)
    return [lib, _announce(ctx, "static library", lib)] + wire_prefix(ctx, lib)


def _build_defaults(ctx, genv):
    """gen/build_defaults.cpp: runner/build_defaults.h's values for this build (a file of
    its own, so a manifest's `threads:` recompiles one object, not the runner's)."""
    text = ("// Generated by site_scons/stage_compile.py from the build's manifests.\n"
            "#include \"runner/build_defaults.h\"\n\n"
            "int tailor::build_default_threads() { return %d; }\n" % ctx.plan.threads)
    return genv.Textfile("%s/gen/build_defaults.cpp" % ctx.out, [text])[0]


def wire_compile(ctx, selection) -> Compiled:
    plan, tenv = ctx.plan, ctx.tenv
    schema_headers = wire_schema_headers(ctx, selection.backends)
    # The profile's link sources go into every program as objects, not into the library.
    link_sources = tenv["TL_LINK_SOURCES"]
    link_objs = [obj for src in link_sources for obj in ctx.object_of(tenv, src)]
    # The backends' sources go into the runtime library: only the generated backend
    # table references them, so a runtime links the backends its target lists.
    runtime_sources = _runtime_sources(ctx) + [src for b in selection.backends
                                               for src in b.sources]
    runtime_objs = _checkout_objects(ctx, [src for src in runtime_sources
                                           if src not in link_sources],
                                     schema_headers, selection.plan_yaml)
    stamp = _sysroot_stamp(ctx)
    if stamp is not None:  # headers and libraries from the private sysroot
        tenv.Requires(runtime_objs, stamp)
        tenv.Depends(runtime_objs, stamp)
    runtime_lib = tenv.StaticLibrary("%s/%s/lib/tailor_runtime" % (plan.root, plan.target_dir),
                                     runtime_objs)
    runner_objs = _checkout_objects(
        ctx, ctx.sources("runner/*.cpp") + (ctx.sources("runner/trace/*.cpp")
                                            if plan.trace else []),
        schema_headers, selection.plan_yaml)

    genv = tenv.Clone()
    genv.Prepend(CPPPATH=["%s/gen" % ctx.out])
    glue_objs = [obj for node in list(selection.sources) + [_build_defaults(ctx, genv)]
                 for obj in genv.Object("%s/obj/%s.o" % (ctx.out, os.path.splitext(node.name)[0]),
                                        node)]
    # Nothing compiles before the kernels resolve: a missing kernel stops the build first.
    genv.Requires(glue_objs, selection.plan_yaml)
    # The kernel table (register_kernels.o) comes first: it names the kernels the
    # linker takes from the archive.
    gen_objs = glue_objs + [_kernel_archive(ctx, selection)]
    objects = runtime_objs + runner_objs + glue_objs + link_objs
    runner = genv.Program(build_layout.runner(ctx.out),
                          runner_objs + gen_objs + link_objs + [runtime_lib])
    if stamp is not None:
        tenv.Depends(runner, stamp)
    defaults, fuzzer = [runner], None
    if plan.sanitize == "fuzzer":  # libFuzzer's main instead of the runner's
        fuzz_objs = _checkout_objects(ctx, ["fuzz/fuzz_program.cpp"], schema_headers,
                                      selection.plan_yaml)
        fuzzer = genv.Program(build_layout.fuzzer(ctx.out),
                              fuzz_objs + gen_objs + link_objs + [runtime_lib],
                              LINKFLAGS=genv["FUZZER_LINKFLAGS"])
        defaults += [fuzzer, _announce(ctx, "fuzzer", fuzzer[0])]
        objects += fuzz_objs
    if plan.lib in ("shared", "static"):
        c_api_objs = _checkout_objects(ctx, ctx.sources("c_api/*.cpp"), schema_headers,
                                       selection.plan_yaml)
        library = _shared_library if plan.lib == "shared" else _static_library
        defaults += library(ctx, runtime_objs + gen_objs + link_objs, c_api_objs)
        objects += c_api_objs
    apps, by_name = [], {}
    for model in plan.models:
        if not model.app_name:
            continue
        # Models naming the same app (every `llm:` model: llm) share one binary.
        if model.app_name not in by_name:
            app_objs = _checkout_objects(ctx, list(model.app_sources), schema_headers,
                                         selection.plan_yaml)
            app = genv.Program(build_layout.app(ctx.out, model.app_name),
                               app_objs + gen_objs + link_objs + [runtime_lib])
            defaults.append(app)
            objects += app_objs
            by_name[model.app_name] = (model, app[0])
        first, app = by_name[model.app_name]
        if first.app_sources != model.app_sources:
            raise ManifestError("%s and %s both name app '%s' with different sources; "
                                "rename one of them" % (first.manifest, model.manifest,
                                                        model.app_name))
        apps.append((model, app))
    return Compiled(runner, apps, defaults, genv, gen_objs, link_objs, runtime_lib,
                    list(dict.fromkeys(objects)), fuzzer)
