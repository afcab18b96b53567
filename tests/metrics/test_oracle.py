"""Every metric under every convention equals the slow oracle loops of tests/_oracle.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skrank
from skrank import Conventions

from .._oracle import oracle_mean, oracle_query, split_queries
from ..strategies import grouped_data

METRICS = ["ndcg", "dcg", "p", "r", "hit", "ap", "rr", "err"]


def check_against_oracle(y_true, y_score, qid, metric, k, conv, doc_id=None, retrieved=None,
                         sample_weight=None):
    res = skrank.evaluate(
        y_true, y_score, qid, metrics=[skrank.Metric(metric, k)], conventions=conv,
        doc_id=doc_id, retrieved=retrieved, sample_weight=sample_weight,
    )[skrank.Metric(metric, k)]
    ids, rows = split_queries(qid)
    np.testing.assert_array_equal(res.qids, np.array(ids))
    max_label = conv.max_label if conv.max_label is not None else float(np.max(y_true))
    values, empties = [], []
    for r in rows:
        v, e = oracle_query(
            metric, k, y_true[r], y_score[r], conv,
            docids=None if doc_id is None else list(np.asarray(doc_id)[r]),
            retrieved=None if retrieved is None else list(retrieved[r]),
            max_label=max_label,
        )
        values.append(v)
        empties.append(e)
    expected_pq = np.array(
        [np.nan if (e and conv.empty == "exclude") else
         (0.0 if e and conv.empty == "zero" else 1.0 if e and conv.empty == "one" else v)
         for v, e in zip(values, empties)]
    )
    np.testing.assert_allclose(res.per_query, expected_pq, rtol=1e-12, atol=1e-12)
    assert res.n_empty == sum(empties)
    weights = None
    if sample_weight is not None:
        weights = [float(np.mean(np.asarray(sample_weight)[r])) for r in rows]
    expected = oracle_mean(values, empties, conv.empty, weights)
    if np.isnan(expected):
        assert np.isnan(res.value)
    else:
        assert res.value == pytest.approx(expected, rel=1e-12, abs=1e-12)


conventions = st.builds(
    Conventions,
    gain=st.sampled_from(["exp", "linear", (0.0, 1.0, 3.0, 4.0)]),
    ties=st.sampled_from(["pessimistic", "optimistic", "input", "average"]),
    empty=st.sampled_from(["exclude", "zero", "one"]),
    rel_min=st.sampled_from([1, 2, 0.5]),
    ap_denominator=st.sampled_from(["all", "min_k", "found"]),
    p_divisor=st.sampled_from(["k", "min_k_n"]),
)


@given(
    data=grouped_data(),
    metric=st.sampled_from(METRICS),
    k=st.one_of(st.none(), st.integers(1, 8)),
    conv=conventions,
)
def test_every_metric_matches_oracle(data, metric, k, conv):
    y_true, y_score, qid = data
    check_against_oracle(y_true, y_score, qid, metric, k, conv)


@given(data=grouped_data(max_size=6), metric=st.sampled_from(METRICS),
       k=st.one_of(st.none(), st.integers(1, 6)), conv=conventions, seed=st.integers(0, 2**16))
def test_docid_ties_pool_and_weights_match_oracle(data, metric, k, conv, seed):
    y_true, y_score, qid = data
    rng = np.random.default_rng(seed)
    doc_id = np.array([f"d{rng.permutation(1000)[i % 1000]:03d}" for i in range(len(y_true))])
    doc_id = np.array([f"{d}-{i}" for i, d in enumerate(doc_id)])  # unique within queries
    retrieved = rng.random(len(y_true)) < 0.8
    weights = rng.uniform(0.1, 2.0, len(y_true))
    conv = conv.replace(ties="docid" if conv.ties != "average" else "average", idcg="pool")
    check_against_oracle(y_true, y_score, qid, metric, k, conv, doc_id=doc_id,
                         retrieved=retrieved, sample_weight=weights)


@settings(max_examples=20)
@given(data=grouped_data(max_queries=3, max_size=7, n_scores=2),
       k=st.one_of(st.none(), st.integers(1, 7)), ap=st.sampled_from(["all", "min_k", "found"]))
def test_average_ties_with_large_groups(data, k, ap):
    # two score values only: tie groups of up to 7 documents (5,040 orders)
    y_true, y_score, qid = data
    conv = Conventions(ties="average", ap_denominator=ap, empty="zero")
    for metric in METRICS:
        check_against_oracle(y_true, y_score, qid, metric, k, conv)


def test_err_max_label_convention():
    y_true = np.array([0, 1, 2, 1])
    y_score = np.array([0.4, 0.3, 0.2, 0.1])
    qid = np.zeros(4, dtype=int)
    conv = Conventions(max_label=4)
    check_against_oracle(y_true, y_score, qid, "err", None, conv)


def test_default_k_convention():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 3, 50)
    y_score = rng.integers(0, 5, 50).astype(float)
    qid = np.zeros(50, dtype=int)
    conv = Conventions(default_k=32, ties="input")
    for metric in METRICS:
        check_against_oracle(y_true, y_score, qid, metric, None, conv)


@given(data=grouped_data(), metric=st.sampled_from(METRICS),
       k=st.one_of(st.none(), st.integers(1, 8)), conv=conventions)
def test_fractional_and_large_labels_match_oracle(data, metric, k, conv):
    # labels that are not small integers take the sort-based ideal ranking, not label counts
    y_true, y_score, qid = data
    y = y_true * 0.75
    y[::3] += 70  # beyond the label-count table
    if isinstance(conv.gain, tuple) or conv.gain == "exp":
        conv = conv.replace(gain="linear")
    check_against_oracle(y, y_score, qid, metric, k, conv)
