"""One CacheDir shared by several build directories: a clean build in another directory
takes every output from the cache (objects, programs, the check files of <model>_io/),
still runs its own self-check, and two such builds at once both succeed."""

import os
import re
import shutil
import subprocess

from codegen import build_layout
from tests.conftest import REPO, SCONS, run_scons

CACHE = os.path.join(REPO, build_layout.tree("test-shared-cache"))  # kept: later runs start warm
BUILDS = [os.path.join(REPO, build_layout.tree("test-shared-cache-%s" % name)) for name in "abc"]


def _build(build_dir: str, check: bool = True) -> subprocess.CompletedProcess:
    shutil.rmtree(build_dir, ignore_errors=True)
    return run_scons("model=mlp", "run=1", "cache=" + CACHE, "build_dir=" + build_dir,
                     check=check)


def _assert_all_from_cache(proc, build_dir: str) -> None:
    out = proc.stdout
    for word in ("compiling", "linking", "exporting"):
        assert word not in out, out
    retrieved = {os.path.join(REPO, path)  # (an absolute path joins as itself)
                 for path in re.findall(r"Retrieved `([^']+)' from cache", out)}
    for name in ("mlp.pte", "mlp.io.tar", "obj/kernels.a", "bin/runner"):
        assert os.path.join(build_dir, "host", "mlp", name) in retrieved, out
    assert any(path.endswith(os.path.join("obj", "runtime", "executor", "method.o"))
               for path in retrieved), out
    # The check files came back from the archive, and the check really ran here.
    io_dir = os.path.join(build_dir, "host", "mlp", "mlp_io")
    assert sorted(os.listdir(io_dir)) == ["expected_0.npy", "files.txt", "input_0.npy"]
    assert "check passed" in out, out


def test_second_build_directory_takes_everything_from_the_cache():
    _build(BUILDS[0])
    _assert_all_from_cache(_build(BUILDS[1]), BUILDS[1])


def test_two_build_directories_use_the_cache_at_once():
    _build(BUILDS[0])
    for build_dir in BUILDS[1:]:
        shutil.rmtree(build_dir, ignore_errors=True)
    # Each build directory has its own lock (build_lock.py); the cache has none and
    # needs none: SCons writes a cache entry under a temporary name and renames it.
    procs = [subprocess.Popen([SCONS, "-j2", "model=mlp", "run=1", "cache=" + CACHE,
                               "build_dir=" + build_dir], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
             for build_dir in BUILDS[1:]]
    for build_dir, proc in zip(BUILDS[1:], procs):
        out, _ = proc.communicate()
        assert proc.returncode == 0, out
        assert "waiting" not in out, out
        _assert_all_from_cache(subprocess.CompletedProcess([], 0, out, ""), build_dir)


def _entries(cache: str) -> list:
    """Every stored output of a cache directory (not its config and tag files)."""
    return sorted(os.path.join(root, name) for root, _, names in os.walk(cache)
                  for name in names if root != cache)


def test_a_damaged_cache_entry_is_dropped_and_rebuilt(tmp_path):
    """One byte flipped in every other entry (a network disk's fault): each is named,
    removed and built again, never used, and the whole ones are used; the runtime still
    matches torch eager."""
    cache = str(tmp_path / "cache")  # holding this build's entries only
    build_dir = BUILDS[1]
    shutil.rmtree(build_dir, ignore_errors=True)
    run_scons("model=mlp", "run=1", "cache=" + cache, "build_dir=" + build_dir)
    entries = _entries(cache)
    assert len(entries) > 20, entries
    damaged = entries[::2]
    for path in damaged:
        with open(path, "r+b") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(size // 2)
            byte = f.read(1)
            f.seek(size // 2)
            f.write(bytes([byte[0] ^ 0x01]))
    shutil.rmtree(build_dir)
    proc = run_scons("model=mlp", "run=1", "cache=" + cache, "build_dir=" + build_dir)
    out = proc.stdout
    for path in damaged:
        assert "cache entry %s is damaged" % path in out, (path, out)
    assert out.count(" is damaged (") == len(damaged), out
    assert "Retrieved" in out, out
    assert "check passed" in out, out
    assert subprocess.run([os.path.join(build_dir, "host", "mlp", "bin", "runner"),
                           os.path.join(build_dir, "host", "mlp", "mlp.pte"), "--check"],
                          capture_output=True).returncode == 0
    # The build put whole entries back: the next clean build takes everything from them.
    shutil.rmtree(build_dir)
    again = run_scons("model=mlp", "run=1", "cache=" + cache, "build_dir=" + build_dir)
    assert "damaged" not in again.stdout, again.stdout
    _assert_all_from_cache(again, build_dir)
