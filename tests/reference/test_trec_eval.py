"""preset="trec_eval" reproduces trec_eval v10's own expected outputs, topic by topic.

The qrels and runs are trec_eval's test suite (tests/data/trec_eval), the expected outputs
trec_eval v10.0's (tests/data/trec_eval_expected, see its README for the command lines).
trec_eval prints 4 decimals; skrank's values printed the same way must be the same strings.
The named cases at the end pin trec_eval's handling of topics without relevant documents,
negative labels, unjudged documents and docno tie-breaking, each checked against pytrec_eval
(trec_eval's own code) and against a value worked out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

import skrank
from skrank.io import align_run_qrels, read_qrels, read_run

from .conftest import assert_equal_to_pytrec, flatten, pytrec_measures, trec_to_skrank

NAMES = trec_to_skrank()

# expected file -> (qrels, run, align_run_qrels options, evaluate conventions beyond the preset)
CASES = {
    # trec_eval qrels.test results.test (the default measure set: map, recip_rank, P_k)
    "out.test": ("qrels.test", "results.test", {}, {}),
    # trec_eval -m all_trec qrels.test results.test (means only)
    "out.test.a": ("qrels.test", "results.test", {}, {}),
    # trec_eval -m all_trec -q qrels.test results.test
    "out.test.aq": ("qrels.test", "results.test", {}, {}),
    # trec_eval -m all_trec -q -l2 qrels.rel_level results.test: relevant means label >= 2 for
    # the binary measures; ndcg keeps the graded gains (rel_min does not touch it)
    "out.test.aql": ("qrels.rel_level", "results.test", {}, {"rel_min": 2}),
    # trec_eval -m all_trec -q -c qrels.test results.trunc: topic 302 has no results and
    # counts 0 in every mean
    "out.test.aqc": ("qrels.test", "results.trunc", {"qrels_only": "include"}, {}),
    # ... -c -M100: only the first 100 documents of each topic (trec_eval's order)
    "out.test.aqcM": (
        "qrels.test", "results.trunc", {"qrels_only": "include", "max_docs": 100}, {}
    ),
    # trec_eval qrels.comment.test results.comment.test: MS MARCO ids containing '#'
    "out.comment.test": ("qrels.comment.test.gz", "results.comment.test.gz", {}, {}),
}


def read_expected(path) -> dict[str, dict[str, str]]:
    """``{measure: {topic or "all": printed value}}`` of a trec_eval output file."""
    out: dict[str, dict[str, str]] = {}
    for line in path.read_text().splitlines():
        measure, topic, value = line.split()
        out.setdefault(measure, {})[topic] = value
    return out


def aligned(data_dir, qrels_file, run_file, **options):
    qrels = read_qrels(data_dir / qrels_file)
    run = read_run(data_dir / run_file)
    return qrels, run, align_run_qrels(qrels, run, **options)


@pytest.fixture(scope="module")
def trec_eval_cases(trec_data_dir):
    """Evaluate each case once: (skrank result, aligned run, qrels, run) per expected file."""
    cache = {}

    def get(name):
        if name not in cache:
            qrels_file, run_file, options, conventions = CASES[name]
            qrels, run, data = aligned(trec_data_dir, qrels_file, run_file, **options)
            res = skrank.evaluate(
                **data.as_evaluate_kwargs(), metrics=list(NAMES.values()), preset="trec_eval",
                **conventions,
            )
            cache[name] = (res, data, qrels, run)
        return cache[name]

    return get


@pytest.mark.parametrize("expected_file", list(CASES))
def test_equals_trec_eval_expected_output(expected_file, trec_eval_cases, trec_expected_dir):
    expected = read_expected(trec_expected_dir / expected_file)
    res = trec_eval_cases(expected_file)[0]
    measures = [m for m in NAMES if m in expected]
    # every measure of the table is in -m all_trec outputs; the default set has map, recip_rank
    # and P_k only
    n_expected = 11 if expected_file in ("out.test", "out.comment.test") else len(NAMES)
    assert len(measures) == n_expected
    topics = [str(q) for q in res.qids]
    per_topic = any(t != "all" for t in expected["map"])
    if per_topic:
        assert sorted(topics) == sorted(t for t in expected["map"] if t != "all")
    wrong = []
    for measure in measures:
        result = res[NAMES[measure]]
        got = {"all": f"{result.value:.4f}"}
        if per_topic:
            got.update({t: f"{v:.4f}" for t, v in zip(topics, result.per_query)})
        for topic, value in got.items():
            if value != expected[measure][topic]:
                wrong.append(f"{measure} {topic}: skrank {value}, trec_eval "
                             f"{expected[measure][topic]}")
    assert not wrong, "\n".join(wrong)
    # the mean is over every evaluated topic (trec_eval divides by num_q)
    assert res.n_queries == int(expected["num_q"]["all"])


def test_num_q_and_num_rel_agree_with_trec_eval(trec_eval_cases, trec_expected_dir):
    """The rows skrank evaluates are trec_eval's: topics, relevant and retrieved counts."""
    for name, rel_min in (("out.test.aq", 1), ("out.test.aql", 2), ("out.test.aqc", 1)):
        expected = read_expected(trec_expected_dir / name)
        res, data = trec_eval_cases(name)[:2]
        assert res.n_queries == int(expected["num_q"]["all"])
        for t in res.qids:
            rows = data.qid == t
            relevant = data.y_true[rows] >= rel_min
            assert relevant.sum() == int(expected["num_rel"][t])
            assert data.retrieved[rows].sum() == int(expected["num_ret"][t])
            assert (relevant & data.retrieved[rows]).sum() == int(expected["num_rel_ret"][t])


def test_without_the_relevance_threshold_l2_does_not_match(trec_eval_cases, trec_data_dir,
                                                            trec_expected_dir):
    """-l2 is rel_min=2 for the binary measures and nothing for ndcg (the test has teeth)."""
    expected = read_expected(trec_expected_dir / "out.test.aql")
    res_l2 = trec_eval_cases("out.test.aql")[0]
    data = trec_eval_cases("out.test.aql")[1]
    res_l1 = skrank.evaluate(**data.as_evaluate_kwargs(), metrics=["ap", "ndcg"],
                             preset="trec_eval")
    assert f"{res_l1['ap'].value:.4f}" != expected["map"]["all"]
    assert f"{res_l2['ap'].value:.4f}" == expected["map"]["all"]
    # ndcg ignores rel_min: the same value with and without the threshold
    np.testing.assert_array_equal(res_l1["ndcg"].per_query, res_l2["ndcg"].per_query)


def test_preset_equals_its_explicit_conventions(trec_eval_cases):
    res, data = trec_eval_cases("out.test.aq")[:2]
    explicit = skrank.evaluate(
        **data.as_evaluate_kwargs(), metrics=list(NAMES.values()), gain="linear",
        ties="docid", empty="zero", rel_min=1, ap_denominator="all", p_divisor="k",
        idcg="pool",
    )
    for name in NAMES.values():
        np.testing.assert_array_equal(explicit[name].per_query, res[name].per_query)


def test_pool_idcg_is_needed_for_trec_runs(trec_eval_cases, trec_expected_dir):
    """idcg="ranked" (the LTR convention) misses relevant documents the run did not return."""
    expected = read_expected(trec_expected_dir / "out.test.aq")
    data = trec_eval_cases("out.test.aq")[1]
    res = skrank.evaluate(**data.as_evaluate_kwargs(), metrics=["ndcg", "ap", "r@100"],
                          preset="trec_eval", idcg="ranked")
    for measure, name in (("ndcg", "ndcg"), ("map", "ap"), ("recall_100", "r@100")):
        assert f"{res[name].value:.4f}" != expected[measure]["all"]


# -- full precision against pytrec_eval on the same files ---------------------------------

def pytrec_inputs(qrels, run):
    q: dict[str, dict[str, int]] = {}
    for t, d, rel in zip(qrels.qid.tolist(), qrels.doc_id.tolist(), qrels.rel.tolist()):
        q.setdefault(t, {})[d] = int(rel)  # negative labels passed on as they are
    r: dict[str, dict[str, float]] = {}
    for t, d, s in zip(run.qid.tolist(), run.doc_id.tolist(), run.score.tolist()):
        r.setdefault(t, {})[d] = s
    return q, r


@pytest.mark.parametrize(
    ("name", "relevance_level"), [("out.test.aq", 1), ("out.test.aql", 2), ("out.test.aqc", 1)]
)
def test_equals_pytrec_eval_at_full_precision(name, relevance_level, trec_eval_cases):
    res, _, qrels, run = trec_eval_cases(name)
    q, r = pytrec_inputs(qrels, run)
    reference = pytrec_eval.RelevanceEvaluator(
        q, pytrec_measures(), relevance_level=relevance_level
    ).evaluate(r)
    if name == "out.test.aqc":
        # pytrec_eval has no -c: topic 302 (no results) is not in its output; skrank gives it
        # 0 on every measure, as trec_eval -c does
        missing = ~np.isin(res.qids, list(reference))
        assert res.qids[missing].tolist() == ["302"]
        for metric in NAMES.values():
            assert res[metric].per_query[missing].tolist() == [0.0]
        assert_equal_to_pytrec(res, reference, NAMES, only_reference_topics=True)
        return
    assert_equal_to_pytrec(res, reference, NAMES)
    # trec_eval's "all" is the plain mean of the topics
    for trec_name, metric in NAMES.items():
        mean = np.mean([reference[t][trec_name] for t in reference])
        np.testing.assert_allclose(res[metric].value, mean, rtol=1e-12, atol=0)


def test_tie_rule_matters_at_full_precision(trec_eval_cases):
    """results.test ties a relevant and a non-relevant document of topic 301 at ranks 67-68.

    (FBIS3-58025 label 0 and FBIS3-58055 label 1, score 2.243509.) trec_eval puts the larger
    docno first, so the relevant one is at rank 67; input order (file order) puts it at 68.
    """
    res, data, qrels, run = trec_eval_cases("out.test.aq")
    q, r = pytrec_inputs(qrels, run)
    reference = pytrec_eval.RelevanceEvaluator(q, {"map"}).evaluate(r)
    i = int(np.flatnonzero(res.qids == "301")[0])
    other = skrank.evaluate(**data.as_evaluate_kwargs(), metrics=["ap"], preset="trec_eval",
                            ties="input")
    assert res["ap"].per_query[i] == pytest.approx(reference["301"]["map"], rel=1e-12)
    assert other["ap"].per_query[i] < reference["301"]["map"] * (1 - 1e-9)


# -- named cases: what trec_eval does at the edges ---------------------------------------

SMALL = trec_to_skrank(cutoffs=(1, 2, 5), success_cutoffs=(1, 2, 5))


def evaluate_both(qrels, run, relevance_level=1):
    """skrank (preset="trec_eval") and pytrec_eval on the same small collection."""
    data = flatten(qrels, run)
    res = skrank.evaluate(**data, metrics=list(SMALL.values()), preset="trec_eval",
                          rel_min=relevance_level)
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, pytrec_measures((1, 2, 5), (1, 2, 5)), relevance_level=relevance_level
    ).evaluate(run)
    assert_equal_to_pytrec(res, reference, SMALL)
    return res


def test_topic_without_relevant_documents_scores_zero_and_counts_in_the_mean():
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 0, "d": 0}}
    run = {"1": {"a": 0.5, "b": 0.9}, "2": {"c": 0.3, "d": 0.2}}
    res = evaluate_both(qrels, run)
    # topic 1 ranks b (0) then a (1): RR 1/2. Topic 2 has nothing relevant: 0 on every
    # measure. trec_eval divides the sum by the number of topics evaluated (meas_avg.c,
    # te_calc_avg_meas_s), so the mean RR is (1/2 + 0) / 2.
    assert res["rr"].per_query.tolist() == [0.5, 0.0]
    assert res["rr"].value == 0.25
    assert res["rr"].n_empty == 1 and res["rr"].n_excluded == 0
    # NDCG of topic 1: (1 / log2(3)) / 1
    assert res["ndcg"].per_query[0] == pytest.approx(1 / np.log2(3), rel=1e-15)
    assert res["ndcg"].value == pytest.approx(0.5 / np.log2(3), rel=1e-15)
    for name in SMALL.values():
        assert res[name].per_query[1] == 0.0


def test_negative_labels_are_nonrelevant_documents_that_take_a_rank():
    """trec_eval reads a negative label as "in the pool but unjudged" (form_res_rels.c).

    Such a document keeps its rank, has gain 0 (gain_init.c get_gain: no gain for a level
    below 0) and is not counted as relevant; the same holds for a retrieved document absent
    from the qrels. skrank gets the same values with the label set to 0.
    """
    qrels = {"1": {"neg": -1, "rel": 1, "miss": 2}}
    run = {"1": {"neg": 3.0, "unj": 2.0, "rel": 1.0}}
    res = evaluate_both(qrels, run)
    # ranking neg, unj, rel: the relevant document is third, R = 2 (rel and miss)
    assert res["rr"].value == pytest.approx(1 / 3, rel=1e-15)
    assert res["ap"].value == pytest.approx((1 / 3) / 2, rel=1e-15)
    assert res["r@5"].value == 0.5
    # NDCG: DCG 1 / log2(4); ideal from the pool: 2 + 1 / log2(3)
    assert res["ndcg"].value == pytest.approx(0.5 / (2 + 1 / np.log2(3)), rel=1e-15)
    # skrank's own reading differs: NDCG (and ERR) refuse a negative label, and under linear
    # gain DCG takes it as a negative gain (-1 + 1 / log2(4) here, where trec_eval's gain is
    # 0); so the readers map negative qrels labels to 0 (negative_rel="zero")
    with pytest.raises(skrank.InputError, match="non-negative relevance labels"):
        skrank.evaluate([-1, 1, 0], [3.0, 1.0, 2.0], [1, 1, 1], preset="trec_eval",
                        doc_id=["neg", "rel", "unj"])
    dcg = skrank.evaluate([-1, 1, 0], [3.0, 1.0, 2.0], [1, 1, 1], metrics=["dcg"],
                          preset="trec_eval", doc_id=["neg", "rel", "unj"])["dcg"]
    assert dcg.value == -1 + 1 / np.log2(4)


def test_ties_are_broken_by_docno_descending_as_strings():
    # "d9" > "d10" as strings ('9' > '1'), so d9 ranks first although 9 < 10 as numbers
    qrels = {"1": {"d10": 1, "d9": 0}}
    run = {"1": {"d10": 1.0, "d9": 1.0}}
    res = evaluate_both(qrels, run)
    assert res["rr"].value == 0.5
    # the input order (d10 first) would give RR 1
    data = flatten(qrels, run)
    assert skrank.evaluate(**data, metrics=["rr"], preset="trec_eval",
                           ties="input")["rr"].value == 1.0


def test_relevance_level_applies_to_binary_measures_only():
    qrels = {"1": {"a": 1, "b": 2}}
    run = {"1": {"a": 0.9, "b": 0.5}}
    res = evaluate_both(qrels, run, relevance_level=2)
    # with -l2 only b is relevant: it is second
    assert res["rr"].value == 0.5
    assert res["p@1"].value == 0.0
    # NDCG keeps the graded gains: (1 + 2 / log2(3)) / (2 + 1 / log2(3))
    expected = (1 + 2 / np.log2(3)) / (2 + 1 / np.log2(3))
    assert res["ndcg"].value == pytest.approx(expected, rel=1e-15)


def test_topics_on_one_side_only_are_ignored_without_c():
    import io

    qrels = read_qrels(io.StringIO("1 0 a 1\n1 0 b 0\n2 0 c 1\n"))
    run = read_run(io.StringIO("1 Q0 a 1 0.2 r\n1 Q0 b 2 0.9 r\n3 Q0 z 1 1.0 r\n"))
    data = align_run_qrels(qrels, run)
    res = skrank.evaluate(**data.as_evaluate_kwargs(), metrics=list(SMALL.values()),
                          preset="trec_eval")
    q, r = pytrec_inputs(qrels, run)
    reference = pytrec_eval.RelevanceEvaluator(
        q, pytrec_measures((1, 2, 5), (1, 2, 5))
    ).evaluate(r)
    assert list(reference) == ["1"]
    assert_equal_to_pytrec(res, reference, SMALL)
    # with -c (qrels_only="include") topic 2 counts 0; topic 3 (no judgements) never counts
    data_c = align_run_qrels(qrels, run, qrels_only="include")
    res_c = skrank.evaluate(**data_c.as_evaluate_kwargs(), metrics=["rr"], preset="trec_eval")
    assert res_c.qids.tolist() == ["1", "2"]
    assert res_c["rr"].per_query.tolist() == [0.5, 0.0]
