"""skrank.xgboost.XGBRanker: XGBoost's own model from query ids in any row order.

Measured with XGBoost 3.2: ``xgboost.XGBRanker`` refuses ``qid`` that is not sorted
("`qid` must be sorted in non-decreasing order along with data"), which a cross-validation
fold of shuffled rows is, and takes one weight per query, which scikit-learn cannot slice
per fold. The reference is XGBoost itself, fed the rows gathered query by query.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sklearn
import xgboost
from sklearn.base import clone
from sklearn.model_selection import GroupKFold, cross_validate

import skrank
from skrank import InputError, ndcg_at
from skrank.xgboost import XGBRanker

from ._helpers import frame, gathered

PARAMS = dict(n_estimators=8, max_depth=3, n_jobs=1)


def test_contiguous_queries_give_xgboost_own_model(data):
    b = data
    ours = XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train)
    theirs = xgboost.XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train)
    np.testing.assert_array_equal(ours.predict(b.X_test), theirs.predict(b.X_test))


def test_xgboost_refuses_a_shuffled_fold_and_the_adapter_fits_it(data, perm):
    b = data
    X, y, qid = b.X_train[perm], b.y_train[perm], b.qid_train[perm]
    with pytest.raises(xgboost.core.XGBoostError, match="must be sorted in non-decreasing"):
        xgboost.XGBRanker(**PARAMS).fit(X, y, qid=qid)
    ours = XGBRanker(**PARAMS).fit(X, y, qid=qid)
    order, codes, _ = gathered(qid)
    theirs = xgboost.XGBRanker(**PARAMS).fit(X[order], y[order], qid=codes)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_cross_validation_of_shuffled_rows(data, perm):
    b = data
    df, y, qid = frame(b.X_train[perm], b.qid_train[perm]), b.y_train[perm], b.qid_train[perm]
    res = cross_validate(XGBRanker(**PARAMS), df, y, groups=qid, cv=GroupKFold(3),
                         scoring=ndcg_at(5), return_estimator=True, return_indices=True)
    for est, test, score in zip(res["estimator"], res["indices"]["test"], res["test_score"]):
        pred = est.predict(df.iloc[test])
        assert score == skrank.ndcg(y[test], pred, qid[test], k=5).value
    with pytest.raises(ValueError, match="must be sorted in non-decreasing"):
        cross_validate(xgboost.XGBRanker(**PARAMS), df, y, groups=qid, cv=GroupKFold(3),
                       scoring=ndcg_at(5))


def test_string_ids_in_a_qid_column(data):
    b = data
    df = frame(b.X_train, np.array([f"q{q:04d}" for q in b.qid_train], dtype=object))
    ours = XGBRanker(**PARAMS).fit(df, b.y_train)
    ref = XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train)
    np.testing.assert_array_equal(ours.predict(b.X_test), ref.predict(b.X_test))
    assert ours.n_features_in_ == 300


def test_row_weights_equal_within_a_query_are_query_weights(data):
    b = data
    query_w = np.random.default_rng(4).uniform(0.5, 2.0, size=len(b.group_train))
    row_w = np.repeat(query_w, b.group_train)
    ours = XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train, sample_weight=row_w)
    theirs = xgboost.XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train,
                                             sample_weight=query_w)
    np.testing.assert_array_equal(ours.predict(b.X_test), theirs.predict(b.X_test))
    per_query = XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train,
                                        sample_weight=query_w)
    np.testing.assert_array_equal(per_query.predict(b.X_test), theirs.predict(b.X_test))


def test_row_weights_that_differ_within_a_query(data):
    b = data
    w = np.ones(len(b.y_train))
    w[1] = 2.0  # rows 1 and 2 are in the same query
    with pytest.raises(InputError, match=r"row weights in sample_weight that differ within a "
                                         r"query \(row 2\)"):
        XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train, sample_weight=w)
    with pytest.raises(InputError, match=r"one weight per query \(201, in order of first "
                                         r"appearance\) or one per row \(3005\)\. Got 7"):
        XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train, sample_weight=np.ones(7))


def test_eval_set_with_scattered_qid(data):
    b = data
    vperm = np.random.default_rng(5).permutation(len(b.y_test))
    Xv, yv, qv = b.X_test[vperm], b.y_test[vperm], b.qid_test[vperm]
    ours = XGBRanker(**PARAMS, eval_metric="ndcg@5").fit(
        b.X_train, b.y_train, qid=b.qid_train, eval_set=[(Xv, yv)], eval_qid=[qv])
    order, codes, _ = gathered(qv)
    theirs = xgboost.XGBRanker(**PARAMS, eval_metric="ndcg@5").fit(
        b.X_train, b.y_train, qid=b.qid_train, eval_set=[(Xv[order], yv[order])],
        eval_qid=[codes])
    assert ours.evals_result() == theirs.evals_result()


def test_score_takes_unsorted_qid_columns_and_refuses_numpy(data):
    b = data
    model = XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train)
    test = frame(b.X_test, b.qid_test)
    expected = model.score(test, b.y_test)
    # interleave the queries (round robin, in a random query order) keeping each query's
    # own row order, which decides XGBoost's ties
    qid = b.qid_test
    position = np.concatenate([np.arange(n) for n in b.group_test])
    query_key = np.random.default_rng(6).permutation(qid.max() + 1)[qid]
    vperm = np.lexsort((query_key, position))
    assert (np.diff(qid[vperm]) != 0).mean() > 0.5
    assert model.score(test.iloc[vperm], b.y_test[vperm]) == pytest.approx(expected, abs=1e-6)
    with pytest.raises(InputError, match=r"XGBRanker\.score needs the query ids in a 'qid' "
                                         r"column"):
        model.score(b.X_test, b.y_test)


def test_params_clone_and_pickle_behave_like_xgboost(data):
    b = data
    ours = XGBRanker(**PARAMS, subsample=0.8)
    assert ours.get_params() == xgboost.XGBRanker(**PARAMS, subsample=0.8).get_params()
    cloned = clone(ours)
    assert type(cloned) is XGBRanker and cloned.get_params() == ours.get_params()
    ours.fit(b.X_train, b.y_train, qid=b.qid_train)
    restored = pickle.loads(pickle.dumps(ours))
    np.testing.assert_array_equal(restored.predict(b.X_test), ours.predict(b.X_test))


def test_qid_is_requested_by_default_under_routing(data, perm):
    b = data
    X, y, qid = b.X_train[perm], b.y_train[perm], b.qid_train[perm]
    with sklearn.config_context(enable_metadata_routing=True):
        assert XGBRanker().get_metadata_routing().consumes("fit", ["qid"]) == {"qid"}
        res = cross_validate(XGBRanker(**PARAMS), X, y, cv=GroupKFold(3), scoring=ndcg_at(5),
                             params={"qid": qid, "groups": qid})
    assert np.isfinite(res["test_score"]).all()


def test_no_query_ids(data):
    b = data
    with pytest.raises(InputError, match=r"XGBRanker\.fit needs the query of each row"):
        XGBRanker(**PARAMS).fit(b.X_train, b.y_train)
    with pytest.raises(InputError, match=r"needs the query ids of eval set 0"):
        XGBRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train,
                                eval_set=[(b.X_test, b.y_test)])
