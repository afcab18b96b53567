"""Uplift metrics with explicit conventions: Qini and uplift curves, their areas, uplift@k.

Names and argument order follow scikit-uplift (``sklift.metrics``); every choice on which
scikit-uplift and causalml differ is a named, validated convention (see
:class:`UpliftConventions`), and ``preset="sklift"`` or ``preset="causalml"`` reproduces each
library. Scores print their conventions and behave as floats; curves unpack as ``x, y``
arrays and draw themselves with ``.plot()``. See :doc:`/uplift`.
"""

from __future__ import annotations

from ._at_k import uplift_at_k, uplift_by_percentile
from ._conventions import (
    AREAS,
    BASELINES,
    EMPTY_GROUP_RULES,
    NORMALIZATIONS,
    UPLIFT_PRESETS,
    UPLIFT_TIE_RULES,
    UpliftConventions,
)
from ._curves import (
    perfect_qini_curve,
    perfect_uplift_curve,
    qini_auc_score,
    qini_curve,
    uplift_auc_score,
    uplift_curve,
)
from ._results import UpliftByPercentile, UpliftCurve, UpliftScore
from ._scorer import UpliftScorer, make_uplift_scorer

__all__ = [
    "AREAS",
    "BASELINES",
    "EMPTY_GROUP_RULES",
    "NORMALIZATIONS",
    "UPLIFT_PRESETS",
    "UPLIFT_TIE_RULES",
    "UpliftByPercentile",
    "UpliftConventions",
    "UpliftCurve",
    "UpliftScore",
    "UpliftScorer",
    "make_uplift_scorer",
    "perfect_qini_curve",
    "perfect_uplift_curve",
    "qini_auc_score",
    "qini_curve",
    "uplift_at_k",
    "uplift_auc_score",
    "uplift_by_percentile",
    "uplift_curve",
]
