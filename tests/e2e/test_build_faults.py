"""Builds that meet other builds, signals and full disks: the build directory's lock
holds through the last action, and a build killed at any point leaves a directory the
next build repairs."""

import errno
import fcntl
import os
import signal
import subprocess

import pytest

from tests.conftest import REPO, SCONS, run_scons

# These builds must compile and export themselves (the tests' shared cache would hand
# their outputs back instead).
pytestmark = pytest.mark.usefixtures("no_build_cache")


def _start(build_dir, *args: str) -> subprocess.Popen:
    """scons in its own process group (so a test can stop or kill all of it)."""
    return subprocess.Popen([SCONS, "-j2", "model=mlp", "build_dir=" + str(build_dir), *args],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


def _read_until(proc: subprocess.Popen, word: str) -> str:
    """The build's output up to and including the first line containing `word`."""
    seen = ""
    for line in proc.stdout:
        seen += line
        if word in line:
            return seen
    proc.wait()
    pytest.fail("the build ended (exit %s) before printing %r:\n%s" % (proc.returncode, word,
                                                                       seen))


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _lock_is_free(build_dir) -> bool:
    with open(os.path.join(build_dir, ".lock"), "a+") as probe:
        try:
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(probe, fcntl.LOCK_UN)
        return True


def _runner_check(build_dir) -> subprocess.CompletedProcess:
    out = os.path.join(build_dir, "host", "mlp")
    return subprocess.run([os.path.join(out, "bin", "runner"), os.path.join(out, "mlp.pte"),
                           "--check"], capture_output=True, text=True)


def test_a_build_started_while_another_compiles_waits_for_all_of_it(tmp_path):
    """The lock is held through the last action: a second build started while the first
    compiles says so, waits, and then finds everything done."""
    build_dir = tmp_path / "b"
    first = _start(build_dir)
    second = None
    try:
        head = _read_until(first, "compiling")
        # Frozen mid-compile, the first build cannot finish before the second starts.
        os.killpg(first.pid, signal.SIGSTOP)
        assert not _lock_is_free(build_dir), "the lock is gone while the build compiles"
        second = _start(build_dir, "run=1")
        waiting = _read_until(second, "waiting")
        assert ("another build is using %s (pid %d); waiting for it to finish"
                % (build_dir, first.pid)) in waiting, waiting
        os.killpg(first.pid, signal.SIGCONT)
        rest, _ = first.communicate(timeout=600)
        assert first.returncode == 0, head + rest
        assert "linking" in rest
        later, _ = second.communicate(timeout=600)
        assert second.returncode == 0, waiting + later
        # It waited for the whole build: nothing was left for it to make.
        for word in ("exporting", "compiling", "linking"):
            assert word not in later, later
        assert "check passed" in later, later
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGCONT)
                _kill_group(proc)
    assert _runner_check(build_dir).returncode == 0


def _wait_for(found, what: str, proc: subprocess.Popen, timeout: float = 300) -> None:
    """Polls until found() holds (the build is still running when it does)."""
    import time
    deadline = time.monotonic() + timeout
    while not found():
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail("the build ended or took too long before %s" % what)
        time.sleep(0.005)


def _objects(build_dir) -> list:
    return [os.path.join(root, name) for root, _, names in os.walk(build_dir)
            for name in names if name.endswith(".o")]


def _build_again(build_dir) -> str:
    """After a build was killed, the next must finish the job and pass its check against
    torch eager."""
    assert not os.path.exists(os.path.join(build_dir, "host", "mlp", "bin", "runner"))
    again = subprocess.run([SCONS, "-j2", "model=mlp", "run=1", "build_dir=" + str(build_dir)],
                           cwd=REPO, capture_output=True, text=True)
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-6000:]
    assert "check passed" in again.stdout, again.stdout
    assert _runner_check(build_dir).returncode == 0
    return again.stdout


def test_a_build_killed_while_compiling_is_finished_by_the_next(tmp_path):
    build_dir = tmp_path / "b"
    first = _start(build_dir)
    try:
        _read_until(first, "compiling")
        # Killed with some objects done and others being written.
        _wait_for(lambda: _objects(build_dir), "its first object", first)
    finally:
        _kill_group(first)
    _build_again(build_dir)


def test_an_export_killed_midway_is_redone(tmp_path):
    build_dir = tmp_path / "b"
    out = os.path.join(build_dir, "host", "mlp")
    first = _start(build_dir)
    try:
        # Killed once the program is written, around its check files and import list.
        _wait_for(lambda: os.path.exists(os.path.join(out, "mlp.pte")), "the program", first)
    finally:
        _kill_group(first)
    again = _build_again(build_dir)
    assert "exporting mlp" in again, again


@pytest.fixture
def small_disk(tmp_path):
    """A 32 MB tmpfs of its own (skipped where mounting one is not allowed)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    try:
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(disk)],
                              capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("no mount command here")
    if proc.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: %s" % (proc.stderr.strip() or proc.returncode))
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)


def _fill(disk) -> str:
    """Writes a file until the disk has no byte left; returns its path."""
    path = os.path.join(disk, "filler")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for size in (1 << 20, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
    finally:
        os.close(fd)
    return path


def test_a_full_disk_gives_one_error_and_the_next_build_repairs(small_disk):
    """Out of space while linking, compiling or exporting: one line says the disk is full
    and names the output; nothing half-written stands under its name; with space again,
    the next build finishes, and its runtime matches torch eager."""
    build_dir = os.path.join(small_disk, "b")
    args = ("model=mlp", "build_dir=" + build_dir)
    run_scons(*args)
    host = os.path.join(build_dir, "host")
    for output in ("mlp/bin/runner", "obj/runner/runner.o", "mlp/mlp.pte"):
        path = os.path.join(host, output)
        with open(path, "rb") as f:
            whole = f.read()
        os.unlink(path)  # made again by the next build, on a full disk
        # So is the link map: SCons removes it before linking, and the space it held
        # could take the whole runner.
        if os.path.exists(path + ".map"):
            os.unlink(path + ".map")
        filler = _fill(small_disk)
        full = run_scons(*args, check=False)
        text = full.stdout + full.stderr
        assert full.returncode != 0, text
        # The tool may say what it could not write; the build says it once, at the end.
        errors = [line for line in text.splitlines() if line.startswith("error: the disk")]
        assert len(errors) == 1, text
        assert errors[0].startswith("error: the disk is full (No space left on device): "
                                    "could not write %s" % path), text
        assert "Traceback" not in text, text
        # Absent, or whole (the export writes the program before its check files).
        if os.path.exists(path):
            with open(path, "rb") as f:
                assert f.read() == whole, output
        os.unlink(filler)
        run_scons(*args)
    again = run_scons(*args, "run=1")
    assert "check passed" in again.stdout, again.stdout
    assert _runner_check(build_dir).returncode == 0


def test_the_exporter_on_a_full_disk_names_the_file(small_disk):
    import sys
    filler = _fill(small_disk)
    out = os.path.join(small_disk, "mlp.pte")
    proc = subprocess.run([sys.executable, "-m", "exporter", "--manifest",
                           "manifests/models/mlp.yaml", "--out", out], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.strip() == ("error: %s: No space left on device (the disk is full)"
                                   % os.path.join(small_disk, "mlp.debug.json")), proc.stderr
    os.unlink(filler)
    assert sorted(os.listdir(small_disk)) == []  # no temporary file left behind
