"""Fairness of exposure in rankings, with explicit conventions.

- :func:`expected_exposure`: expected exposure of a stochastic ranking (several sampled
  rankings per query) under a browsing model, against the target exposure of the ideal
  stochastic ranking, as disparity, relevance and loss (Diaz et al., CIKM 2020; the TREC
  Fair Ranking track). ``preset="expeval"`` reproduces expeval, the track's program, and
  :func:`read_expeval_qrels` and :func:`read_expeval_run` read its files.
- :func:`group_exposure`: exposure of two groups of items under a stochastic ranking policy,
  given as a doubly stochastic marginal matrix or as sampled rankings, relative to their
  merit: demographic parity, disparate treatment and disparate impact (Singh & Joachims,
  KDD 2018).

See :doc:`/fairness`.
"""

from __future__ import annotations

from ._conventions import (
    COMPARISONS,
    EXPOSURE_PRESETS,
    GRADE_RULES,
    JUDGMENT_RULES,
    MISSING_RULES,
    NORMALIZATIONS,
    POSITION_BIASES,
    USER_MODELS,
    ExposureConventions,
    GroupFairnessConventions,
)
from ._expected import expected_exposure
from ._groups import group_exposure
from ._results import (
    DocumentExposure,
    ExpectedExposure,
    ExposureScore,
    GroupExposure,
    GroupFairnessScore,
)
from ._trec import ExpevalQrels, ExpevalRun, read_expeval_qrels, read_expeval_run

__all__ = [
    "COMPARISONS",
    "EXPOSURE_PRESETS",
    "GRADE_RULES",
    "JUDGMENT_RULES",
    "MISSING_RULES",
    "NORMALIZATIONS",
    "POSITION_BIASES",
    "USER_MODELS",
    "DocumentExposure",
    "ExpectedExposure",
    "ExpevalQrels",
    "ExpevalRun",
    "ExposureConventions",
    "ExposureScore",
    "GroupExposure",
    "GroupFairnessConventions",
    "GroupFairnessScore",
    "expected_exposure",
    "group_exposure",
    "read_expeval_qrels",
    "read_expeval_run",
]
