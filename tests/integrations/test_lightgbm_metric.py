"""skrank.lightgbm.feval / eval_metric / early_stopping against LightGBM's own metrics.

The reference is LightGBM itself: its built-in ``ndcg@k`` and ``map@k`` recorded by
``lgb.record_evaluation`` over a training run, compared with ``==`` (bit for bit) to what the
``preset="lightgbm"`` feval computes on the same predictions. The runs use few leaves and a
large ``min_data_in_leaf`` so that many documents share a score (the tie rule matters, and
the tests assert that it does), and ``num_threads=1`` (LightGBM's OpenMP partial sums change
the last bits with the thread count).
"""

from __future__ import annotations

import lightgbm as lgb
import numpy as np
import pytest

import skrank
import skrank.lightgbm
from skrank.exceptions import InputError, InvalidParameterError

KS = (1, 3, 5, 10)
ROUNDS = 25
PARAMS = dict(
    objective="lambdarank",
    metric=["ndcg", "map"],
    eval_at=list(KS),
    num_leaves=3,
    min_data_in_leaf=150,
    learning_rate=0.1,
    num_threads=1,
    deterministic=True,
    force_row_wise=True,
    seed=0,
    verbose=-1,
)


def _datasets(data, weights=False, empty_test_queries=0):
    y_test = data.y_test.copy()
    if empty_test_queries:
        # all-zero-label queries in the validation set too (the training set has 3 already)
        for q in np.unique(data.qid_test)[:empty_test_queries]:
            y_test[data.qid_test == q] = 0
    w_train = w_test = None
    if weights:
        rng = np.random.default_rng(7)
        w_train = rng.uniform(0.2, 3.0, size=data.y_train.shape[0])
        w_test = rng.uniform(0.2, 3.0, size=y_test.shape[0])
    train = lgb.Dataset(data.X_train, data.y_train, group=data.group_train, weight=w_train,
                        free_raw_data=False)
    test = lgb.Dataset(data.X_test, y_test, group=data.group_test, weight=w_test,
                       reference=train, free_raw_data=False)
    return train, test, y_test, w_test


def _train(data, feval, weights=False, empty_test_queries=0, rounds=ROUNDS, params=PARAMS):
    train, test, y_test, w_test = _datasets(data, weights, empty_test_queries)
    seen: dict[str, list[np.ndarray]] = {"training": [], "valid_1": []}
    names = {id(train): "training", id(test): "valid_1"}

    def spy(preds, eval_data):  # keeps the exact predictions LightGBM evaluated
        seen[names[id(eval_data)]].append(np.array(preds, copy=True))
        return []

    log: dict = {}
    lgb.train(params, train, num_boost_round=rounds, valid_sets=[train, test],
              feval=[*feval, spy], callbacks=[lgb.record_evaluation(log)])
    return log, seen, y_test, w_test


def _preset_fevals():
    names = [f"ndcg@{k}" for k in KS] + [f"map@{k}" for k in KS]
    return [skrank.lightgbm.feval(*names, preset="lightgbm", prefix="sk_")]


def _assert_bit_equal(log):
    compared = 0
    for data_name in ("training", "valid_1"):
        for k in KS:
            for lgb_name, sk_name in ((f"ndcg@{k}", f"sk_ndcg@{k}"), (f"map@{k}", f"sk_ap@{k}")):
                theirs = log[data_name][lgb_name]
                ours = log[data_name][sk_name]
                assert len(theirs) == len(ours) == ROUNDS
                assert ours == theirs, (data_name, lgb_name)  # bit for bit, every iteration
                compared += len(ours)
    assert compared == 2 * len(KS) * 2 * ROUNDS


def _tie_counts(seen, data, y_test):
    """Per iteration: validation queries whose NDCG@5 depends on the tie rule."""
    return [
        skrank.evaluate(y_test, p, group=data.group_test, metrics=["ndcg@5"],
                        preset="lightgbm")["ndcg@5"].n_tie_affected
        for p in seen["valid_1"]
    ]


def test_preset_lightgbm_equals_internal_ndcg_and_map_bit_for_bit(data):
    log, seen, y_test, _ = _train(data, _preset_fevals())
    _assert_bit_equal(log)
    # the run really ties: most iterations have validation queries where ties change NDCG@5
    ties = _tie_counts(seen, data, y_test)
    assert sum(t > 0 for t in ties) >= ROUNDS // 2, ties
    # the training set has queries without any relevant document (LightGBM counts them 1)
    assert skrank.evaluate(data.y_train, seen["training"][-1], group=data.group_train,
                           metrics=["ndcg@5"], preset="lightgbm")["ndcg@5"].n_empty == 3


def test_preset_lightgbm_bit_for_bit_with_weights_and_empty_queries(data):
    log, seen, y_test, w_test = _train(data, _preset_fevals(), weights=True,
                                       empty_test_queries=4)
    _assert_bit_equal(log)
    res = skrank.evaluate(y_test, seen["valid_1"][-1], group=data.group_test,
                          metrics=["ndcg@5"], preset="lightgbm", sample_weight=w_test)
    assert res["ndcg@5"].n_empty == 4 and res["ndcg@5"].weighted
    # the weights matter: the unweighted mean is a different number
    unweighted = skrank.evaluate(y_test, seen["valid_1"][-1], group=data.group_test,
                                 metrics=["ndcg@5"], preset="lightgbm")["ndcg@5"].value
    assert unweighted != log["valid_1"]["ndcg@5"][-1]


@pytest.mark.parametrize("label_gain", [[0.0, 1.0, 2.0, 3.0, 10.0], [0.0, 1.0, 3.0, 7.25, 7.0]])
def test_preset_feval_reads_label_gain_from_the_training_parameters(data, label_gain):
    # issue 13: the feval ignored a label_gain set in the training parameters (on this run
    # ndcg@3 was off by up to 0.071 with the first table, 0.014 with the second);
    # lightgbm.train hands the parameters to each Dataset it evaluates (Dataset.params).
    # The second table falls with the label: LightGBM's ideal DCG in label order
    # (ideal_order="label") then gives values above 1
    log, _, _, _ = _train(data, _preset_fevals(), params={**PARAMS, "label_gain": label_gain})
    _assert_bit_equal(log)
    # explicit conventions are the user's: gain= keeps its table
    f = skrank.lightgbm.feval("ndcg@3", preset="lightgbm", gain="linear")
    assert f.conventions.gain == "linear" and not f._set.reads_library_gain


def test_preset_feval_refuses_a_label_gain_it_cannot_read(data):
    train, test, _, _ = _datasets(data)
    f = skrank.lightgbm.feval("ndcg@3", preset="lightgbm")
    with pytest.raises(InputError, match="label_gain"):
        lgb.train({**PARAMS, "metric": "None", "label_gain": [0, 1, 3, 7, 15]}, train,
                  num_boost_round=1, valid_sets=[test],
                  feval=lambda p, d: f(p, _Params(d, {"label_gain": "0,1,x"})))


class _Params:
    """A Dataset seen with other parameters."""

    def __init__(self, dataset, params):
        self._d, self.params = dataset, params

    def __getattr__(self, name):
        return getattr(self._d, name)


def test_pessimistic_feval_brackets_lightgbm_input_order(data):
    pess = skrank.lightgbm.feval("ndcg@5", "rr", preset="lightgbm", ties="pessimistic",
                                 prefix="pess_")
    opt = skrank.lightgbm.feval("ndcg@5", preset="lightgbm", ties="optimistic", prefix="opt_")
    log, seen, y_test, _ = _train(data, [pess, opt])
    valid = log["valid_1"]
    lo, mid, hi = (np.array(valid[n]) for n in ("pess_ndcg@5", "ndcg@5", "opt_ndcg@5"))
    assert np.all(lo <= mid) and np.all(mid <= hi)
    assert np.any(lo < mid)  # the tie rule changes the number LightGBM reports
    # and each value is skrank.evaluate on the predictions LightGBM evaluated
    for i, p in enumerate(seen["valid_1"]):
        res = skrank.evaluate(y_test, p, group=data.group_test, metrics=["ndcg@5", "rr"],
                              preset="lightgbm", ties="pessimistic")
        assert valid["pess_ndcg@5"][i] == res["ndcg@5"].value
        assert valid["pess_rr"][i] == res["rr"].value


def test_eval_metric_four_argument_form_in_lgbmranker(data):
    rng = np.random.default_rng(3)
    w = rng.uniform(0.5, 2.0, size=data.y_test.shape[0])
    ranker = lgb.LGBMRanker(n_estimators=8, num_leaves=3, min_child_samples=150,
                            learning_rate=0.1, n_jobs=1, deterministic=True,
                            force_row_wise=True, verbose=-1)
    f = skrank.lightgbm.eval_metric("ndcg@3", "map@3", preset="lightgbm")
    ranker.fit(data.X_train, data.y_train, group=data.group_train,
               eval_X=(data.X_test,), eval_y=(data.y_test,), eval_group=[data.group_test],
               eval_sample_weight=[w], eval_at=[3], eval_metric=["ndcg", "map", f])
    res = ranker.evals_result_["valid_0"]
    assert res["skrank_ndcg@3"] == res["ndcg@3"]
    assert res["skrank_ap@3"] == res["map@3"]
    assert len(res["ndcg@3"]) == 8


def test_early_stopping_best_iteration_is_argmax_of_the_chosen_metric(data):
    train, test, _, _ = _datasets(data)
    f = skrank.lightgbm.feval("err@5", "rr", rel_min=2)
    stop = skrank.lightgbm.early_stopping("skrank_rr", 4, verbose=False)
    log: dict = {}
    params = {**PARAMS, "eval_at": [1], "metric": "ndcg", "num_leaves": 4,
              "min_data_in_leaf": 40, "learning_rate": 0.3}
    booster = lgb.train(params, train, num_boost_round=60, valid_sets=[train, test],
                        feval=f, callbacks=[lgb.record_evaluation(log), stop])
    history = log["valid_1"]["skrank_rr"]
    best = int(np.argmax(history))  # first maximum: later equal values are no improvement
    assert booster.best_iteration == best + 1  # LightGBM's best_iteration is 1-based
    assert stop.best_iteration == best
    assert stop.history == history
    assert booster.best_score["valid_1"]["skrank_rr"] == history[best]
    # it stopped exactly 4 rounds after the best one (or ran to the end)
    assert len(history) == min(best + 1 + 4, 60)
    # LightGBM's built-in ndcg@1 and the first feval metric (err@5) were evaluated too; the
    # callback watched only the metric it was given
    assert "ndcg@1" in log["valid_1"] and "skrank_err@5" in log["valid_1"]


def test_early_stopping_not_met_reports_best_iteration(data):
    train, test, _, _ = _datasets(data)
    stop = skrank.lightgbm.early_stopping("skrank_ndcg@5", 100, verbose=False)
    log: dict = {}
    booster = lgb.train({**PARAMS, "metric": "None"}, train, num_boost_round=6,
                        valid_sets=[test], feval=skrank.lightgbm.feval("ndcg@5"),
                        callbacks=[lgb.record_evaluation(log), stop])
    history = log["valid_0"]["skrank_ndcg@5"]
    assert len(history) == 6
    assert booster.best_iteration == int(np.argmax(history)) + 1


def test_early_stopping_watches_named_dataset_and_direction(data):
    train, test, _, _ = _datasets(data)
    # a built-in metric watched on the training data, forced to be minimised: the callback
    # follows what it is told, so best_iteration is the argmin of the recorded history
    stop = skrank.lightgbm.early_stopping("ndcg@1", 3, data_name="training", maximize=False,
                                          verbose=False)
    log: dict = {}
    booster = lgb.train({**PARAMS, "metric": "ndcg", "eval_at": [1]}, train,
                        num_boost_round=15, valid_sets=[train, test],
                        callbacks=[lgb.record_evaluation(log), stop])
    history = log["training"]["ndcg@1"]
    assert booster.best_iteration == int(np.argmin(history)) + 1


def test_feval_on_dataset_without_groups_is_an_error(data):
    train = lgb.Dataset(data.X_train[:200], data.y_train[:200])
    with pytest.raises(InputError, match=r"has no query groups.*group=sizes"):
        lgb.train({"objective": "regression", "num_leaves": 3, "verbose": -1,
                   "num_threads": 1}, train, num_boost_round=1, valid_sets=[train],
                  feval=skrank.lightgbm.feval("ndcg@5"))


def test_feval_with_multiclass_objective_is_an_error(data):
    train = lgb.Dataset(data.X_train, data.y_train, group=data.group_train)
    with pytest.raises(InputError, match="multiclass"):
        lgb.train({"objective": "multiclass", "num_class": 5, "num_leaves": 3, "verbose": -1,
                   "num_threads": 1}, train, num_boost_round=1, valid_sets=[train],
                  feval=skrank.lightgbm.feval("ndcg@5"))


@pytest.mark.parametrize("metric", ["p@5", "r@5", "hit@5", "ap@5", "rr"])
def test_binary_metric_on_graded_labels_needs_rel_min(data, metric):
    train = lgb.Dataset(data.X_train, data.y_train, group=data.group_train)
    params = {"objective": "lambdarank", "num_leaves": 3, "verbose": -1, "num_threads": 1}
    with pytest.raises(InputError, match=r"binary metric.*graded.*largest label 4.*rel_min="):
        lgb.train(params, train, num_boost_round=1, valid_sets=[train],
                  feval=skrank.lightgbm.feval(metric))
    # with an explicit threshold, or a preset that defines one, it runs
    for f in (skrank.lightgbm.feval(metric, rel_min=2), skrank.lightgbm.feval(metric,
                                                                               preset="lightgbm")):
        log: dict = {}
        lgb.train({**params, "metric": "None"}, train, num_boost_round=1, valid_sets=[train],
                  feval=f, callbacks=[lgb.record_evaluation(log)])
        assert 0.0 <= log["training"][f.names[0]][0] <= 1.0


def test_binary_metric_on_binary_labels_needs_no_threshold():
    f = skrank.lightgbm.eval_metric("ap@2")
    # one query, relevant at ranks 1 and 3; binary labels need no threshold. By hand:
    # AP@2 = (precision at rank 1 = 1/1) / R, with R = 2 (skrank's ap_denominator="all") = 0.5
    out = f(np.array([1, 0, 1]), np.array([0.9, 0.5, 0.1]), None, np.array([3]))
    assert out == [("skrank_ap@2", 0.5, True)]


def test_feval_passed_to_lgbmranker_points_to_eval_metric(data):
    ranker = lgb.LGBMRanker(n_estimators=1, num_leaves=3, n_jobs=1, verbose=-1)
    with pytest.raises(InputError, match=r"LGBMRanker.fit\(eval_metric=...\) use "
                                         r"skrank.lightgbm.eval_metric"):
        ranker.fit(data.X_train, data.y_train, group=data.group_train,
                   eval_X=(data.X_test,), eval_y=(data.y_test,), eval_group=[data.group_test],
                   eval_metric=skrank.lightgbm.feval("ndcg@5"))


def test_eval_metric_without_group_is_an_error():
    f = skrank.lightgbm.eval_metric("ndcg@5")
    with pytest.raises(InputError, match=r"no query groups.*eval_group="):
        f(np.array([1, 0]), np.array([0.2, 0.1]), None, None)


def test_early_stopping_unknown_metric_lists_what_was_evaluated(data):
    train, test, _, _ = _datasets(data)
    stop = skrank.lightgbm.early_stopping("skrank_ndcg@50", 3, verbose=False)
    with pytest.raises(InvalidParameterError, match=r"'metric_name'.*valid_1's skrank_ndcg@5"):
        lgb.train({**PARAMS, "metric": "None"}, train, num_boost_round=2,
                  valid_sets=[train, test], feval=skrank.lightgbm.feval("ndcg@5"),
                  callbacks=[stop])


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: skrank.lightgbm.feval(), r"'metrics' parameter of skrank.lightgbm.feval"),
        (lambda: skrank.lightgbm.feval("ndcg@0"), r"'k' parameter"),
        (lambda: skrank.lightgbm.feval("auc"), r"'metric' parameter"),
        (lambda: skrank.lightgbm.feval("ndcg@5", ties="docid"), r"no document ids"),
        (lambda: skrank.lightgbm.feval("ndcg@5", ties="random"), r"'ties' parameter"),
        (lambda: skrank.lightgbm.feval("ndcg@5", preset="catboost"), r"'preset' parameter"),
        (lambda: skrank.lightgbm.feval("ndcg@5", prefix="a b"), r"'prefix' parameter"),
        (lambda: skrank.lightgbm.feval("ndcg@5", bogus=1), r"'bogus' parameter"),
        (lambda: skrank.lightgbm.early_stopping("x", 0), r"'stopping_rounds'.*>= 1"),
        (lambda: skrank.lightgbm.early_stopping("", 3), r"'metric_name'"),
        (lambda: skrank.lightgbm.early_stopping("x", 3, min_delta=-1), r"'min_delta'"),
        (lambda: skrank.lightgbm.early_stopping("x", 3, maximize="yes"), r"'maximize'"),
    ],
)
def test_bad_parameters(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_names_and_list_form():
    f = skrank.lightgbm.feval(["NDCG@5", "mrr", "ndcg@5"], preset="lightgbm")
    assert f.names == ("skrank_ndcg@5", "skrank_rr")
    assert [str(m) for m in f.metrics] == ["ndcg@5", "rr"]
    assert f.conventions.ties == "input"
    assert "skrank_ndcg@5" in repr(f)


def test_feval_and_early_stopping_in_lgb_cv(data):
    train = lgb.Dataset(data.X_train, data.y_train, group=data.group_train)
    stop = skrank.lightgbm.early_stopping("skrank_ndcg@5", 3, verbose=False)
    res = lgb.cv({**PARAMS, "metric": "ndcg", "eval_at": [5], "min_data_in_leaf": 50}, train,
                 num_boost_round=40, nfold=3, stratified=False, seed=0,
                 feval=skrank.lightgbm.feval("ndcg@5", preset="lightgbm"), callbacks=[stop])
    # per fold the values are LightGBM's, so are their means over the folds
    assert res["valid skrank_ndcg@5-mean"] == res["valid ndcg@5-mean"]
    # cv() truncates the results at the best iteration: the last one is the first maximum
    history = res["valid skrank_ndcg@5-mean"]
    assert int(np.argmax(history)) == len(history) - 1 == stop.best_iteration
    assert len(stop.history) == stop.best_iteration + 1 + 3 or len(stop.history) == 40


def test_early_stopping_never_watches_the_training_data_under_any_name(data):
    # lightgbm.train names the training data after its entry of valid_names; skrank's early
    # stopping tells it apart through the public Booster.name_valid_sets, not a private name
    train = lgb.Dataset(data.X_train, data.y_train, group=data.group_train)
    valid = lgb.Dataset(data.X_test, data.y_test, group=data.group_test, reference=train)
    stop = skrank.lightgbm.early_stopping("skrank_ndcg@5", 2, verbose=False)
    log: dict = {}
    lgb.train({**PARAMS, "metric": "None"}, train, num_boost_round=8,
              valid_sets=[train, valid], valid_names=["my_train", "held_out"],
              feval=skrank.lightgbm.feval("ndcg@5", preset="lightgbm"),
              callbacks=[stop, lgb.record_evaluation(log)])
    assert stop._watched == "held_out's skrank_ndcg@5"
    assert stop.history == log["held_out"]["skrank_ndcg@5"][: len(stop.history)]


def test_lightgbm_public_names_the_early_stopping_relies_on():
    # fails loudly if LightGBM renames what skrank reads instead of its private attributes
    assert isinstance(lgb.CVBooster, type)
    assert "self.name_valid_sets" in __import__("inspect").getsource(lgb.Booster.add_valid)
