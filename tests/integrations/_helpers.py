"""Test helpers of the ranker adapter tests: a DataFrame with a qid column, and the oracle of
how the adapters gather the rows of each query."""

from __future__ import annotations

import numpy as np
import pandas as pd


def frame(X, qid, position=0):
    """``X`` as a DataFrame (columns ``f0``, ``f1``, ...) with ``qid`` as column ``"qid"``."""
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    df.insert(position, "qid", qid)
    return df


def gathered(qid):
    """Rows gathered query by query, queries by first appearance, input order inside each.

    Returns the row order, the 0-based query code of each gathered row (non-decreasing) and
    the sizes of the queries in that order.
    """
    _, first, inverse = np.unique(qid, return_index=True, return_inverse=True)
    rank = np.argsort(np.argsort(first, kind="stable"), kind="stable")
    codes = rank[inverse]
    order = np.argsort(codes, kind="stable")
    return order, codes[order], np.bincount(codes)
