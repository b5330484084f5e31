"""Which program calls the installed XNNPACK can run, and their payload.

XnnpackPartitioner is an exporter.delegation.Partitioner: check() says, per out-variant
call, whether Debian's XNNPACK (the 2022 subgraph API: no batch matmul, transpose, gelu,
layer norm, concatenate or slice) can run it and compute what torch computes, checking
dtypes (fp32 only), ranks, broadcast patterns and attributes; preprocess() turns a group
of claimed calls into the payload (payload.py). Linear layers arrive as addmm/mm of a
constant [K, N] weight (the exporter folded nn.Linear's transpose into the constant): it
becomes XNNPACK's filter with its transposed-weights flag, stored once in the constant
segment and passed to the delegate by value id.

Convolutions and pooling: XNNPACK's window ops are NHWC, torch's tensors NCHW. Each
4-d (and, for 1-d convolutions, 3-d) tensor value of the method gets one layout: values
connected through elementwise ops form a class, and a class holding the input or output
of a convolution or pooling is channels-last inside every delegate (the runtime
transposes it where it enters or leaves a delegate, free when its channels or its
spatial dims are all 1). Reshapes, softmax and linear layers keep plain layout, so one
whose tensor is channels-last and would need a transpose stays with the kernels. A
convolution's weight is repacked at export into XNNPACK's filter layout ([O, KH, KW,
I/groups], depthwise [1, KH, KW, O]; a transposed convolution becomes a deconvolution
with [O, KH, KW, I/groups] per group) as a constant of its own; the original is dropped
unless a kernel call still reads it. Eval batch norms arrive folded into the
convolutions (exporter/passes/batch_norm_folding.py).
Constant padding keeps its input's layout, like the elementwise ops; bilinear resizing
is NHWC in XNNPACK, like pooling (pad_resize.py says when each computes what torch does).
PReLU arrives as where(x > 0, x, w * x), which becomes one PReLU node (prelu.py).

    from exporter.export import export
    from backends.xnnpack import XnnpackPartitioner
    program = export(model, inputs, partitioner=XnnpackPartitioner())
    print(program.delegation.format())

Beside the optimized kernels (a target whose kernel_libraries list `optimized`, made with
XnnpackPartitioner(beside_optimized=True)), a group of calls becomes a delegate only if it
holds a convolution or a pooling: there XNNPACK's NHWC kernels beat the optimized im2col
ones, while on linear layers, softmax and elementwise arithmetic they are no faster than
the optimized GEMM and vector kernels, and each delegate call adds its setup and the
copies at its edges (bench/versus_onnxruntime.py: the GPT's host-xnnpack row against the
host row). The exception: 3x3 stride-1 convolutions the optimized kernels run by Winograd
(2.25x fewer multiply-adds) stay with them. ResNet-18 at 224x224, one thread: all on
XNNPACK 34.8 ms, all on the optimized kernels 32.2 ms, split this way 28.8 ms. So the
XNNPACK path is never slower than the host path; beside the portable kernels alone,
every group XNNPACK can run is delegated.
"""

import math

import numpy as np

from backends.xnnpack import pad_resize, prelu
from backends.xnnpack.payload import GraphBuilder
from exporter.delegation import LoweredMethod, Partitioner

MAX_RANK = 6  # XNN_MAX_TENSOR_DIMS
FLOAT_CODE = 6  # c10::ScalarType::Float, a `dtype=` argument

BINARY = {"aten::add.out": "Add", "aten::sub.out": "Subtract", "aten::mul.out": "Multiply",
          "aten::div.out": "Divide", "aten::maximum.out": "Maximum",
          "aten::minimum.out": "Minimum"}
SCALAR_BINARY = {"aten::add.Scalar_out": "Add", "aten::sub.Scalar_out": "Subtract",
                 "aten::mul.Scalar_out": "Multiply", "aten::div.Scalar_out": "Divide"}
UNARY = {"aten::sigmoid.out": "Sigmoid",
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
_NOT_CHANNELS_LAST = ("reads or writes a tensor that is channels-last inside XNNPACK "
                      "(XNNPACK 2022 has no transpose)")


def _broadcastable(a: list, b: list) -> bool:
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            return False
    return True


def _pair(items: list):
    """An int[2] argument: one value stands for both dims."""
    return [items[0], items[0]] if len(items) == 1 else list(items)


def _trivially_channels_last(sizes: list) -> bool:
    """Whether an NC... tensor has the same memory order channels-last: its channels or
    all its spatial dims are 1 (sizes are upper bounds; 1 is exact)."""
    return len(sizes) in (3, 4) and (sizes[1] == 1 or math.prod(sizes[2:]) == 1)


def _padded_channels_last(sizes: list, rank: int):
    """`sizes` padded with leading 1s to `rank`, if that is trivially channels-last."""
    padded = [1] * (rank - len(sizes)) + list(sizes)
    return padded if _trivially_channels_last(padded) else None


def _reshape_keeps_memory(a: list, a_cl: bool, b: list, b_cl: bool) -> bool:
    """Whether reshaping `a` to `b` moves no element when each is channels-last or not:
    both lie in logical order, or both are channels-last with the same batch and
    channels and the same spatial dims but for 1s (an unsqueeze of a 1-d signal)."""
    if (not a_cl or _trivially_channels_last(a)) and (not b_cl or _trivially_channels_last(b)):
        return True
    if not (a_cl and b_cl):
        return False
    return a[:2] == b[:2] and [s for s in a[2:] if s != 1] == [s for s in b[2:] if s != 1]


class _Layouts:
    """Channels-last values of one method and the calls that cannot keep to them."""

    def __init__(self, method: LoweredMethod, channels_last: set, reasons: dict):
        self.method = method
        self.channels_last = channels_last
        self.reasons = reasons


# Ops on which XNNPACK beats the optimized kernels: a delegate beside them needs one.
WINS_BESIDE_OPTIMIZED = frozenset(WINDOW)


class XnnpackPartitioner(Partitioner):
    backend = "xnnpack"

    def __init__(self, beside_optimized: bool = False):
        """`beside_optimized`: the runtime also has the optimized kernels (its target lists
        them), so only groups with a convolution or pooling are worth a delegate."""
        self._layouts = None
        self.beside_optimized = beside_optimized

    # -- what XNNPACK can run ---------------------------------------------------------

    def check(self, m: LoweredMethod, i: int):
        why = self._check_op(m, i)
        if why is not None:
            return why
        return self._layouts_of(m).reasons.get(i)

    def _check_op(self, m: LoweredMethod, i: int):
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
            return self._check_linear(m, i)
        if op in RESHAPE:
            if any(m.kind(v) != "Int" for v in m.items(args[1])):
                return "reshape sizes are not ints"
            return None
        if op in SQUEEZE:
            if m.tensor(args[call.num_inputs]).dynamic:
                return "a squeeze or unsqueeze with dynamic sizes"
            return None
        if op == CONV:
            why = self._check_convolution(m, i)
            if why is None and self.beside_optimized and self._winograd_on_kernels(m, i):
                return ("a 3x3 stride-1 convolution: the optimized kernels run it faster "
                        "(Winograd)")
            return why
        if op in WINDOW:
            return self._check_pooling(m, i)
        if op == PAD:
            return pad_resize.check_pad(m, i)
        if op == RESIZE:
            return pad_resize.check_resize(m, i)
        return self._check_unary(m, i)

    def _check_unary(self, m: LoweredMethod, i: int):
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

    def _check_linear(self, m: LoweredMethod, i: int):
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

    def _check_convolution(self, m: LoweredMethod, i: int):
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
            stride = self._conv_ints(m, i, 3)
            if any(p >= s for p, s in zip(self._conv_ints(m, i, 7), stride)):
                return "output_padding not below the stride (XNNPACK's deconvolution " \
                       "needs it below)"
        return None

    def _winograd_on_kernels(self, m: LoweredMethod, i: int) -> bool:
        """Whether the optimized convolution runs call `i` (one XNNPACK could run) by
        Winograd F(2x2, 3x3), as winograd_fits() in kernels/optimized/util/conv_winograd.h
        decides (the same rule, without its scratch budget, which up to 256 input channels
        stay inside): 3x3, stride and dilation 1, one group, 32 to 256 input channels and
        32 or more output channels, 32 tiles of 2x2 or more."""
        call = m.calls[i]
        w = m.tensor(call.args[1])
        out = m.tensor(call.args[call.num_inputs])
        if len(w.sizes) != 4 or out.dynamic or m.literal(call.args[6]):
            return False
        cout, cin, kh, kw = w.sizes
        tiles = (out.sizes[2] + 1) // 2 * ((out.sizes[3] + 1) // 2)
        ones = self._conv_ints(m, i, 3) + self._conv_ints(m, i, 5)  # stride, dilation
        return ((kh, kw) == (3, 3) and set(ones) == {1} and m.literal(call.args[8]) == 1
                and 32 <= cin <= 256 and cout >= 32 and tiles >= 32)

    def _conv_ints(self, m: LoweredMethod, i: int, at: int) -> list:
        """A convolution's int list argument `at`, one value per spatial dim (torch takes
        one value for all of them too)."""
        items = m.ints(m.calls[i].args[at])
        rank = len(m.tensor(m.calls[i].args[0]).sizes)
        return items * (rank - 2) if len(items) == 1 else items

    def _pool_window(self, m: LoweredMethod, i: int):
        """(kernel, stride, padding, dilation, ceil_mode) of a pooling call, each [h, w]."""
        op, args = m.calls[i].op, m.calls[i].args
        kernel = _pair(m.ints(args[1]))
        stride = m.ints(args[2])
        stride = _pair(stride) if stride else kernel
        padding = _pair(m.ints(args[3]))
        if op == MAX_POOL:
            return kernel, stride, padding, _pair(m.ints(args[4])), m.literal(args[5])
        return kernel, stride, padding, [1, 1], m.literal(args[4])

    def _check_pooling(self, m: LoweredMethod, i: int):
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
            if sizes[2] % out[0] or sizes[3] % out[1]:
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
        kernel, stride, padding, dilation, ceil_mode = self._pool_window(m, i)
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

    # -- layouts ----------------------------------------------------------------------

    def _layouts_of(self, m: LoweredMethod) -> _Layouts:
        if self._layouts is None or self._layouts.method is not m:
            self._layouts = self._plan_layouts(m)
        return self._layouts

    def _plan_layouts(self, m: LoweredMethod) -> _Layouts:
        """Which tensors are channels-last, and why a claimable call cannot keep to it."""
        claimable = [i for i in range(len(m.calls)) if self._check_op(m, i) is None]
        parent: dict = {}

        def find(v):
            while parent.setdefault(v, v) != v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v

        seeds = []
        for i in claimable:
            call = m.calls[i]
            x, out = call.args[0], call.args[call.num_inputs]
            if self._nhwc(m, i):
                x = call.args[1] if call.op == prelu.WHERE else x
                seeds.append(x)
                if len(m.tensor(out).sizes) == len(m.tensor(x).sizes):
                    seeds.append(out)
            elif call.op in ELEMENTWISE:
                rank = len(m.tensor(out).sizes)
                for v in self._tensor_reads(m, i):
                    if not m.is_constant(v) and len(m.tensor(v).sizes) == rank:
                        parent[find(v)] = find(out)
        roots = {find(v) for v in seeds}
        channels_last = {v for v in list(parent) + seeds if find(v) in roots}

        reasons = {}
        for i in claimable:
            why = self._layout_reason(m, i, channels_last)
            if why is not None:
                reasons[i] = why
        return _Layouts(m, channels_last, reasons)

    def _layout_reason(self, m: LoweredMethod, i: int, channels_last: set):
        call = m.calls[i]
        op, args = call.op, call.args
        out = args[call.num_inputs]
        if self._nhwc(m, i):
            x = args[1] if op == prelu.WHERE else args[0]
            if m.is_constant(x) and not _trivially_channels_last(m.tensor(x).sizes):
                return "its input is a constant (XNNPACK would need it channels-last)"
            return None
        if op in RESHAPE or op in SQUEEZE:
            a, b = m.tensor(args[0]).sizes, m.tensor(out).sizes
            if not _reshape_keeps_memory(a, args[0] in channels_last, b, out in channels_last):
                return "a reshape of a tensor that is channels-last inside XNNPACK (XNNPACK " \
                       "2022 has no transpose)"
            return None
        if op not in ELEMENTWISE:  # softmax, linear layers: plain layout only
            if any(v in channels_last for v in self._tensor_reads(m, i) + [out]):
                return _NOT_CHANNELS_LAST
            return None
        if out not in channels_last:
            if any(v in channels_last for v in self._tensor_reads(m, i)):
                return "mixes channels-last and plain operands"
            return None
        rank = len(m.tensor(out).sizes)
        for v in self._tensor_reads(m, i):
            if v in channels_last:
                continue
            if m.tensor(v).dynamic or _padded_channels_last(m.tensor(v).sizes, rank) is None:
                return "an operand that is not channels-last like the others (XNNPACK 2022 " \
                       "has no transpose)"
        return None

    def _nhwc(self, m: LoweredMethod, i: int) -> bool:
        """Whether XNNPACK runs call `i` (one it can run) on channels-last tensors only: a
        window op, a resize, a PReLU over [N, C, L] or [N, C, H, W] (channels last)."""
        call = m.calls[i]
        if call.op == prelu.WHERE:
            return len(m.tensor(call.args[1]).sizes) in (3, 4)
        return call.op in NHWC

    def _tensor_reads(self, m: LoweredMethod, i: int) -> list:
        return [v for v in m.reads(i) if m.tensor(v) is not None]

    # -- what a delegated call reads ----------------------------------------------------

    def worth(self, m: LoweredMethod, calls: list):
        if all(m.calls[i].op in RESHAPE or m.calls[i].op in SQUEEZE
               or m.calls[i].op == "aten::clone.out" for i in calls):
            return "only reshapes and copies: not worth a delegate call"
        if self.beside_optimized and not any(m.calls[i].op in WINS_BESIDE_OPTIMIZED
                                             for i in calls):
            return ("no convolution or pooling: the optimized kernels run these as fast "
                    "without a delegate call")
        return None

    def reads(self, m: LoweredMethod, i: int) -> list:
        """Tensor operands and run-time reshape sizes; a convolution reads its weight
        repacked for XNNPACK."""
        op, args = m.calls[i].op, m.calls[i].args
        if op in RESHAPE:
            sizes = m.items(args[1])
            return [args[0]] + [v for v in sizes if m.literal(v) is None]
        if op == CONV:
            bias = [args[2]] if m.tensor(args[2]) is not None else []
            return [args[0], self._packed_filter(m, i)[0]] + bias
        if op == MAX_POOL:
            return [args[0]]
        if op == prelu.WHERE:
            return [args[1], prelu.slope(m, i)]
        return self._tensor_reads(m, i)

    def _packed_filter(self, m: LoweredMethod, i: int):
        """(value id, depthwise) of call `i`'s weight in XNNPACK's filter layout."""
        args = m.calls[i].args
        w = args[1]
        sizes = m.tensor(w).sizes
        groups = m.literal(args[8])
        weight = np.frombuffer(m.constants[w], dtype=np.float32).reshape(sizes)
        if len(sizes) == 3:                    # 1-d: [O, I/g, K] -> [O, I/g, 1, K]
            weight = weight[:, :, None, :]
        if m.literal(args[6]):
            # Transposed: [I, O/g, KH, KW] -> per group [O/g, KH, KW, I/g].
            i_all, og, kh, kw = weight.shape
            packed = weight.reshape(groups, i_all // groups, og, kh, kw) \
                .transpose(0, 2, 3, 4, 1).reshape(groups * og, kh, kw, i_all // groups)
            vid = m.derived_constant(("xnnpack", "deconv-OHWI", w), w, list(packed.shape),
                                     np.ascontiguousarray(packed).tobytes())
            return vid, False
        in_channels = m.tensor(args[0]).sizes[1]
        depthwise = groups > 1 and groups == in_channels and sizes[1] == 1
        if depthwise:
            packed, key = weight.transpose(1, 2, 3, 0), "1HWO"
        else:
            packed, key = weight.transpose(0, 2, 3, 1), "OHWI"
        vid = m.derived_constant(("xnnpack", key, w), w, list(packed.shape),
                                 np.ascontiguousarray(packed).tobytes())
        return vid, depthwise

    # -- payload ----------------------------------------------------------------------

    def preprocess(self, m: LoweredMethod, calls: list, inputs: list, outputs: list) -> bytes:
        channels_last = self._layouts_of(m).channels_last
        g = GraphBuilder(inputs + outputs, constants=[v for v in inputs if m.is_constant(v)],
                         outputs=outputs, channels_last=channels_last)
        for i in calls:
            op, args = m.calls[i].op, m.calls[i].args
            out_vid = args[m.calls[i].num_inputs]
            out = g.value(out_vid)
            if op in LINEAR:
                mat1, mat2 = (args[1], args[2]) if op == "aten::addmm.out" else (args[0], args[1])
                operands = [g.value(mat1), g.value(mat2)]
                if op == "aten::addmm.out":
                    operands.append(g.value(args[0]))
                # The filter is [K, N]; XNNPACK's own layout is [N, K].
                g.node("FullyConnected", operands, out, transpose_weights=True)
            elif op in BINARY:
                g.node(BINARY[op], [self._operand(m, g, v, out_vid, channels_last)
                                    for v in args[:2]], out)
            elif op in SCALAR_BINARY:
                g.node(SCALAR_BINARY[op], [self._operand(m, g, args[0], out_vid, channels_last),
                                           g.scalar(m.literal(args[1]))], out)
            elif op in RESHAPE:
                dims = [(-1, g.arg(v)) if m.literal(v) is None else (m.literal(v), -1)
                        for v in m.items(args[1])]
                g.node("Reshape", [g.value(args[0])], out, shape=dims)
            elif op in SQUEEZE:
                g.node("Reshape", [g.value(args[0])], out,
                       shape=[(s, -1) for s in m.tensor(out_vid).sizes])
            elif op == CONV:
                self._convolution(m, g, i, out)
            elif op in WINDOW:
                self._pooling(m, g, i, out)
            elif op == prelu.WHERE:
                g.node("PRelu", [g.value(args[1]), g.value(prelu.slope(m, i))], out)
            elif op == RESIZE:
                pad_resize.resize_node(m, g, i, g.value(args[0]), out)
            elif op == PAD:
                pad_resize.pad_node(m, g, i, self._operand(m, g, args[0], out_vid,
                                                           channels_last), out)
            else:
                self._unary(m, g, i, out, channels_last)
        return g.serialize()

    def _operand(self, m, g: GraphBuilder, v: int, out_vid: int, channels_last: set) -> int:
        """Operand `v` of an elementwise call writing `out_vid`: a plain operand of a
        channels-last call becomes a channels-last copy (same memory order, as checked)."""
        if out_vid not in channels_last or v in channels_last:
            return g.value(v)
        rank = len(m.tensor(out_vid).sizes)
        padded = _padded_channels_last(m.tensor(v).sizes, rank)
        view = g.temp(channels_last=True)
        g.node("Reshape", [g.value(v)], view, shape=[(s, -1) for s in padded])
        return view

    def _unary(self, m, g: GraphBuilder, i: int, out: int, channels_last: set) -> None:
        op, args = m.calls[i].op, m.calls[i].args
        x = self._operand(m, g, args[0], args[m.calls[i].num_inputs], channels_last)
        if op == "aten::relu.out":
            g.node("Clamp", [x], out, min=0.0)
        elif op in ("aten::clamp.out", "aten::hardtanh.out"):
            lo, hi = (m.literal(v) for v in args[1:3])
            g.node("Clamp", [x], out, **({"min": float(lo)} if lo is not None else {}),
                   **({"max": float(hi)} if hi is not None else {}))
        elif op in ("aten::leaky_relu.out", "aten::elu.out"):
            g.node(UNARY[op], [x], out, alpha=float(m.literal(args[1])))
        else:
            g.node(UNARY[op], [x], out)

    def _convolution(self, m, g: GraphBuilder, i: int, out: int) -> None:
        args = m.calls[i].args
        stride, padding, dilation = (self._conv_ints(m, i, at) for at in (3, 4, 5))
        transposed = m.literal(args[6])
        adjustment = self._conv_ints(m, i, 7) if transposed else [0] * len(stride)
        if len(stride) == 1:                   # 1-d: a 2-d window of height 1
            stride, padding, dilation = [1] + stride, [0] + padding, [1] + dilation
            adjustment = [0] + adjustment
        sizes = m.tensor(args[1]).sizes
        kernel = [1, sizes[2]] if len(sizes) == 3 else sizes[2:]
        filt, depthwise = self._packed_filter(m, i)
        operands = [g.value(args[0]), g.value(filt)]
        if m.tensor(args[2]) is not None:
            operands.append(g.value(args[2]))
        if transposed:
            # torch's output_padding is XNNPACK's adjustment, added after the last row.
            g.node("Deconvolution2d", operands, out,
                   window=_window(kernel, stride, dilation, padding),
                   groups=m.literal(args[8]), adjustment_h=adjustment[0],
                   adjustment_w=adjustment[1])
            return
        g.node("DepthwiseConvolution2d" if depthwise else "Convolution2d", operands, out,
               window=_window(kernel, stride, dilation, padding),
               groups=1 if depthwise else m.literal(args[8]))

    def _pooling(self, m, g: GraphBuilder, i: int, out: int) -> None:
        op, args = m.calls[i].op, m.calls[i].args
        x = g.value(args[0])
        sizes = m.tensor(args[0]).sizes
        if op == MEAN:
            if m.literal(args[2]):             # keepdim: [N, C, 1, 1]
                g.node("GlobalAveragePooling2d", [x], out)
            else:                              # [N, C]: pool, then drop the 1s
                pooled = g.temp(channels_last=True)
                g.node("GlobalAveragePooling2d", [x], pooled)
                g.node("Reshape", [pooled], out, shape=[(-1, -1), (sizes[1], -1)])
        elif op == ADAPTIVE_AVG_POOL:
            size = m.ints(args[1])
            if size == [1, 1]:
                g.node("GlobalAveragePooling2d", [x], out)
            else:
                kernel = [sizes[2] // size[0], sizes[3] // size[1]]
                g.node("AveragePooling2d", [x], out,
                       window=_window(kernel, kernel, [1, 1], [0, 0]))
        else:
            kernel, stride, padding, dilation, ceil_mode = self._pool_window(m, i)
            g.node("MaxPooling2d" if op == MAX_POOL else "AveragePooling2d", [x], out,
                   window=_window(kernel, stride, dilation, padding), ceil_mode=bool(ceil_mode))


def _window(kernel: list, stride: list, dilation: list, padding: list) -> dict:
    return {"kernel_h": kernel[0], "kernel_w": kernel[1], "stride_h": stride[0],
            "stride_w": stride[1], "dilation_h": dilation[0], "dilation_w": dilation[1],
            "pad_top": padding[0], "pad_left": padding[1], "pad_bottom": padding[0],
            "pad_right": padding[1]}
