"""Online results carry ``Interval`` objects, as the statistics do (issue 14: one vocabulary).

Each interval says its level and method, unpacks and indexes as the ``(low, high)`` pair it
replaced, and ``to_dict()`` still writes it as ``[low, high]``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from skrank.online import (
    interleaving_test,
    ips,
    ratio_metric,
    ratio_ztest,
    two_proportion_ztest,
)
from skrank.stats import Interval


def _cases():
    rng = np.random.default_rng(0)
    yield "normal", two_proportion_ztest(40, 1000, 55, 1000)
    yield "normal", ratio_ztest([1, 3, 0, 2], [4, 6, 2, 4], [3, 2, 4, 3], [5, 4, 6, 5])
    yield "normal", ratio_metric([1, 3, 0, 2], [4, 6, 2, 4])
    yield "percentile", interleaving_test(rng.choice([-1, 0, 1], 200), rng=1)
    yield "normal", ips([1.0, 0.0, 1.0], [0, 1, 0], [0.5, 0.25, 0.8],
                        [[0.9, 0.1], [0.5, 0.5], [0.4, 0.6]])


@pytest.mark.parametrize(("method", "res"), list(_cases()))
def test_results_carry_intervals_that_unpack_as_pairs(method, res):
    ci = res.ci
    assert isinstance(ci, Interval)
    assert ci.method == method and ci.confidence == res.confidence_level
    low, high = ci
    assert (low, high) == (ci.low, ci.high) == (ci[0], ci[1]) and len(ci) == 2
    assert low <= high
    as_dict = res.to_dict()
    assert as_dict["ci"] == [low, high]
    json.dumps(as_dict)


def test_bootstrap_intervals_say_their_resamples():
    res = interleaving_test(np.r_[np.ones(30), -np.ones(20)], rng=2, n_resamples=500)
    assert res.ci.n_resamples == 500


def test_statistics_results_answer_to_confidence_level_too():
    from skrank.stats import paired_comparison

    rng = np.random.default_rng(0)
    a = rng.random(50)
    res = paired_comparison(a, a + 0.01 * rng.standard_normal(50), rng=0, n_resamples=200,
                            confidence_level=0.9)
    assert res.confidence_level == res.confidence == 0.9
    assert res.ci_t.confidence_level == 0.9
    low, high = res.ci_percentile
    assert low < high
