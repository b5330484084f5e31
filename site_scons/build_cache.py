"""cache=DIR: an SCons CacheDir whose entries any build directory can use.

SCons keys a cache entry by the output's build signature and its path under the
checkout, so `build/host/obj/x.o` and `build-ci/host/obj/x.o` never share an entry. This
cache keys by the path under the build directory instead (`host/obj/x.o`), so every
build directory of a checkout, and every checkout or machine building the same sources
with the same commands, shares one entry. Command lines name outputs and sources
through $TARGET/$SOURCES (never a literal build path), which SCons' signatures reduce
to file names.

Concurrent use needs no lock: SCons writes an entry into a temporary directory inside
the cache and renames it into place (SCons/CacheDir.py CachePush), so a reader sees a
whole entry or none, and two builds that push one entry push the same bytes.

A cache on a shared or network disk can still hand back other bytes than were stored.
So an entry is the output behind a first line holding its SHA-256, written in the same
rename, and reading one checks it: a damaged entry (or one without the line) is named,
removed, and its output built again and stored anew, never used.
"""

import hashlib
import os
import shutil
import stat
import sys

import SCons.CacheDir
import SCons.Errors
import SCons.Util

from program.atomic import write_bytes_atomic

_MAGIC = b"tailor-cache-entry sha256="
_HEADER = len(_MAGIC) + 64 + 1  # the magic, the digest in hex, "\n"


def seal(data: bytes) -> bytes:
    """An entry: its checksum line, then the output's bytes."""
    return _MAGIC + hashlib.sha256(data).hexdigest().encode() + b"\n" + data


def unseal(entry: bytes):
    """The output's bytes of an entry whose checksum matches, else None."""
    if not entry.startswith(_MAGIC) or entry[_HEADER - 1:_HEADER] != b"\n":
        return None
    data = entry[_HEADER:]
    digest = entry[len(_MAGIC):_HEADER - 1]
    return data if hashlib.sha256(data).hexdigest().encode() == digest else None


def _damage(entry: bytes) -> str:
    """What is wrong with an entry unseal() refused."""
    return ("its content does not match its checksum" if entry.startswith(_MAGIC)
            else "it has no checksum line")


def _read(path: str):
    """An entry's bytes, or None when there is none."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def relocatable_cache_class(build_root: str):
    """A CacheDir class keying entries by their path relative to `build_root`."""
    root = os.path.abspath(build_root)
    signatures = {}

    def signature(node) -> str:
        if node not in signatures:
            path = node.get_abspath()
            where = (os.path.relpath(path, root) if path.startswith(root + os.sep)
                     else node.get_internal_path())
            parts = [child.get_cachedir_csig() for child in node.children()]
            signatures[node] = SCons.Util.hash_collect(parts + [node.get_contents_sig(), where])
        return signatures[node]

    class RelocatableCacheDir(SCons.CacheDir.CacheDir):
        def __init__(self, path) -> None:
            super().__init__(path)
            self._checked = {}  # entry path -> its verified bytes, while it is retrieved

        def cachepath(self, node):
            if not self.is_enabled():
                return None, None
            sig = signature(node)
            subdir = os.path.join(self.path, sig[:self.config["prefix_len"]].upper())
            return subdir, os.path.join(subdir, sig)

        def retrieve(self, node) -> bool:
            """Checks the entry before SCons copies it (from the bytes checked here)."""
            if not self.is_enabled():
                return False
            _, path = self.cachepath(node)
            entry = None if os.path.islink(path) else _read(path)
            if entry is not None:
                data = unseal(entry)
                if data is None:
                    self._drop(path, node, _damage(entry))
                    return False
                self._checked[path] = data
            try:
                return super().retrieve(node)
            finally:
                self._checked.pop(path, None)

        def push(self, node):
            """SCons keeps an entry that is there already. A damaged one goes first: of an
            action's outputs, SCons reads entries up to the first it cannot use, so the
            others are only checked here, when the action has made them again."""
            if self.is_enabled() and not self.is_readonly() and not node.nocache:
                _, path = self.cachepath(node)
                entry = None if os.path.islink(path) else _read(path)
                if entry is not None and unseal(entry) is None:
                    self._drop(path, node, _damage(entry), "storing")
            return super().push(node)

        def _drop(self, path: str, node, why: str, instead: str = "building") -> None:
            print("scons: warning: cache entry %s is damaged (%s); removed it, %s %s "
                  "instead" % (path, why, instead, node), file=sys.stdout, flush=True)
            try:
                os.unlink(path)  # so this build's output takes its place
            except FileNotFoundError:
                pass  # another build dropped it first

        def copy_from_cache(self, env, src, dst):
            data = self._checked.pop(src, None)
            if data is None:  # not through retrieve(): check it here
                data = unseal(_read(src) or b"")
                if data is None:
                    raise SCons.Errors.BuildError(
                        errstr="cache entry %s is damaged (its content does not match its "
                               "checksum); remove it and build again" % src)
            write_bytes_atomic(dst, data)  # on a full disk, no part of it is left
            shutil.copystat(src, dst)
            return dst

        @classmethod
        def copy_to_cache(cls, env, src, dst):
            with open(src, "rb") as f:
                entry = seal(f.read())
            with open(dst, "wb") as f:  # a temporary name; CachePush renames it
                f.write(entry)
            shutil.copystat(src, dst)  # an executable stays one
            os.chmod(dst, stat.S_IMODE(os.stat(dst).st_mode) | stat.S_IWRITE)
            return dst

        def get_cachedir_csig(self, node):
            """The content signature of the output an entry holds (for `scons -n`)."""
            _, path = self.cachepath(node)
            data = unseal(_read(path) or b"")
            return node.get_csig() if data is None else SCons.Util.hash_signature(data)

    return RelocatableCacheDir
