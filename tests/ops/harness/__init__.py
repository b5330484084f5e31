"""The op test harness: OpCase (tests/ops/cases/) -> program, runtime build, run, compare.

For each (case, dtype): a tiny module that calls the op once per item of `shapes` is
exported with exporter.export to build/test-ops/cases/<key>/ together with its inputs,
the eager outputs and the program's op list (codegen.oplist), cached by a hash of the
case, torch's version, the program format's version and the exporter's sources. What
the cache lacks is exported in batches on every core (export_many: the same programs,
with torch's per-call decomposition setup paid once per batch). Per kernel library, the resolver
(codegen.resolve) decides which programs the library can run; those are built into ONE
runtime through the real flow (`scons programs=... libraries=<lib>,prim`), and each is
run with `bin/runner` on a 64 KB thread stack (--stack) and compared with torch: exact
for integer and Bool outputs, within a per-dtype tolerance for floating ones. TAILOR_SANITIZE=address builds and runs
those runtimes under ASan + UBSan (`scons sanitize=address`); a sanitizer report fails
the case.

XNNPACK is one more "library": each case is exported again with its partitioner
(build/test-ops/cases/<case>_<dtype>_xnnpack_<hash>/, the hash covering the backend's
Python sources too), and the cases it delegates whole (every call but the permutes of
permuted inputs) are built into ONE host-xnnpack runtime (`scons programs=...
target=host-xnnpack`); the others are skipped with the partitioner's reasons. A case
with an op the partitioner does not know or a dtype it refuses skips without that export.

The optimized and quantized libraries run again at each lower CPU level of this machine
("optimized@avx2": TL_CPU_LEVEL caps the same runtime), and built for linux-aarch64
("optimized@aarch64": NEON kernels, every run under qemu-aarch64).

Its parts: libraries.py (which libraries, CPU levels, targets, sanitizer settings),
program.py (a case as a torch module and its inputs), export.py (the export cache),
selection.py (which programs a library runs), build.py (one runtime per library) and
compare.py (run and compare with torch). Everything is importable from here, as before.
"""

from tests.conftest import REPO, SCONS
from tests.ops.cases import CASES, Arg, Computed, Constant, Given, In, OpCase, Tensors
from tests.ops.harness.libraries import (BUILD, CROSS, CROSS_STACK, CROSS_TARGET,
                                         HOST_TARGET, INPUT_PERMUTE, KERNELS_DIR, LEVELED,
                                         SANITIZE, SANITIZER_ENV, SANITIZER_EXIT, STACK,
                                         UNCHECKED_DTYPES, XNNPACK, XNNPACK_TARGET,
                                         _cross_target, _missing, _xnnpack_target,
                                         cpu_flags, cpu_levels, fallbacks, libraries,
                                         load_libraries, split_library, unavailable,
                                         vector_levels_in)
from tests.ops.harness.program import (EDGE_FLOATS, SHIFTS, SPECIAL_FLOATS, _as_in,
                                       _inputs_of, _make_value, _module, _permuted_inputs,
                                       _resolve_arg, _special_ints, _tensor_specs,
                                       _torch_dtype, prepare)
from tests.ops.harness.export import (BATCH, Exported, _case_dir, _export_in_worker,
                                      _export_to, _exporter_fingerprint, _key, _save_npy,
                                      _sources_digest, _xnnpack_fingerprint, case_params,
                                      export_case, export_many, export_missing, partitioner,
                                      save)
from tests.ops.harness.selection import (Selection, _dtypes_refused, assert_delegated,
                                         dtype_probe, select_for_xnnpack, select_programs,
                                         unsupported_reason, xnnpack_ops,
                                         xnnpack_skip_reason)
from tests.ops.harness.build import (LibraryBuild, build_library, build_programs,
                                     runner_path, scons)
from tests.ops.harness.compare import (MOMENTS_FROM, SIGMAS, TOLERANCE, _NUMPY_FLOATS,
                                       _within, check_drawn, run_and_compare, run_outputs)
