"""Recommender evaluation: top-k lists from score matrices, accuracy through the ranking core
(users are queries), beyond-accuracy metrics with named conventions, sampled-negative
evaluation and popularity segments. See :doc:`/recsys`.

Every beyond-accuracy definition on which Microsoft Recommenders and RecTools differ is a
named, validated convention; ``preset="recommenders"`` or ``preset="rectools"`` reproduces
each library where it defines the metric.
"""

from __future__ import annotations

from ._accuracy import evaluate_scores, evaluate_top_k, query_arrays
from ._beyond import (
    average_popularity,
    catalog_coverage,
    distributional_coverage,
    gini_index,
    novelty,
)
from ._conventions import (
    AVERAGES,
    COUNTS,
    COVERAGE_DENOMINATORS,
    GINI_ITEMS,
    LOG_BASES,
    NORMALIZERS,
    RECSYS_PRESETS,
    SERENDIPITY_DEFINITIONS,
    SHORT_LIST_RULES,
    SIMILARITIES,
    UNSEEN_RULES,
)
from ._diversity import intra_list_diversity, serendipity
from ._popularity import POPULARITY_SPLITS, PopularitySegments, popularity_segments
from ._results import RecsysScore
from ._sampled import CORRECTIONS, RANK_TIE_RULES, SampledRanks, sampled_ranks
from ._topk import TOPK_TIE_RULES, TopK, top_k

__all__ = [
    "AVERAGES",
    "CORRECTIONS",
    "COUNTS",
    "COVERAGE_DENOMINATORS",
    "GINI_ITEMS",
    "LOG_BASES",
    "NORMALIZERS",
    "POPULARITY_SPLITS",
    "RANK_TIE_RULES",
    "RECSYS_PRESETS",
    "SERENDIPITY_DEFINITIONS",
    "SHORT_LIST_RULES",
    "SIMILARITIES",
    "TOPK_TIE_RULES",
    "UNSEEN_RULES",
    "PopularitySegments",
    "RecsysScore",
    "SampledRanks",
    "TopK",
    "average_popularity",
    "catalog_coverage",
    "distributional_coverage",
    "evaluate_scores",
    "evaluate_top_k",
    "gini_index",
    "intra_list_diversity",
    "novelty",
    "popularity_segments",
    "query_arrays",
    "sampled_ranks",
    "serendipity",
    "top_k",
]
