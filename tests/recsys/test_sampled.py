"""Sampled-negative evaluation: exact ranks against a loop and against skrank.evaluate, the
sampling's properties, the rank distributions against scipy.stats, and the issue's reversal
(Krichene & Rendle 2020)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

import skrank
from skrank.exceptions import InvalidParameterError
from skrank.recsys import sampled_ranks
from skrank.recsys._sampled import _rank_probabilities


def _data(seed=0, n_users=30, n_items=50):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 6, (n_users, n_items)).astype(float)
    seen = rng.random((n_users, n_items)) < 0.2
    tu = np.repeat(np.arange(n_users), 2)
    ti = np.array([rng.choice(np.flatnonzero(~seen[u]), 2, replace=False) for u in
                   range(n_users)]).ravel()
    return s, seen, tu, ti


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_exact_ranks_against_loop_and_evaluate(ties):
    s, seen, tu, ti = _data()
    r = sampled_ranks(s, tu, ti, exclude=sp.csr_matrix(seen), ties=ties, n_negatives=10)
    held = {(u, i) for u, i in zip(tu.tolist(), ti.tolist())}
    ys, sc, q = [], [], []
    for row, (u, i) in enumerate(zip(tu.tolist(), ti.tolist())):
        cand = [j for j in range(s.shape[1]) if not seen[u, j] and (u, j) not in held]
        above = sum(s[u, j] > s[u, i] or (ties == "pessimistic" and s[u, j] == s[u, i])
                    for j in cand)
        assert r.exact[row] == 1 + above
        assert r.n_candidates[row] == len(cand)
        ys += [1] + [0] * len(cand)
        sc += [s[u, i]] + [s[u, j] for j in cand]
        q += [row] * (1 + len(cand))
    # the ranking core on the same queries gives the same metrics
    res = skrank.evaluate(ys, sc, q, metrics=["ndcg@10", "hit@5", "rr"], ties=ties)
    assert float(r.exact_metric("ndcg@10")) == pytest.approx(float(res["ndcg@10"]), abs=1e-12)
    assert float(r.exact_metric("hit@5")) == pytest.approx(float(res["hit@5"]), abs=1e-12)
    assert float(r.exact_metric("rr")) == pytest.approx(float(res["rr"]), abs=1e-12)


@pytest.mark.parametrize("replace", [False, True])
def test_sampling_properties(replace):
    s, seen, tu, ti = _data(1)
    r = sampled_ranks(s, tu, ti, exclude=np.nonzero(seen), n_negatives=7, seed=3,
                      replace=replace)
    assert (r.sampled <= r.exact).all() and (r.sampled >= 1).all()
    assert (r.sampled <= 8).all()
    again = sampled_ranks(s, tu, ti, exclude=np.nonzero(seen), n_negatives=7, seed=3,
                          replace=replace)
    np.testing.assert_array_equal(r.sampled, again.sampled)
    if not replace:  # drawing every candidate gives the exact ranks
        full = sampled_ranks(s, tu, ti, exclude=np.nonzero(seen), n_negatives=1000)
        np.testing.assert_array_equal(full.sampled, full.exact)


@pytest.mark.parametrize("replace", [False, True])
def test_sampled_rank_distribution(replace):
    """Over many draws the sampled rank follows the hypergeometric (binomial) law."""
    n_items, m = 60, 9
    s = np.tile(-np.arange(n_items, dtype=float), (4000, 1))
    r = sampled_ranks(s, np.arange(4000), np.full(4000, 20), n_negatives=m, seed=5,
                      replace=replace)
    freq = np.bincount(r.sampled - 1, minlength=m + 1) / 4000
    law = _rank_probabilities(n_items - 1, m, replace)[20]
    assert np.abs(freq - law).max() < 0.03


def test_rank_probabilities_against_scipy():
    got = _rank_probabilities(30, 7, False)
    want = stats.hypergeom.pmf(np.arange(8)[None, :], 30, np.arange(31)[:, None], 7)
    np.testing.assert_allclose(got, want, atol=1e-13)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)


def test_reversal_of_the_issue():
    """10^4 items, 100 sampled negatives: A ranks the relevant item 1st for 20% of users and
    5000th otherwise, B always 40th. Exact HR@10: A 0.2, B 0.0; sampled: A 0.2, B 1.0."""
    n_items, n_users = 10_000, 200
    s = np.tile(-np.arange(n_items, dtype=float), (n_users, 1))
    a_items = np.where(np.arange(n_users) < n_users // 5, 0, 4999)
    b_items = np.full(n_users, 39)
    a = sampled_ranks(s, np.arange(n_users), a_items, n_negatives=100, seed=0)
    b = sampled_ranks(s, np.arange(n_users), b_items, n_negatives=100, seed=0)
    assert float(a.exact_metric("hit@10")) == pytest.approx(0.2)
    assert float(b.exact_metric("hit@10")) == 0.0
    assert float(a.sampled_metric("hit@10")) == pytest.approx(0.2)
    assert float(b.sampled_metric("hit@10")) == 1.0
    # the correction pulls B's sampled 1.0 most of the way to its exact 0
    cb = b.sampled_metric("hit@10", correction="bias_variance", gamma=0.1)
    assert float(cb) < 0.15
    assert "correction=bias_variance" in str(cb) and "n_negatives=100" in str(cb)


def test_bad_input():
    s, _, tu, ti = _data()
    with pytest.raises(InvalidParameterError, match="'n_negatives' parameter"):
        sampled_ranks(s, tu, ti, n_negatives=0)
    with pytest.raises(InvalidParameterError, match="'replace' parameter"):
        sampled_ranks(s, tu, ti, replace=1)
    r = sampled_ranks(s, tu, ti)
    with pytest.raises(InvalidParameterError, match="'gamma' parameter"):
        r.sampled_metric("hit@10", correction="bias_variance", gamma=0.0)
    with pytest.raises(InvalidParameterError, match="'metric' parameter"):
        r.sampled_metric("err@10")
