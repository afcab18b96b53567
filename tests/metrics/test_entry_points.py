"""Every entry point x every preset x every metric gives the number ``evaluate`` gives.

Issue 13, "a preset must be a complete value": a preset's per-metric exceptions (XGBoost's
``pre@k`` scores a query without relevant documents 0, its ``map@k`` and LightGBM's weight the
1 of such a query) used to live outside :class:`~skrank.Conventions`, so the scorers, which
pass resolved conventions on, lost them. Before the fix, on this module's data,
``make_ranking_scorer("p@2", preset="xgboost")`` gave 0.875 where
``evaluate(..., metrics=["p@2"], preset="xgboost")`` gave 0.625 (run here, skrank at c74d18a);
the issue's own case was 0.825 vs 0.650. Now the preset's exceptions travel inside the value.
"""

from __future__ import annotations

import numpy as np
import pytest

import skrank
import skrank.lightgbm
import skrank.xgboost
from skrank.conventions import PRESETS, preset_conventions, resolve_conventions
from skrank.scorers import make_ranking_scorer

METRICS = ("ndcg@3", "ndcg", "dcg@3", "p@2", "p", "r@2", "hit@2", "ap@3", "ap", "rr", "err@3")
_FUNCTION = {"ndcg": "ndcg", "dcg": "dcg", "p": "precision", "r": "recall", "hit": "hit_rate",
             "ap": "average_precision", "rr": "reciprocal_rank", "err": "err"}

# five queries, two without a relevant document (where the presets' exceptions matter), ties,
# graded labels; weights constant per query (XGBoost takes one per query) and exact in float32
# (LightGBM's Dataset stores float32)
SIZES = np.array([4, 3, 3, 4, 2])
QID = np.repeat(np.arange(5), SIZES)
Y = np.array([1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0])
SCORE = np.array([0.5, 0.9, 0.5, 0.1, 0.3, 0.2, 0.1, 0.7, 0.7, 0.8,
                  0.25, 0.5, 0.75, 0.5, 1.0, 1.0])
QW = np.array([1.0, 2.0, 0.5, 3.0, 1.5])
W = np.repeat(QW, SIZES)
X = np.zeros((Y.size, 1))


class _Fixed:
    def __init__(self, pred):
        self.pred = pred

    def predict(self, X):
        return self.pred


def _overrides(preset):
    if preset in ("trec_eval", "trec_eval9"):
        return {"ties": "input"}  # no entry point but evaluate receives document ids
    if preset is None:
        return {"rel_min": 1}     # graded labels: the training metrics want a threshold
    return {}


def _function(metric, preset, ov):
    spec = skrank.Metric.parse(metric)
    f = getattr(skrank, _FUNCTION[spec.name])
    return f(Y, SCORE, QID, k=spec.k, preset=preset, sample_weight=W, **ov).value


def _scorer(metric, preset, ov):
    return make_ranking_scorer(metric, preset=preset, **ov)(_Fixed(SCORE), X, Y, qid=QID,
                                                            sample_weight=W)


def _multi_scorer(metric, preset, ov):
    out = make_ranking_scorer(list(METRICS), preset=preset, **ov)(
        _Fixed(SCORE), X, Y, qid=QID, sample_weight=W)
    return out[str(skrank.Metric.parse(metric))]


def _conventions_value(metric, preset, ov):
    conv = resolve_conventions(preset, **ov)
    return skrank.evaluate(Y, SCORE, QID, metrics=list(METRICS), conventions=conv,
                           sample_weight=W)[metric].value


def _lgb_eval_metric(metric, preset, ov):
    pytest.importorskip("lightgbm")
    f = skrank.lightgbm.eval_metric(*METRICS, preset=preset, **ov)
    return [v for _, v, _ in f(Y, SCORE, W, SIZES)][METRICS.index(metric)]


def _lgb_feval(metric, preset, ov):
    lgb = pytest.importorskip("lightgbm")
    ds = lgb.Dataset(X, label=Y, group=SIZES, weight=W, free_raw_data=False,
                     params={"verbose": -1}).construct()
    f = skrank.lightgbm.feval(metric, preset=preset, **ov)
    return f(SCORE, ds)[0][1]


def _xgb_custom_metric(metric, preset, ov):
    xgb = pytest.importorskip("xgboost")
    dm = xgb.DMatrix(X, label=Y, qid=QID)
    dm.set_weight(QW)
    f = skrank.xgboost.custom_metric(metric, preset=preset, **ov)
    return f.values(SCORE.astype(np.float32), dm)[0]


ENTRY_POINTS = [_function, _scorer, _multi_scorer, _conventions_value, _lgb_eval_metric,
                _lgb_feval, _xgb_custom_metric]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("preset", [*PRESETS, None])
@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=lambda f: f.__name__.lstrip("_"))
def test_every_entry_point_equals_evaluate(entry, preset, metric):
    ov = _overrides(preset)
    score = SCORE.astype(np.float32) if entry is _xgb_custom_metric else SCORE
    want = skrank.evaluate(Y, score, QID, metrics=list(METRICS), preset=preset,
                           sample_weight=W, **ov)[metric].value
    assert entry(metric, preset, ov) == want


def test_scorer_p_at_2_xgboost_the_issue_case():
    # before: the scorer gave 0.7 (run here at c74d18a: the two queries without relevant
    # documents counted 1); XGBoost's pre@2 scores them 0: (1/2 + 0 + 1/2 + 1/2 + 0) / 5 = 0.3
    s = make_ranking_scorer("p@2", preset="xgboost")(_Fixed(SCORE), X, Y, qid=QID)
    e = skrank.evaluate(Y, SCORE, QID, metrics=["p@2"], preset="xgboost")["p@2"].value
    assert s == e == pytest.approx(0.3)


def test_a_preset_is_one_complete_value():
    xgb = preset_conventions("xgboost")
    assert xgb.for_metric("p").empty == "zero"
    assert xgb.for_metric("ap").empty_weighted is True
    assert xgb.for_metric("ndcg") == xgb.replace(metric_exceptions=())
    # an explicit convention holds for every metric: it leaves the exceptions
    assert resolve_conventions("xgboost", empty="exclude").for_metric("p").empty == "exclude"
    assert xgb.replace(empty="exclude").exceptions_of("p") == ()
    assert xgb.to_dict()["metric_exceptions"]["p"] == {"empty": "zero"}
    assert eval(repr(xgb), {"Conventions": skrank.Conventions}) == xgb
    with pytest.raises(skrank.InvalidParameterError, match="metric_exceptions"):
        skrank.Conventions(metric_exceptions={"p": {"bogus": 1}})
