"""expected_exposure against a loop over the definitions, properties, and bad input."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank.exceptions import InputError, InvalidParameterError
from skrank.fairness import (
    ExposureConventions,
    expected_exposure,
    read_expeval_qrels,
    read_expeval_run,
)

from ._oracle import expected_exposure_raw, ideal_rankings

ISSUE = dict(
    y_true=[2, 1, 1, 0, 0], qid_true=["q"] * 5, doc_true=["d1", "d2", "d3", "d4", "d5"],
    qid=["q"] * 10, sample=[1] * 5 + [2] * 5,
    doc=["d1", "d2", "d4", "d3", "d5", "d1", "d3", "d2", "d5", "d4"])


def _random_case(rng):
    """Judgments and sampled rankings of a few queries, as flat arrays and as dicts."""
    yq, yd, yy, rq, rs, rd, rr = [], [], [], [], [], [], []
    per_query = {}
    for qi in range(int(rng.integers(1, 4))):
        n = int(rng.integers(1, 7))
        docs = [f"d{qi}{i}" for i in range(n)]
        grades = rng.integers(0, 3, size=n)
        grades[0] = max(grades[0], 1)  # a relevant document, so that the query is judged
        judged = {d: int(g) for d, g in zip(docs, grades) if rng.random() < 0.85 or g > 0}
        samples = []
        for s in range(int(rng.integers(1, 5))):
            extra = [f"x{qi}{s}"] if rng.random() < 0.3 else []  # an unjudged document
            order = [docs[i] for i in rng.permutation(n)] + extra
            ranking = order[:int(rng.integers(1, len(order) + 1))]
            samples.append(ranking)
            for rank, d in enumerate(ranking, start=1):
                rq.append(f"q{qi}")
                rs.append(f"s{s}")
                rd.append(d)
                rr.append(rank)
        for d, g in judged.items():
            yq.append(f"q{qi}")
            yd.append(d)
            yy.append(g)
        per_query[f"q{qi}"] = (judged, samples)
    if rng.random() < 0.5:  # a query of the run without judgments, sorting first
        rq.append("a")
        rs.append("s0")
        rd.append("d00")
        rr.append(1)
    arrays = (np.array(yy), np.array(yq), np.array(yd), np.array(rq), np.array(rs),
              np.array(rd), np.array(rr))
    return arrays, per_query


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), model=st.sampled_from(["rbp", "gerr"]),
       p=st.sampled_from([0.3, 0.5, 0.8]), u=st.sampled_from([0.0, 0.4, 1.0]),
       binary=st.booleans(), complete=st.booleans())
def test_equal_to_the_loop_over_the_definitions(seed, model, p, u, binary, complete):
    arrays, per_query = _random_case(np.random.default_rng(seed))
    y, yq, yd, rq, rs, rd, rr = arrays
    res = expected_exposure(y, yq, yd, rq, rs, rd, rank=rr, model=model, patience=p,
                            utility=u, grades="binary" if binary else "graded",
                            judgments="complete" if complete else "incomplete",
                            normalize="none")
    oracle = {q: expected_exposure_raw(*per_query[q], model, p, u, binary, complete)
              for q in res.qids.tolist()}
    want = np.array([oracle[q][:3] for q in res.qids.tolist()])
    got = np.column_stack([s.per_query for s in res])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    # each document's exposure and target
    docs = res.documents
    pairs = {(q, d): (e, t) for q, d, e, t in zip(docs.qid.tolist(), docs.doc.tolist(),
                                                  docs.exposure, docs.target)}
    want_pairs = {(q, d): (oracle[q][4].get(d, 0.0), oracle[q][3].get(d, 0.0))
                  for q in oracle for d in set(oracle[q][3]) | set(oracle[q][4])}
    assert pairs.keys() == want_pairs.keys()
    np.testing.assert_allclose([pairs[k] for k in want_pairs], list(want_pairs.values()),
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("model", ["rbp", "gerr"])
@pytest.mark.parametrize("complete", [False, True])
def test_the_ideal_stochastic_ranking_has_no_loss(model, complete):
    """Sampling each ranking of the ideal policy once gives the target exactly: EE-L 0,
    EE-R ||target||^2 and EE-D too, and normalised EE-L 0."""
    grades = {"a": 3, "b": 2, "c": 2, "d": 2, "e": 1, "f": 0, "g": 0}
    kept = {d: g for d, g in grades.items() if complete or g > 0}
    samples = list(ideal_rankings(kept))
    assert len(samples) == (6 * 2 if complete else 6)
    qid = [0] * sum(map(len, samples))
    sample = [s for s, r in enumerate(samples) for _ in r]
    doc = [d for r in samples for d in r]
    kw = dict(model=model, patience=0.7, utility=0.3,
              judgments="complete" if complete else "incomplete")
    res = expected_exposure(list(grades.values()), [0] * 7, list(grades), qid, sample, doc,
                            normalize="none", **kw)
    assert float(res.loss) == pytest.approx(0.0, abs=1e-15)
    assert float(res.relevance) == pytest.approx(float(res.disparity), rel=1e-12)
    norm = expected_exposure(list(grades.values()), [0] * 7, list(grades), qid, sample, doc,
                             **kw)
    assert float(norm.loss) == pytest.approx(0.0, abs=1e-15)


def test_loss_is_disparity_minus_twice_relevance_plus_target_norm():
    rng = np.random.default_rng(7)
    arrays, per_query = _random_case(rng)
    res = expected_exposure(*arrays[:6], rank=arrays[6], normalize="none", model="rbp")
    norms = np.array([sum(t * t for t in expected_exposure_raw(*per_query[q], "rbp", 0.5, 0.5)
                          [3].values()) for q in res.qids.tolist()])
    np.testing.assert_allclose(res.loss.per_query, res.disparity.per_query
                               - 2 * res.relevance.per_query + norms, atol=1e-12)


def test_row_order_rank_and_score_give_one_answer():
    rng = np.random.default_rng(3)
    (y, yq, yd, rq, rs, rd, rr), _ = _random_case(rng)
    base = expected_exposure(y, yq, yd, rq, rs, rd, rank=rr)
    by_rows = expected_exposure(y, yq, yd, rq, rs, rd)  # rows already in rank order
    perm = rng.permutation(rq.shape[0])
    shuffled = expected_exposure(y, yq, yd, rq[perm], rs[perm], rd[perm], rank=rr[perm])
    by_score = expected_exposure(y, yq, yd, rq[perm], rs[perm], rd[perm],
                                 score=-rr[perm] * 1.5)
    for other in (by_rows, shuffled, by_score):
        for a, b in zip(base, other):
            np.testing.assert_array_equal(a.per_query, b.per_query)


class TestMissingQueries:
    def args(self):
        return dict(y_true=[1, 1, 0], qid_true=["a", "b", "b"], doc_true=["x", "y", "z"],
                    qid=["a", "a"], sample=[0, 0], doc=["x", "w"])

    def test_worst(self):
        res = expected_exposure(**self.args())
        assert res.n_missing == 1
        assert res.n_samples.tolist() == [1, 0]
        assert res.disparity.per_query[1] == 1.0 and res.loss.per_query[1] == 1.0
        assert "1 without rankings (missing=worst)" in str(res)

    def test_expeval_puts_loss_at_the_relevance_bound(self):
        # one grade level: expeval's relevance bounds are both 0, so the loss is 0
        res = expected_exposure(**self.args(), preset="expeval")
        assert res.loss.per_query[1] == 0.0
        assert res.relevance.per_query[1] == 1.0  # the fixed value of equal bounds

    def test_exclude(self):
        res = expected_exposure(**self.args(), missing="exclude")
        assert np.isnan(res.loss.per_query[1])
        assert float(res.loss) == res.loss.per_query[0]

    def test_error(self):
        with pytest.raises(InputError, match=r"no ranking for 1 judged queries .the first: "
                                             r"'b'. and missing='error'"):
            expected_exposure(**self.args(), missing="error")


def test_unjudged_run_queries_are_left_out_and_counted():
    res = expected_exposure([1], ["a"], ["x"], ["a", "zz"], [0, 0], ["x", "x"])
    assert res.qids.tolist() == ["a"] and res.n_unjudged == 1
    assert "1 run queries without judgments left out" in str(res)


def test_an_unjudged_query_sorting_first_changes_nothing():
    """Regression: judged documents and run rows were once keyed by different query codes
    when a query without judgments sorted before the judged ones."""
    base = expected_exposure(**ISSUE, model="rbp", normalize="none")
    args = dict(ISSUE, qid=["a", *ISSUE["qid"]], sample=[1, *ISSUE["sample"]],
                doc=["d1", *ISSUE["doc"]])
    other = expected_exposure(**args, model="rbp", normalize="none")
    assert [float(s) for s in other] == [float(s) for s in base]
    assert other.n_unjudged == 1


def test_groups_of_a_zero_exposure_are_zero_not_inf():
    """expeval returns inf for the disparity of an all-zero vector of group exposures (its
    l2 does); the sum of squares of zeros is 0."""
    res = expected_exposure([1, 1], ["a", "a"], ["x", "y"], ["a"], [0], ["other"],
                            groups=[0, 1], normalize="none")
    assert res.disparity.per_query.tolist() == [0.0]


def test_group_membership_forms_agree():
    from scipy import sparse

    kw = dict(ISSUE, model="rbp", normalize="none")
    labels = expected_exposure(**kw, groups=["g", "h", "g", "h", "h"])
    matrix = np.array([[1, 0], [0, 1], [1, 0], [0, 1], [0, 1]])
    for groups in (matrix, matrix.astype(bool), sparse.csr_matrix(matrix)):
        other = expected_exposure(**kw, groups=groups)
        for a, b in zip(labels, other):
            np.testing.assert_array_equal(a.per_query, b.per_query)
    # the group targets: g = {d1, d3} 1 + 0.375, h = {d2} 0.375 (d4, d5 are not relevant)
    # the run's: g = 1 + 0.3125, h = 0.375
    assert float(labels.relevance) == 1.375 * 1.3125 + 0.375 * 0.375


def test_results_print_and_convert():
    res = expected_exposure(**ISSUE, preset="expeval")
    assert res.conventions == ExposureConventions(missing="expeval")
    assert "user model: model=gerr, patience=0.5, utility=0.5" in str(res)
    assert str(res.relevance).startswith("EE-R = ")
    assert res.to_dict()["n_queries"] == 1
    docs = res.documents
    assert len(docs) == 5 and docs.doc.tolist() == ["d1", "d2", "d3", "d4", "d5"]
    assert docs.to_frame().shape == (5, 4)
    frame = res.to_frame()
    assert frame.loc["q", "n_samples"] == 2
    d, _r, loss = res
    assert d is res.disparity and f"{loss:.3f}" == f"{float(res.loss):.3f}"


def test_readers_on_the_issue_files(tmp_path):
    (tmp_path / "qrels").write_text("q d1 2\nq d2 1\nq d3 1\nq d4 0\nq d5 0\n")
    lines = [f"q {s} {d} {r} 0 tag" for s, ranking in enumerate(
        (["d1", "d2", "d4", "d3", "d5"], ["d1", "d3", "d2", "d5", "d4"]))
        for r, d in enumerate(ranking, start=1)]
    (tmp_path / "run").write_text("\n".join(reversed(lines)) + "\n")
    qrels = read_expeval_qrels(tmp_path / "qrels")
    run = read_expeval_run(tmp_path / "run")
    assert qrels.group_labels.tolist() == ["-1"]
    res = expected_exposure(qrels.y_true, qrels.qid, qrels.doc, run.qid, run.sample, run.doc,
                            rank=run.rank, model="rbp", normalize="none")
    assert [float(s) for s in res] == [1.271484375, 1.2578125, 0.037109375]


class TestBadInput:
    def test_repeated_document_in_a_ranking(self):
        args = dict(ISSUE, doc=["d1", "d2", "d1", "d3", "d5", *ISSUE["doc"][5:]])
        with pytest.raises(InputError, match=r"The 'doc' parameter of expected_exposure must "
                                             r"be each document once in a ranking. Got "
                                             r"document 'd1' twice in query 'q', sample 1"):
            expected_exposure(**args)

    def test_ranks_with_a_gap(self):
        with pytest.raises(InputError, match=r"'rank'.*1, 2, ..., n in each ranking.*Got rank "
                                             r"4 at row 2 where 3 was due"):
            expected_exposure(**ISSUE, rank=[1, 2, 4, 5, 6, 1, 2, 3, 4, 5])

    def test_rows_are_named_as_given(self):
        # an unjudged query's row comes first: the bad rank is still row 3 of the input
        args = dict(ISSUE, qid=["zz", *ISSUE["qid"]], sample=[0, *ISSUE["sample"]],
                    doc=["x", *ISSUE["doc"]])
        with pytest.raises(InputError, match=r"Got rank 4 at row 3 where 3 was due"):
            expected_exposure(**args, rank=[1, 1, 2, 4, 5, 6, 1, 2, 3, 4, 5])

    def test_tied_scores(self):
        with pytest.raises(InputError, match=r"'score'.*distinct within each ranking"):
            expected_exposure(**ISSUE, score=[5, 4, 4, 2, 1, 5, 4, 3, 2, 1])

    def test_rank_and_score(self):
        with pytest.raises(InputError, match=r"'score'.*None when rank is given"):
            expected_exposure(**ISSUE, rank=[1] * 10, score=[1] * 10)

    def test_mismatched_lengths(self):
        with pytest.raises(InputError, match=r"The 'doc' parameter of expected_exposure must "
                                             r"be an array with one value per row of qid "
                                             r"\(10 rows\). Got 9 values instead"):
            expected_exposure(**dict(ISSUE, doc=ISSUE["doc"][:9]))
        with pytest.raises(InputError, match=r"'doc_true'.*one value per row of y_true"):
            expected_exposure(**dict(ISSUE, doc_true=["d1"]))

    def test_groups_missing_documents(self):
        with pytest.raises(InputError, match=r"'groups'.*one value per row of y_true \(5 "
                                             r"rows\). Got 4 values"):
            expected_exposure(**ISSUE, groups=[0, 1, 0, 1])
        with pytest.raises(InputError, match=r"'groups'.*every judged document in at least "
                                             r"one group. Got 1 rows in no group .the first: "
                                             r"row 2"):
            expected_exposure(**ISSUE, groups=np.array([[1, 0], [0, 1], [0, 0], [1, 1],
                                                        [1, 0]]))

    def test_duplicate_judgment(self):
        with pytest.raises(InputError, match=r"document 'd1' judged twice for query 'q'"):
            expected_exposure(**dict(ISSUE, doc_true=["d1", "d2", "d3", "d4", "d1"]))

    def test_negative_grade(self):
        with pytest.raises(InputError, match=r"'y_true'.*grades >= 0.*Got 1 negative grades"):
            expected_exposure(**dict(ISSUE, y_true=[2, 1, 1, 0, -1]))

    def test_nothing_relevant(self):
        with pytest.raises(InputError, match=r"at least one relevant document"):
            expected_exposure(**dict(ISSUE, y_true=[0] * 5))
        # complete judgments give such a query a target exposure
        res = expected_exposure(**dict(ISSUE, y_true=[0] * 5), judgments="complete")
        assert res.qids.tolist() == ["q"]

    @pytest.mark.parametrize("name, value, allowed", [
        ("model", "dcg", r"one of 'gerr', 'rbp'"),
        ("patience", 1.0, r"a finite real number in \(0, 1\)"),
        ("utility", -0.1, r"a finite real number in \[0, 1\]"),
        ("normalize", True, r"one of 'bounds', 'none'"),
        ("missing", "zero", r"one of 'worst', 'expeval', 'exclude', 'error'"),
        ("preset", "trec_eval", r"one of 'expeval'"),
    ])
    def test_bad_conventions(self, name, value, allowed):
        with pytest.raises(InvalidParameterError, match=rf"The '{name}' parameter of "
                                                        rf"expected_exposure must be {allowed}"):
            expected_exposure(**ISSUE, **{name: value})

    def test_conventions_value_checks_itself(self):
        with pytest.raises(InvalidParameterError, match=r"The 'model' parameter must be one "
                                                        r"of 'gerr', 'rbp'"):
            ExposureConventions(model="err")
        with pytest.raises(InvalidParameterError, match=r"'patience'.*in \(0, 1\)"):
            ExposureConventions(patience=0)

    def test_reader_errors(self):
        with pytest.raises(InputError, match=r"line 2: expected 3 or 4 fields"):
            read_expeval_qrels(io.StringIO("q d 1\nq d\n"))
        with pytest.raises(InputError, match=r"line 1: the grade must be an integer"):
            read_expeval_qrels(io.StringIO("q d x\n"))
        with pytest.raises(InputError, match=r"line 3: expected 5 or 6 fields"):
            read_expeval_run(io.StringIO("q s d 1 0\n\nq s d\n"))
        with pytest.raises(InputError, match=r"line 1: the rank must be an integer"):
            read_expeval_run(io.StringIO("q s d one 0\n"))


def test_every_permutation_count_of_the_ideal_ranking():
    # the oracle enumerates prod(m_g!) rankings: 2! * 3! for grades (2, 2, 1, 1, 1)
    grades = dict(zip("abcde", (2, 2, 1, 1, 1)))
    assert len(list(ideal_rankings(grades))) == 12
    assert all(sorted(r[:2]) == ["a", "b"] for r in ideal_rankings(grades))
    assert len(set(map(tuple, ideal_rankings(grades)))) == 12
    assert sum(1 for _ in itertools.permutations("abcde")) == 120


def test_long_str_ids_are_hashed_to_the_same_result():
    """Over 10,000 rows, str document ids are coded by a checked hash instead of a sort:
    the values equal those from int ids for the same documents (to the last bits, which
    depend on the order of the documents in the sums)."""
    rng = np.random.default_rng(5)
    n_docs, samples = 300, 40
    ids = rng.permutation(n_docs)
    y = rng.integers(0, 3, n_docs)
    doc = np.concatenate([rng.permutation(n_docs) for _ in range(samples)])
    sample = np.repeat(np.arange(samples), n_docs)
    names = np.array([f"doc-{i:05d}" for i in range(n_docs)])
    as_int = expected_exposure(y, [0] * n_docs, ids, [0] * doc.shape[0], sample, ids[doc])
    for strings in (names, names.astype(object)):  # numpy str, Python str (the readers')
        as_str = expected_exposure(y, [0] * n_docs, strings[ids], [0] * doc.shape[0], sample,
                                   strings[ids[doc]])
        for a, b in zip(as_int, as_str):  # equal but for the order of the sums over documents
            np.testing.assert_allclose(a.per_query, b.per_query, rtol=1e-13)
    twice = names[ids[doc]].copy()
    twice[5] = twice[6]
    with pytest.raises(InputError, match=r"twice in query 0, sample 0"):
        expected_exposure(y, [0] * n_docs, names[ids], [0] * doc.shape[0], sample, twice)
