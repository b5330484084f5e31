"""nn.Module + QuantizeSpec -> a quantized copy of the module and a report of what changed.

The model's code stays as it is: the copy has its nn.Linear (and nn.Embedding) children
replaced by the modules of modules.py, and torch.export traces it like any other model.
A tied embedding (its table is a Linear's weight, as in most LLMs) reads the Linear's
quantized table, int8 in every scheme, so the pair is stored once.
A layer the scheme cannot take stays in float and the report says why (8da4w needs
in_features to be a multiple of group_size). Convolutions of one group (`convolutions:
all`, 8da8w's default; else the 1x1 ones): in 8da8w each becomes one quantized convolution
(QuantizedConv2d), after the batch norms are folded into them; in the other schemes a 1x1
Conv2d (no padding) is the Linear over each pixel's channels (QuantizedPointwiseConv), any
other the Linear over each output pixel's receptive field (QuantizedConv). The rest stay
float and the report counts them.
Linear layers that their parent does not call through forward() (nn.MultiheadAttention
reads out_proj.weight directly) stay too.
"""

import copy
import dataclasses
from dataclasses import dataclass

import torch
from torch import nn

from exporter.quantize.modules import (QuantizedConv, QuantizedConv2d, QuantizedEmbedding,
                                       QuantizedLinear, QuantizedPointwiseConv, TiedEmbedding,
                                       dense, pointwise)
from exporter.quantize.scheme import QuantizeSpec, parse_quantize


@dataclass(frozen=True)
class QuantizeReport:
    spec: QuantizeSpec
    linears: tuple[str, ...] = ()                 # module paths quantized
    embeddings: tuple[str, ...] = ()
    kept: tuple[tuple[str, str], ...] = ()        # (module path, why it stays float)
    shared: tuple[tuple[str, str], ...] = ()      # (embedding, Linear) reading one table
    max_error: float | None = None                # against fp32 eager, on the example inputs
    convolutions: tuple[str, ...] = ()            # Conv2d quantized as linears
    float_convolutions: int = 0                   # the others, left in float

    def summary(self) -> str:
        parts = [f"{len(self.linears)} linear layer(s)"]
        if self.convolutions:
            parts.append(f"{len(self.convolutions)} convolution(s)")
        if self.embeddings:
            parts.append(f"{len(self.embeddings)} embedding(s)")
        text = f"quantized {' and '.join(parts)} ({self.spec.describe()})"
        if self.shared:
            text += "; one int8 table for " + ", ".join(f"{e} and {l}" for e, l in self.shared)
        if self.float_convolutions:
            text += f"; {self.float_convolutions} other convolution(s) kept in float"
        if self.kept:
            text += "; kept in float: " + ", ".join(f"{p} ({why})" for p, why in self.kept)
        if self.max_error is not None:
            text += f"; max abs error against fp32 eager {self.max_error:.3g}"
        return text


def _why_not(inputs: int, spec: QuantizeSpec, what: str = "in_features") -> str | None:
    if spec.weight_bits == 4 and inputs % spec.group_size:
        return f"{what} {inputs} is not a multiple of group_size {spec.group_size}"
    return None


def _children(model: nn.Module):
    """(parent, attribute name, module path, child) of every child quantize_model may
    replace; a MultiheadAttention's children stay."""
    for parent_name, parent in list(model.named_modules()):
        if isinstance(parent, nn.MultiheadAttention):
            continue
        for name, child in list(parent.named_children()):
            yield parent, name, f"{parent_name}.{name}" if parent_name else name, child


def _tied_spec(spec: QuantizeSpec) -> QuantizeSpec:
    """The scheme of a Linear whose weight is also an embedding table: int8 per row, the
    activations as `spec` takes them. 8da4w's 4-bit groups would make the table a third
    smaller, but cost the demo GPT 2.3 points more perplexity (+4.0% instead of +1.7%
    against fp32) and, with today's kernels, decode time (BENCHMARKS.md)."""
    return spec if spec.weight_bits == 8 else dataclasses.replace(spec, scheme="8da8w")


def _fold_batch_norms(model: nn.Module) -> nn.Module:
    """`model` with each BatchNorm2d folded into the Conv2d before it (torch.fx traces it:
    a GraphModule with the same submodule paths), so a quantized convolution carries the
    batch norm in its scales and bias, and eager (the self-check's reference) computes
    what the runtime does. The exporter would fold a float convolution's batch norm
    anyway (exporter/passes/batch_norm_folding.py), but not into a quantized one. A model
    fx cannot trace stays as it is, its batch norms separate operators."""
    modules = list(model.modules())
    if not (any(isinstance(m, nn.BatchNorm2d) for m in modules)
            and any(type(m) is nn.Conv2d for m in modules)):
        return model
    from torch.fx.experimental.optimization import fuse
    try:
        return fuse(model, inplace=True)
    except Exception:   # noqa: BLE001 (any tracing failure: keep the model)
        return model


def quantize_model(module: nn.Module, spec: QuantizeSpec) -> tuple[nn.Module, QuantizeReport]:
    """A quantized deep copy of `module` (the original is left as it was). Linear layers
    first; then each embedding: one whose table is a quantized Linear's weight (tied)
    reads that Linear's table, which is int8 (_tied_spec) and stored once; any other
    becomes int8 per row."""
    model = _fold_batch_norms(copy.deepcopy(module).eval())
    tables = {id(m.weight) for m in model.modules()
              if type(m) is nn.Embedding and spec.embeddings}
    linears, embeddings, kept, shared = [], [], [], []
    quantized = {}   # id(float weight of a Linear) -> (its QuantizedLinear, path)
    for parent, name, path, child in _children(model):
        if type(child) is not nn.Linear:
            continue
        own = _tied_spec(spec) if id(child.weight) in tables else spec
        why = _why_not(child.in_features, own)
        if why:
            kept.append((path, why))
            continue
        quantized[id(child.weight)] = (QuantizedLinear(child, own), path)
        setattr(parent, name, quantized[id(child.weight)][0])
        linears.append(path)
    convolutions, float_convolutions = [], 0
    for parent, name, path, child in _children(model):
        if type(child) is not nn.Conv2d:
            continue
        if not (pointwise(child) or dense(child) and spec.convolutions == "all"):
            float_convolutions += 1
            continue
        kh, kw = child.kernel_size
        why = _why_not(child.in_channels * kh * kw, spec, "in_channels" if kh * kw == 1
                       else f"in_channels x {kh}x{kw} window")
        if why:
            kept.append((path, why))
            continue
        if spec.weight_bits == 8 and spec.dynamic_input:
            setattr(parent, name, QuantizedConv2d(child))
        else:
            setattr(parent, name, (QuantizedPointwiseConv if pointwise(child) else QuantizedConv)(
                child, spec))
        convolutions.append(path)
    for parent, name, path, child in _children(model):
        if type(child) is not nn.Embedding or not spec.embeddings:
            continue
        if id(child.weight) in quantized:
            linear, linear_path = quantized[id(child.weight)]
            setattr(parent, name, TiedEmbedding(linear))
            shared.append((path, linear_path))
        else:
            setattr(parent, name, QuantizedEmbedding(child))
        embeddings.append(path)
    return model, QuantizeReport(spec, tuple(linears), tuple(embeddings), tuple(kept),
                                 tuple(shared), convolutions=tuple(convolutions),
                                 float_convolutions=float_convolutions)


def max_abs_error(reference, outputs) -> float:
    """The largest |a - b| over the float outputs of two runs (tree leaves in order)."""
    from torch.utils._pytree import tree_leaves
    worst = 0.0
    for a, b in zip(tree_leaves(reference), tree_leaves(outputs)):
        if isinstance(a, torch.Tensor) and a.is_floating_point() and a.numel():
            worst = max(worst, (a.float() - b.float()).abs().max().item())
    return worst


def _run_keeping_buffers(module: nn.Module, inputs: tuple):
    """module(*inputs), its buffers set back afterwards: a model that writes buffers (a
    KV cache) must export, and keep, its initial state (zeros, which the constant
    segment stores once for all the layers), not the example's keys and values."""
    saved = [(b, b.clone()) for b in module.buffers()]
    try:
        with torch.no_grad():
            return module(*inputs)
    finally:
        for buffer, value in saved:
            buffer.copy_(value)


def quantize_for_export(module: nn.Module, example_inputs: tuple, quantize
                        ) -> tuple[nn.Module, QuantizeReport]:
    """`quantize` (a scheme name, mapping or QuantizeSpec) applied to a copy of `module`,
    with the report's max_error measured on the example inputs against fp32 eager.
    Raises ValueError for a bad setting (the message names the entry and the fix)."""
    spec = parse_quantize(quantize)
    quantized, report = quantize_model(module, spec)
    error = max_abs_error(_run_keeping_buffers(module.eval(), example_inputs),
                          _run_keeping_buffers(quantized, example_inputs))
    return quantized, dataclasses.replace(report, max_error=error)
