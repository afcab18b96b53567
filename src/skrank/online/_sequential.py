"""Group-sequential boundaries by Lan-DeMets alpha spending (private).

Conventions named here because they change the numbers:

- Two-sided, symmetric boundaries on the z statistic, for rejection only (no futility
  bound); the test at look ``k`` rejects when ``|z_k| >= bounds[k]``.
- Looks are placed by their information fraction ``t_k`` (the share of the planned units
  seen, for a difference of means), in (0, 1]; z statistics of the looks are those of a
  Brownian motion, ``corr(z_i, z_j) = sqrt(t_i / t_j)``.
- Spending functions (Lan and DeMets, Biometrika 1983), ``alpha / 2`` spent on each side
  as in gsDesign, rpact and ldbounds: ``"obrien_fleming"``,
  ``alpha(t) = 4 - 4 Phi(z_{1 - alpha/4} / sqrt(t))``, spends almost nothing early;
  ``"pocock"``, ``alpha(t) = alpha log(1 + (e - 1) t)``, spends evenly.
- The crossing probabilities are computed by numerical integration of the density of the
  score ``z_k sqrt(t_k)`` over the continuation region (Armitage, McPherson and Rowe, 1969),
  on a grid of ``n_grid`` Simpson nodes per look.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import optimize, special

from .._validation import check_choice, param_error
from ._results import GroupSequentialBounds
from ._utils import check_positive_int

__all__ = ["SPENDING_FUNCTIONS", "group_sequential_bounds"]

SPENDING_FUNCTIONS = ("obrien_fleming", "pocock")
_CALLER = "group_sequential_bounds"
_TAIL = 10.0  # the continuation region is cut at +-_TAIL standard deviations of the score


def _spent(t: np.ndarray, alpha: float, spending: str) -> np.ndarray:
    if spending == "obrien_fleming":
        z = special.ndtri(1 - alpha / 4)
        return 4 - 4 * special.ndtr(z / np.sqrt(t))
    return alpha * np.log1p((math.e - 1) * t)


def _simpson(lo: float, hi: float, m: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(lo, hi, m)
    w = np.ones(m)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return x, w * (hi - lo) / (m - 1) / 3


def _information(information: Any) -> np.ndarray:
    if isinstance(information, (int, np.integer)) and not isinstance(information, bool):
        k = check_positive_int("information", int(information), _CALLER)
        return np.arange(1, k + 1) / k
    allowed = "an int >= 1 (equally spaced looks) or increasing fractions in (0, 1]"
    try:
        t = np.asarray(information, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error("information", allowed, information, _CALLER) from None
    ok = t.ndim == 1 and t.size >= 1 and np.all(np.isfinite(t))
    if not (ok and t[0] > 0 and t[-1] <= 1 and np.all(np.diff(t) > 0)):
        raise param_error("information", allowed, information, _CALLER)
    return t


def group_sequential_bounds(
    information: Any,
    *,
    alpha: float = 0.05,
    spending: str = "obrien_fleming",
    n_grid: int = 801,
) -> GroupSequentialBounds:
    """Two-sided z boundaries for a planned number of looks, by Lan-DeMets alpha spending.

    Peeking at an A/B test every day and stopping at the first ``p < 0.05`` rejects a true
    null far more often than 5%. A group-sequential design spends the type I error ``alpha``
    over the looks: look ``k`` rejects when ``|z_k|`` reaches ``bounds[k]``, and the chance
    of any rejection under the null is ``alpha`` in total.

    Parameters
    ----------
    information : int or array-like of float
        The looks: their number (equally spaced), or their information fractions ``t_k``
        (share of the planned units analysed at look ``k``), increasing in (0, 1]. A last
        fraction below 1 spends only ``alpha(t_K)``.
    alpha : float, default=0.05
        Two-sided type I error over all the looks.
    spending : {"obrien_fleming", "pocock"}, default="obrien_fleming"
        Lan-DeMets spending function of O'Brien-Fleming type (strict early, close to the
        fixed-sample bound at the end) or of Pocock type (about the same bound at each look).
    n_grid : int, default=801
        Simpson nodes per look for the numerical integration (odd; more is more exact).

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
    """
    t = _information(information)
    ok = isinstance(alpha, (int, float)) and not isinstance(alpha, bool) and 0 < alpha < 1
    if not ok:
        raise param_error("alpha", "a real number in (0, 1)", alpha, _CALLER)
    check_choice("spending", spending, SPENDING_FUNCTIONS, _CALLER)
    m = check_positive_int("n_grid", n_grid, _CALLER, minimum=101)
    m += 1 - m % 2
    cum = _spent(t, float(alpha), spending)
    inc = np.diff(np.concatenate([[0.0], cum]))
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
        information=t, bounds=bounds, nominal_p=nominal, alpha_spent=cum, alpha=float(alpha),
        spending=spending,
    )
