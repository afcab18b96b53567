"""Hypothesis properties every metric must satisfy, whatever the data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skrank

from ..strategies import grouped_data

ALL = ["ndcg@3", "ndcg", "dcg@3", "p@3", "r@3", "hit@3", "ap@3", "ap", "rr", "err@3"]
NORMALISED = [m for m in ALL if not m.startswith("dcg")]
RULES = ["pessimistic", "optimistic", "input", "average"]


@given(data=grouped_data(), ties=st.sampled_from(RULES), seed=st.integers(0, 1000))
def test_query_order_does_not_matter(data, ties, seed):
    y, s, q = data
    a = skrank.evaluate(y, s, q, metrics=ALL, ties=ties)
    # shuffle whole queries (not rows: input order inside a query is a tie rule)
    ids = np.unique(q)
    perm_ids = np.random.default_rng(seed).permutation(ids)
    rows = np.concatenate([np.flatnonzero(q == i) for i in perm_ids])
    b = skrank.evaluate(y[rows], s[rows], q[rows], metrics=ALL, ties=ties)
    for m in ALL:
        assert b[m].value == pytest.approx(a[m].value, rel=1e-12, nan_ok=True)


@given(data=grouped_data(), ties=st.sampled_from(RULES))
def test_strictly_monotone_score_transforms_do_not_matter(data, ties):
    y, s, q = data
    a = skrank.evaluate(y, s, q, metrics=ALL, ties=ties)
    b = skrank.evaluate(y, np.exp(3 * s) - 7.0, q, metrics=ALL, ties=ties)
    for m in ALL:
        np.testing.assert_allclose(b[m].per_query, a[m].per_query, rtol=1e-12)


@given(data=grouped_data(), ties=st.sampled_from(RULES),
       empty=st.sampled_from(["exclude", "zero", "one"]))
def test_normalised_metrics_lie_in_unit_interval(data, ties, empty):
    y, s, q = data
    res = skrank.evaluate(y, s, q, metrics=NORMALISED, ties=ties, empty=empty)
    for m in NORMALISED:
        pq = res[m].per_query[~np.isnan(res[m].per_query)]
        assert np.all(pq >= -1e-15) and np.all(pq <= 1 + 1e-12)


@given(data=grouped_data(), ties=st.sampled_from(RULES))
def test_ideal_ranking_scores_one(data, ties):
    y, _, q = data
    # the labels themselves as scores: ties only among equal labels
    res = skrank.evaluate(y, y.astype(float), q, metrics=["ndcg@3", "ndcg", "ap", "rr",
                                                           "r@1000", "hit@1000"], ties=ties)
    for m in res:
        pq = res[m].per_query
        np.testing.assert_allclose(pq[~np.isnan(pq)], 1.0, rtol=1e-12)


@given(data=grouped_data())
def test_average_lies_between_pessimistic_and_optimistic(data):
    y, s, q = data
    res = {r: skrank.evaluate(y, s, q, metrics=ALL, ties=r, empty="zero") for r in RULES}
    for m in ALL:
        lo, mid, hi = (res[r][m].per_query for r in ("pessimistic", "average", "optimistic"))
        assert np.all(lo <= mid + 1e-12) and np.all(mid <= hi + 1e-12)
        inp = res["input"][m].per_query
        assert np.all(lo <= inp + 1e-12) and np.all(inp <= hi + 1e-12)


@given(data=grouped_data())
def test_tie_flag_means_the_rules_disagree_somewhere(data):
    # a query whose pessimistic and optimistic values differ is always flagged
    y, s, q = data
    res = skrank.evaluate(y, s, q, metrics=ALL, empty="zero", tie_bounds=True)
    lo = skrank.evaluate(y, s, q, metrics=ALL, empty="zero", ties="pessimistic")
    hi = skrank.evaluate(y, s, q, metrics=ALL, empty="zero", ties="optimistic")
    for m in ALL:
        differ = int(np.sum(~np.isclose(lo[m].per_query, hi[m].per_query, rtol=0, atol=1e-13)))
        assert res[m].n_tie_affected >= differ
        assert res[m].tie_interval == pytest.approx((lo[m].value, hi[m].value))


@given(data=grouped_data(), k=st.integers(1, 10))
def test_cutoff_monotonicity(data, k):
    # recall, hit rate and DCG can only grow with k
    y, s, q = data
    for name in ("r", "hit", "dcg"):
        a = skrank.evaluate(y, s, q, metrics=[f"{name}@{k}", f"{name}@{k + 1}"], empty="zero")
        assert np.all(a[f"{name}@{k}"].per_query <= a[f"{name}@{k + 1}"].per_query + 1e-12)
