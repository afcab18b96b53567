"""Figures of a comparison (needs matplotlib: ``pip install 'skrank[plot]'``).

matplotlib is imported inside the functions; figures are built with its object-oriented API
(:class:`matplotlib.figure.Figure`), so no backend is selected and no global state changes.
"""

from __future__ import annotations

import math
import os
import re
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_choice, param_error
from ..metrics._spec import Metric
from ..segments import SegmentTable
from ..stats import ComparisonTable, PairedComparison

if TYPE_CHECKING:  # pragma: no cover
    from ._report import Report

__all__ = ["plot_differences", "plot_forest", "plot_metric_at_k",
           "plot_segments", "write_plots"]

PLOT_FORMATS = ("png", "svg")
_WIN, _LOSS, _TIE = "#1b7837", "#b2182b", "#999999"
#: Above this many queries the per-query differences are drawn as filled areas, not bars.
_MAX_BARS = 400


def _figure(figsize: tuple[float, float]) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - the plot extra is installed in tests
        raise ImportError(
            "Plotting needs matplotlib; install it with: pip install 'skrank[plot]'"
        ) from exc
    return Figure(figsize=figsize, layout="constrained")


def _text(value: Any) -> str:
    """A name for matplotlib: ``$`` is literal, never the start of mathtext."""
    return str(value).replace("$", r"\$")


def _title(ax: Any, title: str, conventions: str | None) -> None:
    """The title, and under it the conventions in small type (wrapped)."""
    if conventions:
        title += "\n" + "\n".join(textwrap.wrap(conventions, 95))
    ax.set_title(_text(title), fontsize="medium" if not conventions else "small")


def _save(fig: Any, path: Any) -> None:
    if path is not None:
        fig.savefig(os.fspath(path))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.replace("@", "_at_")).strip("_") or "plot"


def plot_differences(comparison: PairedComparison, path: Any = None, *,
                     title: str | None = None, conventions: str | None = None,
                     label_losses: int | None = None) -> Any:
    """Bar chart of the per-query differences, sorted, with the mean and its interval.

    The queries of the comparison's largest losses (``largest_losses``) are named on their
    bars. Above 400 queries the bars become two filled areas (losses and wins).

    Parameters
    ----------
    comparison : PairedComparison
        From :func:`skrank.stats.paired_comparison` (or ``Report.comparison``).
    path : str or path-like, optional
        Save the figure there (the format follows the suffix: ``.png``, ``.svg``, ...).
    title : str, optional
        Defaults to the systems, metric, mean difference, interval and p-value.
    conventions : str, optional
        The conventions of the metric, printed under the title.
    label_losses : int, optional
        How many of the largest losses to name (default: all of ``largest_losses``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.reports import plot_differences
    >>> from skrank.stats import paired_comparison
    >>> rng = np.random.default_rng(0)
    >>> comp = paired_comparison(rng.random(20), rng.random(20), metric="ndcg@10",
    ...                          name_a="new", name_b="old", n_resamples=200,
    ...                          n_permutations=200, rng=0)
    >>> fig = plot_differences(comp, conventions="gain=exp, ties=pessimistic")
    >>> fig.axes[0].get_title().splitlines()[1]
    'gain=exp, ties=pessimistic'
    """
    if not isinstance(comparison, PairedComparison):
        raise param_error("comparison", "a skrank.stats.PairedComparison",
                          type(comparison).__name__, "plot_differences")
    c = comparison
    raw = np.asarray(c.differences, dtype=np.float64)
    order = np.argsort(raw, kind="stable")
    d = raw[order]
    fig = _figure((7.0, 3.9 if conventions else 3.6))
    ax = fig.add_subplot()
    x = np.arange(d.size)
    if d.size <= _MAX_BARS:
        colors = np.where(d > 0, _WIN, np.where(d < 0, _LOSS, _TIE))
        ax.bar(x, d, width=0.85, color=colors)
    else:
        # the sorted differences as two filled areas through at most _MAX_BARS points of the
        # (monotone) curve, not thousands of bars: a light SVG, a readable PNG
        at = np.unique(np.linspace(0, d.size - 1, _MAX_BARS).round().astype(np.intp))
        at = np.union1d(at, [np.searchsorted(d, 0.0, "left"), np.searchsorted(d, 0.0, "right")]
                        ).clip(0, d.size - 1)
        ax.fill_between(x[at], np.minimum(d[at], 0.0), 0.0, color=_LOSS, linewidth=0)
        ax.fill_between(x[at], np.maximum(d[at], 0.0), 0.0, color=_WIN, linewidth=0)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.axhline(c.mean_difference, color="#2166ac", linewidth=1.2,
               label=f"mean {c.mean_difference:+.4f}")
    lo, hi = c.ci_bca.low, c.ci_bca.high
    if math.isfinite(lo) and math.isfinite(hi):
        ax.axhspan(lo, hi, color="#2166ac", alpha=0.15,
                   label=f"{c.confidence * 100:g}% CI [{lo:+.4f}, {hi:+.4f}]")
    losses = list(c.largest_losses)[:label_losses]
    if losses and len(c.qids) == raw.size:
        position = {str(q): i for i, q in enumerate(np.asarray(c.qids)[order].tolist())}
        wide = d.size <= 60  # bars wide enough for a name each (about 7 points or more)
        for rank, loss in enumerate(losses):
            i = position.get(str(loss.qid))
            if i is None:
                continue
            if wide:  # the query's name under its bar
                ax.annotate(_text(loss.qid), xy=(i, d[i]), xytext=(0, -3),
                            textcoords="offset points", fontsize="x-small", color=_LOSS,
                            rotation=90, va="top", ha="center")
            else:  # names one under the other, each tied to its query by a line
                ax.annotate(_text(loss.qid), xy=(i, d[i]), xytext=(14, -4 - 9 * rank),
                            textcoords="offset points", fontsize="x-small", color=_LOSS,
                            va="top", ha="left",
                            arrowprops={"arrowstyle": "-", "color": _LOSS, "lw": 0.5})
        low, high = float(d.min()), float(max(d.max(), 0.0))
        room = 0.3 if wide else 0.12 + 0.06 * len(losses)
        ax.set_ylim(low - room * max(high - low, 1e-9), None)
    metric = c.metric or "metric"
    ax.set_xlabel(f"query, sorted by difference ({c.wins} wins, {c.ties} ties, "
                  f"{c.losses} losses)")
    ax.set_ylabel(_text(f"{metric}: {c.name_a} - {c.name_b}"))
    ax.set_xlim(-0.6, max(d.size - 0.4, 0.6))
    ax.legend(loc="upper left", fontsize="small", frameon=False)
    _title(ax, title or f"{c.name_a} vs {c.name_b} on {metric} (n = {c.n}, "
           f"p = {c.pvalue:.3g})", conventions)
    _save(fig, path)
    return fig


def plot_forest(comparisons: ComparisonTable, path: Any = None, *, title: str | None = None,
                conventions: str | None = None) -> Any:
    """Forest plot: each comparison's mean difference with its confidence interval.

    One row per comparison of the table (``Report.comparisons``), from the top in the
    table's order; a filled dot marks a comparison significant after the correction.

    Parameters
    ----------
    comparisons : ComparisonTable
        From :func:`skrank.stats.comparison_table` or ``Report.comparisons``.
    path : str or path-like, optional
        Save the figure there.
    title : str, optional
        Defaults to what the differences and intervals are.
    conventions : str, optional
        The conventions of the metrics, printed under the title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(comparisons, ComparisonTable) or not len(comparisons):
        raise param_error("comparisons", "a non-empty skrank.stats.ComparisonTable",
                          type(comparisons).__name__, "plot_forest")
    rows = list(comparisons)
    first = rows[0].comparison
    fig = _figure((6.4, 1.3 + 0.45 * max(len(rows), 2) + (0.4 if conventions else 0)))
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    for yi, row in zip(y, rows):
        c = row.comparison
        color = _WIN if c.mean_difference > 0 else _LOSS if c.mean_difference < 0 else _TIE
        if math.isfinite(c.ci_bca.low) and math.isfinite(c.ci_bca.high):
            ax.plot([c.ci_bca.low, c.ci_bca.high], [yi, yi], color=color, linewidth=2)
        ax.plot([c.mean_difference], [yi], "o", color=color,
                markerfacecolor=color if row.reject else "white")
    ax.axvline(0.0, color="black", linewidth=0.8)
    labels = [_text(f"{r.name} (primary)" if r.role == "primary" else r.name) for r in rows]
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.grid(axis="x", alpha=0.3)
    system = first.name_a if len({r.comparison.name_a for r in rows}) == 1 else "system"
    ax.set_xlabel(_text(f"{system} - {first.name_b} ({first.confidence * 100:g}% CI, "
                        f"bootstrap BCa; filled: significant after {comparisons.correction})"))
    _title(ax, title or f"Differences with the baseline {first.name_b}", conventions)
    _save(fig, path)
    return fig


def plot_metric_at_k(curves: Mapping[str, tuple[Any, Any]], path: Any = None, *,
                     metric: str = "ndcg", title: str | None = None,
                     conventions: str | None = None) -> Any:
    """Line chart of ``metric@k`` against ``k``, one line per system.

    Parameters
    ----------
    curves : mapping of str to (ks, values)
        Per system, the cutoffs and the means (e.g. from :func:`metric_at_k`).
    path : str or path-like, optional
        Save the figure there.
    metric : str, default="ndcg"
        The metric's name, for the axis label.
    title : str, optional
        The figure's title.
    conventions : str, optional
        The conventions of the metric, printed under the title.

    Returns
    -------
    matplotlib.figure.Figure
        The cutoffs are on an axis with integer ticks only.

    Examples
    --------
    >>> from skrank.reports import plot_metric_at_k
    >>> fig = plot_metric_at_k({"model": ([1, 2, 3], [0.5, 0.6, 0.65])}, metric="ndcg")
    >>> ax = fig.axes[0]
    >>> low, high = ax.get_xlim()
    >>> [int(t) for t in ax.get_xticks() if low <= t <= high]
    [1, 2, 3]
    """
    if not isinstance(curves, Mapping) or not curves:
        raise param_error("curves", "a non-empty mapping of system names to (ks, values)",
                          curves, "plot_metric_at_k")
    from matplotlib.ticker import MaxNLocator

    fig = _figure((6.0, 4.1 if conventions else 3.8))
    ax = fig.add_subplot()
    for name, (ks, values) in curves.items():
        ax.plot(np.asarray(ks), np.asarray(values), marker="o", markersize=3,
                label=_text(name))
    label = Metric.parse(metric).display
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("k (cutoff)")
    ax.set_ylabel(f"{label}@k")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", frameon=False)
    _title(ax, title or f"{label}@k", conventions)
    _save(fig, path)
    return fig


def plot_segments(table: SegmentTable, path: Any = None, *, title: str | None = None,
                  conventions: str | None = None) -> Any:
    """The difference in each segment with its confidence interval (means without a baseline).

    Parameters
    ----------
    table : SegmentTable
        From :func:`skrank.segments.segment_table`.
    path : str or path-like, optional
        Save the figure there.
    title : str, optional
        Defaults to the table's title.
    conventions : str, optional
        The conventions of the metric, printed under the title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(table, SegmentTable):
        raise param_error("table", "a skrank.segments.SegmentTable", type(table).__name__,
                          "plot_segments")
    rows = list(table)
    fig = _figure((6.0, 1.0 + 0.55 * max(len(rows), 2) + (0.4 if conventions else 0)))
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    labels = [_text(f"{r.segment} (n = {r.n})") for r in rows]
    if table.paired:
        for yi, r in zip(y, rows):
            if not math.isfinite(r.difference):
                continue
            color = _WIN if r.difference > 0 else _LOSS if r.difference < 0 else _TIE
            if r.ci is not None and math.isfinite(r.ci.low):
                ax.plot([r.ci.low, r.ci.high], [yi, yi], color=color, linewidth=2)
            ax.plot([r.difference], [yi], "o", color=color)
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel(_text(f"{table.metric or 'metric'}: {table.name_a} - {table.name_b} "
                            f"({table.confidence * 100:g}% CI)"))
    else:
        ax.barh(y, [r.mean_a for r in rows], color="#2166ac")
        ax.set_xlabel(_text(f"mean {table.metric or 'metric'} of {table.name_a}"))
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.grid(axis="x", alpha=0.3)
    _title(ax, title or table.title(), conventions)
    _save(fig, path)
    return fig


def write_plots(report: Report, directory: Any, *, format: str = "png",
                curves: Mapping[str, Mapping[str, tuple[Any, Any]]] | None = None
                ) -> list[Path]:
    """Write every figure of a report into ``directory`` (created if needed).

    Files: ``forest.<format>`` (the forest plot of every comparison, with a baseline),
    ``differences_<comparison>.<format>`` per comparison,
    ``segments_<segmentation>_<system>.<format>`` per segment table and, when ``curves``
    (``{metric: {system: (ks, values)}}``) is given, ``<metric>_at_k.<format>``.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    fmt = check_choice("format", format, PLOT_FORMATS, "write_plots")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if report.comparisons is not None:
        path = out / f"forest.{fmt}"
        plot_forest(report.comparisons, path, conventions=_all_conventions(report))
        written.append(path)
        for row in report.comparisons:
            path = out / f"differences_{_slug(row.name)}.{fmt}"
            plot_differences(row.comparison, path,
                             conventions=report.conventions(row.comparison.metric))
            written.append(path)
    for table in report.segments:
        path = out / f"segments_{_slug(table.name)}_{_slug(table.name_a)}.{fmt}"
        plot_segments(table, path, conventions=report.conventions(table.metric)
                      if table.metric else None)
        written.append(path)
    for metric, per_system in (curves or {}).items():
        path = out / f"{_slug(str(metric))}_at_k.{fmt}"
        plot_metric_at_k(per_system, path, metric=metric, conventions=_curve_conventions(
            report, metric))
        written.append(path)
    return written


def _all_conventions(report: Report) -> str:
    """The conventions of every metric of a report, one clause per metric."""
    return "; ".join(f"{m}: {report.conventions(m)}" for m in report.metrics)


def _curve_conventions(report: Report, metric: str) -> str | None:
    """The conventions of the report's metric of family ``metric`` (None if none is)."""
    name = Metric.parse(metric).name
    for m in report.metrics:
        if m.name == name:
            return report.conventions(m)
    return None
