"""Upper bounds of data-dependent output sizes (issue 29): what the memory plan reserves
for the outputs of nonzero and masked_select, whose sizes only the kernel knows.

Input: an ExportedProgram and the builder's upper bound of a size. Output: for each such
output's unbacked size symbol, its range [0, bound], which the builder plans at. The rule:

- nonzero(x): x's element count (at the upper bounds of its dynamic dims);
- masked_select(x, mask): the element count of the broadcast of x and mask;
- either lowered by a torch._check in the model (torch.export keeps it in the symbol's
  range), which is how a model plans less than the worst case.

torch.export's own range is not used as is: for masked_select it counts x's elements only
(a mask that broadcasts x selects more), and for an empty or 0-d input it is unbounded.
A run past the bound fails in the kernel (kernels/portable/util/data_dependent.h).
"""

import torch
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.value_ranges import ValueRanges

aten = torch.ops.aten
DATA_DEPENDENT = (aten.nonzero.default, aten.masked_select.default)


def _broadcast_upper(shapes: list, upper, node: torch.fx.Node) -> int:
    """The element count of the broadcast of `shapes` (node's inputs) at their upper
    bounds."""
    rank = max((len(s) for s in shapes), default=0)
    count = 1
    for d in range(rank):
        sizes = [upper(s[d - rank + len(s)], node) for s in shapes if d - rank + len(s) >= 0]
        count *= max(sizes) if all(s != 0 for s in sizes) else 0
    return count


def finite_bound(bound) -> int | None:
    """A sympy bound as an int, or None when it is infinite: sympy's oo or torch's int_oo,
    which says is_finite though it is not."""
    if bound.is_number and bound.is_finite and bound not in (int_oo, -int_oo):
        return int(bound)
    return None


def data_dependent_ranges(ep: torch.export.ExportedProgram, upper, ranges: dict) -> None:
    """Sets ranges[symbol] for each data-dependent size of `ep` (see the module docstring),
    in graph order, so a bound may build on an earlier one; `upper(size, node)` is the
    builder's upper bound of a size, reading `ranges`."""
    for node in ep.graph.nodes:
        if node.op != "call_function" or node.target not in DATA_DEPENDENT:
            continue
        size = node.meta["val"].shape[0]
        if not isinstance(size, torch.SymInt) or not size.node.expr.is_symbol:
            continue
        symbol = size.node.expr
        inputs = [a.meta["val"].shape for a in node.args if isinstance(a, torch.fx.Node)]
        bound = _broadcast_upper(inputs, upper, node)
        own = _broadcast_upper(inputs[:1], upper, node)
        checked = finite_bound(size.node.shape_env.var_to_range[symbol].upper)
        if checked is not None and checked < own:  # a torch._check in the model
            bound = min(bound, checked)
        ranges[symbol] = ValueRanges(0, bound)
