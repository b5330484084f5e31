"""site_scons/stage_install.py: the CMake config and pkg-config file of a lib=shared or
lib=static build, for a target this machine cannot build for (android-xnnpack needs an
NDK): read by CMake itself. Host builds link real apps: tests/bindings/test_c_program.py."""

import os
import subprocess
import sys

import pytest

from codegen.target import load_target
from tests.conftest import REPO

sys.path.insert(0, os.path.join(REPO, "site_scons"))
import stage_install  # noqa: E402
import targets  # noqa: E402

# find_package(tailor) in a project with no languages: CMake reads the config, nothing compiles.
CMAKE_LISTS = """cmake_minimum_required(VERSION 3.16)
project(read_config NONE)
find_package(tailor REQUIRED)
foreach(p IMPORTED_LOCATION INTERFACE_INCLUDE_DIRECTORIES INTERFACE_LINK_LIBRARIES
          INTERFACE_LINK_DIRECTORIES IMPORTED_LINK_INTERFACE_LANGUAGES)
  get_target_property(v tailor::tailor ${p})
  message(STATUS "${p}=${v}")
endforeach()
"""


@pytest.mark.parametrize("lib", ["static", "shared"])
def test_android_prefix_is_read_by_cmake(lib, tmp_path, monkeypatch):
    monkeypatch.setenv("ANDROID_NDK_HOME", "/opt/ndk")
    monkeypatch.setenv("XNNPACK_ANDROID", "/opt/xnnpack-android")
    target = targets._substitute(
        load_target(targets.target_path("android-xnnpack")), {"SYSROOT": "/unused"})
    cmake_text, pc_text = stage_install.render_prefix_files(
        stage_install.prefix_values(target, lib, REPO), REPO)
    prefix = tmp_path / "prefix"
    (prefix / "lib" / "cmake" / "tailor").mkdir(parents=True)
    (prefix / "lib" / "cmake" / "tailor" / "tailorConfig.cmake").write_text(cmake_text)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "CMakeLists.txt").write_text(CMAKE_LISTS)
    proc = subprocess.run(["cmake", "-S", str(tmp_path / "app"), "-B", str(tmp_path / "b"),
                           "-DCMAKE_PREFIX_PATH=%s" % prefix], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = dict(line.partition("-- ")[2].split("=", 1) for line in proc.stdout.splitlines()
                 if line.startswith("-- I"))
    library = "libtailor.a" if lib == "static" else "libtailor.so"
    assert found["IMPORTED_LOCATION"] == "%s/lib/%s" % (prefix, library)
    assert found["INTERFACE_INCLUDE_DIRECTORIES"] == "%s/include" % prefix
    if lib == "static":
        # XNNPACK and its dependencies, in link order; the NDK's C++ runtime through CXX.
        assert found["INTERFACE_LINK_LIBRARIES"] == "XNNPACK;pthreadpool;cpuinfo;log"
        assert found["INTERFACE_LINK_DIRECTORIES"] == "/opt/xnnpack-android/lib"
        assert found["IMPORTED_LINK_INTERFACE_LANGUAGES"] == "CXX"
        assert ("Libs: -L${libdir} -ltailor -L/opt/xnnpack-android/lib -lXNNPACK -lpthreadpool "
                "-lcpuinfo -llog") in pc_text
    else:  # libtailor.so carries its own dependencies
        assert found["INTERFACE_LINK_LIBRARIES"].endswith("NOTFOUND")
        assert "Libs: -L${libdir} -ltailor\n" in pc_text
