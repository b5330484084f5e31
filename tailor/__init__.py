"""Tailor as a Python package: export models, run built runtimes, inspect programs.

    import tailor
    program = tailor.export(module, (x,))          # exporter.export.export
    program.save("m.pte")
    runtime = tailor.Runtime("build/host-shared/m/lib/libtailor.so")   # scons ... lib=shared
    outputs = runtime.load("m.pte").run(x.numpy())  # a list of numpy arrays

`tailor.export` imports torch on first use, so running programs needs only numpy.
The console command `tailor` (tailor/cli.py) runs the Python stages.
"""

from tailor.runtime import Method, Program, Runtime, TailorError, ValueSpec

__all__ = ["export", "Runtime", "Program", "Method", "ValueSpec", "TailorError"]


def export(*args, **kwargs):
    """exporter.export.export(module, example_inputs, dynamic_shapes=None, *, name=,
    target=, profile=, partitioner=, ...): a Program to .save(path)."""
    from exporter.export import export as export_program  # torch: only when exporting
    return export_program(*args, **kwargs)
