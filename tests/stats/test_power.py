"""Power of the paired t-test and minimum detectable difference.

References: Cohen (1988) / G*Power 3 for the paired t-test ("Means: difference between two
dependent means (matched pairs)", d_z = 0.5, alpha = 0.05 two-sided, power 0.80 -> total
sample size 34, actual power 0.8077775); the closed-form normal approximation
(z_{1-alpha/2} + z_{power}) * sd / sqrt(n); and a simulation of t-tests at the MDD.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from skrank import InvalidParameterError
from skrank.stats import minimum_detectable_difference, power


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
