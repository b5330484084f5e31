"""OpInfo conformance: PyTorch's own samples for every operator a kernel library declares
-> programs, one runtime per library, runs, comparison with eager (issue 19).

For each operator of manifests/kernels/<library>.yaml, the OpInfos of
torch.testing._internal.common_methods_invocations.op_db that reach it (opinfos_for):
their samples in Float, and in each integer dtype and Bool the OpInfo supports and the
library's kernels for the operator declare. Each sample becomes a module calling the
OpInfo's op on the sample's tensors (its other arguments are constants of the module),
exported to build/conformance/samples/<key>/ with its inputs and eager's outputs, cached
by a hash of the sample and the exporter's sources (as tests/ops/harness.py caches cases).

A sample ends in exactly one of:
  pass            the runner's outputs match eager: same dtype and shape (all an output of
                  random operators or empty can match: exporter/drawn_outputs.py), NaN where eager
                  has NaN, integers and Bool exactly, floats within TOLERANCE (of the sum of
                  the terms' magnitudes for the SUMMED OpInfos);
  mismatch        the runner ran it and its numbers, dtype or shape differ;
  error           the runner failed while executing, crashed or hung, or Tailor's exporter
                  failed with anything but an ExportError: a bug;
  refused         stopped before running with a message naming the limitation: the
                  exporter's ExportError, the resolver finding no kernel for one of the
                  program's (op, dtypes) in the library (harness.unsupported_reason), or the
                  runtime refusing the program at load;
  not exportable  torch.export itself does not take the sample (counted apart).

The programs the library can run are built into ONE runtime through the real flow, as the
op harness does (harness.build_programs: scons programs=@<list> libraries=<lib>,...), and
each runs with bin/runner.

CLI: python -m tests.ops.conformance [--library portable] [--all | --limit N]
         [--ops add,cat] [--jobs 2] [--failures N] [--markdown]
     prints the table (op, OpInfo, samples, pass, mismatch, error, refused, not
     exportable); the default is the bounded subset the tests run (SUBSET, LIMIT samples).
"""

import argparse
import collections
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from codegen import build_layout
from codegen.kernel_manifest import load_library
from codegen.oplist import oplist_to_yaml, ops_from_program, parse_oplist
from codegen.schema import load_aten_schemas
from tests.conftest import REPO
from tests.ops import harness

BUILD = build_layout.tree("conformance")
INT_DTYPES = ("Bool", "Byte", "Char", "Short", "Int", "Long")
# Float32 results: eager and the kernels may sum or round in another order.
TOLERANCE = {"float32": (1e-5, 1e-5), "float64": (1e-10, 1e-10), "float16": (1e-3, 2e-3)}
# OpInfos whose outputs are sums of products (convolutions): the relative tolerance
# applies to the sum of the terms' magnitudes, which bounds how far two summation orders
# can differ, rather than to the sum itself, which cancellation makes small
# (docs/conformance.md, "Sums of products"). Their samples keep those magnitudes, eager's
# op on the inputs' absolute values in double, as terms_<i>.npy.
SUMMED = tuple(f"nn.functional.{name}" for name in (
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"))
# Declared ops whose OpInfos are named otherwise (an OpInfo "name" or "name/variant").
EXTRA_OPINFOS = {
    "_native_batch_norm_legit_no_training": ("nn.functional.batch_norm",),
    "convolution": ("nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
                    "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
                    "nn.functional.conv_transpose3d"),
    "grid_sampler_2d": ("nn.functional.grid_sample",),
    "index": ("__getitem__",),
    "max_pool2d_with_indices": ("nn.functional.max_pool2d",),
    "max_pool3d_with_indices": ("nn.functional.max_pool3d",),
    "upsample_bilinear2d": ("nn.functional.interpolate/bilinear",
                            "nn.functional.upsample_bilinear"),
    "upsample_nearest2d": ("nn.functional.interpolate/nearest",
                           "nn.functional.upsample_nearest"),
    "view_copy": ("reshape",),
    "_cdist_forward": ("cdist",),
    "_pdist_forward": ("nn.functional.pdist",),
    **{f"reflection_pad{k}d": ("nn.functional.pad/reflect",) for k in (1, 2, 3)},
    **{f"replication_pad{k}d": ("nn.functional.pad/replicate",
                                "nn.functional.pad/replicate_negative") for k in (1, 2, 3)},
}
# OpInfos named like an op that test something else around it: a mask, sparse layouts.
_OTHER_PREFIXES = ("masked.", "sparse.", "_refs.")
# The default run: these OpInfos (ids) and the first LIMIT samples of each dtype.
SUBSET = ("add", "cat", "sum", "softmax", "where", "clamp", "mean", "index_select", "view",
          "nn.functional.conv2d", "nn.functional.max_pool2d", "cumsum", "div/floor_rounding",
          "argmax", "nn.functional.embedding", "to")
LIMIT = 4
# Part of every cache key: bump it when how a sample becomes a program changes.
SAMPLE_FORMAT = 2
OUTCOMES = ("pass", "mismatch", "error", "refused", "not exportable")
GROUPS_PER_JOB = 6  # (OpInfo, dtype) groups a worker exports together


def _torch():
    import torch
    return torch


def opinfo_id(info) -> str:
    return info.name + (f"/{info.variant_test_name}" if info.variant_test_name else "")


def _names(info) -> set:
    """What an OpInfo answers to: its name (last part), its ATen name and its aliases."""
    return {info.name.rpartition(".")[2], info.aten_name} | {a.name for a in info.aliases}


def opinfos_for(op: str, op_db) -> list:
    """The OpInfos whose samples reach `op` ("aten::add.out"): named like its base op
    (without a leading `_` or a `_copy` suffix), or listed in EXTRA_OPINFOS."""
    base = op.rpartition("::")[2].partition(".")[0]
    bare = base.removesuffix("_copy").lstrip("_")
    extra = EXTRA_OPINFOS.get(base, ())
    found = []
    for info in op_db:
        if info.name.startswith(_OTHER_PREFIXES):
            continue
        if (base in _names(info) or bare in _names(info) or info.name in extra
                or opinfo_id(info) in extra):
            found.append(info)
    return found


@dataclass(frozen=True)
class Group:
    """One (OpInfo, dtype): the unit samples are generated and exported in."""
    opinfo: str          # its id: "div/floor_rounding"
    dtype: str           # "Float", "Long", ...
    ops: tuple           # the declared ops it was chosen for


def plan_groups(library: str, only: tuple = (), subset: tuple = ()) -> list[Group]:
    """Every (OpInfo, dtype) to run for `library`: per declared aten op, its OpInfos in
    Float and the integer/Bool dtypes both the OpInfo and the op's kernels take."""
    from torch.testing._internal.common_methods_invocations import op_db
    lib = load_library(os.path.join(harness.KERNELS_DIR, f"{library}.yaml"))
    groups: dict = {}
    for op in lib.ops():
        if not op.startswith("aten::"):
            continue
        declared = set()
        for k in lib.kernels_for(op):
            declared |= set(k.dtypes) if k.dtypes is not None else set(INT_DTYPES) | {"Float"}
        for info in opinfos_for(op, op_db):
            ident = opinfo_id(info)
            if (only and info.name not in only and ident not in only) or \
                    (subset and ident not in subset):
                continue
            supported = {harness_name(d) for d in info.supported_dtypes("cpu")}
            for dtype in ("Float",) + INT_DTYPES:
                if dtype in supported and (dtype == "Float" or dtype in declared):
                    key = (ident, dtype)
                    ops = groups[key].ops if key in groups else ()
                    groups[key] = Group(ident, dtype, tuple(sorted(set(ops) | {op})))
    return [groups[k] for k in sorted(groups)]


def harness_name(dtype) -> str:
    from exporter.scalar_types import SCALAR_TYPE_NAMES
    return SCALAR_TYPE_NAMES.get(dtype, str(dtype))


def _opinfo(ident: str):
    from torch.testing._internal.common_methods_invocations import op_db
    return next(i for i in op_db if opinfo_id(i) == ident)


def samples_of(group: Group, limit: int | None) -> list:
    """The group's samples, the same on every run (generated from a fixed seed)."""
    torch = _torch()
    torch.manual_seed(0)
    samples = []
    for sample in _opinfo(group.opinfo).sample_inputs(
            "cpu", harness._torch_dtype(group.dtype), requires_grad=False):
        samples.append(sample)
        if limit is not None and len(samples) >= limit:
            break
    return samples


def make_module(fn, sample):
    """(module, its tensor inputs): the module calls `fn` on the sample, taking the
    sample's tensors as inputs and holding its other arguments; it returns the tensors of
    the result, flattened."""
    torch = _torch()
    from torch.utils import _pytree as pytree
    leaves, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    is_input = [isinstance(v, torch.Tensor) for v in leaves]
    tensors = tuple(v for v in leaves if isinstance(v, torch.Tensor))

    class Sample(torch.nn.Module):
        def forward(self, *inputs):
            feed = iter(inputs)
            values = [next(feed) if t else v for t, v in zip(is_input, leaves)]
            first, args, kwargs = pytree.tree_unflatten(values, spec)
            result = fn(first, *args, **kwargs)
            return tuple(v for v in pytree.tree_leaves(result) if isinstance(v, torch.Tensor))

    return Sample(), tensors


def _digest(sample) -> str:
    """A hash of everything the sample feeds the op: tensor bytes, shapes, dtypes and the
    other arguments' reprs."""
    torch = _torch()
    from torch.utils import _pytree as pytree
    h = hashlib.sha256()
    for v in pytree.tree_leaves((sample.input, sample.args, sample.kwargs)):
        if isinstance(v, torch.Tensor):
            h.update(f"{v.dtype}{tuple(v.shape)}{v.stride()}".encode())
            h.update(v.detach().contiguous().view(-1).view(torch.uint8).numpy().tobytes()
                     if v.numel() else b"")
        else:
            h.update(repr(v).encode())
    return h.hexdigest()[:12]


@dataclass
class Sample:
    """One exported sample on disk."""
    group: Group
    index: int
    dir: str
    status: str                     # "ok", "not exportable", "refused", "error"
    message: str = ""
    inputs: int = 0
    outputs: int = 0

    @property
    def pte(self) -> str:
        return os.path.join(self.dir, "sample.pte")

    @property
    def oplist_path(self) -> str:
        return os.path.join(self.dir, "selected_ops.yaml")

    @property
    def name(self) -> str:
        return f"{self.group.opinfo} {self.group.dtype} #{self.index}"


def _first_line(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}".strip()
    return text.splitlines()[0][:300] if text else type(error).__name__


def _trace_sample(fn, sample):
    """A sample's module, inputs, eager outputs and torch.export graph (not decomposed yet),
    or the meta of a sample that stops there."""
    torch = _torch()
    from exporter.export import capture
    module, inputs = make_module(fn, sample)
    # The program gets each input as a row-major array of its own (input_<i>.npy); eager
    # computes on the same, so an op that reads an input's storage (as_strided of a view
    # into a larger tensor) sees there what the program sees.
    inputs = tuple(t.clone(memory_format=torch.contiguous_format) for t in inputs)
    try:
        with torch.no_grad():
            expected = module(*inputs)
    except Exception as e:  # eager itself rejects the sample (an error_input-like one)
        return {"status": "not exportable", "message": f"eager: {_first_line(e)}"}
    try:
        return module, inputs, expected, capture(module, inputs)
    except Exception as e:
        return {"status": "not exportable", "message": f"torch.export: {_first_line(e)}"}


def _decompose_sample(traced, decompose):
    """_trace_sample's result with its graph decomposed (decompose_many.decomposing_many)."""
    if isinstance(traced, dict):
        return traced
    module, inputs, expected, ep = traced
    try:
        return module, inputs, expected, decompose(ep)
    except Exception as e:
        return {"status": "not exportable", "message": f"torch.export: {_first_line(e)}"}


def _save_sample(decomposed, directory: str, summed: bool = False) -> dict:
    """Lowers a decomposed sample and writes it into `directory`; returns its meta (status,
    message, counts). `summed`: also keeps the outputs' sums of term magnitudes (SUMMED)."""
    if isinstance(decomposed, dict):
        return decomposed
    torch = _torch()
    from exporter.errors import ExportError
    from exporter.export import lower
    module, inputs, expected, ep = decomposed
    try:
        program = lower(ep)
    except ExportError as e:
        return {"status": "refused", "message": f"export: {_first_line(e)}"}
    except Exception as e:
        where = traceback.extract_tb(e.__traceback__)[-1]
        return {"status": "error", "message": f"export: {_first_line(e)} "
                                              f"({os.path.basename(where.filename)}:{where.lineno})"}
    program.save(os.path.join(directory, "sample.pte"))
    for i, value in enumerate(inputs):
        harness._save_npy(os.path.join(directory, f"input_{i}.npy"), value)
    for i, value in enumerate(expected):
        # As the self-check: random (or unset) outputs are compared by dtype and shape.
        kind = "drawn" if i in program.drawn_outputs else "expected"
        harness._save_npy(os.path.join(directory, f"{kind}_{i}.npy"), value)
    if summed:
        # Every term of a convolution is a product of an input and a weight (or the
        # bias): the op on absolute values sums their magnitudes, exactly in double.
        with torch.no_grad():
            terms = module(*(t.abs().double() if t.is_floating_point() else t
                             for t in inputs))
        for i, value in enumerate(terms):
            harness._save_npy(os.path.join(directory, f"terms_{i}.npy"), value)
    oplist = ops_from_program(program.data, "sample", dict(load_aten_schemas()), "sample")
    with open(os.path.join(directory, "selected_ops.yaml"), "w") as f:
        f.write(oplist_to_yaml(oplist))
    return {"status": "ok", "inputs": len(inputs), "outputs": len(expected),
            "ops": sorted({u.op for u in oplist.ops})}


def export_groups(groups: list[Group], limit: int | None, fingerprint: str) -> list[Sample]:
    """Exports (or finds in the cache) each sample of the groups: the missing ones traced,
    then decomposed in one decomposing_many block, then lowered and saved."""
    import warnings

    from tests.ops.decompose_many import decomposing_many
    warnings.filterwarnings("ignore")
    places, missing = [], []
    for group in groups:
        fn = _opinfo(group.opinfo).op
        summed = group.opinfo in SUMMED
        for index, sample in enumerate(samples_of(group, limit)):
            stem = "".join(c if c.isalnum() else "_"
                           for c in f"{group.opinfo}_{group.dtype}_{index}")
            key = hashlib.sha256(f"{_digest(sample)}|{fingerprint}|{SAMPLE_FORMAT}"
                                 f"{'|terms' if summed else ''}".encode()).hexdigest()[:10]
            directory = os.path.join(REPO, BUILD, "samples", f"{stem}_{key}")
            places.append((group, index, directory))
            if not os.path.exists(os.path.join(directory, "meta.json")):
                missing.append((stem, directory, summed, _trace_sample(fn, sample)))
    with decomposing_many() as decompose:
        missing = [(stem, directory, summed, _decompose_sample(traced, decompose))
                   for stem, directory, summed, traced in missing]
    for stem, directory, summed, decomposed in missing:
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(os.path.dirname(directory), exist_ok=True)
        staging = tempfile.mkdtemp(prefix=f".{stem}.", dir=os.path.dirname(directory))
        with open(os.path.join(staging, "meta.json"), "w") as f:
            json.dump(_save_sample(decomposed, staging, summed), f)
        try:
            os.rename(staging, directory)
        except OSError:  # another run exported it first
            shutil.rmtree(staging)
    found = []
    for group, index, directory in places:
        with open(os.path.join(directory, "meta.json")) as f:
            meta = json.load(f)
        found.append(Sample(group, index, directory, meta["status"], meta.get("message", ""),
                            meta.get("inputs", 0), meta.get("outputs", 0)))
    return found


def _export_groups_job(args):
    return export_groups(*args)


def export_all(groups: list[Group], limit: int | None, jobs: int = 1) -> list[Sample]:
    # A sample directory's layout is part of the key: drawn_<i>.npy came in with issue 29.
    fingerprint = harness._exporter_fingerprint() + ", drawn outputs"
    if jobs <= 1:
        return export_groups(groups, limit, fingerprint)
    # Batches of GROUPS_PER_JOB groups, in order: each pays decomposing_many's setup once.
    work = [(groups[i:i + GROUPS_PER_JOB], limit, fingerprint)
            for i in range(0, len(groups), GROUPS_PER_JOB)]
    import multiprocessing
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        return [s for batch in pool.map(_export_groups_job, work) for s in batch]


@dataclass
class Result:
    sample: Sample
    outcome: str                     # one of OUTCOMES
    message: str = ""


@dataclass
class Runtime:
    library: str
    runner: str
    refused: dict = field(default_factory=dict)   # sample dir -> resolver's reason


def build_runtime(library: str, samples: list[Sample]) -> Runtime:
    """One runtime for every exported sample `library` has kernels for (the others get
    the resolver's reason), built from the union of their op lists."""
    libs = harness.load_libraries(library)
    runnable, refused = [], {}
    for s in samples:
        if s.status != "ok":
            continue
        reason = _resolver_refusal(s.oplist_path, libs)
        if reason:
            refused[s.dir] = reason
        else:
            runnable.append(s)
    if not runnable:
        return Runtime(library, "", refused)
    runner = harness.build_programs(library, [s.pte for s in runnable], BUILD)
    return Runtime(library, runner, refused)


def _resolver_refusal(oplist_path: str, libs: list) -> str | None:
    """The resolver's message for a program the libraries cannot run (each op use with
    the key it lacks and the keys the library has), or None."""
    from codegen.errors import ManifestError
    from codegen.resolve import resolve_kernels
    with open(oplist_path) as f:
        oplist = parse_oplist(f.read(), oplist_path)
    try:
        resolve_kernels(oplist, libs)
    except ManifestError as error:
        uses = [line.strip().replace(", model sample", "") for line in str(error).splitlines()
                if line.startswith("  ") and not line.startswith("  at ")]
        return "build: " + "; ".join(uses)
    return None


# OpInfos whose second output (indices) torch gives in an open order among equal values
# ("the order of equal elements is not specified"): it passes when it picks eager's
# values (the first output) from the input, each index once (picks_values).
TIE_ORDER_OPEN = ("topk",)


def picks_values(indices: np.ndarray, values: np.ndarray, source: np.ndarray) -> bool:
    """Whether `indices` along some dim of `source` pick exactly `values` (NaN for NaN),
    with no index twice in one row."""
    if source.ndim == 0:
        return indices.shape == () and (indices.size == 0 or int(indices) == 0)
    for axis in range(source.ndim):
        if indices.shape != values.shape or any(
                a != b for d, (a, b) in enumerate(zip(indices.shape, source.shape)) if d != axis):
            continue
        if indices.size and (indices.min() < 0 or indices.max() >= source.shape[axis]):
            continue
        picked = np.take_along_axis(source, indices, axis)
        same = (picked == values) | (np.isnan(picked) & np.isnan(values)
                                     if np.issubdtype(values.dtype, np.floating) else False)
        ordered = np.sort(indices, axis=axis)
        if same.all() and not (np.diff(ordered, axis=axis) == 0).any():
            return True
    return False


def compare(got: np.ndarray, want: np.ndarray, terms: np.ndarray | None = None) -> str | None:
    """Why `got` is not eager's `want`, or None when it matches. `terms`: per output, the
    sum of the magnitudes of the terms it sums; the relative tolerance then applies to
    it (or to |want|, if larger)."""
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, eager gives {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape}, eager gives {want.shape}"
    if not np.issubdtype(want.dtype, np.floating):
        bad = got != want
        return None if not bad.any() else (
            f"{int(bad.sum())} of {want.size} differ, e.g. {got[bad].flat[0]} for "
            f"{want[bad].flat[0]}")
    nan = np.isnan(want)
    if (np.isnan(got) != nan).any():
        return f"NaN at other positions ({int(np.isnan(got).sum())} vs {int(nan.sum())})"
    atol, rtol = TOLERANCE.get(str(want.dtype), (1e-5, 1e-5))
    g, w = got[~nan].astype(np.float64), want[~nan].astype(np.float64)
    inf = np.isinf(w)
    if (g[inf] != w[inf]).any() or np.isinf(g[~inf]).any():
        return "infinities differ"
    err = np.abs(g[~inf] - w[~inf])
    scale = np.abs(w[~inf])
    if terms is not None:
        scale = np.maximum(scale, np.abs(terms[~nan].astype(np.float64)[~inf]))
    bad = err > atol + rtol * scale
    if bad.any():
        return (f"{int(bad.sum())} of {want.size} differ, max abs error "
                f"{float(err.max()):.3g}")
    return None


def run_sample(runtime: Runtime, sample: Sample, tmp_dir: str) -> Result:
    if sample.status != "ok":
        outcome = {"not exportable": "not exportable", "refused": "refused"}.get(
            sample.status, "error")
        return Result(sample, outcome, sample.message)
    if sample.dir in runtime.refused:
        return Result(sample, "refused", runtime.refused[sample.dir])
    outputs = [os.path.join(tmp_dir, f"output_{i}.npy") for i in range(sample.outputs)]
    command = [runtime.runner, sample.pte]
    for i in range(sample.inputs):
        command += ["--input", os.path.join(sample.dir, f"input_{i}.npy")]
    for path in outputs:
        command += ["--output", path]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return Result(sample, "error", "run: no result in 60 s")
    text = (proc.stdout + proc.stderr).strip().replace(sample.pte, "sample.pte")
    if proc.returncode < 0:
        return Result(sample, "error", f"run: killed by signal {-proc.returncode}: {text[-300:]}")
    if proc.returncode != 0:
        # A refusal at load names the limitation; a failure while executing is a bug.
        loading = "cannot load" in text
        return Result(sample, "refused" if loading else "error",
                      ("load: " if loading else "run: ") + " | ".join(text.splitlines()[-3:]))
    for i, path in enumerate(outputs):
        got, drawn = np.load(path), os.path.join(sample.dir, f"drawn_{i}.npy")
        if os.path.exists(drawn):
            want = np.load(drawn)
            why = (f"dtype {got.dtype}, eager gives {want.dtype}" if got.dtype != want.dtype
                   else f"shape {got.shape}, eager gives {want.shape}"
                   if got.shape != want.shape else None)
        else:
            terms = os.path.join(sample.dir, f"terms_{i}.npy")
            why = compare(got, np.load(os.path.join(sample.dir, f"expected_{i}.npy")),
                          np.load(terms) if os.path.exists(terms) else None)
        if why and i == 1 and sample.group.opinfo.partition("/")[0] in TIE_ORDER_OPEN:
            values = np.load(os.path.join(sample.dir, "expected_0.npy"))
            source = np.load(os.path.join(sample.dir, "input_0.npy"))
            why = None if picks_values(got, values, source) else why + " (nor equal values)"
        if why:
            return Result(sample, "mismatch", f"output {i}: {why}")
    return Result(sample, "pass")


def run_all(library: str, samples: list[Sample]) -> list[Result]:
    runtime = build_runtime(library, samples)
    with tempfile.TemporaryDirectory() as tmp:
        return [run_sample(runtime, s, tmp) for s in samples]


def conformance(library: str = "portable", limit: int | None = LIMIT, subset=SUBSET,
                only: tuple = (), jobs: int = 1) -> list[Result]:
    """Every sample of the planned groups, exported, built, run and compared."""
    groups = plan_groups(library, only, subset)
    return run_all(library, export_all(groups, limit, jobs))


def table(results: list[Result], markdown: bool = False) -> str:
    """One row per (declared ops, OpInfo): samples and the count of each outcome."""
    rows = collections.defaultdict(collections.Counter)
    for r in results:
        g = r.sample.group
        rows[(", ".join(o.removeprefix("aten::") for o in g.ops), g.opinfo)][r.outcome] += 1
    total = collections.Counter()
    header = ("op", "OpInfo", "samples") + OUTCOMES
    lines = []
    for (ops, info), counts in sorted(rows.items()):
        total.update(counts)
        lines.append((ops, info, str(sum(counts.values())))
                     + tuple(str(counts[o]) for o in OUTCOMES))
    lines.append(("total", "", str(sum(total.values()))) + tuple(str(total[o]) for o in OUTCOMES))
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        return "\n".join(out + ["| " + " | ".join(line) + " |" for line in lines])
    widths = [max(len(x) for x in col) for col in zip(header, *lines)]
    return "\n".join("  ".join(x.ljust(w) for x, w in zip(line, widths))
                     for line in [header] + lines)


def failures(results: list[Result], per_kind: int) -> str:
    """Up to `per_kind` examples of each distinct message of mismatch/error/refused."""
    out = []
    for outcome in ("mismatch", "error", "refused", "not exportable"):
        seen = collections.Counter()
        for r in results:
            if r.outcome != outcome:
                continue
            key = (r.sample.group.opinfo, r.message.split(",")[0][:80])
            seen[key] += 1
            if seen[key] <= per_kind:
                out.append(f"{outcome}: {r.sample.name}: {r.message}")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.ops.conformance",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", default="portable")
    parser.add_argument("--all", action="store_true",
                        help="every OpInfo and every sample (default: the tests' subset)")
    parser.add_argument("--limit", type=int, help="at most N samples per OpInfo and dtype")
    parser.add_argument("--ops", default="", help="only these OpInfos (names or ids)")
    parser.add_argument("--jobs", type=int, default=1, help="export in N processes")
    parser.add_argument("--failures", type=int, default=0, metavar="N",
                        help="print N examples of each distinct failure")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    only = tuple(o for o in args.ops.split(",") if o)
    full = args.all or bool(only)
    limit = args.limit if args.limit is not None else (None if full else LIMIT)
    results = conformance(args.library, limit, () if full else SUBSET, only, args.jobs)
    print(table(results, args.markdown))
    if args.failures:
        print(failures(results, args.failures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
