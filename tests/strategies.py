"""Hypothesis strategies for grouped ranking data with ties and empty queries."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


@st.composite
def grouped_data(draw, max_queries=5, max_size=7, max_label=3, n_scores=3, contiguous=None):
    """(y_true, y_score, qid) with few distinct scores (many ties) and some empty queries."""
    n_q = draw(st.integers(1, max_queries))
    sizes = [draw(st.integers(1, max_size)) for _ in range(n_q)]
    labels, scores, qids = [], [], []
    for q, size in enumerate(sizes):
        labels += draw(st.lists(st.integers(0, max_label), min_size=size, max_size=size))
        scores += draw(
            st.lists(st.integers(0, n_scores - 1), min_size=size, max_size=size)
        )
        qids += [q * 7 + 3] * size
    y_true = np.array(labels, dtype=np.int64)
    y_score = np.array(scores, dtype=np.float64) / 4.0
    qid = np.array(qids, dtype=np.int64)
    shuffle = draw(st.booleans()) if contiguous is None else not contiguous
    if shuffle:
        perm = np.array(draw(st.permutations(list(range(len(qid))))), dtype=np.int64)
        y_true, y_score, qid = y_true[perm], y_score[perm], qid[perm]
    return y_true, y_score, qid
