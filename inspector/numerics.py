"""Intermediate outputs (runner --dump-intermediates DIR) + the model's exported graph run
in eager torch on the same inputs -> each instruction's error, and the first one past a
threshold.

The graph is traced and simplified again from the model manifest exactly as the exporter
does it (exporter.export.trace() and lower(), which rewrites the graph in place), so its
node names are the ones the debug record lists.
Errors are per instruction, over every tensor it writes: `max abs` = max |runtime -
eager|, `max rel` = max abs / max |eager| (the error against the tensor's own scale, so
values near zero do not blow it up). A delegate call's outputs are compared with the
graph nodes that the debug record says each one is.
"""

import os
from dataclasses import dataclass

import numpy as np

from codegen.errors import ManifestError

_HOW = ("write them with a trace=1 runner: runner PROGRAM --check --dump-intermediates DIR "
        "(scons ... trace=1)")


def eager_node_values(manifest_path: str, inputs: list[np.ndarray]) -> dict:
    """Graph node name -> its eager value (a tensor, or a tuple/list of them), running the
    traced graph of the model in `manifest_path` on `inputs`."""
    import torch

    from exporter.export import lower, trace
    from exporter.manifest import dynamic_shapes, load_manifest, load_model
    from exporter.passes.graph_constants import constant_tensors

    manifest = load_manifest(manifest_path)
    module, example = load_model(manifest)
    ep = trace(module, example, dynamic_shapes(manifest, example))
    lower(ep)  # simplifies `ep` in place, as the export did; the program itself is not needed
    constants = constant_tensors(ep)
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
    wanted = len(placeholders) - len(constants)
    if len(inputs) != wanted:
        raise ManifestError(f"{manifest_path}: the model takes {wanted} input(s), "
                            f"{len(inputs)} were given; pass one .npy per input")
    given = iter(torch.from_numpy(np.ascontiguousarray(a)) for a in inputs)
    args = [constants[n] if n in constants else next(given) for n in placeholders]
    values = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, node):
            result = super().run_node(node)
            values[node.name] = result
            return result

        def call_function(self, target, args, kwargs):
            # As in the program, a view is a copy (view_copy, ...): once the passes removed
            # the graph's no-op copies, a view may meet an input it cannot alias.
            return super().call_function(_copy_variant(target), args, kwargs)

    with torch.no_grad():
        Recorder(ep.graph_module).run(*args)
    return values


def _copy_variant(target):
    """aten.view.default -> aten.view_copy.default, and likewise for every view op that
    has a copying variant; any other target as it is."""
    import torch

    schema = getattr(target, "_schema", None)
    if schema is None or not schema.name.startswith("aten::") or not any(
            a.alias_info is not None and not a.alias_info.is_write for a in schema.arguments):
        return target
    packet = getattr(torch.ops.aten, schema.name[len("aten::"):] + "_copy", None)
    overload = schema.overload_name or "default"
    return getattr(packet, overload, target) if packet is not None else target


@dataclass(frozen=True)
class ErrorRow:
    index: int
    op: str
    node: str
    shape: str
    max_abs: float | None   # None: not compared (see note)
    max_rel: float | None
    module: str
    source: str
    code: str
    note: str = ""


def _dump_name(index: int, output: dict) -> str:
    item = f"_{output['item']}" if "item" in output else ""
    return f"{index}_{output['slot']}{item}.npy"


def _eager_output(eager: dict, node: str, position: int, output: dict):
    """The eager value an instruction's output entry stands for: output `position` of the
    instruction's node, or for a delegate call the node and output the entry names."""
    node, position = output.get("node", node), output.get("node_output", position)
    value = eager[node]
    if "item" in output:
        return value[output["item"]]
    return value[position] if isinstance(value, (tuple, list)) else value


def _errors(actual: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    if a.size == 0:
        return 0.0, 0.0
    with np.errstate(invalid="ignore"):  # inf - inf: equal infinities are no error
        diff = np.where((a == e) | (np.isnan(a) & np.isnan(e)), 0.0, np.abs(a - e))
    max_abs = float(np.nan_to_num(diff, nan=np.inf).max())
    scale = float(np.abs(e[np.isfinite(e)]).max()) if np.isfinite(e).any() else 0.0
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else float("inf"))
    return max_abs, max_rel


def compare_instruction(entry: dict, dump_dir: str, eager: dict) -> ErrorRow:
    """The error of one debug record instruction's dumped outputs against eager."""
    index = entry["index"]
    node = (entry.get("nodes") or ["?"])[0]
    outputs = entry.get("outputs") or []
    shape = "[" + ", ".join(str(d) for d in outputs[0]["shape"]) + "]" if outputs else ""
    base = ErrorRow(index, entry.get("op", "?"), node, shape, None, None,
                    entry.get("module", ""), entry.get("source", ""), entry.get("code", ""))
    delegate = entry.get("kind") != "KernelCall"
    if delegate and not all("node" in o for o in outputs):
        return _with(base, note="delegate call: the record names no node; export again")
    missing = {o.get("node", node) for o in outputs} - set(eager)
    if missing:
        return _with(base, note=f"node {sorted(missing)[0]} is not in the eager graph")
    worst_abs, worst_rel = 0.0, 0.0
    for position, output in enumerate(outputs):
        path = os.path.join(dump_dir, _dump_name(index, output))
        if not os.path.exists(path):
            return _with(base, note=f"no {os.path.basename(path)} (did the run stop early?)")
        actual = np.load(path)
        value = _eager_output(eager, node, position, output).detach()
        # numpy has no bfloat16: floats are compared in float32 or wider.
        if value.is_floating_point() and value.element_size() < 4:
            value = value.float()
        expected = value.numpy()
        shape = "[" + ", ".join(str(d) for d in actual.shape) + "]" if position == 0 else shape
        if actual.shape != expected.shape:
            return _with(base, shape=shape, max_abs=float("inf"), max_rel=float("inf"),
                         note=f"shape {list(actual.shape)}, eager {list(expected.shape)}")
        max_abs, max_rel = _errors(actual, expected)
        worst_abs, worst_rel = max(worst_abs, max_abs), max(worst_rel, max_rel)
    return _with(base, shape=shape, max_abs=worst_abs, max_rel=worst_rel)


def _with(row: ErrorRow, **changes) -> ErrorRow:
    return ErrorRow(**{**row.__dict__, **changes})


def compare_dump(debug: list[dict], dump_dir: str, eager: dict) -> list[ErrorRow]:
    """One row per instruction of the debug record."""
    if not os.path.isdir(dump_dir) or not any(n.endswith(".npy") for n in os.listdir(dump_dir)):
        raise ManifestError(f"{dump_dir}: holds no intermediate outputs; {_HOW}")
    for entry in debug:
        if "index" not in entry or "outputs" not in entry:
            raise ManifestError("the debug record predates intermediate outputs (no index "
                                "or outputs per instruction); export the model again")
    return [compare_instruction(entry, dump_dir, eager) for entry in debug]


def first_over(rows: list[ErrorRow], threshold: float) -> ErrorRow | None:
    """The first instruction whose relative error passes `threshold`."""
    return next((r for r in rows if r.max_rel is not None and r.max_rel > threshold), None)


def format_error_rows(rows: list[ErrorRow], threshold: float) -> str:
    head = ("#", "operator", "node", "shape", "max abs", "max rel", "", "module", "source")
    body = []
    for r in rows:
        compared = r.max_abs is not None
        over = compared and r.max_rel > threshold
        body.append((str(r.index), r.op, r.node, r.shape,
                     f"{r.max_abs:.2e}" if compared else "-",
                     f"{r.max_rel:.2e}" if compared else "-",
                     "OVER" if over else (r.note or ""), r.module or "-", r.source or "-"))
    widths = [max(len(line[c]) for line in [head] + body) for c in range(len(head))]
    return "\n".join("  ".join(cell.rjust(w) if c in (0, 4, 5) else cell.ljust(w)
                               for c, (cell, w) in enumerate(zip(line, widths))).rstrip()
                     for line in [head] + body)


def verdict(rows: list[ErrorRow], threshold: float) -> str:
    """The line a user reads first: where the numbers first go wrong, or that they do not."""
    first = first_over(rows, threshold)
    if first is None:
        return f"every compared instruction is within relative error {threshold:g} of eager"
    code = f": {first.code}" if first.code else ""
    return (f"first instruction over relative error {threshold:g}: #{first.index} {first.op} "
            f"(node {first.node}, max rel {first.max_rel:.2e}, max abs {first.max_abs:.2e}) "
            f"in {first.module or '(top level)'} at {first.source or '?'}{code}")
