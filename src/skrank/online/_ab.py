"""A/B-test helpers: CTR@k, two-proportion z-test, sample size, ratio metrics (private).

Conventions named here because they change the numbers:

- CTR@k has three common definitions (``definition=`` is required): the share of impressions
  with at least one click in the top ``k`` (``"any_click"``), the mean number of clicks in the
  top ``k`` per impression (``"clicks_per_impression"``), and the click rate of each of the
  top ``k`` positions (``"positional"``).
- The z-test of two proportions uses the pooled standard error for the test statistic (the
  null hypothesis is equal rates) and the unpooled one for the confidence interval of the
  difference.
- Ratio metrics (clicks / impressions when users are randomised) are not proportions of
  independent trials: a user's impressions are correlated, so the binomial standard error is
  too small. The delta method over users gives the right one (Deng, Knoblich and Lu, KDD 2018).
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np
from scipy import special

from .._validation import (
    BOOL,
    Options,
    Satisfies,
    check_choice,
    param_error,
    validate_params,
)
from ..stats._checks import ALTERNATIVE, ALTERNATIVES, NONNEG_INT, OPEN_UNIT, POSITIVE_INT
from ..stats._power import critical_value
from ..stats._results import Interval
from ._clicks import CTR_DEFINITIONS
from ._results import RatioEstimate, ZTestResult
from ._utils import (
    as_float_array,
    check_binary,
    check_same_length,
    input_error,
    normal_ci,
    ratio_delta_var,
)

__all__ = [
    "ALTERNATIVES",
    "ctr_at_k",
    "ctr_by_position",
    "ratio_metric",
    "ratio_ztest",
    "sample_size_per_arm",
    "two_proportion_ztest",
]


def _click_matrix(clicks: Any, k: int | None, caller: str) -> np.ndarray:
    """The validated top-``k`` columns of a click log."""
    c = check_binary("clicks", as_float_array("clicks", clicks, caller, ndim=2), caller)
    if c.shape[0] == 0:
        raise input_error("clicks", "at least one impression", "0 impressions", caller)
    k = None if k is None else int(k)
    if k is not None and k > c.shape[1]:
        raise input_error("clicks", f"at least k={k} positions (pad with 0)",
                          f"{c.shape[1]} positions", caller)
    return c[:, :k] if k is not None else c


# the cutoff k of the click-log functions: None is every position
_CUTOFF = [POSITIVE_INT, None]


@validate_params({"definition": Options(CTR_DEFINITIONS), "k": _CUTOFF})
def ctr_at_k(clicks: Any, k: int | None = None, *, definition: str) -> float:
    """Click-through rate at ``k`` of a click log, under a named definition.

    Parameters
    ----------
    clicks : array-like of {0, 1} or bool, shape (n_impressions, n_positions)
        Click indicators in shown order.
    k : int or None, default=None
        Cutoff; None is every position. Impressions shorter than ``k`` should be padded
        with 0.
    definition : {"any_click", "clicks_per_impression"}
        ``"any_click"``: share of impressions with at least one click in the top ``k``.
        ``"clicks_per_impression"``: clicks in the top ``k`` divided by impressions.
        (``"positional"``, the click rate of each position, is :func:`ctr_by_position`: an
        array, not a rate; passing it here is deprecated.)

    Returns
    -------
    float

    Examples
    --------
    >>> from skrank.online import ctr_at_k
    >>> clicks = [[1, 1, 0], [0, 0, 1], [0, 0, 0], [0, 1, 0]]
    >>> ctr_at_k(clicks, 2, definition="any_click")              # 2 of 4 impressions
    0.5
    >>> ctr_at_k(clicks, 2, definition="clicks_per_impression")  # 3 clicks / 4
    0.75
    """
    caller = "ctr_at_k"
    if definition == "positional":
        warnings.warn(
            "ctr_at_k(definition='positional') is deprecated: it returns an array where "
            "ctr_at_k returns a float. Use ctr_by_position(clicks, k).",
            DeprecationWarning,
            stacklevel=2,
        )
        return ctr_by_position(clicks, k)  # type: ignore[return-value]
    top = _click_matrix(clicks, k, caller)
    if definition == "clicks_per_impression":
        return float(top.sum(axis=1).mean())
    return float(top.any(axis=1).mean())


@validate_params({"k": _CUTOFF})
def ctr_by_position(clicks: Any, k: int | None = None) -> np.ndarray:
    """Click rate of each of the top ``k`` positions of a click log.

    Parameters
    ----------
    clicks : array-like of {0, 1} or bool, shape (n_impressions, n_positions)
        Click indicators in shown order.
    k : int or None, default=None
        Number of positions; None is every position.

    Returns
    -------
    ndarray of shape (k,)

    Examples
    --------
    >>> from skrank.online import ctr_by_position
    >>> ctr_by_position([[1, 1, 0], [0, 0, 1], [0, 0, 0], [0, 1, 0]], 2).tolist()
    [0.25, 0.5]
    """
    return _click_matrix(clicks, k, "ctr_by_position").mean(axis=0)


def _p_value(z: float, alternative: str) -> float:
    if math.isnan(z):
        return math.nan
    if alternative == "two-sided":
        return float(2 * special.ndtr(-abs(z)))
    if alternative == "greater":
        return float(special.ndtr(-z))
    return float(special.ndtr(z))


@validate_params({
    "n_a": POSITIVE_INT,
    "n_b": POSITIVE_INT,
    "successes_a": NONNEG_INT,
    "successes_b": NONNEG_INT,
    "alternative": ALTERNATIVE,
    "confidence_level": OPEN_UNIT,
})
def two_proportion_ztest(
    successes_a: int,
    n_a: int,
    successes_b: int,
    n_b: int,
    *,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> ZTestResult:
    """Two-proportion z-test of arm B against arm A (e.g. CTR with any click per impression).

    ``z = (p_b - p_a) / sqrt(p (1 - p) (1/n_a + 1/n_b))`` with the pooled rate
    ``p = (x_a + x_b) / (n_a + n_b)``; the interval of ``p_b - p_a`` uses the unpooled standard
    error ``sqrt(p_a (1 - p_a) / n_a + p_b (1 - p_b) / n_b)``. Assumes independent trials:
    randomise and count per impression, or use :func:`ratio_ztest` when users are randomised
    and have several impressions each.

    Parameters
    ----------
    successes_a, n_a : int
        Successes (e.g. impressions with a click) and trials of arm A (control).
    successes_b, n_b : int
        The same for arm B (treatment).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"`` tests B > A.
    confidence_level : float, default=0.95

    Returns
    -------
    ZTestResult

    Examples
    --------
    >>> from skrank.online import two_proportion_ztest
    >>> res = two_proportion_ztest(100, 1000, 130, 1000)
    >>> round(res.z, 4), round(res.p_value, 4)
    (2.1027, 0.0355)
    """
    caller = "two_proportion_ztest"
    n_a, n_b, x_a, x_b = int(n_a), int(n_b), int(successes_a), int(successes_b)
    if x_a > n_a:
        raise param_error("successes_a", f"an int in [0, n_a={n_a}]", x_a, caller)
    if x_b > n_b:
        raise param_error("successes_b", f"an int in [0, n_b={n_b}]", x_b, caller)
    level = float(confidence_level)
    p_a, p_b = x_a / n_a, x_b / n_b
    pooled = (x_a + x_b) / (n_a + n_b)
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    diff = p_b - p_a
    z = diff / se0 if se0 > 0 else 0.0
    se = math.sqrt(p_a * (1 - p_a) / n_a + p_b * (1 - p_b) / n_b)
    return _ztest_result(p_a, p_b, se, z, alternative, level, n_a, n_b,
                         "two-proportion z-test (pooled)")


def _ztest_result(
    v_a: float, v_b: float, se: float, z: float, alternative: str, level: float, n_a: int,
    n_b: int, method: str,
) -> ZTestResult:
    diff = v_b - v_a
    if alternative == "two-sided":
        ci = normal_ci(diff, se, level)
    elif alternative == "greater":
        ci = (diff - float(special.ndtri(level)) * se, math.inf)
    else:
        ci = (-math.inf, diff + float(special.ndtri(level)) * se)
    rel = diff / v_a if v_a != 0 else math.nan
    return ZTestResult(
        value_a=float(v_a), value_b=float(v_b), difference=float(diff),
        relative_difference=float(rel), se=float(se), z=float(z),
        p_value=_p_value(z, alternative), ci=Interval(float(ci[0]), float(ci[1]), level, "normal"),
        confidence_level=level, n_a=n_a, n_b=n_b, alternative=alternative, method=method,
    )


@validate_params({
    "baseline": OPEN_UNIT,
    "alpha": OPEN_UNIT,
    "power": OPEN_UNIT,
    "relative": BOOL,
    "effect": Satisfies(lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool)
                        and v != 0 and math.isfinite(v), "a finite non-zero real number"),
    "alternative": ALTERNATIVE,
})
def sample_size_per_arm(
    baseline: float,
    effect: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "two-sided",
    relative: bool = False,
    looks: Any = None,
    spending: str = "obrien_fleming",
) -> int:
    """Trials per arm for a two-proportion z-test to detect ``effect`` with ``power``.

    ``n = (z_a sqrt(2 pbar (1 - pbar)) + z_b sqrt(p1 (1 - p1) + p2 (1 - p2)))**2 / effect**2``
    with ``p1 = baseline``, ``p2 = baseline + effect``, ``pbar = (p1 + p2) / 2``,
    ``z_a = z_{1 - alpha/2}`` (two-sided; ``z_{1 - alpha}`` one-sided) and ``z_b = z_{power}``,
    rounded up (Fleiss, *Statistical Methods for Rates and Proportions*, no continuity
    correction). This is the power of :func:`two_proportion_ztest` at that size.

    With ``looks``, the experiment will be analysed at several looks with the boundaries of
    :func:`group_sequential_bounds`: the size is the fixed one (unrounded) times the
    design's :func:`inflation_factor`, then rounded up, as gsDesign does with ``n.fix``.

    Parameters
    ----------
    baseline : float
        Rate of the control arm, in (0, 1).
    effect : float
        Difference to detect, ``p2 - p1`` (absolute), or ``p2 / p1 - 1`` when ``relative``.
    alpha : float, default=0.05
        Significance level.
    power : float, default=0.8
        Probability of detecting the effect.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
    relative : bool, default=False
        Whether ``effect`` is relative to ``baseline``.
    looks : int, array-like or None, default=None
        None for one analysis at the end; else the planned looks, as ``information`` of
        :func:`group_sequential_bounds` (a number of equally spaced looks, or fractions).
    spending : {"obrien_fleming", "pocock", "kim_demets"}, default="obrien_fleming"
        Spending function of the looks (ignored without ``looks``).

    Returns
    -------
    int

    Examples
    --------
    >>> from skrank.online import sample_size_per_arm
    >>> sample_size_per_arm(0.10, 0.01)          # 10% -> 11% CTR
    14751
    >>> sample_size_per_arm(0.10, 0.10, relative=True)
    14751
    >>> sample_size_per_arm(0.10, 0.01, looks=5)                      # O'Brien-Fleming
    15116
    >>> sample_size_per_arm(0.10, 0.01, looks=5, spending="pocock")
    17888
    """
    caller = "sample_size_per_arm"
    if looks is not None:
        from ._sequential import SPENDING_FUNCTIONS, _information

        looks = _information(looks, caller, "looks")
        check_choice("spending", spending, SPENDING_FUNCTIONS, caller)  # used with looks only
    p1 = float(baseline)
    delta = float(effect) * p1 if relative else float(effect)
    p2 = p1 + delta
    if not 0 < p2 < 1:
        raise param_error("effect", f"such that baseline + effect is in (0, 1) (it is {p2!r})",
                          effect, caller)
    if (alternative == "greater" and delta < 0) or (alternative == "less" and delta > 0):
        raise param_error("effect", f"of the sign of alternative={alternative!r}", effect, caller)
    z_a = critical_value(alpha, alternative)
    z_b = special.ndtri(power)
    pbar = (p1 + p2) / 2
    num = z_a * math.sqrt(2 * pbar * (1 - pbar)) + z_b * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    n = num**2 / delta**2
    if looks is not None:
        from ._sequential import inflation_factor

        side = "two-sided" if alternative == "two-sided" else "greater"
        n *= inflation_factor(looks, alpha=alpha, power=power, spending=spending,
                              alternative=side)
    return math.ceil(n - 1e-9)


def _ratio_parts(numerator: Any, denominator: Any, caller: str, suffix: str = "") -> tuple:
    x = as_float_array("numerator" + suffix, numerator, caller)
    y = as_float_array("denominator" + suffix, denominator, caller)
    check_same_length(caller, **{"numerator" + suffix: x, "denominator" + suffix: y})
    if x.size < 2:
        raise input_error("numerator" + suffix, "at least 2 units", f"{x.size}", caller)
    if y.sum() <= 0:
        raise input_error("denominator" + suffix, "of positive sum", repr(float(y.sum())), caller)
    r, var = ratio_delta_var(x[:, None], y)
    return float(r[0]), float(var[0]), x.size


@validate_params({"confidence_level": OPEN_UNIT})
def ratio_metric(
    numerator: Any, denominator: Any, *, confidence_level: float = 0.95
) -> RatioEstimate:
    """A ratio metric over randomisation units, with its delta-method variance.

    ``R = sum(numerator) / sum(denominator)``, e.g. clicks / impressions with one entry per
    user, and ``Var(R) ≈ (s_x² - 2 R s_xy + R² s_y²) / (n ybar²)`` from the sample
    (co)variances of the per-user sums (Deng, Knoblich and Lu, 2018).

    Parameters
    ----------
    numerator, denominator : array-like of float, shape (n_units,)
        Per-unit (per-user) sums.
    confidence_level : float, default=0.95

    Returns
    -------
    RatioEstimate

    Examples
    --------
    >>> from skrank.online import ratio_metric
    >>> res = ratio_metric([1, 3, 0, 2], [4, 6, 2, 4])
    >>> res.value                      # 6 / 16
    0.375
    >>> round(res.se, 6)
    0.091998
    """
    caller = "ratio_metric"
    level = float(confidence_level)
    r, var, n = _ratio_parts(numerator, denominator, caller)
    se = math.sqrt(var)
    return RatioEstimate(r, var, se, Interval(*normal_ci(r, se, level), level, "normal"), level, n)


@validate_params({"alternative": ALTERNATIVE, "confidence_level": OPEN_UNIT})
def ratio_ztest(
    numerator_a: Any,
    denominator_a: Any,
    numerator_b: Any,
    denominator_b: Any,
    *,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> ZTestResult:
    """z-test of a ratio metric between two arms randomised by user (delta method).

    ``z = (R_b - R_a) / sqrt(Var(R_a) + Var(R_b))`` with the delta-method variances of
    :func:`ratio_metric`.

    Parameters
    ----------
    numerator_a, denominator_a : array-like of float, shape (n_users_a,)
        Per-user sums in arm A (e.g. clicks and impressions).
    numerator_b, denominator_b : array-like of float, shape (n_users_b,)
        The same for arm B.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
    confidence_level : float, default=0.95

    Returns
    -------
    ZTestResult

    Examples
    --------
    >>> from skrank.online import ratio_ztest
    >>> res = ratio_ztest([1, 3, 0, 2], [4, 6, 2, 4], [3, 2, 4, 3], [5, 4, 6, 5])
    >>> round(res.difference, 4)       # 12/20 - 6/16
    0.225
    """
    caller = "ratio_ztest"
    level = float(confidence_level)
    r_a, v_a, n_a = _ratio_parts(numerator_a, denominator_a, caller, "_a")
    r_b, v_b, n_b = _ratio_parts(numerator_b, denominator_b, caller, "_b")
    se = math.sqrt(v_a + v_b)
    z = (r_b - r_a) / se if se > 0 else (0.0 if r_b == r_a else math.copysign(math.inf, r_b - r_a))
    return _ztest_result(r_a, r_b, se, z, alternative, level, n_a, n_b,
                         "delta-method ratio z-test")
