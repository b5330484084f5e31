"""The two roots every path starts from.

The package root holds what Tailor ships: SConstruct, site_scons/, manifests/, templates/,
schema/, runtime/, kernels/, backends/, ... In a checkout it is the checkout; in an
installed wheel it is tailor/_data/ beside the Python packages (setup.py puts it there).

The project root holds the user's files: manifests/ (models, kernels, targets, profiles)
searched before the package's, factories, kernel sources, and build/. `tailor build`
runs SCons with TAILOR_PROJECT set to it; without that variable the project is the
package root itself (`scons ...` in the checkout).
"""

import os

MANIFEST_KINDS = ("models", "kernels", "targets", "profiles")


def _package_root() -> str:
    parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.isfile(os.path.join(parent, "SConstruct")):  # a checkout (or an editable install)
        return parent
    return os.path.join(parent, "tailor", "_data")  # the wheel's package data


PACKAGE = _package_root()


def project_root() -> str:
    return os.path.abspath(os.environ.get("TAILOR_PROJECT") or PACKAGE)


def in_project_mode() -> bool:
    return project_root() != PACKAGE


def manifest_dirs(kind: str) -> list[str]:
    """Where manifests of `kind` are looked up, the project's first."""
    assert kind in MANIFEST_KINDS, kind
    return list(dict.fromkeys(os.path.join(root, "manifests", kind)
                              for root in (project_root(), PACKAGE)))


def _names(directory: str) -> list[str]:
    found = os.listdir(directory) if os.path.isdir(directory) else []
    return [f[:-len(".yaml")] for f in found if f.endswith(".yaml")]


def manifest_names(kind: str) -> list[str]:
    """Every manifest name of `kind` in the project and the package, sorted."""
    return sorted({name for d in manifest_dirs(kind) for name in _names(d)})


def find_manifest(kind: str, name: str) -> str | None:
    """manifests/<kind>/<name>.yaml of the project, else of the package; None if neither."""
    for directory in manifest_dirs(kind):
        path = os.path.join(directory, name + ".yaml")
        if os.path.isfile(path):
            return path
    return None


def overrides() -> list[str]:
    """One line per project manifest that replaces the package's of the same name."""
    if not in_project_mode():
        return []
    lines = []
    for kind in MANIFEST_KINDS:
        project, package = (os.path.join(root, "manifests", kind)
                            for root in (project_root(), PACKAGE))
        for name in sorted(set(_names(project)) & set(_names(package))):
            lines.append("the project's manifests/%s/%s.yaml overrides the package's"
                         % (kind, name))
    return lines


def in_project(path: str) -> bool:
    """Whether `path` is one of the project's files (in project mode)."""
    return in_project_mode() and not os.path.relpath(
        os.path.abspath(path), project_root()).startswith(os.pardir)


def find_source(path: str) -> str:
    """A source named relative to a root (a kernel's `source:`, a profile's link source):
    the package's file if it has one, else the project's; absolute paths stay."""
    if os.path.isabs(path):
        return path
    packaged = os.path.join(PACKAGE, path)
    if os.path.exists(packaged) or not in_project_mode():
        return packaged
    return os.path.join(project_root(), path)


def scons_path(path: str) -> str:
    """How SCons (run from the package root) names `path`: relative inside the package
    root, absolute elsewhere (the project's files)."""
    path = os.path.abspath(path)
    inside = os.path.relpath(path, PACKAGE)
    return path if inside.startswith(os.pardir) else inside


def shown(path: str) -> str:
    """`path` as a message shows it: relative to the project when inside it."""
    path = os.path.abspath(path)
    for root in (project_root(), PACKAGE):
        inside = os.path.relpath(path, root)
        if not inside.startswith(os.pardir):
            return inside
    return path
