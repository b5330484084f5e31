"""Throwaway venvs for the package tests: empty of their own, they see the project venv's
site-packages (torch, numpy, scons, ...) as --system-site-packages would give them."""

import os
import subprocess
import sys
import sysconfig


def venv_with_project_packages(root) -> str:
    """Makes a venv at `root` and returns its python. The project venv's site-packages
    are named in a .pth file: a directory named there is only appended to sys.path, so
    the .pth files inside it (this checkout's editable install) are not run."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = os.path.join(str(root), "bin", "python")
    purelib = subprocess.run([python, "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(purelib, "project_venv.pth"), "w") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")
    return python
