"""What every stage's builder needs: the plan, the configured environment and where
the build goes, plus the helpers that spell command lines and progress lines."""

import glob
import os
import sys
from dataclasses import dataclass

from codegen import roots


@dataclass(frozen=True)
class StageContext:
    plan: object         # stages.BuildPlan
    repo: str            # the package root's absolute path (codegen/roots.py)
    env: object          # the SConstruct's environment (target-independent nodes)
    tenv: object         # the target's environment (targets.configure)
    target: object       # codegen.target.Target, variables substituted
    out: str             # "#build/<target dir>/<variant>": this build's own outputs

    @property
    def target_manifest(self) -> str:
        return self.target.path  # the project's or the package's (targets.target_path)

    @property
    def objects(self) -> str:
        """Objects every variant of the target configuration shares."""
        return "%s/%s/obj" % (self.plan.root, self.plan.target_dir)

    def label(self, text: str):
        """A progress line naming the target and the model set: several run at once in
        a matrix build (target=host,linux-aarch64)."""
        if self.plan.verbose:
            return None
        return "[%s %s] %s" % (self.plan.target_name, self.plan.variant, text)

    def sources(self, pattern: str) -> list:
        return sources(self.repo, pattern)

    def object_of(self, env, source: str):
        """The object of a package source (relative) or a project source (absolute: an
        app of the project's manifest) under the shared obj/ tree."""
        stem = os.path.splitext(source)[0]
        if os.path.isabs(source):
            stem = os.path.join("project", os.path.relpath(stem, roots.project_root()))
        return env.Object("%s/%s.o" % (self.objects, stem), source)


def sources(repo: str, pattern: str) -> list:
    """The checkout's files matching `pattern`, relative to it and sorted."""
    return sorted(os.path.relpath(p, repo) for p in glob.glob(os.path.join(repo, pattern),
                                                               recursive=True))


def python_module(module: str) -> str:
    """`python -m module`, through the venv's real directory: checkouts that share one
    venv through a symlink spell the command alike, so their outputs share a cache."""
    python = os.path.join(os.path.realpath(os.path.dirname(sys.executable)),
                          os.path.basename(sys.executable))
    return '"%s" -m %s' % (python, module)
