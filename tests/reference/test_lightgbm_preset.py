"""preset="lightgbm" equals LightGBM's own ndcg@k and map@k bit for bit.

LightGBM evaluates its metrics on a validation set's init_score before any boosting round
(``Booster.eval_valid()``), so it scores exactly the array we give it.
"""

from __future__ import annotations

import lightgbm as lgb
import numpy as np
import pytest

import skrank
from skrank.datasets import load_lambdarank_example

KS = [1, 2, 3, 5, 10, 30]


def lightgbm_values(y, s, sizes, weight=None, label_gain=None):
    params = dict(objective="lambdarank", metric=["ndcg", "map"], eval_at=KS, verbose=-1,
                  num_threads=1)
    if label_gain is not None:
        params["label_gain"] = list(label_gain)
    X = np.zeros((len(y), 1))
    train = lgb.Dataset(X, label=y, group=sizes, init_score=s, weight=weight,
                        params={"verbose": -1})
    booster = lgb.Booster(params, train)
    valid = lgb.Dataset(X, label=y, group=sizes, init_score=s, weight=weight, reference=train)
    booster.add_valid(valid, "v")
    return {name: value for _, name, value, _ in booster.eval_valid()}


def skrank_values(y, s, sizes, weight=None, label_gain=None):
    metrics = [f"ndcg@{k}" for k in KS] + [f"ap@{k}" for k in KS]
    res = skrank.evaluate(y, s, group=sizes, metrics=metrics, preset="lightgbm",
                          sample_weight=weight, gain=label_gain)
    return {m.replace("ap@", "map@"): v for m, v in res.means.items()}


def random_tied(seed, weights=False, zero_queries=True, max_label=4):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, rng.integers(1, 30))
    n = int(sizes.sum())
    y = rng.integers(0, max_label + 1, n)
    if zero_queries:
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        for q in np.flatnonzero(rng.random(len(sizes)) < 0.2):
            y[starts[q]:starts[q] + sizes[q]] = 0
    # few distinct scores: heavy ties; some scores differ only in the last float64 bits
    s = rng.integers(0, 4, n).astype(np.float64) * 0.1
    s[rng.random(n) < 0.1] += 1e-17
    w = rng.uniform(0.2, 3.0, n).astype(np.float32) if weights else None
    return y, s, sizes, w


@pytest.mark.parametrize("seed", range(40))
def test_bit_for_bit_on_random_tied_data(seed):
    y, s, sizes, _ = random_tied(seed)
    assert skrank_values(y, s, sizes) == lightgbm_values(y, s, sizes)


@pytest.mark.parametrize("seed", range(15))
def test_bit_for_bit_with_query_weights(seed):
    # LightGBM: a query's weight is the float32 mean of its rows' float32 weights, and a query
    # without relevant documents adds an unweighted 1.0
    y, s, sizes, w = random_tied(100 + seed, weights=True)
    assert skrank_values(y, s, sizes, w) == lightgbm_values(y, s, sizes, w)


@pytest.mark.parametrize("seed", range(15))
def test_bit_for_bit_with_float64_query_weights(seed):
    # LightGBM stores float64 weights as float32 (label_t) before taking a query's mean: the
    # preset does too (weight_precision="float32"); summed as float64, 0 of 60 random cases
    # were bit-identical (issue 13, measured with LightGBM 4.7.0)
    y, s, sizes, w32 = random_tied(300 + seed, weights=True)
    w = w32.astype(np.float64) * (1.0 + np.random.default_rng(seed).uniform(0, 1e-6, len(w32)))
    assert skrank_values(y, s, sizes, w) == lightgbm_values(y, s, sizes, w)


def test_weights_beyond_float32_are_refused_by_the_preset():
    y, s, sizes, _ = random_tied(400)
    w = np.ones(len(y))
    w[3] = 1e300
    with pytest.raises(skrank.InputError, match=r"fit float32 .*Got 1e\+300 at row 3"):
        skrank_values(y, s, sizes, w)
    # without the preset's float32 weights the value is kept as given
    skrank.evaluate(y, s, group=sizes, sample_weight=w)


@pytest.mark.parametrize("seed", range(10))
def test_bit_for_bit_with_custom_label_gain(seed):
    gain = [0.0, 1.5, 2.0, 7.25, 40.0, 41.0]
    y, s, sizes, _ = random_tied(200 + seed, max_label=5)
    assert skrank_values(y, s, sizes, label_gain=gain) == lightgbm_values(
        y, s, sizes, label_gain=gain
    )


def test_label_gain_that_does_not_increase_with_the_label():
    # LightGBM builds its ideal DCG in label order, not gain order: with label 4 worth less
    # than label 3 its NDCG exceeds 1 (issue 13: 1.0357 in LightGBM 4.7, skrank gave 1.0).
    # The preset reproduces it (ideal_order="label"); the default keeps the true maximum DCG.
    gain = [0.0, 1.0, 3.0, 7.25, 7.0]
    y, s, sizes = np.array([3, 4, 0]), np.array([3.0, 2.0, 1.0]), np.array([3])
    theirs = lightgbm_values(y, s, sizes, label_gain=gain)
    assert theirs["ndcg@1"] == pytest.approx(1.0357142857142856, abs=0)
    assert skrank_values(y, s, sizes, label_gain=gain) == theirs
    assert skrank.ndcg(y, s, group=sizes, k=1, gain=gain).value == 1.0
    assert skrank.ndcg(y, s, group=sizes, k=1, gain=gain, preset="lightgbm",
                       ideal_order="gain").value == 1.0


@pytest.mark.parametrize("seed", range(10))
def test_bit_for_bit_with_label_gain_not_increasing(seed):
    gain = [0.0, 5.0, 1.0, 7.25, 7.0, 2.5]
    y, s, sizes, w = random_tied(500 + seed, weights=seed % 2 == 1, max_label=5)
    assert skrank_values(y, s, sizes, w, label_gain=gain) == lightgbm_values(
        y, s, sizes, w, label_gain=gain
    )


def test_all_queries_without_relevant_documents():
    sizes = np.array([3, 2])
    y = np.zeros(5, dtype=int)
    s = np.array([0.3, 0.2, 0.1, 0.5, 0.5])
    assert skrank_values(y, s, sizes) == lightgbm_values(y, s, sizes)


def test_on_the_bundled_data_with_a_trained_model():
    data = load_lambdarank_example()
    ranker = lgb.LGBMRanker(n_estimators=20, num_leaves=3, min_child_samples=50,
                            learning_rate=0.1, n_jobs=1, verbose=-1)
    ranker.fit(data.X_train, data.y_train, group=data.group_train)
    s = ranker.predict(data.X_test)
    assert len(np.unique(s)) < len(s)  # the coarse model ties
    ours = skrank_values(data.y_test, s, data.group_test)
    theirs = lightgbm_values(data.y_test, s, data.group_test)
    assert ours == theirs
