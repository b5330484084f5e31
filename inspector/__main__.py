"""python -m inspector: timing tables and chart from a trace, errors from a dump.

    python -m inspector PROGRAM.pte --trace TRACE.json [--png CHART.png] [--summary]
    python -m inspector PROGRAM.pte --dump-dir DIR --manifest MODEL.yaml
                        [--input X.npy ...] [--threshold 1e-4]

PROGRAM's debug record (<stem>.debug.json) names each instruction's node, module and
source line. Exit status: 0 ok, 1 bad input or an instruction over the threshold.
"""

import argparse
import glob
import os
import sys

from codegen.errors import ManifestError, run_cli
from program.debug_record import debug_path_for, read_debug_record
from inspector import profile_tables
from inspector.trace_file import read_trace


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m inspector", description=__doc__.split("\n")[0])
    p.add_argument("program", help="the .pte the trace or dump comes from")
    p.add_argument("--trace", help="a trace written by runner --trace FILE (trace=1 build)")
    p.add_argument("--png", help="with --trace: write a chart of the time per operator "
                                 "type and per module here")
    p.add_argument("--summary", action="store_true",
                   help="with --trace: print only the per-operator table")
    p.add_argument("--dump-dir", help="intermediate outputs written by runner "
                                      "--dump-intermediates DIR")
    p.add_argument("--manifest", help="with --dump-dir: the model manifest, to run its graph "
                                      "in eager torch")
    p.add_argument("--input", nargs="+", default=None,
                   help="with --dump-dir: the inputs the runner used (default: "
                        "<stem>_io/input_<i>.npy, what runner --check uses)")
    p.add_argument("--threshold", type=float, default=1e-4,
                   help="relative error (max abs / max |eager|) past which an instruction "
                        "is pointed out (default 1e-4)")
    args = p.parse_args(argv)
    if not args.trace and not args.dump_dir:
        p.error("give --trace FILE, --dump-dir DIR, or both")
    if args.dump_dir and not args.manifest:
        p.error("--dump-dir needs --manifest MODEL.yaml (the model to run in eager torch)")
    return args


def load_debug(program: str, method: str) -> list[dict]:
    """The debug record's instructions of `method` ("" for the first)."""
    record = read_debug_record(program)
    if record is None:
        raise ManifestError(f"{debug_path_for(program)}: no debug record beside the program; "
                            "export it again (scons model=... or program.save()) to write one")
    methods = record.get("methods") or []
    for m in methods:
        if not method or m.get("name") == method:
            return [e if isinstance(e, dict) else {} for e in m.get("instructions") or []]
    raise ManifestError(f"{debug_path_for(program)}: has no method '{method}'; is the trace "
                        "from another program?")


def report_timings(args) -> None:
    timings = read_trace(args.trace)
    debug = load_debug(args.program, timings.method)
    if timings.num_instructions != len(debug):
        raise ManifestError(f"{args.trace}: the trace has {timings.num_instructions} "
                            f"instructions, {debug_path_for(args.program)} "
                            f"{len(debug)}; trace the program this record belongs to")
    operators = profile_tables.operator_rows(timings, debug)
    print(profile_tables.format_header(timings))
    if not args.summary:
        print("\nper instruction:")
        print(profile_tables.format_rows(profile_tables.instruction_rows(timings, debug),
                                         "instruction", "runs"))
    print("\nper operator type:")
    print(profile_tables.format_rows(operators, "operator", "count"))
    if args.png:
        from inspector.chart import render_png
        render_png(f"{os.path.basename(args.program)}: {timings.runs} run(s)", operators,
                   timings.runs, profile_tables.module_times(timings, debug), args.png)
        print(f"\nwrote {args.png}")


def report_errors(args) -> bool:
    """Prints the error table; True when every instruction is within the threshold."""
    import numpy as np

    from exporter.io_files import io_dir_for
    from inspector import numerics

    debug = load_debug(args.program, "")
    inputs = args.input or sorted(glob.glob(os.path.join(io_dir_for(args.program),
                                                         "input_*.npy")))
    if not inputs:
        raise ManifestError(f"{io_dir_for(args.program)}: no input_<i>.npy; give the inputs "
                            "the runner used with --input")
    eager = numerics.eager_node_values(args.manifest, [np.load(p) for p in inputs])
    rows = numerics.compare_dump(debug, args.dump_dir, eager)
    print(f"{args.program}: {len(rows)} instructions against eager torch "
          f"(inputs {', '.join(inputs)})")
    print(numerics.format_error_rows(rows, args.threshold))
    print(numerics.verdict(rows, args.threshold))
    return numerics.first_over(rows, args.threshold) is None


def main(argv=None) -> int:
    args = parse_args(argv)
    ok = True
    if args.trace:
        report_timings(args)
    if args.dump_dir:
        if args.trace:
            print()
        ok = report_errors(args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(run_cli(main))
