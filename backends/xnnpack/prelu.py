"""PReLU for the XNNPACK partitioner. torch.export decomposes nn.PReLU into
where(x > 0, x, w * x) with w a constant of one weight per channel (dim 1) or one for
all; XNNPACK 2022 has a PReLU node with a slope per channel of its last dim. So the
`where` of that pattern becomes one PRelu node reading x and the slope ([C], a derived
constant); the `x > 0` and the multiply then have no reader and the export drops them
(the report counts them folded), so the partitioner refuses the multiply rather than
compute it twice. x is [N, C] (plain) or [N, C, L] / [N, C, H, W] (channels-last, so
that the channels are XNNPACK's last dim).

Both compute x for x > 0 and w * x otherwise (NaN and -0 included: XNNPACK selects by
the sign bit, and w * -0 is what torch gives for -0 too).
"""

import numpy as np

WHERE = "aten::where.self_out"
GT = "aten::gt.Scalar_out"
MUL = "aten::mul.out"


def _weight(m, x: int, prod: int):
    """The constant w of `prod` = mul(x, w) or mul(w, x), or None."""
    call = m.calls[m.producer(prod)]
    a, b = call.args[:2]
    w = b if a == x else a if b == x else None
    return w if w is not None and m.is_constant(w) else None


def _only_for(m, v: int, user: int) -> bool:
    """Whether value `v` is read by call `user` alone and is no method output."""
    return m.users(v) == [user] and v not in m.outputs


def match(m, i: int):
    """(x, w) when call `i` is the where of a PReLU, else why it is not one."""
    call = m.calls[i]
    if call.op != WHERE:
        return "not a PReLU"
    cond, x, prod = call.args[:3]
    gt, mul = m.producer(cond), m.producer(prod)
    if gt is None or m.calls[gt].op != GT or m.calls[gt].args[0] != x \
            or m.literal(m.calls[gt].args[1]) != 0 or isinstance(
                m.literal(m.calls[gt].args[1]), bool):
        return "a where that is not a PReLU's (where(x > 0, x, w * x))"
    if mul is None or m.calls[mul].op != MUL or _weight(m, x, prod) is None:
        return "a where that is not a PReLU's (where(x > 0, x, w * x) with a constant w)"
    if not (_only_for(m, cond, i) and _only_for(m, prod, i)):
        return "a PReLU whose x > 0 or w * x is read elsewhere"
    return x, _weight(m, x, prod)


def check(m, i: int):
    """Why XNNPACK cannot run where call `i` as a PReLU, or None."""
    found = match(m, i)
    if isinstance(found, str):
        return found
    x, w = found
    t, weight = m.tensor(x), m.tensor(w)
    if not 2 <= len(t.sizes) <= 4:
        return f"a PReLU over a {len(t.sizes)}-d tensor (XNNPACK's takes [N, C], [N, C, L] " \
               "or [N, C, H, W] here)"
    if t.dynamic and (t.min_sizes is None or t.min_sizes[1] != t.sizes[1]):
        return "a PReLU over a dynamic number of channels"
    if weight.scalar_type != "Float":
        return f"a PReLU with a {weight.scalar_type} weight"
    shape = [1] * (len(t.sizes) - len(weight.sizes)) + list(weight.sizes)
    if len(shape) != len(t.sizes) or any(s != 1 for d, s in enumerate(shape) if d != 1) \
            or shape[1] not in (1, t.sizes[1]):
        return "a PReLU weight that is not one per channel or one for all"
    return None


def folded_mul(m, i: int):
    """Why multiply call `i` stays out: it is the w * x of a PReLU XNNPACK runs; or None."""
    users = m.users(m.calls[i].args[m.calls[i].num_inputs])
    if len(users) == 1 and check(m, users[0]) is None:
        return "the multiply of a PReLU (its where runs it on XNNPACK)"
    return None


def slope(m, i: int) -> int:
    """The value id of call `i`'s slope: its weight as [C] float32, a derived constant."""
    x, w = match(m, i)
    channels = m.tensor(x).sizes[1]
    values = np.frombuffer(m.constants[w], dtype=np.float32)
    data = np.ascontiguousarray(np.broadcast_to(values, (channels,)) if values.size == 1
                                else values, dtype=np.float32)
    return m.derived_constant(("xnnpack", "prelu-slope", w, channels), w, [channels],
                              data.tobytes())
