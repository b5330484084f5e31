"""Kernel scratch sizes: a manifest states each kernel's scratch_bytes as a number (the
build sizes the scratch slices from it) and names the C++ constant it stands for in its
comment, `scratch_bytes: N  # kName (util/header.h)`; a compiled probe reads every named
constant, and each number must be its constant, or its constant plus one
KernelScratch::kAlignment (a panel taken from the slice at an aligned address). A change
to either side alone fails here."""

import glob
import os
import re

from tests.conftest import REPO
from tests.cxx_probe import run_probe

# kernel library manifests: the shipped ones and those of kernels/llm
MANIFESTS = sorted(glob.glob(os.path.join(REPO, "manifests", "kernels", "*.yaml"))
                   + glob.glob(os.path.join(REPO, "kernels", "*", "*.yaml")))
_ENTRY = re.compile(r"^\s*scratch_bytes:\s*(\d+)\s*(#.*)?$", re.M)
_NAMED = re.compile(r"\b(k\w+Bytes)\b.*?\(([\w/.]+\.h)\)")
ALIGNMENT = 64  # KernelScratch::kAlignment, read by the probe too


def _stated() -> list:
    """(manifest, number, constant, header path) for every scratch_bytes."""
    found = []
    for manifest in MANIFESTS:
        text = open(manifest).read()
        for number, comment in _ENTRY.findall(text):
            named = _NAMED.search(comment or "")
            assert named, (f"{os.path.relpath(manifest, REPO)}: scratch_bytes {number} names "
                           "no constant; write `# kName (util/header.h)` after it")
            constant, header = named.groups()
            found.append((manifest, int(number), constant, header))
    return found


def _header_path(manifest: str, header: str) -> str:
    """A header named in a manifest comment: relative to the kernel directory of the
    library (kernels/<library>/ for manifests/kernels/<library>.yaml), else to the
    manifest's own directory."""
    stem = os.path.splitext(os.path.basename(manifest))[0]
    for base in (os.path.join(REPO, "kernels", stem), os.path.dirname(manifest)):
        if os.path.exists(os.path.join(base, header)):
            return os.path.relpath(os.path.join(base, header), REPO)
    raise AssertionError(f"{os.path.relpath(manifest, REPO)}: {header} not found")


def _qualified(path: str, constant: str, depth: int = 2) -> str:
    """`constant` with the namespace it is defined in: in header `path` or one it
    includes (a comment may name the header that uses it)."""
    text = open(os.path.join(REPO, path)).read()
    at = re.search(r"constexpr\s+[\w:]+\s+%s\s*=" % constant, text)
    if at:
        spaces = re.findall(r"^namespace ([\w:]+) \{", text[:at.start()], re.M)
        return f"::{spaces[-1]}::{constant}" if spaces else constant
    for included in re.findall(r'^#include "(kernels/[\w/.]+)"', text, re.M) if depth else ():
        found = _qualified(included, constant, depth - 1)
        if found:
            return found
    assert depth < 2, f"{path} defines no constexpr {constant}, nor a header it includes"
    return ""


def test_every_manifest_scratch_size_is_its_constant(tmp_path):
    stated = _stated()
    assert len(stated) >= 5, "the manifests' scratch_bytes were not found"
    headers = sorted({_header_path(m, h) for m, _, _, h in stated})
    names = sorted({(_header_path(m, h), c) for m, _, c, h in stated})
    source = ["#include <stdio.h>", '#include "runtime/kernel/kernel_scratch.h"']
    source += [f'#include "{h}"' for h in headers]
    source += ["int main() {",
               '  printf("kAlignment %zu\\n", (size_t)::tailor::KernelScratch::kAlignment);']
    source += [f'  printf("{c} %zu\\n", (size_t)({_qualified(h, c)}));' for h, c in names]
    source += ["  return 0;", "}", ""]
    values = dict(line.split() for line in run_probe(tmp_path, "\n".join(source)).splitlines())
    assert int(values.pop("kAlignment")) == ALIGNMENT
    for manifest, number, constant, _ in stated:
        value = int(values[constant])
        assert number in (value, value + ALIGNMENT), \
            (f"{os.path.relpath(manifest, REPO)}: scratch_bytes {number} is not {constant} "
             f"({value}, or {value + ALIGNMENT} aligned); update the manifest")
