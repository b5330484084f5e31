"""Many traced programs decomposed in a row, each exactly as exporter.export decomposes it.

Most of a single-operator export's half second is not the operator: every
ExportedProgram.run_decompositions call (torch 2.x, torch/export/exported_program.py)
splits the decomposition table again into composite-implicit (CIA) operators and the rest,
and registers, then removes, a Python kernel on each of some 500 CIA operators
(_override_composite_implicit_decomp). Inside `decomposing_many()` the split is made once
and the registrations stay for the whole block, so the block must run nothing but
`decompose()` calls: tracing, eager runs and lowering stay outside it. The programs come
out byte for byte the same (tests/ops/test_decompose_many.py).
"""

import contextlib

import torch.export.exported_program as torch_ep

from exporter.decompositions import decomposition_table
from exporter.export import decompose

# The torch internals this relies on; without them (another torch) each call pays in full.
_SPLIT = getattr(torch_ep, "_split_decomp_table_to_cia_and_python_decomp", None)
_OVERRIDE = getattr(torch_ep, "_override_composite_implicit_decomp", None)


@contextlib.contextmanager
def decomposing_many():
    """Yields decompose(ep): exporter.export.decompose with the per-call work done once."""
    table = dict(decomposition_table())  # materialized once (run_decompositions copies it)
    if _SPLIT is None or _OVERRIDE is None:
        yield lambda ep: decompose(ep, table)
        return
    cia, python = _SPLIT(dict(table))

    def split(given):
        return (dict(cia), dict(python)) if given == table else _SPLIT(given)

    def override(given):
        return contextlib.nullcontext() if given == cia else _OVERRIDE(given)

    with _OVERRIDE(cia):
        torch_ep._split_decomp_table_to_cia_and_python_decomp = split
        torch_ep._override_composite_implicit_decomp = override
        try:
            yield lambda ep: decompose(ep, table)
        finally:
            torch_ep._split_decomp_table_to_cia_and_python_decomp = _SPLIT
            torch_ep._override_composite_implicit_decomp = _OVERRIDE
