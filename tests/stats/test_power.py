"""Power of the paired t-test and minimum detectable difference.

References: Cohen (1988) / G*Power 3 for the paired t-test ("Means: difference between two
dependent means (matched pairs)", d_z = 0.5, alpha = 0.05 two-sided, power 0.80 -> total
sample size 34, actual power 0.8077775); statsmodels.stats.power (TTestPower().power for the
paired t-test, normal_power for the normal approximation; a test-only dependency) on random
designs (Hypothesis); the closed-form normal approximation (z_{1-alpha/2} + z_{power}) * sd /
sqrt(n); and a simulation of t-tests at the MDD.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

from skrank import InvalidParameterError
from skrank.stats import minimum_detectable_difference, power

sm_power = pytest.importorskip("statsmodels.stats.power",
                               reason="statsmodels is not installed (test extra)")

# skrank's alternatives in statsmodels' words
_SM_ALTERNATIVE = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


def nct_cdf_by_quadrature(x, df, shift):
    """P(T <= x) for a noncentral t, T = (Z + shift) / S with S = sqrt(chi2_df / df): the
    integral of Phi(x s - shift) over the density of S (truncated where it is below 1e-15)."""
    s = stats.chi(df, scale=1.0 / math.sqrt(df))
    value, _ = integrate.quad(lambda u: s.pdf(u) * stats.norm.cdf(x * u - shift),
                              s.ppf(1e-15), s.isf(1e-15), epsabs=1e-13, limit=200)
    return value


def statsmodels_power(effect, n, alpha, alternative, method):
    """Power of the one-sample (paired) test for a standardised effect, by statsmodels.

    SciPy's noncentral t, which statsmodels calls, is NaN where its cdf underflows; there (and
    only there) the power is integrated numerically (nct_cdf_by_quadrature).
    """
    sm_alternative = _SM_ALTERNATIVE[alternative]
    if method == "normal":
        return float(sm_power.normal_power(effect, n, alpha, alternative=sm_alternative))
    ref = float(sm_power.TTestPower().power(effect, n, alpha, alternative=sm_alternative))
    if not math.isnan(ref):
        return ref
    df, shift = n - 1, effect * math.sqrt(n)
    c = stats.t.isf(alpha / 2 if alternative == "two-sided" else alpha, df)
    upper, lower = 1.0 - nct_cdf_by_quadrature(c, df, shift), nct_cdf_by_quadrature(-c, df, shift)
    return {"two-sided": upper + lower, "greater": upper, "less": lower}[alternative]


_DESIGNS = {
    "n": st.integers(2, 100_000),
    "sd": st.floats(1e-3, 1e3),
    "alpha": st.floats(1e-3, 0.2),
    "alternative": st.sampled_from(["two-sided", "greater", "less"]),
    "method": st.sampled_from(["t", "normal"]),
}


@given(effect=st.floats(-3.0, 3.0), **_DESIGNS)
def test_power_equals_statsmodels(effect, n, sd, alpha, alternative, method):
    ours = power(n, sd, effect * sd, alpha=alpha, alternative=alternative, method=method)
    ref = statsmodels_power(effect, n, alpha, alternative, method)
    assert ours == pytest.approx(ref, abs=1e-9)


@given(data=st.data(), **_DESIGNS)
def test_statsmodels_power_at_the_mdd_is_the_target(data, n, sd, alpha, alternative, method):
    # statsmodels' power at skrank's MDD, rather than its solve_power: that root finder stops
    # at about 1e-5 relative precision and can end on a wrong bracket (for n = 1,000 and
    # alternative "smaller" at power 0.8 statsmodels 0.15 answers 0.31 instead of 0.079).
    target = data.draw(st.floats(alpha + 0.01, 0.99), label="power")
    mdd = minimum_detectable_difference(n, sd, alpha=alpha, power=target,
                                        alternative=alternative, method=method)
    effect = (-mdd if alternative == "less" else mdd) / sd
    ref = statsmodels_power(effect, n, alpha, alternative, method)
    assert ref == pytest.approx(target, abs=1e-8)


def test_statsmodels_far_tail_nan_is_zero():
    # statsmodels 0.15 answers NaN here (its far tail); skrank counts that tail as 0, and the
    # near tail alone is statsmodels' one-sided power at alpha / 2.
    near = float(sm_power.TTestPower().power(10.0, 3, 0.03125 / 2, alternative="larger"))
    assert power(3, 1.0, 10.0, alpha=0.03125) == pytest.approx(near, abs=1e-12)


def test_noncentral_t_underflow_is_power_one():
    # Found by Hypothesis: SciPy's noncentral t cdf underflows to NaN at a shift of
    # 1.875 * sqrt(420) = 38.4 from the critical value 2.68; skrank read that as power 0
    # (1.9e-103, the far tail alone). The power is 1 - P(T < 2.68), and P(T < 2.68) is about
    # 1e-277 by quadrature; statsmodels answers NaN.
    crit = stats.t.isf(0.0078125 / 2, 419)
    assert nct_cdf_by_quadrature(crit, 419, 1.875 * math.sqrt(420)) < 1e-250
    assert power(420, 1.0, 1.875, alpha=0.0078125) == 1.0
    assert power(420, 1.0, -1.875, alpha=0.0078125, alternative="less") == 1.0
    assert power(420, 1.0, 1.875, alpha=0.0078125, alternative="less") == 0.0


def test_gpower_reference_value():
    assert power(34, 1.0, 0.5) == pytest.approx(0.8077775, abs=1e-6)
    # 33 pairs fall short of 80%, which is why G*Power answers 34.
    assert power(33, 1.0, 0.5) < 0.8
    assert minimum_detectable_difference(34, 1.0) < 0.5 < minimum_detectable_difference(33, 1.0)


@pytest.mark.parametrize("n", [10, 40, 200, 10_000])
def test_normal_method_is_the_closed_form(n):
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    # The closed form ignores the far rejection tail (probability < 1e-5 here).
    assert minimum_detectable_difference(n, 0.1, method="normal") == pytest.approx(
        z * 0.1 / math.sqrt(n), rel=1e-4)
    z1 = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    assert minimum_detectable_difference(n, 0.1, method="normal", alternative="greater") == (
        pytest.approx(z1 * 0.1 / math.sqrt(n), rel=1e-10))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [2, 5, 40, 5_000, 100_000])
def test_power_at_the_mdd_is_the_target(n, alternative):
    mdd = minimum_detectable_difference(n, 0.2, alternative=alternative, power=0.9)
    signed = -mdd if alternative == "less" else mdd
    assert power(n, 0.2, signed, alternative=alternative) == pytest.approx(0.9, abs=1e-8)


def test_t_mdd_is_larger_than_normal_and_converges():
    for n in (3, 10, 40):
        assert minimum_detectable_difference(n, 1.0) > minimum_detectable_difference(
            n, 1.0, method="normal")
    big_t = minimum_detectable_difference(100_000, 1.0)
    big_z = minimum_detectable_difference(100_000, 1.0, method="normal")
    assert big_t == pytest.approx(big_z, rel=1e-4)


def test_fewer_than_fifty_queries_only_detect_large_differences():
    # The seed's remark: with 40 queries and a typical SD of NDCG differences of 0.1, a +0.02
    # gain has low power and the MDD is more than twice as large.
    assert power(40, 0.1, 0.02) < 0.3
    assert minimum_detectable_difference(40, 0.1) > 0.04


def test_mdd_by_simulation():
    # 4,000 simulated t-tests on 25 normal differences whose true mean is the MDD: the
    # rejection rate must be 80% (binomial SD 0.63 pp; band +-2.5 pp).
    n, sd = 25, 0.1
    mdd = minimum_detectable_difference(n, sd)
    d = np.random.default_rng(0).normal(mdd, sd, size=(4000, n))
    rate = np.mean(stats.ttest_1samp(d, 0.0, axis=1).pvalue <= 0.05)
    assert rate == pytest.approx(0.8, abs=0.025)


def test_power_is_monotone():
    ps = [power(30, 0.1, delta) for delta in (0.0, 0.01, 0.02, 0.05, 0.1)]
    assert ps[0] == pytest.approx(0.05)
    assert all(x < y for x, y in itertools.pairwise(ps))
    # One-sided power in the wrong direction is below alpha.
    assert power(30, 0.1, -0.05, alternative="greater") < 0.05


def test_zero_sd_gives_zero_mdd():
    assert minimum_detectable_difference(10, 0.0) == 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 1}, "The 'n' parameter of minimum_detectable_difference must be an int >= 2"),
        ({"sd": -0.1}, "The 'sd' parameter of minimum_detectable_difference must be a finite "
                       "real number >= 0"),
        ({"alpha": 0.0}, r"The 'alpha' parameter of minimum_detectable_difference must be a "
                         r"float in the open interval \(0, 1\)"),
        ({"power": 0.03}, r"The 'power' parameter of minimum_detectable_difference must be a "
                          r"float in the open interval \(alpha, 1\) = \(0.05, 1\). Got 0.03"),
        ({"method": "exact"}, "The 'method' parameter of minimum_detectable_difference must be "
                              "one of 't', 'normal'. Got 'exact' instead."),
        ({"alternative": "2-sided"}, "The 'alternative' parameter of "
                                     "minimum_detectable_difference must be one of"),
    ],
)
def test_bad_parameters(kwargs, message):
    args = {"n": 10, "sd": 0.1, **kwargs}
    with pytest.raises(InvalidParameterError, match=message):
        minimum_detectable_difference(**args)


def test_power_bad_parameters():
    with pytest.raises(InvalidParameterError,
                       match="The 'sd' parameter of power must be a finite real number > 0"):
        power(10, 0.0, 0.1)
    with pytest.raises(InvalidParameterError,
                       match="The 'difference' parameter of power must be a finite real number"):
        power(10, 0.1, float("nan"))
