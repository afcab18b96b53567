"""Uplift scorers in GridSearchCV and cross_validate, the treatment flag routed as metadata."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate

import skrank.uplift as su
from skrank.exceptions import InputError, InvalidParameterError

from ._models import ClassTransformation, TwoModels, synthetic


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture(scope="module")
def data():
    return synthetic(3000, 0)


def _scoring():
    return {
        "qini": su.make_uplift_scorer("qini_auc").set_score_request(treatment=True),
        "auuc": su.make_uplift_scorer("uplift_auc", preset="sklift"),
        "uplift@30%": su.make_uplift_scorer("uplift_at_k", strategy="overall", k=0.3),
    }


@pytest.mark.parametrize("model", [TwoModels, ClassTransformation])
def test_grid_search_multi_metric_refit(routing, data, model):
    X, y, t, _ = data
    est = model(LogisticRegression()).set_fit_request(treatment=True)
    search = GridSearchCV(
        est,
        {"estimator__C": [0.001, 1.0]},
        scoring=_scoring(),
        refit="qini",
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
    ).fit(X, y, treatment=t)
    res = search.cv_results_
    for key in ("mean_test_qini", "mean_test_auuc", "mean_test_uplift@30%"):
        assert np.all(np.isfinite(res[key]))
    assert search.best_index_ == int(np.argmax(res["mean_test_qini"]))
    assert hasattr(search.best_estimator_, "predict")
    assert np.all(res["mean_test_qini"] > 0)  # the effect is learnable from X[:, 0]


def test_routed_slices_are_the_folds(routing, data):
    X, y, t, _ = data
    cv = list(StratifiedKFold(3, shuffle=True, random_state=1).split(X, 2 * y + t))
    est = TwoModels(LogisticRegression()).set_fit_request(treatment=True)
    scorer = su.make_uplift_scorer("qini_auc", preset="sklift")
    got = cross_validate(est, X, y, cv=cv, scoring={"qini": scorer},
                         params={"treatment": t})["test_qini"]
    for (train, test), value in zip(cv, got):
        model = TwoModels(LogisticRegression()).fit(X[train], y[train], t[train])
        want = su.qini_auc_score(y[test], model.predict(X[test]), t[test], preset="sklift")
        assert value == pytest.approx(float(want), abs=1e-12)


def test_alias(routing, data):
    X, y, t, _ = data
    scorer = su.make_uplift_scorer("uplift_auc").set_score_request(treatment="w")
    est = ClassTransformation(LogisticRegression()).set_fit_request(treatment="w")
    out = cross_validate(est, X, y, cv=StratifiedKFold(2), scoring=scorer, params={"w": t})
    assert np.all(np.isfinite(out["test_score"]))


def test_without_treatment_a_clear_error(data):
    X, y, t, _ = data
    model = TwoModels(LogisticRegression()).fit(X, y, t)
    scorer = su.make_uplift_scorer("qini_auc")
    with pytest.raises(InputError, match="needs the treatment flag of the rows it scores"):
        scorer(model, X, y)
    assert scorer(model, X, y, treatment=t) == pytest.approx(
        float(su.qini_auc_score(y, model.predict(X), t))
    )


def test_set_score_request_needs_routing():
    with pytest.raises(RuntimeError, match="metadata routing is enabled"):
        su.make_uplift_scorer("qini_auc").set_score_request(treatment=True)


class TestConstruction:
    def test_repr_rebuilds(self):
        s = su.make_uplift_scorer("uplift_at_k", strategy="by_group", k=100, ties="input")
        assert repr(s) == "make_uplift_scorer('uplift_at_k', strategy='by_group', k=100, " \
                          "ties='input')"

    def test_sklift_names(self):
        assert su.make_uplift_scorer("qini_auc_score").metric == "qini_auc"

    def test_unknown_metric(self):
        with pytest.raises(InvalidParameterError, match=r"The 'metric' parameter of "
                                                        r"make_uplift_scorer must be one of"):
            su.make_uplift_scorer("ndcg")

    def test_strategy_required_for_uplift_at_k(self):
        with pytest.raises(InvalidParameterError, match=r"'strategy'"):
            su.make_uplift_scorer("uplift_at_k")

    def test_k_only_for_uplift_at_k(self):
        with pytest.raises(InvalidParameterError, match=r"'k' parameter .* 'uplift_at_k' only"):
            su.make_uplift_scorer("qini_auc", k=0.3)

    def test_unknown_convention(self):
        with pytest.raises(InvalidParameterError, match=r"'gain' parameter .* not an uplift "
                                                        r"convention"):
            su.make_uplift_scorer("qini_auc", gain="exp")

    def test_bad_convention_value_fails_at_construction(self):
        with pytest.raises(InvalidParameterError, match=r"'ties'"):
            su.make_uplift_scorer("qini_auc", ties="average")

    def test_picklable(self):
        import pickle

        s = su.make_uplift_scorer("qini_auc", preset="causalml")
        assert repr(pickle.loads(pickle.dumps(s))) == repr(s)

    def test_conventions_resolved_at_construction(self):
        s = su.make_uplift_scorer("qini_auc", preset="causalml", baseline="none")
        assert (s.conventions.ties, s.conventions.baseline) == ("unstable", "none")
        with pytest.raises(InvalidParameterError, match=r"causalml has no uplift@k"):
            su.make_uplift_scorer("uplift_at_k", strategy="overall", preset="causalml")
        with pytest.raises(InvalidParameterError, match=r"'negative_effect' .* uplift_auc does "
                                                        r"not use it"):
            su.make_uplift_scorer("uplift_auc", negative_effect=False)
