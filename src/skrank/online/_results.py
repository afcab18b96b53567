"""Small frozen result objects of :mod:`skrank.online` (private module): interleaving,
counterfactual and A/B-test results (those of decisions over time are in
:mod:`._sequential_results`).

Every result is a frozen dataclass with a readable ``__str__`` and a ``to_dict()`` that returns
plain Python values (floats, ints, lists), ready for JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..stats._results import Interval, _py, format_p

__all__ = [
    "ExperimentResult",
    "InterleavingResult",
    "MetricEffect",
    "OffPolicyEstimate",
    "PropensityEstimate",
    "RatioEstimate",
    "SampleRatioCheck",
    "ZTestResult",
]


def _fmt(x: float, digits: int = 4) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return f"{x:.{digits}g}"


def _fmt_ci(ci: tuple[float, float], level: float) -> str:
    return f"{level:.0%} CI [{_fmt(ci[0])}, {_fmt(ci[1])}]"


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict of plain Python values (arrays and tuples become lists)."""
        return {f.name: _py(list(v) if isinstance(v := getattr(self, f.name), Interval) else v)
                for f in fields(self)}  # type: ignore[arg-type]


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
    ci : skrank.stats.Interval
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
    ci: Interval
    confidence_level: float
    mean_outcome: float
    unit: str
    n_no_click: int

    def __str__(self) -> str:
        return (
            f"InterleavingResult: {self.n} {self.unit}s, A wins {self.wins}, "
            f"B wins {self.losses}, ties {self.ties} ({self.n_no_click} without clicks)\n"
            f"  preference {_fmt(self.preference)} "
            f"({_fmt_ci(self.ci, self.confidence_level)}), sign test p = {format_p(self.p_value)}"
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
    ci : skrank.stats.Interval
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
    ci: Interval
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
    ci : skrank.stats.Interval
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
    ci: Interval
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
            f"z = {_fmt(self.z)}, p = {format_p(self.p_value)} ({self.alternative})"
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
    ci : skrank.stats.Interval
        Normal-approximation confidence interval.
    confidence_level : float
        Level of ``ci``.
    n : int
        Number of randomisation units.
    """

    value: float
    variance: float
    se: float
    ci: Interval
    confidence_level: float
    n: int

    def __str__(self) -> str:
        return (
            f"RatioEstimate: {_fmt(self.value)} +/- {_fmt(self.se)} "
            f"({_fmt_ci(self.ci, self.confidence_level)}), n={self.n} units"
        )


@dataclass(frozen=True)
class SampleRatioCheck(_ToDict):
    """Sample ratio mismatch (SRM) check: the units per arm against the planned split.

    Attributes
    ----------
    arms : tuple
        The arms, sorted.
    counts : tuple of int
        Units per arm.
    planned_split : tuple of float
        Planned share of units per arm (sums to 1).
    expected : tuple of float
        ``planned_split * sum(counts)``.
    statistic : float
        Pearson's chi-square ``sum((counts - expected)**2 / expected)``.
    df : int
        Degrees of freedom, ``len(arms) - 1``.
    p_value : float
        Upper tail of the chi-square distribution at ``statistic``.
    srm_alpha : float
        Threshold below which ``p_value`` flags a mismatch.
    mismatch : bool
        ``p_value < srm_alpha``: the assignment or the logging is broken, and the effects are
        not to be trusted until the cause is found.
    """

    arms: tuple
    counts: tuple[int, ...]
    planned_split: tuple[float, ...]
    expected: tuple[float, ...]
    statistic: float
    df: int
    p_value: float
    srm_alpha: float
    mismatch: bool

    def __str__(self) -> str:
        counts = " / ".join(f"{a!s}: {n:,}" for a, n in zip(self.arms, self.counts))
        split = ":".join(f"{s:.4g}" for s in self.planned_split)
        head = ("SAMPLE RATIO MISMATCH" if self.mismatch else "sample ratio check passed")
        verdict = (f"p = {format_p(self.p_value)} < srm_alpha={self.srm_alpha:g}; do not trust "
                   "the effects before finding the cause" if self.mismatch else
                   f"p = {format_p(self.p_value)} >= srm_alpha={self.srm_alpha:g}")
        return (f"{head}: units {counts} against a planned split {split} "
                f"(chi-square {self.statistic:.4g}, df {self.df}); {verdict}")


def _pct(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:+.2%}"


@dataclass(frozen=True)
class MetricEffect(_ToDict):
    """The effect of one metric of one treatment arm against the control arm.

    Attributes
    ----------
    metric : str
        The metric's name.
    kind : str
        ``"mean"`` (mean of a column over units) or ``"ratio"`` (ratio of two columns' sums,
        delta method).
    arm, control : scalar
        The treatment arm and the control arm.
    value_control, value_arm : float
        The metric in each arm (CUPED-adjusted when ``covariate`` is set).
    difference : float
        ``value_arm - value_control``.
    ci : skrank.stats.Interval
        Welch t confidence interval of ``difference``.
    relative_difference : float
        ``value_arm / value_control - 1`` (NaN when ``value_control`` is 0).
    relative_ci : skrank.stats.Interval
        Its interval: the delta-method interval of ``log(value_arm / value_control)``
        (Welch df), transformed back; NaN when the ratio is not positive.
    se : float
        Standard error of ``difference``.
    statistic : float
        ``difference / se``.
    df : float
        Welch-Satterthwaite degrees of freedom.
    p_value : float
        Two-sided p-value of Welch's t-test.
    confidence_level : float
        Level of ``ci`` and ``relative_ci``.
    n_control, n_arm : int
        Units per arm.
    covariate : str or None
        CUPED covariate, or None without variance reduction.
    theta : float or None
        CUPED coefficient, pooled over the two arms (None without a covariate).
    alternative : str
        ``"two-sided"``, ``"greater"`` (arm > control) or ``"less"``: of ``p_value`` and of
        the intervals (one-sided ones are unbounded on one side).
    cluster : str or None
        The cluster column when clusters were randomised (``n_control`` and ``n_arm`` then
        count clusters, and ``se`` is computed over cluster totals); None otherwise.
    naive_se : float or None
        With clusters, the unit-level standard error that ignores them (shown for
        comparison, never used); None otherwise.
    """

    metric: str
    kind: str
    arm: Any
    control: Any
    value_control: float
    value_arm: float
    difference: float
    ci: Interval
    relative_difference: float
    relative_ci: Interval
    se: float
    statistic: float
    df: float
    p_value: float
    confidence_level: float
    n_control: int
    n_arm: int
    covariate: str | None
    theta: float | None
    alternative: str = "two-sided"
    cluster: str | None = None
    naive_se: float | None = None

    @property
    def design_effect(self) -> float | None:
        """``(se / naive_se)**2``: how much the clusters inflate the variance (None without)."""
        if self.naive_se is None or self.naive_se == 0:
            return None
        return (self.se / self.naive_se) ** 2

    def __str__(self) -> str:
        cuped = "" if self.covariate is None else (
            f"; CUPED on {self.covariate}, theta={_fmt(self.theta)}")
        if self.alternative != "two-sided":
            cuped += f"; {self.alternative}"
        if self.naive_se is not None:
            cuped += (f"; se {_fmt(self.se)} over {self.n_control + self.n_arm:,} clusters "
                      f"(naive unit-level se {_fmt(self.naive_se)} understates it, design "
                      f"effect {_fmt(self.design_effect, 3)}: not used)")
        return (
            f"{self.metric} ({self.kind}), {self.arm!s} vs {self.control!s}: "
            f"{_fmt(self.value_control)} -> {_fmt(self.value_arm)}, difference "
            f"{_fmt(self.difference)} [{_fmt(self.ci[0])}, {_fmt(self.ci[1])}], relative "
            f"{_pct(self.relative_difference)} [{_pct(self.relative_ci[0])}, "
            f"{_pct(self.relative_ci[1])}], p = {format_p(self.p_value)}{cuped}"
        )


@dataclass(frozen=True)
class ExperimentResult:
    """An A/B test analysed from a table of units, from :func:`analyze_experiment`.

    Printing it shows the sample ratio check first: a mismatch heads the output, before any
    effect.

    Attributes
    ----------
    srm : SampleRatioCheck
        The sample ratio mismatch check, run every time.
    effects : tuple of MetricEffect
        One per metric and treatment arm, metrics in the given order.
    control : scalar
        The control arm.
    arms : tuple
        Every arm, sorted.
    n_units : int
        Rows of the table.
    confidence_level : float
        Level of the intervals.
    alternative : str
        Alternative hypothesis of the tests (``"two-sided"``, ``"greater"``, ``"less"``).
    cluster : str or None
        Cluster column of a cluster-randomised experiment, or None.
    n_clusters : int or None
        Clusters, when ``cluster`` is set.
    """

    srm: SampleRatioCheck
    effects: tuple[MetricEffect, ...]
    control: Any
    arms: tuple
    n_units: int
    confidence_level: float
    alternative: str = "two-sided"
    cluster: str | None = None
    n_clusters: int | None = None

    @property
    def conventions(self) -> dict[str, Any]:
        """The choices that produced the numbers, by name."""
        unit = "units" if self.cluster is None else f"clusters of {self.cluster}"
        return {
            "test": f"Welch t, {self.alternative}",
            "variance_unit": unit,
            "ratio_variance": f"delta method over {unit}",
            "relative_ci": "delta method on log(arm / control)",
            "cuped_theta": "pooled over the two arms compared",
            "srm_test": "Pearson chi-square against the planned split",
            "srm_alpha": self.srm.srm_alpha,
            "confidence_level": self.confidence_level,
        }

    def __getitem__(self, key: Any) -> MetricEffect:
        """``result["metric"]`` (one treatment arm) or ``result["metric", arm]``."""
        if isinstance(key, tuple):
            found = [e for e in self.effects if (e.metric, e.arm) == key]
        else:
            found = [e for e in self.effects if e.metric == key]
            if len(found) > 1:
                raise KeyError(f"{key!r} has {len(found)} treatment arms; use "
                               f"result[{key!r}, arm]")
        if not found:
            raise KeyError(key)
        return found[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values: ``srm`` and ``effects`` as dicts, and ``conventions``."""
        return {
            "srm": self.srm.to_dict(), "effects": [e.to_dict() for e in self.effects],
            "control": _py(self.control), "arms": _py(self.arms), "n_units": self.n_units,
            "confidence_level": self.confidence_level, "alternative": self.alternative,
            "cluster": self.cluster, "n_clusters": self.n_clusters,
            "conventions": self.conventions,
        }

    def __str__(self) -> str:
        conv = self.conventions
        clusters = ("" if self.n_clusters is None else
                    f" ({self.n_clusters:,} clusters of {self.cluster})")
        ratio = ("ratio metrics" if self.cluster is None else
                 "means and ratio metrics as ratios of cluster sums,")
        head = (
            f"ExperimentResult: {self.n_units:,} units{clusters} in {len(self.arms)} arms, "
            f"control {self.control!s} ({conv['test']}; {self.confidence_level:.0%} CI; "
            f"{ratio} by the {conv['ratio_variance']}; relative CI by the "
            f"{conv['relative_ci']}; CUPED theta {conv['cuped_theta']})"
        )
        lines = [str(self.srm), head] if self.srm.mismatch else [head, "  " + str(self.srm)]
        lines += ["  " + str(e) for e in self.effects]
        return "\n".join(lines)
