"""Result objects of :mod:`skrank.online`'s decisions over time (private module):
group-sequential boundaries, the tests and decision of a monitored experiment, always-valid
tests and novelty effects. Frozen dataclasses, as in :mod:`._results`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..stats._results import _py, format_p
from ._results import _fmt, _ToDict

__all__ = [
    "AlwaysValidResult",
    "Decision",
    "DecisionTest",
    "GroupSequentialBounds",
    "NoveltyResult",
]


@dataclass(frozen=True)
class GroupSequentialBounds(_ToDict):
    """Two-sided group-sequential boundaries, from :func:`group_sequential_bounds`.

    Attributes
    ----------
    information : ndarray of shape (n_looks,)
        Information fraction of each look.
    bounds : ndarray of shape (n_looks,)
        Look ``k`` rejects when ``|z_k| >= bounds[k]`` (inf where nothing is spent).
    nominal_p : ndarray of shape (n_looks,)
        ``2 Phi(-bounds)``: the two-sided p-value that rejects at each look.
    alpha_spent : ndarray of shape (n_looks,)
        Cumulative type I error spent up to each look.
    alpha : float
        Total type I error (two-sided: both sides together).
    spending : str
        ``"obrien_fleming"``, ``"pocock"`` or ``"kim_demets"`` (Lan-DeMets spending
        functions).
    alternative : str
        ``"two-sided"`` (reject when ``|z_k| >= bounds[k]``) or ``"greater"``
        (``z_k >= bounds[k]``).
    n_grid : int
        Simpson nodes per look of the numerical integration.
    rho : float or None
        Exponent of the ``"kim_demets"`` spending function (None for the others).
    futility_bounds : ndarray or None
        Non-binding futility bounds (one-sided designs): look ``k`` may stop for futility
        when ``z_k <= futility_bounds[k]``; the last equals the last rejection bound.
    futility : str or None
        Spending function of ``beta`` for the futility bounds.
    beta : float or None
        Type II error spent on them.
    futility_drift : float or None
        The drift (mean of ``z`` at full information) under which they spend ``beta``: the
        design's power is ``1 - beta`` there.
    """

    information: np.ndarray
    bounds: np.ndarray
    nominal_p: np.ndarray
    alpha_spent: np.ndarray
    alpha: float
    spending: str
    alternative: str = "two-sided"
    n_grid: int = 801
    rho: float | None = None
    futility_bounds: np.ndarray | None = None
    futility: str | None = None
    beta: float | None = None
    futility_drift: float | None = None

    def first_futility(self, z: Any) -> int | None:
        """Index of the first look whose ``z`` is at or below its futility bound, or None
        (always None without futility bounds)."""
        if self.futility_bounds is None:
            return None
        z = np.asarray(z, dtype=np.float64)
        hit = np.flatnonzero(z <= self.futility_bounds[: z.size])
        return int(hit[0]) if hit.size else None

    def first_crossing(self, z: Any) -> int | None:
        """Index of the first look whose ``|z|`` (``z`` one-sided) reaches its bound (z of
        looks so far), or None."""
        z = np.asarray(z, dtype=np.float64)
        if self.alternative == "two-sided":
            z = np.abs(z)
        hit = np.flatnonzero(z >= self.bounds[: z.size])
        return int(hit[0]) if hit.size else None

    def drift(self, power: float = 0.8) -> float:
        """The mean of ``z`` at full information at which these bounds reject with
        probability ``power`` (at any look); with futility bounds, their design drift
        (``power`` must then be ``1 - beta``: a stop for futility forgoes a rejection)."""
        if self.futility_bounds is not None:
            if abs(power - (1 - self.beta)) > 1e-12:
                from .._validation import param_error

                raise param_error("power", f"1 - beta = {1 - self.beta:g} with futility "
                                  "bounds", power, "GroupSequentialBounds.drift")
            return float(self.futility_drift)
        from ._sequential import design_drift

        return design_drift(self, power)

    def inflation_factor(self, power: float = 0.8) -> float:
        """``(drift(power) / (z_{1 - alpha/2} + z_{power}))**2``: the sample size of the
        design over that of a fixed-sample test of the same alpha and power."""
        from scipy import special

        z_a = special.ndtri(1 - self.alpha / (2 if self.alternative == "two-sided" else 1))
        return float((self.drift(power) / (z_a + special.ndtri(power))) ** 2)

    def __str__(self) -> str:
        rows = [f"GroupSequentialBounds: {self.bounds.size} looks, {self.alternative} alpha="
                f"{self.alpha:g}, Lan-DeMets {self.spending} spending"]
        for k, (t, b, p, a) in enumerate(zip(self.information, self.bounds, self.nominal_p,
                                             self.alpha_spent)):
            fut = ("" if self.futility_bounds is None else
                   f"; futility z <= {self.futility_bounds[k]:.4f}")
            stat = "|z|" if self.alternative == "two-sided" else "z"
            rows.append(f"  look {k + 1:>2}: t={t:.3f}  {stat} >= {b:.4f}  (p < {format_p(p)}; "
                        f"alpha spent {a:.4g}{fut})")
        return "\n".join(rows)


@dataclass(frozen=True)
class DecisionTest(_ToDict):
    """One test behind a :class:`Decision`: a primary superiority or a guardrail
    non-inferiority test of one treatment arm.

    Attributes
    ----------
    metric, arm : str, scalar
        The metric and the treatment arm.
    role : str
        ``"primary"`` or ``"guardrail"``.
    direction : str
        The metric's good direction, ``"increase"`` or ``"decrease"``.
    margin : float
        The margin in the metric's units (0 for the primary metric).
    difference : float
        ``value_arm - value_control``.
    statistic : float
        ``(difference + margin) / se`` (increase) or ``(difference - margin) / se``.
    p_value, p_adjusted : float
        One-sided p-value of the claim (better than control; not worse by the margin), raw
        and corrected over the family of tests.
    passed : bool
        ``p_adjusted <= alpha``: the claim holds.
    harm : bool
        ``p_harm <= alpha``: worse than control (primary) or worse by more than the margin
        (guardrail), uncorrected.
    p_harm : float
        One-sided p-value of harm.
    """

    metric: str
    arm: Any
    role: str
    direction: str
    margin: float
    difference: float
    statistic: float
    p_value: float
    p_adjusted: float
    passed: bool
    harm: bool
    p_harm: float

    def describe(self, margin: float, relative: bool, correction: str) -> str:
        """One phrase: what the test shows, with its p-values (``margin`` as given)."""
        within = f"{margin * 100:.4g}%" if relative else f"{margin:.4g}"
        ps = f"p = {format_p(self.p_value)}, {correction} {format_p(self.p_adjusted)}"
        if self.role == "primary":
            if self.passed:
                return f"{self.metric} better ({ps})"
            if self.harm:
                return f"{self.metric} worse (p = {format_p(self.p_harm)})"
            return f"{self.metric} not shown better ({ps})"
        if self.harm:
            return (f"{self.metric} worse than the margin {within} "
                    f"(p = {format_p(self.p_harm)})")
        if self.passed:
            return f"{self.metric} non-inferior within {within} ({ps})"
        return f"{self.metric} not shown non-inferior within {within} ({ps})"


@dataclass(frozen=True)
class Decision:
    """The decision of an A/B test, from :func:`decide`.

    Attributes
    ----------
    decision : str
        ``"ship"``, ``"do not ship"`` or ``"inconclusive"``.
    arm : scalar or None
        The arm to ship (the one with the largest primary effect among those that may ship).
    arms : dict
        ``{arm: (decision, reasons)}`` for each treatment arm.
    tests : tuple of DecisionTest
        Every test, with raw and corrected p-values.
    primary : str
        The primary metric.
    guardrails : tuple of str
        The guardrail metrics.
    margin_scale : str
        ``"relative"`` or ``"absolute"``.
    alpha : float
        One-sided level of each test after the correction.
    correction : str
        ``"holm"``, ``"bh"``, ``"bonferroni"`` or ``"none"``.
    srm_mismatch : bool
        Whether the sample ratio check failed (then nothing ships).
    """

    decision: str
    arm: Any
    arms: dict
    tests: tuple[DecisionTest, ...]
    primary: str
    guardrails: tuple[str, ...]
    margin_scale: str
    alpha: float
    correction: str
    srm_mismatch: bool

    rules = (
        "a sample ratio mismatch makes every arm inconclusive",
        "harm (primary significantly worse, or a guardrail significantly worse than its "
        "margin; one-sided, uncorrected) makes an arm do not ship",
        "the primary significantly better and every guardrail non-inferior, after the "
        "correction, make an arm ship",
        "anything else is inconclusive",
        "overall: the arm that may ship with the largest primary effect; do not ship when "
        "every arm is harmful; else inconclusive",
    )

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values."""
        return {
            "decision": self.decision, "arm": _py(self.arm),
            "arms": {str(a): {"decision": d, "reasons": list(r)}
                     for a, (d, r) in self.arms.items()},
            "tests": [t.to_dict() for t in self.tests], "primary": self.primary,
            "guardrails": list(self.guardrails), "margin_scale": self.margin_scale,
            "alpha": self.alpha, "correction": self.correction,
            "srm_mismatch": self.srm_mismatch, "rules": list(self.rules),
        }

    def __str__(self) -> str:
        what = f"ship {self.arm!s}" if self.decision == "ship" else self.decision
        guards = ", ".join(self.guardrails) if self.guardrails else "none"
        lines = [f"Decision: {what}",
                 f"  primary {self.primary}; guardrails {guards} ({self.margin_scale} margins); "
                 f"one-sided alpha={self.alpha:g}, {self.correction}"]
        for a, (d, reasons) in self.arms.items():
            lines.append(f"  {a!s}: {d}")
            lines += [f"    {r}" for r in reasons]
        return "\n".join(lines)


@dataclass(frozen=True)
class AlwaysValidResult(_ToDict):
    """Always-valid inference at each look, from :func:`always_valid_test`.

    Attributes
    ----------
    metric : str
        The metric (a difference in means).
    arm, control : scalar
        The treatment and the control arm.
    looks : ndarray of shape (n_looks,)
        The sorted values of the look column.
    n_control, n_arm : ndarray of int
        Units analysed at each look.
    difference : ndarray
        ``mean(arm) - mean(control)`` at each look.
    se : ndarray
        Its standard error: Welch's (``method="normal"``) or the pooled regression's
        (``method="t"``).
    statistic : ndarray
        ``difference / se`` (NaN where a look has too few units); a naive test compares it
        with 1.96 at every look and is not valid under peeking.
    p_value : ndarray
        The always-valid p-value: running minimum of ``min(1, 1 / Lambda)``.
    ci : ndarray of shape (n_looks, 2)
        The confidence sequence of level ``1 - alpha``: running intersection.
    alpha : float
        Level.
    method : str
        ``"normal"`` (Johari et al.'s mSPRT) or ``"t"`` (Lindon et al., savvi).
    mixing_variance : float or None
        ``tau^2`` of ``method="normal"``.
    phi : float or None
        Prior scale of ``method="t"``.
    stopped_at : int or None
        Index of the first look with ``p_value <= alpha``: where a team peeking at every look
        may stop and reject; None if no look does.
    """

    metric: str
    arm: Any
    control: Any
    looks: np.ndarray
    n_control: np.ndarray
    n_arm: np.ndarray
    difference: np.ndarray
    se: np.ndarray
    statistic: np.ndarray
    p_value: np.ndarray
    ci: np.ndarray
    alpha: float
    method: str
    mixing_variance: float | None
    phi: float | None
    stopped_at: int | None

    def __str__(self) -> str:
        how = (f"normal-mixture mSPRT, tau^2={self.mixing_variance:.4g}"
               if self.method == "normal" else f"anytime-valid t, phi={self.phi:.4g}")
        stop = ("no look reaches it" if self.stopped_at is None else
                f"stop at look {self.looks[self.stopped_at]!s}")
        rows = [f"AlwaysValidResult: {self.metric}, {self.arm!s} vs {self.control!s}, "
                f"{self.looks.size} looks ({how}; always-valid p <= alpha={self.alpha:g}: "
                f"{stop})"]
        for k in range(self.looks.size):
            rows.append(
                f"  look {self.looks[k]!s}: n {self.n_control[k]:,} / {self.n_arm[k]:,}, "
                f"difference {_fmt(float(self.difference[k]))} "
                f"[{_fmt(float(self.ci[k, 0]))}, {_fmt(float(self.ci[k, 1]))}], "
                f"always-valid p = {format_p(float(self.p_value[k]))}")
        return "\n".join(rows)


@dataclass(frozen=True)
class NoveltyResult(_ToDict):
    """The effect by exposure day and tests for its trend, from :func:`novelty_test`.

    Attributes
    ----------
    metric : str
        The metric.
    arm, control : scalar
        The treatment and the control arm.
    days : ndarray
        The sorted days.
    n_control, n_arm : ndarray of int
        Rows per arm on each day.
    effect, se : ndarray
        Difference of means (arm - control) on each day and its Welch standard error.
    ci : ndarray of shape (n_days, 2)
        Welch t interval of each day's effect.
    slope, slope_se, slope_p_value : float
        Change of the effect per day (inverse-variance weighted least squares), its standard
        error and the two-sided z-test p-value; a negative slope on a positive effect is a
        novelty effect fading, a positive one users learning.
    early_days : int
        Days in the early period.
    early_effect, late_effect, early_late_p_value : float
        Inverse-variance weighted mean effects of the early and the later days, and the
        two-sided p-value of their difference.
    confidence_level : float
        Level of ``ci``.
    """

    metric: str
    arm: Any
    control: Any
    days: np.ndarray
    n_control: np.ndarray
    n_arm: np.ndarray
    effect: np.ndarray
    se: np.ndarray
    ci: np.ndarray
    slope: float
    slope_se: float
    slope_p_value: float
    early_days: int
    early_effect: float
    late_effect: float
    early_late_p_value: float
    confidence_level: float

    def __str__(self) -> str:
        rows = [
            f"NoveltyResult: {self.metric}, {self.arm!s} vs {self.control!s}, "
            f"{self.days.size} days (Welch per day; trend by inverse-variance weighted least "
            "squares)",
            f"  slope {_fmt(self.slope)} per day (se {_fmt(self.slope_se)}), p = "
            f"{format_p(self.slope_p_value)}",
            f"  first {self.early_days} days {_fmt(self.early_effect)}, later "
            f"{_fmt(self.late_effect)}, p = {format_p(self.early_late_p_value)}",
        ]
        for d, e, (lo, hi) in zip(self.days, self.effect, self.ci):
            rows.append(f"  day {d:g}: {_fmt(float(e))} [{_fmt(float(lo))}, {_fmt(float(hi))}]")
        return "\n".join(rows)

    def plot(self, ax: Any = None) -> Any:
        """Draw the daily effects with their intervals and the fitted trend (matplotlib).

        Parameters
        ----------
        ax : matplotlib Axes or None
            Where to draw; a new figure when None.

        Returns
        -------
        matplotlib Axes
        """
        if ax is None:
            try:
                import matplotlib.pyplot as plt
            except ImportError as exc:  # pragma: no cover - exercised without matplotlib
                raise ImportError("Plotting needs matplotlib; install it with: pip install "
                                  "'skrank[plot]'") from exc
            ax = plt.subplots()[1]
        err = np.vstack([self.effect - self.ci[:, 0], self.ci[:, 1] - self.effect])
        ax.errorbar(self.days, self.effect, yerr=err, fmt="o", capsize=3,
                    label=f"daily effect ({self.confidence_level:.0%} CI)")
        if math.isfinite(self.slope):
            w = 1 / self.se**2
            dbar = float(w @ self.days / w.sum())
            ebar = float(w @ self.effect / w.sum())
            ax.plot(self.days, ebar + self.slope * (self.days - dbar), "-",
                    label=f"trend {self.slope:+.3g}/day (p = {format_p(self.slope_p_value)})")
        ax.axhline(0.0, color="grey", lw=0.8)
        ax.set_xlabel("day")
        ax.set_ylabel(f"{self.metric}: {self.arm!s} - {self.control!s}")
        ax.legend()
        return ax
