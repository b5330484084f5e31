"""Model manifest (manifests/models/<name>.yaml) -> a validated ModelManifest, and the
model it names.

    description: Linear(16,32) - ReLU - Linear(32,4)
    factory: examples.mlp.model:make_mlp   # returns (nn.Module, tuple of example inputs)
    factory_args: {batch: 4}               # optional; keyword arguments of the factory
    dynamic_dims:                          # optional
      - {input: 0, dim: 0, name: batch, min: 1, max: 8}
    tolerance: {atol: 1.0e-5, rtol: 1.0e-5}  # optional; for the runtime self-check
    backend: xnnpack                       # optional; delegate to backends/<name> (or none)
    constant_methods: {get_max_seq_len: 64}  # optional; methods returning a constant
    quantize: 8da4w                        # optional; exporter/quantize/scheme.py
    kernel_libraries: [examples/custom_linear/custom_linear.yaml]  # optional; the model's own
                                           # kernel libraries, ahead of the target's (site_scons)
    data: [examples/nanogpt/weights/*]     # optional; files the factory reads (the build
                                           # re-exports when one changes)
    app: {name: generate, sources: [...], args: [...]}  # optional; a program linked against
                                           # the model's runtime, run by `scons generate=`

or, for a Hugging Face checkpoint, `llm: {checkpoint: DIR, max_seq_len: 512}` instead of
factory (tailor/llm/manifest.py: it stands for the factory, dynamic dims, constant
methods, kernel libraries, data and app of a cached decoder).

This is the one reader of model manifests: the exporter and the build (site_scons/stages.py)
both read them through load_manifest(). Every mistake in the file (unknown key, wrong type,
a factory that is not `module:function`, a pattern that matches no file) raises
ManifestError naming the file, the entry and the fix; load_model() raises ExportError (a
ManifestError too) when the factory does not import or does not return (module, inputs).
Only load_model() imports the factory (and so torch).
"""

import glob
import importlib
import inspect
import os
import re
import sys
from dataclasses import dataclass

from codegen.backends import available_backends, plan_backends
from codegen.errors import ManifestError
from codegen.roots import PACKAGE as REPO
from codegen.roots import manifest_names, scons_path
from codegen.target import is_library_path, parse_threads
from codegen.yaml_io import load_yaml, once_per_file
from exporter.errors import ExportError
from exporter.quantize.scheme import parse_quantize

_FACTORY = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*$")
_NAME = re.compile(r"^[A-Za-z_]\w*$")
_TOP_KEYS = {"description": str, "factory": str, "factory_args": dict, "dynamic_dims": list,
             "tolerance": dict, "app": dict, "backend": str, "data": list,
             "constant_methods": dict, "quantize": (str, dict), "kernel_libraries": list,
             "llm": dict, "threads": int}
# An app is a program the build links against the model's runtime (read by site_scons);
# `args` go before `--prompt TEXT` when `scons generate=TEXT` runs it.
_APP_KEYS = ("name", "sources", "args")
_APP_REQUIRED = ("name", "sources")
_REQUIRED_TOP = ("description",)
_DIM_KEYS = ("input", "dim", "name", "min", "max")
_TOLERANCE_KEYS = ("atol", "rtol")
DEFAULT_TOLERANCE = {"atol": 1e-5, "rtol": 1e-5}


@dataclass(frozen=True)
class DynamicDim:
    input: int      # index of the example input
    dim: int        # dimension of that input
    name: str       # dims with the same name are the same symbol
    min: int
    max: int        # memory is planned for this size


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


@dataclass(frozen=True)
class ModelManifest:
    path: str
    name: str                           # the file's stem: "mlp"
    description: str
    factory: str                        # "examples.mlp.model:make_mlp"
    factory_args: tuple[tuple[str, object], ...]   # keyword arguments, sorted by name
    dynamic_dims: tuple[DynamicDim, ...]
    tolerance: Tolerance
    backend: str = ""                   # "xnnpack", "none" (never delegate), "" (the build's)
    quantize: object = None             # exporter.quantize.scheme.QuantizeSpec, or None
    # Methods returning a constant (generation metadata): name -> int, float, bool or
    # list of ints, in the file's order.
    constant_methods: tuple[tuple[str, object], ...] = ()
    data_files: tuple[str, ...] = ()    # `data:` matched: as SCons names them (roots.scons_path)
    app_name: str = ""                  # `app:`, or ""
    app_sources: tuple[str, ...] = ()   # its sources, matched, as SCons names them
    app_args: tuple[str, ...] = ()      # what `generate=` passes it before --prompt
    kernel_libraries: tuple[str, ...] = ()  # the model's own kernel manifests
    llm_checkpoint: str = ""            # `llm:`: the checkpoint directory, absolute
    threads: int | None = None          # the build's default kernel threads (0: all cores)


def _type_name(t) -> str:
    if isinstance(t, tuple):
        return " or ".join(_type_name(one) for one in t)
    return {str: "a string", list: "a list", dict: "a mapping", int: "an integer",
            float: "a number"}[t]


def _check_keys(path: str, entry: str, data: dict, allowed, required) -> None:
    for key in data:
        if key not in allowed:
            raise ManifestError(f"{path}: {entry}unknown key '{key}'; allowed keys: "
                              f"{', '.join(allowed)}")
    for key in required:
        if key not in data:
            raise ManifestError(f"{path}: {entry}missing key '{key}'; add it "
                              f"(keys: {', '.join(allowed)})")


def _int(path: str, entry: str, v, minimum: int = 0) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
        raise ManifestError(f"{path}: {entry} must be an integer >= {minimum}, not {v!r}")
    return v


def _number(path: str, entry: str, v) -> float:
    if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
        raise ManifestError(f"{path}: {entry} must be a number >= 0, not {v!r} "
                          "(write 1.0e-5, not 1e-5, which YAML reads as a string)")
    return float(v)


def _dynamic_dim(path: str, i: int, d) -> DynamicDim:
    entry = f"dynamic_dims[{i}]"
    if not isinstance(d, dict):
        raise ManifestError(f"{path}: {entry} must be a mapping like "
                          "{input: 0, dim: 0, name: batch, min: 1, max: 8}")
    _check_keys(path, f"{entry}: ", d, _DIM_KEYS, ("input", "dim", "name", "max"))
    name = d["name"]
    if not isinstance(name, str) or not _NAME.match(name):
        raise ManifestError(f"{path}: {entry}.name must be an identifier like 'batch', "
                          f"not {name!r}")
    lo = _int(path, f"{entry}.min", d.get("min", 1))
    hi = _int(path, f"{entry}.max", d["max"], minimum=1)
    if lo > hi:
        raise ManifestError(f"{path}: {entry}: min {lo} is greater than max {hi}")
    return DynamicDim(_int(path, f"{entry}.input", d["input"]),
                      _int(path, f"{entry}.dim", d["dim"]), name, lo, hi)


def parse_manifest(path: str, data, repo: str = REPO) -> ModelManifest:
    """Validates the YAML data of manifest `path`; file patterns are matched in `repo`
    (no imports)."""
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: the manifest must be a mapping with keys "
                          f"{', '.join(_TOP_KEYS)}")
    _check_keys(path, "", data, tuple(_TOP_KEYS), _REQUIRED_TOP)
    for key, t in _TOP_KEYS.items():
        if key in data and not isinstance(data[key], t):
            raise ManifestError(f"{path}: {key} must be {_type_name(t)}, "
                              f"not {data[key]!r}")
    if "llm" in data:  # a Hugging Face checkpoint: the keys it stands for
        from tailor.llm.manifest import expand_llm
        data = expand_llm(path, data, repo)
    elif "factory" not in data:
        raise ManifestError(f"{path}: missing key 'factory' (or 'llm' for a Hugging Face "
                            "checkpoint); add it")
    factory = data["factory"]
    if not _FACTORY.match(factory):
        raise ManifestError(f"{path}: factory '{factory}' is not 'module:function'; write "
                          "it like examples.mlp.model:make_mlp")
    factory_args = data.get("factory_args", {})
    for key in factory_args:
        if not isinstance(key, str) or not _NAME.match(key):
            raise ManifestError(f"{path}: factory_args: {key!r} is not a keyword argument name; "
                              "write factory_args: {name: value, ...}")
    dims = tuple(_dynamic_dim(path, i, d) for i, d in enumerate(data.get("dynamic_dims", [])))
    seen = {}
    for i, d in enumerate(dims):
        key = (d.input, d.dim)
        if key in seen:
            raise ManifestError(f"{path}: dynamic_dims[{i}] repeats input {d.input} dim "
                              f"{d.dim} of dynamic_dims[{seen[key]}]; keep one")
        seen[key] = i
        first = next(e for e in dims if e.name == d.name)
        if (first.min, first.max) != (d.min, d.max):
            raise ManifestError(f"{path}: dynamic_dims[{i}]: dim '{d.name}' is declared "
                              "twice with different min/max; use one range or two names")
    if "app" in data:
        _check_keys(path, "app: ", data["app"], _APP_KEYS, _APP_REQUIRED)
        for key, example in (("sources", "[apps/llm/*.cpp, apps/llm/tokenizer/*.cpp]"),
                             ("args", "[--tokenizer, examples/nanogpt/weights/vocab.json]")):
            value = data["app"].get(key, [])
            if not (isinstance(value, list) and all(isinstance(s, str) for s in value)):
                raise ManifestError(f"{path}: app: {key} must be a list of strings, e.g. "
                                  f"{example}")
    # Files the factory reads (weights, vocabularies): the build re-exports when they change.
    if not all(isinstance(s, str) for s in data.get("data", [])):
        raise ManifestError(f"{path}: data must be a list of paths or globs, e.g. "
                          "[examples/nanogpt/weights/*]")
    backend = data.get("backend", "")
    if backend and backend != "none" and backend not in available_backends():
        raise ManifestError(f"{path}: backend '{backend}' is not one of "
                            f"{', '.join(available_backends() + ['none'])} (backends/<name>/)")
    try:
        quantize = parse_quantize(data.get("quantize"))
    except ValueError as e:
        raise ManifestError(f"{path}: quantize: {e}") from None
    tolerance = data.get("tolerance", DEFAULT_TOLERANCE)
    _check_keys(path, "tolerance: ", tolerance, _TOLERANCE_KEYS, _TOLERANCE_KEYS)
    constant_methods = data.get("constant_methods", {})
    for key, value in constant_methods.items():
        scalar = isinstance(value, (bool, int, float))
        ints = isinstance(value, list) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value)
        if not (isinstance(key, str) and _NAME.match(key) and key != "forward"
                and (scalar or ints)):
            raise ManifestError(f"{path}: constant_methods: {key}: {value!r}; write "
                              "`name: number` or `name: [ints]` with a name other than "
                              "forward, e.g. get_max_seq_len: 64 or get_eos_ids: [0]")
    app = data.get("app", {})
    return ModelManifest(
        path=path, name=os.path.splitext(os.path.basename(path))[0],
        description=data["description"], factory=factory,
        factory_args=tuple(sorted(factory_args.items())), dynamic_dims=dims,
        tolerance=Tolerance(*(_number(path, f"tolerance.{k}", tolerance[k])
                              for k in _TOLERANCE_KEYS)), backend=backend, quantize=quantize,
        constant_methods=tuple(constant_methods.items()),
        data_files=_matching_files(repo, path, "data", data.get("data", [])),
        app_name=str(app.get("name", "")),
        app_sources=_matching_files(repo, path, "app.sources", app.get("sources", [])),
        app_args=tuple(app.get("args", [])),
        llm_checkpoint=data["factory_args"]["checkpoint"] if "llm" in data else "",
        kernel_libraries=_model_libraries(repo, path, data.get("kernel_libraries", [])),
        threads=parse_threads(path, data["threads"]) if "threads" in data else None)


def _relative_to(repo: str, relative: str) -> list[str]:
    """Where a path of a manifest found under `repo` may be: there, else in the package."""
    return [os.path.join(root, relative) for root in dict.fromkeys((repo, REPO))]


def _matching_files(repo: str, path: str, key: str, patterns: list) -> tuple[str, ...]:
    """The files `patterns` name, relative to `repo` (else to the package root), as SCons
    names them (codegen/roots.py: relative in the package, absolute elsewhere); a pattern
    that names none is a typo, not an empty list."""
    found = []
    for pattern in patterns:
        matched = []
        for where in _relative_to(repo, pattern):
            # An absolute pattern (a checkpoint outside the repository) stays absolute.
            matched = matched or sorted(p if os.path.isabs(pattern) else scons_path(p)
                                        for p in glob.glob(where, recursive=True)
                                        if os.path.isfile(p))
        if not matched:
            raise ManifestError(f"{path}: {key}: '{pattern}' matches no file (patterns are "
                                "relative to the repository); fix the pattern or remove it")
        found += matched
    return tuple(found)


def _model_libraries(repo: str, path: str, libraries: list) -> tuple[str, ...]:
    """A model's `kernel_libraries:`: kernel manifests (paths relative to the repository)
    whose stems do not shadow a library of manifests/kernels/."""
    builtin = manifest_names("kernels")
    found = []
    for library in libraries:
        name = os.path.splitext(os.path.basename(str(library)))[0]
        files = [f for f in _relative_to(repo, library) if os.path.isfile(f)] if (
            isinstance(library, str) and is_library_path(library)) else []
        if not files:
            raise ManifestError(f"{path}: kernel_libraries: '{library}' is not a kernel "
                                "manifest; name a .yaml file relative to the repository, "
                                "e.g. examples/custom_linear/custom_linear.yaml")
        if name in builtin:
            raise ManifestError(f"{path}: kernel_libraries: '{library}' would be library "
                                f"'{name}', which manifests/kernels/{name}.yaml already "
                                "names; rename the file")
        found.append(scons_path(files[0]))
    return tuple(found)


def make_partitioner(backend: str, kernel_libraries: tuple = ()):
    """The exporter.delegation.Partitioner of `backend` ("" or "none": None) for a runtime
    with `kernel_libraries` (the target's, in precedence order; () when unknown), made by
    the function its backends/<name>/backend.yaml names as `partitioner:`."""
    if backend in ("", "none"):
        return None
    (choice,) = plan_backends([backend], f"backend '{backend}'").backends
    if not choice.partitioner:
        raise ManifestError(f"backends/{backend}/backend.yaml: no `partitioner:`, so "
                            f"backend '{backend}' cannot take part in export; name its "
                            "module:function there")
    module_name, function_name = choice.partitioner.split(":")
    try:
        make = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as e:
        raise ManifestError(f"backends/{backend}/backend.yaml: partitioner: "
                            f"{choice.partitioner}: {e}; name an importable module:function"
                            ) from None
    return make(kernel_libraries=tuple(kernel_libraries))


@once_per_file
def load_manifest(path: str, repo: str = REPO, label: str | None = None) -> ModelManifest:
    """The manifest at `path`; messages name it `label` (default: `path`)."""
    label = label or path
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ManifestError(f"{label}: cannot read the manifest: {e.strerror}") from None
    return parse_manifest(label, load_yaml(text, label), repo)


def load_model(manifest: ModelManifest):
    """Calls the manifest's factory; returns (module, example inputs as a tuple)."""
    import torch

    module_name, function_name = manifest.factory.split(":")
    # The factory is imported from the repository, the manifest's own directory, or the
    # user's PYTHONPATH (already on sys.path), in that order.
    for folder in reversed((REPO, os.path.dirname(os.path.abspath(manifest.path)))):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ExportError(f"{manifest.path}: factory '{manifest.factory}': cannot import "
                          f"{module_name} ({e}); the module path is relative to the "
                          "repository root, the manifest's directory or a PYTHONPATH entry; "
                          "check it and that its dependencies are installed") from None
    factory = getattr(module, function_name, None)
    if not callable(factory):
        raise ExportError(f"{manifest.path}: factory '{manifest.factory}': {module_name} "
                          f"has no function {function_name}")
    kwargs = dict(manifest.factory_args)
    try:
        inspect.signature(factory).bind(**kwargs)
    except TypeError as e:
        raise ExportError(f"{manifest.path}: factory '{manifest.factory}' cannot be called "
                          f"with factory_args {kwargs} ({e}); fix the names in factory_args"
                          ) from None
    try:
        result = factory(**kwargs)
    except Exception as e:  # the user's code: one message, not a traceback
        from exporter.node_source import describe_exception
        raise ExportError(f"{manifest.path}: factory '{manifest.factory}' raised "
                          f"{describe_exception(e)}; fix the factory or its factory_args"
                          ) from None
    if not (isinstance(result, tuple) and len(result) == 2
            and isinstance(result[0], torch.nn.Module)
            and isinstance(result[1], (tuple, list))):
        raise ExportError(f"{manifest.path}: factory '{manifest.factory}' must return "
                          "(nn.Module, tuple of example inputs), got "
                          f"{type(result).__name__}")
    model, inputs = result[0], tuple(result[1])
    _check_dims(manifest, inputs)
    return model, inputs


def _check_dims(manifest: ModelManifest, inputs: tuple) -> None:
    for i, d in enumerate(manifest.dynamic_dims):
        entry = f"{manifest.path}: dynamic_dims[{i}]"
        if d.input >= len(inputs) or not hasattr(inputs[d.input], "shape"):
            raise ExportError(f"{entry}: input {d.input} is not a tensor input "
                              f"(the factory returns {len(inputs)} inputs)")
        shape = inputs[d.input].shape
        if d.dim >= len(shape):
            raise ExportError(f"{entry}: input {d.input} has {len(shape)} dims, so it has "
                              f"no dim {d.dim}")
        if not d.min <= shape[d.dim] <= d.max:
            raise ExportError(f"{entry}: the example input has size {shape[d.dim]} in "
                              f"dim {d.dim}, outside [{d.min}, {d.max}]; widen the range "
                              "or change the example")


def dynamic_shapes(manifest: ModelManifest, inputs: tuple):
    """torch.export's dynamic_shapes for the manifest's dynamic dims (None if none)."""
    import torch

    if not manifest.dynamic_dims:
        return None
    dims = {}
    for d in manifest.dynamic_dims:
        dims.setdefault(d.name, torch.export.Dim(d.name, min=d.min, max=d.max))
    shapes = [None] * len(inputs)
    for d in manifest.dynamic_dims:
        shapes[d.input] = shapes[d.input] or {}
        shapes[d.input][d.dim] = dims[d.name]
    return tuple(shapes)
