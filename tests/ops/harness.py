"""The op test harness: OpCase (cases.py) -> program, runtime build, run, compare.

For each (case, dtype): a tiny module that calls the op once per item of `shapes` is
exported with exporter.export to build/test-ops/cases/<key>/ together with its inputs,
the eager outputs and the program's op list (codegen.oplist), cached by a hash of the
case, torch's version and the program format's version. Per kernel library, the resolver
(codegen.resolve) decides which programs the library can run; those are built into ONE
runtime through the real flow (`scons programs=... libraries=<lib>,prim`), and each is
run with `bin/runner` and compared with torch: exact for integer and Bool outputs,
within a per-dtype tolerance for floating ones.
"""

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

import numpy as np

from codegen.errors import ManifestError
from codegen.kernel_manifest import load_library
from codegen.oplist import oplist_to_yaml, ops_from_program, parse_oplist
from codegen.resolve import resolve_kernels
from codegen.schema import load_aten_schemas
from tests.conftest import REPO, SCONS
from tests.ops.cases import CASES, Arg, In, OpCase, Tensors

BUILD = "build/test-ops"
KERNELS_DIR = os.path.join(REPO, "manifests", "kernels")

# Floating dtypes: (atol, rtol) unless the case says otherwise. Half and BFloat16 allow
# one rounding step of difference (torch may round an intermediate the kernel keeps).
TOLERANCE = {"Float": (1e-5, 1e-5), "Double": (1e-10, 1e-10), "Half": (1e-3, 2e-3),
             "BFloat16": (1e-2, 1.6e-2)}
_NUMPY_FLOATS = {np.float16: "Half", np.float32: "Float", np.float64: "Double"}


def libraries() -> list[str]:
    """Every kernel library the cases run against: manifests/kernels/*.yaml but prim."""
    return sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(KERNELS_DIR, "*.yaml"))
                  if not p.endswith("prim.yaml"))


def case_params() -> list[tuple[OpCase, str]]:
    return [(case, dtype) for case in CASES for dtype in case.dtypes]


def _torch_dtype(name: str):
    import torch
    return {"Bool": torch.bool, "Byte": torch.uint8, "Char": torch.int8, "Short": torch.int16,
            "Int": torch.int32, "Long": torch.int64, "Half": torch.float16,
            "Float": torch.float32, "Double": torch.float64, "BFloat16": torch.bfloat16}[name]


def _as_in(item):
    """A call item with every tensor spelled as an `In` (a bare shape tuple is one)."""
    if isinstance(item, (In, Arg)) or item is None:
        return item
    if isinstance(item, Tensors):
        return Tensors(tuple(_as_in(i) for i in item.items))
    return In(tuple(item))


def _inputs_of(case: OpCase) -> list[list]:
    return [[_as_in(item) for item in call] for call in case.shapes]


def _tensor_specs(call: list) -> list[In]:
    """The call's tensors in order, lists flattened: the program's inputs."""
    specs = []
    for item in call:
        if isinstance(item, In):
            specs.append(item)
        elif isinstance(item, Tensors):
            specs += [i for i in item.items if i is not None]
    return specs


def _exporter_fingerprint() -> str:
    """What besides the case decides a cached export: torch's and the program format's
    versions. (Not the exporter's sources, which change often: after an exporter change
    that alters programs, remove build/test-ops/cases.)"""
    import torch
    from exporter.export import PROGRAM_VERSION
    return f"torch {torch.__version__}, program {PROGRAM_VERSION}"


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

    @property
    def oplist_path(self) -> str:
        return os.path.join(self.dir, "selected_ops.yaml")


def _key(case: OpCase, dtype: str, fingerprint: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9]+", "_", f"{case.id}_{dtype}")
    digest = hashlib.sha256(f"{case!r}|{dtype}|{fingerprint}".encode()).hexdigest()[:10]
    return f"{stem}_{digest}"


def _make_value(spec: In, dtype: str, domain: str, gen):
    import torch
    shape = tuple(spec.shape)
    if dtype == "Bool":
        return torch.randint(0, 2, shape, generator=gen).bool()
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


def _module(case: OpCase, dtype: str, calls: list[list[In]]):
    import torch

    namespace, _, rest = case.op.rpartition("::")
    packet, _, overload = rest.partition(".")
    fn = getattr(getattr(getattr(torch.ops, namespace or "aten"), packet), overload or "default")
    args = _resolve_arg(tuple(case.args), dtype)
    kwargs = {k: _resolve_arg(v, dtype) for k, v in case.kwargs.items()}

    class OneOp(torch.nn.Module):
        def forward(self, *inputs):
            outs, feed = [], iter(inputs)

            def tensor(spec):
                t = next(feed)
                return t.permute(spec.perm) if spec.perm else t

            for call in calls:
                values = []
                for item in call:
                    if isinstance(item, Arg):
                        values.append(_resolve_arg(item.value, dtype))
                    elif isinstance(item, Tensors):
                        values.append([None if i is None else tensor(i) for i in item.items])
                    else:
                        values.append(tensor(item))
                result = fn(*values, *args, **kwargs)
                # Several outputs (a tuple or a Tensor[]) are compared one by one.
                outs += result if isinstance(result, (tuple, list)) else [result]
            return tuple(outs)

    return OneOp()


def _save_npy(path: str, value) -> None:
    import torch
    if value.dtype == torch.bfloat16:  # numpy has none; the runner widens to float32 too
        value = value.float()
    np.save(path, value.detach().contiguous().numpy(), allow_pickle=False)


def export_case(case: OpCase, dtype: str, fingerprint: str) -> Exported:
    """Exports (case, dtype) unless the cache has it; returns where it lies."""
    key = _key(case, dtype, fingerprint)
    directory = os.path.join(REPO, BUILD, "cases", key)
    meta_path = os.path.join(directory, "meta.json")
    if not os.path.exists(meta_path):
        shutil.rmtree(directory, ignore_errors=True)  # left by an interrupted older run
        os.makedirs(os.path.dirname(directory), exist_ok=True)
        _export_to(case, dtype, directory, key)
    with open(meta_path) as f:
        meta = json.load(f)
    return Exported(case, dtype, directory, os.path.relpath(os.path.join(directory, f"{key}.pte"),
                                                            REPO),
                    tuple(os.path.join(directory, f"input_{i}.npy") for i in range(meta["inputs"])),
                    tuple(os.path.join(directory, f"expected_{i}.npy")
                          for i in range(meta["outputs"])),
                    tuple(meta["ops"]))


def _export_to(case: OpCase, dtype: str, final: str, key: str) -> None:
    import torch
    from exporter.export import export

    calls = _inputs_of(case)
    gen = torch.Generator().manual_seed(int(key.rsplit("_", 1)[1], 16) % (2 ** 31))
    inputs = [_make_value(spec, spec.dtype or dtype, spec.domain or case.domain, gen)
              for call in calls for spec in _tensor_specs(call)]
    module = _module(case, dtype, calls)
    with torch.no_grad():
        expected = module(*inputs)
    program = export(module, tuple(inputs))
    # Written to a fresh directory renamed into place, so a concurrent run never sees
    # half an export (and the one that loses the race keeps the winner's).
    directory = tempfile.mkdtemp(prefix=f".{key}.", dir=os.path.dirname(final))
    program.save(os.path.join(directory, f"{key}.pte"))
    for i, value in enumerate(inputs):
        _save_npy(os.path.join(directory, f"input_{i}.npy"), value)
    for i, value in enumerate(expected):
        _save_npy(os.path.join(directory, f"expected_{i}.npy"), value)
    schemas = dict(load_aten_schemas())
    oplist = ops_from_program(program.to_dict(), key, schemas, key)
    with open(os.path.join(directory, "selected_ops.yaml"), "w") as f:
        f.write(oplist_to_yaml(oplist))
    with open(os.path.join(directory, "meta.json"), "w") as f:
        json.dump({"inputs": len(inputs), "outputs": len(expected),
                   "ops": sorted({u.op for u in oplist.ops})}, f)
    try:
        os.rename(directory, final)
    except OSError:  # another run exported the same case first
        shutil.rmtree(directory)


def load_libraries(library: str) -> list:
    """`library` and prim, as the resolver takes them (precedence order)."""
    return [load_library(os.path.join(KERNELS_DIR, f"{name}.yaml")) for name in (library, "prim")]


def unsupported_reason(exported: Exported, library: str, libs: list) -> str | None:
    """Why `library` (with prim: `libs`) cannot run the program, from the resolver; None
    if it can."""
    with open(exported.oplist_path) as f:
        oplist = parse_oplist(f.read(), exported.oplist_path)
    try:
        resolve_kernels(oplist, libs)
    except ManifestError as error:
        uses = [line.strip().split(", model")[0] for line in str(error).splitlines()[1:]
                if line.startswith("  ")]
        return f"unsupported: {library} has no kernel for {'; '.join(uses)}"
    return None


@dataclass(frozen=True)
class LibraryBuild:
    library: str
    runner: str                      # absolute path of bin/runner
    skipped: dict                    # (case id, dtype) -> reason


def runner_path(ptes: list[str], library: str, select: str = "used",
                build_dir: str = BUILD) -> str:
    """Where scons puts the runner: site_scons/stages.py names the build directory."""
    import sys
    site_scons = os.path.join(REPO, "site_scons")
    if site_scons not in sys.path:
        sys.path.insert(0, site_scons)
    import stages
    plan = stages.BuildPlan(target_name="host", models=(), programs=tuple(ptes),
                            libraries=(library, "prim"), ops="", select=select, run=False,
                            sanitize="none", verbose=False, build_dir=build_dir)
    return os.path.join(REPO, build_dir, plan.target_dir, plan.variant, "bin", "runner")


def scons(*args: str) -> None:
    """Runs scons; a failure shows the end of its output (not the long command line)."""
    proc = subprocess.run([SCONS, "-j2", *args], cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"scons failed (exit {proc.returncode}):\n"
                             f"{proc.stdout[-4000:]}{proc.stderr[-4000:]}")


def build_library(library: str, exported: list[Exported]) -> LibraryBuild:
    """One runtime with every program `library` supports; the others are skipped."""
    skipped, ptes = {}, []
    libs = load_libraries(library)
    for e in exported:
        reason = unsupported_reason(e, library, libs)
        if reason:
            skipped[(e.case.id, e.dtype)] = reason
        else:
            ptes.append(e.pte)
    runner = ""
    if ptes:
        scons("programs=" + ",".join(ptes), f"libraries={library},prim", "build_dir=" + BUILD)
        runner = runner_path(ptes, library)
        assert os.path.exists(runner), f"the build made no {runner}"
    return LibraryBuild(library, runner, skipped)


def run_and_compare(build: LibraryBuild, exported: Exported, tmp_dir: str) -> None:
    """Runs the program on its inputs; asserts each output matches torch's."""
    outputs = [os.path.join(tmp_dir, f"output_{i}.npy") for i in range(len(exported.expected))]
    command = [build.runner, os.path.join(REPO, exported.pte)]
    for path in exported.inputs:
        command += ["--input", path]
    for path in outputs:
        command += ["--output", path]
    proc = subprocess.run(command, capture_output=True, text=True)
    assert proc.returncode == 0, (f"{' '.join(command)} exited {proc.returncode}:\n"
                                  f"{proc.stdout}{proc.stderr}")
    for i, (got_path, want_path) in enumerate(zip(outputs, exported.expected)):
        got, want = np.load(got_path), np.load(want_path)
        where = f"{exported.case.id} ({exported.dtype}) output {i}"
        assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, torch gives {want.dtype}"
        assert got.shape == want.shape, f"{where}: shape {got.shape}, torch gives {want.shape}"
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
