"""skrank: honest, convention-explicit and fast ranking evaluation.

The public API lives here; modules whose names start with an underscore are private.
``import skrank`` loads the version and the exceptions only: every other name is imported
on first use, NumPy with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _lazy
from ._version import __version__
from .exceptions import (
    EmptyQueryError,
    InputError,
    InvalidParameterError,
    SkrankError,
    SkrankWarning,
)

# Imported on first use (NumPy and the metrics with it): public name -> its module. The
# deprecated scorer aliases and the submodules that the facade used to load are kept
# reachable, out of __all__.
_LAZY: dict[str, str] = {
    "Conventions": "skrank.conventions",
    "evaluate": "skrank.metrics._evaluate",
    **dict.fromkeys(["average_precision", "dcg", "err", "hit_rate", "ndcg", "precision",
                     "recall", "reciprocal_rank"], "skrank.metrics._functions"),
    "EvaluationResult": "skrank.metrics._result",
    "MetricResult": "skrank.metrics._result",
    "Metric": "skrank.metrics._spec",
    **dict.fromkeys(["average_precision_at", "dcg_at", "err_at", "get_ranking_scorer",
                     "get_ranking_scorer_names", "get_scorer", "get_scorer_names",
                     "hit_rate_at", "make_ranking_scorer", "map_at", "mrr_at", "ndcg_at",
                     "precision_at", "recall_at", "reciprocal_rank_at"], "skrank.scorers"),
    "conventions": "skrank.conventions",
    "metrics": "skrank.metrics",
    "scorers": "skrank.scorers",
}

if TYPE_CHECKING:  # for type checkers and linters; at run time see __getattr__
    from . import conventions, metrics, scorers  # noqa: F401 (submodules, out of __all__)
    from .conventions import Conventions
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

__getattr__, __dir__ = _lazy.lazy_attributes(globals(), _LAZY)

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
