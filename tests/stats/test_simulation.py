"""Validation by simulation: under a null hypothesis the tests reject at their nominal rate.

2,000 simulated experiments of 25 queries with fixed seeds. At a true rejection rate of 5% the
binomial SD of the observed rate over 2,000 runs is sqrt(0.05 * 0.95 / 2000) = 0.49 percentage
points, so the band of +-1.5 points is about 3 SD. Under an alternative the same tests must
reject far more often (a test that never rejects would pass the null check alone).

To stay fast the t and Wilcoxon p-values of the 2,000 runs are computed in one vectorised call
of the same scipy functions paired_comparison calls; test_vectorised_path_is_paired_comparison
proves on the first runs that this gives paired_comparison's p-values exactly. The randomisation
p-values come from skrank's own randomization_test (the same code and random stream as
paired_comparison with the same seed).

The bootstrap coverage check lives in test_bootstrap.py, the power / MDD check in test_power.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from skrank.stats import paired_comparison, randomization_test

N_SIMS = 2000
N_QUERIES = 25
# B = 199: the randomisation p-value is (b + 1) / 200, and P(p <= 0.05) = P(b <= 9) = 10 / 200,
# exactly 5% for continuous data.
B = 199
METRIC_VALUES = np.array([0.0, 0.3, 0.5, 0.63, 1.0])


def _null_differences(kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        # Symmetric about 0, heavier tails than normal: a normal / Laplace mix.
        return np.where(rng.random((N_SIMS, N_QUERIES)) < 0.5,
                        rng.normal(0, 0.1, (N_SIMS, N_QUERIES)),
                        rng.laplace(0, 0.07, (N_SIMS, N_QUERIES)))
    # Two exchangeable systems on a discrete metric (like NDCG of short lists): many exact
    # ties (zero differences) and repeated values.
    p = [0.3, 0.1, 0.2, 0.1, 0.3]
    a = rng.choice(METRIC_VALUES, size=(N_SIMS, N_QUERIES), p=p)
    b = rng.choice(METRIC_VALUES, size=(N_SIMS, N_QUERIES), p=p)
    return a - b


def _pvalues(d, alternative="two-sided"):
    t = stats.ttest_1samp(d, 0.0, axis=1, alternative=alternative).pvalue
    w = stats.wilcoxon(d, axis=1, alternative=alternative).pvalue
    r = np.array([randomization_test(row, n_permutations=B, alternative=alternative,
                                     rng=i).pvalue for i, row in enumerate(d)])
    return {"randomization": r, "t": t, "wilcoxon": w}


@pytest.mark.parametrize("kind", ["continuous", "discrete"])
def test_vectorised_path_is_paired_comparison(kind):
    d = _null_differences(kind, seed=1)[:25]
    fast = _pvalues(d)
    for i, row in enumerate(d):
        res = paired_comparison(row, np.zeros(N_QUERIES), n_resamples=10, n_permutations=B,
                                rng=i)
        assert res.randomization.pvalue == fast["randomization"][i]
        assert res.t_test.pvalue == pytest.approx(fast["t"][i], rel=1e-12)
        assert res.wilcoxon.pvalue == pytest.approx(fast["wilcoxon"][i], rel=1e-12)


@pytest.mark.parametrize("kind", ["continuous", "discrete"])
def test_null_rejection_rate_is_nominal(kind):
    d = _null_differences(kind, seed=2024)
    for name, p in _pvalues(d).items():
        rate = float(np.mean(p <= 0.05))
        assert rate == pytest.approx(0.05, abs=0.015), (kind, name, rate)


def test_one_sided_null_rejection_rate_is_nominal():
    d = _null_differences("continuous", seed=7)
    for name, p in _pvalues(d, alternative="greater").items():
        rate = float(np.mean(p <= 0.05))
        assert rate == pytest.approx(0.05, abs=0.015), (name, rate)


def test_tests_reject_under_an_alternative():
    # A true difference of 0.06 with SD 0.1 over 25 queries: the t-test has about 90% power
    # (noncentral t); all three tests, through paired_comparison, must reject most of the time.
    n_sims = 100
    rng = np.random.default_rng(99)
    rejected = {"randomization": 0, "t": 0, "wilcoxon": 0}
    for i in range(n_sims):
        d = rng.normal(0.06, 0.1, size=N_QUERIES)
        res = paired_comparison(d, np.zeros(N_QUERIES), n_resamples=10, n_permutations=B,
                                rng=i)
        for name, p in res.pvalues.items():
            rejected[name] += p <= 0.05
    for name, count in rejected.items():
        assert count / n_sims > 0.75, (name, count / n_sims)
