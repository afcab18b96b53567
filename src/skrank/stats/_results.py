"""The small results of :mod:`skrank.stats` that comparisons are made of, and how they print.

The small results every comparison is built from (:class:`Interval`, :class:`SignificanceTest`,
:class:`QueryDifference`, :class:`DetectableDifference`) and the formatting helpers all results
share (:func:`format_p`, the one p-value format of the package). The comparisons made of them
are in :mod:`skrank.stats._comparison_results`.

Every result has ``to_dict()`` returning only built-in Python types (``float``, ``int``,
``str``, ``bool``, ``None``, lists and dicts) so that ``json.dumps`` works on it; ``NaN`` stays a
float ``nan`` (``json.dumps`` writes it as ``NaN``). ``str(result)`` is a short human-readable
report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "DetectableDifference",
    "Interval",
    "QueryDifference",
    "SignificanceTest",
]


# --------------------------------------------------------------------------- formatting helpers


def _py(value: Any) -> Any:
    """Convert numpy scalars (and containers of them) to built-in Python values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return [_py(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_py(v) for v in value]
    if isinstance(value, dict):
        return {k: _py(v) for k, v in value.items()}
    return value


def _fmt(x: float, digits: int = 4, signed: bool = False) -> str:
    if x is None:
        return "n/a"
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return ("+" if x > 0 and signed else "-" if x < 0 else "") + "inf"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def format_p(p: float | None) -> str:
    """A p-value as printed everywhere (results, segment tables, reports): four decimals,
    scientific with two significant digits below 1e-4 (``3.2e-07``), ``n/a`` when undefined
    (None or NaN, e.g. a segment with fewer than 2 queries)."""
    if p is None or math.isnan(p):
        return "n/a"
    return f"{p:.1e}" if 0 < p < 1e-4 else f"{p:.4f}"


def _fmt_qid(q: Any) -> str:
    return repr(q) if isinstance(q, str) else str(q)


# --------------------------------------------------------------------------- small pieces


@dataclass(frozen=True)
class Interval:
    """A confidence interval.

    Attributes
    ----------
    low, high : float
        The bounds (``nan`` when the interval is undefined, see the comparison's notes).
    confidence : float
        The confidence level, for example 0.95.
    method : str
        ``"percentile"`` or ``"bca"`` (bootstrap), ``"t"`` (Student or Welch t), ``"normal"``
        (normal approximation) or ``"delta"`` (delta method on the log ratio).
    n_resamples : int or None
        Number of bootstrap resamples (``None`` for the others).

    An interval unpacks and indexes as the pair ``(low, high)``: ``low, high = res.ci`` and
    ``res.ci[0]`` work as with the tuples it replaced in :mod:`skrank.online`.
    """

    low: float
    high: float
    confidence: float
    method: str
    n_resamples: int | None = None

    def __contains__(self, value: float) -> bool:
        return bool(self.low <= value <= self.high)

    @property
    def confidence_level(self) -> float:
        """The confidence level, by the name of the parameter that set it (``confidence``
        is the same number)."""
        return self.confidence

    def __iter__(self):
        return iter((self.low, self.high))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> float:
        return (self.low, self.high)[index]

    def to_dict(self) -> dict[str, Any]:
        """Return the interval as a dict of built-in types."""
        return {
            "low": float(self.low),
            "high": float(self.high),
            "confidence": float(self.confidence),
            "method": self.method,
            "n_resamples": self.n_resamples,
        }

    def __str__(self) -> str:
        return f"[{_fmt(self.low, signed=True)}, {_fmt(self.high, signed=True)}]"


@dataclass(frozen=True)
class SignificanceTest:
    """The outcome of one significance test of the paired differences.

    Attributes
    ----------
    name : str
        ``"randomization"`` (sign-flip), ``"t"`` (paired t-test) or ``"wilcoxon"``
        (signed-rank).
    statistic : float
        The test statistic: the mean difference for ``"randomization"``, Student's t for
        ``"t"``, and for ``"wilcoxon"`` the statistic :func:`scipy.stats.wilcoxon` returns (the
        smaller rank sum for a two-sided test, the positive rank sum otherwise).
    pvalue : float
        The p-value under ``alternative``.
    alternative : str
        ``"two-sided"``, ``"greater"`` (system better) or ``"less"`` (system worse).
    df : int or None
        Degrees of freedom of the t-test.
    n_resamples : int or None
        Sign patterns used by the randomisation test (all ``2**m`` of them when exact).
    exact : bool or None
        Whether the p-value is exact: the randomisation test enumerated every sign pattern, or
        the Wilcoxon test used its exact null distribution (rather than the normal
        approximation).
    n_zero : int or None
        Zero differences (dropped by the Wilcoxon test, irrelevant to sign flips).
    """

    name: str
    statistic: float
    pvalue: float
    alternative: str
    df: int | None = None
    n_resamples: int | None = None
    exact: bool | None = None
    n_zero: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the test as a dict of built-in types."""
        return {
            "name": self.name,
            "statistic": float(self.statistic),
            "pvalue": float(self.pvalue),
            "alternative": self.alternative,
            "df": self.df,
            "n_resamples": self.n_resamples,
            "exact": self.exact,
            "n_zero": self.n_zero,
        }

    def __str__(self) -> str:
        if self.name == "randomization":
            how = "exact, all" if self.exact else "Monte Carlo,"
            return (
                f"randomisation test (sign-flip, {how} {self.n_resamples:,} sign patterns): "
                f"p = {format_p(self.pvalue)}"
            )
        if self.name == "t":
            return (
                f"paired t-test: t({self.df}) = {_fmt(self.statistic, 3)}, "
                f"p = {format_p(self.pvalue)}"
            )
        extra = f", {self.n_zero} zero differences dropped" if self.n_zero else ""
        return (
            f"Wilcoxon signed-rank: W = {_fmt(self.statistic, 1)}, "
            f"p = {format_p(self.pvalue)}{extra}"
        )


@dataclass(frozen=True)
class QueryDifference:
    """One query of a paired comparison: its id, both values and ``a - b``."""

    qid: Any
    a: float
    b: float
    difference: float

    def to_dict(self) -> dict[str, Any]:
        """Return the row as a dict of built-in types."""
        return {
            "qid": _py(self.qid),
            "a": float(self.a),
            "b": float(self.b),
            "difference": float(self.difference),
        }

    def __str__(self) -> str:
        return (
            f"{_fmt_qid(_py(self.qid))}: {_fmt(self.a)} vs {_fmt(self.b)} "
            f"({_fmt(self.difference, signed=True)})"
        )


@dataclass(frozen=True)
class DetectableDifference:
    """The minimum detectable difference of a paired design.

    The smallest true mean difference that a paired t-test on ``n`` queries detects with
    probability ``power`` at level ``alpha``, when the per-query differences have standard
    deviation ``sd``. See :func:`skrank.stats.minimum_detectable_difference`.
    """

    value: float
    n: int
    sd: float
    alpha: float
    power: float
    alternative: str
    method: str

    def to_dict(self) -> dict[str, Any]:
        """Return the quantity and its assumptions as a dict of built-in types."""
        return {
            "value": float(self.value),
            "n": int(self.n),
            "sd": float(self.sd),
            "alpha": float(self.alpha),
            "power": float(self.power),
            "alternative": self.alternative,
            "method": self.method,
        }

    def __str__(self) -> str:
        return (
            f"{_fmt(self.value)} (power {self.power:g}, alpha {self.alpha:g}, {self.alternative}, "
            f"{'paired t' if self.method == 't' else 'normal approximation'}, n = {self.n}, "
            f"SD of differences {_fmt(self.sd)})"
        )
