"""Bootstrap intervals of a mean (percentile, BCa).

References: scipy.stats.bootstrap, which draws skrank's resamples: called here with the same
seed stream (the first child of the seed's SeedSequence) and the same batch size, its percentile
interval and its BCa interval (acceleration by SciPy's jackknife) are the expected values, to
rounding; the textbook BCa computed here with an explicit jackknife loop over the same bootstrap
replicates (Efron & Tibshirani 1993, ch. 14).
"""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr, ndtri

from skrank import InputError, InvalidParameterError
from skrank.stats import bootstrap_ci
from skrank.stats._bootstrap import (
    BATCH_ELEMENTS,
    bca_interval,
    bootstrap_intervals,
    bootstrap_means,
    percentile_interval,
)

_RNG_KW = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"


def scipy_bootstrap(d, seed, method, n_resamples, confidence_level=0.95, bootstrap_result=None):
    """scipy.stats.bootstrap of the mean as bootstrap_ci seeds and batches it."""
    stream = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    return stats.bootstrap((d,), np.mean, method=method, n_resamples=n_resamples,
                           confidence_level=confidence_level, vectorized=True,
                           batch=max(1, BATCH_ELEMENTS // d.size),
                           bootstrap_result=bootstrap_result, **{_RNG_KW: stream})


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize(("shape", "n", "confidence"),
                         [("normal", 50, 0.95), ("skewed", 50, 0.9), ("skewed", 3000, 0.99)])
def test_equals_scipy_bootstrap_with_the_same_stream(method, shape, n, confidence):
    rng = np.random.default_rng(0)
    if shape == "normal":
        d = rng.normal(0.02, 0.1, size=n)
    else:  # per-query differences of a ranking metric are often skewed by a few big wins
        d = rng.exponential(0.1, size=n) - 0.08
    ours = bootstrap_ci(d, method=method, n_resamples=5_000, confidence_level=confidence, rng=1)
    ref = scipy_bootstrap(d, 1, "BCa" if method == "bca" else "percentile", 5_000,
                          confidence).confidence_interval
    # The same resamples: equal but for the rounding of the quantile levels (BCa's
    # acceleration: skrank's closed form, SciPy's jackknife).
    assert ours.low == pytest.approx(ref.low, rel=1e-9, abs=1e-15)
    assert ours.high == pytest.approx(ref.high, rel=1e-9, abs=1e-15)


def test_bca_closed_form_equals_scipy_jackknife_on_the_same_resamples():
    d = np.random.default_rng(5).lognormal(0.0, 1.0, size=400) - 1.2  # strongly skewed
    res = scipy_bootstrap(d, 7, "percentile", 2_000)
    ref = scipy_bootstrap(d, 7, "BCa", 0, bootstrap_result=res).confidence_interval
    ours = bca_interval(d, res.bootstrap_distribution, 0.95)
    assert ours == pytest.approx((ref.low, ref.high), rel=1e-9)
    assert (res.confidence_interval.low, res.confidence_interval.high) == pytest.approx(
        percentile_interval(res.bootstrap_distribution, 0.95), rel=1e-12)


def test_bca_formula_against_explicit_jackknife():
    rng = np.random.default_rng(3)
    d = rng.exponential(0.2, size=25) - 0.1
    boot = bootstrap_means(d, 4000, 0.95, np.random.default_rng(4)).bootstrap_distribution
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
    ticks = []
    boot = bootstrap_means(d, 4000, 0.95, np.random.default_rng(0),
                           ticks.append).bootstrap_distribution
    assert boot.size == 4000 and sum(ticks) == 4000  # every batch is counted, once
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
        (lo, hi), (blo, bhi) = bootstrap_intervals(d, b, 0.95, rng)
        hits["percentile"] += lo <= true <= hi
        hits["bca"] += blo <= true <= bhi
    for method, h in hits.items():
        assert 0.925 <= h / n_sims <= 0.965, (method, h / n_sims)


def test_constant_values_give_a_point_interval():
    ci = bootstrap_ci([0.3, 0.3, 0.3], rng=0)
    assert (ci.low, ci.high) == (0.3, 0.3)


def test_bca_undefined_when_every_resample_falls_on_one_side():
    # With one resample, the share of resampled means below the observed mean is 0 or 1 (1/2
    # only if the resample is the data reordered, not with this seed): BCa is undefined.
    d = np.array([0.0, 1.0, 0.25])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning from SciPy either
        ci = bootstrap_ci(d, n_resamples=1, rng=0)
    assert np.isnan(ci.low) and np.isnan(ci.high)
    assert not np.isnan(bootstrap_ci(d, n_resamples=1, rng=0, method="percentile").low)


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
