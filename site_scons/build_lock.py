"""One build at a time per build directory: an exclusive lock on <build_dir>/.lock.

Two builds writing one tree would overwrite each other's objects and signature database
midway. The second waits, saying for which process, and goes on when the first is done;
the lock goes with the process however it ends (no stale lock to remove by hand).
"""

import fcntl
import os
import sys

# The open lock files, held until the process exits: SCons drops the SConstruct's
# variables once it has read it, and closing the file would release the lock before the
# first action runs. (Opened close-on-exec, so no compiler or leftover child keeps it.)
_held = {}


def lock_build_dir(build_dir: str):
    """Takes the lock (waiting for it when another build holds it) and holds it until
    this process exits."""
    if build_dir in _held:
        return _held[build_dir]
    os.makedirs(build_dir, exist_ok=True)
    lock = open(os.path.join(build_dir, ".lock"), "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "unknown"
        print("scons: another build is using %s (pid %s); waiting for it to finish"
              % (build_dir, holder), flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    try:  # who holds it, for the message above; the lock does not need it
        lock.seek(0)
        lock.truncate()
        lock.write("%d\n" % os.getpid())
        lock.flush()
    except OSError:  # a full disk: the build goes on to say so about its outputs
        pass
    _held[build_dir] = lock
    return lock


def lock_or_exit(build_dir: str):
    try:
        return lock_build_dir(build_dir)
    except OSError as e:
        print("error: cannot lock the build directory %s: %s" % (build_dir, e.strerror))
        sys.exit(1)
