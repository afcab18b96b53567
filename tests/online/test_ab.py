"""A/B helpers: CTR@k definitions, z-tests, sample size, delta-method ratio variance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from skrank.exceptions import InputError, InvalidParameterError
from skrank.online import (
    ZTestResult,
    ctr_at_k,
    ctr_by_position,
    ratio_metric,
    ratio_ztest,
    sample_size_per_arm,
    two_proportion_ztest,
)

CLICKS = np.array([[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [0, 1, 0, 1], [1, 0, 0, 0]])


def _ctr_oracle(clicks, k, definition):
    rows = [list(r[:k]) for r in clicks]
    if definition == "any_click":
        return sum(1 for r in rows if any(r)) / len(rows)
    if definition == "clicks_per_impression":
        return sum(sum(r) for r in rows) / len(rows)
    return [sum(r[j] for r in rows) / len(rows) for j in range(k)]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("definition", ["any_click", "clicks_per_impression", "positional"])
def test_ctr_at_k_matches_oracle(k, definition):
    if definition == "positional":
        got = ctr_by_position(CLICKS, k)
    else:
        got = ctr_at_k(CLICKS, k, definition=definition)
    want = _ctr_oracle(CLICKS, k, definition)
    np.testing.assert_allclose(got, want)


def test_ctr_at_k_by_hand():
    # top 2: impressions 1, 4 and 5 have a click -> 3/5; clicks 1+1+0+0+1+1 = 4 -> 4/5
    assert ctr_at_k(CLICKS, 2, definition="any_click") == pytest.approx(3 / 5)
    assert ctr_at_k(CLICKS, 2, definition="clicks_per_impression") == pytest.approx(4 / 5)
    np.testing.assert_allclose(ctr_by_position(CLICKS, 2), [2 / 5, 2 / 5])
    assert ctr_at_k(CLICKS, definition="clicks_per_impression") == pytest.approx(6 / 5)


def test_two_proportion_ztest_hand_formula_and_scipy():
    x_a, n_a, x_b, n_b = 120, 1000, 150, 1050
    res = two_proportion_ztest(x_a, n_a, x_b, n_b)
    p_a, p_b = x_a / n_a, x_b / n_b
    pooled = (x_a + x_b) / (n_a + n_b)
    z = (p_b - p_a) / math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    assert res.z == pytest.approx(z)
    assert res.p_value == pytest.approx(2 * stats.norm.sf(abs(z)))
    # the pooled two-sided z-test is the chi-square test of the 2x2 table (z**2 = chi2)
    table = [[x_a, n_a - x_a], [x_b, n_b - x_b]]
    chi2, p_chi2, _, _ = stats.chi2_contingency(table, correction=False)
    assert res.z**2 == pytest.approx(chi2)
    assert res.p_value == pytest.approx(p_chi2)
    # interval with the unpooled standard error
    se = math.sqrt(p_a * (1 - p_a) / n_a + p_b * (1 - p_b) / n_b)
    q = stats.norm.ppf(0.975)
    assert res.ci == pytest.approx((p_b - p_a - q * se, p_b - p_a + q * se))
    assert res.relative_difference == pytest.approx((p_b - p_a) / p_a)
    # one-sided alternatives
    greater = two_proportion_ztest(x_a, n_a, x_b, n_b, alternative="greater")
    assert greater.p_value == pytest.approx(stats.norm.sf(z))
    assert greater.ci[1] == math.inf
    assert greater.ci[0] == pytest.approx(p_b - p_a - stats.norm.ppf(0.95) * se)
    less = two_proportion_ztest(x_a, n_a, x_b, n_b, alternative="less")
    assert less.p_value == pytest.approx(stats.norm.cdf(z))


def test_two_proportion_ztest_degenerate():
    res = two_proportion_ztest(0, 100, 0, 200)
    assert res.z == 0.0 and res.p_value == 1.0


def test_ztest_is_calibrated_under_the_null():
    rng = np.random.default_rng(0)
    n, p, n_sims = 2000, 0.1, 2000
    xa, xb = rng.binomial(n, p, n_sims), rng.binomial(n, p, n_sims)
    rate = np.mean([two_proportion_ztest(a, n, b, n).p_value < 0.05 for a, b in zip(xa, xb)])
    assert 0.035 <= rate <= 0.065


def test_sample_size_by_hand():
    # 10% -> 11%, alpha 0.05 two-sided, power 0.8 (Fleiss, no continuity correction):
    # pbar = 0.105; 1.959964 * sqrt(2 * 0.105 * 0.895) = 0.849702,
    # 0.841621 * sqrt(0.1 * 0.9 + 0.11 * 0.89) = 0.364822; (1.214524)**2 / 0.01**2 = 14750.7
    assert sample_size_per_arm(0.10, 0.01) == 14751
    assert sample_size_per_arm(0.10, 0.10, relative=True) == 14751
    # one-sided uses z_{0.95} = 1.644854 instead: (1.644854*0.433532 + 0.364822)**2 / 1e-4
    want = math.ceil((1.644854 * math.sqrt(2 * 0.105 * 0.895) + 0.364822) ** 2 / 1e-4)
    assert sample_size_per_arm(0.10, 0.01, alternative="greater") == want
    # a decrease of the same size is computed at p2 = 0.09 (less variance): fewer trials
    assert sample_size_per_arm(0.10, -0.01) < 14751


def test_sample_size_gives_the_power_by_simulation():
    n = sample_size_per_arm(0.2, 0.03, power=0.8)
    rng = np.random.default_rng(1)
    n_sims = 1500
    xa = rng.binomial(n, 0.2, n_sims)
    xb = rng.binomial(n, 0.23, n_sims)
    power = np.mean([two_proportion_ztest(a, n, b, n).p_value < 0.05 for a, b in zip(xa, xb)])
    assert 0.76 <= power <= 0.84


def test_ratio_metric_by_hand():
    # x = [1, 3, 0, 2], y = [4, 6, 2, 4]: R = 6/16; s_x^2 = 5/3, s_y^2 = 8/3, s_xy = 2;
    # var = (5/3 - 2 * 0.375 * 2 + 0.375**2 * 8/3) / (4 * 4**2) = (13/24) / 64
    res = ratio_metric([1, 3, 0, 2], [4, 6, 2, 4])
    assert res.value == pytest.approx(0.375)
    assert res.variance == pytest.approx(13 / 24 / 64)
    assert res.se == pytest.approx(math.sqrt(13 / 24 / 64))
    assert res.n == 4
    assert "RatioEstimate: 0.375" in str(res)


def _users(rng, n_users, ctr_mean=0.1):
    """Heterogeneous users: Poisson impressions, a Beta-distributed personal CTR."""
    impressions = rng.poisson(rng.lognormal(1.5, 0.8, n_users)) + 1
    ctr = rng.beta(0.5, 0.5 / ctr_mean - 0.5, n_users)
    clicks = rng.binomial(impressions, ctr)
    return clicks.astype(float), impressions.astype(float)


def test_delta_method_variance_matches_simulation():
    rng = np.random.default_rng(2)
    n_sims, n_users = 400, 500
    values, deltas, naive = [], [], []
    for _ in range(n_sims):
        x, y = _users(rng, n_users)
        res = ratio_metric(x, y)
        values.append(res.value)
        deltas.append(res.variance)
        naive.append(res.value * (1 - res.value) / y.sum())   # impressions as independent
    empirical = np.var(values, ddof=1)
    assert np.mean(deltas) / empirical == pytest.approx(1.0, abs=0.15)
    # the binomial variance over impressions is far too small when users differ
    assert np.mean(naive) < 0.6 * empirical


def test_ratio_ztest_calibration_and_pitfall():
    rng = np.random.default_rng(3)
    n_sims = 600
    delta_rejects = naive_rejects = 0
    for _ in range(n_sims):
        xa, ya = _users(rng, 400)
        xb, yb = _users(rng, 400)
        delta_rejects += ratio_ztest(xa, ya, xb, yb).p_value < 0.05
        naive = two_proportion_ztest(int(xa.sum()), int(ya.sum()), int(xb.sum()), int(yb.sum()))
        naive_rejects += naive.p_value < 0.05
    assert 0.03 <= delta_rejects / n_sims <= 0.075
    assert naive_rejects / n_sims > 0.1   # treating impressions as independent: false alarms


def test_ratio_ztest_by_hand():
    a = ratio_metric([1, 3, 0, 2], [4, 6, 2, 4])
    b = ratio_metric([3, 2, 4, 3], [5, 4, 6, 5])
    res = ratio_ztest([1, 3, 0, 2], [4, 6, 2, 4], [3, 2, 4, 3], [5, 4, 6, 5])
    assert isinstance(res, ZTestResult)
    assert res.difference == pytest.approx(12 / 20 - 6 / 16)
    assert res.se == pytest.approx(math.sqrt(a.variance + b.variance))
    assert res.z == pytest.approx(res.difference / res.se)
    assert res.p_value == pytest.approx(2 * stats.norm.sf(abs(res.z)))
    assert res.method == "delta-method ratio z-test"
    text = str(res)
    assert "B - A = 0.225" in text and "two-sided" in text
    assert res.to_dict()["n_a"] == 4


def test_bad_input():
    with pytest.raises(InvalidParameterError, match=r"'definition' parameter of ctr_at_k"):
        ctr_at_k(CLICKS, 2, definition="ctr")
    with pytest.raises(TypeError, match=r"definition"):
        ctr_at_k(CLICKS, 2)   # the definition must be named
    with pytest.raises(InputError, match=r"at least k=5 positions"):
        ctr_at_k(CLICKS, 5, definition="any_click")
    with pytest.raises(InputError, match=r"'clicks'.*0/1"):
        ctr_at_k([[2, 0]], 1, definition="any_click")
    with pytest.raises(InvalidParameterError, match=r"'successes_a'.*\[0, n_a=10\]. Got 11"):
        two_proportion_ztest(11, 10, 3, 10)
    with pytest.raises(InvalidParameterError, match=r"'n_b'.*an int >= 1. Got 0"):
        two_proportion_ztest(1, 10, 0, 0)
    with pytest.raises(InvalidParameterError, match=r"'alternative'.*'two-sided'"):
        two_proportion_ztest(1, 10, 2, 10, alternative="larger")
    with pytest.raises(InvalidParameterError, match=r"'baseline'.*interval \(0, 1\)\. Got 1.5"):
        sample_size_per_arm(1.5, 0.1)
    with pytest.raises(InvalidParameterError, match=r"'effect'.*non-zero"):
        sample_size_per_arm(0.1, 0.0)
    with pytest.raises(InvalidParameterError, match=r"'effect'.*baseline \+ effect is in"):
        sample_size_per_arm(0.95, 0.1)
    with pytest.raises(InvalidParameterError, match=r"'effect'.*sign of alternative='greater'"):
        sample_size_per_arm(0.1, -0.01, alternative="greater")
    with pytest.raises(InputError, match=r"ratio_metric: 'numerator' has 3 rows but 'denominator'"):
        ratio_metric([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match=r"'denominator'.*of positive sum"):
        ratio_metric([1, 2], [0, 0])
    with pytest.raises(InputError, match=r"'numerator_b'.*at least 2 units"):
        ratio_ztest([1, 2], [3, 4], [1], [2])


def test_ctr_at_k_returns_a_float_for_every_definition_and_positions_have_their_own():
    clicks = [[1, 1, 0], [0, 0, 1], [0, 0, 0], [0, 1, 0]]
    for definition in ("any_click", "clicks_per_impression"):
        assert isinstance(ctr_at_k(clicks, 2, definition=definition), float)
    assert ctr_by_position(clicks, 2).tolist() == [0.25, 0.5]
    with pytest.warns(DeprecationWarning, match=r"definition='positional'\) is deprecated.*"
                                                r"ctr_by_position"):
        old = ctr_at_k(clicks, 2, definition="positional")
    assert old.tolist() == [0.25, 0.5]
