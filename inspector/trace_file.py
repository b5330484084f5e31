"""A runner trace (Chrome trace JSON written by `runner --trace FILE`) -> Timings.

Keeps what the tables need: per instruction, its operator and its time in each run;
per run, the method's time; the load and the memory plan.
"""

import json
from dataclasses import dataclass

from codegen.errors import ManifestError

FORMAT = "tailor-trace"
_HOW = "write one with a trace=1 runner: runner PROGRAM --trace FILE (scons ... trace=1)"


@dataclass(frozen=True)
class Timings:
    program: str
    method: str
    num_instructions: int
    execute_us: tuple          # per run, the method's time
    instruction_us: dict       # instruction index -> (time in run 0, run 1, ...)
    names: dict                # instruction index -> operator or backend name
    load_us: float
    memory_plan: dict          # arenas, arena_bytes, method_allocator_bytes, planned_bytes

    @property
    def runs(self) -> int:
        return len(self.execute_us)


def parse_trace(text: str, path: str) -> Timings:
    """Trace file text -> Timings; ManifestError naming `path` when it is not a trace."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ManifestError(f"{path}: not JSON ({e}); {_HOW}") from None
    other = data.get("otherData") if isinstance(data, dict) else None
    if not isinstance(other, dict) or other.get("format") != FORMAT:
        raise ManifestError(f"{path}: not a Tailor trace (otherData.format is not "
                            f"'{FORMAT}'); {_HOW}")
    events = data.get("traceEvents")
    if not isinstance(events, list):
        raise ManifestError(f"{path}: has no traceEvents list; {_HOW}")
    execute, times, names, load = {}, {}, {}, 0.0
    for event in events:
        if not isinstance(event, dict) or event.get("ph") != "X":
            continue
        args = event.get("args") or {}
        try:
            duration = float(event["dur"])
            category = event["cat"]
            if category == "execute":
                execute[int(args["run"])] = duration
            elif category in ("kernel", "delegate"):
                index = int(args["instruction"])
                times.setdefault(index, {})[int(args["run"])] = duration
                names[index] = str(event["name"])
            elif category == "load":
                load = duration
        except (KeyError, TypeError, ValueError) as e:
            raise ManifestError(f"{path}: event {event!r} lacks {e}; the file is damaged, "
                                f"write it again ({_HOW})") from None
    runs = sorted(execute)
    if runs != list(range(len(runs))) or not runs:
        raise ManifestError(f"{path}: holds no complete run; {_HOW}")
    # A run that stopped early (a failed kernel) leaves instructions without a time.
    instruction_us = {i: tuple(t.get(r, 0.0) for r in runs) for i, t in sorted(times.items())}
    return Timings(str(other.get("program", "")), str(other.get("method", "")),
                   int(other.get("instructions", len(times))),
                   tuple(execute[r] for r in runs), instruction_us, names, load,
                   dict(other.get("memory_plan") or {}))


def read_trace(path: str) -> Timings:
    with open(path) as f:
        return parse_trace(f.read(), path)
