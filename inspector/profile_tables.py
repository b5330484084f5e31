"""Timings + debug record -> a row per instruction and a row per operator type, as text.

Statistics are over calls: an instruction's row over its runs, an operator type's over
every call of every instruction of that type in every run. `% total` is the share of
the summed instruction time.
"""

from dataclasses import dataclass

import numpy as np

from inspector.trace_file import Timings


@dataclass(frozen=True)
class Stats:
    count: int
    p10: float
    p50: float
    p90: float
    avg: float
    total: float


def summarize(samples) -> Stats:
    """Percentiles interpolate linearly between samples (numpy's default)."""
    values = np.asarray(list(samples), dtype=np.float64)
    if values.size == 0:
        return Stats(0, 0.0, 0.0, 0.0, 0.0, 0.0)
    p10, p50, p90 = np.percentile(values, [10, 50, 90])
    return Stats(int(values.size), float(p10), float(p50), float(p90), float(values.mean()),
                 float(values.sum()))


@dataclass(frozen=True)
class Row:
    label: str          # "#12 aten::addmm.out", or an operator type
    count: int          # runs (instruction row) or instructions of the type (operator row)
    stats: Stats
    share: float        # of the total instruction time, 0..1
    shape: str          # output shape ("[1, 16, 128]")
    module: str         # "transformer.h.0.attn.c_attn"
    source: str         # "model.py:42"


def _shape(entry: dict) -> str:
    outputs = entry.get("outputs") or []
    if not outputs:
        return ""
    first = "[" + ", ".join(str(d) for d in outputs[0].get("shape", [])) + "]"
    return first + (f" +{len(outputs) - 1}" if len(outputs) > 1 else "")


def instruction_rows(timings: Timings, debug: list[dict]) -> list[Row]:
    """One row per instruction the trace timed, in program order."""
    total = sum(sum(t) for t in timings.instruction_us.values()) or 1.0
    rows = []
    for index, times in timings.instruction_us.items():
        entry = debug[index] if index < len(debug) else {}
        stats = summarize(times)
        rows.append(Row(f"#{index} {timings.names[index]}", stats.count, stats,
                        stats.total / total, _shape(entry), entry.get("module", ""),
                        entry.get("source", "")))
    return rows


def operator_rows(timings: Timings, debug: list[dict]) -> list[Row]:
    """One row per operator type, the most time first; its shape, module and source
    are those of its slowest instruction."""
    total = sum(sum(t) for t in timings.instruction_us.values()) or 1.0
    by_op: dict[str, list[int]] = {}
    for index in timings.instruction_us:
        by_op.setdefault(timings.names[index], []).append(index)
    rows = []
    for op, indices in by_op.items():
        stats = summarize(t for i in indices for t in timings.instruction_us[i])
        slowest = max(indices, key=lambda i: sum(timings.instruction_us[i]))
        entry = debug[slowest] if slowest < len(debug) else {}
        rows.append(Row(op, len(indices), stats, stats.total / total, _shape(entry),
                        entry.get("module", ""), entry.get("source", "")))
    return sorted(rows, key=lambda r: -r.stats.total)


def module_times(timings: Timings, debug: list[dict]) -> dict[str, float]:
    """Module path -> average time per run (µs), the most time first."""
    found: dict[str, float] = {}
    for index, times in timings.instruction_us.items():
        entry = debug[index] if index < len(debug) else {}
        module = entry.get("module") or "(top level)"
        found[module] = found.get(module, 0.0) + sum(times) / len(times)
    return dict(sorted(found.items(), key=lambda kv: -kv[1]))


def format_rows(rows: list[Row], first_column: str, count_column: str) -> str:
    """A fixed-width table; times in microseconds."""
    head = (first_column, count_column, "p10 us", "p50 us", "p90 us", "avg us", "% total",
            "output shape", "module", "source")
    body = [(r.label, str(r.count), f"{r.stats.p10:.2f}", f"{r.stats.p50:.2f}",
             f"{r.stats.p90:.2f}", f"{r.stats.avg:.2f}", f"{100 * r.share:.1f}", r.shape,
             r.module or "-", r.source or "-") for r in rows]
    widths = [max(len(line[c]) for line in [head] + body) for c in range(len(head))]
    numeric = range(1, 7)
    lines = []
    for line in [head] + body:
        cells = [cell.rjust(w) if c in numeric else cell.ljust(w)
                 for c, (cell, w) in enumerate(zip(line, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def format_header(timings: Timings) -> str:
    """Program, runs, method time and the coverage of the instruction times."""
    execute = summarize(timings.execute_us)
    summed = sum(sum(t) for t in timings.instruction_us.values()) / timings.runs
    plan = timings.memory_plan
    memory = (f"; memory plan {plan.get('arena_bytes', 0):,} arena bytes in "
              f"{plan.get('arenas', 0)} arena(s) + {plan.get('method_allocator_bytes', 0):,} "
              "method allocator bytes" if plan else "")
    return (f"{timings.program} method '{timings.method}': {timings.runs} run(s), "
            f"{len(timings.instruction_us)} instructions; method p50 {execute.p50:.1f} us, "
            f"avg {execute.avg:.1f} us, instructions add up to {summed:.1f} us per run; "
            f"load {timings.load_us:.1f} us{memory}")
