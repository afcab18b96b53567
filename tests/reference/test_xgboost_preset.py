"""preset="xgboost" equals XGBoost's own ranking metrics to the 17 digits it prints.

XGBoost evaluates a booster trained for zero rounds on the DMatrix's base_margin, so it scores
exactly the array we give it (as float32, the precision it ranks in).
"""

from __future__ import annotations

import numpy as np
import pytest
import xgboost as xgb

import skrank


def xgboost_printed(y, s, qid, metrics, objective="rank:ndcg", exp_gain=True):
    d = xgb.DMatrix(np.zeros((len(y), 1)), label=y, qid=qid, base_margin=s)
    params = {"objective": objective, "eval_metric": metrics, "nthread": 1,
              "ndcg_exp_gain": exp_gain}
    booster = xgb.train(params, d, num_boost_round=0)
    fields = booster.eval(d, "v").split("\t")[1:]
    return {f[2:].split(":")[0]: float(f.split(":")[1]) for f in fields}


def skrank_printed(y, s, qid, metrics, **conventions):
    out = {}
    for name in metrics:
        base = name.rstrip("-")
        skrank_name = base.replace("map", "ap").replace("pre", "p")
        empty = "zero" if name.endswith("-") else None
        r = skrank.evaluate(y, s, qid, metrics=[skrank_name], preset="xgboost", empty=empty,
                            **conventions)
        out[name] = float(f"{r[skrank_name].value:.17g}")
    return out


def random_tied(seed, binary=False):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 60, rng.integers(1, 25))
    n = int(sizes.sum())
    y = rng.integers(0, 2 if binary else 5, n)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    for q in np.flatnonzero(rng.random(len(sizes)) < 0.2):
        y[starts[q]:starts[q] + sizes[q]] = 0
    s = rng.integers(0, 5, n).astype(np.float64) * 0.1
    # differences below float32 resolution: distinct in float64, tied for XGBoost
    s += rng.integers(0, 2, n) * 1e-9
    qid = np.repeat(np.arange(len(sizes)), sizes)
    return y, s, qid


GRADED = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@5-", "ndcg@10", "ndcg@10-", "ndcg", "ndcg-"]
BINARY = ["map@3", "map@5", "map@5-", "map@10", "map", "map-", "pre@1", "pre@5", "pre@10",
          "pre"]


@pytest.mark.parametrize("seed", range(25))
def test_ndcg_exponential_gain(seed):
    y, s, qid = random_tied(seed)
    assert skrank_printed(y, s, qid, GRADED) == xgboost_printed(y, s, qid, GRADED)


@pytest.mark.parametrize("seed", range(10))
def test_ndcg_linear_gain(seed):
    y, s, qid = random_tied(50 + seed)
    ours = skrank_printed(y, s, qid, GRADED, gain="linear")
    assert ours == xgboost_printed(y, s, qid, GRADED, exp_gain=False)


@pytest.mark.parametrize("seed", range(25))
def test_map_and_precision(seed):
    y, s, qid = random_tied(100 + seed, binary=True)
    ours = skrank_printed(y, s, qid, BINARY)
    assert ours == xgboost_printed(y, s, qid, BINARY, objective="rank:map")


@pytest.mark.parametrize("seed", range(10))
def test_non_integer_labels_are_float32_labels(seed):
    # XGBoost stores labels as float32: under linear gain non-integer labels are rounded
    # (issue 13: every value differed, by up to 1.7e-8 here; label_precision="float32")
    y, s, qid = random_tied(300 + seed)
    rng = np.random.default_rng(seed)
    y = y + np.round(rng.random(len(y)) * 0.7, 3) * (y > 0)
    ours = skrank_printed(y, s, qid, GRADED, gain="linear")
    assert ours == xgboost_printed(y, s, qid, GRADED, exp_gain=False)
    as_float64 = skrank_printed(y, s, qid, GRADED, gain="linear", label_precision="float64")
    assert as_float64 != ours


def xgboost_weighted(y, s, qid, w, metrics):
    d = xgb.DMatrix(np.zeros((len(y), 1)), label=y, qid=qid, base_margin=s, weight=w)
    objective = "rank:map" if set(np.unique(y)) <= {0, 1} else "rank:ndcg"
    booster = xgb.train({"objective": objective, "eval_metric": metrics, "nthread": 1}, d,
                        num_boost_round=0)
    fields = booster.eval(d, "v").split("\t")[1:]
    return {f[2:].split(":")[0]: float(f.split(":")[1]) for f in fields}


@pytest.mark.parametrize("seed", range(15))
def test_weighted_precision(seed):
    # XGBoost's pre@k adds (hits * weight) / k per query, then divides by the summed weights;
    # weight * (hits / k) differed by 1-3 ulp in 7 of these 75 pre values (issue 13)
    y, s, qid = random_tied(700 + seed, binary=True)
    w = np.random.default_rng(seed).uniform(0.2, 3, qid.max() + 1).astype(np.float32)
    metrics = ["pre@1", "pre@3", "pre@5", "pre@10", "pre", "map@5", "map"]
    theirs = xgboost_weighted(y, s, qid, w, metrics)
    ours = skrank_printed(y, s, qid, metrics, sample_weight=w[qid].astype(np.float64))
    assert ours == theirs


def test_float32_ranking_is_what_ties():
    # two scores equal in float32: input order decides under XGBoost's preset
    y = np.array([0, 2])
    s = np.array([1.0, 1.0 + 1e-9])
    assert skrank.ndcg(y, s, [0, 0], k=1, preset="xgboost").value == 0.0
    assert skrank.ndcg(y, s, [0, 0], k=1, preset="xgboost",
                       score_precision="float64").value == 1.0


def test_query_weights_and_empty_queries():
    # XGBoost adds the 1 of a query without relevant documents unweighted in ndcg@k and
    # weighted in map@k (reproducer from the training-metric tests)
    y = np.array([0, 0, 1, 0])
    s = np.array([0.3, 0.2, 0.1, 0.9])
    qid = np.array([1, 1, 2, 2])
    w = np.array([0.5, 2.0], dtype=np.float32)
    d = xgb.DMatrix(np.zeros((4, 1)), label=y, qid=qid, base_margin=s, weight=w)
    booster = xgb.train({"objective": "rank:map", "eval_metric": ["ndcg@2", "map@2"],
                         "nthread": 1}, d, num_boost_round=0)
    fields = booster.eval(d, "v").split("\t")[1:]
    theirs = {f[2:].split(":")[0]: float(f.split(":")[1]) for f in fields}
    row_w = w[[0, 0, 1, 1]]
    res = skrank.evaluate(y, s, qid, metrics=["ndcg@2", "ap@2"], preset="xgboost",
                          sample_weight=row_w)
    assert float(f"{res['ndcg@2'].value:.17g}") == theirs["ndcg@2"]
    assert float(f"{res['ap@2'].value:.17g}") == theirs["map@2"]


@pytest.mark.parametrize("seed", range(10))
def test_float64_query_weights_are_float32_group_weights(seed):
    # XGBoost holds its one weight per query group as float32; float64 weights given to
    # every row of their query were averaged in float64 and differed from XGBoost's values
    # (issue 13); weight_precision="float32" and one weight per query reproduce them
    y, s, qid = random_tied(900 + seed, binary=seed % 2 == 0)
    w = np.random.default_rng(seed).uniform(0.2, 3, qid.max() + 1)
    metrics = ["ndcg@3", "ndcg@10", "ndcg"]
    if seed % 2 == 0:  # rank:map takes binary labels only
        metrics += ["map@5", "map", "pre@5", "pre"]
    theirs = xgboost_weighted(y, s, qid, w, metrics)
    assert skrank_printed(y, s, qid, metrics, sample_weight=w[qid]) == theirs


def test_rows_of_a_query_with_different_weights_are_refused():
    y, s, qid = random_tied(950)
    w = np.random.default_rng(0).uniform(0.2, 3, len(y))  # one weight per row
    with pytest.raises(xgb.core.XGBoostError, match="number of query groups"):
        xgboost_weighted(y, s, qid, w, ["ndcg@5"])
    with pytest.raises(skrank.InputError, match=r"The 'sample_weight' parameter of evaluate "
                                                r"must give every row of a query the same "
                                                r"weight under arithmetic='xgboost'"):
        skrank.evaluate(y, s, qid, metrics=["ndcg@5"], preset="xgboost", sample_weight=w)
    # the LightGBM rule (the mean of the rows' weights) takes them
    skrank.evaluate(y, s, qid, metrics=["ndcg@5"], preset="xgboost", sample_weight=w,
                    arithmetic="lightgbm")
