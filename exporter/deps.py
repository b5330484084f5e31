"""The Python source files an export imported -> <stem>.deps: "<path>\t<sha256>" a line.

The build re-exports a model when one of these changes, and only then: the factory's
own module, whatever it imports from any package of the user's (in the checkout, beside
the manifest or on PYTHONPATH), and the exporter itself. Installed packages (torch,
site-packages) and Python's standard library are left out: they change with the
environment, not with an edit. Paths inside the repository are relative to it, so the
file holds no absolute path a checkout elsewhere would not share. Each file's digest is
the content the export saw, so the build can tell which changed since (stale_sources).
"""

import hashlib
import os
import sys

from codegen.roots import PACKAGE as REPO
from program.atomic import write_text_atomic


def _installed(path: str) -> bool:
    parts = path.split(os.sep)
    return ("site-packages" in parts or "dist-packages" in parts
            or any(path.startswith(p + os.sep) for p in {sys.prefix, sys.base_prefix,
                                                        sys.exec_prefix}))


def imported_sources(modules=None) -> list[str]:
    """Sorted source files of the loaded modules that are not installed packages."""
    found = set()
    for module in list((modules or sys.modules).values()):
        path = getattr(module, "__file__", None)
        if not path or not path.endswith(".py"):
            continue
        path = os.path.realpath(path)
        if _installed(path) or not os.path.isfile(path):
            continue
        inside = os.path.relpath(path, REPO)
        found.add(path if inside.startswith(os.pardir + os.sep) else inside)
    return sorted(found)


def _digest(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "missing"


def _full(path: str) -> str:
    return path if os.path.isabs(path) else os.path.join(REPO, path)


def write_deps(path: str, sources: list[str]) -> None:
    write_text_atomic(path, "".join(f"{s}\t{_digest(_full(s))}\n" for s in sources))


def read_deps(path: str) -> dict[str, str]:
    """{path: digest} of a deps file ({} when it does not exist or is not one)."""
    found = {}
    try:
        with open(path) as f:
            for line in f:
                source, _, digest = line.rstrip("\n").partition("\t")
                if source and digest:
                    found[source] = digest
    except OSError:
        pass
    return found


def stale_sources(path: str) -> list[str]:
    """The files deps file `path` lists whose content changed (or that are gone) since
    the export that wrote it."""
    return [s for s, digest in sorted(read_deps(path).items()) if _digest(_full(s)) != digest]
