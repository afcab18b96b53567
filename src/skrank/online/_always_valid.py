"""Always-valid inference for a difference in means: mixture sequential tests (private).

A team that looks at an experiment every day and stops at the first significant result needs
p-values and intervals that stay valid at every look, whatever the stopping rule. A mixture
sequential probability ratio test gives them: the likelihood ratio of "effect theta" against
"no effect", averaged over a normal mixing distribution of theta, is a martingale under the
null, so by Ville's inequality it exceeds ``1 / alpha`` with probability at most ``alpha``
ever. Conventions named here because they change the numbers:

- ``method="normal"``: the normal-mixture mSPRT of Johari, Koomen, Pekelis and Walsh ("Always
  valid inference", Operations Research 2022) on the difference of means ``d`` with its
  plug-in variance ``V = s_c^2 / n_c + s_t^2 / n_t`` (Welch's, the estimator of
  :func:`analyze_experiment`) and mixing distribution ``N(0, tau^2)``:
  ``Lambda = sqrt(V / (V + tau^2)) exp(tau^2 d^2 / (2 V (V + tau^2)))``; the confidence
  sequence is ``d -/+ sqrt(V (V + tau^2) / tau^2 (log((V + tau^2) / V) - 2 log alpha))``.
- ``method="t"``: the anytime-valid t-test of Lindon, Ham, Tingley and Bojinov ("Anytime-valid
  linear models and regression adjusted causal inference", 2024), the form of savvi's
  ``LinearRegression``: the regression ``y ~ 1 + treated`` (pooled residual variance), a
  mixture of scale ``phi`` on the coefficient, ``nu = n - 3`` degrees of freedom, no known
  variance needed.
- The always-valid p-value is the running minimum of ``1 / Lambda`` (capped at 1) and the
  interval the running intersection of the confidence sequence, as in Johari et al. and savvi.
- Looks: the units seen up to and including each value of ``look`` (a day, an hour), in
  increasing order; each look analyses every unit so far.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .._validation import Options, param_error, validate_params
from ..stats._checks import OPEN_UNIT
from ._experiment import _as_frame, _column, _two_arms
from ._sequential_results import AlwaysValidResult

__all__ = ["ALWAYS_VALID_METHODS", "always_valid_test"]

ALWAYS_VALID_METHODS = ("normal", "t")
_CALLER = "always_valid_test"


def _positive(name: str, value: Any) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok and math.isfinite(value) and value > 0:
        return float(value)
    raise param_error(name, "a finite real number > 0", value, _CALLER)


def _cumulative(y: np.ndarray, treated: np.ndarray, look_codes: np.ndarray, n_looks: int):
    """Per look and arm: cumulative counts, means and sums of squared deviations."""
    shift = float(y.mean()) if y.size else 0.0
    z = y - shift  # moments about a central value: no cancellation in sum of squares
    key = treated * n_looks + look_codes
    size = 2 * n_looks
    n = np.bincount(key, minlength=size).reshape(2, n_looks).cumsum(axis=1).astype(np.float64)
    s1 = np.bincount(key, weights=z, minlength=size).reshape(2, n_looks).cumsum(axis=1)
    s2 = np.bincount(key, weights=z * z, minlength=size).reshape(2, n_looks).cumsum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / n
        ss = np.maximum(s2 - s1 * mean, 0.0)
    return n, mean + shift, ss


@validate_params({"method": Options(ALWAYS_VALID_METHODS), "alpha": OPEN_UNIT})
def always_valid_test(
    data: Any,
    *,
    arm: str,
    metric: str,
    control: Any,
    look: str,
    method: str = "normal",
    mixing_variance: float | None = None,
    phi: float | None = None,
    alpha: float = 0.05,
) -> AlwaysValidResult:
    """Always-valid p-values and confidence sequences for a difference in means, per look.

    Peek every day, stop whenever: the chance that any look's always-valid p-value falls to
    ``alpha`` under the null is at most ``alpha``, and the confidence sequence holds the true
    difference at every look at once with probability at least ``1 - alpha``. A naive t-test
    repeated every day rejects a true null far more often (the test suite checks both by
    simulation, 30 daily looks).

    Parameters
    ----------
    data : pandas, polars or pyarrow DataFrame
        One row per unit: its arm, metric value and look (the day it entered the experiment).
    arm : str
        Column of the arm; exactly two arms.
    metric : str
        Column of the metric (its difference in means is tested).
    control : scalar
        The value of ``arm`` that marks the control arm.
    look : str
        Column of the look at which each unit is first analysed (day, hour: any sortable
        values); look ``k`` analyses the units whose ``look`` is at most the ``k``-th value.
    method : {"normal", "t"}, default="normal"
        ``"normal"``: Johari et al.'s normal-mixture mSPRT on the Welch z statistic, with
        ``mixing_variance``. ``"t"``: Lindon et al.'s anytime-valid t-test (savvi's
        ``LinearRegression``), with ``phi``.
    mixing_variance : float or None
        ``tau^2`` of the normal mixing distribution of the effect, in the metric's units
        squared; required by ``method="normal"``. A value near the square of the effect worth
        detecting is a good choice (the test is most powerful for effects of about ``tau``).
    phi : float or None
        Prior scale of ``method="t"`` (savvi's ``phi``; 1 when None): the mixing variance is
        ``sigma^2 / phi`` with ``sigma`` the residual standard deviation.
    alpha : float, default=0.05
        Level: the p-values are compared with it, and the confidence sequence has coverage
        ``1 - alpha``.

    Returns
    -------
    AlwaysValidResult
        Per look: units, difference, standard error, statistic, the always-valid p-value
        and interval; ``stopped_at``, the first look whose p-value reaches ``alpha``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skrank.online import always_valid_test
    >>> rng = np.random.default_rng(0)
    >>> n = 14 * 1000                                   # two weeks, 1,000 users a day
    >>> units = pd.DataFrame({"arm": rng.choice(["A", "B"], n),
    ...                       "day": np.repeat(np.arange(1, 15), 1000)})
    >>> units["sessions"] = rng.poisson(np.where(units["arm"] == "B", 3.15, 3.0))
    >>> res = always_valid_test(units, arm="arm", metric="sessions", control="A", look="day",
    ...                         mixing_variance=0.1**2)
    >>> int(res.looks[res.stopped_at])       # the first day with p <= alpha
    8
    >>> [round(float(x), 3) for x in res.ci[-1]]  # the interval on day 14
    [0.081, 0.228]
    """
    frame = _as_frame(data, _CALLER)
    for name, value in (("arm", arm), ("metric", metric), ("look", look)):
        if not isinstance(value, str) or value not in frame.columns:
            raise param_error(name, f"the name of a column of data (columns: "
                              f"{list(frame.columns)})", value, _CALLER)
    if method == "normal":
        if phi is not None:
            raise param_error("phi", "None with method='normal' (which uses mixing_variance)",
                              phi, _CALLER)
        if mixing_variance is None:
            raise param_error("mixing_variance", "a finite real number > 0 with "
                              "method='normal'", mixing_variance, _CALLER)
        scale = _positive("mixing_variance", mixing_variance)
    else:
        if mixing_variance is not None:
            raise param_error("mixing_variance", "None with method='t' (which uses phi)",
                              mixing_variance, _CALLER)
        scale = 1.0 if phi is None else _positive("phi", phi)

    treatment, treated = _two_arms(frame, arm, control, _CALLER)
    y = _column(frame, metric, "metric", _CALLER)
    looks_arr, look_codes = np.unique(frame[look].to_numpy(), return_inverse=True)
    looks = np.asarray([v.item() if isinstance(v, np.generic) else v for v in looks_arr])
    n, mean, ss = _cumulative(y, treated, look_codes.ravel(), looks_arr.size)
    n_c, n_t = n
    diff = mean[1] - mean[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "normal":
            var = ss[0] / (n_c - 1) / n_c + ss[1] / (n_t - 1) / n_t
            ready = (n_c >= 2) & (n_t >= 2) & (var > 0)
            tau2 = scale
            stat = diff / np.sqrt(var)
            log_lr = 0.5 * np.log(var / (var + tau2)) + tau2 * diff**2 / (2 * var * (var + tau2))
            radius = np.sqrt(var * (var + tau2) / tau2
                             * (np.log((var + tau2) / var) - 2 * math.log(alpha)))
        else:
            n_all = n_c + n_t
            sigma2 = (ss[0] + ss[1]) / (n_all - 2)
            var = sigma2 * (1 / n_c + 1 / n_t)
            nu = n_all - 3
            ready = (n_c >= 1) & (n_t >= 1) & (nu > 0) & (var > 0)
            stat = diff / np.sqrt(var)
            t2 = stat**2
            r = scale / (scale + sigma2 / var)
            log_lr = 0.5 * np.log(r) + 0.5 * (nu + 1) * (np.log1p(t2 / nu) - np.log1p(r * t2 / nu))
            ra = (r * alpha**2) ** (1 / (nu + 1))
            radius = np.sqrt(var * nu * (1 - ra) / np.maximum(0.0, ra - r))
    p_look = np.where(ready, np.minimum(1.0, np.exp(-log_lr)), 1.0)
    p_value = np.minimum.accumulate(p_look)
    low = np.maximum.accumulate(np.where(ready, diff - radius, -np.inf))
    high = np.minimum.accumulate(np.where(ready, diff + radius, np.inf))
    hit = np.flatnonzero(p_value <= alpha)
    return AlwaysValidResult(
        metric=metric, arm=treatment, control=control, looks=looks,
        n_control=n_c.astype(np.int64), n_arm=n_t.astype(np.int64), difference=diff,
        se=np.sqrt(var), statistic=np.where(ready, stat, np.nan), p_value=p_value,
        ci=np.column_stack([low, high]), alpha=float(alpha), method=method,
        mixing_variance=scale if method == "normal" else None,
        phi=scale if method == "t" else None,
        stopped_at=int(hit[0]) if hit.size else None,
    )
