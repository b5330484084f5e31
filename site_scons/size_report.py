"""Linked binary + GNU ld link map -> bytes per component -> size report (md, json, png).

Every byte of the stripped binary goes to exactly one component, in layers:
  1. code with DWARF line info (builds with -g; -g does not change the code): the source
     file the line table names for each address, so code LTO inlined into another
     function still counts for the file it was written in;
  2. symbols (pyelftools): the input object the link map places at the symbol's address,
     or, for objects that hold several components (kernel shards, LTO partitions), the
     symbol's name (kernel functions from the kernel plan, namespaces);
  3. the rest of each input section the link map lists, by its object;
  4. what the linker made (dynamic tables, unwind tables, ELF headers and page padding).
Kernel template instances whose names carry a C++ element type are also counted per
dtype: that is what selecting the dtype costs where it can be attributed.

CLI:
  python site_scons/size_report.py BINARY [MAP]       prints the components of BINARY
  python site_scons/size_report.py BINARY --plan kernel_plan.yaml [--core BIN]
      [--runner BIN] [--contrast BIN --contrast-plan kernel_plan.yaml] --out PREFIX
                                                      writes PREFIX.md, .json and .png
MAP defaults to BINARY.map (the build links every program with -Wl,-Map).
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

import yaml
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

# Components that are not per-kernel, in report order.
PLATFORM = "platform layer"
LOADER = "loader"
EXECUTOR = "executor"
VERIFIER = "program verifier (flatbuffers)"
REGISTRY = "registry"
CORE = "core types"
KERNEL_SUPPORT = "kernel support (runtime/kernel)"
GLUE = "generated glue"
KERNEL_UTILS = "kernel utils (shared)"
MODULE = "module"
APP = "application"
LIBSTDCXX = "libstdc++"
LIBGCC = "libgcc"
LIBC = "libc (static startup)"
STRINGS = "string literals (merged)"
DYNAMIC = "ELF: dynamic linking, notes"
UNWIND = "ELF: unwind tables"
ELF_OVERHEAD = "ELF: headers, alignment padding"
OTHER = "other"
KERNEL_PREFIX = "kernel "

# C++ element type in a demangled name -> the dtype it instantiates.
_DTYPES = [("tailor::BFloat16", "BFloat16"), ("tailor::Half", "Half"),
           ("unsigned char", "Byte"), ("signed char", "Char"), ("short", "Short"),
           ("long", "Long"), ("int", "Int"), ("float", "Float"), ("double", "Double"),
           ("bool", "Bool")]
_DTYPE_PATTERN = re.compile(r"[<,]\s*(%s)\s*[,>]" % "|".join(re.escape(c) for c, _ in _DTYPES))

_DYNAMIC_SECTIONS = (".interp", ".note", ".gnu.hash", ".hash", ".dynsym", ".dynstr",
                     ".gnu.version", ".rela", ".rel.", ".plt", ".got", ".dynamic")
_UNWIND_SECTIONS = (".eh_frame", ".gcc_except_table")


@dataclass
class KernelInfo:
    """What the kernel plan says about one selected kernel."""
    op: str            # "aten::relu.out"
    native: str        # "tailor::native::relu_out"
    wrapper: str       # "wrap_2" in gen/register_kernels.cpp
    source: str        # "kernels/portable/op_relu.cpp"


@dataclass
class Attribution:
    path: str
    stripped_bytes: int
    components: dict                                   # component -> bytes (sums to stripped)
    dtypes: dict = field(default_factory=dict)         # kernel component -> {dtype: bytes}
    bss_bytes: int = 0                                 # zeroed RAM, not in the file
    method: str = ""                                   # how code was attributed


# ---------------------------------------------------------------------------- inputs

def read_plan(path: str) -> list:
    """kernel_plan.yaml (codegen/resolve.py) -> [KernelInfo]."""
    with open(path) as f:
        data = yaml.safe_load(f) or {}
    return [KernelInfo(k["op"], k["native"], k.get("wrapper", ""), k["source"])
            for k in data.get("kernels", [])]


def parse_map(text: str) -> list:
    """GNU ld -Map text -> [(output section, address, size, object)] for every placed
    input section. A long section name wraps its address and size onto the next line;
    debug sections count their addresses from 0, so callers keep only loaded sections.
    """
    placed = []
    pending = False
    in_memory_map = False
    output = ""
    for line in text.splitlines():
        if line.startswith("Linker script and memory map"):
            in_memory_map = True
            continue
        if not in_memory_map:
            continue
        top = re.match(r"^(\.\S+)", line)
        if top:
            output = top.group(1)
            continue
        if re.match(r"^ \.\S+\s*$", line):
            pending = True
            continue
        m = re.match(r"^ (\.\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if m and (m.group(1) or pending):
            address, size = int(m.group(2), 16), int(m.group(3), 16)
            if address and size:
                placed.append((output, address, size, m.group(4).strip()))
        pending = False
    return placed


def demangle(names: list) -> dict:
    """Mangled -> demangled, through one c++filt process (binutils)."""
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                         text=True, check=True).stdout.splitlines()
    return dict(zip(names, out))


def stripped_size(binary: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stripped")
        subprocess.run(["strip", "-o", out, binary], check=True)
        return os.path.getsize(out)


# ---------------------------------------------------------------------- classifiers

def component_of_path(path: str, kernels_by_source: dict) -> str | None:
    """A source file or input object path -> component, None when it says nothing."""
    p = path.replace("\\", "/")
    archive = re.search(r"lib(stdc\+\+|supc\+\+|gcc|gcc_eh|c_nonshared)\.a\(", p)
    if archive:
        return {"stdc++": LIBSTDCXX, "supc++": LIBSTDCXX, "gcc": LIBGCC,
                "gcc_eh": LIBGCC, "c_nonshared": LIBC}[archive.group(1)]
    for source, op in kernels_by_source.items():
        stem = os.path.splitext(source)[0]
        if p.endswith(source) or re.search(re.escape(stem) + r"\.o$", p):
            return KERNEL_PREFIX + op
    rules = [("/program_generated.h", VERIFIER), ("/flatbuffers/", VERIFIER),
             ("runtime/platform/", PLATFORM), ("runtime/loader/", LOADER),
             ("runtime/executor/", EXECUTOR), ("runtime/kernel/registry", REGISTRY),
             ("runtime/kernel/", KERNEL_SUPPORT), ("runtime/core/", CORE),
             ("runtime/module/", MODULE), ("kernels/portable/util/", KERNEL_UTILS),
             ("gen/register_kernels", GLUE), ("gen/functions.h", GLUE),
             ("gen/selected_dtypes.h", GLUE), ("tests/size/app/", APP), ("runner/", APP),
             ("/include/c++/", LIBSTDCXX), ("/crt", LIBC), ("Scrt1.o", LIBC),
             ("crti.o", LIBC), ("crtn.o", LIBC)]
    for needle, component in rules:
        if needle in p:
            return component
    return None


def component_of_symbol(name: str, kernels: list) -> str | None:
    """A demangled symbol name -> component, None when the name says nothing."""
    for k in kernels:
        detail = k.native.rsplit("::", 1)[0] + "::" + k.native.rsplit("::", 1)[1][:-4] + "_detail::"
        if name.startswith(k.native + "(") or name.startswith(detail) or (
                k.wrapper and name.startswith("tailor::gen::" + k.wrapper + "(")):
            return KERNEL_PREFIX + k.op
    rules = [("tailor::gen::", GLUE), ("tailor::native::", KERNEL_UTILS),
             ("tailor::fb::", VERIFIER), ("flatbuffers::", VERIFIER),
             ("tailor::internal::log", PLATFORM), ("tl_pal_", PLATFORM),
             ("tailor::registry", REGISTRY), ("tailor::MmapDataLoader", LOADER),
             ("tailor::FileDataLoader", LOADER), ("tailor::BufferDataLoader", LOADER),
             ("tailor::Module", MODULE), ("tailor::Program", EXECUTOR),
             ("tailor::MethodMeta", EXECUTOR), ("tailor::Method", EXECUTOR),
             ("tailor::internal::", EXECUTOR), ("tailor::MemoryAllocator", EXECUTOR),
             ("tailor::", CORE), ("std::", LIBSTDCXX), ("__gnu_cxx::", LIBSTDCXX),
             ("__cxa", LIBSTDCXX), ("operator new", LIBSTDCXX),
             ("operator delete", LIBSTDCXX), ("_Unwind", LIBGCC), ("main", APP)]
    for prefix, component in rules:
        if name.startswith(prefix):
            return component
    return None


def dtype_of_symbol(name: str) -> str | None:
    m = _DTYPE_PATTERN.search(name)
    return dict(_DTYPES)[m.group(1)] if m else None


def component_of_section(name: str) -> str:
    if name.startswith(_UNWIND_SECTIONS):
        return UNWIND
    if name.startswith(_DYNAMIC_SECTIONS):
        return DYNAMIC
    if name.startswith((".init", ".fini", ".preinit")):
        return LIBC
    return OTHER


def _is_shared_object(path: str) -> bool:
    """Objects that hold several components: kernel shards and LTO partitions."""
    return bool(re.search(r"gen/kernels_\d+\.o$|\.ltrans\d*\.ltrans\.o$|ltrans", path))


# ----------------------------------------------------------------------- attribution

def _line_ranges(elf) -> list:
    """[(low, high, file path)] from the DWARF line tables; [] without debug info."""
    if not elf.has_dwarf_info():
        return []
    dwarf = elf.get_dwarf_info()
    ranges = []
    for cu in dwarf.iter_CUs():
        program = dwarf.line_program_for_CU(cu)
        if program is None:
            continue
        header = program.header
        version = header["version"]
        files, dirs = header["file_entry"], header["include_directory"]
        comp_dir = cu.get_top_DIE().attributes.get("DW_AT_comp_dir")
        comp_dir = comp_dir.value.decode() if comp_dir else ""

        def path_of(index):
            entry = files[index if version >= 5 else index - 1]
            name = entry.name.decode()
            d = entry.dir_index if version >= 5 else entry.dir_index - 1
            directory = dirs[d].decode() if 0 <= d < len(dirs) else comp_dir
            return name if name.startswith("/") else os.path.join(directory, name)

        previous = None
        for entry in program.get_entries():
            state = entry.state
            if state is None:
                continue
            if previous is not None and state.address > previous.address:
                ranges.append((previous.address, state.address, path_of(previous.file)))
            previous = None if state.end_sequence else state
    return ranges


def attribute(binary: str, map_text: str, kernels: list) -> Attribution:
    """Bytes of `binary` (stripped) per component; see the module docstring."""
    kernels_by_source = {k.source: k.op for k in kernels}
    with open(binary, "rb") as f:
        elf = ELFFile(f)
        sections = [s for s in elf.iter_sections() if s["sh_flags"] & SH_FLAGS.SHF_ALLOC]
        loaded = {s.name for s in sections}
        placed = sorted((address, size, obj) for output, address, size, obj
                        in parse_map(map_text) if output in loaded)
        owner = {}  # section name -> [component per byte]
        bss = 0
        for s in sections:
            if s["sh_type"] == "SHT_NOBITS":
                bss += s["sh_size"]
            else:
                owner[s.name] = [None] * s["sh_size"]
        by_address = [(s["sh_addr"], s["sh_addr"] + s["sh_size"], s.name)
                      for s in sections if s.name in owner]

        def assign(low, high, component, only_empty=True):
            for start, end, name in by_address:
                lo, hi = max(low, start), min(high, end)
                if lo >= hi:
                    continue
                cells = owner[name]
                for i in range(lo - start, hi - start):
                    if cells[i] is None or not only_empty:
                        cells[i] = component

        def object_at(address):
            # Map entries are sorted by address; the last one starting at or before it.
            lo, hi = 0, len(placed)
            while lo < hi:
                mid = (lo + hi) // 2
                if placed[mid][0] <= address:
                    lo = mid + 1
                else:
                    hi = mid
            if lo and placed[lo - 1][0] + placed[lo - 1][1] > address:
                return placed[lo - 1][2]
            return None

        # Layer 0: linker-made sections belong to the linker whatever the map says.
        for start, end, name in by_address:
            if name.startswith(_UNWIND_SECTIONS + _DYNAMIC_SECTIONS):
                assign(start, end, component_of_section(name))

        # Layer 1: code by DWARF line table.
        lines = _line_ranges(elf)
        for low, high, path in lines:
            component = component_of_path(path, kernels_by_source)
            if component:
                assign(low, high, component)

        # Layer 2: symbols, by their object or (for shared objects) their name.
        symtab = elf.get_section_by_name(".symtab")
        symbols = [s for s in (symtab.iter_symbols() if symtab else [])
                   if s["st_size"] and s["st_info"]["type"] in ("STT_FUNC", "STT_OBJECT")]
        names = demangle(sorted({s.name for s in symbols}))
        dtypes = collections.defaultdict(collections.Counter)
        seen = set()
        for s in symbols:
            address, size = s["st_value"], s["st_size"]
            if (address, size) in seen:  # aliases (C1/C2 constructors, folded templates)
                continue
            seen.add((address, size))
            name = names.get(s.name, s.name)
            obj = object_at(address) or ""
            by_name = component_of_symbol(name, kernels)
            by_object = None if _is_shared_object(obj) else component_of_path(
                obj, kernels_by_source)
            component = by_object or by_name
            if component is None and obj.endswith(".o") and not _is_shared_object(obj):
                component = OTHER
            if component:
                assign(address, address + size, component)
            dtype = dtype_of_symbol(name)
            if dtype and component and component.startswith(KERNEL_PREFIX):
                dtypes[component][dtype] += size

        # Layer 3: what is left of each input section, by its object.
        for address, size, obj in placed:
            component = None if _is_shared_object(obj) else component_of_path(
                obj, kernels_by_source)
            if component is None and _is_shared_object(obj):
                component = STRINGS
            assign(address, address + size, component or OTHER)

        components = collections.Counter()
        for name, cells in owner.items():
            for cell in cells:
                components[cell or component_of_section(name)] += 1
    total = stripped_size(binary)
    components[ELF_OVERHEAD] += total - sum(components.values())
    method = ("DWARF line table + symbols + link map" if lines
              else "symbols + link map (build with -g for line-level attribution)")
    return Attribution(binary, total, dict(components), {k: dict(v) for k, v in dtypes.items()},
                       bss, method)


def attribute_files(binary: str, map_path: str | None, plan_path: str | None) -> Attribution:
    with open(map_path or binary + ".map") as f:
        map_text = f.read()
    return attribute(binary, map_text, read_plan(plan_path) if plan_path else [])


# ---------------------------------------------------------------------------- report

def ordered(components: dict) -> list:
    """[(component, bytes)] largest first, zero entries dropped."""
    return sorted(((k, v) for k, v in components.items() if v), key=lambda kv: (-kv[1], kv[0]))


def summarize(main: Attribution, plan: list, core: Attribution | None,
              contrast: Attribution | None, contrast_plan: list) -> dict:
    """The report's numbers: largest items and what selecting less would save."""
    largest = ordered(main.components)[:3]
    ops = []
    for k in plan:
        bytes_ = main.components.get(KERNEL_PREFIX + k.op, 0)
        ops.append({"op": k.op, "kernel_bytes": bytes_,
                    "dtypes": main.dtypes.get(KERNEL_PREFIX + k.op, {})})
    ops.sort(key=lambda o: -o["kernel_bytes"])
    summary = {"largest": largest, "ops": ops}
    if core is not None:
        summary["kernels_and_glue_bytes"] = main.stripped_bytes - core.stripped_bytes
    if contrast is not None:
        selected = {k.op for k in plan}
        summary["select_all_extra_bytes"] = contrast.stripped_bytes - main.stripped_bytes
        summary["select_all_kernels"] = [
            {"op": k.op, "bytes_all": contrast.components.get(KERNEL_PREFIX + k.op, 0),
             "bytes_here": main.components.get(KERNEL_PREFIX + k.op, 0),
             "selected_here": k.op in selected}
            for k in contrast_plan]
    return summary


def _fmt(n: int) -> str:
    return "{:,}".format(n)


def render_markdown(title: str, binaries: dict, summary: dict) -> str:
    main = binaries["size_app"]
    lines = ["# Size report: %s" % title, "",
             "Stripped bytes of each binary (`strip`); every byte is attributed to one "
             "component (%s). size_app is the runtime as an application ships it: "
             "tests/size/app/size_app.cpp (load a program, run `forward`) linked with this "
             "build's kernels; core is the same app with an empty kernel table; runner is "
             "the test runner (npy I/O, checks)." % main.method, ""]
    names = list(binaries)
    lines.append("| binary | stripped bytes | .bss |")
    lines.append("|---|---:|---:|")
    for name in names:
        lines.append("| %s | %s | %s |" % (name, _fmt(binaries[name].stripped_bytes),
                                           _fmt(binaries[name].bss_bytes)))
    lines += ["", "## Components", ""]
    all_components = [c for c, _ in ordered(main.components)]
    for name in names:
        for c, _ in ordered(binaries[name].components):
            if c not in all_components:
                all_components.append(c)
    lines.append("| component | " + " | ".join(names) + " |")
    lines.append("|---|" + "---:|" * len(names))
    for c in all_components:
        lines.append("| %s | %s |" % (c, " | ".join(
            _fmt(binaries[n].components.get(c, 0)) for n in names)))
    lines.append("| **total** | %s |" % " | ".join(
        "**%s**" % _fmt(binaries[n].stripped_bytes) for n in names))
    lines += ["", "## Largest items (size_app)", ""]
    for i, (c, n) in enumerate(summary["largest"], 1):
        lines.append("%d. %s: %s bytes (%.0f%%)" % (i, c, _fmt(n),
                                                   100.0 * n / main.stripped_bytes))
    lines += ["", "## What selecting less would save", ""]
    if "kernels_and_glue_bytes" in summary:
        lines.append("- Every kernel and the table together cost %s bytes over the core "
                     "(size_app - core)." % _fmt(summary["kernels_and_glue_bytes"]))
    for o in summary["ops"]:
        per_dtype = ", ".join("%s %s" % (d, _fmt(n)) for d, n in sorted(o["dtypes"].items()))
        lines.append("- Dropping %s saves about %s bytes of kernel code%s." % (
            o["op"], _fmt(o["kernel_bytes"]),
            " (template instances per dtype: %s; dtype cases inlined into the kernel "
            "are not separable)" % per_dtype if per_dtype else ""))
    if "select_all_extra_bytes" in summary:
        lines.append("- select=all (every kernel and dtype) costs %s bytes more; per "
                     "kernel, all dtypes against this selection:"
                     % _fmt(summary["select_all_extra_bytes"]))
        lines += ["", "| kernel | select=all | this build |", "|---|---:|---:|"]
        for k in sorted(summary["select_all_kernels"], key=lambda k: -k["bytes_all"]):
            lines.append("| %s | %s | %s |" % (k["op"], _fmt(k["bytes_all"]),
                                               _fmt(k["bytes_here"]) if k["selected_here"]
                                               else "not selected"))
    return "\n".join(lines) + "\n"


def render_json(title: str, binaries: dict, summary: dict) -> str:
    data = {"title": title,
            "binaries": {n: {"path": a.path, "stripped_bytes": a.stripped_bytes,
                             "bss_bytes": a.bss_bytes, "method": a.method,
                             "components": dict(ordered(a.components)), "dtypes": a.dtypes}
                         for n, a in binaries.items()},
            "summary": summary}
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def render_png(title: str, binaries: dict, path: str) -> None:
    """One horizontal stacked bar per binary, components in the same colors."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(binaries)
    order = [c for c, _ in ordered(binaries[names[-1]].components)]
    for n in names:
        order += [c for c, _ in ordered(binaries[n].components) if c not in order]
    colors = plt.get_cmap("tab20").colors
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.7 * len(names) + 0.22 * len(order)))
    for i, c in enumerate(order):
        lefts = [sum(binaries[n].components.get(o, 0) for o in order[:i]) for n in names]
        widths = [binaries[n].components.get(c, 0) / 1024.0 for n in names]
        ax.barh(names, widths, left=[x / 1024.0 for x in lefts], color=colors[i % 20],
                label=c, edgecolor="white", linewidth=0.5)
    for y, n in enumerate(names):
        ax.text(binaries[n].stripped_bytes / 1024.0, y, " %s B" % _fmt(binaries[n].stripped_bytes),
                va="center", fontsize=8)
    ax.set_xlabel("stripped KiB")
    ax.set_title("Size: " + title)
    ax.invert_yaxis()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18 - 0.05 * len(names) / 4),
              ncol=3, fontsize=7, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("map", nargs="?", help="link map (default: BINARY.map)")
    parser.add_argument("--plan", help="kernel_plan.yaml of the build")
    parser.add_argument("--core", help="the same app linked with an empty kernel table")
    parser.add_argument("--runner", help="the build's runner")
    parser.add_argument("--contrast", help="size_app of the select=all build")
    parser.add_argument("--contrast-plan", help="kernel_plan.yaml of the select=all build")
    parser.add_argument("--title", default="")
    parser.add_argument("--out", help="write OUT.md, OUT.json and OUT.png")
    args = parser.parse_args(argv)

    plan = read_plan(args.plan) if args.plan else []
    main_attr = attribute_files(args.binary, args.map, args.plan)
    if not args.out:
        print("%s: %s stripped bytes (%s)" % (args.binary, _fmt(main_attr.stripped_bytes),
                                             main_attr.method))
        for c, n in ordered(main_attr.components):
            print("%10s  %s" % (_fmt(n), c))
        return 0
    binaries = {"size_app": main_attr}
    contrast_plan = read_plan(args.contrast_plan) if args.contrast_plan else []
    if args.contrast:
        binaries["size_app select=all"] = attribute_files(args.contrast, None,
                                                          args.contrast_plan)
    if args.core:
        binaries["core"] = attribute_files(args.core, None, None)
    if args.runner:
        binaries["runner"] = attribute_files(args.runner, None, args.plan)
    summary = summarize(main_attr, plan, binaries.get("core"),
                        binaries.get("size_app select=all"), contrast_plan)
    title = args.title or os.path.basename(args.binary)
    with open(args.out + ".md", "w") as f:
        f.write(render_markdown(title, binaries, summary))
    with open(args.out + ".json", "w") as f:
        f.write(render_json(title, binaries, summary))
    render_png(title, binaries, args.out + ".png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
