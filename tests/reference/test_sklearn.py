"""preset="sklearn" equals scikit-learn's ndcg_score and dcg_score to 1e-12.

scikit-learn takes dense 2-D arrays (one query per row, equal lengths). The flat skrank input
is built from them with the rows of the queries shuffled together, so the grouping is
exercised too. ``ignore_ties=False`` averages over the orders of tied documents (skrank's
``ties="average"``, the preset); ``ignore_ties=True`` ranks by ``argsort``, whose tie order is
not defined, so it is compared on tie-free scores, where every tie rule agrees.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import dcg_score, ndcg_score

import skrank

TIE_RULES = ("pessimistic", "optimistic", "input", "average", "docid")
KS = (None, 1, 3, 7, 50)


def flat(y, s, sample_weight=None, seed=0):
    """Flat skrank arguments of dense (n_queries, n_docs) arrays, rows in random order."""
    n_q, n_d = y.shape
    qid = np.repeat([f"q{i}" for i in range(n_q)], n_d)  # string query ids
    perm = np.random.default_rng(seed).permutation(n_q * n_d)
    out = {
        "y_true": y.ravel()[perm],
        "y_score": s.ravel()[perm],
        "qid": qid[perm],
        "doc_id": np.tile(np.arange(n_d), n_q)[perm],
    }
    if sample_weight is not None:  # one weight per query, given to each of its rows
        out["sample_weight"] = np.repeat(sample_weight, n_d)[perm]
    return out


def skrank_value(metric, k, y, s, sample_weight=None, **conventions):
    name = metric if k is None else f"{metric}@{k}"
    conventions.setdefault("preset", "sklearn")
    res = skrank.evaluate(**flat(y, s, sample_weight), metrics=[name], **conventions)
    return res[name]


def random_dense(rng, n_q, n_d, *, float_labels=False):
    if float_labels:
        y = rng.random((n_q, n_d)) * 3 * (rng.random((n_q, n_d)) < 0.5)
    else:
        y = rng.integers(0, 4, (n_q, n_d)).astype(np.float64)
    y[0] = 0.0  # a query without any relevant document: 0 in scikit-learn
    s = rng.integers(0, 3, (n_q, n_d)) / 2.0  # three distinct scores: heavy ties
    return y, s


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("weighted", [False, True])
def test_ndcg_and_dcg_score_with_ties_averaged(seed, k, weighted):
    rng = np.random.default_rng(seed)
    y, s = random_dense(rng, 12, int(rng.integers(2, 20)), float_labels=seed % 2 == 1)
    w = rng.random(12) + 0.1 if weighted else None
    for metric, reference in (("ndcg", ndcg_score), ("dcg", dcg_score)):
        expected = reference(y, s, k=k, sample_weight=w, ignore_ties=False)
        got = skrank_value(metric, k, y, s, w)
        assert got.value == pytest.approx(expected, rel=1e-12, abs=0)
        assert got.n_tie_affected > 0
        if weighted:
            continue
        # per query too (a query's value does not depend on the weights)
        row = {f"q{i}": i for i in range(y.shape[0])}
        for q, v in zip(got.qids, got.per_query):
            i = row[q]
            one = reference(y[i:i + 1], s[i:i + 1], k=k, ignore_ties=False)
            assert v == pytest.approx(one, rel=1e-12, abs=0)


@given(
    data=st.data(),
    n_q=st.integers(1, 6),
    n_d=st.integers(2, 9),
    k=st.one_of(st.none(), st.integers(1, 10)),
)
def test_ndcg_score_property(data, n_q, n_d, k):
    labels = st.lists(st.sampled_from([0.0, 0.0, 1.0, 2.0, 3.5]), min_size=n_q * n_d,
                      max_size=n_q * n_d)
    scores = st.lists(st.sampled_from([-1.0, 0.0, 0.25, 1.0]), min_size=n_q * n_d,
                      max_size=n_q * n_d)
    y = np.array(data.draw(labels)).reshape(n_q, n_d)
    s = np.array(data.draw(scores)).reshape(n_q, n_d)
    w = np.array(data.draw(st.lists(st.floats(0.1, 10.0), min_size=n_q, max_size=n_q)))
    for metric, reference in (("ndcg", ndcg_score), ("dcg", dcg_score)):
        expected = reference(y, s, k=k, sample_weight=w)
        got = skrank_value(metric, k, y, s, w).value
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("ties", TIE_RULES)
@pytest.mark.parametrize("k", KS)
def test_ignore_ties_on_tie_free_scores(ties, k):
    rng = np.random.default_rng(11)
    y, _ = random_dense(rng, 10, 15)
    s = np.array([rng.permutation(15) for _ in range(10)], dtype=np.float64)
    w = rng.random(10) + 0.5
    for metric, reference in (("ndcg", ndcg_score), ("dcg", dcg_score)):
        expected = reference(y, s, k=k, sample_weight=w, ignore_ties=True)
        got = skrank_value(metric, k, y, s, w, ties=ties).value
        assert got == pytest.approx(expected, rel=1e-12, abs=0)
        # and ignore_ties=False gives the same on tie-free scores
        assert reference(y, s, k=k, sample_weight=w) == pytest.approx(expected, rel=1e-12)


def test_ignore_ties_on_tied_scores_is_one_of_the_tie_orders():
    """On tied scores ignore_ties=True follows argsort's order: within the tie bounds."""
    rng = np.random.default_rng(5)
    y, s = random_dense(rng, 30, 10)
    lo = skrank_value("ndcg", 5, y, s, ties="pessimistic").per_query
    hi = skrank_value("ndcg", 5, y, s, ties="optimistic").per_query
    preset = skrank_value("ndcg", 5, y, s)  # ties averaged
    avg = preset.per_query
    assert (lo < hi).sum() > 10  # the ties do matter on this data
    for i, name in enumerate(preset.qids):
        q = int(name[1:])
        one = ndcg_score(y[q:q + 1], s[q:q + 1], k=5, ignore_ties=True)
        assert lo[i] - 1e-12 <= one <= hi[i] + 1e-12
        assert lo[i] - 1e-12 <= avg[i] <= hi[i] + 1e-12


def test_preset_differs_from_an_exact_tie_rule_on_ties():
    rng = np.random.default_rng(3)
    y, s = random_dense(rng, 20, 8)
    expected = ndcg_score(y, s, k=3)
    assert skrank_value("ndcg", 3, y, s).value == pytest.approx(expected, rel=1e-12)
    assert skrank_value("ndcg", 3, y, s, ties="input").value != pytest.approx(expected,
                                                                            rel=1e-6)


def test_preset_with_empty_exclude_averages_the_other_queries():
    """Overriding one convention of the preset: queries without relevant items left out."""
    rng = np.random.default_rng(8)
    y, s = random_dense(rng, 15, 6)
    y[3] = 0.0
    w = rng.random(15) + 0.1
    keep = y.max(axis=1) > 0
    assert (~keep).sum() == 2
    expected = ndcg_score(y[keep], s[keep], k=4, sample_weight=w[keep])
    got = skrank_value("ndcg", 4, y, s, w, empty="exclude")
    assert got.value == pytest.approx(expected, rel=1e-12)
    assert got.n_excluded == 2


def test_preset_with_exponential_gain_equals_ndcg_score_of_transformed_labels():
    """gain="exp" overrides the preset: scikit-learn on 2**y - 1 gives the same value."""
    rng = np.random.default_rng(9)
    y, s = random_dense(rng, 10, 12)
    expected = ndcg_score(2.0**y - 1.0, s, k=5)
    assert skrank_value("ndcg", 5, y, s, gain="exp").value == pytest.approx(expected,
                                                                           rel=1e-12)
