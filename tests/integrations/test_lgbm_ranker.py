"""skrank.lightgbm.LGBMRanker: LightGBM's own model from per-row query ids, in any row order.

The reference is LightGBM itself: with contiguous queries the adapter must fit exactly the
model that ``lightgbm.LGBMRanker`` fits from ``group`` sizes (identical predictions), and with
rows in any order the model LightGBM fits from the rows gathered query by query.
"""

from __future__ import annotations

import pickle
import sys
import warnings

import lightgbm
import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, cross_validate

from skrank import InputError, SkrankWarning, ndcg_at
from skrank.lightgbm import LGBMRanker

from ._helpers import frame, gathered

PARAMS = dict(n_estimators=8, num_leaves=7, learning_rate=0.2, n_jobs=1, verbose=-1)


def test_import_skrank_does_not_import_lightgbm():
    import subprocess

    code = ("import sys, skrank, skrank.lightgbm, skrank.xgboost; "
            "print(sorted(m for m in ('lightgbm', 'xgboost', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_contiguous_queries_give_lightgbm_own_model(data):
    b = data
    ours = LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train)
    theirs = lightgbm.LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, group=b.group_train)
    np.testing.assert_array_equal(ours.predict(b.X_test), theirs.predict(b.X_test))
    assert ours.booster_.model_to_string() == theirs.booster_.model_to_string()


def test_scattered_queries_are_gathered_and_predictions_keep_the_row_order(data, perm):
    b = data
    X, y, qid = b.X_train[perm], b.y_train[perm], b.qid_train[perm]
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    init = np.random.default_rng(2).normal(scale=0.1, size=len(y))
    ours = LGBMRanker(**PARAMS).fit(X, y, qid=qid, sample_weight=w, init_score=init)
    order, _, sizes = gathered(qid)
    theirs = lightgbm.LGBMRanker(**PARAMS).fit(X[order], y[order], group=sizes,
                                               sample_weight=w[order], init_score=init[order])
    assert ours.booster_.model_to_string() == theirs.booster_.model_to_string()
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_qid_column_is_dropped_and_never_a_feature(data):
    b = data
    df = frame(b.X_train, b.qid_train, position=5)
    ours = LGBMRanker(**PARAMS).fit(df, b.y_train)
    assert ours.n_features_in_ == 300
    assert "qid" not in ours.feature_name_
    assert list(ours.feature_names_in_) == [f"f{i}" for i in range(300)]
    plain = LGBMRanker(**PARAMS).fit(df.drop(columns="qid"), b.y_train, qid=b.qid_train)
    test = frame(b.X_test, b.qid_test, position=5)
    np.testing.assert_array_equal(ours.predict(test), plain.predict(test.drop(columns="qid")))
    np.testing.assert_array_equal(ours.predict(test), ours.predict(test.drop(columns="qid")))


def test_string_query_ids(data):
    b = data
    names = np.array([f"query-{q}" for q in b.qid_train])
    ours = LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, qid=names)
    ref = LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train)
    np.testing.assert_array_equal(ours.predict(b.X_test), ref.predict(b.X_test))


def test_group_sizes_still_work(data):
    b = data
    ours = LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, group=b.group_train)
    ref = LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train)
    np.testing.assert_array_equal(ours.predict(b.X_test), ref.predict(b.X_test))


def test_eval_set_with_its_own_scattered_qid_and_early_stopping(data):
    b = data
    rng = np.random.default_rng(3)
    vperm = rng.permutation(len(b.y_test))
    Xv, yv, qv = b.X_test[vperm], b.y_test[vperm], b.qid_test[vperm]
    params = {**PARAMS, "n_estimators": 30}
    ours = LGBMRanker(**params).fit(
        b.X_train, b.y_train, qid=b.qid_train, eval_X=(Xv,), eval_y=(yv,), eval_qid=[qv],
        eval_at=[5], callbacks=[lightgbm.early_stopping(3, verbose=False)],
    )
    order, _, sizes = gathered(qv)
    theirs = lightgbm.LGBMRanker(**params).fit(
        b.X_train, b.y_train, group=b.group_train, eval_X=(Xv[order],), eval_y=(yv[order],),
        eval_group=[sizes], eval_at=[5], callbacks=[lightgbm.early_stopping(3, verbose=False)],
    )
    assert ours.evals_result_ == theirs.evals_result_
    assert ours.best_iteration_ == theirs.best_iteration_
    assert len(ours.evals_result_["valid_0"]["ndcg@5"]) > 0


def test_eval_set_form_and_the_training_set_as_eval_set(data):
    b = data
    X, y = b.X_train, b.y_train
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=lightgbm.basic.LGBMDeprecationWarning)
        ours = LGBMRanker(**PARAMS).fit(
            X, y, qid=b.qid_train, eval_set=[(X, y), (b.X_test, b.y_test)],
            eval_qid=[None, b.qid_test], eval_names=["train", "test"],
        )
        theirs = lightgbm.LGBMRanker(**PARAMS).fit(
            X, y, group=b.group_train, eval_set=[(X, y), (b.X_test, b.y_test)],
            eval_group=[b.group_train, b.group_test], eval_names=["train", "test"],
        )
    assert ours.evals_result_ == theirs.evals_result_


def test_eval_set_with_a_qid_column(data):
    b = data
    ours = LGBMRanker(**PARAMS).fit(frame(b.X_train, b.qid_train), b.y_train,
                                    eval_X=frame(b.X_test, b.qid_test), eval_y=b.y_test)
    theirs = lightgbm.LGBMRanker(**PARAMS).fit(
        frame(b.X_train, b.qid_train).drop(columns="qid"), b.y_train, group=b.group_train,
        eval_X=frame(b.X_test, b.qid_test).drop(columns="qid"), eval_y=b.y_test,
        eval_group=[b.group_test])
    assert ours.evals_result_ == theirs.evals_result_


def test_params_clone_and_pickle_behave_like_lightgbm(data):
    b = data
    ours = LGBMRanker(**PARAMS, colsample_bytree=0.5)
    theirs = lightgbm.LGBMRanker(**PARAMS, colsample_bytree=0.5)
    assert ours.get_params() == theirs.get_params()
    cloned = clone(ours)
    assert type(cloned) is LGBMRanker and cloned.get_params() == ours.get_params()
    assert ours.set_params(num_leaves=5).get_params()["num_leaves"] == 5
    ours.fit(b.X_train, b.y_train, qid=b.qid_train)
    restored = pickle.loads(pickle.dumps(ours))
    np.testing.assert_array_equal(restored.predict(b.X_test), ours.predict(b.X_test))


def test_qid_is_requested_by_default_under_routing():
    with sklearn.config_context(enable_metadata_routing=True):
        request = LGBMRanker().get_metadata_routing()
        assert request.consumes("fit", ["qid", "group", "sample_weight"]) == {"qid"}
        aliased = LGBMRanker().set_fit_request(qid="groups").get_metadata_routing()
        assert aliased.consumes("fit", ["groups", "qid"]) == {"groups"}


def test_grid_search_on_scattered_rows(data, perm):
    # folds of scattered rows: every training fold has non-contiguous queries
    b = data
    df = frame(b.X_train[perm], b.qid_train[perm])
    y, qid = b.y_train[perm], b.qid_train[perm]
    search = GridSearchCV(LGBMRanker(**PARAMS), {"num_leaves": [3, 7]}, cv=GroupKFold(3),
                          scoring=ndcg_at(5)).fit(df, y, groups=qid)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    # the best model is the one fitted on the gathered rows
    order, _, sizes = gathered(qid)
    ref = lightgbm.LGBMRanker(**{**PARAMS, **search.best_params_}).fit(
        df.drop(columns="qid").iloc[order], y[order], group=sizes)
    np.testing.assert_array_equal(search.predict(df), ref.predict(df.drop(columns="qid")))


def test_kfold_that_cuts_queries_warns(data):
    b = data
    with pytest.warns(SkrankWarning, match=r"the split cut these queries in two"):
        cross_validate(LGBMRanker(**PARAMS), frame(b.X_train, b.qid_train), b.y_train,
                       cv=KFold(3), scoring=ndcg_at(5))


# -- bad input --------------------------------------------------------------------------------


def test_no_query_ids(data):
    b = data
    with pytest.raises(InputError, match=r"LGBMRanker\.fit needs the query of each row: pass "
                                         r"qid=\.\.\."):
        LGBMRanker(**PARAMS).fit(b.X_train, b.y_train)


def test_group_and_qid_together(data):
    b = data
    with pytest.raises(InputError, match=r"got both 'group' sizes and query ids"):
        LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train, group=b.group_train)


def test_qid_argument_and_column_that_differ(data):
    b = data
    df = frame(b.X_train, b.qid_train)
    LGBMRanker(**PARAMS).fit(df, b.y_train, qid=b.qid_train)  # agreeing: fine
    with pytest.raises(InputError, match=r"got query ids twice for X, as an argument and as a "
                                         r"'qid' column, and they differ"):
        LGBMRanker(**PARAMS).fit(df, b.y_train, qid=b.qid_train[::-1])


def test_qid_length_and_missing_values(data):
    b = data
    with pytest.raises(InputError, match=r"X has 3005 rows but the query ids number 3004"):
        LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train[1:])
    qid = b.qid_train.astype(float)
    qid[10] = np.nan
    with pytest.raises(InputError, match=r"contains missing values \(1 rows, first at row 10"):
        LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, qid=qid)


def test_eval_set_without_query_ids(data):
    b = data
    with pytest.raises(InputError, match=r"needs the query ids of eval set 0: pass "
                                         r"eval_qid=\[\.\.\.\]"):
        LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train,
                                 eval_X=b.X_test, eval_y=b.y_test)
    with pytest.raises(InputError, match=r"eval_qid as a list with one entry per eval set"):
        LGBMRanker(**PARAMS).fit(b.X_train, b.y_train, qid=b.qid_train,
                                 eval_X=b.X_test, eval_y=b.y_test, eval_qid=b.qid_test)
