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
"""

import os

import SCons.CacheDir
import SCons.Util


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
        def cachepath(self, node):
            if not self.is_enabled():
                return None, None
            sig = signature(node)
            subdir = os.path.join(self.path, sig[:self.config["prefix_len"]].upper())
            return subdir, os.path.join(subdir, sig)

    return RelocatableCacheDir
