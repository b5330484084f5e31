"""The inspector's pure parts on small inputs made here: reading a trace, the tables'
statistics and shares, the error measures, and the source stripping the default-runtime
test relies on."""

import json

import numpy as np
import pytest

from codegen.errors import ManifestError
from inspector import profile_tables
from inspector.numerics import _errors
from inspector.trace_file import parse_trace
from tests.trace.source_tree import strip_trace_blocks


def _trace(durations: list[list[float]], names: list[str]) -> str:
    """A trace of len(durations) runs; durations[run][instruction] in microseconds."""
    events = [{"name": "load forward", "cat": "load", "ph": "X", "ts": 0, "dur": 5,
               "args": {"memory_plan": {"arena_bytes": 64}}}]
    for run, times in enumerate(durations):
        events.append({"name": "forward", "cat": "execute", "ph": "X", "ts": 0,
                       "dur": sum(times), "args": {"run": run}})
        events += [{"name": names[i], "cat": "kernel", "ph": "X", "ts": 0, "dur": t,
                    "args": {"instruction": i, "run": run}} for i, t in enumerate(times)]
    return json.dumps({"traceEvents": events, "otherData": {
        "format": "tailor-trace", "program": "p.pte", "method": "forward",
        "instructions": len(names), "memory_plan": {"arena_bytes": 64}}})


def test_trace_becomes_per_instruction_times():
    names = ["aten::mm.out", "aten::relu.out", "aten::mm.out"]
    timings = parse_trace(_trace([[10, 1, 30], [20, 3, 40]], names), "t.json")
    assert timings.runs == 2 and timings.execute_us == (41, 63)
    assert timings.instruction_us == {0: (10, 20), 1: (1, 3), 2: (30, 40)}
    debug = [{"module": "fc1", "source": "m.py:3", "outputs": [{"shape": [2, 8]}]},
             {"module": "act"}, {"module": "fc2", "source": "m.py:4"}]
    rows = profile_tables.instruction_rows(timings, debug)
    assert [r.label for r in rows] == ["#0 aten::mm.out", "#1 aten::relu.out",
                                       "#2 aten::mm.out"]
    assert rows[0].shape == "[2, 8]" and sum(r.share for r in rows) == pytest.approx(1.0)
    ops = profile_tables.operator_rows(timings, debug)
    assert [(r.label, r.count) for r in ops] == [("aten::mm.out", 2), ("aten::relu.out", 1)]
    mm = ops[0].stats
    assert (mm.p10, mm.p50, mm.p90) == tuple(np.percentile([10, 20, 30, 40], [10, 50, 90]))
    assert mm.avg == 25 and ops[0].module == "fc2"   # the slowest mm's place
    assert profile_tables.module_times(timings, debug) == {"fc2": 35, "fc1": 15, "act": 2}


@pytest.mark.parametrize("text, says", [
    ("not json", "not JSON"),
    ('{"traceEvents": []}', "not a Tailor trace"),
    ('{"traceEvents": [{"ph": "X", "cat": "execute", "args": {}}], "otherData": '
     '{"format": "tailor-trace"}}', "lacks"),
    ('{"traceEvents": [], "otherData": {"format": "tailor-trace"}}', "no complete run"),
])
def test_bad_trace_names_the_file_and_the_fix(text, says):
    with pytest.raises(ManifestError) as e:
        parse_trace(text, "t.json")
    assert str(e.value).startswith("t.json: ") and says in str(e.value)
    assert "runner PROGRAM --trace FILE" in str(e.value)


def test_errors_are_against_the_tensors_scale():
    expected = np.array([4.0, -2.0, float("-inf")])
    assert _errors(np.array([4.0, -2.0, float("-inf")]), expected) == (0.0, 0.0)
    assert _errors(np.array([4.0, -1.0, float("-inf")]), expected) == (1.0, 0.25)
    assert _errors(np.array([1.0]), np.array([0.0])) == (1.0, float("inf"))


def test_stripping_keeps_what_a_build_without_the_tracer_sees():
    text = ("a\n#if TL_TRACE\ntraced\n#if X\nnested\n#endif\n#else\nplain\n#endif\n"
            "#if X\nb\n#endif\n")
    assert strip_trace_blocks(text) == "a\nplain\n#if X\nb\n#endif\n"
