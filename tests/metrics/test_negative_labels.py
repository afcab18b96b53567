"""Negative labels under linear gain (issue 13): a negative gain, as scikit-learn's dcg_score
takes it; NDCG and ERR refuse them, as scikit-learn's ndcg_score does.

Expected values: sklearn.metrics.dcg_score (ignore_ties=False, i.e. ties averaged) on the
same query; before the fix every call below raised "must hold non-negative relevance labels".
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import dcg_score, ndcg_score

import skrank
from skrank.exceptions import InputError


def _query(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    y = rng.integers(-3, 4, n)
    y[0] = int(rng.integers(1, 4))  # a positive gain: the query is not empty
    s = rng.integers(0, 4, n).astype(float)  # ties
    return y, s


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_dcg_with_negative_labels_equals_sklearn_dcg_score(seed, k):
    y, s = _query(seed)
    name = "dcg" if k is None else f"dcg@{k}"
    res = skrank.evaluate(y, s, np.zeros(y.size), metrics=[name], preset="sklearn")[name]
    assert res.value == pytest.approx(dcg_score([y], [s], k=k), rel=1e-12, abs=1e-12)


def test_several_queries_and_float_labels():
    rng = np.random.default_rng(5)
    sizes = [5, 7, 3, 6]
    qid = np.repeat(np.arange(4), sizes)
    y = np.round(rng.uniform(-2, 3, qid.size), 1)
    y[np.r_[0, np.cumsum(sizes)[:-1]]] = 2.5
    s = rng.integers(0, 3, qid.size).astype(float)
    res = skrank.evaluate(y, s, qid, metrics=["dcg@4"], preset="sklearn")["dcg@4"]
    expected = [dcg_score([y[qid == q]], [s[qid == q]], k=4) for q in range(4)]
    np.testing.assert_allclose(res.per_query, expected, rtol=1e-12, atol=1e-12)


def test_binary_metrics_read_a_negative_label_as_not_relevant():
    y, s = _query(3)
    metrics = ["p@2", "r@3", "hit@1", "ap", "ap@3", "rr"]
    a = skrank.evaluate(y, s, np.zeros(y.size), metrics=metrics, gain="linear")
    b = skrank.evaluate(np.maximum(y, 0), s, np.zeros(y.size), metrics=metrics, gain="linear")
    assert (y < 0).any()
    for m in metrics:
        assert a[m].value == b[m].value


def test_a_query_without_positive_gain_is_empty():
    """skrank's ``empty`` rule decides (sklearn's dcg_score would return the negative sum)."""
    y, s = np.array([-1, 0, -2]), np.array([3.0, 2.0, 1.0])
    res = skrank.evaluate(y, s, np.zeros(3), metrics=["dcg"], gain="linear", empty="zero")
    assert res["dcg"].n_empty == 1 and res["dcg"].value == 0.0
    assert dcg_score([y], [s]) < 0


@pytest.mark.parametrize(("metric", "gain"), [("ndcg@3", "linear"), ("err@3", "linear"),
                                              ("dcg@3", "exp"), ("dcg@3", [0, 1, 3])])
def test_refused_where_they_have_no_meaning(metric, gain):
    y, s = np.array([2, -1, 0, 1]), np.array([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(InputError, match="non-negative relevance labels") as info:
        skrank.evaluate(y, s, np.zeros(4), metrics=[metric], gain=gain)
    assert "Got -1 at row 1" in str(info.value)
    if metric.startswith("ndcg"):
        with pytest.raises(ValueError, match="negative"):  # scikit-learn refuses them too
            ndcg_score([y], [s])
