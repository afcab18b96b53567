"""Group-sequential boundaries by Lan-DeMets alpha spending, and look-aware planning (private).

Conventions named here because they change the numbers:

- Boundaries on the z statistic, for rejection only (no futility bound): two-sided and
  symmetric (``alternative="two-sided"``, the test at look ``k`` rejects when
  ``|z_k| >= bounds[k]``), or one-sided (``"greater"``: ``z_k >= bounds[k]``, all of
  ``alpha`` spent on the upper side, as spotify-confidence and ldbounds do per side).
- Looks are placed by their information fraction ``t_k`` (the share of the planned units
  seen, for a difference of means), in (0, 1]; z statistics of the looks are those of a
  Brownian motion, ``corr(z_i, z_j) = sqrt(t_i / t_j)``.
- Spending functions (Lan and DeMets, Biometrika 1983), ``alpha / 2`` spent on each side
  as in gsDesign, rpact and ldbounds: ``"obrien_fleming"``,
  ``alpha(t) = 4 - 4 Phi(z_{1 - alpha/4} / sqrt(t))``, spends almost nothing early;
  ``"pocock"``, ``alpha(t) = alpha log(1 + (e - 1) t)``, spends evenly;
  ``"kim_demets"``, ``alpha(t) = alpha t**rho`` (Kim and DeMets 1987, the power family;
  spotify-confidence uses ``rho=2``).
- Planning: the drift ``theta`` (the mean of ``z`` at full information) that gives the
  requested power with the boundaries, against ``z_{1 - alpha/2} + z_{power}`` without looks;
  the sample-size inflation factor is their squared ratio (Jennison and Turnbull 2000, sec.
  2.6), and a group-sequential design needs the fixed sample size times it (as gsDesign's
  ``n.fix``). Power counts a rejection in the direction of the effect, at any look (as the
  fixed-sample formula does; a two-sided design still stops on either side).
- The crossing probabilities are computed by numerical integration of the density of the
  score ``z_k sqrt(t_k)`` over the continuation region (Armitage, McPherson and Rowe, 1969),
  on a grid of ``n_grid`` Simpson nodes per look.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import optimize, special

from .._validation import Described, Interval, Options, check_int, param_error, validate_params
from ..stats._checks import OPEN_UNIT, POSITIVE_INT
from ._sequential_results import GroupSequentialBounds
from ._utils import POSITIVE_REAL

__all__ = [
    "SEQUENTIAL_ALTERNATIVES",
    "SPENDING_FUNCTIONS",
    "duration_days",
    "group_sequential_bounds",
    "inflation_factor",
]

SPENDING_FUNCTIONS = ("obrien_fleming", "pocock", "kim_demets")
SEQUENTIAL_ALTERNATIVES = ("two-sided", "greater")
_CALLER = "group_sequential_bounds"
_TAIL = 10.0  # the continuation region is cut at +-_TAIL standard deviations of the score
_PLAN_GRID = 201  # Simpson nodes per look for power: the drift agrees with 1601 nodes to 1e-9


def _spent(t: np.ndarray, alpha: float, spending: str, sides: int = 2,
           rho: float = 2.0) -> np.ndarray:
    if spending == "obrien_fleming":
        # alpha / sides on each side: 2 - 2 Phi(z_{1 - alpha / (2 sides)} / sqrt(t)) per side
        z = special.ndtri(1 - alpha / (2 * sides))
        return sides * (2 - 2 * special.ndtr(z / np.sqrt(t)))
    if spending == "kim_demets":
        return alpha * t**rho
    return alpha * np.log1p((math.e - 1) * t)


def _simpson(lo: float, hi: float, m: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(lo, hi, m)
    w = np.ones(m)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return x, w * (hi - lo) / (m - 1) / 3


def _information(information: Any, caller: str = _CALLER, name: str = "information"
                 ) -> np.ndarray:
    if isinstance(information, (int, np.integer)) and not isinstance(information, bool):
        k = check_int(name, int(information), min_value=1, caller=caller)
        return np.arange(1, k + 1) / k
    allowed = "an int >= 1 (equally spaced looks) or increasing fractions in (0, 1]"
    try:
        t = np.asarray(information, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error(name, allowed, information, caller) from None
    ok = t.ndim == 1 and t.size >= 1 and np.all(np.isfinite(t))
    if not (ok and t[0] > 0 and t[-1] <= 1 and np.all(np.diff(t) > 0)):
        raise param_error(name, allowed, information, caller)
    return t


class _Looks:
    """The density of the score ``S_k = z_k sqrt(t_k)`` on the continuation region, look by
    look (Armitage, McPherson and Rowe): ``S`` has independent normal increments of variance
    ``t_k - t_{k-1}`` and mean ``drift (t_k - t_{k-1})``."""

    def __init__(self, t: np.ndarray, drift: float, m: int) -> None:
        self.t, self.drift, self.m = t, drift, m
        self.k = 0
        self.x = self.w = self.dens = None

    def _increment(self) -> tuple[float, float]:
        prev = self.t[self.k - 1] if self.k > 0 else 0.0
        dt = self.t[self.k] - prev
        return math.sqrt(dt), self.drift * dt

    def crossing(self, upper: float, lower: float) -> tuple[float, float]:
        """P(continue to look k, then ``z_k >= upper``) and P(... ``z_k <= lower``)."""
        sd, mu = self._increment()
        sq = math.sqrt(self.t[self.k])
        if self.k == 0:
            return (float(special.ndtr((mu - upper * sq) / sd)),
                    float(special.ndtr((lower * sq - mu) / sd)))
        mass = self.w * self.dens
        up = float(mass @ special.ndtr((self.x + mu - upper * sq) / sd))
        down = float(mass @ special.ndtr((lower * sq - self.x - mu) / sd))
        return up, down

    def advance(self, upper: float, lower: float) -> None:
        """Move to the next look, continuing where ``lower < z_k < upper``."""
        sd, mu = self._increment()
        sq = math.sqrt(self.t[self.k])
        # the region, cut at _TAIL standard deviations about the mean of z_k
        lo = max(lower, self.drift * sq - _TAIL) * sq
        hi = min(upper, self.drift * sq + _TAIL) * sq
        y, wy = _simpson(lo, max(hi, lo), self.m)
        if self.k == 0:
            dens = np.exp(-((y - mu) ** 2) / (2 * sd * sd)) / (sd * math.sqrt(2 * math.pi))
        else:
            mass = self.w * self.dens
            dens = (mass[None, :] * np.exp(-((y[:, None] - self.x[None, :] - mu) ** 2)
                                           / (2 * sd * sd))).sum(axis=1) / (
                sd * math.sqrt(2 * math.pi))
        self.x, self.w, self.dens = y, wy, dens
        self.k += 1


def _one_sided_bounds(t: np.ndarray, inc: np.ndarray, m: int) -> np.ndarray:
    """Upper bounds spending ``inc`` at each look, no lower bound."""
    looks = _Looks(t, 0.0, m)
    bounds = np.empty(t.size)
    for k in range(t.size):
        if inc[k] <= 0:
            bounds[k] = math.inf
        else:
            target = float(inc[k])
            bounds[k] = optimize.brentq(
                lambda c, a=target: looks.crossing(c, -math.inf)[0] - a, -10.0, 50.0,
                xtol=1e-13, rtol=1e-14)
        looks.advance(bounds[k], -math.inf)
    return bounds


def _futility_given_drift(t: np.ndarray, upper: np.ndarray, inc: np.ndarray, drift: float,
                          m: int) -> tuple[np.ndarray, float]:
    """Futility bounds spending ``inc`` under ``drift`` at looks before the last, and what
    is left to spend at the last look minus P(continue to it, ``z_K < upper_K``)."""
    looks = _Looks(t, drift, m)
    lower = np.empty(t.size)
    for k in range(t.size - 1):
        target = float(inc[k])
        top = looks.crossing(upper[k], upper[k])[1]  # P(continue, z_k <= upper_k)
        if target <= 0:
            lower[k] = -math.inf
        elif top <= target:
            lower[k] = upper[k]
        else:
            lower[k] = optimize.brentq(
                lambda c, a=target, u=upper[k]: looks.crossing(u, c)[1] - a,
                drift * math.sqrt(t[k]) - _TAIL, upper[k], xtol=1e-12, rtol=1e-14)
        looks.advance(upper[k], lower[k])
    last = looks.crossing(upper[-1], upper[-1])[1]
    lower[-1] = upper[-1]
    return lower, last - float(inc[-1])


def _futility_design(t: np.ndarray, upper: np.ndarray, inc: np.ndarray, alpha: float,
                     beta: float, m: int) -> tuple[np.ndarray, float]:
    """The drift at which the futility bounds meet the rejection bound at the last look (the
    design's power is then exactly ``1 - beta``), and those bounds."""
    fixed = float(special.ndtri(1 - alpha) + special.ndtri(1 - beta))
    grid = min(m, _PLAN_GRID)
    drift = optimize.brentq(lambda d: _futility_given_drift(t, upper, inc, d, grid)[1],
                            fixed * 0.5, fixed * 3.0, xtol=1e-12, rtol=1e-13)
    return _futility_given_drift(t, upper, inc, drift, m)[0], drift


def _rejection_probability(t: np.ndarray, bounds: np.ndarray, two_sided: bool, drift: float,
                           m: int) -> float:
    """P(some look rejects upwards) when ``z_k`` has mean ``drift sqrt(t_k)``; a two-sided
    design stops at a lower crossing too, which then is no rejection in the effect's
    direction."""
    looks = _Looks(t, drift, m)
    total = 0.0
    for k in range(t.size):
        lower = -bounds[k] if two_sided else -math.inf
        total += looks.crossing(bounds[k], lower)[0]
        if k + 1 < t.size:
            looks.advance(bounds[k], lower)
    return total


# what a design of looks declares (group_sequential_bounds, inflation_factor)
_DESIGN = {
    "alpha": OPEN_UNIT,
    "spending": Options(SPENDING_FUNCTIONS),
    "alternative": Options(SEQUENTIAL_ALTERNATIVES),
    "rho": POSITIVE_REAL,
    "n_grid": Interval(int, 101),
}


def _check_common(information: Any, alpha: float, n_grid: int, caller: str) -> tuple:
    """The information fractions, ``alpha`` as a float and the number of Simpson nodes
    (``n_grid`` made odd)."""
    t = _information(information, caller)
    m = int(n_grid)
    m += 1 - m % 2
    return t, float(alpha), m


@validate_params({
    **_DESIGN,
    "futility": Described(Options(SPENDING_FUNCTIONS).text, Options(SPENDING_FUNCTIONS), None),
})
def group_sequential_bounds(
    information: Any,
    *,
    alpha: float = 0.05,
    spending: str = "obrien_fleming",
    alternative: str = "two-sided",
    rho: float = 2.0,
    n_grid: int = 801,
    futility: str | None = None,
    beta: float = 0.2,
    futility_rho: float | None = None,
) -> GroupSequentialBounds:
    """z boundaries for a planned number of looks, by Lan-DeMets alpha spending.

    Peeking at an A/B test every day and stopping at the first ``p < 0.05`` rejects a true
    null far more often than 5%. A group-sequential design spends the type I error ``alpha``
    over the looks: look ``k`` rejects when ``|z_k|`` (two-sided) or ``z_k`` (one-sided)
    reaches ``bounds[k]``, and the chance of any rejection under the null is ``alpha`` in
    total.

    Parameters
    ----------
    information : int or array-like of float
        The looks: their number (equally spaced), or their information fractions ``t_k``
        (share of the planned units analysed at look ``k``), increasing in (0, 1]. A last
        fraction below 1 spends only ``alpha(t_K)``.
    alpha : float, default=0.05
        Type I error over all the looks (two-sided: both sides together).
    spending : {"obrien_fleming", "pocock", "kim_demets"}, default="obrien_fleming"
        Lan-DeMets spending function of O'Brien-Fleming type (strict early, close to the
        fixed-sample bound at the end), of Pocock type (about the same bound at each look),
        or Kim and DeMets' power family ``alpha t**rho``.
    alternative : {"two-sided", "greater"}, default="two-sided"
        Symmetric two-sided boundaries, or one-sided upper ones (``z_k >= bounds[k]``; for a
        decrease, test ``-z``).
    rho : float, default=2.0
        Exponent of ``spending="kim_demets"`` (ignored by the others).
    n_grid : int, default=801
        Simpson nodes per look for the numerical integration (odd; more is more exact).
    futility : {"obrien_fleming", "pocock", "kim_demets"} or None, default=None
        With ``alternative="greater"``: a non-binding futility bound, by spending ``beta``
        with this spending function under the drift at which the design has power
        ``1 - beta`` (gsDesign's ``test.type=4``): look ``k`` may stop for futility when
        ``z_k <= futility_bounds[k]``. Non-binding: the rejection bounds ignore it, so
        continuing past it keeps the type I error at ``alpha``.
    beta : float, default=0.2
        Type II error spent on the futility bound (``1 - power``).
    futility_rho : float or None, default=None
        Exponent of ``futility="kim_demets"`` (None: ``rho``).

    Returns
    -------
    GroupSequentialBounds

    Examples
    --------
    >>> from skrank.online import group_sequential_bounds
    >>> gs = group_sequential_bounds(5)
    >>> [round(float(b), 3) for b in gs.bounds]
    [4.877, 3.357, 2.68, 2.29, 2.031]
    >>> gs.first_crossing([1.2, 2.9, 2.75])   # third look (index 2): 2.75 >= 2.68
    2
    >>> round(gs.inflation_factor(power=0.8), 4)   # 2.5% more units than without looks
    1.0247
    """
    t, alpha, m = _check_common(information, alpha, n_grid, _CALLER)
    sides = 2 if alternative == "two-sided" else 1
    cum = _spent(t, alpha, spending, sides, float(rho))
    inc = np.diff(np.concatenate([[0.0], cum]))
    if futility is not None:
        if alternative != "greater":
            raise param_error("futility", "None unless alternative='greater' (a futility "
                              "bound is one-sided)", futility, _CALLER)
    ok = isinstance(beta, (int, float)) and not isinstance(beta, bool) and 0 < beta < 1
    if not (ok and beta < 1 - alpha):
        raise param_error("beta", f"a real number in (0, 1 - alpha={1 - alpha:g})", beta,
                          _CALLER)
    if alternative == "greater":
        bounds = _one_sided_bounds(t, inc, m)
        nominal = special.ndtr(-bounds)
        fut = drift = None
        if futility is not None:
            f_rho = rho if futility_rho is None else futility_rho
            ok = isinstance(f_rho, (int, float)) and not isinstance(f_rho, bool)
            if not (ok and math.isfinite(f_rho) and f_rho > 0):
                raise param_error("futility_rho", "None or a finite real number > 0",
                                  futility_rho, _CALLER)
            beta_cum = _spent(t, float(beta), futility, 1, float(f_rho))
            fut, drift = _futility_design(t, bounds, np.diff(np.concatenate([[0.0], beta_cum])),
                                          float(alpha), float(beta), m)
        return GroupSequentialBounds(
            information=t, bounds=bounds, nominal_p=nominal, alpha_spent=cum, alpha=alpha,
            spending=spending, alternative=alternative, n_grid=m,
            rho=float(rho) if spending == "kim_demets" or futility == "kim_demets" else None,
            futility_bounds=fut, futility=futility,
            beta=float(beta) if futility is not None else None, futility_drift=drift,
        )
    bounds = np.empty(t.size)
    # look 1: z_1 is standard normal
    bounds[0] = special.ndtri(1 - inc[0] / 2) if inc[0] > 0 else math.inf
    half = min(bounds[0], _TAIL) * math.sqrt(t[0])
    x, w = _simpson(-half, half, m)
    dens = np.exp(-x * x / (2 * t[0])) / math.sqrt(2 * math.pi * t[0])
    for k in range(1, t.size):
        sd = math.sqrt(t[k] - t[k - 1])
        mass = w * dens
        sq = math.sqrt(t[k])

        def crossing(c: float, mass: np.ndarray = mass, x: np.ndarray = x, sd: float = sd,
                     sq: float = sq) -> float:
            b = c * sq
            return float(mass @ (special.ndtr((-b - x) / sd) + special.ndtr((x - b) / sd)))

        if inc[k] <= 0:
            bounds[k] = math.inf
        else:
            target = float(inc[k])
            bounds[k] = optimize.brentq(lambda c, a=target: crossing(c) - a, 1e-6, 50.0,
                                        xtol=1e-13, rtol=1e-14)
        half = min(bounds[k], _TAIL) * sq
        y, wy = _simpson(-half, half, m)
        dens = (mass[None, :] * np.exp(-((y[:, None] - x[None, :]) ** 2) / (2 * sd * sd))).sum(
            axis=1) / (sd * math.sqrt(2 * math.pi))
        x, w = y, wy
    nominal = 2 * special.ndtr(-bounds)
    return GroupSequentialBounds(
        information=t, bounds=bounds, nominal_p=nominal, alpha_spent=cum, alpha=alpha,
        spending=spending, alternative=alternative, n_grid=m,
        rho=float(rho) if spending == "kim_demets" else None,
    )


def design_drift(bounds: GroupSequentialBounds, power: float) -> float:
    """The drift (mean of ``z`` at full information) at which ``bounds`` reject in its
    direction with probability ``power``."""
    two = bounds.alternative == "two-sided"
    b, t = bounds.bounds, bounds.information
    fixed = float(special.ndtri(1 - bounds.alpha / (2 if two else 1)) + special.ndtri(power))
    return optimize.brentq(
        lambda d: _rejection_probability(t, b, two, d, min(bounds.n_grid, _PLAN_GRID)) - power,
        fixed * 0.5, fixed * 3.0, xtol=1e-12, rtol=1e-13)


@validate_params(_DESIGN)
def inflation_factor(
    information: Any,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    spending: str = "obrien_fleming",
    alternative: str = "two-sided",
    rho: float = 2.0,
    n_grid: int = 801,
) -> float:
    """How many more units a group-sequential design needs than a fixed-sample test.

    The fixed-sample test reaches ``power`` when the drift (the mean of ``z`` with every
    unit) is ``z_{1 - alpha/2} + z_{power}``; with looks and the boundaries of
    :func:`group_sequential_bounds`, it needs a larger drift ``theta``. The factor is
    ``(theta / (z_{1 - alpha/2} + z_{power}))**2``, by which to multiply a fixed sample size
    (Jennison and Turnbull 2000, sec. 2.6; gsDesign's ``n.fix``).

    Parameters
    ----------
    information, alpha, spending, alternative, rho, n_grid
        As in :func:`group_sequential_bounds`.
    power : float, default=0.8
        Probability of rejecting at some look when the effect is the one planned for.

    Returns
    -------
    float

    Examples
    --------
    >>> from skrank.online import inflation_factor
    >>> round(inflation_factor(5, spending="pocock"), 3)
    1.213
    """
    caller = "inflation_factor"
    _check_common(information, alpha, n_grid, caller)
    ok = isinstance(power, (int, float)) and not isinstance(power, bool) and 0 < power < 1
    if not (ok and power > alpha):
        raise param_error("power", f"a real number in (alpha={alpha}, 1)", power, caller)
    gs = group_sequential_bounds(information, alpha=alpha, spending=spending,
                                 alternative=alternative, rho=rho, n_grid=n_grid)
    return gs.inflation_factor(power)


@validate_params({
    "units_per_arm": POSITIVE_INT,
    "arms": Interval(int, 2),
    "daily_units": POSITIVE_REAL,
    "traffic_share": Interval(float, 0, 1, closed="right", text="a real number in (0, 1]"),
})
def duration_days(units_per_arm: int, daily_units: float, *, arms: int = 2,
                  traffic_share: float = 1.0) -> int:
    """Days an experiment must run to reach ``units_per_arm`` in each of ``arms`` arms.

    ``ceil(units_per_arm * arms / (daily_units * traffic_share))``: ``daily_units`` new
    eligible units (users) enter each day and a share ``traffic_share`` of them is in the
    experiment, split equally. Take ``units_per_arm`` from :func:`sample_size_per_arm` with
    ``looks=`` when the experiment will be looked at before its end. Returning users are not
    new units: count the new ones a day (the daily count of distinct users overstates it).

    Parameters
    ----------
    units_per_arm : int
        Units needed in each arm.
    daily_units : float
        New eligible units a day.
    arms : int, default=2
        Arms, control included.
    traffic_share : float, default=1.0
        Share of the eligible traffic in the experiment, in (0, 1].

    Returns
    -------
    int

    Examples
    --------
    >>> from skrank.online import duration_days, sample_size_per_arm
    >>> n = sample_size_per_arm(0.10, 0.05, relative=True, looks=5)   # 10% -> 10.5% CTR
    >>> n
    59191
    >>> duration_days(n, daily_units=20_000, traffic_share=0.5)
    12
    """
    n, k = int(units_per_arm), int(arms)
    return math.ceil(n * k / (float(daily_units) * float(traffic_share)) - 1e-9)
