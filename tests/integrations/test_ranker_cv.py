"""Cross-validating LightGBM and XGBoost rankers with scikit-learn, on the bundled real data.

For each library (skrank's LightGBM adapter; XGBoost's own ``XGBRanker``):

1. ``cross_validate(ranker, X, y, groups=qid, cv=GroupKFold(5), scoring=ndcg_at(5,
   ties="pessimistic"))`` with routing disabled and the query ids in a ``qid`` column of X;
2. the same with metadata routing enabled (inside a ``config_context``), NumPy X and
   ``params={"qid": qid, "groups": qid}``;
3. ``GridSearchCV`` with two skrank scorers and ``refit="ndcg@5"``, both ways; the best score
   is recomputed by hand, fold by fold, with skrank's metric functions;
4. ``validation_curve``, ``learning_curve`` and ``permutation_importance``.

Every score is compared with one recomputed outside scikit-learn, so a scorer that grouped
rows wrongly (or scored all rows as one query) would fail.
"""

from __future__ import annotations

import warnings

import lightgbm
import numpy as np
import pytest
import sklearn
import xgboost
from sklearn.base import clone
from sklearn.inspection import permutation_importance
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    cross_validate,
    learning_curve,
    validation_curve,
)

import skrank
from skrank import SkrankWarning, average_precision_at, ndcg_at
from skrank.lightgbm import LGBMRanker

from ._helpers import frame

LIBS = ["lightgbm", "xgboost"]


def make_ranker(lib: str, routing: bool = False):
    if lib == "lightgbm":
        # skrank's adapter requests qid from metadata routing by default
        return LGBMRanker(n_estimators=10, num_leaves=7, learning_rate=0.2, n_jobs=1, verbose=-1)
    ranker = xgboost.XGBRanker(n_estimators=10, max_depth=3, n_jobs=1)
    return ranker.set_fit_request(qid=True) if routing else ranker


@pytest.fixture(scope="module")
def train_set(data):
    """The training split: X, y, qid, and X with a qid column."""
    return data.X_train, data.y_train, data.qid_train, frame(data.X_train, data.qid_train)


@pytest.fixture(scope="module")
def literal_line(data):
    """Scenario 1 for each library: the literal line, estimators and fold indices kept."""
    b = data
    X, y, qid = frame(b.X_train, b.qid_train), b.y_train, b.qid_train
    out = {}
    for lib in LIBS:
        ranker = make_ranker(lib)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            res = cross_validate(ranker, X, y, groups=qid, cv=GroupKFold(5),
                                 scoring=ndcg_at(5, ties="pessimistic"),
                                 return_estimator=True, return_indices=True)
        out[lib] = (res, [w for w in record if issubclass(w.category, SkrankWarning)])
    return out


@pytest.mark.parametrize("lib", LIBS)
def test_1_literal_line_with_a_qid_column(train_set, literal_line, lib):
    _, y, qid, df = train_set
    res, skrank_warnings = literal_line[lib]
    assert skrank_warnings == []
    expected = []
    for est, test in zip(res["estimator"], res["indices"]["test"]):
        pred = est.predict(df.iloc[test])
        expected.append(skrank.ndcg(y[test], pred, qid[test], k=5, ties="pessimistic").value)
    np.testing.assert_array_equal(res["test_score"], expected)
    assert res["test_score"].shape == (5,)
    assert 0.5 < res["test_score"].mean() < 0.8  # a real, if tiny, model
    for est in res["estimator"]:
        assert est.n_features_in_ == 300  # the qid column was not a feature


@pytest.mark.parametrize("lib", LIBS)
def test_2_same_line_with_metadata_routing(train_set, literal_line, lib):
    X, y, qid, _ = train_set
    with sklearn.config_context(enable_metadata_routing=True):
        res = cross_validate(make_ranker(lib, routing=True), X, y, cv=GroupKFold(5),
                             scoring=ndcg_at(5, ties="pessimistic"),
                             params={"qid": qid, "groups": qid})
    np.testing.assert_array_equal(res["test_score"], literal_line[lib][0]["test_score"])
    assert not sklearn.get_config()["enable_metadata_routing"]


def test_2b_routing_with_groups_alone_and_an_alias(train_set, literal_line):
    # the splitter's groups double as the ranker's qid and the scorer's query ids
    X, y, qid, _ = train_set
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = make_ranker("lightgbm").set_fit_request(qid="groups")
        res = cross_validate(ranker, X, y, cv=GroupKFold(5),
                             scoring=ndcg_at(5, ties="pessimistic"), params={"groups": qid})
    np.testing.assert_array_equal(res["test_score"], literal_line["lightgbm"][0]["test_score"])


def test_2c_passing_groups_with_routing_enabled_is_refused_by_sklearn(train_set):
    X, y, qid, _ = train_set
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match="`groups` can only be passed if metadata routing "
                                             "is not enabled"):
            cross_validate(make_ranker("lightgbm"), X, y, groups=qid, cv=GroupKFold(5),
                           scoring=ndcg_at(5))


SCORING = {"ndcg@5": ndcg_at(5, ties="pessimistic"), "map@10": average_precision_at(10)}
GRID = {"n_estimators": [4, 10]}


@pytest.fixture(scope="module")
def searches(data):
    b = data
    X, y, qid = b.X_train, b.y_train, b.qid_train
    df = frame(X, qid)
    out = {}
    for lib in LIBS:
        plain = GridSearchCV(make_ranker(lib), GRID, cv=GroupKFold(5), scoring=SCORING,
                             refit="ndcg@5").fit(df, y, groups=qid)
        with sklearn.config_context(enable_metadata_routing=True):
            routed = GridSearchCV(make_ranker(lib, routing=True), GRID, cv=GroupKFold(5),
                                  scoring=SCORING, refit="ndcg@5").fit(X, y, qid=qid,
                                                                       groups=qid)
        out[lib] = (plain, routed)
    return out


@pytest.mark.parametrize("lib", LIBS)
def test_3_grid_search_best_score_recomputed_by_hand(train_set, searches, lib):
    _, y, qid, df = train_set
    search, _ = searches[lib]
    best = search.best_index_
    ndcgs, maps = [], []
    for train, test in GroupKFold(5).split(df, y, groups=qid):
        model = clone(make_ranker(lib)).set_params(**search.best_params_)
        model.fit(df.iloc[train], y[train])
        pred = model.predict(df.iloc[test])
        ndcgs.append(skrank.ndcg(y[test], pred, qid[test], k=5, ties="pessimistic").value)
        maps.append(skrank.average_precision(y[test], pred, qid[test], k=10).value)
    for i in range(5):
        assert search.cv_results_[f"split{i}_test_ndcg@5"][best] == ndcgs[i]
        assert search.cv_results_[f"split{i}_test_map@10"][best] == maps[i]
    assert search.best_score_ == pytest.approx(np.mean(ndcgs), rel=1e-12)
    assert search.best_score_ == search.cv_results_["mean_test_ndcg@5"].max()


@pytest.mark.parametrize("lib", LIBS)
def test_3_grid_search_with_routing_gives_the_same_results(data, searches, lib):
    plain, routed = searches[lib]
    for key in ("mean_test_ndcg@5", "mean_test_map@10", "rank_test_ndcg@5"):
        np.testing.assert_array_equal(routed.cv_results_[key], plain.cv_results_[key])
    assert routed.best_params_ == plain.best_params_
    # the refitted model scores held-out data through the refit scorer
    b = data
    held_out = frame(b.X_test, b.qid_test)
    score = plain.score(held_out, b.y_test)
    expected = skrank.ndcg(b.y_test, plain.predict(held_out), b.qid_test, k=5,
                           ties="pessimistic").value
    assert score == expected


@pytest.mark.parametrize("lib", LIBS)
def test_4_validation_curve_both_ways(train_set, lib):
    X, y, qid, df = train_set
    cv = GroupKFold(2)
    common = dict(param_name="n_estimators", param_range=[3, 8], cv=cv,
                  scoring=ndcg_at(5, ties="pessimistic"))
    train, test = validation_curve(make_ranker(lib), df, y, groups=qid, **common)
    with sklearn.config_context(enable_metadata_routing=True):
        train_r, test_r = validation_curve(make_ranker(lib, routing=True), X, y,
                                           params={"qid": qid, "groups": qid}, **common)
    np.testing.assert_array_equal(test, test_r)
    np.testing.assert_array_equal(train, train_r)
    # one cell by hand: n_estimators=3 on the first fold
    tr, te = next(cv.split(df, y, groups=qid))
    model = make_ranker(lib).set_params(n_estimators=3).fit(df.iloc[tr], y[tr])
    assert test[0, 0] == skrank.ndcg(y[te], model.predict(df.iloc[te]), qid[te], k=5,
                                     ties="pessimistic").value
    assert train[0, 0] == skrank.ndcg(y[tr], model.predict(df.iloc[tr]), qid[tr], k=5,
                                      ties="pessimistic").value


@pytest.mark.parametrize("lib", LIBS)
def test_4_learning_curve_both_ways(train_set, lib):
    X, y, qid, df = train_set
    common = dict(cv=GroupKFold(2), train_sizes=[0.5, 1.0], scoring=average_precision_at(10))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        sizes, train, test = learning_curve(make_ranker(lib), df, y, groups=qid, **common)
    # the training subsets keep their own queries: scoring them is not a cut
    assert [w for w in record if issubclass(w.category, SkrankWarning)] == []
    with sklearn.config_context(enable_metadata_routing=True):
        sizes_r, train_r, test_r = learning_curve(make_ranker(lib, routing=True), X, y,
                                                  params={"qid": qid, "groups": qid}, **common)
    np.testing.assert_array_equal(sizes, sizes_r)
    np.testing.assert_array_equal(test, test_r)
    np.testing.assert_array_equal(train, train_r)
    assert np.isfinite(test).all() and (test > 0).all()


@pytest.mark.parametrize("lib", LIBS)
def test_4_permutation_importance_with_a_qid_column(data, lib):
    # permutation_importance cannot route metadata: the ids travel as a column of X. A model
    # on 20 features keeps the number of permutations small.
    b = data
    train = frame(b.X_train[:, :20], b.qid_train)
    test = frame(b.X_test[:, :20], b.qid_test)
    model = make_ranker(lib).fit(train, b.y_train)
    result = permutation_importance(model, test, b.y_test, scoring=ndcg_at(5), n_repeats=2,
                                    random_state=0)
    features = result.importances[1:]  # row 0 is the qid column, not a feature
    unused = np.asarray(model.feature_importances_) == 0
    assert unused.any() and not unused.all()
    # a feature the model never splits on cannot change a prediction
    assert (features[unused] == 0).all()
    assert features[~unused].mean(axis=1).max() > 0.01


def test_joblib_workers_give_the_same_scores(train_set, literal_line):
    _, y, qid, df = train_set
    res = cross_validate(make_ranker("lightgbm"), df, y, groups=qid, cv=GroupKFold(5),
                         scoring=ndcg_at(5, ties="pessimistic"), n_jobs=2)
    np.testing.assert_array_equal(res["test_score"], literal_line["lightgbm"][0]["test_score"])


def test_lightgbm_own_ranker_cannot_be_cross_validated(data, train_set):
    # the reason the adapter exists: LightGBM's group sizes are not sliced per fold
    X, y, qid, _ = train_set
    b = data
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = lightgbm.LGBMRanker(n_estimators=2, verbose=-1).set_fit_request(group=True)
        with pytest.raises(ValueError, match=r"Sum of query counts \(\d+\) differs from the "
                                             r"length of #data"):
            cross_validate(ranker, X, y, cv=GroupKFold(5), scoring=ndcg_at(5),
                           params={"group": b.group_train, "qid": qid, "groups": qid})
