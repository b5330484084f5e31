"""A full disk ends the build with one message that says so and names what it could
not write.

Out of space, a compiler, archiver or linker says "No space left on device" among its
own lines and exits 1, a Python step raises ENOSPC, and SCons cannot save its signature
database at the end (a traceback would then be the last thing printed). This module
notices each of them: every command's stderr passes through here (tools run without
TERM, so a pipe loses them no colours), the database is saved through a guard, and at
exit one line names the outputs and the fix.

Every output is written under a temporary name and renamed when whole (targets.py,
program/atomic.py), and SCons records nothing it did not finish, so nothing
half-written stands under an output's name and the next build redoes what was missing.
"""

import atexit
import errno
import os
import select
import subprocess
import sys

import SCons.Script
import SCons.SConsign

_NO_SPACE = os.strerror(errno.ENOSPC)  # the C locale's text; tools run without LANG
_full_commands = set()  # command lines (tuples) whose tool ran out of space
_unsaved = []  # the signature database, when it could not be saved


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def _spawn(sh, escape, cmd, args, env):
    """SCons' POSIX spawn, with the tool's stderr passed on through this process."""
    read, write = os.pipe()
    try:
        proc = subprocess.Popen([sh, "-c", " ".join(args)], env=env, close_fds=True,
                                stderr=write)
    finally:
        os.close(write)
    seen = b""
    try:
        while True:
            if not select.select([read], [], [], 0.1)[0]:
                if proc.poll() is not None:
                    break  # exited, all read (a server it started may keep the pipe)
                continue
            chunk = os.read(read, 65536)
            if not chunk:
                break
            _write_all(2, chunk)
            seen = (seen + chunk)[-4096:]  # a message split across two reads still shows
            if _NO_SPACE.encode() in seen:
                _full_commands.add(tuple(args))
    finally:
        os.close(read)
    return proc.wait()


def _out_of_space(failure) -> bool:
    error = failure.exc_info[1] if failure.exc_info else None
    if isinstance(error, OSError):
        return error.errno == errno.ENOSPC
    command = failure.command
    return isinstance(command, list) and tuple(command) in _full_commands


def _guarded(write):
    def write_signatures() -> None:
        try:
            write()
        except OSError as error:
            if error.errno != errno.ENOSPC:
                raise
            for db in SCons.SConsign.DB_sync_list:
                db._needs_sync = False  # dblite would try again, and fail, at exit
                _unsaved.append(getattr(db, "_file_name", "the signature database"))
            raise SystemExit(2)  # the outputs may be whole, but the build is not recorded
    return write_signatures


def _report() -> None:
    unwritten = sorted({str(f.node) for f in SCons.Script.GetBuildFailures()
                        if _out_of_space(f)}) + _unsaved
    if unwritten:
        print("error: the disk is full (%s): could not write %s; free some space and build "
              "again (the next build redoes what this one could not finish)"
              % (_NO_SPACE, ", ".join(unwritten)), file=sys.stderr, flush=True)


def install(env) -> None:
    """Watches `env`'s commands (and its clones') and SCons' database for a full disk."""
    env["SPAWN"] = _spawn
    SCons.SConsign.write = _guarded(SCons.SConsign.write)
    atexit.register(_report)
