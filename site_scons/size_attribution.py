"""Linked binary + GNU ld link map -> bytes per component (the report: size_report.py).

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
     in objects that hold several components (LTO partitions);
  5. the rest of each input section the link map lists, by its object;
and ELF headers plus page padding make up the difference to the stripped file size.
Kernel template instances whose names carry a C++ element type are also counted per
dtype: that is what selecting the dtype costs where it can be attributed.
"""

import collections
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field

import yaml
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from kernel_units import object_pattern

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
        if p.endswith(source) or re.search(object_pattern(source), p):
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
    """Objects that hold several components: LTO partitions."""
    return "ltrans" in path


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


def ordered(components: dict) -> list:
    """[(component, bytes)] largest first, zero entries dropped."""
    return sorted(((k, v) for k, v in components.items() if v), key=lambda kv: (-kv[1], kv[0]))
