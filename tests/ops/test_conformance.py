"""OpInfo conformance (tests/ops/conformance/): PyTorch's samples for the operators each
kernel library declares, exported, built into one runtime per library, run and compared
with eager.

By default a bounded subset runs (conformance.SUBSET, the first conformance.LIMIT
samples of each OpInfo and dtype). TAILOR_CONFORMANCE=full runs every OpInfo and every
sample (TAILOR_CONFORMANCE=<N> caps each OpInfo and dtype at N samples) and prints the
table; docs/conformance.md has the figures.
"""

import os

import numpy as np
import pytest

from tests.ops import conformance

MODE = os.environ.get("TAILOR_CONFORMANCE", "")


def _run(library: str):
    if MODE:
        limit = None if MODE == "full" else int(MODE)
        return conformance.conformance(library, limit, subset=(), jobs=2)
    return conformance.conformance(library, jobs=2)  # exports on both cores


@pytest.mark.parametrize("library", ["portable"])
def test_every_sample_passes_or_is_refused_with_a_reason(library):
    results = _run(library)
    print("\n" + conformance.table(results))
    assert results, "no sample ran"
    bad = [r for r in results if r.outcome in ("mismatch", "error")]
    assert not bad, "\n".join(f"{r.outcome}: {r.sample.name}: {r.message}" for r in bad[:20])
    # A refusal names what stopped the sample; it never passes silently.
    assert all(r.message for r in results if r.outcome in ("refused", "not exportable"))
    if not MODE:  # the subset reaches the runtime for each of its OpInfos
        ran = {r.sample.group.opinfo for r in results if r.outcome == "pass"}
        assert ran == set(conformance.SUBSET)


def test_opinfos_reach_each_declared_op():
    from torch.testing._internal.common_methods_invocations import op_db
    names = lambda op: {conformance.opinfo_id(i) for i in conformance.opinfos_for(op, op_db)}
    assert names("aten::add.out") == {"add"}
    assert names("aten::_softmax.out") == {"softmax", "softmax/with_dtype"}  # not masked.*
    assert names("aten::permute_copy.out") == {"permute", "permute_copy"}
    assert "nn.functional.conv2d" in names("aten::convolution.out")
    assert names("aten::max_pool2d_with_indices.out") == {"nn.functional.max_pool2d"}
    assert "nn.functional.interpolate/bilinear" in names("aten::upsample_bilinear2d.vec_out")
    assert names("aten::grid_sampler_2d.out") == {"grid_sampler_2d", "nn.functional.grid_sample"}
    assert names("aten::max_pool3d_with_indices.out") == {"nn.functional.max_pool3d"}
    assert names("aten::linalg_vector_norm.out") == {"linalg.vector_norm"}


def test_groups_take_float_and_the_declared_integer_dtypes():
    groups = conformance.plan_groups("portable", only=("logical_not", "exp"))
    assert {(g.opinfo, g.dtype) for g in groups} >= {("exp", "Float"), ("exp", "Long"),
                                                    ("logical_not", "Bool")}
    assert all(g.dtype in ("Float",) + conformance.INT_DTYPES for g in groups)


@pytest.mark.parametrize("got, want, why", [
    ([1.0, np.nan], [1.0, np.nan], None),
    ([1.0, 2.0], [1.0, np.nan], "NaN at other positions"),
    ([np.nan, 2.0], [1.0, 2.0], "NaN at other positions"),
    ([np.inf, 1.0], [np.inf, 1.0], None),
    ([-np.inf, 1.0], [np.inf, 1.0], "infinities differ"),
    ([1.0, 2.00001], [1.0, 2.0], None),
    ([1.0, 2.1], [1.0, 2.0], "1 of 2 differ"),
])
def test_compare_floats(got, want, why):
    result = conformance.compare(np.array(got, np.float32), np.array(want, np.float32))
    assert (result is None) if why is None else why in result


def test_compare_sums_of_products_against_the_magnitude_of_their_terms():
    # conv_transpose3d's sample #8: an output near 0 summing terms whose magnitudes add
    # to 890 is 2.1e-4 off; 1e-5 of 890 allows 8.9e-3, and nothing more.
    got, want = np.array([2.1e-4, 5.0], np.float32), np.array([0.0, 5.0], np.float32)
    assert "1 of 2 differ" in conformance.compare(got, want)
    assert conformance.compare(got, want, terms=np.array([890.0, 5.0])) is None
    far = np.array([1e-2, 5.0], np.float32)
    assert "1 of 2 differ" in conformance.compare(far, want, terms=np.array([890.0, 5.0]))


def test_conv_transpose3d_samples_pass_within_the_sum_of_their_terms():
    """The samples (#8 and #9) whose outputs near zero sum terms up to 890: the kernel's
    direct loop and eager's GEMM + col2vol differ there by 2.1e-4, within 1e-5 of the
    terms' magnitudes; every other output is held to the usual tolerance."""
    results = conformance.conformance("portable", limit=10,
                                      subset=("nn.functional.conv_transpose3d",))
    assert len(results) == 10
    bad = [f"{r.sample.name}: {r.outcome}: {r.message}" for r in results if r.outcome != "pass"]
    assert not bad, bad
    assert all(os.path.exists(os.path.join(r.sample.dir, "terms_0.npy")) for r in results)


def test_compare_integers_exactly_and_dtypes_and_shapes():
    assert conformance.compare(np.array([1, 2]), np.array([1, 2])) is None
    assert "1 of 2 differ" in conformance.compare(np.array([1, 3]), np.array([1, 2]))
    assert "dtype int32" in conformance.compare(np.array([1], np.int32), np.array([1]))
    assert "shape (1,)" in conformance.compare(np.array([1]), np.array([[1]]))


def test_tie_order_of_topk_indices_passes_when_they_pick_eagers_values():
    """torch leaves the order of equal elements' indices open (topk's CPU kernel gives an
    order no rule predicts): other indices pass when they pick eager's values, once each."""
    source = np.array([[3, 1, 3, 2], [5, 5, 0, 5]], np.int64)
    values = np.array([[3, 3], [5, 5]], np.int64)
    assert conformance.picks_values(np.array([[2, 0], [3, 1]]), values, source)
    assert conformance.picks_values(np.array([[0, 2], [0, 1]]), values, source)
    assert not conformance.picks_values(np.array([[0, 0], [0, 1]]), values, source)  # twice
    assert not conformance.picks_values(np.array([[0, 3], [0, 1]]), values, source)  # a 2
    floats = np.array([[np.nan, 1.0, np.nan]])
    assert conformance.picks_values(np.array([[2, 0]]), np.array([[np.nan, np.nan]]), floats)
    assert not conformance.picks_values(np.array([[1, 0]]), np.array([[np.nan, np.nan]]),
                                        floats)
