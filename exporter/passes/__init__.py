"""Export-time simplification: small passes over the core-ATen ExportedProgram.

export.py runs them in this order, between run_decompositions() and program_builder.py;
each rewrites the program in place and is tested alone (tests/exporter/test_passes.py):

1. wrapped_numbers: a Python number in a Tensor position becomes a 0-dim constant;
2. batch_norm_folding: an eval batch norm folds into the convolution or linear before it;
3. noop_removal: copies and reshapes that change nothing go;
4. activation_fusion: a relu, relu6, hardtanh or clamp after a quantized convolution
   becomes the convolution's output bounds (after noop_removal, which may leave the two
   side by side);
5. common_subexpressions: calls repeated on the same arguments (a causal mask built in
   every layer) are made once (after noop_removal, whose removals make more arguments
   equal);
6. constant_folding: what depends only on constants and static shapes becomes a constant
   (last, so it sees the constants the others made and drops the ones they left unused).

`python -m exporter` prints the report's summary in the export log.
"""

from dataclasses import dataclass

import torch

from exporter.passes.activation_fusion import fuse_activations
from exporter.passes.batch_norm_folding import fold_batch_norms
from exporter.passes.common_subexpressions import merge_common_subexpressions
from exporter.passes.constant_folding import fold_constants
from exporter.passes.noop_removal import remove_noops
from exporter.passes.wrapped_numbers import lift_wrapped_numbers


@dataclass(frozen=True)
class SimplifyReport:
    numbers: int = 0                  # numbers in Tensor positions made constants
    batch_norms: int = 0              # batch norms folded into the layer before them
    noops: int = 0                    # no-op copies removed
    folded: tuple[str, ...] = ()      # nodes folded into constants
    merged: int = 0                   # repeated calls merged into an earlier equal one
    activations: int = 0              # activations fused into the convolution before them

    def summary(self) -> str:
        """"folded 20 batch norms into convolutions, 6 nodes into constants, ..."."""
        parts = []
        if self.batch_norms:
            parts.append(f"folded {self.batch_norms} batch norm(s) into the layers before them")
        if self.activations:
            parts.append(f"fused {self.activations} activation(s) into quantized "
                         "convolutions")
        if self.folded:
            parts.append(f"folded {len(self.folded)} constant node(s)")
        if self.merged:
            parts.append(f"merged {self.merged} repeated call(s)")
        if self.noops:
            parts.append(f"removed {self.noops} no-op copies")
        if self.numbers:
            parts.append(f"made {self.numbers} number(s) in tensor positions constants")
        return ", ".join(parts) or "nothing to simplify"


def simplify(ep: torch.export.ExportedProgram) -> SimplifyReport:
    """Runs every pass on `ep` in place (see the module docstring)."""
    numbers = lift_wrapped_numbers(ep)
    batch_norms = fold_batch_norms(ep)
    noops = remove_noops(ep)
    activations = fuse_activations(ep)
    merged = merge_common_subexpressions(ep)
    ep.graph_module.recompile()
    folded = fold_constants(ep)
    return SimplifyReport(numbers, batch_norms, noops, folded, merged, activations)
