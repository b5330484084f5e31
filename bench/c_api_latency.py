"""What running a program from Python through the C API costs, against the runner.

    .venv/bin/python bench/c_api_latency.py [--write]

Builds the MLP and the tiny GPT with lib=shared, then times per model: one
tailor.Runtime run (ctypes: set inputs, execute, copy outputs), the runner's own timing
of execute alone (--repeat), and one runner process (start, load, run, write .npy);
prints a table of medians and the stripped sizes of libtailor.so and the runner.
--write puts them into BENCHMARKS.md.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

import tailor  # noqa: E402
from bench.benchmarks_md import write_section  # noqa: E402
from bench.common import run_runner, scons, stripped_size  # noqa: E402
from codegen.build_layout import output_dir, tree  # noqa: E402

BUILD = tree("bench-c-api")
MODELS = ("mlp", "gpt_tiny")
RUNS = 200
PROCESSES = 20


def build(model: str) -> str:
    scons("model=" + model, "lib=shared", build_dir=BUILD)
    return os.path.join(REPO, output_dir([model], build_dir=BUILD, lib="shared"))


def time_model(out: str, model: str) -> dict:
    program = os.path.join(out, model + ".pte")
    input_path = os.path.join(out, model + "_io", "input_0.npy")
    x = np.load(input_path)
    loaded = tailor.Runtime(os.path.join(out, "lib", "libtailor.so")).load(program)
    for _ in range(20):
        loaded.run(x)
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        loaded.run(x)
        samples.append(time.perf_counter() - start)
    runner = os.path.join(out, "bin", "runner")
    execute_ms = run_runner(runner, program, "--input", input_path, repeat=RUNS,
                            warmup=0)["median_ms"]
    processes = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(PROCESSES):
            start = time.perf_counter()
            subprocess.run([runner, program, "--input", input_path,
                            "--output", os.path.join(tmp, "y.npy")], check=True,
                           capture_output=True)
            processes.append(time.perf_counter() - start)
    return {"runtime_us": statistics.median(samples) * 1e6, "execute_us": execute_ms * 1e3,
            "process_us": statistics.median(processes) * 1e6,
            "library": stripped_size(os.path.join(out, "lib", "libtailor.so")),
            "runner": stripped_size(runner)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    args = parser.parse_args()
    rows = {model: time_model(build(model), model) for model in MODELS}
    lines = ["| model | tailor.Runtime run, us | execute alone (runner --repeat), us | "
             "runner process, us | libtailor.so, bytes | runner, bytes |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for model, r in rows.items():
        lines.append(f"| {model} | {r['runtime_us']:.1f} | {r['execute_us']:.1f} | "
                     f"{r['process_us']:,.0f} | {r['library']:,} | {r['runner']:,} |")
    table = "\n".join(lines)
    print(table)
    if args.write:
        write_section("C API from Python", "Per call of a program through tailor.Runtime "
                      "(ctypes over the C API of a lib=shared build), against the runner "
                      "timing execute alone and a runner process per run; medians of "
                      f"{RUNS} calls and {PROCESSES} processes, example inputs, 1 thread; "
                      "sizes stripped. Command:\n\n    .venv/bin/python bench/c_api_latency.py "
                      "--write\n\n" + table + "\n\nThe difference between the first two "
                      "columns is what Python, ctypes and the copies in and out cost per "
                      "call. Measured on the shared 2-core machine (load average "
                      f"{os.getloadavg()[0]:.1f}): read the rows against each other.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
