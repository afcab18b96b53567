"""Recommender evaluation: top-k lists from score matrices, accuracy through the ranking core
(users are queries), beyond-accuracy metrics with named conventions, sampled-negative
evaluation and popularity segments. See :doc:`/recsys`.
"""

from __future__ import annotations

from ._accuracy import evaluate_scores, evaluate_top_k, query_arrays
from ._topk import TOPK_TIE_RULES, TopK, top_k

__all__ = [
    "TOPK_TIE_RULES",
    "TopK",
    "evaluate_scores",
    "evaluate_top_k",
    "query_arrays",
    "top_k",
]
