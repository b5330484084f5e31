"""What XNNPACK 2022 can run as torch computes it, call by call, layouts and policy aside.

check_op() says why XNNPACK cannot run one out-variant call of a LoweredMethod (None when
it can): the op must be one of OPS, its tensors Float of rank 1 to 6 and not empty, and
its attributes within what the installed XNNPACK's subgraph API computes alike (alpha 1,
broadcastable sizes, constant weights, windows known at export, ...).
"""

import math

from backends.xnnpack import pad_resize, prelu
from exporter.delegation import LoweredMethod

MAX_RANK = 6  # XNN_MAX_TENSOR_DIMS
FLOAT_CODE = 6  # c10::ScalarType::Float, a `dtype=` argument

BINARY = {"aten::add.out": "Add", "aten::sub.out": "Subtract", "aten::mul.out": "Multiply",
          "aten::div.out": "Divide", "aten::maximum.out": "Maximum",
          "aten::minimum.out": "Minimum"}
SCALAR_BINARY = {"aten::add.Scalar_out": "Add", "aten::sub.Scalar_out": "Subtract",
                 "aten::mul.Scalar_out": "Multiply", "aten::div.Scalar_out": "Divide"}
UNARY = {"aten::sigmoid.out": "Sigmoid", "aten::silu.out": "Sigmoid",  # then Multiply
         "aten::neg.out": "Negate", "aten::abs.out": "Abs", "aten::sqrt.out": "SquareRoot",
         "aten::relu.out": "Clamp", "aten::clamp.out": "Clamp", "aten::hardtanh.out": "Clamp",
         "aten::leaky_relu.out": "LeakyRelu", "aten::elu.out": "Elu",
         "aten::_softmax.out": "Softmax", "aten::clone.out": "Copy"}
RESHAPE = ("aten::view_copy.out",)
# Reshapes whose result sizes are their out tensor's (static ones only).
SQUEEZE = ("aten::unsqueeze_copy.out", "aten::squeeze_copy.dims_out")
LINEAR = ("aten::addmm.out", "aten::mm.out")
CONV = "aten::convolution.out"
MAX_POOL = "aten::max_pool2d_with_indices.out"
AVG_POOL = "aten::avg_pool2d.out"
ADAPTIVE_AVG_POOL = "aten::_adaptive_avg_pool2d.out"
MEAN = "aten::mean.out"
WINDOW = (CONV, MAX_POOL, AVG_POOL, ADAPTIVE_AVG_POOL, MEAN)
PAD = "aten::constant_pad_nd.out"
RESIZE = "aten::upsample_bilinear2d.vec_out"
# Ops XNNPACK runs on NHWC tensors only: their input and output are channels-last.
NHWC = WINDOW + (RESIZE,)
# Only operators the portable library runs too: a group worth() turns down goes back to
# the kernels. (hardswish, _unsafe_view and the other squeezes never reach a program:
# torch.export's core ATen decomposes them.)
OPS = frozenset().union(BINARY, SCALAR_BINARY, UNARY, RESHAPE, SQUEEZE, LINEAR, NHWC, {PAD},
                        {prelu.WHERE})
# Never claimed, but folded into the node of a claimed call that reads them (the x > 0 of
# a PReLU's where): calls XNNPACK runs although check() refuses them.
FOLDED = frozenset({prelu.GT})
# Ops whose tensors may be in either layout (the same one for all of them).
ELEMENTWISE = frozenset().union(BINARY, SCALAR_BINARY, set(UNARY) - {"aten::_softmax.out"},
                                {PAD})

# With alpha: add/sub take it as args[2] (Tensor) or args[2] (Scalar variant, after other).
_ALPHA_AT = {"aten::add.out": 2, "aten::sub.out": 2, "aten::add.Scalar_out": 2,
             "aten::sub.Scalar_out": 2}
_CONTIGUOUS_FORMATS = (0, 1)  # MemoryFormat contiguous_format, preserve_format


def _broadcastable(a: list, b: list) -> bool:
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            return False
    return True


def _pair(items: list):
    """An int[2] argument: one value stands for both dims."""
    return [items[0], items[0]] if len(items) == 1 else list(items)


def check_op(m: LoweredMethod, i: int):
    """Whether XNNPACK runs call `i` as torch does, layouts aside."""
    call = m.calls[i]
    op, args = call.op, call.args
    if op not in OPS:
        return "transpose (XNNPACK 2022 has none)" if op == "aten::permute_copy.out" \
            else "not an XNNPACK node"
    if op == prelu.MUL and prelu.folded_mul(m, i):
        return prelu.folded_mul(m, i)
    if op == MAX_POOL:
        indices = args[call.num_inputs + 1]
        if m.users(indices) or indices in m.outputs:
            return "its indices are used (XNNPACK's max pooling gives the values only)"
    tensors = [v for v in m.reads(i) + m.writes(i) if m.tensor(v) is not None]
    if op == MAX_POOL:
        tensors = tensors[:-1]  # the unused indices are Long
    if op == prelu.WHERE:
        tensors = [v for v in tensors if v != args[0]]  # a PReLU's Bool x > 0 goes
    for v in tensors:
        t = m.tensor(v)
        if t.scalar_type != "Float":
            return f"{t.scalar_type} tensor (XNNPACK runs Float only)"
        if not 1 <= len(t.sizes) <= MAX_RANK:
            return f"rank {len(t.sizes)} (XNNPACK takes 1 to {MAX_RANK} dims)"
        if 0 in t.sizes:
            return "an empty tensor (XNNPACK requires data in every operand)"
    if op == prelu.WHERE:
        return prelu.check(m, i)
    if op in _ALPHA_AT and m.literal(args[_ALPHA_AT[op]]) != 1:
        return "alpha is not 1"
    if op in BINARY:
        a, b = (m.tensor(v).sizes for v in args[:2])
        if not _broadcastable(a, b):
            return f"sizes {a} and {b} do not broadcast"
        return None
    if op in SCALAR_BINARY:
        other = m.literal(args[1])
        if other is None or isinstance(other, bool):
            return "its scalar operand is not a number known at export"
        return None
    if op in LINEAR:
        return _check_linear(m, i)
    if op in RESHAPE:
        if any(m.kind(v) != "Int" for v in m.items(args[1])):
            return "reshape sizes are not ints"
        return None
    if op in SQUEEZE:
        if m.tensor(args[call.num_inputs]).dynamic:
            return "a squeeze or unsqueeze with dynamic sizes"
        return None
    if op == CONV:
        return _check_convolution(m, i)
    if op in WINDOW:
        return _check_pooling(m, i)
    if op == PAD:
        return pad_resize.check_pad(m, i)
    if op == RESIZE:
        return pad_resize.check_resize(m, i)
    return _check_unary(m, i)

def _check_unary(m: LoweredMethod, i: int):
    op, args = m.calls[i].op, m.calls[i].args
    if op == "aten::_softmax.out":
        rank = len(m.tensor(args[0]).sizes)
        dim = m.literal(args[1])
        if dim is None or dim % rank != rank - 1:
            return "softmax over a dim other than the last"
        if m.literal(args[2]):
            return "softmax with half_to_float"
    if op in ("aten::clamp.out", "aten::hardtanh.out"):
        bounds = [None if m.kind(v) == "None" else m.literal(v) for v in args[1:3]]
        for v, bound in zip(args[1:3], bounds):
            if m.kind(v) != "None" and (bound is None or m.kind(v) == "Bool"):
                return f"{op[6:-4]} bound is not a number known at export"
            if bound is not None and math.isnan(bound):
                return f"a NaN {op[6:-4]} bound"
        if None not in bounds and bounds[0] >= bounds[1]:
            # torch gives max everywhere; XNNPACK's clamp needs min < max.
            return f"{op[6:-4]} with min >= max (XNNPACK needs min < max)"
    if op == "aten::leaky_relu.out":
        slope = m.literal(args[1])
        if slope is None or isinstance(slope, bool) or not math.isfinite(slope):
            return "the negative slope is not a finite number known at export"
    if op == "aten::elu.out":
        alpha, scale, input_scale = (m.literal(v) for v in args[1:4])
        if alpha is None or not math.isfinite(alpha) or alpha <= 0:
            return "alpha is not a positive number known at export"
        if scale != 1 or input_scale != 1:
            return "scale or input_scale is not 1 (XNNPACK's ELU has alpha only)"
    if op == "aten::clone.out" and m.kind(args[1]) != "None" \
            and m.literal(args[1]) not in _CONTIGUOUS_FORMATS:
        return "clone to a non-contiguous memory format"
    return None

def _check_linear(m: LoweredMethod, i: int):
    op, args = m.calls[i].op, m.calls[i].args
    mat2 = args[2] if op == "aten::addmm.out" else args[1]
    if not m.is_constant(mat2):
        return "the weight is not a constant (XNNPACK's fully_connected needs static weights)"
    n = m.tensor(mat2).sizes[1]
    if op == "aten::addmm.out":
        bias = args[0]
        if not (m.is_constant(bias) and m.tensor(bias).sizes == [n]):
            return f"the bias is not a constant [{n}] vector"
        if m.literal(args[3]) != 1 or m.literal(args[4]) != 1:
            return "beta or alpha is not 1"
    return None

def _check_convolution(m: LoweredMethod, i: int):
    args = m.calls[i].args
    x, w, b = args[0], args[1], args[2]
    rank = len(m.tensor(x).sizes)
    if rank not in (3, 4):
        return (f"a convolution of rank {rank} (XNNPACK runs 1-d and 2-d ones; it has no "
                "3-d convolution)")
    if not m.is_constant(w):
        return "the weight is not a constant (XNNPACK packs it when it builds the runtime)"
    if m.tensor(b) is not None and not m.is_constant(b):
        return "the bias is not a constant"
    lists = [m.ints(v) for v in args[3:6]]
    groups = m.literal(args[8])
    if None in lists or groups is None:
        return "stride, padding, dilation or groups is not known at export"
    if any(len(items) not in (1, rank - 2) for items in lists) \
            or len(m.tensor(w).sizes) != rank:
        return "stride, padding, dilation or weight does not fit the input's rank"
    if m.literal(args[6]):
        output_padding = m.ints(args[7])
        if output_padding is None or len(output_padding) not in (1, rank - 2):
            return "output_padding is not known at export"
        stride = conv_ints(m, i, 3)
        if any(p >= s for p, s in zip(conv_ints(m, i, 7), stride)):
            return "output_padding not below the stride (XNNPACK's deconvolution " \
                   "needs it below)"
    return None


def conv_ints(m: LoweredMethod, i: int, at: int) -> list:
    """A convolution's int list argument `at`, one value per spatial dim (torch takes
    one value for all of them too)."""
    items = m.ints(m.calls[i].args[at])
    rank = len(m.tensor(m.calls[i].args[0]).sizes)
    return items * (rank - 2) if len(items) == 1 else items

def adaptive_window(in_size: int, out_size: int) -> int:
    """The window (and stride) of the fixed-window pooling XNNPACK runs for an adaptive
    pooling of `in_size` cells down to `out_size`, or 0 when torch's adaptive windows are
    not all alike (cell i covers [floor(i * in / n), ceil((i + 1) * in / n)), as
    kernels/portable/util/pool.h computes them)."""
    return in_size // out_size if 0 < out_size <= in_size and in_size % out_size == 0 else 0


def pool_window(m: LoweredMethod, i: int):
    """(kernel, stride, padding, dilation, ceil_mode) of a pooling call, each [h, w]."""
    op, args = m.calls[i].op, m.calls[i].args
    kernel = _pair(m.ints(args[1]))
    stride = m.ints(args[2])
    stride = _pair(stride) if stride else kernel
    padding = _pair(m.ints(args[3]))
    if op == MAX_POOL:
        return kernel, stride, padding, _pair(m.ints(args[4])), m.literal(args[5])
    return kernel, stride, padding, [1, 1], m.literal(args[4])

def _check_pooling(m: LoweredMethod, i: int):
    op, args = m.calls[i].op, m.calls[i].args
    sizes = m.tensor(args[0]).sizes
    if len(sizes) != 4:
        return f"pooling a {len(sizes)}-d tensor (XNNPACK pools [N, C, H, W])"
    if op == MEAN:
        dims = m.ints(args[1]) if m.kind(args[1]) != "None" else None
        if dims is None or sorted(d % 4 for d in dims) != [2, 3]:
            return "a mean over other dims than H and W (XNNPACK has global pooling only)"
        if m.kind(args[3]) != "None" and m.literal(args[3]) != FLOAT_CODE:
            return "a mean with another dtype"
        return None
    if op == ADAPTIVE_AVG_POOL:
        out = m.ints(args[1])
        if out is None:
            return "its output size is not known at export"
        if out == [1, 1]:
            return None
        if m.tensor(args[0]).dynamic:
            return "adaptive pooling of dynamic sizes to other than 1x1"
        if not adaptive_window(sizes[2], out[0]) or not adaptive_window(sizes[3], out[1]):
            return "adaptive pooling with uneven windows (XNNPACK's windows are all alike)"
        if sizes[2] == out[0] and sizes[3] == out[1]:
            return "adaptive pooling to the input's own size (a 1x1 window)"
        return None
    lists = [m.ints(v) for v in args[1:4 if op == AVG_POOL else 5]]
    if any(items is None for items in lists) or m.literal(args[4 if op == AVG_POOL else 5]) \
            is None:
        return "its window is not known at export"
    if any(len(items) not in ((0, 1, 2) if n == 1 else (1, 2))
           for n, items in enumerate(lists)):
        return "a window argument does not give one value or one per spatial dim"
    kernel, stride, padding, dilation, ceil_mode = pool_window(m, i)
    if kernel == [1, 1]:
        return "a 1x1 window (XNNPACK refuses it)"
    if op == MAX_POOL and dilation != [1, 1] and (padding != [0, 0] or ceil_mode):
        # XNNPACK 2022 reads the nearest border cell for a padded one, which only
        # stands for -inf when the window holds that cell, as undilated ones do.
        return "max pooling with dilation and padding or ceil_mode (XNNPACK 2022 " \
               "pads with border cells)"
    if op == AVG_POOL:
        if m.kind(args[6]) != "None":
            return "divisor_override (XNNPACK divides by the window's cells)"
        if m.literal(args[5]) and padding != [0, 0]:
            return "count_include_pad with padding (XNNPACK counts only the input's cells)"
    return None
