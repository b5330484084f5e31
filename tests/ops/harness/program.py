"""A case as a program's source: the torch module calling its op once per call, and
the inputs drawn for it (value domains, a seed from the cache key)."""

import numpy as np

from tests.ops.cases import Arg, Computed, Constant, Given, In, OpCase, Tensors


def _torch_dtype(name: str):
    from exporter.scalar_types import SCALAR_TYPE_NAMES  # torch: only when exporting
    return next(dtype for dtype, n in SCALAR_TYPE_NAMES.items() if n == name)


def _as_in(item):
    """A call item with every tensor spelled as an `In` (a bare shape tuple is one)."""
    if isinstance(item, (In, Arg)) or item is None:
        return item
    if isinstance(item, Tensors):
        return Tensors(tuple(_as_in(i) for i in item.items))
    return In(tuple(item))


def _inputs_of(case: OpCase) -> list[list]:
    return [[_as_in(item) for item in call] for call in case.shapes]


def _permuted_inputs(case: OpCase) -> int:
    return sum(1 for call in _inputs_of(case) for spec in _tensor_specs(call) if spec.perm)


def _tensor_specs(call: list) -> list[In]:
    """The call's tensors in order, lists flattened: the program's inputs."""
    specs = []
    for item in call:
        if isinstance(item, In):
            specs.append(item)
        elif isinstance(item, Tensors):
            specs += [i for i in item.items if i is not None]
    return specs


# The "edges" domain of floating inputs, cycled: what does not fit an integer dtype
# (infinities, NaN, +-1e20, 2^63, values past 2^31 and 2^32), what wraps into a narrow one
# (-501, 300, 70000.7), and fractions at the edges (255.9, -0.5, -2147483648.9).
EDGE_FLOATS = (float("inf"), float("-inf"), float("nan"), -1e20, 1e20, -501.0, 501.0, 300.0,
               -129.7, 255.9, 256.0, -1.0, -0.5, 2.0**31, -(2.0**31) - 1, 3e9, -3e9, 65535.5,
               70000.7, 4294967551.0, -2147483648.9, 2.0**63, 9.2e18, -9.3e18)


# The "specials" domain, cycled: floats where functions have edges (NaN, infinities, signed
# zeros, halves that round to even, +-1, values past Half's range and below Float's
# smallest normal); integers at their type's ends (the lowest % -1) and around zero
# ("specials_nonzero": without 0, for divisors). "shifts": shift counts below 0, at and past
# each bit width (those the dtype holds).
SPECIAL_FLOATS = (float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 0.5, -0.5, 1.5, -1.5,
                  2.5, -2.5, 1.0, -1.0, 0.999, -0.999, 3.0, -7.25, 100.5, 1e-30, 1e30, -1e30,
                  7.0, -2.0, 70000.0)
SHIFTS = (-1, 0, 1, 3, 7, 8, 15, 16, 31, 32, 63, 64, 100)


def _special_ints(dtype: str, domain: str) -> list:
    import torch
    info = torch.iinfo(_torch_dtype(dtype))
    if domain == "shifts":
        values = SHIFTS
    else:
        values = (info.min, info.max, info.min + 1, info.max - 1, -1, 0, 1, 2, -2, 3, 7, -7)
        values = [v for v in values if domain != "specials_nonzero" or v != 0]
    return [v for v in values if info.min <= v <= info.max]


def _make_value(spec: In, dtype: str, domain: str, gen):
    import torch
    shape = tuple(spec.shape)
    if isinstance(spec, Given):
        return torch.tensor(spec.values, dtype=_torch_dtype(dtype)).reshape(shape)
    if dtype == "Bool":
        return torch.randint(0, 2, shape, generator=gen).bool()
    if domain.startswith("int4_blocks_"):
        # Blocks of packed int4 weights (kernels/quantized/util/qlinear_layout.h): per group
        # of S inputs, random nibbles, then 8 positive float scales.
        size = int(domain.rsplit("_", 1)[1])
        groups = shape[1] // (size * 4 + 32)
        nibbles = torch.randint(0, 256, (shape[0], groups, size * 4), generator=gen)
        scales = torch.rand((shape[0], groups, 8), generator=gen) * 3 + 0.1
        return torch.cat([nibbles.to(torch.uint8), scales.view(torch.uint8)], 2).reshape(shape)
    if domain in ("specials", "specials_nonzero", "shifts"):
        count = int(np.prod(shape)) if shape else 1
        integer = dtype in ("Byte", "Char", "Short", "Int", "Long")
        values = _special_ints(dtype, domain) if integer else SPECIAL_FLOATS
        cycled = torch.tensor(values, dtype=torch.int64 if integer else torch.float64)
        return cycled[torch.arange(count) % len(values)].reshape(shape).to(_torch_dtype(dtype))
    if domain == "edges" and dtype not in ("Byte", "Char", "Short", "Int", "Long"):
        count = int(np.prod(shape)) if shape else 1
        edges = torch.tensor(EDGE_FLOATS, dtype=torch.float64)
        return edges[torch.arange(count) % len(EDGE_FLOATS)].reshape(shape).to(
            _torch_dtype(dtype))
    if domain == "huge" and dtype in ("Byte", "Char", "Short", "Int", "Long"):
        # Anywhere in the dtype's range: sums and products overflow and wrap.
        info = torch.iinfo(_torch_dtype(dtype))
        return torch.randint(info.min, info.max, shape, generator=gen,
                             dtype=torch.int64).to(_torch_dtype(dtype))
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


def _module(case: OpCase, dtype: str, calls: list[list[In]], constants: list):
    """The module calling the op once per call; `constants` are the values of the calls'
    `Constant`s, in order, held as buffers."""
    import torch

    namespace, _, rest = case.op.rpartition("::")
    packet, _, overload = rest.partition(".")
    fn = getattr(getattr(getattr(torch.ops, namespace or "aten"), packet), overload or "default")
    args = _resolve_arg(tuple(case.args), dtype)
    kwargs = {k: _resolve_arg(v, dtype) for k, v in case.kwargs.items()}

    class OneOp(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for i, value in enumerate(constants):
                self.register_buffer(f"constant_{i}", value)

        def forward(self, *inputs):
            outs, feed = [], iter(inputs)
            held = iter(getattr(self, f"constant_{i}") for i in range(len(constants)))

            def tensor(spec):
                t = next(held) if isinstance(spec, Constant) else next(feed)
                if spec.perm:
                    t = t.permute(spec.perm)
                if isinstance(spec, Computed):
                    t = getattr(torch.ops.aten, spec.by).default(t, *spec.args)
                return t

            for call in calls:
                values = []
                for item in call:
                    if item is None:  # an absent `Tensor?` argument
                        values.append(None)
                    elif isinstance(item, Arg):
                        values.append(_resolve_arg(item.value, dtype))
                    elif isinstance(item, Tensors):
                        values.append([None if i is None else tensor(i) for i in item.items])
                    else:
                        values.append(tensor(item))
                result = fn(*values, *args, **kwargs)
                if case.then:
                    result = getattr(torch.ops.aten, case.then[0]).default(result,
                                                                          *case.then[1:])
                if case.outputs is not None:
                    result = [result[i] for i in case.outputs]
                # Several outputs (a tuple or a Tensor[]) are compared one by one.
                outs += result if isinstance(result, (tuple, list)) else [result]
            return tuple(outs)

    return OneOp()


def prepare(case: OpCase, dtype: str, key: str) -> tuple:
    """(module, inputs, eager outputs) of (case, dtype), its inputs drawn from a seed
    taken from its cache key."""
    import torch

    calls = _inputs_of(case)
    gen = torch.Generator().manual_seed(int(key.rsplit("_", 1)[1], 16) % (2 ** 31))
    specs = [spec for call in calls for spec in _tensor_specs(call)]
    values = [_make_value(spec, spec.dtype or dtype, spec.domain or case.domain, gen)
              for spec in specs]
    inputs = [v for spec, v in zip(specs, values) if not isinstance(spec, Constant)]
    module = _module(case, dtype, calls,
                     [v for spec, v in zip(specs, values) if isinstance(spec, Constant)])
    with torch.no_grad():
        expected = module(*inputs)
    return module, inputs, expected
