"""One vocabulary: one name per metric, reprs that evaluate back, trec_eval's names in the
Python API, names safe beside scikit-learn's, one case rule, errors naming the function called.
"""

from __future__ import annotations

import argparse
import warnings

import pytest

import skrank
from skrank import InvalidParameterError, Metric
from skrank.metrics._spec import METRIC_NAMES, MetricNameError, parse_metric_list

Y, S, Q = [2, 0, 1, 0, 1, 1], [0.9, 0.5, 0.5, 0.3, 0.8, 0.8], [1, 1, 1, 2, 2, 2]


@pytest.mark.parametrize("name", [*METRIC_NAMES, *(f"{n}@7" for n in METRIC_NAMES)])
def test_metric_repr_evaluates_back(name):
    m = Metric.parse(name)
    assert eval(repr(m), {"Metric": Metric}) == m
    assert Metric(str(m)) == m


@pytest.mark.parametrize(
    ("trec", "ours"),
    [("ndcg_cut.10", "ndcg@10"), ("ndcg_cut_5", "ndcg@5"), ("P.5", "p@5"), ("P_10", "p@10"),
     ("recall.100", "r@100"), ("map_cut.10", "ap@10"), ("success.5", "hit@5"), ("map", "ap"),
     ("recip_rank", "rr"), ("ndcg", "ndcg")],
)
def test_trec_eval_names_parse_in_the_python_api(trec, ours):
    assert Metric.parse(trec) == Metric.parse(ours)
    assert skrank.evaluate(Y, S, Q, metrics=[trec])[ours].value == (
        skrank.evaluate(Y, S, Q, metrics=[ours])[ours].value)
    assert skrank.make_ranking_scorer(trec).metric == Metric.parse(ours)


@pytest.mark.parametrize("trec", ["ndcg_cut_10", "P_5", "recall_100", "map_cut_10",
                                  "success_5", "map", "recip_rank", "ndcg"])
def test_trec_eval_names_print_as_they_parse(trec):
    # the printed name (reports) and the parsed one (the parser, skrank eval) share a table
    from skrank.reports import trec_name

    assert trec_name(Metric.parse(trec)) == trec


def test_metric_lists_parse_as_on_the_command_line():
    from skrank.cli._args import _metric_list

    text = "ndcg@10, P.5,10, recip_rank, success"
    assert parse_metric_list(text) == _metric_list(text)
    assert parse_metric_list("P.5,10") == [Metric("p", 5), Metric("p", 10)]
    assert len(parse_metric_list("ndcg_cut")) == 9
    with pytest.raises(MetricNameError, match=r"unknown metric 'accuracy'") as info:
        parse_metric_list("ndcg@5,accuracy")
    assert info.value.part == "accuracy"
    with pytest.raises(argparse.ArgumentTypeError, match=r"unknown metric 'accuracy': use names"):
        _metric_list("ndcg@5,accuracy")


def test_one_name_per_metric_for_the_scorer_shortcuts():
    for function, shortcut, name in [
        (skrank.average_precision, skrank.average_precision_at, "ap@10"),
        (skrank.reciprocal_rank, skrank.reciprocal_rank_at, "rr@10"),
        (skrank.ndcg, skrank.ndcg_at, "ndcg@10"),
        (skrank.precision, skrank.precision_at, "p@10"),
        (skrank.recall, skrank.recall_at, "r@10"),
        (skrank.hit_rate, skrank.hit_rate_at, "hit@10"),
        (skrank.dcg, skrank.dcg_at, "dcg@10"),
        (skrank.err, skrank.err_at, "err@10"),
    ]:
        assert shortcut.__name__ == f"{function.__name__}_at"
        assert shortcut(10).name == name
        assert str(function(Y, S, Q, k=10).metric) == name


@pytest.mark.parametrize(
    ("old", "new"),
    [("map_at", "average_precision_at"), ("mrr_at", "reciprocal_rank_at"),
     ("get_scorer", "get_ranking_scorer"), ("get_scorer_names", "get_ranking_scorer_names")],
)
def test_deprecated_aliases_warn_and_work(old, new):
    args = () if old == "get_scorer_names" else (("ndcg@5",) if old == "get_scorer" else (10,))
    with pytest.warns(DeprecationWarning, match=rf"skrank.{old} is deprecated.*skrank.{new}"):
        got = getattr(skrank, old)(*args)
    assert repr(got) == repr(getattr(skrank, new)(*args))
    assert old not in skrank.__all__ and new in skrank.__all__
    assert old not in skrank.scorers.__all__


def test_star_import_beside_sklearn_is_safe():
    namespace: dict = {}
    exec("from sklearn.metrics import *\nfrom skrank import *", namespace)
    import sklearn.metrics

    assert namespace["get_scorer"] is sklearn.metrics.get_scorer
    assert namespace["get_scorer_names"] is sklearn.metrics.get_scorer_names
    shadowed = set(skrank.__all__) & set(sklearn.metrics.__all__)
    assert not shadowed


def test_one_case_rule_for_names():
    assert skrank.Conventions(ties="Pessimistic", gain="EXP").ties == "pessimistic"
    assert skrank.ndcg(Y, S, Q, k=2, ties="Optimistic").value == skrank.ndcg(
        Y, S, Q, k=2, ties="optimistic").value
    assert skrank.ndcg(Y, S, Q, preset="LightGBM").conventions == skrank.ndcg(
        Y, S, Q, preset="lightgbm").conventions
    assert Metric.parse("NDCG@10") == Metric.parse("ndcg@10")
    assert skrank.make_ranking_scorer("AP@10", ties="Input").conventions.ties == "input"


@pytest.mark.parametrize(
    ("function", "caller"),
    [(skrank.ndcg, "ndcg"), (skrank.average_precision, "average_precision"),
     (skrank.reciprocal_rank, "reciprocal_rank"), (skrank.precision, "precision")],
)
def test_an_unknown_keyword_names_the_function_called(function, caller):
    with pytest.raises(InvalidParameterError,
                       match=rf"The 'tie' parameter of {caller} must be not passed: {caller}\(\) "
                             r"has no such parameter \(did you mean 'ties'\?\)"):
        function(Y, S, Q, tie="input")
    with pytest.raises(TypeError):  # still a TypeError, as Python's own
        function(Y, S, Q, tie="input")


def test_no_warning_from_the_new_names():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        skrank.average_precision_at(10)
        skrank.get_ranking_scorer("rr")
