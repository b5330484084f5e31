"""nn.Module + example inputs -> a Tailor Program (.pte).

    program = export(module, (x,), dynamic_shapes=({0: torch.export.Dim("b", max=8)},))
    program.save("build/host/mlp/mlp.pte")

The module is traced with torch.export, decomposed to core ATen (but for the operators
exporter/decompositions.py keeps whole), simplified by the passes of exporter/passes/ (batch norms folded into convolutions, no-op copies removed,
constant subexpressions such as the transposed weight of a Linear folded into
constants), and lowered by program_builder.py to a method whose calls are out-variant
kernels over planned memory. `python -m exporter` (exporter/__main__.py)
drives this from a model manifest.
"""

import contextlib
import dataclasses
import functools
import io
import json
import os
import sys
import warnings
from dataclasses import dataclass

import torch

from exporter.batch_norm_training import lower_batch_norm_training
from exporter.decompositions import decomposition_table
from exporter.delegation import DelegationReport
from exporter.drawn_outputs import drawn_outputs
from exporter.errors import ExportError
from exporter.memory_plan import MemoryPlan
from exporter.node_source import describe_exception
from exporter.passes import SimplifyReport, simplify
from exporter.program_builder import BACKEND_SLACK, build_method
from exporter.program_methods import BoundMethod, constant_method, share_segment
from program import model
from program.atomic import write_bytes_atomic, write_text_atomic
from program.debug_record import VERSION as DEBUG_VERSION, debug_path_for
from program.pte import serialize

PROGRAM_VERSION = 1


@dataclass(frozen=True)
class KernelCallInfo:
    """One call of the program, as the kernel selection sees it."""
    op: str          # "aten::addmm.out"
    key: str         # kernel key: "Float;0|Float;0,1|Float;0,1|Float;0,1"


@dataclass(frozen=True)
class Program:
    """An exported program: the program model plus the constant segment."""
    data: model.Program
    segment: bytes
    plan: MemoryPlan
    node_count: int                              # call nodes torch.export produced
    delegation: DelegationReport | None = None   # set when exported with a partitioner
    simplified: SimplifyReport = SimplifyReport()  # what the export-time passes did
    debug: tuple = ()                            # per instruction: node, module, source line
    more_debug: tuple = ()                       # (name, debug) of each further method
    quantization: object = None                  # exporter.quantize.QuantizeReport, if quantized
    drawn_outputs: tuple = ()                    # outputs of random or unset values
                                                 # (exporter/drawn_outputs.py)

    @property
    def folded(self) -> tuple[str, ...]:
        """The nodes folded into constants at export."""
        return self.simplified.folded

    @property
    def method(self) -> model.Method:
        """The first method (the one export() was asked for)."""
        return self.data.methods[0]

    @property
    def operators(self) -> list[str]:
        """Fully qualified operator names in operator-table order: "aten::addmm.out"."""
        return [op.qualified_name for op in self.method.operators]

    def kernel_calls(self) -> list[KernelCallInfo]:
        """Each instruction's operator and kernel key (docs/internals.md)."""
        names = self.operators
        return [KernelCallInfo(names[call.op_index], model.kernel_key(self.method.values,
                                                                      call.args))
                for _, call in self.method.kernel_calls()]

    @functools.cached_property
    def _serialized(self) -> bytes:
        return serialize(self.data, self.segment)

    def to_bytes(self) -> bytes:
        """The .pte file contents (serialized once)."""
        return self._serialized

    def save(self, path: str) -> int:
        """Writes the .pte and its debug record (<stem>.debug.json, which the build's
        messages read) atomically; returns the size of the .pte in bytes."""
        data = self.to_bytes()
        record = {"version": DEBUG_VERSION, "methods": [
            {"name": name, "instructions": list(debug)}
            for name, debug in ((self.method.name, self.debug), *self.more_debug)]}
        write_text_atomic(debug_path_for(path), json.dumps(record, indent=1) + "\n")
        write_bytes_atomic(path, data)
        return len(data)


def partitioner_for_target(target: str, profile: str = ""):
    """The partitioner of the first backend of manifests/targets/<target>.yaml, or None
    for a target without backends; built with the kernel libraries `scons target=<target>
    profile=<profile>` resolves against, so both delegate alike."""
    from codegen.profile import load_profile, profile_name
    from codegen.roots import find_manifest, manifest_names
    from codegen.target import kernel_library_order, load_target
    from exporter.manifest import make_partitioner

    path = find_manifest("targets", target)
    if path is None:
        raise ExportError(f"target '{target}': there is no manifests/targets/{target}.yaml; "
                          f"targets: {', '.join(manifest_names('targets'))}")
    target_manifest = load_target(path)   # a ManifestError names the entry
    chosen = load_profile(profile_name(profile, target_manifest), f"profile={profile}")
    libraries, _ = kernel_library_order(target_manifest,
                                        chosen.kernel_libraries if chosen else ())
    backends = target_manifest.backends
    return make_partitioner(backends[0], libraries) if backends else None


def export(module: torch.nn.Module, example_inputs: tuple, dynamic_shapes=None, *,
           name: str = "forward", target: str | None = None, profile: str = "",
           partitioner=None, methods: dict | None = None,
           constant_methods: dict | None = None, quantize=None) -> Program:
    """Exports `module` called on `example_inputs` as a Program whose first method is `name`.

    `dynamic_shapes` is torch.export's argument; dynamic dims are planned at their max.
    `target` ("host-xnnpack") delegates what that target's backend runs, as
    `scons target=...` does for a model manifest (`profile` as `scons profile=`: the
    target's default unless given, "none" for none); `partitioner` (e.g.
    backends.xnnpack.XnnpackPartitioner()) does the same with a partitioner of your own.
    `program.delegation` then reports what moved.
    `methods` adds more methods of the module: {"prefill": (example_inputs,
    dynamic_shapes)} exports `module.prefill`. `constant_methods` adds methods that
    return a constant ({"get_max_seq_len": 256, "get_eos_ids": [0]}; a list is one output
    per item). Constants the methods share are stored once (exporter/program_methods.py).
    `quantize` ("int8-weight", "8da8w", "8da4w" or {"scheme": "8da4w", "group_size": 64},
    see exporter/quantize/scheme.py) exports a quantized copy of the module;
    `program.quantization` says what was quantized and the error against fp32 eager.
    Raises ExportError when the model uses something a Tailor program cannot express.
    """
    if target is not None:
        if partitioner is not None:
            raise ExportError("give export() a target or a partitioner, not both")
        partitioner = partitioner_for_target(target, profile)
    extra = dict(methods or {})
    constants = dict(constant_methods or {})
    names = [name, *extra, *constants]
    if len(set(names)) != len(names):
        raise ExportError(f"method names {names} repeat; give each method its own name")
    report = None
    if quantize is not None:
        from exporter.quantize.apply import quantize_for_export
        try:
            module, report = quantize_for_export(module, tuple(example_inputs), quantize)
        except ValueError as e:
            raise ExportError(f"quantize: {e}") from None
    first = lower(trace(module, example_inputs, dynamic_shapes), name=name,
                  partitioner=partitioner)
    if report:
        first = dataclasses.replace(first, quantization=report)
    if not extra and not constants:
        return first
    others = []
    for method_name, spec in extra.items():
        if not (isinstance(spec, (tuple, list)) and len(spec) in (1, 2)):
            raise ExportError(f"methods['{method_name}'] must be (example_inputs,) or "
                              "(example_inputs, dynamic_shapes)")
        traced = trace(BoundMethod(module, method_name), spec[0],
                       spec[1] if len(spec) == 2 else None)
        others.append(lower(traced, name=method_name, partitioner=partitioner))
    return _combine(first, others, constants)


def _combine(first: Program, others: list, constants: dict) -> Program:
    """One program of `first`'s method, the `others`' and the constant methods, with one
    shared constant segment; reports and memory plan stay `first`'s."""
    built = [(p.method, p.segment[:len(p.segment) - BACKEND_SLACK] if p.method.delegates
              else p.segment) for p in (first, *others)]
    slack = BACKEND_SLACK if any(m.delegates for m, _ in built) else 0
    method_list, segment = share_segment(built, slack)
    method_list += [constant_method(n, v) for n, v in constants.items()]
    data = model.Program(PROGRAM_VERSION, method_list, _segments(segment))
    return dataclasses.replace(first, data=data, segment=segment, more_debug=tuple(
        (p.method.name, p.debug) for p in others))


def _segments(segment: bytes) -> list[model.Segment]:
    """The segment table of a program whose constant data is `segment`."""
    return [model.Segment(0, len(segment))] if segment else []


def trace(module: torch.nn.Module, example_inputs: tuple,
          dynamic_shapes=None) -> torch.export.ExportedProgram:
    """torch.export's part of export(): the module traced and decomposed to core ATen
    (but for the operators exporter/decompositions.py keeps whole).
    Raises ExportError with torch.export's verdict on the module."""
    return decompose(capture(module, example_inputs, dynamic_shapes))


def capture(module: torch.nn.Module, example_inputs: tuple,
            dynamic_shapes=None) -> torch.export.ExportedProgram:
    """trace()'s first half: torch.export's graph of the module, not yet decomposed.
    Raises ExportError with torch.export's verdict on the module."""
    # torch's own pytree code warns about its own deprecated API; not the user's concern.
    warnings.filterwarnings("ignore", message=".*LeafSpec.*deprecated", category=FutureWarning)
    with torch.no_grad():
        # On failure torch prints the partial graph to stderr before raising: held back,
        # so the one message below is what the user reads (shown as is on success).
        held = io.StringIO()
        try:
            with contextlib.redirect_stderr(held):
                ep = torch.export.export(module.eval(), tuple(example_inputs),
                                         dynamic_shapes=dynamic_shapes)
            sys.stderr.write(held.getvalue())
        except Exception as e:  # the model's code or shapes, not a bug of ours
            raise ExportError(f"torch.export cannot trace the model: {describe_exception(e)}; "
                              "change the code there so torch.export can trace it (see "
                              "torch.export's documentation on graph breaks and dynamic "
                              "shapes)") from None
        return ep


def decompose(ep: torch.export.ExportedProgram, table: dict | None = None
              ) -> torch.export.ExportedProgram:
    """trace()'s second half: `ep` decomposed to core ATen with decomposition_table()
    (`table`: that table, already built, for callers decomposing many programs)."""
    with torch.no_grad():
        return ep.run_decompositions(decomposition_table() if table is None else table)


def lower(ep: torch.export.ExportedProgram, *, name: str = "forward",
          partitioner=None) -> Program:
    """Tailor's part of export(): a traced program (trace()) simplified and lowered to a
    Program; rewrites `ep` in place. Raises ExportError for what a program cannot express."""
    with torch.no_grad():
        node_count = sum(1 for n in ep.graph.nodes if n.op == "call_function")
        drawn = drawn_outputs(ep)
        simplified = simplify(ep)
        lower_batch_norm_training(ep)
        built = build_method(ep, name, partitioner)
    data = model.Program(PROGRAM_VERSION, [built.method], _segments(built.segment))
    return Program(data, built.segment, built.plan, node_count, built.delegation, simplified,
                   built.debug, drawn_outputs=drawn)
