"""Group-sequential bounds and planning: published Lan-DeMets values, spotify-confidence,
exact alpha and power by scipy's multivariate normal, peeking and power simulations."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from skrank.exceptions import InvalidParameterError
from skrank.online import (
    GroupSequentialBounds,
    duration_days,
    group_sequential_bounds,
    inflation_factor,
    sample_size_per_arm,
)

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


# -- one-sided bounds, the power family, planning ----------------------------------------------

REFS = json.loads((Path(__file__).parent / "data" / "references.json").read_text())


@pytest.mark.parametrize("case", REFS["spotify_confidence_bounds"],
                         ids=lambda c: f"{len(c['information'])}looks-{c['sides']}sided")
def test_power_family_equals_spotify_confidence(case):
    # spotify-confidence 4.1.0 (its port of ldbounds' landem) computes each side's upper
    # bound with alpha / sides and rho; its grid (step 0.05 sd, at most 1,000 intervals)
    # agrees with ours to about 6e-5 (ours is exact to 1e-6 by the bivariate normal below)
    gs = group_sequential_bounds(case["information"], alpha=case["alpha"] / case["sides"],
                                 spending="kim_demets", rho=case["rho"], alternative="greater")
    np.testing.assert_allclose(gs.alpha_spent, case["alpha_spent"], rtol=1e-12)
    np.testing.assert_allclose(gs.bounds, case["bounds"], atol=1e-4)
    assert gs.rho == case["rho"] and gs.alternative == "greater"


@pytest.mark.parametrize("spending", ["obrien_fleming", "pocock", "kim_demets"])
def test_one_sided_two_looks_spend_exactly_alpha(spending):
    t = np.array([0.3, 1.0])
    gs = group_sequential_bounds(t, alpha=0.025, spending=spending, alternative="greater")
    r = math.sqrt(t[0] / t[1])
    mvn = stats.multivariate_normal(mean=[0, 0], cov=[[1, r], [r, 1]])
    assert 1 - mvn.cdf(gs.bounds) == pytest.approx(0.025, abs=1e-7)
    assert gs.first_crossing([-5.0, gs.bounds[1]]) == 1  # one-sided: -5 is no crossing


@pytest.mark.parametrize("spending", ["obrien_fleming", "pocock"])
def test_power_at_the_design_drift_by_the_bivariate_normal(spending):
    # two looks: P(reject upwards) = P(Z1 >= c1) + P(|Z1| < c1, Z2 >= c2) with
    # Z_k ~ N(drift sqrt(t_k), 1), corr sqrt(t1 / t2)
    t = np.array([0.5, 1.0])
    gs = group_sequential_bounds(t, spending=spending)
    drift = gs.drift(0.9)
    r = math.sqrt(t[0] / t[1])
    mu = drift * np.sqrt(t)
    mvn = stats.multivariate_normal(mean=mu, cov=[[1, r], [r, 1]])
    c1, c2 = gs.bounds
    power = stats.norm.sf(c1 - mu[0]) + mvn.cdf([c1, mu[1] + 40], lower_limit=[-c1, c2])
    assert power == pytest.approx(0.9, abs=1e-6)
    fixed = stats.norm.isf(0.025) + stats.norm.ppf(0.9)
    assert gs.inflation_factor(0.9) == pytest.approx((drift / fixed) ** 2, rel=1e-12)
    assert gs.inflation_factor(0.9) > 1


def test_inflation_factor_by_simulation_and_grid():
    # 5 looks, O'Brien-Fleming type: Brownian motion with the design drift first crosses a
    # bound upwards with probability 0.8 (200,000 paths, 4 binomial standard errors: +-0.0036)
    gs = group_sequential_bounds(5)
    drift = gs.drift(0.8)
    rng = np.random.default_rng(5)
    n = 200_000
    t = gs.information
    steps = rng.standard_normal((n, 5)) * np.sqrt(np.diff(t, prepend=0)) + drift * np.diff(
        t, prepend=0)
    z = steps.cumsum(axis=1) / np.sqrt(t)
    crossed = np.abs(z) >= gs.bounds
    first = np.where(crossed.any(axis=1), crossed.argmax(axis=1), -1)
    rate = np.mean((first >= 0) & (z[np.arange(n), first] > 0))
    assert abs(rate - 0.8) < 4 * math.sqrt(0.8 * 0.2 / n)
    # one look at t = 1 is the fixed design; the planning grid is as exact as a fine one
    assert inflation_factor(1) == pytest.approx(1.0, abs=1e-10)
    assert inflation_factor(5) == pytest.approx(
        group_sequential_bounds(5, n_grid=1601).inflation_factor(), rel=1e-8)
    # Pocock's spends more early and costs more units than O'Brien-Fleming's
    assert inflation_factor(5, spending="pocock") > inflation_factor(5) > 1


def test_sample_size_and_duration_account_for_looks():
    fixed = sample_size_per_arm(0.10, 0.01)
    for spending in ("obrien_fleming", "pocock"):
        factor = inflation_factor(5, spending=spending)
        n = sample_size_per_arm(0.10, 0.01, looks=5, spending=spending)
        pbar, d = 0.105, 0.01
        exact = (stats.norm.isf(0.025) * math.sqrt(2 * pbar * (1 - pbar))
                 + stats.norm.ppf(0.8) * math.sqrt(0.1 * 0.9 + 0.11 * 0.89)) ** 2 / d**2
        assert n == math.ceil(exact * factor)
        assert n > fixed
    one_sided = sample_size_per_arm(0.10, 0.01, looks=[0.5, 1.0], alternative="greater")
    factor = inflation_factor([0.5, 1.0], alternative="greater")
    fixed_one = sample_size_per_arm(0.10, 0.01, alternative="greater")
    assert fixed_one * factor - 1 < one_sided <= fixed_one * factor + 1
    assert duration_days(10_000, 1_000) == 20
    assert duration_days(10_000, 1_000, arms=3, traffic_share=0.5) == 60
    assert duration_days(10_001, 1_000) == 21


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: sample_size_per_arm(0.1, 0.01, looks=0), "'looks' parameter of sample_size"),
        (lambda: sample_size_per_arm(0.1, 0.01, looks=3, spending="x"), "'spending' parameter"),
        (lambda: inflation_factor(3, power=1.0), "'power' parameter of inflation_factor"),
        (lambda: group_sequential_bounds(3, alternative="less"), "'alternative' parameter"),
        (lambda: group_sequential_bounds(3, spending="kim_demets", rho=0), "'rho' parameter"),
        (lambda: duration_days(0, 100), "'units_per_arm' parameter"),
        (lambda: duration_days(10, 0), "'daily_units' parameter"),
        (lambda: duration_days(10, 10, arms=1), "'arms' parameter"),
        (lambda: duration_days(10, 10, traffic_share=1.5), "'traffic_share' parameter"),
    ],
)
def test_planning_errors(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


# -- non-binding futility bounds ---------------------------------------------------------------

@pytest.mark.parametrize("futility", ["obrien_fleming", "pocock", "kim_demets"])
def test_futility_bounds_spend_beta_exactly(futility):
    # two looks, one-sided: under the design drift theta, z1 ~ N(theta sqrt(t1), 1), so the
    # first futility bound is theta sqrt(t1) + Phi^-1(beta(t1)); the power with the futility
    # stop, P(z1 >= b1) + P(a1 < z1 < b1, z2 >= b2), is exactly 1 - beta (bivariate normal)
    t = np.array([0.4, 1.0])
    gs = group_sequential_bounds(t, alpha=0.025, alternative="greater", futility=futility,
                                 beta=0.1)
    theta, (a1, a2), (b1, b2) = gs.futility_drift, gs.futility_bounds, gs.bounds
    spent = group_sequential_bounds(t, alpha=0.1, alternative="greater",
                                    spending=futility).alpha_spent[0]  # beta(t1)
    assert a1 == pytest.approx(theta * math.sqrt(t[0]) + stats.norm.ppf(spent), abs=1e-9)
    assert a2 == b2
    r = math.sqrt(t[0] / t[1])
    mu = theta * np.sqrt(t)
    mvn = stats.multivariate_normal(mean=mu, cov=[[1, r], [r, 1]])
    power = stats.norm.sf(b1 - mu[0]) + mvn.cdf([b1, mu[1] + 40], lower_limit=[a1, b2])
    assert power == pytest.approx(0.9, abs=1e-6)
    # non-binding: the rejection bounds are those without futility
    plain = group_sequential_bounds(t, alpha=0.025, alternative="greater")
    np.testing.assert_array_equal(gs.bounds, plain.bounds)
    assert theta > plain.drift(0.9)  # stopping for futility costs power: a larger drift


def test_futility_by_simulation():
    # 4 looks: Brownian motion at the design drift rejects (stopping at the first bound it
    # meets, futility included) with probability 0.8, and under the null the futility stops
    # only lower the rejection rate below alpha (100,000 paths; 4 binomial sd)
    gs = group_sequential_bounds(4, alpha=0.025, alternative="greater",
                                 futility="pocock", beta=0.2)
    rng = np.random.default_rng(8)
    n = 100_000
    dt = np.diff(gs.information, prepend=0)
    for drift, want in ((gs.futility_drift, 0.8), (0.0, None)):
        z = (rng.standard_normal((n, 4)) * np.sqrt(dt) + drift * dt).cumsum(axis=1) / np.sqrt(
            gs.information)
        up = z >= gs.bounds
        down = z <= gs.futility_bounds
        stop = up | down
        first = np.where(stop.any(axis=1), stop.argmax(axis=1), 3)
        rejected = up[np.arange(n), first].mean()
        if want is None:
            assert rejected <= 0.025 + 4 * math.sqrt(0.025 * 0.975 / n)
        else:
            assert abs(rejected - want) < 4 * math.sqrt(want * (1 - want) / n)
    assert gs.first_futility([0.5, -3.0]) == 1 and gs.first_futility([5.0]) is None
    assert "futility z <= " in str(gs) and gs.to_dict()["futility"] == "pocock"
    assert gs.drift(0.8) == gs.futility_drift
    with pytest.raises(InvalidParameterError, match=r"'power' parameter.*1 - beta"):
        gs.drift(0.9)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"futility": "obrien_fleming"}, "'futility' parameter.*alternative='greater'"),
        ({"futility": "haybittle", "alternative": "greater"}, "'futility' parameter"),
        ({"futility": "pocock", "alternative": "greater", "beta": 0.99},
         "'beta' parameter"),
    ],
)
def test_futility_errors(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        group_sequential_bounds(3, **kwargs)


# rpact's published unit-test values (rpact-com/rpact, tests/testthat/
# test-f_design_group_sequential.R: getDesignInverseNormal / getDesignGroupSequential and
# getDesignCharacteristics, compared there with tolerance 1e-7; one-sided, non-binding
# futility by beta spending)
RPACT = [
    # x3: asKD gammaA=2.2, bsKD gammaB=3.2, information (0.3, 0.7, 1), alpha 0.03, beta 0.34
    (dict(information=[0.3, 0.7, 1.0], alpha=0.03, spending="kim_demets", rho=2.2,
          futility="kim_demets", futility_rho=3.2, beta=0.34),
     [2.8594012, 2.2435708, 1.9735737], [-1.1558435, 0.72836893],
     [0.0021222083, 0.013687904, 0.03], 1.0555891),
    # x7: asOF, bsP, 3 equally spaced looks, alpha 0.03, beta 0.2
    (dict(information=3, alpha=0.03, spending="obrien_fleming", futility="pocock", beta=0.2),
     [3.5815302, 2.417863, 1.9175839], [0.42062972, 1.2539286],
     [0.00017079385, 0.0078650906, 0.03], None),
]


@pytest.mark.parametrize(("kw", "bounds", "futility", "spent", "inflation"), RPACT,
                         ids=["asKD-bsKD", "asOF-bsP"])
def test_futility_designs_equal_rpact(kw, bounds, futility, spent, inflation):
    gs = group_sequential_bounds(alternative="greater", **kw)
    np.testing.assert_allclose(gs.bounds, bounds, atol=1e-7)
    np.testing.assert_allclose(gs.futility_bounds[:-1], futility, atol=1e-7)
    np.testing.assert_allclose(gs.alpha_spent, spent, atol=1e-9)
    if inflation is not None:
        assert gs.inflation_factor(1 - kw["beta"]) == pytest.approx(inflation, abs=1e-7)


def test_two_sided_bounds_equal_rpact():
    # rpact's tests/testthat/test-f_design_group_sequential_beta_spending.R, two-sided
    # designs with non-binding futility (their rejection bounds are the plain design's):
    # asKD gammaA=2.5, alpha 0.05, information (0.3, 0.4, 0.8, 1)
    gs = group_sequential_bounds([0.3, 0.4, 0.8, 1.0], alpha=0.05, spending="kim_demets",
                                 rho=2.5)
    np.testing.assert_allclose(gs.bounds, [3.0276355, 2.8984727, 2.2289649, 2.0639032],
                               atol=1e-7)
    # asOF, alpha 0.025, information (0.15, 0.25, 0.8, 1): rpact's second bound, 4.8600403,
    # spends 1.17e-6 on a coarse grid; the exact one (adaptive quadrature of the first look's
    # density, below) is 4.8599552, and ours agrees with it to 1e-10
    gs = group_sequential_bounds([0.15, 0.25, 0.8, 1.0], alpha=0.025)
    np.testing.assert_allclose(gs.bounds[[0, 2, 3]], [6.3431527, 2.560259, 2.292451],
                               atol=1e-7)
    from scipy import integrate, optimize

    c1, r = gs.bounds[0], math.sqrt(0.15 / 0.25)
    s = math.sqrt(1 - r * r)

    def crossing(c2):
        def f(z):
            return stats.norm.pdf(z) * (stats.norm.sf((c2 - r * z) / s)
                                        + stats.norm.cdf((-c2 - r * z) / s))
        return integrate.quad(f, -c1, c1, epsabs=1e-16, epsrel=1e-12, limit=200)[0]

    inc = gs.alpha_spent[1] - gs.alpha_spent[0]
    exact = optimize.brentq(lambda c: crossing(c) - inc, 3.0, 7.0, xtol=1e-13)
    assert gs.bounds[1] == pytest.approx(exact, abs=1e-10)
    assert abs(gs.bounds[1] - 4.8600403) < 1e-4
