"""Preprocessing in front of a ranker: ``make_pipeline(StandardScaler(), LGBMRanker())``.

scikit-learn's own pipeline works with metadata routing and NumPy ``X`` (the ids are routed
to the ranker); with the ids in a ``qid`` column it cannot (the scaler treats the column as a
feature), and the error names the fix. :func:`skrank.pipeline.make_ranking_pipeline` works
both ways, and its scores equal the routed ones and those recomputed fold by fold by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GroupKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import skrank
from skrank import InputError, SkrankWarning, ndcg_at
from skrank.lightgbm import LGBMRanker
from skrank.pipeline import RankingPipeline, make_ranking_pipeline

from ._helpers import frame

SCORING = ndcg_at(5, ties="pessimistic")


def ranker():
    return LGBMRanker(n_estimators=8, num_leaves=7, learning_rate=0.2, n_jobs=1, verbose=-1)


@pytest.fixture(scope="module")
def small(data):
    """The first 40 queries of the training split: X, y, qid and X with a qid column."""
    keep = np.isin(data.qid_train, np.unique(data.qid_train)[:40])
    X, y, qid = data.X_train[keep], data.y_train[keep], data.qid_train[keep]
    return X, y, qid, frame(X, qid)


def by_hand(X, y, qid, folds):
    """Each fold: scale on the training rows, fit the ranker with qid, NDCG@5 on the test."""
    out = []
    for train, test in folds:
        scaler = StandardScaler().fit(X[train])
        model = ranker().fit(scaler.transform(X[train]), y[train], qid=qid[train])
        pred = model.predict(scaler.transform(X[test]))
        out.append(skrank.ndcg(y[test], pred, qid[test], k=5, ties="pessimistic").value)
    return np.array(out)


def test_ranking_pipeline_with_a_qid_column_without_routing(small):
    X, y, qid, df = small
    pipe = make_ranking_pipeline(StandardScaler(), ranker())
    assert isinstance(pipe, RankingPipeline)
    res = cross_validate(pipe, df, y, groups=qid, cv=GroupKFold(4), scoring=SCORING,
                         return_indices=True, return_estimator=True)
    folds = list(zip(res["indices"]["train"], res["indices"]["test"]))
    np.testing.assert_allclose(res["test_score"], by_hand(X, y, qid, folds), rtol=0, atol=1e-12)
    for fitted in res["estimator"]:
        assert list(fitted[0].feature_names_in_) == [f"f{i}" for i in range(X.shape[1])]


def test_the_literal_line(small):
    # the literal line: no cv=, so KFold(5) cuts some queries (a SkrankWarning says so)
    _, y, qid, df = small
    pipe = make_ranking_pipeline(StandardScaler(), ranker())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkrankWarning)
        warnings.filterwarnings("ignore", "The groups parameter is ignored by KFold")
        res = cross_validate(pipe, df, y, groups=qid, scoring=ndcg_at(5, ties="pessimistic"))
    assert np.isfinite(res["test_score"]).all()


@pytest.mark.parametrize("kind", ["sklearn_numpy", "skrank_frame", "skrank_frame_and_qid"])
def test_both_pipelines_with_metadata_routing(small, kind):
    X, y, qid, df = small
    cv = GroupKFold(4)
    folds = list(cv.split(X, y, groups=qid))
    if kind == "sklearn_numpy":
        pipe, data, params = make_pipeline(StandardScaler(), ranker()), X, {"qid": qid,
                                                                              "groups": qid}
    elif kind == "skrank_frame":  # the ids from the column; groups for the splitter
        pipe, data, params = make_ranking_pipeline(StandardScaler(), ranker()), df, {
            "groups": qid}
    else:
        pipe, data, params = make_ranking_pipeline(StandardScaler(), ranker()), df, {
            "qid": qid, "groups": qid}
    with sklearn.config_context(enable_metadata_routing=True):
        res = cross_validate(pipe, data, y, cv=cv, scoring=SCORING, params=params)
    np.testing.assert_allclose(res["test_score"], by_hand(X, y, qid, folds), rtol=0, atol=1e-12)


def test_routed_qid_and_column_must_agree(small):
    _, y, qid, df = small
    pipe = make_ranking_pipeline(StandardScaler(), ranker())
    with sklearn.config_context(enable_metadata_routing=True), pytest.raises(
        InputError, match=r"RankingPipeline.fit got query ids twice"
    ):
        pipe.fit(df, y, qid=qid[::-1])


def test_sklearn_pipeline_with_a_qid_column_names_the_fix(small):
    _, y, qid, df = small
    pipe = make_pipeline(StandardScaler(), ranker())
    with pytest.raises(InputError, match=r"LGBMRanker.fit needs the query of each row.*"
                                         r"skrank.pipeline.make_ranking_pipeline"):
        cross_validate(pipe, df, y, groups=qid, cv=GroupKFold(4), scoring=SCORING,
                       error_score="raise")
    # with pandas output the scaler hands the ranker a scaled 'qid' column
    pipe = make_pipeline(StandardScaler(), ranker()).set_output(transform="pandas")
    with pytest.raises(InputError, match=r"must hold integer or string ids. Got -?[0-9.]+ at "
                                         r"row 0 .*skrank.pipeline.make_ranking_pipeline"):
        pipe.fit(df, y)


def test_polars_and_pyarrow_frames_give_the_pandas_scores(small):
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    _, y, qid, df = small
    cv = GroupKFold(4)
    expected = cross_validate(make_ranking_pipeline(StandardScaler(), ranker()), df, y,
                              groups=qid, cv=cv, scoring=SCORING)["test_score"]
    for other in (pl.from_pandas(df), pa.Table.from_pandas(df)):
        got = cross_validate(make_ranking_pipeline(StandardScaler(), ranker()), other, y,
                             groups=qid, cv=cv, scoring=SCORING)["test_score"]
        np.testing.assert_array_equal(got, expected)


def test_a_last_step_without_qid_gets_the_features_only(small):
    from sklearn.linear_model import Ridge

    X, y, qid, df = small
    pipe = make_ranking_pipeline(StandardScaler(), Ridge()).fit(df, y)
    assert pipe[0].n_features_in_ == X.shape[1]
    assert SCORING(pipe, df, y) == SCORING(make_pipeline(StandardScaler(), Ridge()).fit(X, y),
                                           X, y, qid=qid)
