"""The event tracer end to end: `scons model=gpt_tiny trace=1 run=1` builds a traced
runtime and prints the per-operator summary; the runner's trace holds one event per
instruction per run, whose times add up to the method's; the inspector's tables hold
every instruction, its chart is a valid PNG, and a dump of the intermediate outputs
matches eager torch instruction by instruction."""

import json
import os
import re
import subprocess
import sys

import pytest

from codegen import build_layout
from tests.conftest import REPO, run_scons
from tests.trace.png_check import check_png

BUILD = build_layout.tree("test-trace")
OUT = os.path.join(REPO, build_layout.output_dir(["gpt_tiny"], build_dir=BUILD, trace=True))
PROGRAM = build_layout.program(OUT, "gpt_tiny")
RUNNER = build_layout.runner(OUT)
RUNS = 20
CACHE = os.path.join(REPO, build_layout.tree("test-trace-cache"))


@pytest.fixture(scope="module")
def built():
    # The check (and with it the summary) runs again even when the build is up to date.
    report = build_layout.check_report(OUT, "gpt_tiny")
    if os.path.exists(report):
        os.remove(report)
    # The cache lends the trace=1 runtime's objects to test_wrong_kernel.py's build.
    return run_scons("model=gpt_tiny", "trace=1", "run=1", "build_dir=" + BUILD,
                     "cache=" + CACHE)


@pytest.fixture(scope="module")
def debug(built):
    with open(os.path.join(OUT, "gpt_tiny.debug.json")) as f:
        return json.load(f)["methods"][0]["instructions"]


@pytest.fixture(scope="module")
def trace(built, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("trace") / "gpt_tiny.trace.json")
    subprocess.run([RUNNER, PROGRAM, "--check", "--atol", "1e-4", "--rtol", "1e-4",
                    "--repeat", str(RUNS), "--trace", path], check=True, capture_output=True)
    return path


def inspector(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inspector", *args], cwd=REPO,
                          capture_output=True, text=True)


def test_run_prints_the_operator_summary_after_the_check(built):
    out = built.stdout
    assert out.index("check passed") < out.index("per operator type:")
    assert "aten::addmm.out" in out.split("per operator type:")[1]
    check_png(os.path.join(OUT, "gpt_tiny.trace.png"))


def test_trace_has_one_event_per_instruction_per_run(trace, debug):
    with open(trace) as f:
        data = json.load(f)
    events = [e for e in data["traceEvents"] if e["ph"] == "X"]
    runs = [e for e in events if e["cat"] == "execute"]
    calls = [e for e in events if e["cat"] in ("kernel", "delegate")]
    assert len(runs) == RUNS and data["otherData"]["runs"] == RUNS
    assert data["otherData"]["instructions"] == len(debug)
    for run in range(RUNS):
        indices = [e["args"]["instruction"] for e in calls if e["args"]["run"] == run]
        assert indices == list(range(len(debug))), run
    assert [e["name"] for e in calls[:len(debug)]] == [d["op"] for d in debug]
    load = [e for e in events if e["cat"] == "load"]
    assert len(load) == 1 and load[0]["args"]["memory_plan"]["arena_bytes"] > 0


def test_instruction_times_add_up_to_the_method_time(trace):
    with open(trace) as f:
        events = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
    for run in range(RUNS):
        method = next(e["dur"] for e in events
                      if e["cat"] == "execute" and e["args"]["run"] == run)
        summed = sum(e["dur"] for e in events
                     if e["cat"] == "kernel" and e["args"]["run"] == run)
        assert 0.9 * method <= summed <= method, (run, summed, method)


def test_inspector_tables_hold_every_instruction(trace, debug, tmp_path):
    png = str(tmp_path / "chart.png")
    proc = inspector(PROGRAM, "--trace", trace, "--png", png)
    assert proc.returncode == 0, proc.stderr
    per_instruction, per_operator = proc.stdout.split("per instruction:")[1].split(
        "per operator type:")
    rows = [line for line in per_instruction.splitlines() if line.startswith("#")]
    assert [row.split()[0] for row in rows] == [f"#{i}" for i in range(len(debug))]
    for row, entry in zip(rows, debug):
        assert row.split()[1] == entry["op"] and f" {RUNS} " in row
        if entry.get("module"):
            assert entry["module"] in row and entry["source"] in row
    # module paths reach down to the layer (examples/nanogpt/model.py names blocks h.<i>)
    assert any(d.get("module") == "h.0.attn.c_attn" for d in debug)
    table = per_operator.strip().split("\n\n")[0].splitlines()[1:]
    operators = {line.split()[0] for line in table}
    assert operators == {d["op"] for d in debug}
    width, height = check_png(png)
    assert width >= 400 and height >= 200


def test_intermediates_match_eager(built, debug, tmp_path):
    dump = str(tmp_path / "dump")
    subprocess.run([RUNNER, PROGRAM, "--check", "--atol", "1e-4", "--rtol", "1e-4",
                    "--dump-intermediates", dump], check=True, capture_output=True)
    proc = inspector(PROGRAM, "--dump-dir", dump, "--manifest", "manifests/models/gpt_tiny.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "every compared instruction is within relative error" in proc.stdout
    compared = re.findall(r"^\s*(\d+) .* \d\.\d\de[+-]\d\d  +\d\.\d\de[+-]\d\d ",
                          proc.stdout, re.MULTILINE)
    assert compared == [str(d["index"]) for d in debug]  # every instruction has its errors


def test_bad_inputs_get_one_clear_error(built, tmp_path):
    not_trace = tmp_path / "other.json"
    not_trace.write_text('{"traceEvents": []}')
    proc = inspector(PROGRAM, "--trace", str(not_trace))
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert str(not_trace) in proc.stderr and "runner PROGRAM --trace FILE" in proc.stderr
    proc = subprocess.run([RUNNER, PROGRAM, "--trace", str(tmp_path / "no" / "t.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "t.json: cannot write the trace" in proc.stderr
    proc = subprocess.run([RUNNER, PROGRAM, "--dump-intermediates", str(not_trace)],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "is not a directory" in proc.stderr
