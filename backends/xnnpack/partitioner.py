"""Which program calls the installed XNNPACK can run, and their payload.

XnnpackPartitioner is an exporter.delegation.Partitioner: check() says, per out-variant
call, whether Debian's XNNPACK (the 2022 subgraph API: no batch matmul, transpose, gelu,
layer norm, concatenate or slice) can run it, checking dtypes (fp32 only), ranks,
broadcast patterns and attributes; preprocess() turns a group of claimed calls into the
payload (payload.py). Linear layers arrive as addmm/mm of a constant [K, N] weight (the
exporter folded nn.Linear's transpose into the constant): it becomes XNNPACK's filter
with its transposed-weights flag, stored once in the constant segment and passed to the
delegate by value id.

    from exporter.export import export
    from backends.xnnpack import XnnpackPartitioner
    program = export(model, inputs, partitioner=XnnpackPartitioner())
    print(program.delegation.format())
"""

from backends.xnnpack.payload import GraphBuilder
from exporter.delegation import LoweredMethod, Partitioner

MAX_RANK = 6  # XNN_MAX_TENSOR_DIMS

BINARY = {"aten::add.out": "Add", "aten::sub.out": "Subtract", "aten::mul.out": "Multiply",
          "aten::div.out": "Divide", "aten::maximum.out": "Maximum",
          "aten::minimum.out": "Minimum"}
SCALAR_BINARY = {"aten::add.Scalar_out": "Add", "aten::sub.Scalar_out": "Subtract",
                 "aten::mul.Scalar_out": "Multiply", "aten::div.Scalar_out": "Divide"}
UNARY = {"aten::sigmoid.out": "Sigmoid", "aten::hardswish.out": "Hardswish",
         "aten::neg.out": "Negate", "aten::abs.out": "Abs", "aten::sqrt.out": "SquareRoot",
         "aten::relu.out": "Clamp", "aten::clamp.out": "Clamp", "aten::hardtanh.out": "Clamp",
         "aten::_softmax.out": "Softmax", "aten::clone.out": "Copy"}
RESHAPE = ("aten::view_copy.out", "aten::_unsafe_view.out")
LINEAR = ("aten::addmm.out", "aten::mm.out")
# With alpha: add/sub take it as args[2] (Tensor) or args[2] (Scalar variant, after other).
_ALPHA_AT = {"aten::add.out": 2, "aten::sub.out": 2, "aten::add.Scalar_out": 2,
             "aten::sub.Scalar_out": 2}
_CONTIGUOUS_FORMATS = (0, 1)  # MemoryFormat contiguous_format, preserve_format


def _broadcastable(a: list, b: list) -> bool:
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            return False
    return True


class XnnpackPartitioner(Partitioner):
    backend = "xnnpack"

    # -- what XNNPACK can run ---------------------------------------------------------

    def check(self, m: LoweredMethod, i: int):
        call = m.calls[i]
        op, args = call.op, call.args
        tensors = [v for v in m.reads(i) + m.writes(i) if m.tensor(v) is not None]
        if not (op in BINARY or op in SCALAR_BINARY or op in UNARY or op in RESHAPE
                or op in LINEAR):
            return "transpose (XNNPACK 2022 has none)" if op == "aten::permute_copy.out" \
                else "not an XNNPACK node"
        for v in tensors:
            t = m.tensor(v)
            if t["scalar_type"] != "Float":
                return f"{t['scalar_type']} tensor (XNNPACK runs Float only)"
            if not 1 <= len(t["sizes"]) <= MAX_RANK:
                return f"rank {len(t['sizes'])} (XNNPACK takes 1 to {MAX_RANK} dims)"
            if 0 in t["sizes"]:
                return "an empty tensor (XNNPACK requires data in every operand)"
        if op in _ALPHA_AT and m.literal(args[_ALPHA_AT[op]]) != 1:
            return "alpha is not 1"
        if op in BINARY:
            a, b = (m.tensor(v)["sizes"] for v in args[:2])
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
            if any(m.kind(v) != "Int" for v in m.values[args[1]]["val"]["items"]):
                return "reshape sizes are not ints"
            return None
        return self._check_unary(m, i)

    def _check_unary(self, m: LoweredMethod, i: int):
        op, args = m.calls[i].op, m.calls[i].args
        if op == "aten::_softmax.out":
            rank = len(m.tensor(args[0])["sizes"])
            dim = m.literal(args[1])
            if dim is None or dim % rank != rank - 1:
                return "softmax over a dim other than the last"
            if m.literal(args[2]):
                return "softmax with half_to_float"
        if op == "aten::clamp.out":
            for v in args[1:3]:
                if m.kind(v) != "None" and (m.literal(v) is None or m.kind(v) == "Bool"):
                    return "clamp bound is not a number known at export"
        if op == "aten::hardtanh.out" and any(m.literal(v) is None for v in args[1:3]):
            return "hardtanh bound is not a number known at export"
        if op == "aten::clone.out" and m.kind(args[1]) != "None" \
                and m.literal(args[1]) not in _CONTIGUOUS_FORMATS:
            return "clone to a non-contiguous memory format"
        return None

    def _check_linear(self, m: LoweredMethod, i: int):
        op, args = m.calls[i].op, m.calls[i].args
        mat2 = args[2] if op == "aten::addmm.out" else args[1]
        if not m.is_constant(mat2):
            return "the weight is not a constant (XNNPACK's fully_connected needs static weights)"
        n = m.tensor(mat2)["sizes"][1]
        if op == "aten::addmm.out":
            bias = args[0]
            if not (m.is_constant(bias) and m.tensor(bias)["sizes"] == [n]):
                return f"the bias is not a constant [{n}] vector"
            if m.literal(args[3]) != 1 or m.literal(args[4]) != 1:
                return "beta or alpha is not 1"
        return None

    def worth(self, m: LoweredMethod, calls: list):
        if all(m.calls[i].op in RESHAPE or m.calls[i].op == "aten::clone.out" for i in calls):
            return "only reshapes and copies: not worth a delegate call"
        return None

    def reads(self, m: LoweredMethod, i: int) -> list:
        """Tensor operands and run-time reshape sizes."""
        op, args = m.calls[i].op, m.calls[i].args
        if op in RESHAPE:
            sizes = m.values[args[1]]["val"]["items"]
            return [args[0]] + [v for v in sizes if m.literal(v) is None]
        return [v for v in m.reads(i) if m.tensor(v) is not None]

    # -- payload ----------------------------------------------------------------------

    def preprocess(self, m: LoweredMethod, calls: list, inputs: list, outputs: list) -> bytes:
        g = GraphBuilder(inputs + outputs, constants=[v for v in inputs if m.is_constant(v)],
                         outputs=outputs)
        for i in calls:
            op, args = m.calls[i].op, m.calls[i].args
            out = args[m.calls[i].num_inputs]
            if op in LINEAR:
                mat1, mat2 = (args[1], args[2]) if op == "aten::addmm.out" else (args[0], args[1])
                operands = [g.value(mat1), g.value(mat2)]
                if op == "aten::addmm.out":
                    operands.append(g.value(args[0]))
                # The filter is [K, N]; XNNPACK's own layout is [N, K].
                g.node("FullyConnected", operands, out, transpose_weights=True)
            elif op in BINARY:
                g.node(BINARY[op], [g.value(args[0]), g.value(args[1])], out)
            elif op in SCALAR_BINARY:
                g.node(SCALAR_BINARY[op], [g.value(args[0]), g.scalar(m.literal(args[1]))], out)
            elif op in RESHAPE:
                dims = [(-1, g.arg(v)) if m.literal(v) is None else (m.literal(v), -1)
                        for v in m.values[args[1]]["val"]["items"]]
                g.node("Reshape", [g.value(args[0])], out, shape=dims)
            elif op == "aten::relu.out":
                g.node("Clamp", [g.value(args[0])], out, min=0.0)
            elif op in ("aten::clamp.out", "aten::hardtanh.out"):
                lo, hi = (m.literal(v) for v in args[1:3])
                g.node("Clamp", [g.value(args[0])], out,
                       **({"min": float(lo)} if lo is not None else {}),
                       **({"max": float(hi)} if hi is not None else {}))
            else:
                g.node(UNARY[op], [g.value(args[0])], out)
        return g.serialize()
