"""skrank reproduces ranx's metrics with explicit conventions; ranx's tie order documented.

ranx's conventions (ranx 0.3.21, read from its source and checked here): ``ndcg`` has linear
gain (``ndcg_burges`` has 2**l - 1), the ideal DCG and the number of relevant documents come
from the qrels (``idcg="pool"``), P@k divides by k, AP by every relevant document, queries
without relevant documents score 0, and ``-lN`` suffixes set the relevance level (for ndcg
they zero the lower grades, which a gain table expresses). There is no "ranx" preset: these
tests show that the individual conventions compose into it.

Ties: ranx sorts each query with numba's ``argsort`` (quicksort, insertion sort below 16
elements, so stable only for queries of at most 15 documents). ``evaluate(dict, dict)``
reverses an ascending argsort (ties in reverse input order), ``Run`` objects sort the negated
scores (ties in input order); above 15 documents quicksort's partitions shuffle ties in no
documented order. The metric comparisons therefore use tie-free scores.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import ranx

import skrank

RANX_CONVENTIONS = dict(gain="linear", ties="input", empty="zero", idcg="pool",
                        ap_denominator="all", p_divisor="k")
# ranx metric -> (skrank metric, conventions beyond RANX_CONVENTIONS)
METRICS = {
    "ndcg": ("ndcg", {}),
    "ndcg@1": ("ndcg@1", {}),
    "ndcg@5": ("ndcg@5", {}),
    "ndcg@20": ("ndcg@20", {}),
    "ndcg_burges@5": ("ndcg@5", {"gain": "exp"}),
    "ndcg_burges": ("ndcg", {"gain": "exp"}),
    "map": ("ap", {}),
    "map@5": ("ap@5", {}),
    "map@40": ("ap@40", {}),
    "mrr": ("rr", {}),
    "mrr@3": ("rr@3", {}),
    "precision@1": ("p@1", {}),
    "precision@5": ("p@5", {}),
    "precision@40": ("p@40", {}),
    "recall@5": ("r@5", {}),
    "recall@40": ("r@40", {}),
    "hit_rate@1": ("hit@1", {}),
    "hit_rate@5": ("hit@5", {}),
    # relevance level 2: binary metrics take rel_min=2; ndcg zeroes the grades below 2
    "precision@5-l2": ("p@5", {"rel_min": 2}),
    "recall@5-l2": ("r@5", {"rel_min": 2}),
    "map@10-l2": ("ap@10", {"rel_min": 2}),
    "mrr-l2": ("rr", {"rel_min": 2}),
    "hit_rate@3-l2": ("hit@3", {"rel_min": 2}),
    "ndcg@10-l2": ("ndcg@10", {"gain": (0.0, 0.0, 2.0, 3.0)}),
}


def ranx_evaluate(qrels, run, metrics):
    with warnings.catch_warnings():  # numba's NumbaTypeSafetyWarning inside ranx
        warnings.simplefilter("ignore")
        return ranx.evaluate(qrels, run, metrics, return_mean=False)


def random_collection(seed, *, n_topics=40, max_docs=30, tie_free=True):
    """qrels and run dicts with the same topics in the same (sorted) order."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(n_topics):
        topic = f"q{i:03d}"
        n = int(rng.integers(2, max_docs + 1))
        docs = [f"d{j}" for j in rng.permutation(10 * max_docs)[:n]]
        labels = rng.integers(0, 4, n)
        if i % 6 == 0:
            labels[:] = 0  # nothing relevant
        judged = rng.random(n) < 0.85
        judged[0] = True
        n_ret = int(rng.integers(1, n + 1))
        if tie_free:
            scores = rng.permutation(n_ret) + rng.random()
        else:
            scores = rng.integers(0, 3, n_ret) / 2.0
        qrels[topic] = {d: int(lab) for d, lab, j in zip(docs, labels, judged) if j}
        run[topic] = {d: float(s) for d, s in zip(docs[:n_ret], scores)}
    return qrels, run


def flat(qrels, run, *, reverse=False):
    """skrank rows: each query's run in dict order (or reversed), then its missed judgements."""
    qid, y, s, ret = [], [], [], []
    for t, docs in run.items():
        items = list(docs.items())
        for d, score in items[::-1] if reverse else items:
            qid.append(t)
            y.append(qrels[t].get(d, 0))
            s.append(score)
            ret.append(True)
        for d, label in qrels[t].items():
            if d not in docs:
                qid.append(t)
                y.append(label)
                s.append(0.0)
                ret.append(False)
    return {"y_true": np.array(y, dtype=np.float64), "y_score": np.array(s),
            "qid": np.array(qid), "retrieved": np.array(ret)}


def skrank_per_query(data, metric, **conventions):
    res = skrank.evaluate(**data, metrics=[metric], **{**RANX_CONVENTIONS, **conventions})
    return res.qids, res[metric].per_query


@pytest.mark.parametrize("seed", range(3))
def test_ranx_metrics_on_tie_free_scores(seed):
    qrels, run = random_collection(seed)
    reference = ranx_evaluate(qrels, run, list(METRICS))
    data = flat(qrels, run)
    for ranx_name, (name, conventions) in METRICS.items():
        qids, got = skrank_per_query(data, name, **conventions)
        assert qids.tolist() == list(run)  # ranx's per-query order is the dict's
        np.testing.assert_allclose(got, reference[ranx_name], rtol=1e-12, atol=0,
                                   err_msg=ranx_name)
    # the data has what the conventions are about
    assert (~data["retrieved"]).any() and (data["y_true"][data["retrieved"]] > 0).any()
    assert (reference["ndcg"] == 0).any()


def test_conventions_that_do_not_match_ranx():
    """Each convention above matters: the LTR defaults differ from ranx on this data."""
    qrels, run = random_collection(0)
    reference = ranx_evaluate(qrels, run, ["ndcg@5", "map@5", "precision@40", "ndcg"])
    data = flat(qrels, run)
    for ranx_name, name, change in (
        ("ndcg@5", "ndcg@5", {"gain": "exp"}),
        ("ndcg", "ndcg", {"idcg": "ranked"}),
        ("map@5", "ap@5", {"ap_denominator": "min_k"}),
        ("precision@40", "p@40", {"p_divisor": "min_k_n"}),
    ):
        got = skrank_per_query(data, name, **change)[1]
        assert not np.allclose(got, reference[ranx_name], rtol=1e-6), ranx_name


# -- ties -------------------------------------------------------------------------------

TIE_METRICS = {"ndcg@5": "ndcg@5", "map": "ap", "mrr": "rr", "precision@3": "p@3"}


def test_evaluate_dicts_ranks_ties_in_reverse_input_order_up_to_15_documents():
    qrels, run = random_collection(1, max_docs=15, tie_free=False)
    reference = ranx_evaluate(qrels, run, list(TIE_METRICS))
    forward, backward = flat(qrels, run), flat(qrels, run, reverse=True)
    differs = False
    for ranx_name, name in TIE_METRICS.items():
        np.testing.assert_allclose(skrank_per_query(backward, name)[1], reference[ranx_name],
                                   rtol=1e-12, atol=0, err_msg=ranx_name)
        differs |= not np.allclose(skrank_per_query(forward, name)[1], reference[ranx_name])
    assert differs  # the ties do change the values


def test_run_objects_rank_ties_in_input_order_up_to_15_documents():
    qrels, run = random_collection(2, max_docs=15, tie_free=False)
    run_obj = ranx.Run(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(ranx.Qrels(qrels), run_obj, list(TIE_METRICS))
    forward, backward = flat(qrels, run), flat(qrels, run, reverse=True)
    differs = False
    for ranx_name, name in TIE_METRICS.items():
        qids, got = skrank_per_query(forward, name)
        reference = np.array([run_obj.scores[ranx_name][q] for q in qids])
        np.testing.assert_allclose(got, reference, rtol=1e-12, atol=0, err_msg=ranx_name)
        differs |= not np.allclose(skrank_per_query(backward, name)[1], reference)
    assert differs


def test_longer_tied_queries_get_some_order_within_the_tie_bounds():
    """Above 15 documents ranx's order of ties is quicksort's: one of the possible orders."""
    qrels, run = random_collection(3, max_docs=40, tie_free=False)
    reference = ranx_evaluate(qrels, run, list(TIE_METRICS))
    data = flat(qrels, run)
    spread = False
    for ranx_name, name in TIE_METRICS.items():
        lo = skrank_per_query(data, name, ties="pessimistic")[1]
        hi = skrank_per_query(data, name, ties="optimistic")[1]
        assert np.all(lo - 1e-12 <= reference[ranx_name]), ranx_name
        assert np.all(reference[ranx_name] <= hi + 1e-12), ranx_name
        spread |= bool((lo < hi).any())
    assert spread
