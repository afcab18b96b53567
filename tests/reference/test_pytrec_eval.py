"""preset="trec_eval" equals pytrec_eval (trec_eval 9's code) at full precision on random runs.

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
