"""group_exposure against hand-worked cases and a loop over Singh & Joachims' definitions;
Monte Carlo over sampled rankings converges to the marginal-matrix computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank.exceptions import InputError, InvalidParameterError
from skrank.fairness import group_exposure

from ._oracle import group_measures, log_bias, plackett_luce_marginals


def test_hand_worked_deterministic_ranking():
    """Ranking a1, a2, b1, b2 with merits 1, 0.9, 0.8, 0.7 and v_j = 1 / log2(1 + j)."""
    v1, v2, v3, v4 = 1.0, 1 / math.log2(3), 0.5, 1 / math.log2(5)
    exp_a, exp_b = (v1 + v2) / 2, (v3 + v4) / 2
    u_a, u_b = 0.95, 0.75
    ctr_a, ctr_b = (1.0 * v1 + 0.9 * v2) / 2, (0.8 * v3 + 0.7 * v4) / 2
    res = group_exposure([1.0, 0.9, 0.8, 0.7], ["a", "a", "b", "b"], rankings=[1, 2, 3, 4])
    assert float(res.demographic_parity) == pytest.approx(exp_a / exp_b, rel=1e-14)
    assert float(res.disparate_treatment) == pytest.approx((exp_a / u_a) / (exp_b / u_b),
                                                           rel=1e-14)
    assert float(res.disparate_impact) == pytest.approx((ctr_a / u_a) / (ctr_b / u_b),
                                                        rel=1e-14)
    diff = group_exposure([1.0, 0.9, 0.8, 0.7], ["a", "a", "b", "b"], rankings=[1, 2, 3, 4],
                          compare="difference")
    assert float(diff.demographic_parity) == pytest.approx(exp_a - exp_b, rel=1e-14)
    # the same from the permutation matrix
    P = np.eye(4)
    same = group_exposure([1.0, 0.9, 0.8, 0.7], ["a", "a", "b", "b"], marginals=P)
    assert [float(s) for s in same] == [float(s) for s in res]


def test_uniform_policy_is_fair_in_exposure():
    """Every document at every position with probability 1/n: equal mean exposure for both
    groups (ratio 1, difference 0), whatever their merits."""
    n = 6
    P = np.full((n, n), 1 / n)
    res = group_exposure([3, 2, 2, 1, 0.5, 0.5], [0, 1, 0, 1, 1, 1], marginals=P)
    assert float(res.demographic_parity) == pytest.approx(1.0, rel=1e-12)
    # disparate treatment then is the inverse ratio of the mean merits: U0 = (3 + 2) / 2,
    # U1 = (2 + 1 + 0.5 + 0.5) / 4
    assert float(res.disparate_treatment) == pytest.approx(1.0 / 2.5, rel=1e-12)
    diff = group_exposure([3, 2, 2, 1, 0.5, 0.5], [0, 1, 0, 1, 1, 1], marginals=P,
                          compare="difference")
    assert float(diff.demographic_parity) == pytest.approx(0.0, abs=1e-15)


def _birkhoff(rng, n, k=4):
    """A doubly stochastic matrix as a random mixture of permutation matrices."""
    w = rng.dirichlet(np.ones(k))
    P = np.zeros((n, n))
    for weight in w:
        P[np.arange(n), rng.permutation(n)] += weight
    return P


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), compare=st.sampled_from(["ratio", "difference"]),
       bias=st.sampled_from(["log", "reciprocal"]))
def test_equal_to_the_loop_over_the_definitions(seed, compare, bias):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 7, size=int(rng.integers(1, 4)))
    width = int(sizes.max()) + int(rng.integers(0, 2))
    merit, group, qid, blocks, want = [], [], [], [], []
    for qi, n in enumerate(sizes):
        u = rng.random(n) + 0.05
        g = rng.integers(0, 2, size=n)
        g[0], g[1] = 0, 1  # both groups in every query
        P = _birkhoff(rng, n)
        v = log_bias(width) if bias == "log" else [1 / (j + 1) for j in range(width)]
        want.append(group_measures(list(u), list(g), np.pad(P, ((0, 0), (0, width - n))),
                                   v, 0, compare))
        merit += list(u)
        group += list(g)
        qid += [qi] * n
        blocks.append(np.pad(P, ((0, 0), (0, width - n))))
    res = group_exposure(merit, group, marginals=np.vstack(blocks), qid=qid,
                         position_bias=bias, compare=compare)
    got = np.column_stack([s.per_query for s in res])
    np.testing.assert_allclose(got, np.array(want), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose([float(s) for s in res], np.mean(want, axis=0), rtol=1e-12)


def test_sampled_rankings_equal_their_empirical_marginals():
    rng = np.random.default_rng(11)
    n, samples = 5, 200
    ranks = np.argsort(rng.random((samples, n)), axis=1).argsort(axis=1).T + 1  # (n, S)
    P = np.zeros((n, n))
    for s in range(samples):
        P[np.arange(n), ranks[:, s] - 1] += 1 / samples
    merit, group = rng.random(n), [0, 1, 1, 0, 1]
    a = group_exposure(merit, group, rankings=ranks)
    b = group_exposure(merit, group, marginals=P)
    np.testing.assert_allclose([float(s) for s in a], [float(s) for s in b], rtol=1e-12)


def test_monte_carlo_converges_to_the_marginal_matrix():
    """Rankings sampled from a Plackett-Luce policy: their measures approach those of the
    policy's exact marginal matrix (found by enumerating its 720 rankings) as the number of
    samples grows, within a few standard errors."""
    weights = np.array([5.0, 3.0, 2.0, 1.0, 1.0, 0.5])
    merit = np.array([0.9, 0.7, 0.6, 0.4, 0.3, 0.1])
    group = np.array([0, 0, 1, 0, 1, 1])
    exact = group_exposure(merit, group, marginals=plackett_luce_marginals(weights))
    rng = np.random.default_rng(2018)
    errors = []
    for samples in (100, 10_000, 200_000):
        gumbel = np.log(weights) + rng.gumbel(size=(samples, weights.shape[0]))
        ranks = np.argsort(-gumbel, axis=1).argsort(axis=1).T + 1
        mc = group_exposure(merit, group, rankings=ranks)
        errors.append(max(abs(float(a) - float(b)) for a, b in zip(mc, exact)))
    assert errors[2] < errors[0]
    assert errors[2] < 0.005  # the measures are about 1.3 to 2; n = 2e5 gives ~1e-3


def test_order_queries_and_undefined():
    merit = [1, 1, 0.5, 0.5, 1, 1]
    group = ["m", "f", "m", "f", "m", "m"]  # query 2 has no "f": undefined there
    res = group_exposure(merit, group, rankings=[1, 2, 2, 1, 1, 2], qid=[1, 1, 2, 2, 3, 3])
    assert res.group_labels == ("f", "m")
    assert np.isnan(res.demographic_parity.per_query[2])
    assert res.demographic_parity.n_undefined == 1
    assert "undefined in 1 queries" in str(res)
    flipped = group_exposure(merit, group, rankings=[1, 2, 2, 1, 1, 2], qid=[1, 1, 2, 2, 3, 3],
                             order=("m", "f"))
    np.testing.assert_allclose(flipped.demographic_parity.per_query[:2],
                               1 / res.demographic_parity.per_query[:2])
    # a group without merit: treatment and impact undefined, parity defined
    zero = group_exposure([0, 0, 1, 1], [0, 0, 1, 1], rankings=[1, 2, 3, 4])
    assert np.isnan(zero.disparate_treatment.per_query[0])
    assert not np.isnan(zero.demographic_parity.per_query[0])


def test_custom_position_bias():
    res = group_exposure([1, 1], [0, 1], rankings=[1, 2], position_bias=[1.0, 0.25, 0.0])
    assert float(res.demographic_parity) == 4.0
    assert res.conventions.position_bias == "custom"


class TestBadInput:
    def test_not_doubly_stochastic(self):
        with pytest.raises(InputError, match=r"'marginals'.*each document's row sums to 1. "
                                             r"Got a row summing to 0.9 \(row 1\)"):
            group_exposure([1, 1], [0, 1], marginals=[[1, 0], [0, 0.9]])
        with pytest.raises(InputError, match=r"'marginals'.*Got position 1 of query 0 summing "
                                             r"to 2"):
            group_exposure([1, 1], [0, 1], marginals=[[1, 0], [1, 0]])

    def test_rankings_not_permutations(self):
        with pytest.raises(InputError, match=r"'rankings'.*a permutation of 1..n.*Got rank 1 "
                                             r"twice in ranking 1 of query 0"):
            group_exposure([1, 1], [0, 1], rankings=[[1, 1], [2, 1]])
        with pytest.raises(InputError, match=r"'rankings'.*ranks 1..n.*Got rank 3 at row 1"):
            group_exposure([1, 1], [0, 1], rankings=[1, 3])

    def test_groups(self):
        with pytest.raises(InputError, match=r"'groups'.*two groups.*Got 3"):
            group_exposure([1, 1, 1], [0, 1, 2], rankings=[1, 2, 3])
        with pytest.raises(InputError, match=r"'groups'.*one value per row of y_true"):
            group_exposure([1, 1, 1], [0, 1], rankings=[1, 2, 3])
        with pytest.raises(InvalidParameterError, match=r"'order'"):
            group_exposure([1, 1], [0, 1], rankings=[1, 2], order=(0, 2))

    def test_policy_given_once(self):
        with pytest.raises(InputError, match=r"'marginals'.*Got neither"):
            group_exposure([1, 1], [0, 1])
        with pytest.raises(InputError, match=r"'marginals'.*Got both"):
            group_exposure([1, 1], [0, 1], rankings=[1, 2], marginals=np.eye(2))

    def test_merit_and_conventions(self):
        with pytest.raises(InputError, match=r"'y_true'.*merits >= 0. Got -1"):
            group_exposure([1, -1], [0, 1], rankings=[1, 2])
        with pytest.raises(InvalidParameterError, match=r"'compare'.*one of 'ratio', "
                                                        r"'difference'"):
            group_exposure([1, 1], [0, 1], rankings=[1, 2], compare="log")
        with pytest.raises(InvalidParameterError, match=r"'position_bias'.*Got 'dcg'"):
            group_exposure([1, 1], [0, 1], rankings=[1, 2], position_bias="dcg")
        with pytest.raises(InvalidParameterError, match=r"'position_bias'.*2 or more"):
            group_exposure([1, 1], [0, 1], rankings=[1, 2], position_bias=[1.0])
