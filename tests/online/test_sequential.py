"""group_sequential_bounds: published Lan-DeMets values, exact alpha, peeking simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from skrank.exceptions import InvalidParameterError
from skrank.online import GroupSequentialBounds, group_sequential_bounds

# Two-sided alpha=0.05, 5 equally spaced looks (gsDesign test.type=2 / ldbounds; Jennison and
# Turnbull, Group Sequential Methods, 2000, ch. 7), printed to 4 decimals.
PUBLISHED = {
    "obrien_fleming": [4.8769, 3.3569, 2.6803, 2.2898, 2.0310],
    "pocock": [2.4380, 2.4268, 2.4101, 2.3966, 2.3859],
}


@pytest.mark.parametrize("spending", sorted(PUBLISHED))
def test_published_boundaries(spending):
    gs = group_sequential_bounds(5, spending=spending)
    np.testing.assert_allclose(gs.bounds, PUBLISHED[spending], atol=6e-4)
    assert gs.alpha_spent[-1] == pytest.approx(0.05, rel=1e-12)
    np.testing.assert_allclose(gs.nominal_p, 2 * stats.norm.sf(gs.bounds), rtol=1e-12)


@pytest.mark.parametrize("spending", ["obrien_fleming", "pocock"])
def test_two_looks_spend_exactly_alpha(spending):
    # P(|Z1| >= c1 or |Z2| >= c2) with corr sqrt(t1/t2), by scipy's multivariate normal
    t = np.array([0.4, 1.0])
    gs = group_sequential_bounds(t, spending=spending)
    r = math.sqrt(t[0] / t[1])
    mvn = stats.multivariate_normal(mean=[0, 0], cov=[[1, r], [r, 1]])
    c1, c2 = gs.bounds
    inside = mvn.cdf([c1, c2], lower_limit=[-c1, -c2])
    assert 1 - inside == pytest.approx(0.05, abs=1e-6)


def test_more_grid_nodes_do_not_change_the_bounds():
    a = group_sequential_bounds(10, n_grid=801).bounds
    b = group_sequential_bounds(10, n_grid=2001).bounds
    np.testing.assert_allclose(a, b, rtol=1e-7)


def test_peeking_every_day_for_30_days():
    # 30 daily looks at a growing A/A test (exponential, skewed outcomes; 40 users per arm a
    # day), Welch z of the data so far: naive peeking at 1.96 rejects far above 5%, the
    # group-sequential bounds stay at 5% within +-1.5%.
    rng = np.random.default_rng(30)
    n_rep, days, per_day = 2000, 30, 40
    gs = group_sequential_bounds(days)
    a = rng.exponential(size=(n_rep, days, per_day)).reshape(n_rep, -1)
    b = rng.exponential(size=(n_rep, days, per_day)).reshape(n_rep, -1)
    naive = np.zeros(n_rep, bool)
    seq = np.zeros(n_rep, bool)
    for d in range(days):
        n = (d + 1) * per_day
        xa, xb = a[:, :n], b[:, :n]
        z = (xb.mean(1) - xa.mean(1)) / np.sqrt(xa.var(1, ddof=1) / n + xb.var(1, ddof=1) / n)
        naive |= np.abs(z) >= stats.norm.isf(0.025)
        seq |= np.abs(z) >= gs.bounds[d]
    assert naive.mean() > 0.15
    assert abs(seq.mean() - 0.05) < 0.015


def test_first_crossing_and_printing():
    gs = group_sequential_bounds([0.5, 1.0], spending="pocock")
    assert isinstance(gs, GroupSequentialBounds)
    assert gs.first_crossing([0.3]) is None
    assert gs.first_crossing([-3.0, 0.0]) == 0
    assert gs.first_crossing([1.0, 2.5]) == 1
    text = str(gs)
    assert text.startswith("GroupSequentialBounds: 2 looks, two-sided alpha=0.05, Lan-DeMets")
    assert "look  2: t=1.000" in text
    assert gs.to_dict()["spending"] == "pocock"


def test_partial_information_spends_less():
    gs = group_sequential_bounds([0.25, 0.5], spending="pocock")
    assert gs.alpha_spent[-1] == pytest.approx(0.05 * math.log1p((math.e - 1) * 0.5))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"information": 0}, "'information' parameter"),
        ({"information": [0.5, 0.4]}, "'information' parameter.*increasing"),
        ({"information": [0.5, 1.2]}, "'information' parameter"),
        ({"information": "abc"}, "'information' parameter"),
        ({"information": 3, "alpha": 1.5}, "'alpha' parameter"),
        ({"information": 3, "spending": "haybittle"}, "'spending' parameter"),
        ({"information": 3, "n_grid": 10}, "'n_grid' parameter"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        group_sequential_bounds(**kwargs)
