"""skrank.xgboost.custom_metric / metric_callback against XGBoost's own metrics.

References: XGBoost's built-in ``ndcg@k``, ``ndcg@k-``, ``ndcg`` (top 32), ``map@k``,
``map@k-``, ``map`` and ``pre@k`` as recorded in ``evals_result`` by ``xgb.train`` at every
iteration. XGBoost writes built-in values with 17 significant digits and parses them back, so
``evals_result`` holds the double it computed; skrank's ``preset="xgboost"`` is compared to it
with ``==`` (the core reproduces XGBoost's per-term NDCG arithmetic, see
``tests/reference/test_xgboost_preset.py``), and also as XGBoost's verbose log prints it
(``f"{value:.5f}"``). Custom metric values are written by XGBoost with ``"%f"`` (6 decimals):
that is what ``evals_result`` holds for ``custom_metric``, while ``metric_callback`` keeps
every digit.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import xgboost as xgb
from sklearn.base import clone

import skrank
import skrank.xgboost
from skrank.exceptions import InputError, InvalidParameterError

ROUNDS = 20
PARAMS = dict(objective="rank:ndcg", max_depth=1, eta=0.1, nthread=1, tree_method="hist",
              max_bin=4, seed=0)


def _train_with_builtins(data, y_train, y_test, builtins, ours, *, test_weight=None,
                         custom=None, rounds=ROUNDS, params=PARAMS):
    dtrain = xgb.DMatrix(data.X_train, y_train, qid=data.qid_train)
    dtest = xgb.DMatrix(data.X_test, y_test, qid=data.qid_test, weight=test_weight)
    cbs = [skrank.xgboost.metric_callback(*names, evals=[(dtrain, "train"), (dtest, "test")],
                                          prefix=prefix, **kw)
           for prefix, names, kw in ours]
    log: dict = {}
    booster = xgb.train({**params, "eval_metric": builtins}, dtrain, rounds,
                        evals=[(dtrain, "train"), (dtest, "test")], evals_result=log,
                        verbose_eval=False, callbacks=cbs, custom_metric=custom)
    return log, cbs, booster, dtest


def _assert_equal_to_printed(theirs, ours, label):
    assert len(theirs) == len(ours) == ROUNDS, label
    assert list(ours) == list(theirs), label
    # as XGBoost's EvaluationMonitor prints them (verbose_eval=True)
    assert [f"{v:.5f}" for v in ours] == [f"{v:.5f}" for v in theirs], label


def test_preset_xgboost_equals_builtin_ndcg_every_iteration(data):
    builtins = ["ndcg@3", "ndcg@5", "ndcg@5-", "ndcg@10", "ndcg"]
    ours = [("sk_", ["ndcg@3", "ndcg@5", "ndcg@10", "ndcg"], dict(preset="xgboost")),
            ("skz_", ["ndcg@5"], dict(preset="xgboost", empty="zero"))]
    # zero out a few test queries so that ndcg@5 (1 for them) and ndcg@5- (0) differ
    y_test = data.y_test.copy()
    for q in np.unique(data.qid_test)[:3]:
        y_test[data.qid_test == q] = 0
    log, _, _, _ = _train_with_builtins(data, data.y_train, y_test, builtins, ours)
    for d in ("train", "test"):
        for k in ("ndcg@3", "ndcg@5", "ndcg@10", "ndcg"):
            _assert_equal_to_printed(log[d][k], log[d][f"sk_{k}"], (d, k))
        _assert_equal_to_printed(log[d]["ndcg@5-"], log[d]["skz_ndcg@5"], (d, "ndcg@5-"))
    assert log["test"]["ndcg@5"] != log["test"]["ndcg@5-"]  # the empty queries matter


def test_preset_callback_reads_ndcg_exp_gain_from_the_booster(data):
    # issue 13: the callback ignored ndcg_exp_gain=False (here off by up to 0.078); it reads the
    # setting from Booster.save_config(), as XGBoost's own metrics use it
    builtins = ["ndcg@3", "ndcg@10", "ndcg"]
    ours = [("sk_", ["ndcg@3", "ndcg@10", "ndcg"], dict(preset="xgboost")),
            ("exp_", ["ndcg@3"], dict(preset="xgboost", gain="exp"))]
    log, _, _, _ = _train_with_builtins(data, data.y_train, data.y_test, builtins, ours,
                                        params={**PARAMS, "ndcg_exp_gain": False})
    for d in ("train", "test"):
        for k in ("ndcg@3", "ndcg@10", "ndcg"):
            _assert_equal_to_printed(log[d][k], log[d][f"sk_{k}"], (d, k))
    # an explicit gain= is the user's choice, kept whatever the booster says
    assert log["test"]["exp_ndcg@3"] != log["test"]["ndcg@3"]


def test_preset_callback_refuses_a_booster_without_a_readable_config(data):
    cb = skrank.xgboost.metric_callback("ndcg@3", preset="xgboost",
                                        evals=[(data.X_test, data.y_test, data.qid_test)])

    class NoConfig:
        def save_config(self):
            return "not json"

    with pytest.raises(InputError, match=r"ndcg_exp_gain.*gain="):
        cb.after_iteration(NoConfig(), 0, {})


def test_preset_xgboost_equals_builtin_map_and_pre_every_iteration(data):
    # XGBoost's map requires binary labels ("map can only be used with binary labels")
    ytr = (data.y_train > 0).astype(np.float64)
    yte = (data.y_test > 0).astype(np.float64)
    builtins = ["map@3", "map@5", "map@5-", "map", "pre@5", "pre@10"]
    ours = [("sk_", ["ap@3", "ap@5", "ap", "p@5", "p@10"], dict(preset="xgboost")),
            ("skz_", ["ap@5"], dict(preset="xgboost", empty="zero"))]
    log, _, _, _ = _train_with_builtins(data, ytr, yte, builtins, ours)
    for d in ("train", "test"):
        for theirs, mine in (("map@3", "sk_ap@3"), ("map@5", "sk_ap@5"), ("map", "sk_ap"),
                             ("pre@5", "sk_p@5"), ("pre@10", "sk_p@10"),
                             ("map@5-", "skz_ap@5")):
            _assert_equal_to_printed(log[d][theirs], log[d][mine], (d, theirs))
    # the training set has queries without relevant documents: map@5 != map@5-
    assert log["train"]["map@5"] != log["train"]["map@5-"]


def test_preset_xgboost_with_group_weights(data):
    # one weight per query; a query without relevant documents adds an unweighted 1 in
    # XGBoost's ndcg (its weight still enters the denominator)
    rng = np.random.default_rng(5)
    w = rng.uniform(0.5, 3.0, size=data.group_test.shape[0]).astype(np.float32)
    y_test = data.y_test.copy()
    for q in np.unique(data.qid_test)[:3]:
        y_test[data.qid_test == q] = 0
    ours = [("sk_", ["ndcg@5"], dict(preset="xgboost", empty_weighted=False))]
    log, cbs, _, _ = _train_with_builtins(data, data.y_train, y_test, ["ndcg@5"], ours,
                                          test_weight=w)
    _assert_equal_to_printed(log["test"]["ndcg@5"], log["test"]["sk_ndcg@5"], "weighted")
    assert cbs[0].history["test"]["sk_ndcg@5"] == log["test"]["sk_ndcg@5"]


def test_custom_metric_is_stored_with_six_decimals_callback_keeps_all(data):
    cm = skrank.xgboost.custom_metric("ndcg@5", "err@5", preset="xgboost", prefix="cm_")
    ours = [("cb_", ["ndcg@5", "err@5"], dict(preset="xgboost"))]
    log, cbs, _, dtest = _train_with_builtins(data, data.y_train, data.y_test, ["ndcg@5"],
                                              ours, custom=cm)
    for d in ("train", "test"):
        for m in ("ndcg@5", "err@5"):
            full = log[d][f"cb_{m}"]
            assert cbs[0].history[d][f"cb_{m}"] == full
            # XGBoost formats custom metrics with "%f" and parses them back
            assert log[d][f"cm_{m}"] == [float(f"{v:f}") for v in full]
            assert any(float(f"{v:f}") != v for v in full)  # digits were lost there
        _assert_equal_to_printed(log[d]["ndcg@5"], log[d]["cb_ndcg@5"], d)
    # custom_metric itself returns full precision; XGBoost is what rounds
    booster_pred = xgb.train({**PARAMS}, xgb.DMatrix(data.X_train, data.y_train,
                                                      qid=data.qid_train), 3).predict(dtest)
    (name, value), _ = cm(booster_pred, dtest)
    ref = skrank.evaluate(data.y_test, booster_pred, data.qid_test, metrics=["ndcg@5"],
                          preset="xgboost")["ndcg@5"].value
    assert name == "cm_ndcg@5" and value == ref


def _ranker(**kw):
    return xgb.XGBRanker(n_estimators=40, max_depth=2, learning_rate=0.3, n_jobs=1,
                         tree_method="hist", random_state=0, **kw)


def test_xgbranker_callback_gives_true_per_query_mean(data):
    cb = skrank.xgboost.metric_callback("ndcg@5", "rr", preset="xgboost",
                                        evals=[(data.X_test, data.y_test, data.qid_test)])
    ranker = _ranker(callbacks=[cb]).set_params(n_estimators=10)
    ranker.fit(data.X_train, data.y_train, qid=data.qid_train)
    hist = cb.history["validation_0"]
    assert ranker.evals_result_["validation_0"]["skrank_ndcg@5"] == hist["skrank_ndcg@5"]
    sizes = data.group_test
    for i in range(10):
        pred = ranker.predict(data.X_test, iteration_range=(0, i + 1))
        res = skrank.evaluate(data.y_test, pred, data.qid_test, metrics=["ndcg@5", "rr"],
                              preset="xgboost")
        assert hist["skrank_ndcg@5"][i] == res["ndcg@5"].value  # every digit
        assert hist["skrank_rr"][i] == res["rr"].value
    # XGBRanker's own callable metric averages per-query calls weighted by query size: the
    # same per-query values, another mean (np.average with weights=sizes, by hand)
    size_weighted = np.average(res["ndcg@5"].per_query, weights=sizes)
    assert abs(size_weighted - res["ndcg@5"].value) > 1e-4

    def ndcg5(y_true, y_score):  # what XGBRanker(eval_metric=callable) calls, per query
        return skrank.ndcg(y_true, y_score, np.zeros(len(y_true)), k=5,
                           preset="xgboost").value

    ref = _ranker(eval_metric=ndcg5).set_params(n_estimators=10)
    ref.fit(data.X_train, data.y_train, qid=data.qid_train,
            eval_set=[(data.X_test, data.y_test)], eval_qid=[data.qid_test])
    theirs = ref.evals_result_["validation_0"]["ndcg5"][-1]
    assert theirs == pytest.approx(size_weighted, abs=1e-6)  # XGBoost keeps 6 decimals
    assert theirs != pytest.approx(hist["skrank_ndcg@5"][-1], abs=1e-4)


def test_early_stopping_maximises_a_metric_not_named_ndcg(data):
    # "err@5" does not start with auc/aucpr/pre/map/ndcg: XGBoost would minimise it
    cb = skrank.xgboost.metric_callback("err@5", evals=[(data.X_test, data.y_test,
                                                         data.qid_test, "test")],
                                        early_stopping_rounds=4)
    ranker = _ranker(callbacks=[cb])
    ranker.fit(data.X_train, data.y_train, qid=data.qid_train)
    hist = cb.history["test"]["skrank_err@5"]
    best = int(np.argmax(hist))
    assert ranker.best_iteration == best == cb.best_iteration
    assert ranker.best_score == hist[best] == cb.best_score  # full precision round trip
    assert len(hist) == min(best + 1 + 4, 40)
    assert len(hist) < 40  # it did stop early
    # predict uses the best iteration, as after XGBoost's own early stopping
    np.testing.assert_array_equal(ranker.predict(data.X_test),
                                  ranker.predict(data.X_test, iteration_range=(0, best + 1)))


def test_xgboost_own_early_stopping_guesses_the_direction_wrong(data):
    # the trap the callback avoids: xgb.train's early stopping on a custom metric named
    # "skrank_rr" minimises it unless maximize=True is passed
    dtrain = xgb.DMatrix(data.X_train, data.y_train, qid=data.qid_train)
    dtest = xgb.DMatrix(data.X_test, data.y_test, qid=data.qid_test)
    cm = skrank.xgboost.custom_metric("rr", rel_min=2)
    picks = {}
    for maximize in (None, True):
        log: dict = {}
        b = xgb.train({**PARAMS, "max_depth": 2, "eta": 0.3, "disable_default_eval_metric": 1},
                      dtrain, 40, evals=[(dtest, "test")], custom_metric=cm,
                      early_stopping_rounds=4, maximize=maximize, evals_result=log,
                      verbose_eval=False)
        hist = log["test"]["skrank_rr"]
        picks[maximize] = (b.best_iteration, hist)
    it, hist = picks[None]
    assert it == int(np.argmin(hist))  # minimised: the worst iteration
    it, hist = picks[True]
    assert it == int(np.argmax(hist))


def test_callback_save_best_and_xgb_train(data):
    dtrain = xgb.DMatrix(data.X_train, data.y_train, qid=data.qid_train)
    dtest = xgb.DMatrix(data.X_test, data.y_test, qid=data.qid_test)
    cb = skrank.xgboost.metric_callback("ndcg@5", "rr", rel_min=1, ties="pessimistic",
                                        evals=[(dtrain, "train"), (dtest, "test")],
                                        metric_name="skrank_rr", early_stopping_rounds=3,
                                        save_best=True)
    log: dict = {}
    b = xgb.train({**PARAMS, "max_depth": 2, "eta": 0.3}, dtrain, 40, evals_result=log,
                  callbacks=[cb])
    hist = cb.history["test"]["skrank_rr"]
    assert log["test"]["skrank_rr"] == hist  # written into xgb.train's evals_result
    assert b.best_iteration == int(np.argmax(hist))
    assert b.num_boosted_rounds() == b.best_iteration + 1  # save_best truncated the model


def test_callback_survives_clone_and_pickle(data):
    cb = skrank.xgboost.metric_callback("ndcg@5", evals=[(data.X_test[:50], data.y_test[:50],
                                                          data.qid_test[:50])])
    ranker = _ranker(callbacks=[cb]).set_params(n_estimators=2)
    ranker.fit(data.X_train, data.y_train, qid=data.qid_train)
    copy_ = clone(ranker)
    copy_.fit(data.X_train, data.y_train, qid=data.qid_train)
    assert copy_.get_params()["callbacks"][0] is not cb
    assert cb.history["validation_0"]["skrank_ndcg@5"] == \
        copy_.get_params()["callbacks"][0].history["validation_0"]["skrank_ndcg@5"]
    again = pickle.loads(pickle.dumps(cb))
    assert type(again).__name__ == "MetricCallback" and again.names == cb.names


def test_custom_metric_without_groups_is_an_error(data):
    dtrain = xgb.DMatrix(data.X_train[:100], data.y_train[:100])
    with pytest.raises(InputError, match=r"no query groups.*qid=qid"):
        xgb.train({"objective": "reg:squarederror", "nthread": 1}, dtrain, 1,
                  evals=[(dtrain, "train")], custom_metric=skrank.xgboost.custom_metric("rr",
                                                                                         rel_min=1),
                  verbose_eval=False)


def test_custom_metric_with_multiclass_objective_is_an_error(data):
    dtrain = xgb.DMatrix(data.X_train[:200], data.y_train[:200], qid=data.qid_train[:200])
    with pytest.raises(InputError, match="multiclass"):
        xgb.train({"objective": "multi:softprob", "num_class": 5, "nthread": 1}, dtrain, 1,
                  evals=[(dtrain, "train")],
                  custom_metric=skrank.xgboost.custom_metric("ndcg@5"), verbose_eval=False)


def test_custom_metric_given_to_xgbranker_points_to_the_callback(data):
    ranker = _ranker(eval_metric=skrank.xgboost.custom_metric("ndcg@5")).set_params(
        n_estimators=1)
    with pytest.raises(InputError, match=r"once per query.*metric_callback"):
        ranker.fit(data.X_train, data.y_train, qid=data.qid_train,
                   eval_set=[(data.X_test, data.y_test)], eval_qid=[data.qid_test])


def test_binary_metric_on_graded_labels_needs_rel_min(data):
    cb = skrank.xgboost.metric_callback("hit@3", evals=[(data.X_test, data.y_test,
                                                         data.qid_test)])
    with pytest.raises(InputError, match=r"hit@3 is a binary metric.*graded.*rel_min="):
        _ranker(callbacks=[cb]).set_params(n_estimators=1).fit(
            data.X_train, data.y_train, qid=data.qid_train)
    dtest = xgb.DMatrix(data.X_test, data.y_test, qid=data.qid_test)
    with pytest.raises(InputError, match=r"ap@5 is a binary metric"):
        skrank.xgboost.custom_metric("ap@5")(np.zeros(len(data.y_test), np.float32), dtest)


def test_callback_eval_set_without_qid_is_an_error(data):
    cb = skrank.xgboost.metric_callback("ndcg@5", evals=[(data.X_test, data.y_test)])
    with pytest.raises(InputError, match=r"\(X, y\) pair without query ids"):
        _ranker(callbacks=[cb]).set_params(n_estimators=1).fit(
            data.X_train, data.y_train, qid=data.qid_train)
    cb = skrank.xgboost.metric_callback("ndcg@5",
                                        evals=[(xgb.DMatrix(data.X_test, data.y_test), "t")])
    with pytest.raises(InputError, match=r"evals\[0\] \('t'\) has no query groups"):
        _ranker(callbacks=[cb]).set_params(n_estimators=1).fit(
            data.X_train, data.y_train, qid=data.qid_train)


def test_callback_rejects_xgb_cv(data):
    dtrain = xgb.DMatrix(data.X_train, data.y_train, qid=data.qid_train)
    cb = skrank.xgboost.metric_callback("ndcg@5", evals=[(dtrain, "train")])
    with pytest.raises(InputError, match=r"not with xgboost\.cv"):
        xgb.cv({**PARAMS}, dtrain, 1, nfold=2, callbacks=[cb])


def test_callback_unknown_data_name(data):
    cb = skrank.xgboost.metric_callback("ndcg@5", evals=[(data.X_test, data.y_test,
                                                          data.qid_test)],
                                        data_name="test", early_stopping_rounds=2)
    with pytest.raises(InvalidParameterError, match=r"'data_name'.*'validation_0'"):
        _ranker(callbacks=[cb]).set_params(n_estimators=1).fit(
            data.X_train, data.y_train, qid=data.qid_train)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(evals=[]), r"'evals' parameter"),
        (dict(evals="dtest"), r"'evals' parameter"),
        (dict(evals=[(1, 2, 3)], metric_name="rr"), r"'metric_name'.*'skrank_ndcg@5'"),
        (dict(evals=[(1, 2, 3)], early_stopping_rounds=0), r"'early_stopping_rounds'"),
        (dict(evals=[(1, 2, 3)], min_delta=-0.1), r"'min_delta'"),
        (dict(evals=[(1, 2, 3)], save_best=1), r"'save_best'"),
        (dict(evals=[(1, 2, 3)], ties="docid"), r"no document ids"),
        (dict(evals=[(1, 2, 3)], empty="maybe"), r"'empty' parameter"),
    ],
)
def test_bad_callback_parameters(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        skrank.xgboost.metric_callback("ndcg@5", **kwargs)


def test_custom_metric_names_and_repr():
    cm = skrank.xgboost.custom_metric("map@5", "MRR", preset="xgboost", prefix="x_")
    assert cm.names == ("x_ap@5", "x_rr")
    assert cm.conventions.score_precision == "float32"
    assert "x_ap@5" in repr(cm)
