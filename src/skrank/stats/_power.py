"""Power of the paired t-test and the minimum detectable difference.

With ``n`` queries whose differences have standard deviation ``sd``, the paired t statistic
follows a noncentral t distribution with ``n - 1`` degrees of freedom and noncentrality
``delta * sqrt(n) / sd`` when the true mean difference is ``delta``. The power is the probability
that it falls beyond the critical value; the minimum detectable difference (MDD) is the ``delta``
at which the power reaches its target. ``method="normal"`` replaces both distributions with the
standard normal (the familiar ``(z_{1-alpha/2} + z_{power}) * sd / sqrt(n)``; slightly smaller).

These are statsmodels' ``TTestPower().power`` and ``normal_power`` (``tests/stats/test_power.py``
checks them against statsmodels on random designs with Hypothesis). skrank keeps its own closed
forms, a few lines over ``scipy.special``, because statsmodels is a heavy dependency that only
the tests install; they also stay defined where SciPy's noncentral t underflows (statsmodels
answers NaN there), and the MDD is solved to 1e-12 (statsmodels' ``solve_power`` stops near
1e-5 and can stop on a wrong bracket).
"""

from __future__ import annotations

import math

from .._validation import Interval, Options, param_error, public_name, validate_params
from ._checks import ALTERNATIVE, NONNEG_REAL, OPEN_UNIT, LazyModule

__all__ = ["minimum_detectable_difference", "power"]

optimize = LazyModule("scipy.optimize")
special = LazyModule("scipy.special")

_METHODS = ("t", "normal")


def _tail(crit: float, shift: float, df: int, method: str) -> float:
    """P(T > crit) for T of noncentrality ``shift`` (noncentral t, or normal).

    A negative shift is turned into the lower tail of the mirrored distribution, so that small
    tails are computed directly rather than as 1 minus a number close to 1.
    """
    if method == "normal":
        return float(special.ndtr(shift - crit))
    # The noncentral t's cdf (SciPy's nctdtr) is NaN where it underflows, below the
    # noncentrality (for a point x <= 0 it is below P(T < 0) = Phi(-shift)): it is 0 there. So
    # the upper tail is then 1, and the mirrored far tail 0. (statsmodels' TTestPower returns
    # NaN in both cases, for instance at n = 420, d_z = 1.875, alpha = 0.0078125.)
    if shift >= 0.0:
        cdf = float(special.nctdtr(df, shift, crit))
        return 1.0 - (0.0 if math.isnan(cdf) else cdf)
    p = float(special.nctdtr(df, -shift, -crit))
    return 0.0 if math.isnan(p) else p


def critical_value(alpha: float, alternative: str, df: int | None = None) -> float:
    """Critical value of a test at level ``alpha``: the quantile ``1 - alpha/2`` (two-sided)
    or ``1 - alpha`` (one-sided) of the standard normal (``df=None``) or of Student's t.

    Shared with :func:`skrank.online.sample_size_per_arm` (its ``z_a``).
    """
    q = 1.0 - (alpha / 2.0 if alternative == "two-sided" else alpha)
    return float(special.ndtri(q) if df is None else special.stdtrit(df, q))


def _critical(alpha: float, n: int, alternative: str, method: str) -> float:
    return critical_value(alpha, alternative, n - 1 if method == "t" else None)


def _power_std(effect: float, n: int, alpha: float, alternative: str, method: str,
               crit: float | None = None) -> float:
    """Power for a standardised effect ``delta / sd`` (signed).

    By symmetry P(T < -c | shift) = P(T > c | -shift), so every tail is an upper tail.
    """
    if crit is None:
        crit = _critical(alpha, n, alternative, method)
    shift = effect * math.sqrt(n)
    df = n - 1
    if alternative == "two-sided":
        return _tail(crit, shift, df, method) + _tail(crit, -shift, df, method)
    return _tail(crit, shift if alternative == "greater" else -shift, df, method)


# what power and minimum_detectable_difference declare alike
_COMMON = {"n": Interval(int, 2), "sd": NONNEG_REAL, "alpha": OPEN_UNIT,
           "alternative": ALTERNATIVE, "method": Options(_METHODS)}


@validate_params({**_COMMON, "difference": Interval(float)})
def power(
    n: int,
    sd: float,
    difference: float,
    *,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    method: str = "t",
) -> float:
    """Power of the paired t-test to detect a true mean difference.

    Parameters
    ----------
    n : int
        Number of queries (pairs), at least 2.
    sd : float
        Standard deviation of the per-query differences (``> 0``).
    difference : float
        True mean difference ``a - b`` (signed: with ``alternative="less"`` a decrease is
        negative).
    alpha : float, default=0.05
        Significance level, in (0, 1).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis of the test.
    method : {"t", "normal"}, default="t"
        ``"t"``: exact under normal differences (noncentral t); ``"normal"``: large-sample
        approximation.

    Returns
    -------
    float
        The probability of rejecting the null hypothesis.

    Notes
    -----
    The power of statsmodels' ``TTestPower`` (``method="t"``) and ``normal_power``
    (``"normal"``), computed here in closed form over ``scipy.special`` so that statsmodels, a
    heavy dependency, is needed by the tests only.

    Examples
    --------
    A standardised effect ``d_z = 0.5`` needs 34 pairs for 80% power (Cohen 1988; G*Power gives
    an actual power of 0.8078 at n = 34):

    >>> from skrank.stats import power
    >>> round(power(34, 1.0, 0.5), 4)
    0.8078
    """
    n, sd, alpha, difference = int(n), float(sd), float(alpha), float(difference)
    if sd == 0.0:
        raise param_error("sd", "a finite real number > 0", sd, public_name())
    return _power_std(difference / sd, n, alpha, alternative, method)


@validate_params({**_COMMON, "power": OPEN_UNIT})
def minimum_detectable_difference(
    n: int,
    sd: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "two-sided",
    method: str = "t",
) -> float:
    """Smallest true mean difference a paired t-test detects with the given power.

    Parameters
    ----------
    n : int
        Number of queries (pairs), at least 2.
    sd : float
        Standard deviation of the per-query differences (``>= 0``); with observed data, their
        sample standard deviation.
    alpha : float, default=0.05
        Significance level, in (0, 1).
    power : float, default=0.8
        Target power, in the open interval (``alpha``, 1): ``alpha`` is the power at a zero
        difference.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis. For ``"less"`` the result is the size of the smallest
        detectable decrease (a positive number).
    method : {"t", "normal"}, default="t"
        ``"t"`` solves the noncentral-t power equation exactly; ``"normal"`` uses normal
        quantiles (about ``(z_{1-alpha/2} + z_{power}) * sd / sqrt(n)``).

    Returns
    -------
    float
        The minimum detectable difference, in the units of the metric (``0.0`` when
        ``sd == 0``).

    Notes
    -----
    The root of the power equation (:func:`power`), found by Brent's method to 1e-12: the
    effect size statsmodels' ``TTestPower().solve_power`` looks for, without statsmodels (a
    heavy, test-only dependency) and more precisely.

    Examples
    --------
    With 40 queries and differences of standard deviation 0.1, only differences of about
    0.045 NDCG or more are detected 80% of the time:

    >>> from skrank.stats import minimum_detectable_difference
    >>> round(minimum_detectable_difference(40, 0.1), 4)
    0.0454

    The normal approximation is ``(1.9600 + 0.8416) * 0.1 / sqrt(40)``:

    >>> round(minimum_detectable_difference(40, 0.1, method="normal"), 4)
    0.0443
    """
    n, sd, alpha, target = int(n), float(sd), float(alpha), float(power)
    if target <= alpha:  # the power at a zero difference is alpha
        raise param_error("power", f"a float in the open interval (alpha, 1) = ({alpha:g}, 1)",
                          power, public_name())
    if sd == 0.0:
        return 0.0
    sign = -1.0 if alternative == "less" else 1.0

    crit = _critical(alpha, n, alternative, method)

    def gap(effect: float) -> float:
        return _power_std(sign * effect, n, alpha, alternative, method, crit) - target

    hi = 1.0
    while gap(hi) < 0.0:
        hi *= 2.0
    effect = optimize.brentq(gap, 0.0, hi, xtol=1e-12, rtol=1e-12)
    return float(effect * sd)
