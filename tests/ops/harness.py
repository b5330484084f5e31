"""The op test harness: OpCase (cases.py) -> program, runtime build, run, compare.

For each (case, dtype): a tiny module that calls the op once per item of `shapes` is
exported with exporter.export to build/test-ops/cases/<key>/ together with its inputs,
the eager outputs and the program's op list (codegen.oplist), cached by a hash of the
case, torch's version, the program format's version and the exporter's sources. What
the cache lacks is exported in batches on every core (export_many: the same programs,
with torch's per-call decomposition setup paid once per batch). Per kernel library, the resolver
(codegen.resolve) decides which programs the library can run; those are built into ONE
runtime through the real flow (`scons programs=... libraries=<lib>,prim`), and each is
run with `bin/runner` on a 64 KB thread stack (--stack) and compared with torch: exact
for integer and Bool outputs, within a per-dtype tolerance for floating ones. TAILOR_SANITIZE=address builds and runs
those runtimes under ASan + UBSan (`scons sanitize=address`); a sanitizer report fails
the case.

XNNPACK is one more "library": each case is exported again with its partitioner
(build/test-ops/cases/<case>_<dtype>_xnnpack_<hash>/, the hash covering the backend's
Python sources too), and the cases it delegates whole (every call but the permutes of
permuted inputs) are built into ONE host-xnnpack runtime (`scons programs=...
target=host-xnnpack`); the others are skipped with the partitioner's reasons. A case
with an op the partitioner does not know or a dtype it refuses skips without that export.

The optimized and quantized libraries run again at each lower CPU level of this machine
("optimized@avx2": TL_CPU_LEVEL caps the same runtime), and built for linux-aarch64
("optimized@aarch64": NEON kernels, every run under qemu-aarch64).
"""

import functools
import glob
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from codegen import build_layout
from codegen.errors import ManifestError
from codegen.kernel_manifest import load_library
from codegen.oplist import oplist_to_yaml, ops_from_program, parse_oplist
from codegen.resolve import resolve_kernels
from codegen.schema import load_aten_schemas
from codegen.target import load_target
from tests.conftest import REPO, SCONS
from tests.ops.cases import CASES, Arg, Computed, Constant, Given, In, OpCase, Tensors

BUILD = build_layout.tree("test-ops")
KERNELS_DIR = os.path.join(REPO, "manifests", "kernels")
XNNPACK = "xnnpack"                 # the delegate, run as a library of its own
XNNPACK_TARGET = "host-xnnpack"
# The only call a case delegated to XNNPACK may leave to the kernels: the permute of a
# permuted input (XNNPACK has no transpose), which is how the case feeds the op.
INPUT_PERMUTE = "aten::permute_copy.out"
# Dtypes of an op's tensors the partitioner does not refuse outright: max pooling's
# indices (Long), claimed when nothing reads them; a PReLU's x > 0 (Bool), folded into
# the PReLU node of its where.
UNCHECKED_DTYPES = {"aten::max_pool2d_with_indices.out": ("Long",),
                    "aten::gt.Scalar_out": ("Bool",), "aten::where.self_out": ("Bool",)}

# Floating dtypes: (atol, rtol) unless the case says otherwise. Half and BFloat16 allow
# one rounding step of difference (torch may round an intermediate the kernel keeps).
TOLERANCE = {"Float": (1e-5, 1e-5), "Double": (1e-10, 1e-10), "Half": (1e-3, 2e-3),
             "BFloat16": (1e-2, 1.6e-2)}
_NUMPY_FLOATS = {np.float16: "Half", np.float32: "Float", np.float64: "Double"}


# Libraries with micro-kernels per CPU instruction-set level (runtime/kernel/cpu_level.h):
# besides the default run (the best level), their cases run once more per lower level
# this machine has, as "<library>@<level>", with TL_CPU_LEVEL capping the runner.
LEVELED = ("optimized", "quantized")
HOST_TARGET = "host"
# "<library>@aarch64": a LEVELED library's runtime built for this target (its NEON
# kernels) and run under the target's emulator (qemu-aarch64).
CROSS = "aarch64"
CROSS_TARGET = "linux-aarch64"
# `scons sanitize=` of every runtime the harness builds; the environment its runs get.
SANITIZE = os.environ.get("TAILOR_SANITIZE", "none")
SANITIZER_EXIT = 99  # never the runner's own exit codes
# Every case runs on a thread with this much stack (runner --stack): no kernel may keep
# more than 16 KB on it (large buffers come from the kernel scratch), and embedded targets
# give threads little more. aarch64's glibc starts no thread below 128 KB (its
# PTHREAD_STACK_MIN, for 64 KB pages). Not under the sanitizers, whose redzones inflate
# every frame.
STACK = "64K" if SANITIZE == "none" else None
CROSS_STACK = "128K"
SANITIZER_ENV = {
    "ASAN_OPTIONS": f"exitcode={SANITIZER_EXIT}:detect_leaks=1",
    "UBSAN_OPTIONS": f"exitcode={SANITIZER_EXIT}:print_stacktrace=1:halt_on_error=1",
} if SANITIZE != "none" else {}


def cpu_flags() -> set[str]:
    """The CPU's feature flags as /proc/cpuinfo lists them (x86: avx2, avx512_vnni, ...)."""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.partition(":")[2].split())
    return set()


def cpu_levels() -> list[str]:
    """The instruction-set levels this machine runs, lowest first (x86-64: baseline, avx2,
    avx512 as /proc/cpuinfo lists AVX2+FMA and AVX-512F; elsewhere baseline only)."""
    levels = ["baseline"]
    if platform.machine() not in ("x86_64", "AMD64"):
        return levels
    flags = cpu_flags()
    if {"avx2", "fma"} <= flags:
        levels.append("avx2")
        if "avx512f" in flags:
            levels.append("avx512")
    return levels


def libraries() -> list[str]:
    """Every library the cases run against: manifests/kernels/*.yaml but prim (a LEVELED
    one also capped at each lower CPU level, and built for aarch64), then XNNPACK."""
    names = []
    for name in sorted(os.path.splitext(os.path.basename(p))[0]
                       for p in glob.glob(os.path.join(KERNELS_DIR, "*.yaml"))
                       if not p.endswith("prim.yaml")):
        names.append(name)
        if name in LEVELED:
            names += [f"{name}@{level}" for level in cpu_levels()[:-1]]
            names.append(f"{name}@{CROSS}")
    return names + [XNNPACK]


def split_library(library: str) -> tuple[str, str]:
    """"optimized@avx2" -> ("optimized", "avx2"); "portable" -> ("portable", "");
    "optimized@aarch64" -> ("optimized", "aarch64")."""
    base, _, level = library.partition("@")
    return base, level


@functools.cache
def fallbacks(library: str) -> tuple[str, ...]:
    """The libraries after `library` in the host target's kernel_libraries, which take
    the calls it has no kernel for (optimized -> portable, prim); prim for a library the
    target does not list."""
    order = load_target(os.path.join(REPO, "manifests", "targets",
                                     f"{HOST_TARGET}.yaml")).kernel_libraries
    rest = tuple(order[order.index(library) + 1:]) if library in order else ()
    return rest or ("prim",)


def case_params() -> list[tuple[OpCase, str]]:
    return [(case, dtype) for case in CASES for dtype in case.dtypes]


def _torch_dtype(name: str):
    from exporter.scalar_types import SCALAR_TYPE_NAMES  # torch: only when exporting
    return next(dtype for dtype, n in SCALAR_TYPE_NAMES.items() if n == name)


def _as_in(item):
    """A call item with every tensor spelled as an `In` (a bare shape tuple is one)."""
    if isinstance(item, (In, Arg)) or item is None:
        return item
    if isinstance(item, Tensors):
        return Tensors(tuple(_as_in(i) for i in item.items))
    return In(tuple(item))


def _inputs_of(case: OpCase) -> list[list]:
    return [[_as_in(item) for item in call] for call in case.shapes]


def _permuted_inputs(case: OpCase) -> int:
    return sum(1 for call in _inputs_of(case) for spec in _tensor_specs(call) if spec.perm)


def _tensor_specs(call: list) -> list[In]:
    """The call's tensors in order, lists flattened: the program's inputs."""
    specs = []
    for item in call:
        if isinstance(item, In):
            specs.append(item)
        elif isinstance(item, Tensors):
            specs += [i for i in item.items if i is not None]
    return specs


def _sources_digest(folder: str) -> str:
    """A short hash of the Python sources in `folder` and its subfolders (relative to the
    repository)."""
    digest = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(REPO, folder, "**", "*.py"), recursive=True)):
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:10]


def _exporter_fingerprint() -> str:
    """What besides the case decides a cached export: torch's version, the program
    format's and the exporter's sources (a stale program would test the old exporter)."""
    import torch
    from exporter.export import PROGRAM_VERSION
    return (f"torch {torch.__version__}, program {PROGRAM_VERSION}, "
            f"exporter {_sources_digest('exporter')}, program {_sources_digest('program')}")


def _xnnpack_fingerprint(fingerprint: str) -> str:
    """The backend's Python sources join the key too: they decide which cases XNNPACK
    runs, and a stale program would skip or fail a case silently."""
    return f"{fingerprint}, xnnpack {_sources_digest('backends/xnnpack')}"


@dataclass(frozen=True)
class Exported:
    """One (case, dtype) program on disk."""
    case: OpCase
    dtype: str
    dir: str               # absolute
    pte: str               # relative to the repo (scons programs= takes these)
    inputs: tuple          # absolute .npy paths
    expected: tuple
    ops: tuple             # the program's operators: "aten::add.out"
    # Exported with the XNNPACK partitioner: what its report says.
    delegated: tuple = ()  # operators inside delegates (folded ones included)
    outside: tuple = ()    # (operator, why the partitioner left it) per call it left

    @property
    def oplist_path(self) -> str:
        return os.path.join(self.dir, "selected_ops.yaml")


def _key(case: OpCase, dtype: str, fingerprint: str, backend: str = "") -> str:
    stem = re.sub(r"[^A-Za-z0-9]+", "_", f"{case.id}_{dtype}" + (f"_{backend}" if backend else ""))
    digest = hashlib.sha256(f"{case!r}|{dtype}|{fingerprint}".encode()).hexdigest()[:10]
    return f"{stem}_{digest}"


# The "edges" domain of floating inputs, cycled: what does not fit an integer dtype
# (infinities, NaN, +-1e20, 2^63, values past 2^31 and 2^32), what wraps into a narrow one
# (-501, 300, 70000.7), and fractions at the edges (255.9, -0.5, -2147483648.9).
EDGE_FLOATS = (float("inf"), float("-inf"), float("nan"), -1e20, 1e20, -501.0, 501.0, 300.0,
               -129.7, 255.9, 256.0, -1.0, -0.5, 2.0**31, -(2.0**31) - 1, 3e9, -3e9, 65535.5,
               70000.7, 4294967551.0, -2147483648.9, 2.0**63, 9.2e18, -9.3e18)


# The "specials" domain, cycled: floats where functions have edges (NaN, infinities, signed
# zeros, halves that round to even, +-1, values past Half's range and below Float's
# smallest normal); integers at their type's ends (the lowest % -1) and around zero
# ("specials_nonzero": without 0, for divisors). "shifts": shift counts below 0, at and past
# each bit width (those the dtype holds).
SPECIAL_FLOATS = (float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 0.5, -0.5, 1.5, -1.5,
                  2.5, -2.5, 1.0, -1.0, 0.999, -0.999, 3.0, -7.25, 100.5, 1e-30, 1e30, -1e30,
                  7.0, -2.0, 70000.0)
SHIFTS = (-1, 0, 1, 3, 7, 8, 15, 16, 31, 32, 63, 64, 100)


def _special_ints(dtype: str, domain: str) -> list:
    import torch
    info = torch.iinfo(_torch_dtype(dtype))
    if domain == "shifts":
        values = SHIFTS
    else:
        values = (info.min, info.max, info.min + 1, info.max - 1, -1, 0, 1, 2, -2, 3, 7, -7)
        values = [v for v in values if domain != "specials_nonzero" or v != 0]
    return [v for v in values if info.min <= v <= info.max]


def _make_value(spec: In, dtype: str, domain: str, gen):
    import torch
    shape = tuple(spec.shape)
    if isinstance(spec, Given):
        return torch.tensor(spec.values, dtype=_torch_dtype(dtype)).reshape(shape)
    if dtype == "Bool":
        return torch.randint(0, 2, shape, generator=gen).bool()
    if domain in ("specials", "specials_nonzero", "shifts"):
        count = int(np.prod(shape)) if shape else 1
        integer = dtype in ("Byte", "Char", "Short", "Int", "Long")
        values = _special_ints(dtype, domain) if integer else SPECIAL_FLOATS
        cycled = torch.tensor(values, dtype=torch.int64 if integer else torch.float64)
        return cycled[torch.arange(count) % len(values)].reshape(shape).to(_torch_dtype(dtype))
    if domain == "edges" and dtype not in ("Byte", "Char", "Short", "Int", "Long"):
        count = int(np.prod(shape)) if shape else 1
        edges = torch.tensor(EDGE_FLOATS, dtype=torch.float64)
        return edges[torch.arange(count) % len(EDGE_FLOATS)].reshape(shape).to(
            _torch_dtype(dtype))
    if domain == "huge" and dtype in ("Byte", "Char", "Short", "Int", "Long"):
        # Anywhere in the dtype's range: sums and products overflow and wrap.
        info = torch.iinfo(_torch_dtype(dtype))
        return torch.randint(info.min, info.max, shape, generator=gen,
                             dtype=torch.int64).to(_torch_dtype(dtype))
    if dtype in ("Byte", "Char", "Short", "Int", "Long"):
        low, high = (0, 10) if dtype == "Byte" else (-6, 7)
        if domain == "positive":
            low = 1
        if domain == "small":
            low, high = max(low, -3), 4
        values = torch.randint(low, high, shape, generator=gen)
        if domain == "nonzero":
            values = torch.where(values == 0, torch.ones_like(values), values)
        return values.to(_torch_dtype(dtype))
    values = torch.randn(shape, generator=gen, dtype=torch.float64)
    if domain == "positive":
        values = torch.rand(shape, generator=gen, dtype=torch.float64) * 3 + 0.1
    elif domain == "nonzero":
        values = torch.where(values.abs() < 0.2, values.sign() * 0.5 + 0.25, values)
    elif domain == "small":
        values = torch.randint(-3, 4, shape, generator=gen).double()
    return values.to(_torch_dtype(dtype))


def _resolve_arg(value, dtype: str):
    from tests.ops.cases import Dtype
    if isinstance(value, Dtype):
        return _torch_dtype(value.name or dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_resolve_arg(v, dtype) for v in value)
    return value


def _module(case: OpCase, dtype: str, calls: list[list[In]], constants: list):
    """The module calling the op once per call; `constants` are the values of the calls'
    `Constant`s, in order, held as buffers."""
    import torch

    namespace, _, rest = case.op.rpartition("::")
    packet, _, overload = rest.partition(".")
    fn = getattr(getattr(getattr(torch.ops, namespace or "aten"), packet), overload or "default")
    args = _resolve_arg(tuple(case.args), dtype)
    kwargs = {k: _resolve_arg(v, dtype) for k, v in case.kwargs.items()}

    class OneOp(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for i, value in enumerate(constants):
                self.register_buffer(f"constant_{i}", value)

        def forward(self, *inputs):
            outs, feed = [], iter(inputs)
            held = iter(getattr(self, f"constant_{i}") for i in range(len(constants)))

            def tensor(spec):
                t = next(held) if isinstance(spec, Constant) else next(feed)
                if spec.perm:
                    t = t.permute(spec.perm)
                if isinstance(spec, Computed):
                    t = getattr(torch.ops.aten, spec.by).default(t, *spec.args)
                return t

            for call in calls:
                values = []
                for item in call:
                    if item is None:  # an absent `Tensor?` argument
                        values.append(None)
                    elif isinstance(item, Arg):
                        values.append(_resolve_arg(item.value, dtype))
                    elif isinstance(item, Tensors):
                        values.append([None if i is None else tensor(i) for i in item.items])
                    else:
                        values.append(tensor(item))
                result = fn(*values, *args, **kwargs)
                if case.then:
                    result = getattr(torch.ops.aten, case.then[0]).default(result,
                                                                          *case.then[1:])
                if case.outputs is not None:
                    result = [result[i] for i in case.outputs]
                # Several outputs (a tuple or a Tensor[]) are compared one by one.
                outs += result if isinstance(result, (tuple, list)) else [result]
            return tuple(outs)

    return OneOp()


def _save_npy(path: str, value) -> None:
    import torch
    if value.dtype == torch.bfloat16:  # numpy has none; the runner widens to float32 too
        value = value.float()
    np.save(path, value.detach().contiguous().numpy(), allow_pickle=False)


def _case_dir(case: OpCase, dtype: str, fingerprint: str, backend: str) -> tuple[str, str]:
    """(key, absolute directory) of the cached export; the XNNPACK ones' key covers the
    backend's sources too."""
    if backend == XNNPACK:
        fingerprint = _xnnpack_fingerprint(fingerprint)
    key = _key(case, dtype, fingerprint, backend)
    return key, os.path.join(REPO, BUILD, "cases", key)


# Exports per worker task: decomposing_many's setup (tests/ops/decompose_many.py) is paid
# once per batch, and a batch holds its traced programs in memory until they decompose.
BATCH = 40


def _export_in_worker(batch: list, fingerprint: str, backend: str, cases_module: str) -> None:
    """A batch of (case id, dtype) exported in a worker process (it finds the cases by id
    in the CASES of `cases_module`: cases hold no picklable identity)."""
    import importlib

    import torch
    torch.set_num_threads(1)  # one export per core, not each on every core
    cases = {c.id: c for c in importlib.import_module(cases_module).CASES}
    export_many([(cases[case_id], dtype) for case_id, dtype in batch], fingerprint, backend)


def export_many(pairs, fingerprint: str, backend: str = "") -> None:
    """Exports the (case, dtype) pairs the cache lacks, each as exporter.export would, but
    decomposed in one decomposing_many block: traced first, then decomposed one after the
    other, then lowered and saved. A pair that fails anywhere is left out for export_case,
    which exports it alone and reports the error on its case."""
    from exporter.export import capture, lower
    from tests.ops.decompose_many import decomposing_many

    traced = []
    for case, dtype in pairs:
        key, directory = _case_dir(case, dtype, fingerprint, backend)
        if os.path.exists(os.path.join(directory, "meta.json")):
            continue
        try:
            module, inputs, expected = prepare(case, dtype, key)
            traced.append((key, directory, inputs, expected, capture(module, tuple(inputs))))
        except Exception:
            continue
    decomposed = []
    with decomposing_many() as decompose:
        for key, directory, inputs, expected, ep in traced:
            try:
                decomposed.append((key, directory, inputs, expected, decompose(ep)))
            except Exception:
                continue
    for key, directory, inputs, expected, ep in decomposed:
        try:
            save(lower(ep, partitioner=partitioner(backend)), inputs, expected, directory, key)
        except Exception:
            continue


def export_missing(pairs, fingerprint: str, backend: str = "",
                   cases_module: str = "tests.ops.cases") -> None:
    """Exports the (case, dtype) pairs the cache lacks, in batches (export_many) on every
    core: a cold cache holds thousands of exports. TAILOR_TEST_EXPORT_JOBS caps the
    processes; 1 exports in this process. The cases are among the CASES of
    `cases_module`."""
    missing = [(case, dtype) for case, dtype in pairs
               if not os.path.exists(os.path.join(_case_dir(case, dtype, fingerprint,
                                                            backend)[1], "meta.json"))]
    jobs = min(int(os.environ.get("TAILOR_TEST_EXPORT_JOBS", os.cpu_count() or 1)),
               len(missing))
    if jobs <= 1:
        export_many(missing, fingerprint, backend)
        return
    import concurrent.futures
    import multiprocessing
    ids = [(case.id, dtype) for case, dtype in missing]
    # Batches of at most BATCH, at least one per process.
    size = max(1, min(BATCH, -(-len(ids) // jobs)))
    # spawn, not fork: the parent has torch's thread pools running.
    try:
        with concurrent.futures.ProcessPoolExecutor(
                jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            for future in [pool.submit(_export_in_worker, ids[i:i + size], fingerprint, backend,
                                       cases_module)
                           for i in range(0, len(ids), size)]:
                future.result()
    except concurrent.futures.process.BrokenProcessPool:
        pass  # a worker died: export_case exports what is still missing, one at a time


def export_case(case: OpCase, dtype: str, fingerprint: str, backend: str = "") -> Exported:
    """Exports (case, dtype) unless the cache has it, with XNNPACK's partitioner when
    `backend` is XNNPACK; returns where it lies."""
    key, directory = _case_dir(case, dtype, fingerprint, backend)
    meta_path = os.path.join(directory, "meta.json")
    if not os.path.exists(meta_path):
        shutil.rmtree(directory, ignore_errors=True)  # left by an interrupted older run
        _export_to(case, dtype, directory, key, backend)
    with open(meta_path) as f:
        meta = json.load(f)
    return Exported(case, dtype, directory, os.path.relpath(os.path.join(directory, f"{key}.pte"),
                                                            REPO),
                    tuple(os.path.join(directory, f"input_{i}.npy") for i in range(meta["inputs"])),
                    tuple(os.path.join(directory, f"expected_{i}.npy")
                          for i in range(meta["outputs"])),
                    tuple(meta["ops"]), tuple(meta.get("delegated", ())),
                    tuple(tuple(o) for o in meta.get("outside", ())))


def _export_to(case: OpCase, dtype: str, final: str, key: str, backend: str) -> None:
    from exporter.export import export

    module, inputs, expected = prepare(case, dtype, key)
    save(export(module, tuple(inputs), partitioner=partitioner(backend)), inputs, expected,
         final, key)


def prepare(case: OpCase, dtype: str, key: str) -> tuple:
    """(module, inputs, eager outputs) of (case, dtype), its inputs drawn from a seed
    taken from its cache key."""
    import torch

    calls = _inputs_of(case)
    gen = torch.Generator().manual_seed(int(key.rsplit("_", 1)[1], 16) % (2 ** 31))
    specs = [spec for call in calls for spec in _tensor_specs(call)]
    values = [_make_value(spec, spec.dtype or dtype, spec.domain or case.domain, gen)
              for spec in specs]
    inputs = [v for spec, v in zip(specs, values) if not isinstance(spec, Constant)]
    module = _module(case, dtype, calls,
                     [v for spec, v in zip(specs, values) if isinstance(spec, Constant)])
    with torch.no_grad():
        expected = module(*inputs)
    return module, inputs, expected


def partitioner(backend: str):
    """The partitioner an export for `backend` uses ("": none)."""
    if backend != XNNPACK:
        return None
    from backends.xnnpack import XnnpackPartitioner
    return XnnpackPartitioner()


def save(program, inputs: list, expected: tuple, final: str, key: str) -> None:
    """Writes the program, its inputs, eager outputs, op list and meta.json into `final`."""
    # Written to a fresh directory renamed into place, so a concurrent run never sees
    # half an export (and the one that loses the race keeps the winner's).
    os.makedirs(os.path.dirname(final), exist_ok=True)
    directory = tempfile.mkdtemp(prefix=f".{key}.", dir=os.path.dirname(final))
    program.save(os.path.join(directory, f"{key}.pte"))
    for i, value in enumerate(inputs):
        _save_npy(os.path.join(directory, f"input_{i}.npy"), value)
    for i, value in enumerate(expected):
        _save_npy(os.path.join(directory, f"expected_{i}.npy"), value)
    schemas = dict(load_aten_schemas())
    oplist = ops_from_program(program.data, key, schemas, key)
    with open(os.path.join(directory, "selected_ops.yaml"), "w") as f:
        f.write(oplist_to_yaml(oplist))
    meta = {"inputs": len(inputs), "outputs": len(expected),
            "ops": sorted({u.op for u in oplist.ops})}
    if program.delegation is not None:
        report = program.delegation
        meta["delegated"] = sorted({op for group in report.groups for _, op in group}
                                   | {op for _, op in report.folded})
        meta["outside"] = [[op, why] for _, op, why in report.outside]
    with open(os.path.join(directory, "meta.json"), "w") as f:
        json.dump(meta, f)
    try:
        os.rename(directory, final)
    except OSError:  # another run exported the same case first
        shutil.rmtree(directory)


def load_libraries(library: str) -> list:
    """`library` and its fallbacks (portable: prim; optimized: portable, prim), as the
    resolver takes them (precedence order)."""
    return [load_library(os.path.join(KERNELS_DIR, f"{name}.yaml"))
            for name in (library, *fallbacks(library))]


def unsupported_reason(exported: Exported, library: str, libs: list,
                       own_call: bool = False) -> str | None:
    """Why `library` (with its fallbacks: `libs`) cannot run the program, from the
    resolver; None if it can. With `own_call`, the first of `libs` must run at least one
    of the calls itself: a library that falls back to another kernel library (optimized to
    portable) would otherwise only test the fallback again."""
    with open(exported.oplist_path) as f:
        oplist = parse_oplist(f.read(), exported.oplist_path)
    try:
        plan = resolve_kernels(oplist, libs)
    except ManifestError as error:
        uses = [line.strip().split(", model")[0] for line in str(error).splitlines()[1:]
                if line.startswith("  ")]
        return f"unsupported: {library} has no kernel for {'; '.join(uses)}"
    if own_call and not any(k.library == libs[0].name for k in plan.kernels):
        uses = [f"{u.op} ({', '.join(u.dtypes)})" for u in oplist.ops]
        return (f"unsupported: {library} has no kernel for {'; '.join(uses)} (its fallback "
                f"{', '.join(lib.name for lib in libs[1:])} would run them all)")
    return None


@dataclass(frozen=True)
class Selection:
    """Which programs one library runs, and why it skips the other (case, dtype)s."""
    programs: dict                   # (case id, dtype) -> Exported
    skipped: dict                    # (case id, dtype) -> reason
    failed: dict = field(default_factory=dict)  # (case id, dtype) -> why its export failed


@dataclass(frozen=True)
class LibraryBuild:
    library: str
    runner: str                      # absolute path of bin/runner
    selection: Selection
    cpu_level: str = ""              # TL_CPU_LEVEL for the runs ("": the best level)
    emulator: tuple[str, ...] = ()   # the command the runner runs under (a cross build)


def select_programs(library: str, exported: list[Exported]) -> Selection:
    """The programs `library` can run: a kernel library's, from the resolver; XNNPACK's,
    from its partitioner (select_for_xnnpack)."""
    if library == XNNPACK:
        return select_for_xnnpack(exported)
    programs, skipped = {}, {}
    library = split_library(library)[0]
    libs = load_libraries(library)
    own_call = set(fallbacks(library)) != {"prim"}
    for e in exported:
        reason = unsupported_reason(e, library, libs, own_call)
        if reason:
            skipped[(e.case.id, e.dtype)] = reason
        else:
            programs[(e.case.id, e.dtype)] = e
    return Selection(programs, skipped)


@functools.cache
def _xnnpack_target():
    return load_target(os.path.join(REPO, "manifests", "targets", f"{XNNPACK_TARGET}.yaml"))


def _cross_target():
    return load_target(os.path.join(REPO, "manifests", "targets", f"{CROSS_TARGET}.yaml"))


def _missing(tools) -> list:
    """The tools (absolute paths or commands on PATH) this machine does not have."""
    return [t for t in tools if not (os.path.exists(t) if os.path.isabs(t) else shutil.which(t))]


def unavailable(library: str) -> str | None:
    """Why this machine cannot build `library`'s runtime (what its target requires is
    missing, with how to install it), or None."""
    if split_library(library)[1] == CROSS:
        if SANITIZE != "none":
            return "the sanitizers run on the host's builds only"
        target = _cross_target()
        missing = _missing([target.cxx, target.emulator[0], *target.requires])
        return f"{', '.join(missing)} not found; {target.install}" if missing else None
    if library != XNNPACK:
        return None
    target = _xnnpack_target()
    missing = _missing(target.requires)
    if missing:
        return f"XNNPACK is not installed ({', '.join(missing)} not found); {target.install}"
    return None


def xnnpack_ops() -> frozenset:
    """The operators XnnpackPartitioner.check can claim (partitioner.OPS), and those a
    claimed call may fold into its node (partitioner.FOLDED: a PReLU's x > 0): it leaves
    any other call to the kernels as "not an XNNPACK node"."""
    from backends.xnnpack import partitioner
    return partitioner.OPS | partitioner.FOLDED


def xnnpack_skip_reason(exported: Exported) -> str | None:
    """Why XNNPACK does not run the case's calls (exported with its partitioner): the
    partitioner's reasons for the calls it left to the kernels, the permutes of permuted
    inputs excepted; None when it delegates the rest."""
    excused = _permuted_inputs(exported.case)
    reasons = []
    for op, why in exported.outside:
        if op == INPUT_PERMUTE and excused:
            excused -= 1
        elif f"{op}: {why}" not in reasons:
            reasons.append(f"{op}: {why}")
    if reasons:
        return f"unsupported: {XNNPACK} does not delegate {'; '.join(reasons)}"
    if not exported.delegated:
        return f"unsupported: {XNNPACK} has no call to delegate"
    return None


def dtype_probe(dtype: str, fingerprint: str) -> Exported:
    """An add of two [2] tensors of `dtype`, exported with the XNNPACK partitioner."""
    return export_case(OpCase("add.Tensor", (dtype,), [((2,), (2,))], name="dtype_probe"),
                       dtype, fingerprint, XNNPACK)


def _dtypes_refused(oplist, fingerprint: str, probed: dict) -> list[str]:
    """The program's ops (the input permutes aside) called with a dtype the partitioner
    refuses, as "op (dtypes)". It checks every tensor's dtype before anything
    op-specific (but the Long indices of a max pooling, which it checks are unused), so
    its verdict on one add per dtype holds for every op, and the cases it refuses need
    no export of their own."""
    refused = []
    for use in oplist.ops:
        if use.op == INPUT_PERMUTE:
            continue
        dtypes = [d for d in use.dtypes if d not in UNCHECKED_DTYPES.get(use.op, ())]
        for dtype in dtypes:
            if dtype not in probed:
                probed[dtype] = xnnpack_skip_reason(dtype_probe(dtype, fingerprint)) is None
        if not all(probed[d] for d in dtypes):
            refused.append(f"{use.op} ({', '.join(d for d in dtypes if not probed[d])})")
    return refused


def select_for_xnnpack(exported: list[Exported]) -> Selection:
    """The cases XNNPACK runs: each exported again with its partitioner, kept when the
    partitioner delegates every call (see xnnpack_skip_reason). A case whose program
    holds an op the partitioner does not know, or a dtype it refuses, is skipped without
    that export, as the partitioner would skip it."""
    programs, skipped, failed, probed = {}, {}, {}, {}
    # A transpose is never claimed, but the ones of permuted inputs may stay outside.
    known = xnnpack_ops() | {"aten::permute_copy.out"}
    libs = [load_library(os.path.join(KERNELS_DIR, f"{name}.yaml"))
            for name in _xnnpack_target().kernel_libraries]
    fingerprint = _exporter_fingerprint()
    candidates = []
    for e in exported:
        key = (e.case.id, e.dtype)
        unknown = sorted(set(e.ops) - known)
        if unknown:
            skipped[key] = (f"unsupported: {XNNPACK} does not delegate {', '.join(unknown)}: "
                            "not an op its partitioner claims")
            continue
        with open(e.oplist_path) as f:
            refused = _dtypes_refused(parse_oplist(f.read(), e.oplist_path), fingerprint,
                                      probed)
        if refused:
            skipped[key] = (f"unsupported: {XNNPACK} does not delegate {'; '.join(refused)}: "
                            "its partitioner refuses those dtypes")
            continue
        candidates.append(e)
    export_missing([(e.case, e.dtype) for e in candidates], fingerprint, XNNPACK)
    for e in candidates:
        key = (e.case.id, e.dtype)
        try:
            partitioned = export_case(e.case, e.dtype, fingerprint, XNNPACK)
        except Exception as error:  # the case's own test reports it
            failed[key] = f"{type(error).__name__}: {error}"
            continue
        reason = (xnnpack_skip_reason(partitioned)
                  or unsupported_reason(partitioned, XNNPACK_TARGET, libs))
        if reason:
            skipped[key] = reason
        else:
            programs[key] = partitioned
    return Selection(programs, skipped, failed)


def assert_delegated(exported: Exported) -> None:
    """Checks, in the .pte itself, that XNNPACK runs the case: the program has a
    delegate call, and no kernel call but the permutes of permuted inputs."""
    from program.pte import read_program
    method = read_program(os.path.join(REPO, exported.pte))[0].methods[0]
    kinds = Counter(type(i).__name__ for i in method.instructions)
    kernel_ops = Counter(method.operators[call.op_index].qualified_name
                         for _, call in method.kernel_calls())
    left = kernel_ops - Counter({INPUT_PERMUTE: _permuted_inputs(exported.case)})
    where = f"{exported.case.id} ({exported.dtype})"
    assert kinds["DelegateCall"] > 0, f"{where}: the program has no delegate call"
    assert not left, f"{where}: the portable kernels run {', '.join(sorted(left))}"


def runner_path(ptes: list[str], library: str, select: str = "used",
                build_dir: str = BUILD) -> str:
    """Where scons puts the runner: site_scons/stages.py names the build directory."""
    import sys
    site_scons = os.path.join(REPO, "site_scons")
    if site_scons not in sys.path:
        sys.path.insert(0, site_scons)
    import stages
    # XNNPACK's runtime: host-xnnpack with the target's own kernel libraries.
    library, level = split_library(library)
    target, libraries = ((XNNPACK_TARGET, ()) if library == XNNPACK
                         else (CROSS_TARGET if level == CROSS else HOST_TARGET,
                               (library, *fallbacks(library))))
    plan = stages.BuildPlan(target_name=target, models=(), programs=tuple(ptes),
                            libraries=libraries, ops="", select=select, run=False,
                            sanitize=SANITIZE, verbose=False, build_dir=build_dir)
    return build_layout.runner(os.path.join(REPO, build_dir, plan.target_dir, plan.variant))


def scons(*args: str, jobs: int = 2) -> None:
    """Runs scons; a failure shows the end of its output (not the long command line)."""
    proc = subprocess.run([SCONS, f"-j{jobs}", *args], cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"scons failed (exit {proc.returncode}):\n"
                             f"{proc.stdout[-4000:]}{proc.stderr[-4000:]}")


def build_library(library: str, selection: Selection) -> LibraryBuild:
    """One runtime with every program of `selection` (one scons run); a "<library>@<level>"
    runs the library's runtime with TL_CPU_LEVEL=<level>, "<library>@aarch64" its own
    build for aarch64 under the emulator."""
    base, level = split_library(library)
    ptes = [e.pte for e in selection.programs.values()]
    if level == CROSS:
        runner = build_programs(library, ptes) if ptes else ""
        return LibraryBuild(library, runner, selection, emulator=_cross_target().emulator)
    runner = build_programs(base, ptes) if ptes else ""
    return LibraryBuild(library, runner, selection, level)


def build_programs(library: str, ptes: list[str], build_dir: str = BUILD, jobs: int = 2) -> str:
    """One runtime of `library` (with its fallbacks) for every program in `ptes`, built
    through the real flow (`jobs` kernel shards); returns its runner."""
    base, level = split_library(library)
    how = ([f"target={XNNPACK_TARGET}"] if base == XNNPACK
           else ["libraries=" + ",".join((base, *fallbacks(base)))])
    if level == CROSS:
        how.append(f"target={CROSS_TARGET}")
    # Too many for a command line; a library given by its manifest's path names it too.
    listing = os.path.join(build_dir, f"programs-{re.sub(r'[^A-Za-z0-9@_-]+', '_', library)}.txt")
    os.makedirs(os.path.join(REPO, build_dir), exist_ok=True)
    with open(os.path.join(REPO, listing), "w") as f:
        f.write("".join(p + "\n" for p in ptes))
    scons("programs=@" + listing, *how, "build_dir=" + build_dir, "sanitize=" + SANITIZE,
          jobs=jobs)
    runner = runner_path(ptes, library, build_dir=build_dir)
    assert os.path.exists(runner), f"the build made no {runner}"
    return runner


def run_and_compare(build: LibraryBuild, exported: Exported, tmp_dir: str,
                    threads: int = 1) -> None:
    """Runs the program on its inputs (on `threads` threads); asserts each output matches
    torch's."""
    outputs = [os.path.join(tmp_dir, f"output_{i}.npy") for i in range(len(exported.expected))]
    command = [*build.emulator, build.runner, os.path.join(REPO, exported.pte)]
    if threads > 1:
        command += ["--threads", str(threads)]
    if STACK:
        command += ["--stack", CROSS_STACK if build.emulator else STACK]
    for path in exported.inputs:
        command += ["--input", path]
    for path in outputs:
        command += ["--output", path]
    env = dict(os.environ, **SANITIZER_ENV)
    if build.cpu_level:
        env["TL_CPU_LEVEL"] = build.cpu_level
    proc = subprocess.run(command, capture_output=True, text=True, env=env)
    where = f"TL_CPU_LEVEL={build.cpu_level} " if build.cpu_level else ""
    assert proc.returncode == 0, (f"{where}{' '.join(command)} exited {proc.returncode}:\n"
                                  f"{proc.stdout}{proc.stderr}")
    for i, (got_path, want_path) in enumerate(zip(outputs, exported.expected)):
        got, want = np.load(got_path), np.load(want_path)
        where = f"{exported.case.id} ({exported.dtype}) output {i}"
        assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, torch gives {want.dtype}"
        assert got.shape == want.shape, f"{where}: shape {got.shape}, torch gives {want.shape}"
        if exported.case.check != "eager":
            continue  # drawn: check_drawn below
        if np.issubdtype(want.dtype, np.floating):
            # The looser of the case dtype's and the output dtype's tolerance (Int / Int
            # gives Float; a BFloat16 output arrives widened to float32).
            atol, rtol = max(TOLERANCE.get(exported.dtype, (0.0, 0.0)),
                             TOLERANCE[_NUMPY_FLOATS[want.dtype.type]])
            atol = exported.case.atol if exported.case.atol is not None else atol
            rtol = exported.case.rtol if exported.case.rtol is not None else rtol
            np.testing.assert_allclose(got, want, atol=atol, rtol=rtol, err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)
    if exported.case.check != "eager":
        check_drawn(exported, [np.load(p) for p in outputs])


# Bounds on a draw's statistics, in standard errors: a sound generator (seeded, so the
# test is deterministic) stays well inside; a biased or stuck one does not.
SIGMAS = 6.0
MOMENTS_FROM = 1000  # elements from which an output's moments are checked


def _within(where: str, what: str, value: float, mean: float, spread: float) -> None:
    assert abs(value - mean) <= SIGMAS * spread, (
        f"{where}: {what} {value:.5g}, a draw gives {mean:.5g} +- {SIGMAS * spread:.3g}")


def check_drawn(exported: Exported, outputs: list) -> None:
    """The outputs of a case whose values Tailor draws (OpCase.check), whose dtype and
    shape run_and_compare checked against eager's: "shape" nothing more; "uniform" values
    in [0, 1) with the mean, variance and 10-bin histogram of U(0, 1); "normal" finite
    values with the mean and variance of N(0, 1); "dropout" (out, mask) pairs: out equals
    torch's input * mask * (1 / (1 - p)) exactly, and the fraction kept is 1 - p. Two
    calls' draws must differ (each call has its own stream)."""
    import torch
    case, check = exported.case, exported.case.check
    where = f"{case.id} ({exported.dtype})"
    if check == "shape":
        return
    if check == "dropout":
        p = case.args[0]
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
        for k, (out, mask) in enumerate(zip(outputs[0::2], outputs[1::2])):
            assert mask.dtype == np.bool_, f"{where} call {k}: mask is {mask.dtype}"
            x = torch.from_numpy(np.load(exported.inputs[k])).to(_torch_dtype(exported.dtype))
            want = x.mul(torch.from_numpy(mask)).mul_(scale)
            want = want.float() if want.dtype == torch.bfloat16 else want  # as .npy holds it
            np.testing.assert_array_equal(out, want.numpy(),
                                          err_msg=f"{where} call {k}: not input * mask * scale")
            n = mask.size
            if n >= MOMENTS_FROM:
                _within(f"{where} call {k}", "kept", float(mask.sum()), n * (1 - p),
                        (n * p * (1 - p)) ** 0.5 + 1)
        return
    draws = [o.astype(np.float64).ravel() for o in outputs]
    for k, v in enumerate(draws):
        at = f"{where} call {k}"
        assert np.isfinite(v).all(), f"{at}: a value is not finite"
        if check == "uniform":
            assert ((v >= 0) & (v < 1)).all(), f"{at}: a value outside [0, 1): {v.min()}, {v.max()}"
        if v.size < MOMENTS_FROM:
            continue
        n = v.size
        if check == "uniform":
            _within(at, "mean", v.mean(), 0.5, (1 / 12 / n) ** 0.5)
            _within(at, "variance", v.var(), 1 / 12, ((1 / 80 - 1 / 144) / n) ** 0.5)
            counts = np.histogram(v, bins=10, range=(0, 1))[0]
            for b, c in enumerate(counts):
                _within(at, f"count in [{b / 10}, {(b + 1) / 10})", c, n / 10, (n * 0.09) ** 0.5)
        else:
            _within(at, "mean", v.mean(), 0.0, (1 / n) ** 0.5)
            _within(at, "variance", v.var(), 1.0, (2 / n) ** 0.5)
    big = [v for v in draws if v.size >= 2]
    for a, b in zip(big, big[1:]):
        n = min(a.size, b.size)
        assert not np.array_equal(a[:n], b[:n]), f"{where}: two calls drew the same numbers"
