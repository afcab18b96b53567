"""preset="trec_eval" equals pytrec_eval at full precision on random runs.

pytrec_eval embeds trec_eval 9.0.x, which reads run scores as C float; preset="trec_eval"
(trec_eval 10) reads doubles. The two agree whenever the scores are exact in float32, as the
random scores of the first tests are (halves); runs whose scores tie only in float32 need
preset="trec_eval9" (tested at the end).

The random collections are built to hit every convention trec_eval has: heavy score ties
(broken by docno descending, compared as strings: ids of different lengths and cases), graded
labels with a relevance threshold, negative labels, retrieved documents nobody judged, judged
documents the run missed, topics without any relevant document, topics on one side only, and
queries shorter than the cutoffs.
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

import skrank

from .conftest import assert_equal_to_pytrec, flatten, pytrec_measures, trec_to_skrank

CUTOFFS = (1, 2, 3, 5, 10, 20, 30, 100)
NAMES = trec_to_skrank(CUTOFFS, CUTOFFS)
MEASURES = pytrec_measures(CUTOFFS, CUTOFFS)
ALPHABET = np.array(list("abcXYZ019-_."))


def random_collection(seed: int, n_topics: int = 40, max_docs: int = 60):
    """A random qrels/run pair as pytrec_eval takes them: ``{topic: {docno: value}}``."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(n_topics):
        topic = f"t{i}"
        n = int(rng.integers(1, max_docs))
        ids: set[str] = set()
        while len(ids) < n:
            ids.add("".join(rng.choice(ALPHABET, int(rng.integers(1, 5)))))
        docs = sorted(ids)
        rng.shuffle(docs)
        labels = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3, 4], n)
        if i % 5 == 0:
            labels = np.minimum(labels, 0)  # nothing relevant
        judged = rng.random(n) < 0.8
        n_ret = n if i % 7 == 0 else int(rng.integers(0, n + 1))
        # few distinct scores: ties everywhere
        scores = rng.integers(0, 4, n_ret) / 2.0
        if i % 11 != 3:  # topic 3 of each 11 is in the run only
            qrels[topic] = {d: int(lab) for d, lab, j in zip(docs, labels, judged) if j}
            if not qrels[topic]:
                qrels[topic] = {docs[0]: int(labels[0])}
        if n_ret and i % 13 != 4:  # topic 4 of each 13 is in the qrels only
            run[topic] = {d: float(s) for d, s in zip(docs[:n_ret], scores)}
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("relevance_level", [1, 2])
def test_random_runs_with_ties_equal_pytrec_eval(seed, relevance_level):
    qrels, run = random_collection(seed)
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, MEASURES, relevance_level=relevance_level
    ).evaluate(run)
    data = flatten(qrels, run)
    res = skrank.evaluate(**data, metrics=list(NAMES.values()), preset="trec_eval",
                          rel_min=relevance_level)
    assert_equal_to_pytrec(res, reference, NAMES)
    # the collection exercises what it claims to
    assert res["ap"].n_empty > 0
    assert res["ndcg@10"].n_tie_affected > 0
    assert (~data["retrieved"]).any()
    assert set(run) - set(qrels) and set(qrels) - set(run)


def test_random_runs_need_the_docid_tie_rule():
    """The same comparison fails under any other tie rule: the data really ties."""
    qrels, run = random_collection(0)
    reference = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    data = flatten(qrels, run)
    for ties in ("input", "pessimistic", "optimistic", "average"):
        res = skrank.evaluate(**data, metrics=list(NAMES.values()), preset="trec_eval",
                              ties=ties)
        with pytest.raises(AssertionError, match="differs from pytrec_eval"):
            assert_equal_to_pytrec(res, reference, NAMES)


def test_reordered_rows_give_the_same_values():
    """trec_eval ignores the order of the run file; so does ties="docid"."""
    qrels, run = random_collection(1)
    data = flatten(qrels, run)
    perm = np.random.default_rng(7).permutation(data["qid"].shape[0])
    shuffled = {k: v[perm] for k, v in data.items()}
    a = skrank.evaluate(**data, metrics=list(NAMES.values()), preset="trec_eval")
    b = skrank.evaluate(**shuffled, metrics=list(NAMES.values()), preset="trec_eval")
    position = {q: i for i, q in enumerate(b.qids.tolist())}
    order = [position[q] for q in a.qids.tolist()]
    assert order != list(range(len(order)))  # the topics did come in another order
    for name in NAMES.values():
        np.testing.assert_array_equal(a[name].per_query, b[name].per_query[order])


def near_tie_collection(seed: int, n_topics: int = 30, max_docs: int = 40):
    """Random runs whose scores tie in float32 only: 0.3 next to 0.30000001 and the like.

    Each score is a base value plus 0, one or a few float64 ulps of float32 noise, so that
    many scores differ in float64 and are equal once read into a C ``float``.
    """
    rng = np.random.default_rng(1000 + seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    bases = np.array([0.1, 0.3, 0.7, 1.3, 2.9])
    for i in range(n_topics):
        topic = f"t{i}"
        n = int(rng.integers(2, max_docs))
        docs = [f"d{j:03d}" for j in rng.permutation(n)]
        labels = rng.choice([0, 0, 1, 2], n)
        labels[0] = 1  # every topic has a relevant document
        base = rng.choice(bases, n)
        # below float32's resolution at these magnitudes (about 6e-8 relative): a tie in float32
        nudge = rng.choice([0.0, 1e-9, 2e-9, 1e-8], n) * base
        qrels[topic] = {d: int(lab) for d, lab in zip(docs, labels)}
        run[topic] = {d: float(s) for d, s in zip(docs, base + nudge)}
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
def test_near_ties_equal_pytrec_eval_under_trec_eval9(seed):
    """pytrec_eval embeds trec_eval 9, which reads scores into a C float (issue 13).

    preset="trec_eval9" (score_precision="float32") equals pytrec_eval on every topic of runs
    whose scores tie only in float32; preset="trec_eval" (trec_eval 10: doubles) does not.
    """
    qrels, run = near_tie_collection(seed)
    reference = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    data = flatten(qrels, run)
    s32 = data["y_score"].astype(np.float32)
    assert (np.unique(data["y_score"]).size > np.unique(s32).size)  # float32-only ties exist
    res = skrank.evaluate(**data, metrics=list(NAMES.values()), preset="trec_eval9")
    assert_equal_to_pytrec(res, reference, NAMES)
    assert res.conventions.score_precision == "float32"
    ten = skrank.evaluate(**data, metrics=list(NAMES.values()), preset="trec_eval")
    with pytest.raises(AssertionError, match="differs from pytrec_eval"):
        assert_equal_to_pytrec(ten, reference, NAMES)


def test_float32_tie_example_of_issue_13():
    """Scores 0.30000001 (non-relevant "a") and 0.3 (relevant "b"): trec_eval 10 orders by
    the double (RR 0.5); trec_eval 9.0.8 and pytrec_eval see a tie broken by docno
    descending ("b" first, RR 1.0)."""
    qrels = {"q": {"a": 0, "b": 1}}
    run = {"q": {"a": 0.30000001, "b": 0.3}}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert ref["q"]["recip_rank"] == 1.0
    data = flatten(qrels, run)
    assert skrank.evaluate(**data, metrics=["rr"], preset="trec_eval9")["rr"].value == 1.0
    assert skrank.evaluate(**data, metrics=["rr"], preset="trec_eval")["rr"].value == 0.5
