"""Shared pieces of the trec_eval / pytrec_eval reference tests.

trec_eval names its measures ``ndcg_cut_10``, ``P_5``, ``map_cut_100``, ...; the helpers here
map them to skrank metric names and build the measure requests pytrec_eval takes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).resolve().parents[1] / "data"

#: trec_eval's default cutoffs of ndcg_cut, P, recall and map_cut (``-m all_trec``).
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: trec_eval v10's default cutoffs of success.
SUCCESS_CUTOFFS = (1, 5, 10)


def trec_to_skrank(cutoffs=TREC_CUTOFFS, success_cutoffs=SUCCESS_CUTOFFS) -> dict[str, str]:
    """``{trec_eval measure: skrank metric}`` for every measure skrank offers."""
    names = {"ndcg": "ndcg", "map": "ap", "recip_rank": "rr"}
    for k in cutoffs:
        names[f"ndcg_cut_{k}"] = f"ndcg@{k}"
        names[f"P_{k}"] = f"p@{k}"
        names[f"recall_{k}"] = f"r@{k}"
        names[f"map_cut_{k}"] = f"ap@{k}"
    for k in success_cutoffs:
        names[f"success_{k}"] = f"hit@{k}"
    return names


def pytrec_measures(cutoffs=TREC_CUTOFFS, success_cutoffs=SUCCESS_CUTOFFS) -> set[str]:
    """The measure request of ``pytrec_eval.RelevanceEvaluator`` for the same measures."""
    cut = ",".join(str(k) for k in cutoffs)
    return {
        "ndcg", f"ndcg_cut.{cut}", f"P.{cut}", f"recall.{cut}", "map", f"map_cut.{cut}",
        "recip_rank", "success." + ",".join(str(k) for k in success_cutoffs),
    }


def assert_equal_to_pytrec(result, reference: dict, names: dict[str, str], rtol=1e-12,
                           only_reference_topics=False):
    """Every topic of a skrank result equals pytrec_eval's value to ``rtol`` (zeros exactly).

    ``only_reference_topics`` compares the topics pytrec_eval evaluated and lets skrank have
    more (trec_eval ``-c`` adds topics without results; pytrec_eval cannot).
    """
    topics = [str(q) for q in result.qids]
    keep = np.ones(len(topics), dtype=bool)
    if only_reference_topics:
        keep = np.isin(topics, list(reference))
        topics = [t for t, k in zip(topics, keep) if k]
    assert sorted(topics) == sorted(reference), "skrank and pytrec_eval evaluate other topics"
    for trec_name, name in names.items():
        expected = np.array([reference[t][trec_name] for t in topics])
        np.testing.assert_allclose(
            result[name].per_query[keep], expected, rtol=rtol, atol=0,
            err_msg=f"{trec_name} (skrank {name}) differs from pytrec_eval",
        )


def flatten(qrels: dict, run: dict) -> dict[str, np.ndarray]:
    """Flat ``skrank.evaluate`` arguments of a run and its qrels, written out plainly.

    Topics present on both sides only (trec_eval ignores the others). Retrieved documents get
    their label (0 when unjudged); judged documents the run missed become rows with
    ``retrieved=False``. Negative labels (trec_eval: "in the pool, not judged") become 0.
    """
    qid, doc, y, s, ret = [], [], [], [], []
    for t, docs in run.items():
        if t not in qrels:
            continue
        for d, score in docs.items():
            qid.append(t)
            doc.append(d)
            y.append(max(qrels[t].get(d, 0), 0))
            s.append(score)
            ret.append(True)
        for d, label in qrels[t].items():
            if d not in docs:
                qid.append(t)
                doc.append(d)
                y.append(max(label, 0))
                s.append(np.nan)  # never ranked: retrieved=False
                ret.append(False)
    return {
        "y_true": np.array(y, dtype=np.float64),
        "y_score": np.array(s, dtype=np.float64),
        "qid": np.array(qid),
        "doc_id": np.array(doc),
        "retrieved": np.array(ret, dtype=bool),
    }


@pytest.fixture(scope="session")
def trec_data_dir() -> Path:
    """qrels and runs of trec_eval's test suite (tests/data/trec_eval)."""
    return DATA / "trec_eval"


@pytest.fixture(scope="session")
def trec_expected_dir() -> Path:
    """trec_eval v10's expected outputs (tests/data/trec_eval_expected)."""
    return DATA / "trec_eval_expected"
