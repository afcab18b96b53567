"""Per-segment tables: a system compared with a baseline within each segment of the queries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._text import listing
from .._validation import (
    SEED,
    Options,
    param_error,
    public_name,
    renamed_parameters,
    validate_params,
)
from ..stats import Interval, PairedComparison, multiple_comparisons, paired_comparison
from ..stats._checks import ALTERNATIVE, OPEN_UNIT, POSITIVE_INT
from ..stats._corrections import CORRECTIONS, TESTS
from ..stats._results import format_p
from ..stats._table import RowTable, text_table
from ._common import _as_1d, _same_length
from ._segmentation import Segmentation
from ._text import _fmt_ci, _fmt_num

#: Below this many queries a segment's bootstrap interval is flagged as unreliable.
SMALL_SEGMENT = 10


@dataclass(frozen=True, eq=False)
class SegmentRow:
    """One segment of a :class:`SegmentTable`.

    Attributes
    ----------
    segment : str
        The segment's name.
    n : int
        Queries of the segment that enter the comparison.
    n_omitted : int
        Queries of the segment left out because a value was NaN (``empty="exclude"``).
    mean_a, mean_b : float
        Means of the system and of the baseline (``mean_b`` is NaN without a baseline).
    difference : float
        ``mean_a - mean_b`` over the segment's queries.
    ci : Interval or None
        Paired bootstrap BCa interval of the difference (None below 2 queries).
    pvalue : float
        Raw p-value of the table's test (NaN below 2 queries).
    pvalue_adjusted : float
        p-value corrected over the segments of the table.
    reject : bool
        ``pvalue_adjusted <= alpha``.
    wins, ties, losses : int
        Queries where the system is better, equal, worse.
    comparison : PairedComparison or None
        Everything :func:`skrank.stats.paired_comparison` computed for the segment.
    """

    segment: str
    n: int
    n_omitted: int
    mean_a: float
    mean_b: float
    difference: float
    ci: Interval | None
    pvalue: float
    pvalue_adjusted: float
    reject: bool
    wins: int
    ties: int
    losses: int
    comparison: PairedComparison | None = None

    def to_record(self) -> dict[str, Any]:
        """The row as a flat dict of built-in types (NaN for undefined numbers)."""
        nan = float("nan")
        return {
            "segment": self.segment,
            "n": self.n,
            "n_omitted": self.n_omitted,
            "mean_a": float(self.mean_a),
            "mean_b": float(self.mean_b),
            "difference": float(self.difference),
            "ci_low": float(self.ci.low) if self.ci is not None else nan,
            "ci_high": float(self.ci.high) if self.ci is not None else nan,
            "pvalue": float(self.pvalue),
            "pvalue_adjusted": float(self.pvalue_adjusted),
            "reject": bool(self.reject),
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
        }


@dataclass(frozen=True, eq=False)
class SegmentTable(RowTable[SegmentRow]):
    """Per-segment comparison of a system with a baseline (see :func:`segment_table`).

    Iterate over it for :class:`SegmentRow` objects; index it by position or segment name.

    Attributes
    ----------
    segmentation : Segmentation
        The segments.
    rows : tuple of SegmentRow
        One per segment, in the segmentation's order.
    metric : str or None
        The metric compared.
    name_a, name_b : str or None
        The system and the baseline (``name_b`` is None without a baseline).
    correction, test : str
        The multiple-comparison correction over the segments and the test it corrects.
    alpha, confidence : float
        Level of ``reject`` and of the intervals.
    seed : int or None
        The seed of the resampling.
    """

    segmentation: Segmentation
    rows: tuple[SegmentRow, ...]
    metric: str | None
    name_a: str
    name_b: str | None
    correction: str
    test: str
    alpha: float
    confidence: float
    seed: int | None

    _row_key, _row_word, _names_word = "segment", "segment", "segments"

    @property
    def confidence_level(self) -> float:
        """The confidence level, by the name of the parameter that set it (``confidence``
        is the same number)."""
        return self.confidence

    @property
    def name(self) -> str:
        """The segmentation's name."""
        return self.segmentation.name

    @property
    def paired(self) -> bool:
        """Whether there is a baseline (and so differences and tests)."""
        return self.name_b is not None

    def title(self) -> str:
        """One line saying what the table compares."""
        what = f"{self.name_a} vs {self.name_b}" if self.paired else self.name_a
        metric = f" on {self.metric}" if self.metric else ""
        return f"Segments by {self.name}: {what}{metric}"

    def method(self) -> str:
        """One line saying how the p-values and intervals were computed."""
        if not self.paired:
            return self.segmentation.description
        pct = f"{self.confidence * 100:g}%"
        return (f"{self.segmentation.description}; {pct} paired bootstrap BCa intervals; "
                f"{self.test} test p-values, {self.correction} correction over the "
                f"{sum(1 for r in self.rows if r.n >= 2)} segments with 2 or more queries; "
                f"* = significant at alpha = {self.alpha:g}")

    def to_records(self) -> list[dict[str, Any]]:
        """One flat dict per segment, with the table's metric and systems."""
        out = []
        for row in self.rows:
            rec = {"segmentation": self.name, "metric": self.metric, "name_a": self.name_a,
                   "name_b": self.name_b}
            rec.update(row.to_record())
            out.append(rec)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The table as nested dicts of built-in types (JSON-ready)."""
        return {
            "segmentation": self.segmentation.to_dict(),
            "metric": self.metric,
            "name_a": self.name_a,
            "name_b": self.name_b,
            "correction": self.correction,
            "test": self.test,
            "alpha": float(self.alpha),
            "confidence": float(self.confidence),
            "seed": self.seed,
            "rows": [r.to_record() for r in self.rows],
        }

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Header and cells of the table as strings (for text and markdown reports)."""
        if not self.paired:
            header = ["segment", "n", f"mean {self.name_a}"]
            return header, [[r.segment, str(r.n), _fmt_num(r.mean_a)] for r in self.rows]
        pct = f"{self.confidence * 100:g}% CI"
        header = ["segment", "n", f"mean {self.name_a}", f"mean {self.name_b}", "diff", pct,
                  "p", f"p {self.correction}", "W/T/L"]
        body = []
        for r in self.rows:
            body.append([
                r.segment, str(r.n), _fmt_num(r.mean_a), _fmt_num(r.mean_b),
                _fmt_num(r.difference, signed=True), _fmt_ci(r.ci), format_p(r.pvalue),
                format_p(r.pvalue_adjusted) + (" *" if r.reject else ""),
                f"{r.wins}/{r.ties}/{r.losses}",
            ])
        return header, body

    def footnotes(self) -> list[str]:
        """Remarks printed under the table: small segments, queries left out."""
        notes = []
        small = [r.segment for r in self.rows if self.paired and 2 <= r.n < SMALL_SEGMENT]
        if small:
            notes.append(f"fewer than {SMALL_SEGMENT} queries in {listing(small)}: the "
                         "bootstrap interval is unreliable there (the randomisation p-value "
                         "stays valid)")
        if self.paired and any(r.n < 2 for r in self.rows):
            notes.append("segments with fewer than 2 queries have no test")
        omitted = sum(r.n_omitted for r in self.rows)
        if omitted:
            notes.append(f"{omitted} {'query' if omitted == 1 else 'queries'} without a value "
                         "(no relevant document, empty=exclude) left out")
        return notes

    def __str__(self) -> str:
        header, body = self.table()
        lines = [self.title(), self.method(), *text_table(header, body)]
        lines += [f"note: {n}" for n in self.footnotes()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"SegmentTable(name={self.name!r}, metric={self.metric!r}, "
                f"segments={[r.segment for r in self.rows]!r})")


@renamed_parameters(seed="rng", confidence="confidence_level")
@validate_params({  # the statistics' parameters are checked even where no segment is tested
    "correction": Options(CORRECTIONS),
    "test": Options(TESTS),
    "alpha": OPEN_UNIT,
    "confidence_level": OPEN_UNIT,
    "alternative": ALTERNATIVE,
    "n_resamples": POSITIVE_INT,
    "n_permutations": POSITIVE_INT,
    "rng": SEED,
})
def segment_table(
    a: Any,
    b: Any,
    segmentation: Segmentation,
    *,
    qids: Any,
    metric: str | None = None,
    name_a: str = "system",
    name_b: str = "baseline",
    correction: str = "holm",
    test: str = "randomization",
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    n_permutations: int = 10_000,
    rng: int | None = None,
) -> SegmentTable:
    """Compare a system with a baseline within each segment of the queries.

    Parameters
    ----------
    a : array-like of shape (n_queries,)
        Per-query values of the system, e.g. ``MetricResult.per_query``; NaN marks a query
        excluded by ``empty="exclude"`` (left out and counted in ``n_omitted``).
    b : array-like of shape (n_queries,) or None
        Per-query values of the baseline, aligned with ``a``; None reports the means of
        ``a`` per segment only.
    segmentation : Segmentation
        The segments; it must give a segment to every query of ``qids``.
    qids : array-like of shape (n_queries,)
        Query ids of ``a`` and ``b``.
    metric : str or None
        Label of the metric, for display.
    name_a, name_b : str
        Labels of the system and of the baseline.
    correction : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Correction of the p-values over the segments of the table (segments with fewer
        than 2 queries have no test and are not counted).
    test : {"randomization", "t", "wilcoxon"}, default="randomization"
        The test whose p-value is reported and corrected.
    alpha, confidence_level, alternative, n_resamples, n_permutations, rng
        As in :func:`skrank.stats.paired_comparison`; every segment uses the same seed
        (``rng=None``, the default as everywhere in skrank, draws one and reports it).

    Returns
    -------
    SegmentTable

    Raises
    ------
    InputError
        Lengths differ, or some queries have no segment (they are named).
    """
    seed, confidence = rng, confidence_level  # the names used below
    caller = public_name()
    if not isinstance(segmentation, Segmentation):
        raise param_error("segmentation", "a skrank.segments.Segmentation",
                          type(segmentation).__name__, caller)
    q = _as_1d(qids, "qids")
    av = _as_1d(a, "a").astype(np.float64)
    _same_length(av, q, "a")
    bv = None
    if b is not None:
        bv = _as_1d(b, "b").astype(np.float64)
        _same_length(bv, q, "b")
    if seed is None:  # one seed for every segment, reported with the table
        seed = int(np.random.default_rng().integers(0, 2**63))
    labels = segmentation.labels_for(q)
    nan = np.isnan(av) if bv is None else (np.isnan(av) | np.isnan(bv))

    rows: list[SegmentRow] = []
    pending: list[tuple[str, int, int, PairedComparison | None, np.ndarray]] = []
    for seg in segmentation.order:
        in_seg = labels == seg
        keep = in_seg & ~nan
        n, n_omit = int(keep.sum()), int((in_seg & nan).sum())
        comp = None
        if bv is not None and n >= 2:
            comp = paired_comparison(
                av[keep], bv[keep], qids_a=q[keep], metric=metric, name_a=name_a,
                name_b=name_b, n_resamples=n_resamples, n_permutations=n_permutations,
                confidence_level=confidence, alternative=alternative, rng=seed, top_losses=0,
                progress=False,
            )
        pending.append((seg, n, n_omit, comp, keep))

    raw = [c.test(test).pvalue for _, _, _, c, _ in pending if c is not None]
    adjusted = iter(multiple_comparisons(raw, correction, alpha=alpha).pvalues_adjusted
                    if raw else [])
    nan_f = float("nan")
    for seg, n, n_omit, comp, keep in pending:
        mean_a = float(av[keep].mean()) if n else nan_f
        if comp is not None:
            p_adj = float(next(adjusted))
            rows.append(SegmentRow(
                seg, n, n_omit, comp.mean_a, comp.mean_b, comp.mean_difference, comp.ci_bca,
                comp.test(test).pvalue, p_adj, p_adj <= alpha, comp.wins, comp.ties,
                comp.losses, comp,
            ))
            continue
        mean_b = float(bv[keep].mean()) if (bv is not None and n) else nan_f
        d = (av[keep] - bv[keep]) if bv is not None else np.zeros(0)
        rows.append(SegmentRow(
            seg, n, n_omit, mean_a, mean_b, mean_a - mean_b, None, nan_f, nan_f, False,
            int((d > 1e-12).sum()), int((np.abs(d) <= 1e-12).sum()), int((d < -1e-12).sum()),
        ))
    return SegmentTable(segmentation, tuple(rows), metric, name_a,
                        name_b if bv is not None else None, correction, test, alpha,
                        confidence, seed)
