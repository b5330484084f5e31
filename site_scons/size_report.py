"""Linked binary + GNU ld link map -> bytes per component -> size report (md, json, png).

Every byte of the stripped binary goes to exactly one component. Sections the linker
makes (dynamic tables, unwind tables) are its own; the rest is claimed in layers, each
taking only bytes no earlier layer took:
  1. code written in a .cpp file, by the DWARF line table (builds with -g; -g does not
     change the code), so code LTO inlined elsewhere counts for the file it came from;
  2. kernel symbols (native function, its lambdas, its <op>_detail namespace, its
     wrapper in the glue, from the kernel plan): header code inlined into a kernel is
     that kernel's cost;
  3. header code elsewhere, by the line table;
  4. other symbols (pyelftools), by the link map's object at their address, or by name
     in objects that hold several components (kernel shards, LTO partitions);
  5. the rest of each input section the link map lists, by its object;
and ELF headers plus page padding make up the difference to the stripped file size.
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

from kernel_shards import is_shard_object

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
STRINGS = "read-only data (merged strings, tables)"
DYNAMIC = "ELF: dynamic linking, notes"
UNWIND = "ELF: unwind tables"
ELF_OVERHEAD = "ELF: headers, alignment padding"
OTHER = "other"
KERNEL_PREFIX = "kernel "
BACKEND_API = "backend interface (runtime/backend)"
BACKEND_PREFIX = "backend "  # + the directory under backends/: "backend xnnpack"

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


def kernel_components(kernels: list) -> dict:
    """Kernel source file -> its component, "kernel <op> + <op>..." for every op it serves.

    Code is attributed per source file: a file's ops share helpers the line table and
    the linker cannot split between them.
    """
    ops = collections.defaultdict(list)
    for k in kernels:
        if k.op not in ops[k.source]:
            ops[k.source].append(k.op)
    return {source: KERNEL_PREFIX + " + ".join(names) for source, names in ops.items()}


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

def component_of_path(path: str, kernel_groups: dict) -> str | None:
    """A source file or input object path -> component, None when it says nothing."""
    p = path.replace("\\", "/")
    archive = re.search(r"lib(stdc\+\+|supc\+\+|gcc|gcc_eh|c_nonshared)\.a\(", p)
    if archive:
        return {"stdc++": LIBSTDCXX, "supc++": LIBSTDCXX, "gcc": LIBGCC,
                "gcc_eh": LIBGCC, "c_nonshared": LIBC}[archive.group(1)]
    for source, component in kernel_groups.items():
        stem = os.path.splitext(source)[0]
        if p.endswith(source) or re.search(re.escape(stem) + r"\.o$", p):
            return component
    rules = [("/program_generated.h", VERIFIER), ("/flatbuffers/", VERIFIER),
             ("runtime/platform/", PLATFORM), ("runtime/loader/", LOADER),
             ("runtime/executor/", EXECUTOR), ("runtime/kernel/registry", REGISTRY),
             ("runtime/kernel/", KERNEL_SUPPORT), ("runtime/core/", CORE),
             ("runtime/module/", MODULE), ("runtime/backend/", BACKEND_API),
             ("kernels/portable/util/", KERNEL_UTILS),
             ("gen/register_kernels", GLUE), ("gen/functions.h", GLUE),
             ("gen/selected_dtypes.h", GLUE), ("tests/size/app/", APP), ("runner/", APP),
             ("/include/c++/", LIBSTDCXX), ("/crt", LIBC), ("Scrt1.o", LIBC),
             ("crti.o", LIBC), ("crtn.o", LIBC)]
    for needle, component in rules:
        if needle in p:
            return component
    backend = re.search(r"backends/([A-Za-z0-9_]+)/", p)
    return BACKEND_PREFIX + backend.group(1) if backend else None


def component_of_symbol(name: str, kernels: list, kernel_groups: dict) -> str | None:
    """A demangled symbol name -> component, None when the name says nothing.

    A kernel owns its native function (and the lambdas in it), its file's
    `<op>_detail` namespace and its unboxing wrapper in the generated glue.
    """
    function = _function_name(name)
    for k in kernels:
        namespace, base = k.native.rsplit("::", 1)
        detail = "%s::%s_detail::" % (namespace, re.sub(r"_out$", "", base))
        if (function == k.native or name.startswith(k.native + "(")
                or function.startswith(detail)
                or (k.wrapper and function == "tailor::gen::" + k.wrapper)):
            return kernel_groups[k.source]
    rules = [("tailor::gen::", GLUE), ("tailor::native::", KERNEL_UTILS),
             ("tailor::fb::", VERIFIER), ("flatbuffers::", VERIFIER),
             ("tailor::internal::log", PLATFORM), ("tl_pal_", PLATFORM),
             ("tailor::registry", REGISTRY), ("tailor::MmapDataLoader", LOADER),
             ("tailor::FileDataLoader", LOADER), ("tailor::BufferDataLoader", LOADER),
             ("tailor::Module", MODULE), ("tailor::Backend", BACKEND_API),
             ("tailor::Program", EXECUTOR),
             ("tailor::MethodMeta", EXECUTOR), ("tailor::Method", EXECUTOR),
             ("tailor::internal::", EXECUTOR), ("tailor::MemoryAllocator", EXECUTOR),
             ("tailor::", CORE), ("std::", LIBSTDCXX), ("__gnu_cxx::", LIBSTDCXX),
             ("__cxa", LIBSTDCXX), ("operator new", LIBSTDCXX),
             ("operator delete", LIBSTDCXX), ("_Unwind", LIBGCC), ("main", APP)]
    for prefix, component in rules:
        if function.startswith(prefix) or name.startswith(prefix):
            return component
    return None


def _function_name(name: str) -> str:
    """"void ns::f<float>(int, long)" -> "ns::f<float>": the name without parameters,
    return type or clone suffix."""
    head = name.split("(", 1)[0]
    depth, start = 0, 0
    for i, ch in enumerate(head):  # the return type ends at the last space outside <>
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == " " and depth == 0:
            start = i + 1
    return head[start:]


def dtype_of_symbol(name: str) -> str | None:
    """The dtype a template instance is for, from its own template arguments only."""
    m = _DTYPE_PATTERN.search(_function_name(name) + ">")
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
    return is_shard_object(path) or "ltrans" in path


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
    groups = kernel_components(kernels)
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

        def assign(low, high, component):
            """Gives [low, high) to `component` where unclaimed; returns bytes claimed."""
            claimed = 0
            for start, end, name in by_address:
                lo, hi = max(low, start), min(high, end)
                cells = owner[name]
                for i in range(lo - start, hi - start):
                    if cells[i] is None:
                        cells[i] = component
                        claimed += 1
            return claimed

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

        # The layers below fill only bytes no earlier layer claimed.
        lines = [(low, high, path, component_of_path(path, groups))
                 for low, high, path in _line_ranges(elf)]
        symtab = elf.get_section_by_name(".symtab")
        symbols = [s for s in (symtab.iter_symbols() if symtab else [])
                   if s["st_size"] and s["st_info"]["type"] in ("STT_FUNC", "STT_OBJECT")]
        names = demangle(sorted({s.name for s in symbols}))
        unique = {}  # aliases (C1/C2 constructors, folded templates) count once
        for s in symbols:
            unique.setdefault((s["st_value"], s["st_size"]), names.get(s.name, s.name))

        def by_symbol(address, name):
            obj = object_at(address) or ""
            if _is_shared_object(obj) or not obj:
                return component_of_symbol(name, kernels, groups)
            return component_of_path(obj, groups) or OTHER

        # 1. Code written in a .cpp file, by the DWARF line table: wherever LTO inlined it.
        for low, high, path, component in lines:
            if component and not path.endswith(".h"):
                assign(low, high, component)
        # 2. Kernel symbols: header code inlined into a kernel is the kernel's cost.
        dtypes = collections.defaultdict(collections.Counter)
        for (address, size), name in unique.items():
            component = by_symbol(address, name)
            if component and component.startswith(KERNEL_PREFIX):
                claimed = assign(address, address + size, component)
                dtype = dtype_of_symbol(name)
                if dtype:
                    dtypes[component][dtype] += claimed
        # 3. Header code elsewhere, by the line table.
        for low, high, path, component in lines:
            if component:
                assign(low, high, component)
        # 4. The other symbols, by their object or (shared objects) their name.
        for (address, size), name in unique.items():
            component = by_symbol(address, name)
            if component:
                assign(address, address + size, component)
        # 5. What is left of each input section, by its object: in a shared object that
        #    is data no symbol names (merged string literals, constant tables).
        for address, size, obj in placed:
            component = (STRINGS if _is_shared_object(obj)
                         else component_of_path(obj, groups) or OTHER)
            assign(address, address + size, component)

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


_RUNTIME = {PLATFORM, LOADER, EXECUTOR, VERIFIER, REGISTRY, CORE, KERNEL_SUPPORT, MODULE,
            BACKEND_API}
_LIBRARIES = {LIBSTDCXX, LIBGCC, LIBC}


def category(component: str) -> str:
    """The five groups the chart compares binaries by."""
    if component in _RUNTIME:
        return "runtime core"
    if component.startswith((KERNEL_PREFIX, BACKEND_PREFIX)) or component in (GLUE,
                                                                              KERNEL_UTILS):
        return "kernels, backends, glue"
    if component == APP:
        return "application"
    if component in _LIBRARIES:
        return "libstdc++, libgcc, libc"
    return "ELF, data, other"


def render_png(title: str, binaries: dict, path: str) -> None:
    """Top: size_app and core by component. Bottom: every binary by category."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = plt.get_cmap("tab20").colors
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 8.5),
                                      gridspec_kw={"height_ratios": [1.3, 1]})

    def stacked(ax, rows, order, palette):
        for i, part in enumerate(order):
            left = [sum(row.get(p, 0) for p in order[:i]) / 1024.0 for _, row in rows]
            width = [row.get(part, 0) / 1024.0 for _, row in rows]
            ax.barh([name for name, _ in rows], width, left=left, label=part,
                    color=palette[i % len(palette)], edgecolor="white", linewidth=0.5)
        for y, (name, row) in enumerate(rows):
            total = sum(row.values())
            ax.text(total / 1024.0, y, " {:,} B".format(total), va="center", fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("stripped KiB")
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7, frameon=False)

    small = [(n, binaries[n].components) for n in ("size_app", "core") if n in binaries]
    order = [c for c, _ in ordered(binaries["size_app"].components)]
    stacked(top, small, order, colors)
    top.set_title("%s: size_app and core by component" % title)
    grouped = []
    for name, a in binaries.items():
        row = collections.Counter()
        for c, n in a.components.items():
            row[category(c)] += n
        grouped.append((name, dict(row)))
    groups = ["runtime core", "kernels, backends, glue", "application",
              "libstdc++, libgcc, libc", "ELF, data, other"]
    stacked(bottom, grouped, groups, colors[::2])
    bottom.set_title("every binary by category")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
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
