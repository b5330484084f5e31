"""The exported samples built into one runtime per library, run with the runner and
compared with eager's outputs: each sample's outcome."""

import os
import subprocess
import tempfile
from dataclasses import dataclass, field

import numpy as np

from codegen.oplist import parse_oplist
from tests.ops import harness
from tests.ops.conformance.samples import (BUILD, LIMIT, SUBSET, Sample, export_all,
                                           plan_groups)

# Float32 results: eager and the kernels may sum or round in another order.
TOLERANCE = {"float32": (1e-5, 1e-5), "float64": (1e-10, 1e-10), "float16": (1e-3, 2e-3)}
OUTCOMES = ("pass", "mismatch", "error", "refused", "not exportable")


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
