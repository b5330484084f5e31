"""Which program calls the installed XNNPACK can run, and their payload.

XnnpackPartitioner is an exporter.delegation.Partitioner over four concerns, one module
each:

    support.py   whether Debian's XNNPACK (the 2022 subgraph API: no batch matmul,
                 transpose, gelu, layer norm, concatenate or slice) computes a call as
                 torch does: dtypes (fp32 only), ranks, broadcasts, attributes
    layout.py    which tensors are channels-last inside the delegates (XNNPACK's window
                 ops are NHWC, torch's tensors NCHW), and the calls that cannot keep to it
    packing.py   convolution weights repacked at export into XNNPACK's filter layouts
    policy.py    which groups are worth a delegate beside the runtime's kernels

and nodes.py turns a group of claimed calls into the payload's nodes (payload.py). Linear
layers arrive as addmm/mm of a constant [K, N] weight (the exporter folded nn.Linear's
transpose into the constant): it becomes XNNPACK's filter with its transposed-weights
flag, stored once in the constant segment. Eval batch norms arrive folded into the
convolutions (exporter/passes/batch_norm_folding.py); constant padding and bilinear
resizing are in pad_resize.py, PReLU (where(x > 0, x, w * x)) in prelu.py.

    from exporter.export import export
    from backends.xnnpack import XnnpackPartitioner
    program = export(model, inputs, partitioner=XnnpackPartitioner())
    print(program.delegation.format())

Beside the optimized kernels (XnnpackPartitioner(beside_optimized=True)) only groups
holding a dense or transposed convolution or an average pooling are delegated
(policy.py), and 3x3 stride-1 convolutions the
optimized kernels run by Winograd (2.25x fewer multiply-adds) stay with them. ResNet-18
at 224x224, one thread: all on XNNPACK 34.8 ms, all on the optimized kernels 32.2 ms,
split this way 28.8 ms (bench/versus_onnxruntime.py has the GPT's rows).
"""

from backends.xnnpack import layout, nodes, policy, prelu, support
from backends.xnnpack.packing import packed_filter
from backends.xnnpack.support import FOLDED, OPS  # noqa: F401  (the op harness reads them)
from exporter.delegation import LoweredMethod, Partitioner


class XnnpackPartitioner(Partitioner):
    backend = "xnnpack"

    def __init__(self, beside_optimized: bool = False):
        """`beside_optimized`: the runtime also has the optimized kernels (its target lists
        them), so only some groups are worth a delegate (policy.worth)."""
        self._layouts = None
        self.beside_optimized = beside_optimized

    def check(self, m: LoweredMethod, i: int):
        why = self._claimable(m, i)
        if why is not None:
            return why
        return self._layouts_of(m).reasons.get(i)

    def _claimable(self, m: LoweredMethod, i: int):
        """Why call `i` stays with the kernels whatever the layouts, or None."""
        return support.check_op(m, i) or policy.refuse(m, i, self.beside_optimized)

    def _layouts_of(self, m: LoweredMethod) -> layout.Layouts:
        if self._layouts is None or self._layouts.method is not m:
            claimable = [i for i in range(len(m.calls)) if self._claimable(m, i) is None]
            self._layouts = layout.plan_layouts(m, claimable)
        return self._layouts

    def worth(self, m: LoweredMethod, calls: list):
        return policy.worth(m, calls, self.beside_optimized)

    def reads(self, m: LoweredMethod, i: int) -> list:
        """Tensor operands and run-time reshape sizes; a convolution reads its weight
        repacked for XNNPACK."""
        op, args = m.calls[i].op, m.calls[i].args
        if op in support.RESHAPE:
            sizes = m.items(args[1])
            return [args[0]] + [v for v in sizes if m.literal(v) is None]
        if op == support.CONV:
            bias = [args[2]] if m.tensor(args[2]) is not None else []
            return [args[0], packed_filter(m, i)[0]] + bias
        if op == support.MAX_POOL:
            return [args[0]]
        if op == prelu.WHERE:
            return [args[1], prelu.slope(m, i)]
        return layout.tensor_reads(m, i)

    def preprocess(self, m: LoweredMethod, calls: list, inputs: list, outputs: list) -> bytes:
        return nodes.payload(m, calls, inputs, outputs, self._layouts_of(m).channels_last)
