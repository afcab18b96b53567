"""``tie_interval`` is [smaller, larger] of the two ordering rules, and where the metric never
falls when a more relevant document moves up it is the true range over all tied orders.

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


@pytest.mark.parametrize("seed", range(30))
def test_interval_is_ordered_and_inside_the_true_range_otherwise(seed):
    """A falling gain table, or AP@k over the relevant found: the two rules need not be the
    extremes, but the interval is ordered and lies within the true range."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 7))
    y = rng.integers(0, 5, n).astype(float)
    y[0] = max(y[0], 1)
    s = rng.integers(0, 3, n).astype(float)
    cases = [("ndcg@3", dict(gain=[0, 1, 3, 7.25, 7])), ("dcg@3", dict(gain=[0, 5, 1, 4, 2])),
             ("ap@3", dict(ap_denominator="found"))]
    for m, conv in cases:
        lo, hi = skrank.evaluate(y, s, np.zeros(n), metrics=[m], tie_bounds=True,
                                 **conv)[m].tie_interval
        tlo, thi = brute_range(y, s, m, **conv)
        assert lo <= hi
        assert tlo - 1e-12 <= lo and hi <= thi + 1e-12, (m, conv)
