"""Several metrics, one predict: skrank scorers call predict as often as scikit-learn's own.

A counting estimator records every call of ``predict``; the counts with a dict of skrank
scorers are compared with those of a dict of ``sklearn.metrics.make_scorer`` scorers in the
same cross-validation or search. Reusing predictions must never return stale ones: refits,
changed ``X`` and permutations are checked against fresh computations.
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
from skrank import map_at, mrr_at, ndcg_at

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
        self.coef_ = np.linalg.solve(A.T @ A + self.alpha * np.eye(A.shape[1]), A.T @ y)
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
SKRANK_TWO = {"ndcg@5": ndcg_at(5), "map@10": map_at(10)}


@pytest.mark.parametrize("return_train_score", [False, True])
def test_cross_validate_predicts_as_often_as_sklearn(data, return_train_score):
    df, _, y, qid = data

    def run(scoring):
        return lambda: cross_validate(CountingRanker(), df, y, groups=qid, cv=GroupKFold(5),
                                      scoring=scoring, return_train_score=return_train_score)

    theirs = count(run(SKLEARN_TWO))
    ours = count(run(SKRANK_TWO))
    three = count(run({**SKRANK_TWO, "mrr": mrr_at(None)}))
    assert theirs == 5 * (2 if return_train_score else 1)
    assert ours == theirs
    assert three == theirs


def test_grid_search_predicts_as_often_as_sklearn(data):
    df, _, y, qid = data

    def run(scoring, refit):
        return lambda: GridSearchCV(CountingRanker(), {"alpha": [0.0, 10.0]}, cv=GroupKFold(3),
                                    scoring=scoring, refit=refit).fit(df, y, groups=qid)

    assert count(run(SKRANK_TWO, "ndcg@5")) == count(run(SKLEARN_TWO, "mse")) == 6


def test_routed_multimetric_predicts_once_per_fold(data):
    _, X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        n = count(lambda: cross_validate(CountingRanker(), X, y, cv=GroupKFold(5),
                                         scoring=SKRANK_TWO,
                                         params={"qid": qid, "groups": qid}))
    assert n == 5


def test_shared_predictions_give_the_single_metric_values(data):
    df, _, y, qid = data
    multi = cross_validate(CountingRanker(), df, y, groups=qid, cv=GroupKFold(5),
                           scoring=SKRANK_TWO)
    for name, scorer in SKRANK_TWO.items():
        single = cross_validate(CountingRanker(), df, y, groups=qid, cv=GroupKFold(5),
                                scoring=scorer)
        np.testing.assert_array_equal(multi[f"test_{name}"], single["test_score"])


def test_a_single_scorer_called_twice_predicts_twice(data):
    df, _, y, _ = data
    model = CountingRanker().fit(df, y)
    scorer = ndcg_at(5)
    assert count(lambda: [scorer(model, df, y), scorer(model, df, y)]) == 2


def test_refit_between_two_scorers_predicts_again(data):
    df, _, y, _ = data
    first, second = ndcg_at(5), map_at(10)  # both alive: two different scorers
    model = CountingRanker().fit(df, y)
    first(model, df, y)
    model.fit(df.assign(a=-df["a"]), y)  # same object, new coefficients
    CALLS["predict"] = 0
    got = second(model, df, y)
    assert CALLS["predict"] == 1
    assert got == skrank.average_precision(y, model.predict(df), df["qid"], k=10).value


def test_refit_of_a_pipeline_step_predicts_again(data):
    df, _, y, _ = data
    first, second = ndcg_at(5), map_at(10)
    pipe = make_pipeline(StandardScaler(), CountingRanker()).fit(df, y)
    first(pipe, df, y)
    pipe.fit(df.assign(a=-df["a"]), y)  # refits the steps in place
    CALLS["predict"] = 0
    second(pipe, df, y)
    assert CALLS["predict"] == 1


def test_x_changed_in_place_between_two_scorers_predicts_again(data):
    df, _, y, _ = data
    first, second = ndcg_at(5), map_at(10)
    model = CountingRanker().fit(df, y)
    first(model, df, y)
    df["a"] = df["a"].to_numpy()[::-1]
    CALLS["predict"] = 0
    got = second(model, df, y)
    assert CALLS["predict"] == 1
    assert got == skrank.average_precision(y, model.predict(df), df["qid"], k=10).value


def test_numpy_x_changed_in_place_between_two_scorers_predicts_again(data):
    _, X, y, qid = data
    X = X.copy()
    first, second = ndcg_at(5), map_at(10)
    model = CountingRanker().fit(X, y)
    first(model, X, y, qid=qid)
    X[:, 0] = X[::-1, 0].copy()
    CALLS["predict"] = 0
    got = second(model, X, y, qid=qid)
    assert CALLS["predict"] == 1
    assert got == skrank.average_precision(y, model.predict(X), qid, k=10).value


def test_permutation_importance_multimetric_equals_single_metric(data):
    # permutation_importance shuffles the columns of one X in place: predictions shared
    # between the two scorers must follow every permutation
    df, _, y, _ = data
    model = CountingRanker().fit(df, y)
    multi = permutation_importance(model, df, y, scoring=SKRANK_TWO, n_repeats=3,
                                   random_state=0)
    for name, scorer in SKRANK_TWO.items():
        single = permutation_importance(model, df, y, scoring=scorer, n_repeats=3,
                                        random_state=0)
        np.testing.assert_array_equal(multi[name].importances, single.importances)
    # column "a" drives the labels: permuting it hurts
    assert multi["ndcg@5"].importances_mean[1] > 0.05
