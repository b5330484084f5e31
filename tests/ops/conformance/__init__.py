"""OpInfo conformance: PyTorch's own samples for every operator a kernel library declares
-> programs, one runtime per library, runs, comparison with eager (issue 19).

For each operator of manifests/kernels/<library>.yaml, the OpInfos of
torch.testing._internal.common_methods_invocations.op_db that reach it (opinfos_for):
their samples in Float, and in each integer dtype and Bool the OpInfo supports and the
library's kernels for the operator declare. Each sample becomes a module calling the
OpInfo's op on the sample's tensors (its other arguments are constants of the module),
exported to build/conformance/samples/<key>/ with its inputs and eager's outputs, cached
by a hash of the sample and the exporter's sources (as tests/ops/harness/ caches cases).

A sample ends in exactly one of:
  pass            the runner's outputs match eager: same dtype and shape (all an output of
                  random operators or empty can match: exporter/drawn_outputs.py), NaN where eager
                  has NaN, integers and Bool exactly, floats within TOLERANCE (of the sum of
                  the terms' magnitudes for the SUMMED OpInfos);
  mismatch        the runner ran it and its numbers, dtype or shape differ;
  error           the runner failed while executing, crashed or hung, or Tailor's exporter
                  failed with anything but an ExportError: a bug;
  refused         stopped before running with a message naming the limitation: the
                  exporter's ExportError, the resolver finding no kernel for one of the
                  program's (op, dtypes) in the library (harness.unsupported_reason), or the
                  runtime refusing the program at load;
  not exportable  torch.export itself does not take the sample (counted apart).

The programs the library can run are built into ONE runtime through the real flow, as the
op harness does (harness.build_programs: scons programs=@<list> libraries=<lib>,...), and
each runs with bin/runner.

CLI: python -m tests.ops.conformance [--library portable] [--all | --limit N]
         [--ops add,cat] [--jobs 2] [--failures N] [--markdown]
     prints the table (op, OpInfo, samples, pass, mismatch, error, refused, not
     exportable); the default is the bounded subset the tests run (SUBSET, LIMIT samples).

Its parts: samples.py (planning and export), run.py (build, run, compare) and report.py
(the table and the CLI, also run by __main__.py). Everything is importable from here.
"""

from tests.ops import harness
from tests.ops.conformance.samples import (BUILD, EXTRA_OPINFOS, GROUPS_PER_JOB, INT_DTYPES,
                                           LIMIT, SAMPLE_FORMAT, SUBSET, SUMMED,
                                           _OTHER_PREFIXES, Group, Sample,
                                           _decompose_sample, _digest, _export_groups_job,
                                           _first_line, _names, _opinfo, _save_sample,
                                           _torch, _trace_sample, export_all, export_groups,
                                           harness_name, make_module, opinfo_id,
                                           opinfos_for, plan_groups, samples_of)
from tests.ops.conformance.run import (OUTCOMES, TIE_ORDER_OPEN, TOLERANCE, Result, Runtime,
                                       _resolver_refusal, build_runtime, compare,
                                       conformance, picks_values, run_all, run_sample)
from tests.ops.conformance.report import failures, main, table
