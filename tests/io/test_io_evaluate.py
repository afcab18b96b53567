"""End to end: TREC files -> align_run_qrels -> skrank.evaluate(preset="trec_eval").

References: pytrec_eval (trec_eval 9.0.8 inside; the measures used here are the same in v10)
run on the same files, to 1e-12, and trec_eval v10's printed outputs (4 decimals) for the
options pytrec_eval lacks (-c, -M).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

import skrank
from skrank.io import align_run_qrels, read_qrels, read_run

DATA = Path(__file__).resolve().parent.parent / "data" / "trec_eval"
EXPECTED = DATA.parent / "trec_eval_expected"  # trec_eval's published outputs

# skrank metric name -> (pytrec_eval measure to request, trec_eval output name)
MEASURES = {
    "ap": ("map", "map"),
    "ndcg": ("ndcg", "ndcg"),
    "ndcg@10": ("ndcg_cut.10", "ndcg_cut_10"),
    "p@10": ("P.10", "P_10"),
    "rr": ("recip_rank", "recip_rank"),
    "r@100": ("recall.100", "recall_100"),
}


def _pytrec_eval(qrels, run):
    qrel_dict: dict = {}
    for q, d, r in zip(qrels.qid.tolist(), qrels.doc_id.tolist(), qrels.rel.tolist()):
        qrel_dict.setdefault(q, {})[d] = r
    run_dict: dict = {}
    for q, d, s in zip(run.qid.tolist(), run.doc_id.tolist(), run.score.tolist()):
        run_dict.setdefault(q, {})[d] = s
    evaluator = pytrec_eval.RelevanceEvaluator(qrel_dict, {m for m, _ in MEASURES.values()})
    return evaluator.evaluate(run_dict)


def _trec_out(name: str) -> dict[tuple[str, str], float]:
    out = {}
    for line in (EXPECTED / name).read_text().splitlines():
        measure, topic, value = line.split()
        if measure in {name for _, name in MEASURES.values()}:
            out[measure, topic] = float(value)
    return out


@pytest.mark.parametrize(
    ("qrels_file", "run_file"),
    [("qrels.test", "results.test"), ("qrels.comment.test.gz", "results.comment.test.gz")],
)
def test_per_query_values_equal_pytrec_eval(qrels_file, run_file):
    qrels, run = read_qrels(DATA / qrels_file), read_run(DATA / run_file)
    aligned = align_run_qrels(qrels, run)
    res = skrank.evaluate(
        **aligned.as_evaluate_kwargs(), metrics=list(MEASURES), preset="trec_eval"
    )
    reference = _pytrec_eval(qrels, run)
    assert sorted(reference) == res.qids.tolist()  # pytrec_eval also drops run-only topics
    for metric, (_, name) in MEASURES.items():
        expected = [reference[q][name] for q in res.qids.tolist()]
        np.testing.assert_allclose(res[metric].per_query, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("out_file", "max_docs"), [("out.test.aqc", None), ("out.test.aqcM", 100)]
)
def test_trec_eval_c_and_M_options(out_file, max_docs):
    # trec_eval -c (topic 302 is in the qrels, not in results.trunc) and -M100.
    aligned = align_run_qrels(
        read_qrels(DATA / "qrels.test"), read_run(DATA / "results.trunc"),
        qrels_only="include", max_docs=max_docs,
    )
    res = skrank.evaluate(
        **aligned.as_evaluate_kwargs(), metrics=list(MEASURES), preset="trec_eval"
    )
    expected = _trec_out(out_file)
    assert res.qids.tolist() == ["301", "302", "303"]
    for metric, (_, name) in MEASURES.items():
        for q, value in zip(res.qids.tolist(), res[metric].per_query):
            assert round(value, 4) == pytest.approx(expected[name, q], abs=1e-9), (metric, q)
        assert round(res[metric].value, 4) == pytest.approx(expected[name, "all"], abs=1e-9)
