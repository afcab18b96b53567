"""Comparison results of :mod:`skrank.stats`: one paired comparison, and families of them.

:class:`PairedComparison` (everything :func:`skrank.stats.paired_comparison` computes),
:class:`MultipleComparisons` (a family's adjusted p-values) and :class:`ComparisonTable` of
:class:`ComparisonRow` (several comparisons under one correction). They are built from the
pieces of :mod:`skrank.stats._results` and follow its conventions: frozen, ``to_dict()`` of
built-in types only, and a short report as ``str(result)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_choice
from ._results import (
    DetectableDifference,
    Interval,
    QueryDifference,
    SignificanceTest,
    _fmt,
    _py,
    format_p,
)
from ._table import RowTable, text_table

__all__ = [
    "ComparisonRow",
    "ComparisonTable",
    "MultipleComparisons",
    "PairedComparison",
]

# --------------------------------------------------------------------------- paired comparison


@dataclass(frozen=True, eq=False)
class PairedComparison:
    """Everything :func:`skrank.stats.paired_comparison` computes about system *a* vs *b*.

    Differences are always ``a - b`` (system minus baseline): for a metric where higher is
    better, a positive difference means the system is better.

    Attributes
    ----------
    metric : str or None
        Label of the metric compared (display only).
    name_a, name_b : str
        Labels of the two systems (display only).
    n : int
        Number of queries compared (after ``nan_policy="omit"``).
    n_omitted : int
        Queries dropped because one of the two values was NaN.
    omitted_qids : tuple
        Their ids.
    mean_a, mean_b : float
        Means of the two systems over the ``n`` compared queries.
    mean_difference : float
        Mean of the per-query differences (``mean_a - mean_b`` up to ``tie_tol``).
    sd_difference : float
        Standard deviation of the per-query differences (``ddof=1``).
    confidence : float
        Confidence level of the intervals.
    alternative : str
        Alternative hypothesis of the tests.
    ci_percentile, ci_bca : Interval
        Paired bootstrap intervals of the mean difference (always two-sided).
    ci_t : Interval
        Student-t interval of the mean difference (two-sided).
    randomization, t_test, wilcoxon : SignificanceTest
        The three tests of the paired differences.
    effect_size : float
        Cohen's d_z: mean difference / SD of the differences (``nan`` when the SD is 0).
    effect_size_name : str
        ``"cohen_dz"``.
    wins, ties, losses : int
        Queries where ``a - b`` is above ``tie_tol``, within it, below ``-tie_tol``.
    tie_tol : float
        Absolute tolerance below which a difference counts as zero everywhere.
    largest_losses : tuple of QueryDifference
        The queries where the system loses most, worst first.
    mdd : DetectableDifference
        The minimum detectable difference for this number of queries.
    seed : int
        The seed that reproduces the resampling (drawn from the OS when ``seed=None``).
    qids, a, b, differences : ndarray
        Per-query ids, values and (tolerance-cleaned) differences, aligned.
    notes : tuple of str
        Remarks on degenerate cases (for example all differences zero).
    """

    metric: str | None
    name_a: str
    name_b: str
    n: int
    n_omitted: int
    omitted_qids: tuple
    mean_a: float
    mean_b: float
    mean_difference: float
    sd_difference: float
    confidence: float
    alternative: str
    ci_percentile: Interval
    ci_bca: Interval
    ci_t: Interval
    randomization: SignificanceTest
    t_test: SignificanceTest
    wilcoxon: SignificanceTest
    effect_size: float
    effect_size_name: str
    wins: int
    ties: int
    losses: int
    tie_tol: float
    largest_losses: tuple[QueryDifference, ...]
    mdd: DetectableDifference
    seed: int | None
    qids: np.ndarray = field(repr=False)
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    differences: np.ndarray = field(repr=False)
    notes: tuple[str, ...] = ()

    @property
    def confidence_level(self) -> float:
        """The confidence level, by the name of the parameter that set it (``confidence``
        is the same number)."""
        return self.confidence

    # -- convenience -------------------------------------------------------------------
    @property
    def ci(self) -> Interval:
        """The recommended interval: bootstrap BCa."""
        return self.ci_bca

    @property
    def pvalue(self) -> float:
        """The p-value of the randomisation (sign-flip) test, the primary test."""
        return self.randomization.pvalue

    @property
    def pvalues(self) -> dict[str, float]:
        """The p-values of the three tests, keyed ``"randomization"``, ``"t"``, ``"wilcoxon"``."""
        return {
            "randomization": self.randomization.pvalue,
            "t": self.t_test.pvalue,
            "wilcoxon": self.wilcoxon.pvalue,
        }

    def test(self, name: str = "randomization") -> SignificanceTest:
        """Return the test called ``name`` (``"randomization"``, ``"t"`` or ``"wilcoxon"``)."""
        check_choice("name", name, ("randomization", "t", "wilcoxon"), "PairedComparison.test")
        return {"randomization": self.randomization, "t": self.t_test, "wilcoxon": self.wilcoxon}[
            name
        ]

    # -- conversions -------------------------------------------------------------------
    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        """Return the comparison as nested dicts of built-in types (JSON-ready).

        Parameters
        ----------
        per_query : bool, default=False
            Also include the per-query ids, values and differences.
        """
        out: dict[str, Any] = {
            "metric": self.metric,
            "name_a": self.name_a,
            "name_b": self.name_b,
            "n": int(self.n),
            "n_omitted": int(self.n_omitted),
            "omitted_qids": _py(list(self.omitted_qids)),
            "mean_a": float(self.mean_a),
            "mean_b": float(self.mean_b),
            "mean_difference": float(self.mean_difference),
            "sd_difference": float(self.sd_difference),
            "confidence": float(self.confidence),
            "alternative": self.alternative,
            "ci": {
                "percentile": self.ci_percentile.to_dict(),
                "bca": self.ci_bca.to_dict(),
                "t": self.ci_t.to_dict(),
            },
            "tests": {
                "randomization": self.randomization.to_dict(),
                "t": self.t_test.to_dict(),
                "wilcoxon": self.wilcoxon.to_dict(),
            },
            "effect_size": {"name": self.effect_size_name, "value": float(self.effect_size)},
            "wins": int(self.wins),
            "ties": int(self.ties),
            "losses": int(self.losses),
            "tie_tol": float(self.tie_tol),
            "largest_losses": [q.to_dict() for q in self.largest_losses],
            "minimum_detectable_difference": self.mdd.to_dict(),
            "seed": self.seed,
            "notes": list(self.notes),
        }
        if per_query:
            out["per_query"] = {
                "qid": _py(self.qids),
                "a": [float(v) for v in self.a],
                "b": [float(v) for v in self.b],
                "difference": [float(v) for v in self.differences],
            }
        return out

    def to_record(self, test: str = "randomization") -> dict[str, Any]:
        """Return one flat row (for a CSV line or a pandas DataFrame).

        Parameters
        ----------
        test : {"randomization", "t", "wilcoxon"}, default="randomization"
            The test whose p-value fills the ``pvalue`` column.
        """
        t = self.test(test)
        return {
            "metric": self.metric,
            "name_a": self.name_a,
            "name_b": self.name_b,
            "n": int(self.n),
            "mean_a": float(self.mean_a),
            "mean_b": float(self.mean_b),
            "difference": float(self.mean_difference),
            "ci_low": float(self.ci_bca.low),
            "ci_high": float(self.ci_bca.high),
            "ci_method": self.ci_bca.method,
            "confidence": float(self.confidence),
            "test": t.name,
            "pvalue": float(t.pvalue),
            "effect_size": float(self.effect_size),
            "wins": int(self.wins),
            "ties": int(self.ties),
            "losses": int(self.losses),
            "mdd": float(self.mdd.value),
        }

    def __repr__(self) -> str:
        return (
            f"PairedComparison(metric={self.metric!r}, n={self.n}, "
            f"mean_difference={self.mean_difference:.6g}, ci_bca=({self.ci_bca.low:.6g}, "
            f"{self.ci_bca.high:.6g}), pvalue={self.pvalue:.6g})"
        )

    def __str__(self) -> str:
        pct = f"{self.confidence * 100:g}%"
        what = f" on {self.metric}" if self.metric else ""
        omitted = f", {self.n_omitted} omitted (NaN)" if self.n_omitted else ""
        lines = [
            f"Paired comparison of {self.name_a} vs {self.name_b}{what} "
            f"(n = {self.n} queries{omitted}; differences are {self.name_a} - {self.name_b})",
            f"  mean {self.name_a} {_fmt(self.mean_a)}, {self.name_b} {_fmt(self.mean_b)}, "
            f"difference {_fmt(self.mean_difference, signed=True)}",
            f"  {pct} CI, paired bootstrap BCa: {self.ci_bca}; percentile: {self.ci_percentile}; "
            f"t: {self.ci_t} ({self.ci_bca.n_resamples:,} resamples)",
            f"  {self.randomization}",
            f"  {self.t_test}",
            f"  {self.wilcoxon}",
            f"  effect size (Cohen's d_z): {_fmt(self.effect_size, 3)}",
            f"  wins / ties / losses: {self.wins} / {self.ties} / {self.losses}"
            + (f" (|difference| <= {self.tie_tol:g} is a tie)" if self.tie_tol else ""),
        ]
        mdd_line = f"  minimum detectable difference: {self.mdd}"
        if abs(self.mean_difference) < self.mdd.value:
            mdd_line += "; the observed |difference| is below it"
        lines.append(mdd_line)
        if self.largest_losses:
            lines.append(f"  largest losses ({self.name_a} vs {self.name_b}):")
            lines.extend(f"    {q}" for q in self.largest_losses)
        lines.append(
            f"  alternative: {self.alternative}; seed: {self.seed}"
        )
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)


# --------------------------------------------------------------------------- corrections


@dataclass(frozen=True, eq=False)
class MultipleComparisons:
    """Adjusted p-values of a family of tests (:func:`skrank.stats.multiple_comparisons`).

    Attributes
    ----------
    names : tuple of str or None
        Labels of the tests when given as a mapping.
    pvalues : ndarray
        The raw p-values, in input order.
    pvalues_adjusted : ndarray
        The adjusted p-values, in input order.
    reject : ndarray of bool
        ``pvalues_adjusted <= alpha``.
    method : str
        ``"holm"``, ``"bh"``, ``"bonferroni"`` or ``"none"``.
    alpha : float
        The family-wise error rate (Holm, Bonferroni) or false discovery rate (BH).
    """

    names: tuple[str, ...] | None
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    reject: np.ndarray
    method: str
    alpha: float

    def __len__(self) -> int:
        return int(self.pvalues.size)

    def to_dict(self) -> dict[str, Any]:
        """Return the correction as a dict of built-in types."""
        return {
            "method": self.method,
            "alpha": float(self.alpha),
            "names": None if self.names is None else list(self.names),
            "pvalues": [float(p) for p in self.pvalues],
            "pvalues_adjusted": [float(p) for p in self.pvalues_adjusted],
            "reject": [bool(r) for r in self.reject],
        }

    def __repr__(self) -> str:
        return (
            f"MultipleComparisons(method={self.method!r}, alpha={self.alpha}, "
            f"pvalues_adjusted={np.array2string(self.pvalues_adjusted, precision=4)})"
        )

    def __str__(self) -> str:
        names = self.names or tuple(str(i) for i in range(len(self)))
        width = max(4, *(len(n) for n in names))
        lines = [
            f"{self.method} correction of {len(self)} p-values at alpha = {self.alpha:g}",
            f"  {'test':<{width}}  {'p':>8}  {'adjusted':>8}  reject",
        ]
        for name, p, q, r in zip(names, self.pvalues, self.pvalues_adjusted, self.reject):
            verdict = "yes" if r else "no"
            lines.append(f"  {name:<{width}}  {format_p(p):>8}  {format_p(q):>8}  {verdict}")
        return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class ComparisonRow:
    """One row of a :class:`ComparisonTable`.

    Attributes
    ----------
    name : str
        The comparison's label.
    comparison : PairedComparison
        Everything computed for it.
    role : str
        ``"primary"`` (pre-registered: reported uncorrected, tested at ``alpha``) or
        ``"secondary"`` (corrected within the family of the other comparisons).
    pvalue : float
        The raw p-value of the table's test.
    pvalue_adjusted : float
        The corrected p-value (equal to ``pvalue`` for the primary comparison).
    reject : bool
        ``pvalue_adjusted <= alpha``.
    """

    name: str
    comparison: PairedComparison
    role: str
    pvalue: float
    pvalue_adjusted: float
    reject: bool

    def to_record(self) -> dict[str, Any]:
        """Return the row flat (for CSV or pandas)."""
        rec = {"name": self.name, "role": self.role}
        rec.update(self.comparison.to_record())
        rec["pvalue"] = float(self.pvalue)
        rec["pvalue_adjusted"] = float(self.pvalue_adjusted)
        rec["reject"] = bool(self.reject)
        return rec


@dataclass(frozen=True, eq=False)
class ComparisonTable(RowTable[ComparisonRow]):
    """Several paired comparisons with one multiple-comparison correction.

    Built by :func:`skrank.stats.compare_many` or :func:`skrank.stats.comparison_table`.
    Iterate over it for :class:`ComparisonRow` objects, index it by position or name.

    Attributes
    ----------
    rows : tuple of ComparisonRow
        One per comparison, in input order.
    correction : str
        The correction applied to the secondary comparisons.
    test : str
        The test whose p-values are corrected.
    alpha : float
        The level at which ``reject`` is decided.
    primary : str or None
        The name of the pre-registered primary comparison.
    """

    rows: tuple[ComparisonRow, ...]
    correction: str
    test: str
    alpha: float
    primary: str | None

    _row_key, _row_word, _names_word = "name", "comparison", "names"

    @property
    def names(self) -> tuple[str, ...]:
        """The comparisons' names, in order."""
        return tuple(r.name for r in self.rows)

    def to_records(self) -> list[dict[str, Any]]:
        """Return one flat dict per row (``pandas.DataFrame(table.to_records())`` works)."""
        return [r.to_record() for r in self.rows]

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        """Return the table as nested dicts of built-in types (JSON-ready)."""
        return {
            "correction": self.correction,
            "test": self.test,
            "alpha": float(self.alpha),
            "primary": self.primary,
            "rows": [
                {
                    "name": r.name,
                    "role": r.role,
                    "pvalue": float(r.pvalue),
                    "pvalue_adjusted": float(r.pvalue_adjusted),
                    "reject": bool(r.reject),
                    "comparison": r.comparison.to_dict(per_query=per_query),
                }
                for r in self.rows
            ],
        }

    def __repr__(self) -> str:
        return (
            f"ComparisonTable(names={list(self.names)!r}, correction={self.correction!r}, "
            f"test={self.test!r}, primary={self.primary!r})"
        )

    def __str__(self) -> str:
        if not self.rows:
            return "ComparisonTable (empty)"
        pct = f"{self.rows[0].comparison.confidence * 100:g}% CI"
        header = ["comparison", "role", "n", "mean a", "mean b", "diff", pct, "p", "p adj",
                  "W/T/L", "MDD"]
        body = []
        for r in self.rows:
            c = r.comparison
            body.append([
                r.name,
                r.role,
                str(c.n),
                _fmt(c.mean_a),
                _fmt(c.mean_b),
                _fmt(c.mean_difference, signed=True),
                str(c.ci_bca),
                format_p(r.pvalue),
                format_p(r.pvalue_adjusted) + (" *" if r.reject else ""),
                f"{c.wins}/{c.ties}/{c.losses}",
                _fmt(c.mdd.value),
            ])
        if self.primary is None:
            how = f"{self.correction} correction over all {len(self.rows)} comparisons"
        else:
            how = (f"primary {self.primary!r} uncorrected (pre-registered), {self.correction} "
                   f"correction over the other {len(self.rows) - 1}")
        lines = [
            f"{self.test} test p-values; {how}; * = significant at alpha = {self.alpha:g}",
            *text_table(header, body, left=2),
        ]
        return "\n".join(lines)
