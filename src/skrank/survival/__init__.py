"""Survival metrics with explicit conventions: Harrell's and Uno's C, time-dependent AUC, Brier.

Names and argument order follow scikit-survival (``sksurv.metrics``), so switching is a change
of import; every choice on which scikit-survival and lifelines differ is a named, validated
convention (:class:`SurvivalConventions`), and ``preset="sksurv"`` or ``preset="lifelines"``
reproduces each library. Results behave as floats, print their conventions and pair counts,
and unpack like scikit-survival's tuples. :func:`make_survival_scorer` gives scikit-learn
scorers that see the training data's censoring distribution. See :doc:`/survival`.
"""

from __future__ import annotations

from ._conventions import (
    CENSORING_SOURCES,
    ORIENTATIONS,
    SURVIVAL_PRESETS,
    TIED_RISK_RULES,
    TIED_TIME_RULES,
    SurvivalConventions,
)
from ._metrics import (
    brier_score,
    concordance_index_censored,
    concordance_index_ipcw,
    cumulative_dynamic_auc,
    integrated_brier_score,
)
from ._results import BrierScores, ConcordanceResult, SurvivalScore, TimeDependentAUC
from ._scorer import (
    SurvivalScorer,
    cumulative_auc,
    harrell_c,
    integrated_brier,
    make_survival_scorer,
    uno_c,
)

__all__ = [
    "CENSORING_SOURCES",
    "ORIENTATIONS",
    "SURVIVAL_PRESETS",
    "TIED_RISK_RULES",
    "TIED_TIME_RULES",
    "BrierScores",
    "ConcordanceResult",
    "SurvivalConventions",
    "SurvivalScore",
    "SurvivalScorer",
    "TimeDependentAUC",
    "brier_score",
    "concordance_index_censored",
    "concordance_index_ipcw",
    "cumulative_auc",
    "cumulative_dynamic_auc",
    "harrell_c",
    "integrated_brier",
    "integrated_brier_score",
    "make_survival_scorer",
    "uno_c",
]
