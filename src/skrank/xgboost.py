"""XGBoost integration: training-time metrics, early stopping and a ranker that takes ``qid``.

XGBoost itself is imported only when one of these objects is used
(``pip install 'skrank[xgboost]'``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _lazy

__all__: list[str] = []

# the ranker adapter

# Lazily imported names: public name -> private module that defines it (and imports xgboost).
_LAZY: dict[str, str] = {"XGBRanker": "skrank.integrations._xgb_ranker"}
__all__ += ["XGBRanker"]

if TYPE_CHECKING:  # for type checkers and linters; at run time see __getattr__
    from .integrations._xgb_ranker import XGBRanker


# Import xgboost only when one of its objects is first used.
__getattr__, __dir__ = _lazy.lazy_attributes(globals(), _LAZY)


# the training-time metrics
_LAZY["custom_metric"] = "skrank.integrations._xgb_metric"
_LAZY["metric_callback"] = "skrank.integrations._xgb_metric"
__all__ += ["custom_metric", "metric_callback"]

if TYPE_CHECKING:
    from .integrations._xgb_metric import custom_metric, metric_callback
