"""Every case of tests/ops/cases.py, in every dtype, against every kernel library.

One test per (library, case, dtype). A combination the library cannot run (the resolver
finds no kernel for one of the program's ops and dtypes) is skipped with the reason.
"""

import collections
import os

import pytest

from codegen.kernel_manifest import load_library
from tests.ops import harness
from tests.ops.cases import CASES

PARAMS = [pytest.param(library, case, dtype, id=f"{library}/{case.id}/{dtype}")
          for library in harness.libraries() for case, dtype in harness.case_params()]


@pytest.fixture(scope="session")
def exported():
    """(case id, dtype) -> Exported, every case exported (or taken from the cache)."""
    fingerprint = harness._exporter_fingerprint()
    return {(case.id, dtype): harness.export_case(case, dtype, fingerprint)
            for case, dtype in harness.case_params()}


_builds = {}


@pytest.fixture
def built(exported):
    """library name -> LibraryBuild, built on first use (one scons run per library)."""
    def get(library):
        if library not in _builds:
            try:
                _builds[library] = harness.build_library(library, list(exported.values()))
            except AssertionError as error:  # fail every test of the library, build once
                _builds[library] = error
        if isinstance(_builds[library], AssertionError):
            pytest.fail(f"the {library} build failed: {_builds[library]}", pytrace=False)
        return _builds[library]
    return get


@pytest.mark.parametrize("library,case,dtype", PARAMS)
def test_op(library, case, dtype, exported, built, tmp_path):
    build = built(library)
    reason = build.skipped.get((case.id, dtype))
    if reason:
        pytest.skip(reason)
    harness.run_and_compare(build, exported[(case.id, dtype)], str(tmp_path))


def test_case_ids_are_unique():
    counts = collections.Counter(case.id for case in CASES)
    assert [i for i, n in counts.items() if n > 1] == []


def test_every_portable_kernel_has_a_case(exported):
    library = load_library(os.path.join(harness.KERNELS_DIR, "portable.yaml"))
    covered = {op for e in exported.values() for op in e.ops}
    missing = [op for op in library.ops() if op not in covered]
    assert not missing, f"no case in tests/ops/cases.py exercises: {', '.join(missing)}"
