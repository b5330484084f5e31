"""The XNNPACK delegate: the partitioner used at export (Python) and the runtime backend
(backends/xnnpack/runtime/, C++). Imported only when a model asks for it."""

from backends.xnnpack.partitioner import XnnpackPartitioner

__all__ = ["XnnpackPartitioner", "make_partitioner"]


def make_partitioner(kernel_libraries: tuple = ()) -> XnnpackPartitioner:
    """The partitioner for a runtime with `kernel_libraries` (backend.yaml names it):
    beside the optimized kernels only groups with a dense convolution, a transposed one or
    an average pooling are worth a delegate (policy.py)."""
    return XnnpackPartitioner(beside_optimized="optimized" in kernel_libraries)
