"""The XNNPACK delegate: the partitioner used at export (Python) and the runtime backend
(backends/xnnpack/runtime/, C++). Imported only when a model asks for it."""

from backends.xnnpack.partitioner import XnnpackPartitioner

__all__ = ["XnnpackPartitioner"]
