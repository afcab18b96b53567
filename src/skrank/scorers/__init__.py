"""Scikit-learn scorers for ranking metrics, with explicit conventions.

Each scorer ranks the rows of every query by the estimator's predictions and averages the
metric over queries, so ``cross_validate``, ``GridSearchCV``, ``validation_curve`` and friends
score rankers query by query. The query ids come from scikit-learn's metadata routing
(``qid`` or ``groups``) or from a ``qid`` column of a DataFrame ``X``; see
:doc:`/cross_validation`.

The same names are exported by :mod:`skrank`.
"""

from __future__ import annotations

from ._scorer import MultiMetricRankingScorer, RankingScorer, make_ranking_scorer
from ._shortcuts import (
    average_precision_at,
    dcg_at,
    err_at,
    get_ranking_scorer,
    get_ranking_scorer_names,
    get_scorer,  # noqa: F401 (deprecated alias, kept out of __all__)
    get_scorer_names,  # noqa: F401 (deprecated alias, kept out of __all__)
    hit_rate_at,
    map_at,  # noqa: F401 (deprecated alias, kept out of __all__)
    mrr_at,  # noqa: F401 (deprecated alias, kept out of __all__)
    ndcg_at,
    precision_at,
    recall_at,
    reciprocal_rank_at,
)

__all__ = [
    "MultiMetricRankingScorer",
    "RankingScorer",
    "average_precision_at",
    "dcg_at",
    "err_at",
    "get_ranking_scorer",
    "get_ranking_scorer_names",
    "hit_rate_at",
    "make_ranking_scorer",
    "ndcg_at",
    "precision_at",
    "recall_at",
    "reciprocal_rank_at",
]
