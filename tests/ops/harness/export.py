"""Exported programs on disk: each (case, dtype) exported once into a cache keyed by the
case, torch's version and the exporter's sources; what the cache lacks is exported in
batches on every core."""

import glob
import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass

import numpy as np

from codegen.oplist import oplist_to_yaml, ops_from_program
from codegen.schema import load_aten_schemas
from tests.conftest import REPO
from tests.ops.cases import CASES, OpCase
from tests.ops.harness.libraries import BUILD, XNNPACK
from tests.ops.harness.program import prepare


def case_params() -> list[tuple[OpCase, str]]:
    return [(case, dtype) for case in CASES for dtype in case.dtypes]


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
