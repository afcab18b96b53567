"""Several metrics, one predict: the multi-metric scorer, and no state kept between calls.

A counting estimator records every call of ``predict``; the counts with
``make_ranking_scorer([...])`` are compared with those of a dict of
``sklearn.metrics.make_scorer`` scorers in the same cross-validation or search. Nothing is
cached between calls: an estimator refitted in place (its weight array overwritten, the same
object) is scored on fresh predictions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.inspection import permutation_importance
from sklearn.metrics import make_scorer, mean_absolute_error, mean_squared_error
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import skrank
from skrank import average_precision_at, make_ranking_scorer, ndcg_at
from skrank.scorers import MultiMetricRankingScorer

CALLS = {"predict": 0}


class CountingRanker(BaseEstimator, RegressorMixin):
    """Least squares on the features (a qid column is dropped); counts predict calls."""

    def __init__(self, alpha=0.0):
        self.alpha = alpha

    def _features(self, X):
        if isinstance(X, pd.DataFrame):
            X = X.drop(columns="qid", errors="ignore")
        return np.asarray(X, dtype=float)

    def fit(self, X, y):
        A = self._features(X)
        A = np.c_[A, np.ones(len(A))]
        coef = np.linalg.solve(A.T @ A + self.alpha * np.eye(A.shape[1]), A.T @ y)
        if hasattr(self, "coef_") and self.coef_.shape == coef.shape:
            self.coef_[:] = coef  # refitted in place: the same array object, new weights
        else:
            self.coef_ = coef
        return self

    def predict(self, X):
        CALLS["predict"] += 1
        A = self._features(X)
        return np.c_[A, np.ones(len(A))] @ self.coef_


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(30), 8)
    X = rng.normal(size=(qid.size, 4))
    y = np.clip(np.round(X[:, 0] + 0.5 * rng.normal(size=qid.size)), 0, 3).astype(int)
    df = pd.DataFrame(X, columns=list("abcd"))
    df.insert(0, "qid", qid)
    return df, X, y, qid


def count(fn):
    CALLS["predict"] = 0
    fn()
    return CALLS["predict"]


SKLEARN_TWO = {
    "mse": make_scorer(mean_squared_error, greater_is_better=False),
    "mae": make_scorer(mean_absolute_error, greater_is_better=False),
}
SKRANK_THREE = make_ranking_scorer(["ndcg@5", "map@10", "rr"], ties="pessimistic")
SINGLE = {"ndcg@5": ndcg_at(5, ties="pessimistic"),
          "ap@10": average_precision_at(10, ties="pessimistic"),
          "rr": make_ranking_scorer("rr", ties="pessimistic")}


def test_the_multi_metric_scorer():
    assert isinstance(SKRANK_THREE, MultiMetricRankingScorer)
    assert SKRANK_THREE.names == ("ndcg@5", "ap@10", "rr")
    assert repr(SKRANK_THREE) == (
        "make_ranking_scorer(['ndcg@5', 'ap@10', 'rr'], ties='pessimistic')")
    rebuilt = eval(repr(SKRANK_THREE), {"make_ranking_scorer": make_ranking_scorer})
    assert rebuilt.names == SKRANK_THREE.names
    assert rebuilt.conventions == SKRANK_THREE.conventions


@pytest.mark.parametrize("return_train_score", [False, True])
def test_cross_validate_predicts_once_per_fold(data, return_train_score):
    df, _, y, qid = data

    def run(scoring):
        return lambda: cross_validate(CountingRanker(), df, y, groups=qid, cv=GroupKFold(5),
                                      scoring=scoring, return_train_score=return_train_score)

    theirs = count(run(SKLEARN_TWO))
    ours = count(run(SKRANK_THREE))
    assert theirs == 5 * (2 if return_train_score else 1)
    assert ours == theirs


def test_grid_search_predicts_once_per_fold_and_refits_on_a_name(data):
    df, _, y, qid = data
    search = GridSearchCV(CountingRanker(), {"alpha": [0.0, 10.0]}, cv=GroupKFold(3),
                          scoring=SKRANK_THREE, refit="ndcg@5")
    assert count(lambda: search.fit(df, y, groups=qid)) == 6
    assert {"mean_test_ndcg@5", "mean_test_ap@10", "mean_test_rr"} <= set(search.cv_results_)
    assert search.best_index_ == int(np.argmax(search.cv_results_["mean_test_ndcg@5"]))
    # the refitted search scores with the refit metric
    assert search.score(df, y) == SINGLE["ndcg@5"](search.best_estimator_, df, y)


def test_routed_multimetric_predicts_once_per_fold(data):
    _, X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        n = count(lambda: cross_validate(CountingRanker(), X, y, cv=GroupKFold(5),
                                         scoring=SKRANK_THREE,
                                         params={"qid": qid, "groups": qid}))
        search = GridSearchCV(CountingRanker(), {"alpha": [0.0, 10.0]}, cv=GroupKFold(3),
                              scoring=SKRANK_THREE, refit="rr")
        search.fit(X, y, qid=qid, groups=qid)
    assert n == 5
    assert search.best_index_ == int(np.argmax(search.cv_results_["mean_test_rr"]))


def test_multi_metric_values_equal_the_single_metric_scorers(data):
    df, _, y, qid = data
    multi = cross_validate(CountingRanker(), df, y, groups=qid, cv=GroupKFold(5),
                           scoring=SKRANK_THREE)
    for name, scorer in SINGLE.items():
        single = cross_validate(CountingRanker(), df, y, groups=qid, cv=GroupKFold(5),
                                scoring=scorer)
        np.testing.assert_array_equal(multi[f"test_{name}"], single["test_score"])


def test_a_dict_of_single_scorers_predicts_once_per_scorer(data):
    # nothing is shared between scorers any more: the multi-metric scorer is the way
    df, _, y, qid = data
    n = count(lambda: cross_validate(CountingRanker(), df, y, groups=qid, cv=GroupKFold(5),
                                     scoring=SINGLE))
    assert n == 5 * len(SINGLE)


def test_a_scorer_called_twice_predicts_twice(data):
    df, _, y, _ = data
    model = CountingRanker().fit(df, y)
    assert count(lambda: [SKRANK_THREE(model, df, y), SKRANK_THREE(model, df, y)]) == 2
    scorer = ndcg_at(5)
    assert count(lambda: [scorer(model, df, y), scorer(model, df, y)]) == 2


def _fresh(model, df, y):
    res = skrank.evaluate(y, model.predict(df), df["qid"], metrics=["ndcg@5", "ap@10", "rr"],
                          ties="pessimistic")
    return {name: res[name].value for name in res}


def test_estimator_refitted_in_place_gives_fresh_numbers(data):
    df, _, y, _ = data
    model = CountingRanker().fit(df, y)
    weights = model.coef_
    before = SKRANK_THREE(model, df, y)
    first = SINGLE["ndcg@5"](model, df, y)
    model.fit(df.assign(a=-df["a"]), y)  # same object, same weight array, new weights
    assert model.coef_ is weights
    after = SKRANK_THREE(model, df, y)
    assert after == _fresh(model, df, y)
    assert after != before
    assert SINGLE["ap@10"](model, df, y) == after["ap@10"]
    assert SINGLE["ndcg@5"](model, df, y) == after["ndcg@5"] != first


def test_pipeline_refitted_in_place_gives_fresh_numbers(data):
    df, _, y, _ = data
    pipe = make_pipeline(StandardScaler(), CountingRanker()).fit(df, y)
    before = SKRANK_THREE(pipe, df, y)
    pipe.fit(df.assign(a=-df["a"]), y)  # refits the steps in place
    after = SKRANK_THREE(pipe, df, y)
    assert after == _fresh(pipe, df, y)
    assert after != before


def test_x_changed_in_place_gives_fresh_numbers(data):
    df, X, y, qid = data
    model = CountingRanker().fit(df, y)
    SKRANK_THREE(model, df, y)
    df["a"] = df["a"].to_numpy()[::-1]
    assert SKRANK_THREE(model, df, y) == _fresh(model, df, y)
    X = X.copy()
    model = CountingRanker().fit(X, y)
    SKRANK_THREE(model, X, y, qid=qid)
    X[:, 0] = X[::-1, 0].copy()
    res = skrank.evaluate(y, model.predict(X), qid, metrics=["ndcg@5", "ap@10", "rr"],
                          ties="pessimistic")
    assert SKRANK_THREE(model, X, y, qid=qid) == {name: res[name].value for name in res}


def test_permutation_importance_multimetric_equals_single_metric(data):
    # permutation_importance shuffles the columns of one X in place; it takes a scorer that
    # returns a dict as it takes a dict of scorers
    df, _, y, _ = data
    model = CountingRanker().fit(df, y)
    multi = permutation_importance(model, df, y, scoring=SKRANK_THREE, n_repeats=3,
                                   random_state=0)
    for name, scorer in SINGLE.items():
        single = permutation_importance(model, df, y, scoring=scorer, n_repeats=3,
                                        random_state=0)
        np.testing.assert_array_equal(multi[name].importances, single.importances)
    # column "a" drives the labels: permuting it hurts
    assert multi["ndcg@5"].importances_mean[1] > 0.05


def test_the_process_wide_memo_is_gone():
    import importlib.util

    assert importlib.util.find_spec("skrank.scorers._memo") is None


def test_bad_metric_lists():
    with pytest.raises(skrank.InvalidParameterError,
                       match=r"'metrics' parameter of make_ranking_scorer must be a non-empty"):
        make_ranking_scorer([])
    with pytest.raises(skrank.InvalidParameterError, match=r"'metric' parameter"):
        make_ranking_scorer(["ndcg@5", "accuracy"])
