"""The wheel's package data: what a build needs besides the Python packages (the
SConstruct, site_scons/, manifests/, templates/, schema/ and every C++ source) goes into
tailor/_data/, laid out as in this checkout; codegen/roots.py finds it there when the
package runs installed. Everything else is in pyproject.toml."""

import fnmatch
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
# (path in the checkout, file patterns to leave out). The Python packages of
# pyproject.toml are installed as packages, so backends/ brings only its non-Python files;
# examples/ and site_scons/ are imported from the data root (factories, SCons).
PACKAGE_DATA = [
    ("SConstruct", ()), ("site_scons", ()), ("manifests", ()), ("templates", ()),
    ("schema", ()), ("runtime", ()), ("kernels", ()), ("backends", ("*.py",)),
    ("c_api", ()), ("runner", ()), ("apps", ()), ("examples", ()),
    ("fuzz/fuzz_program.cpp", ()), ("tests/size/app", ()),
]
ALWAYS_LEFT_OUT = ("__pycache__", "*.pyc")


class BuildPyWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the checkout
            return
        data = os.path.join(self.build_lib, "tailor", "_data")
        shutil.rmtree(data, ignore_errors=True)  # nothing left from an older build
        for path, left_out in PACKAGE_DATA:
            _copy(os.path.join(HERE, path), os.path.join(data, path), ALWAYS_LEFT_OUT + left_out)


def _copy(source: str, destination: str, left_out: tuple) -> None:
    if os.path.isfile(source):
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        shutil.copy2(source, destination)
        return
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not any(fnmatch.fnmatch(d, p) for p in left_out)]
        for name in files:
            if not any(fnmatch.fnmatch(name, p) for p in left_out):
                _copy(os.path.join(folder, name),
                      os.path.join(destination, os.path.relpath(folder, source), name), ())


# setuptools' work files go under build/wheel/, beside the SCons builds, not among them.
setup(cmdclass={"build_py": BuildPyWithData}, options={"build": {"build_base": "build/wheel"}})
