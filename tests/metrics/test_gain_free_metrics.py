"""The gain convention limits only the metrics that use it (NDCG and DCG).

AP, P, R, Hit and RR judge a row relevant or not (``label >= rel_min``): a label a gain
could not take (above 1000 under ``gain="exp"``, beyond a gain table, negative under a gain
other than linear) is only a relevant, or a not relevant, row to them. ERR has its own
``2**label`` and limits its labels whatever the gain. The oracle is each metric on the
binary labels ``label >= rel_min`` (0 or 1, which every gain takes).
"""

from __future__ import annotations

import numpy as np
import pytest

import skrank
from skrank import InputError

BINARY = ["ap", "p@3", "r@5", "hit@2", "rr", "ap@4"]
GAINS = ["exp", "linear", (0, 1, 3), "lightgbm"]


def _data(seed: int, n_queries: int = 40):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    score = rng.integers(0, 4, qid.shape[0]).astype(float)  # ties
    label = rng.choice([-3, 0, 1, 2, 5, 40, 1001, 5000], qid.shape[0])
    return label, score, qid


def _kwargs(gain):
    return {"preset": "lightgbm"} if gain == "lightgbm" else {"gain": gain}


@pytest.mark.parametrize("gain", GAINS)
@pytest.mark.parametrize("ties", ["pessimistic", "optimistic", "average", "input"])
@pytest.mark.parametrize("seed", [0, 1])
def test_binary_metrics_take_any_label_whatever_the_gain(gain, ties, seed):
    label, score, qid = _data(seed)
    kwargs = {**_kwargs(gain), "ties": ties}
    got = skrank.evaluate(label, score, qid, metrics=BINARY, **kwargs)
    rel_min = got.conventions.rel_min  # 1: labels 1 and above are relevant
    binary = (label >= rel_min).astype(np.int64)
    want = skrank.evaluate(binary, score, qid, metrics=BINARY, **kwargs)
    got_q, want_q = got.per_query(), want.per_query()
    assert list(got_q) == list(want_q)
    for name in want_q:
        np.testing.assert_array_equal(got_q[name], want_q[name])
    for metric in want:
        assert float(got[metric]) == float(want[metric])


def test_a_gain_metric_still_refuses_what_its_gain_cannot_take():
    label, score, qid = _data(3)
    with pytest.raises(InputError, match=r"labels <= 1000 with gain='exp'") as info:
        skrank.evaluate(np.abs(label), score, qid, metrics=["ap", "ndcg@10"])
    row = info.value.row  # the first label above 1000
    assert np.abs(label)[row] > 1000 and (np.abs(label)[:row] <= 1000).all()
    assert f"Got {int(np.abs(label)[row])} at row {row} instead." in str(info.value)
    with pytest.raises(InputError, match=r"the gain table has 3 entries"):
        skrank.evaluate(np.abs(label), score, qid, metrics=["dcg@3", "rr"], gain=(0, 1, 3))
    with pytest.raises(InputError, match=r"non-negative relevance labels \(gain=exp\)"):
        skrank.evaluate(np.abs(label) * -1, score, qid, metrics=["ndcg"])


@pytest.mark.parametrize("gain", ["linear", "exp", (0, 1, 3)])
def test_err_refuses_labels_its_own_exponential_overflows(gain):
    # under gain="linear" this was a silent NaN: ERR's 2**label overflows above 1023
    y, s, q = np.array([2000, 0, 1]), np.array([2.0, 1.0, 0.5]), np.array([1, 1, 1])
    with pytest.raises(InputError, match=r"labels <= 1000 for ERR .* Got 2000 at row 0 "):
        skrank.evaluate(y, s, q, metrics=["err", "ap"], gain=gain)
    # up to 1000 ERR is a number: the top row's stopping probability is (2**1000 - 1) / 2**1000
    got = skrank.evaluate(np.array([1000, 0, 1]), s, q, metrics=["err"], gain=gain)
    assert got["err"] == pytest.approx(1.0)
