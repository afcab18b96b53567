"""Scorers in GridSearchCV: metadata routing, multi-metric dicts, refit, and the training
folds' censoring distribution, on a real dataset (GBSG2 as lifelines ships it, MIT)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, KFold, cross_validate

from skrank import InputError
from skrank.survival import (
    concordance_index_censored,
    concordance_index_ipcw,
    cumulative_auc,
    harrell_c,
    integrated_brier,
    make_survival_scorer,
    uno_c,
)

TAU = 1825.0


@pytest.fixture(scope="module")
def gbsg2():
    datasets = pytest.importorskip("lifelines.datasets", reason="lifelines is not installed")
    df = datasets.load_gbsg2()
    X = np.column_stack([
        (df["horTh"] == "yes").astype(float), df["age"], (df["menostat"] == "Post"),
        df["tsize"], df["tgrade"].map({"I": 1, "II": 2, "III": 3}).astype(float),
        np.log1p(df["pnodes"]), np.log1p(df["progrec"]), np.log1p(df["estrec"]),
    ]).astype(float)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = np.array(list(zip(df["cens"] == 1, df["time"].astype(float))),
                 dtype=[("event", bool), ("time", float)])
    return X, y


@pytest.fixture(scope="module")
def cox():
    return pytest.importorskip(
        "sksurv.linear_model", reason="scikit-survival is not installed"
    ).CoxPHSurvivalAnalysis


def test_grid_search_multi_metric_refit_with_training_censoring(gbsg2, cox):
    X, y = gbsg2
    cv = KFold(5, shuffle=True, random_state=0)
    scoring = {
        "uno": uno_c(tau=TAU, survival=y),
        "uno_test": uno_c(tau=TAU, censoring="test"),
        "harrell": harrell_c(),
    }
    grid = {"alpha": [0.01, 10.0, 1000.0]}
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(cox(), grid, scoring=scoring, refit="uno", cv=cv)
        search.fit(X, y, sample_index=np.arange(len(y)))
    res = search.cv_results_
    # recompute every fold by hand: Uno's C with the training fold's censoring estimate
    for i, alpha in enumerate(grid["alpha"]):
        uno, uno_test, harrell = [], [], []
        for train, test in cv.split(X):
            est = cox(alpha=alpha).fit(X[train], y[train]).predict(X[test])
            uno.append(float(concordance_index_ipcw(y[train], y[test], est, tau=TAU)))
            uno_test.append(float(concordance_index_ipcw(y[test], y[test], est, tau=TAU)))
            harrell.append(float(concordance_index_censored(
                y[test]["event"], y[test]["time"], est)))
        assert abs(res["mean_test_uno"][i] - np.mean(uno)) <= 1e-12
        assert abs(res["mean_test_uno_test"][i] - np.mean(uno_test)) <= 1e-12
        assert abs(res["mean_test_harrell"][i] - np.mean(harrell)) <= 1e-12
    # the two censoring estimates give different numbers, and refit picks by "uno"
    assert not np.allclose(res["mean_test_uno"], res["mean_test_uno_test"], atol=1e-6, rtol=0)
    best = grid["alpha"][int(np.argmax(res["mean_test_uno"]))]
    assert search.best_params_ == {"alpha": best}
    assert hasattr(search, "best_estimator_")


def test_equals_sksurv_wrapper_scores(gbsg2, cox):
    sm = pytest.importorskip("sksurv.metrics", reason="scikit-survival is not installed")
    X, y = gbsg2
    cv = KFold(5, shuffle=True, random_state=1)
    wrapped = GridSearchCV(sm.as_concordance_index_ipcw_scorer(cox(), tau=TAU),
                           {"estimator__alpha": [0.1, 100.0]}, cv=cv).fit(X, y)
    with sklearn.config_context(enable_metadata_routing=True):
        ours = GridSearchCV(cox(), {"alpha": [0.1, 100.0]}, cv=cv,
                            scoring=uno_c(tau=TAU, survival=y))
        ours.fit(X, y, sample_index=np.arange(len(y)))
    diff = np.abs(ours.cv_results_["mean_test_score"] - wrapped.cv_results_["mean_test_score"])
    assert diff.max() <= 1e-12


def test_auc_and_brier_scorers_in_cross_validate(gbsg2, cox):
    X, y = gbsg2
    times = np.array([365.0, 730.0, 1095.0, 1460.0])
    scoring = {"auc": cumulative_auc(times, survival=y), "ibs": integrated_brier(times,
                                                                                 survival=y)}
    with sklearn.config_context(enable_metadata_routing=True):
        out = cross_validate(cox(), X, y, cv=KFold(3, shuffle=True, random_state=0),
                             scoring=scoring, params={"sample_index": np.arange(len(y))})
    assert np.all((out["test_auc"] > 0.5) & (out["test_auc"] < 1))
    assert np.all((out["test_ibs"] < 0) & (out["test_ibs"] > -0.3))  # negated: greater is better


def test_without_training_data_the_scorer_refuses(gbsg2, cox):
    X, y = gbsg2
    model = cox().fit(X[:500], y[:500])
    with pytest.raises(InputError, match="needs the training data's censoring distribution"):
        uno_c(tau=TAU)(model, X[500:], y[500:])
    by_hand = uno_c(tau=TAU)(model, X[500:], y[500:], survival_train=y[:500])
    assert by_hand == float(concordance_index_ipcw(y[:500], y[500:], model.predict(X[500:]),
                                                   tau=TAU))


def test_sample_index_must_match_survival(gbsg2, cox):
    X, y = gbsg2
    model = cox().fit(X, y)
    with pytest.raises(InputError, match="must index the 10 subjects"):
        uno_c(survival=y[:10])(model, X[:20], y[:20], sample_index=np.arange(20))


def test_repr_pickle_and_routing_request():
    scorer = make_survival_scorer("uno_c", tau=TAU, preset="sksurv")
    assert repr(scorer) == "make_survival_scorer('uno_c', tau=1825, preset='sksurv')"
    assert repr(pickle.loads(pickle.dumps(scorer))) == repr(scorer)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer.set_score_request(sample_index="rows")
        assert scorer.get_metadata_routing().score.requests == {"sample_index": "rows"}
    with pytest.raises(RuntimeError, match="metadata routing"):
        scorer.set_score_request(sample_index=True)
