"""Build profiles (manifests/profiles/<name>.yaml) -> Profile: flags layered on a target.

A profile says how to build (for size, say), a target what to build for. Its flags are
appended after the target's (the last -O wins), its link_sources are linked into every
program as objects, and its kernel_libraries (if any) replace the target's (the size
profile keeps to the portable kernels: the optimized ones trade bytes for speed). A
target names its default profile with `profile: <name>`; `scons profile=<name>` (and
`tailor.export(profile=)`) overrides it and `profile=none` builds with the target's flags
only.

CLI: python -m codegen.profile PROFILE.yaml   (validates it and prints it)
"""

import os
import sys
from dataclasses import dataclass

from codegen import roots
from codegen.errors import ManifestError, run_cli, suggest
from codegen.yaml_io import load_yaml

NONE = "none"  # the profile name that means "the target's flags only"
_LISTS = ("cxxflags", "linkflags", "link_sources", "kernel_libraries")
_KEYS = ("description",) + _LISTS


@dataclass(frozen=True)
class Profile:
    name: str
    description: str = ""
    cxxflags: tuple[str, ...] = ()
    linkflags: tuple[str, ...] = ()
    link_sources: tuple[str, ...] = ()   # relative to the repository
    kernel_libraries: tuple[str, ...] = ()  # instead of the target's; () keeps the target's


def available_profiles() -> list[str]:
    """manifests/profiles/ of the project and the package (codegen/roots.py)."""
    return roots.manifest_names("profiles")


def parse_profile(text: str, path: str) -> Profile:
    """Profile manifest text -> Profile; link_sources must exist (roots.find_source)."""
    data = load_yaml(text, path)
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: a profile is a YAML mapping (cxxflags:, linkflags:, ...)")
    for key, value in data.items():
        if key not in _KEYS:
            raise ManifestError(f"{path}: unknown key '{key}'{suggest(str(key), _KEYS)}; "
                                f"the keys are {', '.join(_KEYS)}")
        if key == "description" and not isinstance(value, str):
            raise ManifestError(f"{path}: description must be a string")
        if key in _LISTS and not (isinstance(value, list)
                                  and all(isinstance(v, str) for v in value)):
            raise ManifestError(f"{path}: {key} must be a list of strings, e.g. "
                                f"{key}: [a, b] (or [] for none)")
    for source in data.get("link_sources", []):
        if not os.path.isfile(roots.find_source(source)):
            raise ManifestError(f"{path}: link_sources names {source}, which does not exist "
                                "(paths are relative to the package or the project)")
    for library in data.get("kernel_libraries", []):
        if roots.find_manifest("kernels", library) is None:
            raise ManifestError(f"{path}: kernel_libraries names {library}, but there is no "
                                f"manifests/kernels/{library}.yaml")
    name = os.path.splitext(os.path.basename(path))[0]
    return Profile(name=name, **{k: (tuple(v) if k in _LISTS else v) for k, v in data.items()})


def profile_name(asked: str, target) -> str:
    """The profile a build for `target` (a codegen.target.Target) uses: `asked` (profile=),
    else the target's default; "" for none."""
    name = asked or target.profile
    return "" if name == NONE else name


def load_profile(name: str, asked_by: str) -> Profile | None:
    """The profile called `name` (None for "none" or ""); `asked_by` names who chose it."""
    if name in ("", NONE):
        return None
    path = roots.find_manifest("profiles", name)
    if path is None:
        known = available_profiles()
        raise ManifestError(f"{asked_by}: there is no manifests/profiles/{name}.yaml"
                            f"{suggest(name, known)}; profiles: {', '.join(known + [NONE])}")
    with open(path) as f:
        return parse_profile(f.read(), roots.shown(path))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m codegen.profile PROFILE.yaml", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        profile = parse_profile(f.read(), argv[0])
    for field in Profile.__dataclass_fields__:
        print(f"{field}: {getattr(profile, field)}")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
