"""``tie_interval`` is the true range over all tied orders: the two ordering rules where the
metric never falls when a more relevant document moves up, and otherwise (AP@k over the
relevant found, DCG/NDCG under a gain table that falls) its own minimum and maximum.

Expected values are computed here by brute force: every order of the tied documents,
evaluated with ``ties="input"`` on the permuted rows (issue 13).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import skrank

MONOTONE = ["ndcg@3", "dcg@3", "ap", "ap@3", "p@2", "r@2", "hit@2", "rr", "err@3"]


def all_tied_orders(y, s):
    """Each order of the rows that keeps scores descending: ties in every order."""
    groups = [np.flatnonzero(s == v).tolist() for v in sorted(set(s.tolist()), reverse=True)]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield np.array([i for p in perms for i in p])


def brute_range(y, s, metric, **conv):
    values = [skrank.evaluate(y[o], s[o], np.zeros(len(o)), metrics=[metric], ties="input",
                              **conv)[metric].value for o in all_tied_orders(y, s)]
    return min(values), max(values)


def test_issue_13_example_is_not_printed_upside_down():
    # labels [1, 0, 1, 0], scores [4, 3, 2, 2], AP@3 over the relevant found in the top 3:
    # worst label first: 1 / 1 = 1.0; best label first: (1 + 2/3) / 2 = 0.8333
    res = skrank.evaluate([1, 0, 1, 0], [4, 3, 2, 2], [0] * 4, metrics=["ap@3"],
                          ap_denominator="found", tie_bounds=True)["ap@3"]
    assert res.value == 1.0  # ties="pessimistic": the ordering rule, not the minimum
    assert res.tie_interval == pytest.approx((5 / 6, 1.0), rel=1e-15)
    assert "[tie range 0.8333, 1.0000]" in str(res)


@pytest.mark.parametrize("seed", range(30))
def test_interval_is_the_true_range_for_monotone_conventions(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    y = rng.integers(0, 4, n).astype(float)
    y[0] = max(y[0], 1)
    s = rng.integers(0, 3, n).astype(float)
    for gain in ("exp", "linear"):
        res = skrank.evaluate(y, s, np.zeros(n), metrics=MONOTONE, gain=gain, tie_bounds=True)
        for m in MONOTONE:
            lo, hi = res[m].tie_interval
            assert (lo, hi) == pytest.approx(brute_range(y, s, m, gain=gain), abs=1e-12), m
    res = skrank.evaluate(y, s, np.zeros(n), metrics=["ap@3"], ap_denominator="min_k",
                          tie_bounds=True)
    expected = brute_range(y, s, "ap@3", ap_denominator="min_k")
    assert res["ap@3"].tie_interval == pytest.approx(expected, abs=1e-12)


FALLING = [("ndcg@3", dict(gain=[0, 1, 3, 7.25, 7])), ("dcg@3", dict(gain=[0, 5, 1, 4, 2])),
           ("ndcg@2", dict(gain=[0, 5, 1, 4, 2], ideal_order="label")),
           ("dcg", dict(gain=[3, 0, 2, 1, 0])), ("ap@3", dict(ap_denominator="found")),
           ("ap@2", dict(ap_denominator="found", rel_min=2)),
           ("ap@4", dict(ap_denominator="found"))]


@pytest.mark.parametrize("seed", range(60))
def test_interval_is_the_true_range_otherwise(seed):
    """A falling gain table, or AP@k over the relevant found: the two rules need not be the
    extremes (issue 13: the interval was inside the true range, narrower on many queries);
    the interval is the true range, in both kernels and with tied rows not retrieved."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 8))
    y = rng.integers(0, 5, n).astype(float)
    y[0] = max(y[0], 1)
    s = rng.integers(0, 3, n).astype(float)
    for m, conv in FALLING:
        expected = brute_range(y, s, m, **conv)
        lo, hi = skrank.evaluate(y, s, np.zeros(n), metrics=[m], tie_bounds=True,
                                 **conv)[m].tie_interval
        assert (lo, hi) == pytest.approx(expected, abs=1e-12, nan_ok=True), (m, conv)
        # the general kernel (doc ids send every metric there) gives the same range
        lo2, hi2 = skrank.evaluate(y, s, np.zeros(n), metrics=[m, "rr"], tie_bounds=True,
                                   doc_id=np.arange(n), **conv)[m].tie_interval
        np.testing.assert_array_equal((lo2, hi2), (lo, hi))


def test_many_queries_weighted():
    rng = np.random.default_rng(7)
    sizes = rng.integers(2, 7, 40)
    qid = np.repeat(np.arange(40), sizes)
    n = qid.shape[0]
    y = rng.integers(0, 5, n).astype(float)
    s = rng.integers(0, 3, n).astype(float)
    w = rng.uniform(0.5, 2, 40)[qid]
    for m, conv in FALLING:
        res = skrank.evaluate(y, s, qid, metrics=[m], tie_bounds=True, sample_weight=w,
                              empty="zero", **conv)[m]
        per_query = [brute_range(y[qid == q], s[qid == q], m, empty="zero", **conv)
                     for q in range(40)]
        wq = w[np.searchsorted(qid, np.arange(40))]
        expected = tuple(float(np.sum(wq * np.array(side)) / np.sum(wq))
                         for side in zip(*per_query))
        assert res.tie_interval == pytest.approx(expected, abs=1e-12), m
        assert res.tie_interval[0] <= res.value <= res.tie_interval[1]


def test_found_range_examples():
    # labels [0, 1, 1, 0, 0], scores [3, 2, 2, 2, 1], AP@2 over the relevant found: one slot
    # (rank 2) for the tied ranks 2-4 (labels 1, 1, 0): 0.0 without a relevant row there,
    # 1/2 with one; here the two rules are the ends
    res = skrank.evaluate([0, 1, 1, 0, 0], [3, 2, 2, 2, 1], [0] * 5, metrics=["ap@2"],
                          ap_denominator="found", tie_bounds=True)["ap@2"]
    assert res.tie_interval == (0.0, 0.5)
    # labels [1, 1, 0, 0, 0], AP@3: two slots (ranks 2, 3) for the tied labels 1, 0, 0. Both
    # rules give 1.0 (relevant row outside, or at rank 2: (1 + 1) / 2); at rank 3 it gives
    # (1 + 2/3) / 2 = 0.8333, the minimum, which no ordering rule reaches
    res = skrank.evaluate([1, 1, 0, 0, 0], [3, 2, 2, 2, 1], [0] * 5, metrics=["ap@3"],
                          ap_denominator="found", tie_bounds=True)["ap@3"]
    assert res.tie_interval == pytest.approx((5 / 6, 1.0), rel=1e-15)
    assert brute_range(np.array([1, 1, 0, 0, 0]), np.array([3, 2, 2, 2, 1]), "ap@3",
                       ap_denominator="found") == res.tie_interval


def test_distributed_pieces_refuse_a_range_they_cannot_compute():
    # skrank.dask/skrank.spark evaluate queries piece by piece with the two ordering rules
    from skrank.exceptions import InvalidParameterError
    from skrank.metrics._pieces import make_plan

    with pytest.raises(InvalidParameterError, match=r"The 'tie_bounds' parameter of "
                                                    r"dask.evaluate must be False for AP@3"):
        make_plan(["ndcg@3", "ap@3"], None, None, True, False, False, "dask.evaluate",
                  {"ap_denominator": "found"})
    with pytest.raises(InvalidParameterError, match="must be False for DCG@3"):
        make_plan(["dcg@3", "p@3"], None, None, True, False, False, "spark.evaluate",
                  {"gain": [0, 3, 1]})
    make_plan(["dcg@3", "ap@3"], None, None, True, False, False, "dask.evaluate", {})
