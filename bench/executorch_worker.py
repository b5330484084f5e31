"""ExecuTorch's side of bench/vision.py, run by it in the ExecuTorch venv
(bench/requirements-executorch.txt): exports each model with the XNNPACK delegate, then
times one on request, so the caller interleaves ExecuTorch with its other engines.

    ET_PYTHON bench/executorch_worker.py THREADS FOLDER NAME=MANIFEST[:int8] ...

Each NAME=MANIFEST names a model manifest (its factory's module and example input, as the
other engines use); `:int8` quantizes it first with ExecuTorch's XNNPACKQuantizer (PT2E:
int8 activations with static scales calibrated on the example input, int8 per-channel
weights). The program is FOLDER/NAME.pte, exported when it is not there yet. The
threadpool is set to THREADS before any program loads: the XNNPACK delegate keeps the
pool it was loaded with, and resetting the pool afterwards crashes its next forward (so
one worker per thread count). When every program is loaded it prints `ready`; then each
line `NAME RUNS` on stdin gets one line back: the fastest of RUNS forward calls after one
warm-up, in ms. An empty line or EOF ends it.
"""

import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def quantized(module, inputs):
    """`module` after PT2E quantization for XNNPACK (static int8, per-channel weights)."""
    import torch
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=True))
    graph = torch.export.export(module, inputs).module()
    prepared = prepare_pt2e(graph, quantizer)
    prepared(*inputs)  # calibration
    return convert_pt2e(prepared)


def lower(manifest_path: str, int8: bool, pte: str):
    """(the loaded ExecuTorch program, its inputs as a list); exports it to `pte` first
    when that file is not there."""
    import torch
    from executorch.extension.pybindings.portable_lib import _load_for_executorch

    from exporter.manifest import load_manifest, load_model
    module, inputs = load_model(load_manifest(manifest_path))
    if not os.path.exists(pte):
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
            XnnpackPartitioner)
        from executorch.exir import to_edge_transform_and_lower
        module = module.eval()
        with torch.no_grad():
            if int8:
                module = quantized(module, inputs)
            program = to_edge_transform_and_lower(
                torch.export.export(module, inputs),
                partitioner=[XnnpackPartitioner()]).to_executorch()
        with open(pte + ".tmp", "wb") as f:
            f.write(program.buffer)
        os.replace(pte + ".tmp", pte)
    return _load_for_executorch(pte), list(inputs)


def fastest_ms(loaded, inputs, runs: int) -> float:
    loaded.forward(inputs)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        loaded.forward(inputs)
        times.append((time.perf_counter() - start) * 1e3)
    return min(times)


def main(argv: list[str]) -> int:
    from executorch.extension.pybindings import portable_lib
    portable_lib._unsafe_reset_threadpool(int(argv[0]))
    os.makedirs(argv[1], exist_ok=True)
    programs = {}
    for spec in argv[2:]:
        name, _, path = spec.partition("=")
        path, _, flavour = path.partition(":")
        programs[name] = lower(path, flavour == "int8", os.path.join(argv[1], name + ".pte"))
    print("ready", flush=True)
    for line in sys.stdin:
        if not line.strip():
            break
        name, runs = line.split()
        print(f"{fastest_ms(*programs[name], int(runs)):.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
