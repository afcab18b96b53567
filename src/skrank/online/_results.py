"""Small frozen result objects of :mod:`skrank.online` (private module).

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
    "AlwaysValidResult",
    "Decision",
    "DecisionTest",
    "ExperimentResult",
    "GroupSequentialBounds",
    "InterleavingResult",
    "MetricEffect",
    "NoveltyResult",
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
