"""skrank: honest, convention-explicit and fast ranking evaluation.

The public API lives here; modules whose names start with an underscore are private.
"""

from __future__ import annotations

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

__version__ = "0.1.0.dev0"

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
    "dcg",
    "err",
    "evaluate",
    "hit_rate",
    "ndcg",
    "precision",
    "recall",
    "reciprocal_rank",
]
