"""A MetricResult is usable as its mean wherever a float is, and keeps its conventions."""

from __future__ import annotations

import math
import numbers
import pickle

import numpy as np
import pytest

import skrank
from skrank.stats import compare_many, paired_comparison


@pytest.fixture
def r():
    return skrank.ndcg([2, 1, 0, 1, 0, 1], [0.1, 0.5, 0.5, 0.9, 0.2, 0.3], [7, 7, 7, 8, 8, 8],
                       k=3, gain="linear")


def test_arithmetic_and_comparisons_use_the_value(r):
    v = r.value
    assert r + 1 == v + 1 and 1 + r == 1 + v
    assert r - 1 == v - 1 and 1 - r == 1 - v
    assert r * 2 == v * 2 and 2 / r == 2 / v and r / 2 == v / 2
    assert r ** 2 == v**2 and r // 0.1 == v // 0.1 and r % 0.1 == v % 0.1
    assert (r > 0.5) == (v > 0.5) and (r < 1) and (r >= v) and (r <= v)
    assert r == v and r != v + 1 and hash(r) == hash(v)
    assert -r == -v and abs(r) == v and +r == v
    assert r + r == 2 * v and sum([r, r]) == 2 * v
    assert isinstance(r + 1, float)  # arithmetic gives plain floats


def test_conversions_and_formatting(r):
    v = r.value
    assert float(r) == v and int(r) == int(v) and complex(r) == complex(v)
    assert round(r) == round(v) and round(r, 3) == round(v, 3)
    assert math.floor(r) == math.floor(v) and math.ceil(r) == math.ceil(v)
    assert math.trunc(r) == math.trunc(v)
    assert f"{r:.3f}" == f"{v:.3f}" and format(r, ".1%") == format(v, ".1%")
    assert f"{r}" == str(r) and str(r).startswith("NDCG@3 = ")  # conventions kept
    assert math.isclose(r, v) and bool(r) is bool(v)
    assert isinstance(r, numbers.Real)


def test_numpy(r):
    v = r.value
    assert np.asarray(r).shape == () and float(np.asarray(r)) == v
    assert np.mean([r, r]) == v and np.sqrt(r) == np.sqrt(v)
    assert np.float64(1.0) + r == 1.0 + v
    np.testing.assert_array_equal(np.array([r, r]), [v, v])


def test_the_result_keeps_its_conventions_and_per_query_values(r):
    assert r.conventions.gain == "linear"
    assert r.per_query.shape == (2,)
    restored = pickle.loads(pickle.dumps(r))
    assert restored == r and str(restored) == str(r)


def test_stats_take_results_directly():
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(30), 5)
    y = rng.integers(0, 3, 150)
    y[:5] = 0  # query 0 has no relevant document: excluded by both
    scores = {name: y * w + rng.normal(size=150) for name, w in (("a", 0.0), ("b", 0.5),
                                                                   ("c", 1.0))}
    res = {k: skrank.ndcg(y, s, q, k=5) for k, s in scores.items()}
    kw = dict(rng=0, n_resamples=300, n_permutations=300)
    got = paired_comparison(res["c"], res["a"], **kw)
    keep = ~np.isnan(res["a"].per_query)
    want = paired_comparison(res["c"].per_query[keep], res["a"].per_query[keep], metric="NDCG@5",
                             qids_a=res["c"].qids[keep], **kw)
    assert got.n == 29 and got.metric == "NDCG@5"
    assert got.mean_difference == want.mean_difference
    assert got.randomization.pvalue == want.randomization.pvalue
    table = compare_many(res, baseline="a", **kw)
    assert table["c"].comparison.mean_difference == got.mean_difference
    # shuffled ids: matched by id
    perm = rng.permutation(30)
    arr = paired_comparison(res["c"], res["a"].per_query[perm], qids_b=res["a"].qids[perm],
                            nan_policy="omit", **kw)  # an array's NaN follows nan_policy
    assert arr.n == 29 and arr.mean_difference == got.mean_difference


def test_results_of_different_metrics_or_conventions_refuse():
    y, s, q = [1, 0, 1, 0], [0.3, 0.2, 0.5, 0.1], [1, 1, 2, 2]
    with pytest.raises(skrank.InputError, match=r"different metrics \(NDCG@3 and RR\)"):
        paired_comparison(skrank.ndcg(y, s, q, k=3), skrank.reciprocal_rank(y, s, q))
    with pytest.raises(skrank.InputError, match=r"different conventions \(gain=linear against "
                                                r"gain=exp\)"):
        paired_comparison(skrank.ndcg(y, s, q, k=3, gain="linear"), skrank.ndcg(y, s, q, k=3))
