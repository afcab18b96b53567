"""Named cases with published numbers.

Provenance of every expected value: tests/data/PROVENANCE.md ("Named cases"), where each
number was measured by running trec_eval / pytrec_eval, LightGBM, XGBoost, ranx, scikit-learn,
torchmetrics or CatBoost.
"""

from __future__ import annotations

import numpy as np
import pytest

import skrank


class TestOneTiedQuery:
    """Input order d1 (0.9), d4 (0.5), d2 (0.5), d3 (0.5), d5 (0.1); d2=2, d4=1; linear nDCG@5."""

    doc_id = np.array(["d1", "d4", "d2", "d3", "d5"])
    y_score = np.array([0.9, 0.5, 0.5, 0.5, 0.1])
    y_true = np.array([0, 1, 2, 0, 0])
    qid = np.zeros(5, dtype=int)

    @pytest.mark.parametrize(
        "ties, expected",
        [
            ("docid", 0.5672),  # trec_eval, pytrec_eval, ir_measures
            ("input", 0.6199),  # LightGBM, XGBoost, ranx Run objects
            ("pessimistic", 0.5174),  # CatBoost (documented)
            ("optimistic", 0.6697),
            ("average", 0.5936),  # sklearn ndcg_score, torchmetrics
        ],
    )
    def test_ndcg_at_5_by_tie_rule(self, ties, expected):
        r = skrank.ndcg(self.y_true, self.y_score, self.qid, k=5, gain="linear", ties=ties,
                        doc_id=self.doc_id)
        assert round(r.value, 4) == expected
        assert r.n_tie_affected == 1

    def test_tie_interval_brackets_every_rule(self):
        res = skrank.evaluate(self.y_true, self.y_score, self.qid, metrics=["ndcg@5"],
                              gain="linear", tie_bounds=True)
        lo, hi = res["ndcg@5"].tie_interval
        assert (round(lo, 4), round(hi, 4)) == (0.5174, 0.6697)
        assert "tie range 0.5174, 0.6697" in str(res["ndcg@5"])


class TestConstantScorerReciprocalRank:
    """A constant scorer over 4 docs with one relevant doc: RR 0.5 (trec_eval, docid rule, the
    relevant doc being the second-largest id), 0.333 (input order), 0.25 (pessimistic)."""

    y_true = np.array([0, 0, 1, 0])
    y_score = np.ones(4)
    qid = np.zeros(4, dtype=int)

    def test_input_order(self):
        assert skrank.reciprocal_rank(self.y_true, self.y_score, self.qid,
                                      ties="input").value == pytest.approx(1 / 3)

    def test_pessimistic(self):
        assert skrank.reciprocal_rank(self.y_true, self.y_score, self.qid).value == 0.25

    def test_optimistic(self):
        assert skrank.reciprocal_rank(self.y_true, self.y_score, self.qid,
                                      ties="optimistic").value == 1.0

    def test_docid_descending(self):
        doc_id = np.array(["a", "b", "c", "d"])  # relevant "c" is second in descending order
        r = skrank.reciprocal_rank(self.y_true, self.y_score, self.qid, ties="docid",
                                   doc_id=doc_id)
        assert r.value == 0.5

    def test_average_is_mean_over_positions(self):
        # the relevant doc is equally likely at ranks 1..4: (1 + 1/2 + 1/3 + 1/4) / 4
        r = skrank.reciprocal_rank(self.y_true, self.y_score, self.qid, ties="average")
        assert r.value == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4, rel=1e-15)


class TestAveragePrecisionDenominators:
    """One query, R=4, relevant at ranks 1, 3, 7, 8, k=3: 0.4167 / 0.5556 / 0.8333."""

    y_true = np.array([1, 0, 1, 0, 0, 0, 1, 1])
    y_score = np.arange(8, 0, -1).astype(float)
    qid = np.zeros(8, dtype=int)

    @pytest.mark.parametrize("den, expected", [("all", 0.4167), ("min_k", 0.5556),
                                               ("found", 0.8333)])
    def test_denominator(self, den, expected):
        r = skrank.average_precision(self.y_true, self.y_score, self.qid, k=3,
                                     ap_denominator=den)
        assert round(r.value, 4) == expected


class TestEmptyQueries:
    y_true = np.array([0, 0, 1, 0, 2, 1])
    y_score = np.array([0.3, 0.2, 0.9, 0.1, 0.4, 0.5])
    qid = np.array([1, 1, 2, 2, 3, 3])

    @pytest.mark.parametrize("rule, per_query_1, mean_n", [("exclude", np.nan, 2),
                                                           ("zero", 0.0, 3), ("one", 1.0, 3)])
    def test_rule_sets_value_and_count(self, rule, per_query_1, mean_n):
        r = skrank.ndcg(self.y_true, self.y_score, self.qid, empty=rule)
        np.testing.assert_equal(r.per_query[0], per_query_1)
        assert r.n_empty == 1
        assert r.n_counted == mean_n
        assert "1 without relevant documents" in str(r)

    def test_error_rule_names_the_query(self):
        with pytest.raises(skrank.EmptyQueryError, match="first: query 1"):
            skrank.ndcg(self.y_true, self.y_score, self.qid, empty="error")

    def test_every_query_empty_is_reported_not_crashed(self):
        r = skrank.ndcg([0, 0, 0], [0.1, 0.2, 0.3], [1, 1, 2])
        assert np.isnan(r.value)
        assert r.n_excluded == 2
        assert "2 without relevant documents (excluded)" in str(r)
        assert skrank.ndcg([0, 0, 0], [0.1, 0.2, 0.3], [1, 1, 2], empty="one").value == 1.0

    def test_single_document_queries(self):
        r = skrank.evaluate([1, 0, 3], [0.5, 0.5, 0.1], [1, 2, 3], metrics=["ndcg@5", "rr", "p@5"])
        assert r["ndcg@5"].per_query.tolist()[::2] == [1.0, 1.0]
        assert r["p@5"].per_query[0] == 0.2  # divided by k=5 by default
        assert skrank.precision([1], [0.5], [1], k=5, p_divisor="min_k_n").value == 1.0


def test_result_prints_the_issue_format():
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(50), 10)
    y = rng.integers(0, 3, 500)
    y[:30] = 0  # three queries without relevant documents
    r = skrank.ndcg(y, rng.integers(0, 4, 500), qid, k=5)
    text = str(r)
    assert text.startswith(f"NDCG@5 = {r.value:.4f} (gain=exp, ties=pessimistic, empty=exclude; "
                           "50 queries, 3 without relevant documents (excluded)")


def test_non_contiguous_queries_equal_contiguous():
    rng = np.random.default_rng(2)
    qid = np.repeat(np.array(["b", "a", "c"]), 6)
    y = rng.integers(0, 3, 18)
    s = rng.integers(0, 3, 18).astype(float)
    perm = rng.permutation(18)
    a = skrank.evaluate(y, s, qid, metrics=["ndcg@3", "ap", "rr"], ties="pessimistic")
    b = skrank.evaluate(y[perm], s[perm], qid[perm], metrics=["ndcg@3", "ap", "rr"],
                        ties="pessimistic")
    order = {q: i for i, q in enumerate(b.qids)}
    for m in a:
        np.testing.assert_array_equal(a[m].per_query, b[m].per_query[[order[q] for q in a.qids]])


def test_group_sizes_equal_qid():
    y = [1, 0, 2, 0, 1]
    s = [0.1, 0.2, 0.3, 0.4, 0.5]
    a = skrank.evaluate(y, s, group=[2, 3], metrics=["ndcg", "rr"])
    b = skrank.evaluate(y, s, [5, 5, 6, 6, 6], metrics=["ndcg", "rr"])
    assert a.means == b.means
    np.testing.assert_array_equal(a.qids, [0, 1])


def test_to_frame_and_dict():
    res = skrank.evaluate([1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4], ["x", "x", "y", "y"],
                          metrics=["ndcg@1", "rr"])
    df = res.to_frame()
    assert list(df.columns) == ["ndcg@1", "rr"]
    assert list(df.index) == ["x", "y"]
    d = res.to_dict()
    assert d["rr"]["conventions"]["ties"] == "pessimistic"
    assert set(res) == {"ndcg@1", "rr"}


def test_weighted_empty_queries_state_how_they_were_weighted():
    # query 1 has no relevant document; weights 1 and 3: (1 + 3 * 0.5) / 4 vs (1 * 1 + 3 * 0.5) / 4
    kw = dict(sample_weight=[1, 1, 3, 3], empty="one")
    unweighted = skrank.reciprocal_rank([0, 0, 1, 0], [1, 2, 3, 4], [1, 1, 2, 2],
                                        empty_weighted=False, **kw)
    weighted = skrank.reciprocal_rank([0, 0, 1, 0], [1, 2, 3, 4], [1, 1, 2, 2], **kw)
    assert unweighted.value == (1 + 3 * 0.5) / 4
    assert weighted.value == (1 * 1 + 3 * 0.5) / 4
    assert "empty_weighted=False" in str(unweighted)
    assert "empty_weighted=True" in str(weighted)


@pytest.mark.parametrize("n_jobs", [2, 3, -1])
def test_threads_give_identical_results(n_jobs):
    # chunks of queries run in threads; every value is computed alone, so bits match
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 60, 301)
    qid = np.repeat(np.arange(301), sizes)
    y = rng.integers(0, 4, qid.shape[0])
    s = rng.integers(0, 6, qid.shape[0]) / 5
    metrics = ["ndcg@10", "ap@5", "rr", "err@3", "p@3"]
    for ties in ("pessimistic", "average"):
        one = skrank.evaluate(y, s, qid, metrics=metrics, ties=ties, tie_bounds=True)
        many = skrank.evaluate(y, s, qid, metrics=metrics, ties=ties, tie_bounds=True,
                               n_jobs=n_jobs)
        for m in metrics:
            np.testing.assert_array_equal(one[m].per_query, many[m].per_query)
            assert one[m].value == many[m].value
            assert one[m].tie_interval == many[m].tie_interval
            assert one[m].n_tie_affected == many[m].n_tie_affected


@pytest.mark.parametrize("n_jobs", [0, -2, 1.5, True])
def test_bad_n_jobs(n_jobs):
    with pytest.raises(skrank.InvalidParameterError, match=r"'n_jobs' parameter of evaluate "
                                                           r"must be None, a positive int or -1"):
        skrank.evaluate([1, 0], [0.1, 0.2], [0, 0], n_jobs=n_jobs)


@pytest.mark.parametrize("ties", ["pessimistic", "input", "average"])
def test_ap_min_k_with_pool_divides_by_min_r_k(ties):
    # issue 13: ap_denominator="min_k" is min(R, k) (docs/conventions.rst), R from the pool
    # under idcg="pool". R = 3 (one relevant row not retrieved), k = 3: (1/1 + 2/2) / 3.
    # Before: 1.0 (divided by min(R, k, retrieved rows) = 2; run here at c74d18a).
    r = skrank.average_precision([1, 1, 1], [2, 1, 0], [0, 0, 0], k=3, ap_denominator="min_k",
                                 idcg="pool", retrieved=[True, True, False], ties=ties)
    assert r.value == pytest.approx(2 / 3)
    # without a cutoff min(R, k) is R: the same as "all"
    kw = dict(idcg="pool", retrieved=[True, True, False], ties=ties)
    assert (skrank.average_precision([1, 1, 1], [2, 1, 0], [0, 0, 0], ap_denominator="min_k",
                                     **kw).value
            == skrank.average_precision([1, 1, 1], [2, 1, 0], [0, 0, 0], **kw).value)
