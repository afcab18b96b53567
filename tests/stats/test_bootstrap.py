"""Bootstrap intervals of a mean (percentile, BCa).

References: scipy.stats.bootstrap (percentile and BCa, same data, independent resamples:
agreement within Monte Carlo error); the textbook BCa computed here with an explicit jackknife
loop over the same bootstrap replicates (Efron & Tibshirani 1993, ch. 14).
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr, ndtri

from skrank import InputError, InvalidParameterError
from skrank.stats import bootstrap_ci
from skrank.stats._bootstrap import bca_interval, bootstrap_means, percentile_interval

_RNG_KW = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("shape", ["normal", "skewed"])
def test_agrees_with_scipy_bootstrap(method, shape):
    rng = np.random.default_rng(0)
    if shape == "normal":
        d = rng.normal(0.02, 0.1, size=50)
    else:  # per-query differences of a ranking metric are often skewed by a few big wins
        d = rng.exponential(0.1, size=50) - 0.08
    ours = bootstrap_ci(d, method=method, n_resamples=20_000, rng=1)
    ref = stats.bootstrap(
        (d,), np.mean, method="BCa" if method == "bca" else "percentile",
        n_resamples=20_000, **{_RNG_KW: np.random.default_rng(2)},
    ).confidence_interval
    # Monte Carlo SD of a 2.5% bootstrap quantile with B = 2e4 is about
    # se * sqrt(0.025 * 0.975 / 2e4) / phi(1.96) = 0.019 se; two independent runs: 0.027 se.
    # 0.15 se is more than 5 SD.
    se = d.std(ddof=1) / np.sqrt(d.size)
    assert ours.low == pytest.approx(ref.low, abs=0.15 * se)
    assert ours.high == pytest.approx(ref.high, abs=0.15 * se)


def test_bca_formula_against_explicit_jackknife():
    rng = np.random.default_rng(3)
    d = rng.exponential(0.2, size=25) - 0.1
    boot = bootstrap_means(d, 4000, np.random.default_rng(4))
    # Textbook BCa: z0 from the share of replicates below the estimate (ties count half),
    # acceleration from a leave-one-out loop.
    theta = d.mean()
    share = (np.sum(boot < theta) + 0.5 * np.sum(boot == theta)) / boot.size
    z0 = ndtri(share)
    jack = np.array([np.delete(d, i).mean() for i in range(d.size)])
    dev = jack.mean() - jack
    accel = np.sum(dev**3) / (6 * np.sum(dev**2) ** 1.5)
    levels = [ndtr(z0 + (z0 + z) / (1 - accel * (z0 + z))) for z in ndtri([0.025, 0.975])]
    expected = np.quantile(boot, levels)
    assert bca_interval(d, boot, 0.95) == pytest.approx(tuple(expected), rel=1e-12)
    assert percentile_interval(boot, 0.95) == pytest.approx(
        tuple(np.quantile(boot, [0.025, 0.975])), rel=1e-12)


def test_bootstrap_means_resample_the_data():
    d = np.array([0.0, 1.0])
    boot = bootstrap_means(d, 4000, np.random.default_rng(0))
    # Means of 2 draws from {0, 1}: 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4.
    assert set(np.unique(boot)) <= {0.0, 0.5, 1.0}
    assert np.mean(boot == 0.5) == pytest.approx(0.5, abs=0.04)  # 5 SD = 5 * 0.0079


def test_coverage_by_simulation():
    # 2,000 simulated experiments of 40 queries with a known true mean difference of 0.02:
    # the 95% intervals should cover it about 95% of the time. The binomial SD over 2,000 runs
    # is 0.49 percentage points; bootstrap intervals of a mean of 40 normal values are known to
    # under-cover slightly (about 94%), so the band is [92.5%, 96.5%].
    rng = np.random.default_rng(10)
    true = 0.02
    n_sims, n, b = 2000, 40, 499
    hits = {"percentile": 0, "bca": 0}
    for _ in range(n_sims):
        d = rng.normal(true, 0.1, size=n)
        boot = bootstrap_means(d, b, rng)
        lo, hi = percentile_interval(boot, 0.95)
        hits["percentile"] += lo <= true <= hi
        lo, hi = bca_interval(d, boot, 0.95)
        hits["bca"] += lo <= true <= hi
    for method, h in hits.items():
        assert 0.925 <= h / n_sims <= 0.965, (method, h / n_sims)


def test_constant_values_give_a_point_interval():
    ci = bootstrap_ci([0.3, 0.3, 0.3], rng=0)
    assert (ci.low, ci.high) == (0.3, 0.3)


def test_same_seed_same_interval():
    d = np.random.default_rng(0).normal(size=30)
    assert bootstrap_ci(d, rng=5) == bootstrap_ci(d, rng=5)
    assert bootstrap_ci(d, rng=5) != bootstrap_ci(d, rng=6)


def test_interval_object():
    ci = bootstrap_ci([0.1, 0.2, -0.1, 0.3, 0.05], confidence_level=0.9, n_resamples=1000, rng=0)
    assert ci.confidence == 0.9 and ci.n_resamples == 1000 and ci.method == "bca"
    assert ci.low in ci and 10.0 not in ci
    assert ci.to_dict() == {"low": ci.low, "high": ci.high, "confidence": 0.9, "method": "bca",
                            "n_resamples": 1000}
    assert str(ci).startswith("[") and str(ci).endswith("]")


def test_bad_input():
    with pytest.raises(InputError, match=r"values has 1 NaN value\(s\)"):
        bootstrap_ci([0.1, np.nan, 0.3])
    with pytest.raises(InputError, match="at least 2 values are needed; got 1"):
        bootstrap_ci([0.1])
    with pytest.raises(InvalidParameterError,
                       match=re.escape("The 'method' parameter of bootstrap_ci must be one of "
                                       "'bca', 'percentile'. Got 'BCa' instead.")):
        bootstrap_ci([0.1, 0.2], method="BCa")
    with pytest.raises(InvalidParameterError,
                       match="The 'confidence_level' parameter of bootstrap_ci"):
        bootstrap_ci([0.1, 0.2], confidence_level=95)
