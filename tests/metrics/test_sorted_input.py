"""Rows already in rank order: the general kernel's selection takes them as they are (one
comparison a row) instead of heap-sorting them; the numbers must be those of any other
order of the same rows, bit for bit (the selection is the same)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank import evaluate

METRICS = ["ap", "ndcg", "ndcg@40", "p@35", "r@50", "rr", "err@40"]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(33, 120),
       st.sampled_from(["docid", "pessimistic", "optimistic"]))
def test_rows_in_rank_order_give_the_shuffled_rows_numbers(seed, n_q, n, ties):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_q), n)
    score = rng.integers(0, 6, size=qid.size).astype(np.float64)  # many ties
    label = rng.integers(0, 3, size=qid.size)
    doc = np.concatenate([rng.permutation(n) for _ in range(n_q)])
    retrieved = rng.random(qid.size) < 0.9
    score[~retrieved] = -np.inf
    # rank order within each query: score descending, then the tie rule's order
    tie = {"docid": -doc, "pessimistic": label, "optimistic": -label}[ties]
    ranked = np.lexsort((tie, -score, qid))
    shuffled = np.concatenate([rng.permutation(np.flatnonzero(qid == q)) for q in range(n_q)])
    kw = dict(metrics=METRICS, ties=ties, idcg="pool", max_label=2)
    a = evaluate(label[ranked], score[ranked], qid[ranked], doc_id=doc[ranked],
                 retrieved=retrieved[ranked], **kw)
    b = evaluate(label[shuffled], score[shuffled], qid[shuffled], doc_id=doc[shuffled],
                 retrieved=retrieved[shuffled], **kw)
    for m in METRICS:
        np.testing.assert_equal(a[m].per_query, b[m].per_query)
        assert a[m].n_tie_affected == b[m].n_tie_affected


@pytest.mark.parametrize("n", [33, 200])
def test_a_pair_out_of_order_at_the_end_is_sorted(n):
    score = np.arange(n, 0, -1, dtype=np.float64)
    score[[-2, -1]] = score[[-1, -2]]  # in order but for the last pair
    label = np.zeros(n, dtype=np.int64)
    label[-2] = 1
    res = evaluate(label, score, np.zeros(n, dtype=np.int64), metrics=["ap", "rr"])
    assert res["rr"].value == 1 / n and res["ap"].value == 1 / n
