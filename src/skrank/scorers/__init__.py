"""Scikit-learn scorers for ranking metrics, with explicit conventions.

Each scorer ranks the rows of every query by the estimator's predictions and averages the
metric over queries, so ``cross_validate``, ``GridSearchCV``, ``validation_curve`` and friends
score rankers query by query. The query ids come from scikit-learn's metadata routing
(``qid`` or ``groups``) or from a ``qid`` column of a DataFrame ``X``; see
:doc:`/cross_validation`.

The same names are exported by :mod:`skrank`.
"""

from __future__ import annotations

from ._scorer import (
    MultiMetricRankingScorer,
    RankingScorer,
    dcg_at,
    err_at,
    get_scorer,
    get_scorer_names,
    hit_rate_at,
    make_ranking_scorer,
    map_at,
    mrr_at,
    ndcg_at,
    precision_at,
    recall_at,
)

__all__ = [
    "MultiMetricRankingScorer",
    "RankingScorer",
    "dcg_at",
    "err_at",
    "get_scorer",
    "get_scorer_names",
    "hit_rate_at",
    "make_ranking_scorer",
    "map_at",
    "mrr_at",
    "ndcg_at",
    "precision_at",
    "recall_at",
]
