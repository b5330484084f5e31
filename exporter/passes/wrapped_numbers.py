"""Python numbers in Tensor positions -> 0-dim constant tensors.

Core ATen passes a Python number where an operator takes a Tensor: `1 - x` becomes
aten.sub.Tensor(1, x), and `torch.logit`, reflect padding and window functions do the
same. Where the packet has an overload taking a Scalar in that place (mul.Tensor(x, 2)
-> mul.Scalar), program_builder.py calls that one. Where it has none (the number is
`self` of sub, or any place of where/maximum/...), this pass lifts the number into a
0-dim constant tensor, which every binary kernel broadcasts.

The constant's dtype keeps torch's type promotion: a number does not change the result's
dtype when a tensor argument is of its kind or higher (bool < integer < floating), so
it takes that tensor's dtype; otherwise it takes the dtype torch gives such a number
(Bool, Long, or the default float dtype).

    count = lift_wrapped_numbers(ep)      # 1 for `1 - x`
"""

import torch

from exporter.out_variants import scalar_overload
from exporter.passes.graph_constants import add_constant


def _category(value) -> int:
    return 0 if isinstance(value, bool) else 1 if isinstance(value, int) else 2


def _dtype_category(dtype: torch.dtype) -> int:
    return 0 if dtype == torch.bool else 2 if dtype.is_floating_point else 1


def _number_dtype(number, tensors: list) -> torch.dtype:
    kind = _category(number)
    dtypes = [t.dtype for t in tensors if _dtype_category(t.dtype) >= kind]
    if dtypes:
        return max(dtypes, key=_dtype_category)
    return {0: torch.bool, 1: torch.int64, 2: torch.get_default_dtype()}[kind]


def _tensor_positions(node: torch.fx.Node):
    """(index into args or name in kwargs, value) of each Tensor argument of the node."""
    positional = list(node.args)
    for i, a in enumerate(node.target._schema.arguments):
        if a.real_type.kind() != "TensorType":
            continue
        if not a.kwarg_only and i < len(positional):
            yield i, positional[i], a.name
        elif a.name in node.kwargs:
            yield a.name, node.kwargs[a.name], a.name


def lift_wrapped_numbers(ep: torch.export.ExportedProgram) -> int:
    """Rewrites `ep` in place (see the module docstring); returns how many numbers it
    made constants."""
    count = 0
    for node in list(ep.graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload) \
                or node.target.namespace != "aten":
            continue
        positions = list(_tensor_positions(node))
        numbers = [(where, v) for where, v, _ in positions
                   if isinstance(v, (bool, int, float))]
        names = frozenset(name for _, v, name in positions if isinstance(v, (bool, int, float)))
        if not numbers or scalar_overload(node.target, names) is not None:
            continue
        tensors = [v.meta["val"] for _, v, _ in positions
                   if isinstance(v, torch.fx.Node) and isinstance(v.meta.get("val"), torch.Tensor)]
        args, kwargs = list(node.args), dict(node.kwargs)
        for where, number in numbers:
            value = torch.tensor(number, dtype=_number_dtype(number, tensors))
            constant = add_constant(ep, f"number_{node.name}", value)
            if isinstance(where, int):
                args[where] = constant
            else:
                kwargs[where] = constant
            count += 1
        node.args, node.kwargs = tuple(args), kwargs
    return count
