"""A target's private sysroot: its `sysroot_debs` downloaded with apt and unpacked.

Debian's arm64 XNNPACK -dev packages cannot be installed beside the amd64 ones (they are
not Multi-Arch: same), so the build unpacks them with `dpkg-deb -x` into
build/sysroots/<target>/ instead. The stamp file lists the packages, so a changed list
unpacks again.
"""

import os
import shutil
import subprocess
import tempfile


def unpack_debs(target, source, env):
    """SCons action: target[0] is <sysroot>/.debs; source[0] the package list (a Value)."""
    stamp = str(target[0])
    sysroot = os.path.dirname(stamp)
    packages = source[0].read().split()
    shutil.rmtree(sysroot, ignore_errors=True)
    os.makedirs(sysroot)
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(["apt-get", "download", *packages], cwd=tmp, capture_output=True,
                              text=True)
        if proc.returncode != 0:
            print("error: apt-get download %s failed (is the architecture added and "
                  "`apt-get update` run? setup.sh does both):\n%s"
                  % (" ".join(packages), proc.stderr.strip()))
            return 1
        for deb in sorted(os.listdir(tmp)):
            subprocess.run(["dpkg-deb", "-x", os.path.join(tmp, deb), sysroot], check=True)
    with open(stamp, "w") as f:
        f.write("\n".join(packages) + "\n")
    return 0
