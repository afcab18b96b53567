"""LightGBM integration: training-time metrics, early stopping and a ranker that takes ``qid``.

LightGBM itself is imported only when one of these objects is used
(``pip install 'skrank[lightgbm]'``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _lazy

__all__: list[str] = []

# the ranker adapter

# Lazily imported names: public name -> private module that defines it (and imports lightgbm).
_LAZY: dict[str, str] = {"LGBMRanker": "skrank.integrations._lgbm_ranker"}
__all__ += ["LGBMRanker"]

if TYPE_CHECKING:  # for type checkers and linters; at run time see __getattr__
    from .integrations._lgbm_ranker import LGBMRanker


# Import lightgbm only when one of its objects is first used.
__getattr__, __dir__ = _lazy.lazy_attributes(globals(), _LAZY)


# the training-time metrics
_LAZY["early_stopping"] = "skrank.integrations._lgbm_metric"
_LAZY["eval_metric"] = "skrank.integrations._lgbm_metric"
_LAZY["feval"] = "skrank.integrations._lgbm_metric"
__all__ += ["early_stopping", "eval_metric", "feval"]

if TYPE_CHECKING:
    from .integrations._lgbm_metric import early_stopping, eval_metric, feval
