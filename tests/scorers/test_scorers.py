"""Ranking scorers: values, where the query ids come from, repr, pickling and bad input.

Small synthetic data and a linear "ranker" whose predictions are known: the scorer's value is
checked against a slow per-query loop written from the definition of NDCG, and against
``skrank.evaluate`` on the same predictions.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GroupKFold, KFold, cross_validate

import skrank
from skrank import (
    InputError,
    InvalidParameterError,
    SkrankWarning,
    average_precision_at,
    dcg_at,
    err_at,
    get_ranking_scorer,
    get_ranking_scorer_names,
    hit_rate_at,
    make_ranking_scorer,
    ndcg_at,
    precision_at,
    recall_at,
    reciprocal_rank_at,
)
from skrank.scorers import RankingScorer

from ._helpers import FirstColumn, oracle_ndcg_pessimistic


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    n = 60
    qid = rng.choice([11, 5, 8, 2, 9], size=n)  # rows of a query are not adjacent
    X = np.round(rng.normal(size=(n, 3)), 1)  # rounding makes ties
    y = rng.integers(0, 4, size=n)
    return X, y, qid


def frame(X, qid):
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    df.insert(1, "qid", qid)
    return df


# -- values ----------------------------------------------------------------------------------


def test_value_matches_slow_oracle_with_noncontiguous_queries(data):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    got = ndcg_at(5, ties="pessimistic")(model, X, y, qid=qid)
    assert got == pytest.approx(oracle_ndcg_pessimistic(y, X[:, 0], qid, 5), rel=1e-12)


@pytest.mark.parametrize(
    ("scorer", "metric", "conventions"),
    [
        (ndcg_at(3, gain="linear"), "ndcg@3", {"gain": "linear"}),
        (dcg_at(5), "dcg@5", {}),
        (precision_at(4, p_divisor="min_k_n"), "p@4", {"p_divisor": "min_k_n"}),
        (recall_at(6), "r@6", {}),
        (average_precision_at(10, preset="lightgbm"), "ap@10", {"preset": "lightgbm"}),
        (reciprocal_rank_at(None, ties="optimistic"), "rr", {"ties": "optimistic"}),
        (err_at(5, max_label=3), "err@5", {"max_label": 3}),
        (hit_rate_at(2, rel_min=2), "hit@2", {"rel_min": 2}),
    ],
)
def test_every_shortcut_equals_evaluate(data, scorer, metric, conventions):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    expected = skrank.evaluate(y, X[:, 0], qid, metrics=[metric], **conventions)[metric].value
    assert scorer(model, X, y, qid=qid) == expected
    assert scorer.name == metric


def test_scores_are_not_one_big_query(data):
    # the same rows scored as one query give another number: the grouping is used
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    per_query = ndcg_at(5)(model, X, y, qid=qid)
    one_query = ndcg_at(5)(model, X, y, qid=np.zeros_like(qid))
    assert per_query != pytest.approx(one_query)


def test_sample_weight_weights_queries(data):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    w = np.where(qid == 5, 3.0, 1.0)
    got = ndcg_at(5)(model, X, y, qid=qid, sample_weight=w)
    assert got == skrank.ndcg(y, X[:, 0], qid, k=5, sample_weight=w).value
    assert got != ndcg_at(5)(model, X, y, qid=qid)


def test_greater_is_better():
    # a perfect ranking scores higher than a reversed one, for every metric
    X = np.array([[3.0], [2.0], [1.0], [3.0], [2.0], [1.0]])
    y = np.array([2, 1, 0, 1, 1, 0])
    qid = np.array([1, 1, 1, 2, 2, 2])
    good = LinearRegression().fit(X, y)
    bad = LinearRegression().fit(-X, y)
    for name in ["ndcg@2", "dcg@2", "p@1", "r@1", "ap", "rr", "err@2", "hit@1"]:
        scorer = get_ranking_scorer(name)
        assert scorer(good, X, y, qid=qid) > scorer(bad, -X, y, qid=qid) - 1e-12, name


# -- where the query ids come from ------------------------------------------------------------


def test_qid_column_of_a_dataframe(data):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    expected = ndcg_at(5)(model, X, y, qid=qid)
    assert ndcg_at(5)(model, frame(X, qid), y) == expected


def test_string_query_ids(data):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    names = np.array([f"q{q}" for q in qid], dtype=object)
    assert ndcg_at(5)(model, X, y, qid=names) == ndcg_at(5)(model, X, y, qid=qid)


def test_routed_groups_are_used_when_qid_is_not(data):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    assert ndcg_at(5)(model, X, y, groups=qid) == ndcg_at(5)(model, X, y, qid=qid)


def test_routed_qid_wins_over_groups_and_column(data):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    other = np.zeros_like(qid)
    expected = ndcg_at(5)(model, X, y, qid=qid)
    assert ndcg_at(5)(model, frame(X, other), y, qid=qid, groups=other) == expected


def test_routed_groups_that_disagree_with_the_qid_column_raise(data):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    users = np.arange(len(y)) % 2
    with pytest.raises(InputError, match=r"received 'groups' but not 'qid', and X has a 'qid' "
                                         r"column that groups the rows differently"):
        ndcg_at(5)(model, frame(X, qid), y, groups=users)
    # the same partition under other names is fine
    assert ndcg_at(5)(model, frame(X, qid), y, groups=qid * 10) == pytest.approx(
        ndcg_at(5)(model, X, y, qid=qid))


# -- bad input ---------------------------------------------------------------------------------


def test_no_query_ids_raise_and_explain_both_ways(data):
    X, y, _ = data
    model = FirstColumn().fit(X, y)
    with pytest.raises(InputError, match=r"cannot tell which query each row of X belongs to, "
                                         r"and will not score all rows as one query") as info:
        ndcg_at(5)(model, X, y)
    assert "enable_metadata_routing=True" in str(info.value)
    assert "'qid' column" in str(info.value)


def test_qid_length_mismatch(data):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    with pytest.raises(InputError, match=r"X has 60 rows but the query ids number 59"):
        ndcg_at(5)(model, X, y, qid=qid[:-1])
    with pytest.raises(InputError, match=r"'groups' metadata .* X has 60 rows but the query "
                                         r"ids number 61"):
        ndcg_at(5)(model, X, y, groups=np.append(qid, 1))


@pytest.mark.parametrize(
    "missing", [np.nan, None, pd.NA], ids=["nan", "none", "pd.NA"]
)
def test_qid_with_missing_values(data, missing):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    bad = qid.astype(object) if missing is not np.nan else qid.astype(float)
    bad[3] = missing
    with pytest.raises(InputError, match=r"contains missing values \(1 rows, first at row 3"):
        ndcg_at(5)(model, X, y, qid=bad)
    df = frame(X, pd.array(bad, dtype="Int64") if missing is pd.NA else bad)
    with pytest.raises(InputError, match=r"'qid' column of X .* contains missing values"):
        ndcg_at(5)(model, df, y)


def test_qid_not_one_dimensional(data):
    X, y, qid = data
    with pytest.raises(InputError, match=r"must be 1-D with one query id per row"):
        ndcg_at(5)(FirstColumn().fit(X, y), X, y, qid=qid.reshape(-1, 2))


def test_fractional_float_qid(data):
    X, y, qid = data
    with pytest.raises(InputError, match=r"integer or string ids\. Got 0\.5 at row 0"):
        ndcg_at(5)(FirstColumn().fit(X, y), X, y, qid=np.r_[0.5, qid[1:]].astype(float))


def test_estimator_without_predict(data):
    X, y, qid = data
    with pytest.raises(InvalidParameterError, match=r"'estimator' parameter of "
                                                    r"make_ranking_scorer\('ndcg@5'\) must be a "
                                                    r"fitted estimator with a predict method"):
        ndcg_at(5)(object(), X, y, qid=qid)


def test_labels_of_another_length(data):
    X, y, qid = data
    with pytest.raises(InputError, match=r"one label per row of X: X has 60 rows but y has "
                                         r"shape \(59,\)"):
        ndcg_at(5)(FirstColumn().fit(X, y), X, y[:-1], qid=qid)


def test_predictions_of_the_wrong_shape(data):
    X, y, qid = data

    class TwoColumns(FirstColumn):
        def predict(self, X):
            return np.c_[X[:, 0], X[:, 1]]

    with pytest.raises(InputError, match=r"TwoColumns\.predict must return one score per row"):
        ndcg_at(5)(TwoColumns().fit(X, y), X, y, qid=qid)


def test_bad_labels_are_reported_by_the_metric_core(data):
    X, y, qid = data
    with pytest.raises(InputError, match=r"'y_true' parameter of make_ranking_scorer\('ndcg@5'\)"
                                         r" must hold non-negative"):
        ndcg_at(5)(FirstColumn().fit(X, y), X, -y, qid=qid)


def test_bad_construction():
    with pytest.raises(InvalidParameterError, match=r"The 'ties' parameter of "
                                                    r"make_ranking_scorer must be one of .*"
                                                    r"\(ties='docid' needs document ids"):
        ndcg_at(5, ties="docid")
    with pytest.raises(InvalidParameterError, match=r"'tie' parameter of make_ranking_scorer "
                                                    r"must be not passed: it is not a convention"):
        ndcg_at(5, tie="input")
    with pytest.raises(InvalidParameterError, match=r"'ties' parameter must be one of"):
        ndcg_at(5, ties="random")
    with pytest.raises(InvalidParameterError, match=r"'k' parameter of ndcg must be an int >= 1"):
        ndcg_at(0)
    with pytest.raises(InvalidParameterError, match=r"'metric' parameter must be a name"):
        make_ranking_scorer("accuracy")


# -- names, repr and pickling --------------------------------------------------------------------


def test_get_scorer_and_names():
    names = get_ranking_scorer_names()
    assert names == sorted(names)
    assert set(names) == {"ap", "dcg", "err", "hit", "ndcg", "p", "r", "rr"}
    for name in names:
        assert get_ranking_scorer(name).name == name
        assert get_ranking_scorer(f"{name}@7").name == f"{name}@7"
    assert get_ranking_scorer("map@10").name == "ap@10"
    scorer = ndcg_at(3)
    assert get_ranking_scorer(scorer) is scorer
    with pytest.raises(InvalidParameterError, match=r"'scoring' parameter of get_ranking_scorer "
                                                    r"must be a ranking metric name .* Got "
                                                    r"'accuracy'"):
        get_ranking_scorer("accuracy")
    with pytest.raises(InvalidParameterError, match=r"'scoring' parameter of get_ranking_scorer"):
        get_ranking_scorer(3)


@pytest.mark.parametrize(
    "scorer",
    [
        ndcg_at(5, ties="pessimistic"),
        average_precision_at(10, preset="lightgbm", ties="input"),
        make_ranking_scorer("err@20", conventions=skrank.Conventions(gain="linear")),
        precision_at(3, gain=[0, 1, 3, 7], rel_min=2),
        reciprocal_rank_at(None),
    ],
)
def test_repr_rebuilds_the_scorer(data, scorer):
    X, y, qid = data
    model = FirstColumn().fit(X, y)
    namespace = {"make_ranking_scorer": make_ranking_scorer, "Conventions": skrank.Conventions}
    rebuilt = eval(repr(scorer), namespace)
    assert isinstance(rebuilt, RankingScorer)
    assert repr(rebuilt) == repr(scorer)
    assert rebuilt.conventions == scorer.conventions
    assert rebuilt(model, X, y, qid=qid) == scorer(model, X, y, qid=qid)
    restored = pickle.loads(pickle.dumps(scorer))
    assert repr(restored) == repr(scorer)
    assert restored(model, X, y, qid=qid) == scorer(model, X, y, qid=qid)


# -- metadata routing --------------------------------------------------------------------------


def test_set_score_request_needs_routing():
    with pytest.raises(RuntimeError, match=r"only available when metadata routing is enabled"):
        ndcg_at(5).set_score_request(qid=True)


def test_default_requests_and_changes():
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = ndcg_at(5)
        request = scorer.get_metadata_routing()
        assert request.consumes("score", ["qid", "groups", "sample_weight"]) == {"qid", "groups"}
        assert scorer.set_score_request(sample_weight=True, groups=False) is scorer
        request = scorer.get_metadata_routing()
        assert request.consumes("score", ["qid", "groups", "sample_weight"]) == {
            "qid", "sample_weight"}
        with pytest.raises(InvalidParameterError, match=r"'qid' parameter of set_score_request "
                                                        r"must be True, False, None or an alias"):
            scorer.set_score_request(qid=3)


def test_routed_sample_weight_reaches_the_scorer(data):
    X, y, qid = data
    w = np.where(qid == 5, 3.0, 1.0)
    cv = GroupKFold(3)
    with sklearn.config_context(enable_metadata_routing=True):
        weighted = ndcg_at(5).set_score_request(sample_weight=True)
        est = FirstColumn().set_fit_request(qid=False)
        got = cross_validate(est, X, y, cv=cv, scoring=weighted,
                             params={"qid": qid, "groups": qid, "sample_weight": w})
    expected = []
    for _, test in cv.split(X, y, groups=qid):
        expected.append(skrank.ndcg(y[test], X[test, 0], qid[test], k=5,
                                    sample_weight=w[test]).value)
    np.testing.assert_array_equal(got["test_score"], expected)


def test_routing_with_groups_alone(data):
    X, y, qid = data
    cv = GroupKFold(3)
    with sklearn.config_context(enable_metadata_routing=True):
        got = cross_validate(FirstColumn(), X, y, cv=cv, scoring=ndcg_at(5),
                             params={"groups": qid})
    expected = [skrank.ndcg(y[t], X[t, 0], qid[t], k=5).value
                for _, t in cv.split(X, y, groups=qid)]
    np.testing.assert_array_equal(got["test_score"], expected)


# -- queries cut by the split ----------------------------------------------------------------


class RemembersQueries(FirstColumn):
    """A ranker that records its training queries the way skrank's adapters do."""

    def fit(self, X, y, qid=None):
        from skrank.scorers._queries import FitQueries, split_qid_column

        X, column = split_qid_column(X)
        ids = column if qid is None else np.asarray(qid)
        self._skrank_fit_queries = FitQueries.from_fit(ids, X)
        return super().fit(X, y)


def _skrank_warnings(record):
    return [w for w in record if issubclass(w.category, SkrankWarning)]


def test_kfold_that_cuts_queries_warns():
    # 10 contiguous queries of 7 rows: KFold(4) boundaries fall inside queries
    X = np.arange(70, dtype=float).reshape(-1, 1) % 5
    y = np.arange(70) % 3
    qid = np.repeat(np.arange(10), 7)
    with pytest.warns(SkrankWarning, match=r"also have rows in the data the ranker was trained "
                                           r"on: the split cut these queries in two"):
        cross_validate(RemembersQueries(), frame(X, qid), y, cv=KFold(4), scoring=ndcg_at(3))


def test_group_kfold_does_not_warn(data):
    X, y, qid = data
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cross_validate(RemembersQueries(), frame(X, qid), y, groups=qid, cv=GroupKFold(3),
                       scoring=ndcg_at(3), return_train_score=True)
    assert _skrank_warnings(record) == []


def test_held_out_set_reusing_training_ids_does_not_warn(data):
    # a separate test set numbered like the training set: every query id is known, rows
    # overlap by index label -> cannot be a fold of the training data
    X, y, qid = data
    model = RemembersQueries().fit(frame(X, qid), y)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ndcg_at(3)(model, frame(X[:30] + 1, qid[:30]), y[:30])
        ndcg_at(3)(model, X[:30], y[:30], qid=qid[:30])
    assert _skrank_warnings(record) == []


def test_shuffled_split_of_a_dataframe_warns(data):
    # every scored query was trained on and the rows are other rows of the same frame
    X, y, qid = data
    df = frame(X, qid)
    model = RemembersQueries().fit(df.iloc[::2], y[::2])
    with pytest.warns(SkrankWarning, match=r"5 of the 5 queries"):
        ndcg_at(3)(model, df.iloc[1::2], y[1::2])
