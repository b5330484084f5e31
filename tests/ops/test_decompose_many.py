"""decomposing_many (tests/ops/decompose_many.py) gives the op harness the programs
exporter.export gives: the same .pte bytes and debug record, with and without XNNPACK's
partitioner, for a sample of the cases (every op's first case would take minutes)."""

import hashlib

import pytest

from exporter.export import capture, export, lower
from tests.ops import harness
from tests.ops.decompose_many import decomposing_many

# Every 199th (case, dtype): a spread of ops, dtypes, constants, permuted inputs, lists.
SAMPLE = harness.case_params()[::199]


@pytest.mark.parametrize("backend", ["", harness.XNNPACK])
def test_batched_exports_are_exporter_exports(backend):
    prepared = []
    for case, dtype in SAMPLE:
        key = f"{case.id}_{hashlib.sha256(f'{case!r}|{dtype}'.encode()).hexdigest()[:10]}"
        try:
            module, inputs, _ = harness.prepare(case, dtype, key)
            alone = export(module, tuple(inputs), partitioner=harness.partitioner(backend))
        except Exception:  # tests/ops/test_ops.py reports a case that does not export
            continue
        prepared.append((f"{case.id} ({dtype})", alone, capture(module, tuple(inputs))))
    assert len(prepared) >= len(SAMPLE) - 2, "most of the sample exports"
    with decomposing_many() as decompose:
        decomposed = [(where, alone, decompose(ep)) for where, alone, ep in prepared]
    for where, alone, ep in decomposed:
        batched = lower(ep, partitioner=harness.partitioner(backend))
        assert batched.to_bytes() == alone.to_bytes(), f"{where}: the .pte differs"
        assert batched.debug == alone.debug, f"{where}: the debug record differs"
        assert batched.delegation == alone.delegation, f"{where}: the delegation differs"
