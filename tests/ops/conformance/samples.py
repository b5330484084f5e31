"""Which OpInfo samples run (the groups planned from a library's manifest) and their
export: each sample a module calling the OpInfo's op, exported into a cache with its
inputs and eager's outputs."""

import hashlib
import json
import os
import shutil
import tempfile
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from codegen import build_layout
from codegen.kernel_manifest import load_library
from codegen.oplist import oplist_to_yaml, ops_from_program
from codegen.schema import load_aten_schemas
from tests.conftest import REPO
from tests.ops import harness

BUILD = build_layout.tree("conformance")
INT_DTYPES = ("Bool", "Byte", "Char", "Short", "Int", "Long")
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
    # Spawned, not forked: a fork of a process whose torch or OpenMP threads hold a lock
    # (any pytest run that exported before) deadlocks in the child.
    import multiprocessing
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        return [s for batch in pool.map(_export_groups_job, work) for s in batch]
