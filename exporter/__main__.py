"""Model manifest -> .pte program and the runner's check files.

    python -m exporter --manifest manifests/models/mlp.yaml --out build/host/mlp/mlp.pte
    python -m exporter --manifest manifests/models/mlp.yaml --print-ops
    python -m exporter --manifest manifests/models/mlp.yaml --backend xnnpack --delegation-report

Writes OUT (the program) and OUT-stem_io/input_<i>.npy, expected_<i>.npy (eager torch
outputs on the example inputs), and with --deps-out the Python files the export imported
(exporter/deps.py), all atomically. A user error (a ManifestError, such as an ExportError) is
printed without a traceback and exits 1, and so is a full disk.
"""

import argparse
import copy
import errno
import os
import sys
from collections import Counter

from codegen.errors import ManifestError
from exporter.errors import ExportError


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m exporter", description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", required=True, help="manifests/models/<name>.yaml")
    parser.add_argument("--out", help="the .pte to write (check files go to <stem>_io/)")
    parser.add_argument("--model-name",
                        help="name shown in messages (default: the stem of --out, else of "
                             "the manifest)")
    parser.add_argument("--print-ops", action="store_true",
                        help="list the program's operators with their kernel keys")
    parser.add_argument("--backend", default="",
                        help="delegate what this backend can run (xnnpack); the manifest's "
                             "`backend: none` turns it off for the model")
    parser.add_argument("--kernel-libraries", default="",
                        help="the runtime's kernel libraries, comma-separated (beside "
                             "`optimized`, XNNPACK takes only groups with a convolution or "
                             "pooling)")
    parser.add_argument("--deps-out",
                        help="write the Python source files the export imported here, one "
                             "a line (the build re-exports when one changes)")
    parser.add_argument("--delegation-report", action="store_true",
                        help="print the delegation report: per-op table and the graph")
    args = parser.parse_args(argv)
    if not args.out and not args.print_ops and not args.delegation_report:
        parser.error("give --out PATH.pte, --print-ops, --delegation-report, or several")
    return args


def format_ops(program) -> list[str]:
    """One line per (operator, kernel key) with its number of calls."""
    calls = Counter((c.op, c.key) for c in program.kernel_calls())
    width = max((len(op) for op, _ in calls), default=0)
    return [f"{op:<{width}}  {key or '-'}  x{n}" for (op, key), n in calls.items()]


def run(args: argparse.Namespace) -> int:
    from exporter.manifest import dynamic_shapes, load_manifest, load_model, make_partitioner

    manifest = load_manifest(args.manifest)       # fails fast, before torch is imported
    name = args.model_name or (os.path.splitext(os.path.basename(args.out))[0]
                               if args.out else manifest.name)
    print(f"exporting {name} ({manifest.factory})", flush=True)

    import logging

    import torch
    from torch.utils._pytree import tree_leaves

    # A model torch.export cannot trace makes torch log warnings and graph dumps before
    # it raises; the one message below says what and where.
    torch._logging.set_logs(all=logging.ERROR)

    from exporter.export import export
    from exporter.io_files import io_dir_for, write_io

    from exporter.node_source import describe_exception

    module, inputs = load_model(manifest)
    module.eval()
    quantized = None
    if manifest.quantize is not None:
        # The self-check compares with the quantized model in eager; the log gives the
        # error against the float model.
        from exporter.quantize.apply import quantize_for_export
        module, quantized = quantize_for_export(module, inputs, manifest.quantize)
    try:
        # On a copy: a model that writes buffers (a KV cache) must export its initial state.
        with torch.no_grad():
            expected = tree_leaves(copy.deepcopy(module)(*inputs))
    except Exception as e:  # the user's model fails on its own example inputs
        raise ExportError(f"{manifest.path}: factory '{manifest.factory}': the model raised "
                          f"{describe_exception(e)} on its example inputs") from None
    backend = "none" if manifest.backend == "none" else (manifest.backend or args.backend)
    try:
        program = export(module, inputs, dynamic_shapes(manifest, inputs),
                         partitioner=make_partitioner(
                             backend, tuple(filter(None, args.kernel_libraries.split(",")))),
                         constant_methods=dict(manifest.constant_methods))
    except ExportError as e:
        raise ExportError(f"{manifest.path}: model {name}: {e}") from None
    plan = program.plan
    print(f"  torch.export: {program.node_count} nodes; {program.simplified.summary()}")
    if quantized is not None:
        print(f"  {quantized.summary()}")
    report = program.delegation
    if report is not None:
        print(f"  delegated to {report.backend}: {len(report.groups)} subgraphs, "
              f"{report.delegated_nodes} nodes; {len(report.outside)} nodes left to kernels")
    print(f"  operators: {', '.join(program.operators) or '(none)'}")
    print(f"  memory plan: 1 arena, {plan.arena_size:,} bytes "
          f"(no reuse: {plan.unshared_size:,})")
    if args.print_ops:
        for line in format_ops(program):
            print(f"    {line}")
    if args.delegation_report:
        if report is None:
            print("  no delegation: give --backend xnnpack or `backend: xnnpack` in the manifest")
        else:
            print("".join("  " + line + "\n" for line in report.format().splitlines()), end="")
    if args.out:
        size = program.save(args.out)
        print(f"  wrote {args.out} ({size:,} bytes, constants {len(program.segment):,} bytes)")
        io_dir = io_dir_for(args.out)
        write_io(io_dir, list(inputs), expected, program.drawn_outputs)
        print(f"  wrote {io_dir}/ ({len(inputs)} inputs, {len(expected)} expected outputs; "
              f"tolerance atol {manifest.tolerance.atol:g}, rtol {manifest.tolerance.rtol:g})")
    if args.deps_out:
        from exporter.deps import imported_sources, write_deps
        write_deps(args.deps_out, imported_sources())
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return run(args)
    except ManifestError as e:  # an ExportError too
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
        print(f"error: {e.filename}: {e.strerror} (the disk is full)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
