"""The build's stages as SCons nodes: export -> op info -> resolve -> render -> compile -> check.

plan_build() reads the options and manifests (read only) into a BuildPlan per target;
wire() declares the stages for one plan, each through the builder of its own module
(stage_export, stage_codegen, stage_compile, stage_check), so SCons redoes only what
changed. Python stages run as `python -m <stage>` command lines: the command line is part
of each target's signature, so a changed option rebuilds exactly what it feeds.
"""

import dataclasses
import os
import re
from dataclasses import dataclass

import size_build
import targets
from codegen import build_layout, roots
from codegen.errors import ManifestError
from codegen.profile import profile_name
from codegen.target import kernel_library_order, load_target
from compilation_db import wire_compilation_db
from exporter.manifest import load_manifest  # the one reader of model manifests
from stage_check import wire_checks, wire_generate, wire_llm_checks
from stage_codegen import wire_codegen
from stage_compile import wire_compile
from stage_context import StageContext
from stage_export import wire_export, wire_tokenizers
from stage_outputs import wire_outputs


@dataclass(frozen=True)
class ModelInfo:
    name: str
    manifest: str        # manifests/models/<name>.yaml as SCons names it (roots.scons_path)
    sources: tuple       # the data files its factory reads (manifest `data:`), so edits re-export
    atol: float
    rtol: float
    app_name: str        # a program linked against the runtime (manifest `app:`), or ""
    app_sources: tuple
    app_args: tuple      # what `generate=` passes the app before --prompt
    backend: str = ""    # the manifest's `backend:` ("" = the target's, "none" = no delegate)
    kernel_libraries: tuple = ()  # the model's own kernel manifests, ahead of the target's
    llm_checkpoint: str = ""  # `llm:`: the Hugging Face checkpoint directory (absolute)
    threads: int | None = None  # `threads:`: the build's default kernel threads, or None


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
    lib: str = "none"    # "shared"/"static": also lib/libtailor.so (-fPIC) or .a, with the C API
    launcher: str = ""   # compiler launcher (ccache, ...); "" = the target's, "none" = none
    compiledb: bool = False  # also write ./compile_commands.json (each build writes its own)
    threads: int = 1     # the runner's and apps' kernel threads without --threads (0: all)

    @property
    def root(self) -> str:
        """build_dir as SCons spells it: "#build" (under the repository) or "/abs/dir"."""
        return self.build_dir if os.path.isabs(self.build_dir) else "#" + self.build_dir

    @property
    def target_dir(self) -> str:
        """Objects differ per target, profile, logging and sanitizer: one tree for each."""
        return build_layout.target_dir(self.target_name, profile=self.profile, log=self.log,
                                       trace=self.trace, lib=self.lib, sanitize=self.sanitize)

    @property
    def variant(self) -> str:
        """Names the model set, so several builds live side by side under build/<target>/."""
        return build_layout.variant([m.name for m in self.models], self.programs,
                                    ops=bool(self.ops), libraries=self.libraries,
                                    select_all=self.select == "all")


def _manifest_root(path: str) -> str:
    """The root a model manifest's relative paths (data:, app sources, kernel_libraries:)
    start from: the project or the package it was found in; the project for one named by
    its path elsewhere."""
    for root in (roots.PACKAGE, roots.project_root()):
        if not os.path.relpath(path, root).startswith(os.pardir):
            return root
    return roots.project_root()


def _read_model(name: str) -> ModelInfo:
    """`name` is a manifest in manifests/models/ (the project's, else the package's), or
    the path of a manifest elsewhere (relative to the project)."""
    if name.endswith((".yaml", ".yml")):
        rel, name = name, os.path.splitext(os.path.basename(name))[0]
        path = os.path.join(roots.project_root(), rel)  # an absolute `rel` joins as itself
    elif not re.match(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$", name) or ".." in name:
        # model=../targets/host would read a target manifest as a model.
        raise ManifestError("model=%s: a model is a manifest name in manifests/models/ "
                            "(model=mlp) or the path of a .yaml manifest "
                            "(model=path/to/my_model.yaml)" % name)
    else:
        rel = os.path.join("manifests", "models", name + ".yaml")
        path = roots.find_manifest("models", name) or os.path.join(roots.project_root(), rel)
    if not os.path.exists(path):
        raise ManifestError("model=%s: there is no %s; models: %s"
                            % (name, rel, ", ".join(roots.manifest_names("models")) or "(none)"))
    manifest = load_manifest(path, _manifest_root(path), label=roots.shown(path))
    return ModelInfo(name, roots.scons_path(path), manifest.data_files, manifest.tolerance.atol,
                     manifest.tolerance.rtol, manifest.app_name, manifest.app_sources,
                     manifest.app_args, manifest.backend, manifest.kernel_libraries,
                     manifest.llm_checkpoint, manifest.threads)


def _user_path(path: str) -> str:
    """A path the user gave (programs=, ops=FILE.yaml): relative to the project."""
    return roots.scons_path(os.path.join(roots.project_root(), path))


def _program_paths(option: str) -> tuple:
    """programs=a.pte,b.pte, or programs=@list.txt: a file with one path per line."""
    if option.startswith("@"):
        path = os.path.join(roots.project_root(), option[1:])
        if not os.path.exists(path):
            raise ManifestError("programs=%s: no such file" % option)
        with open(path) as f:
            return tuple(_user_path(line.strip()) for line in f if line.strip())
    return tuple(_user_path(p.strip()) for p in option.split(",") if p.strip())


def plan_build(env) -> list:
    """One BuildPlan per target of the command line (target=host,linux-aarch64: a matrix
    build), each with every model; [] when there is nothing to build."""
    models = tuple(_read_model(m.strip()) for m in env["model"].split(",") if m.strip())
    programs = _program_paths(env["programs"])
    for path in programs:
        if not os.path.exists(os.path.join(roots.PACKAGE, path)):  # (absolute: as itself)
            raise ManifestError("programs=%s: no such file" % roots.shown(path))
    ops = (_user_path(env["ops"]) if env["ops"].endswith((".yaml", ".yml"))
           else env["ops"])
    libraries = tuple(l.strip() for l in env["libraries"].split(",") if l.strip())
    if not models and not programs and not env["ops"] and env["select"] != "all":
        print("Nothing to build: name a model (scons model=mlp) or operators "
              "(scons ops=aten::add.out). scons -h lists the options.")
        return []
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
    plans = []
    for target_name in targets.target_names(env["target"]):
        target = load_target(targets.target_path(target_name))
        profile = profile_name(env["profile"], target)
        plans.append(BuildPlan(target_name, models, programs, libraries, ops,
                               env["select"], env["run"], env["sanitize"], env["verbose"],
                               env["build_dir"], profile, env["log"], env["size"],
                               env["generate"], env["trace"], env["lib"],
                               env["launcher"], env["compiledb"] and not plans,
                               default_threads(target, models)))
    return plans


def default_threads(target, models: tuple) -> int:
    """The kernel threads a build's binaries use without --threads: its models'
    `threads:` (one runner and one app serve every model of the build, so they must
    agree), else its target's, else 1."""
    chosen = {m.threads: m.manifest for m in models if m.threads is not None}
    if len(chosen) > 1:
        (a, first), (b, second) = list(chosen.items())[:2]
        raise ManifestError("%s says threads: %d and %s threads: %d; the build's runner and "
                            "apps have one default: make them agree or build them apart"
                            % (first, a, second, b))
    if chosen:
        return next(iter(chosen))
    return target.threads if target.threads is not None else 1


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


def wire(env, plan: BuildPlan):
    """Declares every stage for `plan`; returns the nodes `scons` builds by default."""
    repo = env.Dir("#").abspath
    tenv, target = targets.configure(env, repo, plan.target_name, plan.sanitize, plan.verbose,
                                     plan.profile, plan.log, plan.build_dir, plan.trace,
                                     pic=plan.lib == "shared", launcher=plan.launcher)
    ctx = StageContext(plan, repo, env, tenv, target,
                       "%s/%s/%s" % (plan.root, plan.target_dir, plan.variant))
    model_libraries = tuple(dict.fromkeys(lib for m in plan.models for lib in m.kernel_libraries))
    library_names, chosen_libraries = kernel_library_order(
        target, plan.libraries or tenv["TL_KERNEL_LIBRARIES"], model_libraries)
    libraries = [target.library_path(lib) for lib in library_names]

    programs = wire_export(ctx, library_names, _stale_imports)
    selection = wire_codegen(ctx, programs, libraries, chosen_libraries)
    compiled = wire_compile(ctx, selection)
    checks = wire_checks(ctx, compiled.runner, programs)
    tokenizers = wire_tokenizers(ctx, programs)
    checks += wire_llm_checks(ctx, compiled.apps, programs, tokenizers, checks)
    defaults = (compiled.defaults + [index for _, _, index in programs] + tokenizers
                + checks + wire_outputs(ctx, compiled, selection, programs))
    if plan.generate:
        defaults += wire_generate(ctx, compiled.apps, programs, checks + tokenizers)
    defaults += wire_compilation_db(ctx, compiled.objects, selection, plan.compiledb)

    # Size: the size apps and the report, beside the same build with select=all.
    if plan.size:
        contrast = None
        if plan.select != "all":
            all_plan = dataclasses.replace(plan, select="all", run=False, compiledb=False)
            defaults += wire(env, all_plan)
            contrast = "%s/%s/%s" % (plan.root, plan.target_dir, all_plan.variant)
        defaults += size_build.wire_size(tenv, compiled.genv, plan, ctx.out, ctx.objects,
                                         compiled.gen_objs, compiled.link_objs,
                                         compiled.runtime_lib, compiled.runner,
                                         selection.plan_yaml, contrast)
    return defaults
