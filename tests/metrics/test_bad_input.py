"""Bad input gets a clear error naming the parameter, what is allowed and what was given."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import skrank
from skrank import InputError, InvalidParameterError

Y = np.array([1, 0, 2, 0])
S = np.array([0.4, 0.3, 0.2, 0.1])
Q = np.array([1, 1, 2, 2])


def test_nan_score():
    with pytest.raises(InputError, match=r"'y_score' .* finite scores\. Got nan at row 1"):
        skrank.ndcg(Y, [0.4, np.nan, 0.2, 0.1], Q)


def test_infinite_score():
    with pytest.raises(InputError, match=r"'y_score' .* Got -?inf at row 3"):
        skrank.evaluate(Y, [0.4, 0.3, 0.2, -np.inf], Q)


def test_nan_label():
    with pytest.raises(InputError, match=r"'y_true' .* finite relevance labels\. Got nan at row 2"):
        skrank.ndcg([1, 0, np.nan, 0], S, Q)


def test_negative_label_with_exp_gain():
    with pytest.raises(InputError, match=r"non-negative relevance labels \(gain=exp\)\. Got -1"):
        skrank.ndcg([1, -1, 0, 0], S, Q)


def test_non_integer_label_with_gain_table():
    with pytest.raises(InputError, match=r"integer labels to index the gain table .* Got 1\.5"):
        skrank.ndcg([1.5, 0, 1, 0], S, Q, gain=[0, 1, 3])


def test_label_outside_lightgbm_gain_table():
    with pytest.raises(InputError, match=r"labels 0\.\.30 \(the gain table has 31 entries\)\. "
                                         r"Got 31 at row 0"):
        skrank.ndcg([31, 0, 1, 0], S, Q, preset="lightgbm")


def test_unequal_lengths():
    with pytest.raises(InputError, match=r"same length\. Got 4 and 3"):
        skrank.ndcg(Y, S[:3], Q)


def test_qid_length_mismatch():
    with pytest.raises(InputError, match="y_true has 4 rows but qid has 3"):
        skrank.ndcg(Y, S, Q[:3])


def test_qid_with_missing_values():
    with pytest.raises(InputError, match="'qid' parameter contains missing"):
        skrank.ndcg(Y, S, [1.0, np.nan, 2.0, 2.0])
    with pytest.raises(InputError, match="'qid' parameter contains missing"):
        skrank.ndcg(Y, S, np.array(["a", None, "b", "b"], dtype=object))


def test_empty_input():
    with pytest.raises(InputError, match="is empty"):
        skrank.ndcg([], [], [])


@pytest.mark.parametrize("k", [0, -1])
def test_k_not_positive(k):
    with pytest.raises(InvalidParameterError, match=rf"'k' parameter of ndcg must be an int >= 1"
                                                    rf" or None\. Got {k} instead"):
        skrank.ndcg(Y, S, Q, k=k)


def test_k_zero_in_name():
    with pytest.raises(InvalidParameterError, match=r"'k' parameter of ndcg must be a positive "
                                                    r"int after '@'\. Got 'ndcg@0'"):
        skrank.evaluate(Y, S, Q, metrics=["ndcg@0"])


def test_unknown_metric_name():
    with pytest.raises(InvalidParameterError, match=r"'metric' parameter must be a name from "
                                                    r"'ndcg', .* Got 'ndgc@10' instead"):
        skrank.evaluate(Y, S, Q, metrics=["ndgc@10"])


@pytest.mark.parametrize("name, value", [("ties", "random"), ("empty", "skip"),
                                         ("ap_denominator", "R"), ("p_divisor", "n"),
                                         ("idcg", "qrels"), ("preset", "catboost")])
def test_unknown_convention_value(name, value):
    with pytest.raises(InvalidParameterError, match=rf"The '{name}' parameter must be one of .* "
                                                    rf"Got '{value}' instead"):
        skrank.evaluate(Y, S, Q, **{name: value})


def test_an_unknown_gain_name_is_told_that_tables_are_allowed():
    with pytest.raises(InvalidParameterError, match=r"The 'gain' parameter must be 'exp', "
                                                    r"'linear', or a non-empty sequence of "
                                                    r"gains indexed by label\. Got 'log'"):
        skrank.evaluate(Y, S, Q, gain="log")


def test_rel_min_must_be_positive():
    with pytest.raises(InvalidParameterError, match=r"'rel_min' parameter must be a finite real "
                                                    r"number > 0\. Got 0 instead"):
        skrank.evaluate(Y, S, Q, rel_min=0)


def test_group_sizes_do_not_add_up():
    with pytest.raises(InputError, match="'group' sizes add up to 5 rows but y_true has 4"):
        skrank.ndcg(Y, S, group=[2, 3])


def test_qid_and_group_together():
    with pytest.raises(InvalidParameterError, match="not both"):
        skrank.ndcg(Y, S, Q, group=[2, 2])


def test_neither_qid_nor_group():
    with pytest.raises(InvalidParameterError, match=r"'qid' parameter of ndcg must be given"):
        skrank.ndcg(Y, S)


def test_duplicate_doc_id_within_query():
    with pytest.raises(InputError, match=r"must not repeat a document within a query\. Got 'a' "
                                         r"twice in query 2"):
        skrank.ndcg(Y, S, Q, doc_id=["a", "b", "a", "a"])


def test_same_doc_id_in_two_queries_is_fine():
    skrank.ndcg(Y, S, Q, doc_id=["a", "b", "a", "b"], ties="docid")


def test_docid_rule_needs_doc_ids():
    with pytest.raises(InvalidParameterError, match=r"'doc_id' parameter of evaluate must be "
                                                    r"given when ties='docid'"):
        skrank.evaluate(Y, S, Q, ties="docid")


def test_labels_above_err_max_label():
    with pytest.raises(InputError, match=r"labels <= max_label=1 for ERR\. Got 2"):
        skrank.err(Y, S, Q, max_label=1)


def test_string_scores():
    with pytest.raises(InputError, match=r"'y_score' parameter of ndcg must hold numbers"):
        skrank.ndcg(Y, ["a", "b", "c", "d"], Q)


def test_two_dimensional_input():
    with pytest.raises(InputError, match=r"'y_true' parameter of ndcg must be a 1-D array"):
        skrank.ndcg([[1, 0], [2, 0]], S, Q)


def test_unknown_convention_keyword():
    with pytest.raises(TypeError):
        skrank.evaluate(Y, S, Q, tie="input")


def test_negative_weights():
    with pytest.raises(InputError, match="finite non-negative weights"):
        skrank.ndcg(Y, S, Q, sample_weight=[1, -1, 1, 1])


# --- issue 13: inputs that slipped through --------------------------------------------------

@pytest.mark.parametrize("dtype, big", [(np.float64, 1e308), (np.float32, 3e38)])
def test_huge_equal_weights_give_the_unweighted_mean(dtype, big):
    # before (c74d18a, run here): NaN, the weight sums overflowed; equal weights are no weights
    y, s, q = [1, 0, 0, 1, 1, 0], [3, 2, 1, 3, 2, 1], [0, 0, 1, 1, 2, 2]
    w = np.full(6, big, dtype=dtype)
    want = skrank.evaluate(y, s, q, metrics=["ndcg@2", "rr"])
    got = skrank.evaluate(y, s, q, metrics=["ndcg@2", "rr"], sample_weight=w)
    for m in ("ndcg@2", "rr"):
        assert got[m].value == pytest.approx(want[m].value, rel=1e-12)
    # unequal huge weights: the mean weighted by 1 : 0.5 : 1 (weights / the largest)
    w2 = np.array([big, big, big / 2, big / 2, big, big], dtype=dtype)
    per = want["rr"].per_query
    assert skrank.evaluate(y, s, q, metrics=["rr"], sample_weight=w2)["rr"].value == \
        pytest.approx((per[0] + 0.5 * per[1] + per[2]) / 2.5, rel=1e-6)


def test_zero_total_weight_is_an_error_naming_sample_weight():
    # before (c74d18a, run here): a mean of NaN without a word
    with pytest.raises(InputError, match=r"'sample_weight' parameter of evaluate.*sum to 0"):
        skrank.evaluate([1, 0, 0, 1], [2, 1, 2, 1], [0, 0, 1, 1], sample_weight=np.zeros(4))


@pytest.mark.parametrize("qid, error, match", [
    (np.array([1, 1, "1", 2], dtype=object), InvalidParameterError,
     r"'qid' parameter of evaluate must be ids of one type"),
    (pd.array(["a", "a", None, "b"], dtype="string"), InputError,
     r"'qid' parameter contains missing"),
])
def test_qid_of_mixed_types_or_with_na_is_refused(qid, error, match):
    # before (c74d18a, run here): bare TypeErrors ("'>' not supported between instances of
    # 'str' and 'int'", "boolean value of NA is ambiguous")
    with pytest.raises(error, match=match):
        skrank.evaluate([1, 0, 1, 0], [1, 2, 3, 4], qid)


def test_doc_id_with_none_is_refused():
    # before (c74d18a, run here): TypeError "'<' not supported between 'NoneType' and 'str'"
    ids = np.array(["a", None, "b", "c"], dtype=object)
    with pytest.raises(InputError, match=r"'doc_id' parameter of evaluate must hold an id"):
        skrank.evaluate([1, 0, 1, 0], [1, 2, 3, 4], [0, 0, 1, 1], doc_id=ids)
    with pytest.raises(InvalidParameterError,
                       match=r"'doc_id' parameter of evaluate must be ids of one"):
        skrank.evaluate([1, 0, 1, 0], [1, 2, 3, 4], [0, 0, 1, 1],
                        doc_id=np.array(["a", 1, "b", "c"], dtype=object))


def test_k_beyond_int64_is_refused():
    # before (c74d18a, run here): OverflowError "Python int too large to convert to C long"
    with pytest.raises(InvalidParameterError, match=r"'k' parameter of ndcg must be an int"):
        skrank.ndcg([1, 0, 1, 0], [1, 2, 3, 4], [0, 0, 1, 1], k=2**63)
    with pytest.raises(InvalidParameterError, match=r"'default_k' parameter"):
        skrank.Conventions(default_k=2**63)
    assert skrank.Metric("ndcg", 2**63 - 1).k == 2**63 - 1


def test_score_that_does_not_fit_float32_says_so():
    # before (c74d18a, run here): "must hold finite scores. Got inf at row 0"
    with pytest.raises(InputError, match=r"scores that fit float32.*Got 1e\+308 at row 0"):
        skrank.evaluate([1, 0, 1, 0], [1e308, 2, 3, 4], [0, 0, 1, 1],
                        score_precision="float32")


# each refused value is said in attributes too: the parameter, the row, what is allowed
# (``skrank eval`` builds "FILE, line N: ..." from them)
@pytest.mark.parametrize(("y_true", "y_score", "kwargs", "parameter", "row", "allowed"), [
    ([1, 0, np.nan, 0], S, {}, "y_true", 2, "finite relevance labels"),
    (Y, [0.4, 0.3, 0.2, np.inf], {}, "y_score", 3, "finite scores"),
    ([1, -1, 0, 0], S, {}, "y_true", 1, "non-negative relevance labels (gain=exp)"),
    ([1, 0, 1.5, 0], S, {"gain": [0, 1, 3]}, "y_true", 2,
     "integer labels to index the gain table (gain=table[0, 1, 3])"),
    ([1, 0, 3, 7], S, {"gain": [0, 1, 3]}, "y_true", 2,
     "labels 0..2 (the gain table has 3 entries)"),
    ([1, 1001, 5000, 0], S, {}, "y_true", 1, "labels <= 1000 with gain='exp' (2**label "
                                             "overflows)"),
    ([1, 0, 2, 4], S, {"metrics": ["err"], "max_label": 3}, "y_true", 3,
     "labels <= max_label=3 for ERR"),
    (Y, [0.4, 1e39, 0.2, 0.1], {"score_precision": "float32"}, "y_score", 1,
     "scores that fit float32 (score_precision='float32', largest 3.40282e+38)"),
    (Y, S, {"sample_weight": [1, 1, -1, np.nan]}, "sample_weight", 2,
     "finite non-negative weights"),
    (Y, S, {"sample_weight": [1, np.inf, 1, 1]}, "sample_weight", 1,
     "finite non-negative weights"),
    (Y, S, {"doc_id": np.array(["a", None, "b", "c"], dtype=object)}, "doc_id", 1,
     "an id for every row"),
])
def test_a_refused_value_is_named_in_attributes(y_true, y_score, kwargs, parameter, row,
                                                allowed):
    import pickle

    with pytest.raises(InputError) as info:
        skrank.evaluate(y_true, y_score, Q, **kwargs)
    exc = info.value
    assert (exc.parameter, exc.row, exc.allowed) == (parameter, row, allowed)
    assert str(exc).startswith(f"The {parameter!r} parameter of evaluate must hold {allowed}. "
                               "Got ")
    assert str(exc).endswith(f" at row {row} instead.")
    back = pickle.loads(pickle.dumps(exc))  # as Dask and Spark send it back from a task
    assert type(back) is InputError and str(back) == str(exc)
    assert (back.parameter, back.row, back.allowed) == (parameter, row, allowed)


def test_rows_named_in_other_words_are_attributes_too():
    with pytest.raises(InputError, match=r"Got 'a' twice in query 1 \(again at row 1\)") as info:
        skrank.evaluate(Y, S, Q, doc_id=["a", "a", "b", "c"])
    assert (info.value.parameter, info.value.row) == ("doc_id", 1)
    with pytest.raises(InputError, match=r"Got 3\.0 at row 3 and 2\.0 at the first row") as info:
        skrank.evaluate(Y, S, Q, preset="xgboost", sample_weight=[1, 1, 2, 3])
    assert (info.value.parameter, info.value.row) == ("sample_weight", 3)


def test_input_error_behaves_as_an_exception():
    import pickle

    exc = InputError("m", parameter="p", row=3, allowed="a")
    exc.add_note("a note")
    exc.extra = 1
    back = pickle.loads(pickle.dumps(exc))
    assert (back.args, back.parameter, back.row, back.allowed) == (("m",), "p", 3, "a")
    assert back.__notes__ == ["a note"] and back.extra == 1
    assert InputError("a", "b").args == ("a", "b")  # as any ValueError

    back = pickle.loads(pickle.dumps(_Coded("m", 7)))  # a subclass of the usual kind
    assert back.code == 7 and back.row is None


class _Coded(InputError):
    def __init__(self, message, code):
        super().__init__(message, code)
        self.code = code


def test_scores_of_rows_not_retrieved_are_not_checked_for_float32():
    # a non-retrieved row's score counts for nothing, finite or not (it was so for inf)
    y, q = [0, 1, 1, 1, 1, 0], [2, 1, 2, 1, 3, 3]
    flags = np.array([True, True, True, False, True, True])
    kw = {"metrics": ["ndcg"], "retrieved": flags, "score_precision": "float32"}
    want = skrank.evaluate(y, [0.1, 0.2, 0.3, 0.0, 0.5, 0.1], q, **kw)
    for big in (1e300, np.inf):
        got = skrank.evaluate(y, [0.1, 0.2, 0.3, big, 0.5, 0.1], q, **kw)
        assert got.per_query()["ndcg"].tolist() == want.per_query()["ndcg"].tolist()
    with pytest.raises(InputError, match=r"Got 1e\+300 at row 5 instead") as info:
        skrank.evaluate(y, [0.1, 0.2, 0.3, 1e300, 0.5, 1e300], q, **kw)
    assert info.value.row == 5


def test_labels_are_shown_as_written():
    with pytest.raises(InputError, match=r"Got 1001 at row 1 instead"):
        skrank.ndcg([1, 1001, 0, 0], S, Q)
    with pytest.raises(InputError, match=r"Got 5 at row 3 instead"):
        skrank.evaluate([1, 0, 2, 5], S, Q, metrics=["err"], max_label=3)


def test_an_error_about_no_single_value_has_no_row():
    with pytest.raises(InputError) as info:
        skrank.evaluate(Y, S[:3], Q)
    assert (info.value.parameter, info.value.row, info.value.allowed) == (None, None, None)


@pytest.mark.parametrize("dtype", ["boolean", "bool[pyarrow]"])
def test_nullable_retrieved_flags(dtype):
    # without nulls a nullable boolean array is taken as booleans; a null is refused at its
    # row (a row either was retrieved or was not)
    flags = [True, False, True, True]
    want = skrank.evaluate(Y, S, Q, metrics=["ap", "r@1"], retrieved=np.array(flags))
    got = skrank.evaluate(Y, S, Q, metrics=["ap", "r@1"], retrieved=pd.array(flags, dtype=dtype))
    assert got.per_query()["ap"].tolist() == want.per_query()["ap"].tolist()
    assert got.per_query()["r@1"].tolist() == want.per_query()["r@1"].tolist()
    flags[2] = flags[3] = None
    with pytest.raises(InputError, match=r"^The 'retrieved' parameter of evaluate must hold "
                                         r"booleans without nulls \(a row either was retrieved"
                                         r" or was not: .*\)\. Got a null at row 2 instead\.$"
                       ) as info:
        skrank.evaluate(Y, S, Q, retrieved=pd.array(flags, dtype=dtype))
    assert (info.value.parameter, info.value.row) == ("retrieved", 2)
    with pytest.raises(InvalidParameterError, match="must be a boolean array of length 4"):
        skrank.evaluate(Y, S, Q, retrieved=np.array(["yes", "no", "yes", "no"], dtype=object))


@pytest.mark.parametrize("make", [
    lambda ids: np.array(ids),  # <U1
    lambda ids: np.array(ids, dtype=object),
    lambda ids: pd.Series(ids),
    lambda ids: pd.array(ids, dtype="string"),
])
@pytest.mark.parametrize("qid", [np.repeat([1, 2], 4),
                                 np.array(["a"] * 4 + ["b"] * 4, dtype=object)])
def test_a_repeated_string_document_is_named_whatever_its_array(make, qid):
    # object and pandas string ids hold Python strings: their message took .item() of a str
    y, s = np.array([0, 1, 2, 0, 1, 0, 3, 0.0]), np.linspace(0, 1, 8)
    shown = repr(qid[-1].item() if isinstance(qid[-1], np.generic) else qid[-1])
    with pytest.raises(InputError, match=rf"Got 'c' twice in query {shown} \(again at row 7\)"
                       ) as info:
        skrank.evaluate(y, s, qid, doc_id=make(list("abcdabcc")))
    assert (info.value.parameter, info.value.row) == ("doc_id", 7)
    with pytest.raises(InputError, match=rf"first row of query {shown} instead"):
        skrank.evaluate(y, s, qid, preset="xgboost", sample_weight=[1, 1, 1, 1, 2, 2, 3, 2])


@pytest.mark.parametrize(("kwargs", "parameter", "row", "allowed"), [
    ({"qid": np.array([1, np.nan, 2, 2])}, "qid", 1, "a finite query id for every row"),
    ({"qid": np.array([1, 1, None, 2], dtype=object)}, "qid", 2, "a query id for every row"),
    ({"y_true": np.ma.array([1, 1, 1, 0], mask=[0, 0, 1, 0])}, "y_true", 2,
     "no masked entry"),
    ({"y_true": np.array(["1", "x", "1", "0"])}, "y_true", None, "numbers"),
])
def test_refused_query_ids_masks_and_dtypes_say_so_in_attributes(kwargs, parameter, row,
                                                                 allowed):
    args = {"y_true": Y, "y_score": S, "qid": Q, **kwargs}
    with pytest.raises(InputError) as info:
        skrank.evaluate(**args)
    assert (info.value.parameter, info.value.row, info.value.allowed) == (parameter, row,
                                                                          allowed)
    if row is not None:
        assert f"at row {row}" in str(info.value)
