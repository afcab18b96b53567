"""Small frozen result objects of :mod:`skrank.online` (private module).

Every result is a frozen dataclass with a readable ``__str__`` and a ``to_dict()`` that returns
plain Python values (floats, ints, lists), ready for JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..stats._results import _py

__all__ = [
    "InterleavingResult",
    "OffPolicyEstimate",
    "PropensityEstimate",
    "RatioEstimate",
    "ZTestResult",
]


def _fmt(x: float, digits: int = 4) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return f"{x:.{digits}g}"


def _fmt_p(p: float) -> str:
    if math.isnan(p):
        return "nan"
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"


def _fmt_ci(ci: tuple[float, float], level: float) -> str:
    return f"{level:.0%} CI [{_fmt(ci[0])}, {_fmt(ci[1])}]"


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict of plain Python values (arrays and tuples become lists)."""
        return {f.name: _py(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True)
class InterleavingResult(_ToDict):
    """Outcome of an interleaving experiment, from :func:`interleaving_test`.

    Attributes
    ----------
    wins, losses, ties : int
        Units (impressions, or groups when ``groups`` was given) won by ranker A, won by
        ranker B, and tied.
    n : int
        ``wins + losses + ties``.
    preference : float
        ``(wins + ties / 2) / n - 1/2``, in [-0.5, 0.5]; positive means A is preferred.
    p_value : float
        Two-sided exact binomial sign test of ``wins`` against ``losses`` (ties left out);
        1.0 when there are no wins and no losses.
    ci : tuple of float
        Percentile bootstrap confidence interval of ``preference``.
    confidence_level : float
        Level of ``ci``.
    mean_outcome : float
        Mean per-unit outcome in [-1, 1] (for probabilistic interleaving, the mean expected
        outcome over the team assignments).
    unit : str
        ``"impression"`` or ``"group"``.
    n_no_click : int
        Impressions (or groups) without any credited click; left out of ``n`` when
        ``no_click="drop"``, counted as ties when ``no_click="tie"``.
    """

    wins: int
    losses: int
    ties: int
    n: int
    preference: float
    p_value: float
    ci: tuple[float, float]
    confidence_level: float
    mean_outcome: float
    unit: str
    n_no_click: int

    def __str__(self) -> str:
        return (
            f"InterleavingResult: {self.n} {self.unit}s, A wins {self.wins}, "
            f"B wins {self.losses}, ties {self.ties} ({self.n_no_click} without clicks)\n"
            f"  preference {_fmt(self.preference)} "
            f"({_fmt_ci(self.ci, self.confidence_level)}), sign test p = {_fmt_p(self.p_value)}"
        )


@dataclass(frozen=True)
class OffPolicyEstimate(_ToDict):
    """An off-policy (counterfactual) estimate of a policy's value.

    Attributes
    ----------
    estimator : str
        Name of the estimator (``"ips"``, ``"clipped_ips"``, ``"snips"``, ``"dm"``, ``"dr"``,
        ``"sips"``, ``"iips"``, ``"rips"``, ``"pbm_ips"``).
    value : float
        The estimate.
    se : float
        Standard error (normal approximation over rounds; for ``snips`` by the delta method).
    ci : tuple of float
        Confidence interval: ``value -/+ z * se``, or a percentile bootstrap interval.
    confidence_level : float
        Level of ``ci``.
    n : int
        Number of logged rounds (impressions, slates).
    ess : float or None
        Kish effective sample size ``(sum w)**2 / sum(w**2)`` of the importance weights used;
        ``None`` for the direct method, which uses none.
    mean_weight : float or None
        Mean importance weight; far from 1 signals poor overlap or wrong propensities.
    """

    estimator: str
    value: float
    se: float
    ci: tuple[float, float]
    confidence_level: float
    n: int
    ess: float | None
    mean_weight: float | None

    def __str__(self) -> str:
        extra = ""
        if self.ess is not None:
            extra = f", ESS {self.ess:.1f}, mean weight {_fmt(self.mean_weight)}"
        return (
            f"OffPolicyEstimate({self.estimator}): {_fmt(self.value)} +/- {_fmt(self.se)} "
            f"({_fmt_ci(self.ci, self.confidence_level)}), n={self.n}{extra}"
        )


@dataclass(frozen=True)
class PropensityEstimate(_ToDict):
    """Position propensities (examination probabilities) estimated from randomised logs.

    Attributes
    ----------
    propensities : ndarray of shape (n_positions,)
        Relative propensities, divided by the largest (normally position 1's), so in (0, 1].
    se : ndarray of shape (n_positions,)
        Delta-method standard errors (0 for the reference position).
    ci : tuple of ndarray
        Lower and upper normal-approximation bounds.
    confidence_level : float
        Level of ``ci``.
    n : ndarray of shape (n_positions,)
        Impressions that informed each position.
    method : str
        ``"shuffle"`` or ``"swap"``.
    """

    propensities: np.ndarray
    se: np.ndarray
    ci: tuple[np.ndarray, np.ndarray]
    confidence_level: float
    n: np.ndarray
    method: str

    def __str__(self) -> str:
        rows = [f"PropensityEstimate({self.method}), {self.confidence_level:.0%} CI:"]
        for k, (p, lo, hi) in enumerate(zip(self.propensities, *self.ci)):
            rows.append(f"  position {k + 1:>2}: {p:.4f} [{lo:.4f}, {hi:.4f}]")
        return "\n".join(rows)


@dataclass(frozen=True)
class ZTestResult(_ToDict):
    """A two-sample z-test of arm B against arm A.

    Attributes
    ----------
    value_a, value_b : float
        The metric in each arm (a proportion, or a ratio metric).
    difference : float
        ``value_b - value_a``.
    relative_difference : float
        ``difference / value_a`` (NaN when ``value_a`` is 0).
    se : float
        Standard error of the difference (unpooled), used by ``ci``.
    z : float
        Test statistic.
    p_value : float
        p-value under ``alternative``.
    ci : tuple of float
        Confidence interval of ``difference``.
    confidence_level : float
        Level of ``ci``.
    n_a, n_b : int
        Units per arm (impressions, or users for ratio metrics).
    alternative : str
        ``"two-sided"``, ``"greater"`` (B > A) or ``"less"`` (B < A).
    method : str
        What was tested, e.g. ``"two-proportion z-test (pooled)"``.
    """

    value_a: float
    value_b: float
    difference: float
    relative_difference: float
    se: float
    z: float
    p_value: float
    ci: tuple[float, float]
    confidence_level: float
    n_a: int
    n_b: int
    alternative: str
    method: str

    def __str__(self) -> str:
        return (
            f"ZTestResult({self.method}): A {_fmt(self.value_a)} (n={self.n_a}), "
            f"B {_fmt(self.value_b)} (n={self.n_b})\n"
            f"  B - A = {_fmt(self.difference)} ({_fmt_ci(self.ci, self.confidence_level)}), "
            f"z = {_fmt(self.z)}, p = {_fmt_p(self.p_value)} ({self.alternative})"
        )


@dataclass(frozen=True)
class RatioEstimate(_ToDict):
    """A ratio metric ``sum(numerator) / sum(denominator)`` with its delta-method variance.

    Attributes
    ----------
    value : float
        The ratio.
    variance : float
        Delta-method variance of the ratio, treating the randomisation units (users) as the
        independent observations.
    se : float
        ``sqrt(variance)``.
    ci : tuple of float
        Normal-approximation confidence interval.
    confidence_level : float
        Level of ``ci``.
    n : int
        Number of randomisation units.
    """

    value: float
    variance: float
    se: float
    ci: tuple[float, float]
    confidence_level: float
    n: int

    def __str__(self) -> str:
        return (
            f"RatioEstimate: {_fmt(self.value)} +/- {_fmt(self.se)} "
            f"({_fmt_ci(self.ci, self.confidence_level)}), n={self.n} units"
        )
