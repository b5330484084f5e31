"""nn.Module + QuantizeSpec -> a quantized copy of the module and a report of what changed.

The model's code stays as it is: the copy has its nn.Linear (and nn.Embedding) children
replaced by the modules of modules.py, and torch.export traces it like any other model.
A layer the scheme cannot take stays in float and the report says why (8da4w needs
in_features to be a multiple of group_size). Linear layers that their parent does not
call through forward() (nn.MultiheadAttention reads out_proj.weight directly) stay too.
"""

import copy
import dataclasses
from dataclasses import dataclass

import torch
from torch import nn

from exporter.quantize.modules import QuantizedEmbedding, QuantizedLinear
from exporter.quantize.scheme import QuantizeSpec, parse_quantize


@dataclass(frozen=True)
class QuantizeReport:
    spec: QuantizeSpec
    linears: tuple[str, ...] = ()                 # module paths quantized
    embeddings: tuple[str, ...] = ()
    kept: tuple[tuple[str, str], ...] = ()        # (module path, why it stays float)
    max_error: float | None = None                # against fp32 eager, on the example inputs

    def summary(self) -> str:
        parts = [f"{len(self.linears)} linear layer(s)"]
        if self.embeddings:
            parts.append(f"{len(self.embeddings)} embedding(s)")
        text = f"quantized {' and '.join(parts)} ({self.spec.describe()})"
        if self.kept:
            text += "; kept in float: " + ", ".join(f"{p} ({why})" for p, why in self.kept)
        if self.max_error is not None:
            text += f"; max abs error against fp32 eager {self.max_error:.3g}"
        return text


def _why_not(linear: nn.Linear, spec: QuantizeSpec) -> str | None:
    if spec.weight_bits == 4 and linear.in_features % spec.group_size:
        return (f"in_features {linear.in_features} is not a multiple of group_size "
                f"{spec.group_size}")
    return None


def quantize_model(module: nn.Module, spec: QuantizeSpec) -> tuple[nn.Module, QuantizeReport]:
    """A quantized deep copy of `module` (the original is left as it was)."""
    model = copy.deepcopy(module).eval()
    linears, embeddings, kept = [], [], []
    for parent_name, parent in list(model.named_modules()):
        if isinstance(parent, nn.MultiheadAttention):
            continue
        for name, child in list(parent.named_children()):
            path = f"{parent_name}.{name}" if parent_name else name
            if type(child) is nn.Linear:
                why = _why_not(child, spec)
                if why:
                    kept.append((path, why))
                    continue
                setattr(parent, name, QuantizedLinear(child, spec))
                linears.append(path)
            elif type(child) is nn.Embedding and spec.embeddings:
                setattr(parent, name, QuantizedEmbedding(child))
                embeddings.append(path)
    return model, QuantizeReport(spec, tuple(linears), tuple(embeddings), tuple(kept))


def max_abs_error(reference, outputs) -> float:
    """The largest |a - b| over the float outputs of two runs (tree leaves in order)."""
    from torch.utils._pytree import tree_leaves
    worst = 0.0
    for a, b in zip(tree_leaves(reference), tree_leaves(outputs)):
        if isinstance(a, torch.Tensor) and a.is_floating_point() and a.numel():
            worst = max(worst, (a.float() - b.float()).abs().max().item())
    return worst


def quantize_for_export(module: nn.Module, example_inputs: tuple, quantize
                        ) -> tuple[nn.Module, QuantizeReport]:
    """`quantize` (a scheme name, mapping or QuantizeSpec) applied to a copy of `module`,
    with the report's max_error measured on the example inputs against fp32 eager.
    Raises ValueError for a bad setting (the message names the entry and the fix)."""
    spec = parse_quantize(quantize)
    quantized, report = quantize_model(module, spec)
    with torch.no_grad():
        error = max_abs_error(module.eval()(*example_inputs), quantized(*example_inputs))
    return quantized, dataclasses.replace(report, max_error=error)
