"""Novelty effects: the effect by exposure day and a test for a trend (private).

A new ranker can win at first because it is new (users click on what changed) and fade, or
lose at first and grow on users who learn it. The effect by day since first exposure (or by
cohort, the day units entered) shows it. Conventions named here because they change the
numbers:

- Each row is a unit on one day (``day``: days since the unit's first exposure, or its
  cohort); the effect of a day is the difference of the means of ``metric`` on that day,
  arm minus control, with Welch's standard error, as :func:`analyze_experiment`.
- The trend test is the weighted least-squares regression of the daily effect on ``day``,
  weights ``1 / se_day**2`` taken as known (inverse-variance weighting, no estimated scale),
  slope tested by a z test; the early-versus-late contrast is the inverse-variance weighted
  mean effect of the days ``<= early_days`` against that of the later days. Both treat the
  days' estimates as independent: exact for cohorts (each unit on one day); when the same
  users are measured every day their days are positively correlated, which inflates the
  slope's true variance less than it inflates each day's (a common user effect cancels in a
  slope), so the test stays close to its level.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special
from scipy import stats as sp_stats

from .._validation import param_error, validate_params
from ..stats._checks import OPEN_UNIT, POSITIVE_INT
from ._experiment import _as_frame, _column, _two_arms
from ._sequential_results import NoveltyResult
from ._utils import input_error

__all__ = ["novelty_test"]

_CALLER = "novelty_test"


@validate_params({"early_days": POSITIVE_INT, "confidence_level": OPEN_UNIT})
def novelty_test(
    data: Any,
    *,
    arm: str,
    metric: str,
    control: Any,
    day: str,
    early_days: int = 3,
    confidence_level: float = 0.95,
) -> NoveltyResult:
    """The effect by exposure day, with tests for a trend (novelty or learning effects).

    Parameters
    ----------
    data : pandas, polars or pyarrow DataFrame
        One row per unit and day: the unit's arm, its day (days since its first exposure,
        or its cohort) and its metric on that day.
    arm : str
        Column of the arm; exactly two arms.
    metric : str
        Column of the metric.
    control : scalar
        The value of ``arm`` that marks the control arm.
    day : str
        Column of the day (integers or reals: the regression uses their values).
    early_days : int, default=3
        Days ``<= early_days`` (in the day column's values, counted from its smallest) form
        the early period of the early-versus-late contrast.
    confidence_level : float, default=0.95
        Level of the daily intervals.

    Returns
    -------
    NoveltyResult
        Per day: units, effect, standard error and interval; the slope of the effect per day
        with its standard error and p-value; the early and late effects and the p-value of
        their difference; :meth:`NoveltyResult.plot` draws them (matplotlib).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skrank.online import novelty_test
    >>> rng = np.random.default_rng(0)
    >>> days = np.repeat(np.arange(1, 15), 4000)          # 4,000 user-days a day
    >>> arm = rng.choice(["old", "new"], days.size)
    >>> lift = 0.05 + 0.3 * np.exp(-days / 3)             # a novelty effect that fades
    >>> units = pd.DataFrame({"arm": arm, "day": days,
    ...                       "clicks": rng.poisson(2 + lift * (arm == "new"))})
    >>> res = novelty_test(units, arm="arm", metric="clicks", control="old", day="day")
    >>> res.slope < 0, res.slope_p_value < 0.001
    (True, True)
    >>> round(res.early_effect, 3), round(res.late_effect, 3)
    (0.223, 0.082)
    """
    frame = _as_frame(data, _CALLER)
    for name, value in (("arm", arm), ("metric", metric), ("day", day)):
        if not isinstance(value, str) or value not in frame.columns:
            raise param_error(name, f"the name of a column of data (columns: "
                              f"{list(frame.columns)})", value, _CALLER)
    treatment, treated = _two_arms(frame, arm, control, _CALLER)
    y = _column(frame, metric, "metric", _CALLER)
    d_raw = _column(frame, day, "day", _CALLER)
    days, d_codes = np.unique(d_raw, return_inverse=True)
    k = days.size
    key = treated * k + d_codes.ravel()
    shift = float(y.mean())
    z = y - shift
    n = np.bincount(key, minlength=2 * k).reshape(2, k).astype(np.float64)
    if (n < 2).any():
        a, j = np.argwhere(n < 2)[0]
        raise input_error("data", "at least 2 units of each arm on every day",
                          f"{int(n[a, j])} in arm {[control, treatment][a]!r} on day "
                          f"{days[j]:g}", _CALLER)
    s1 = np.bincount(key, weights=z, minlength=2 * k).reshape(2, k)
    s2 = np.bincount(key, weights=z * z, minlength=2 * k).reshape(2, k)
    mean = s1 / n
    var = np.maximum(s2 - s1 * mean, 0.0) / (n - 1)
    effect = mean[1] - mean[0]
    a_, b_ = var[0] / n[0], var[1] / n[1]
    se = np.sqrt(a_ + b_)
    if (se == 0).any():
        j = int(np.flatnonzero(se == 0)[0])
        raise input_error("metric", "values that vary within each day",
                          f"a constant metric on day {days[j]:g}", _CALLER)
    df = (a_ + b_) ** 2 / (a_**2 / (n[0] - 1) + b_**2 / (n[1] - 1))
    half = sp_stats.t.ppf(0.5 + confidence_level / 2, df) * se
    w = 1 / se**2
    if k >= 2:
        dbar = float(w @ days / w.sum())
        sxx = float(w @ (days - dbar) ** 2)
        slope = float(w @ ((days - dbar) * effect) / sxx)
        slope_se = math.sqrt(1 / sxx)
        slope_p = float(2 * special.ndtr(-abs(slope / slope_se)))
    else:
        slope = slope_se = slope_p = math.nan
    early = days <= days[0] + early_days - 1
    if early.all() or not early.any():
        e_eff = l_eff = diff_p = math.nan
    else:
        e_eff = float(w[early] @ effect[early] / w[early].sum())
        l_eff = float(w[~early] @ effect[~early] / w[~early].sum())
        diff_se = math.sqrt(1 / w[early].sum() + 1 / w[~early].sum())
        diff_p = float(2 * special.ndtr(-abs(e_eff - l_eff) / diff_se))
    return NoveltyResult(
        metric=metric, arm=treatment, control=control, days=days,
        n_control=n[0].astype(np.int64), n_arm=n[1].astype(np.int64), effect=effect, se=se,
        ci=np.column_stack([effect - half, effect + half]), slope=slope, slope_se=slope_se,
        slope_p_value=slope_p, early_days=int(early_days), early_effect=e_eff,
        late_effect=l_eff, early_late_p_value=diff_p, confidence_level=float(confidence_level),
    )
