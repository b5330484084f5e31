"""What every stage's builder needs: the plan, the configured environment and where
the build goes, plus the helpers that spell command lines and progress lines."""

import glob
import os
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class StageContext:
    plan: object         # stages.BuildPlan
    repo: str            # the checkout's absolute path
    env: object          # the SConstruct's environment (target-independent nodes)
    tenv: object         # the target's environment (targets.configure)
    target: object       # codegen.target.Target, variables substituted
    out: str             # "#build/<target dir>/<variant>": this build's own outputs

    @property
    def target_manifest(self) -> str:
        return "manifests/targets/%s.yaml" % self.plan.target_name

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
        """The object of a checkout source under the shared obj/ tree."""
        return env.Object("%s/%s.o" % (self.objects, os.path.splitext(source)[0]), source)


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
