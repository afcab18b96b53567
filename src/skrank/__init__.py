"""skrank: honest, convention-explicit and fast ranking evaluation.

The public API lives here; modules whose names start with an underscore are private.
"""

from __future__ import annotations

from ._version import __version__
from .conventions import Conventions
from .exceptions import (
    EmptyQueryError,
    InputError,
    InvalidParameterError,
    SkrankError,
    SkrankWarning,
)
from .metrics._evaluate import evaluate
from .metrics._functions import (
    average_precision,
    dcg,
    err,
    hit_rate,
    ndcg,
    precision,
    recall,
    reciprocal_rank,
)
from .metrics._result import EvaluationResult, MetricResult
from .metrics._spec import Metric
from .scorers import (
    average_precision_at,
    dcg_at,
    err_at,
    get_ranking_scorer,
    get_ranking_scorer_names,
    get_scorer,  # noqa: F401 (deprecated alias, kept out of __all__)
    get_scorer_names,  # noqa: F401 (deprecated alias, kept out of __all__)
    hit_rate_at,
    make_ranking_scorer,
    map_at,  # noqa: F401 (deprecated alias, kept out of __all__)
    mrr_at,  # noqa: F401 (deprecated alias, kept out of __all__)
    ndcg_at,
    precision_at,
    recall_at,
    reciprocal_rank_at,
)

__all__ = [
    "Conventions",
    "EmptyQueryError",
    "EvaluationResult",
    "InputError",
    "InvalidParameterError",
    "Metric",
    "MetricResult",
    "SkrankError",
    "SkrankWarning",
    "__version__",
    "average_precision",
    "average_precision_at",
    "dcg",
    "dcg_at",
    "err",
    "err_at",
    "evaluate",
    "get_ranking_scorer",
    "get_ranking_scorer_names",
    "hit_rate",
    "hit_rate_at",
    "make_ranking_scorer",
    "ndcg",
    "ndcg_at",
    "precision",
    "precision_at",
    "recall",
    "recall_at",
    "reciprocal_rank",
    "reciprocal_rank_at",
]
