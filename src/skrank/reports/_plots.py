"""Figures of a comparison (needs matplotlib: ``pip install 'skrank[plot]'``).

matplotlib is imported inside the functions; figures are built with its object-oriented API
(:class:`matplotlib.figure.Figure`), so no backend is selected and no global state changes.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_choice, param_error
from ..metrics._spec import Metric
from ..segments import SegmentTable
from ..stats import PairedComparison

if TYPE_CHECKING:  # pragma: no cover
    from ._report import Report

__all__ = ["metric_at_k", "plot_differences", "plot_metric_at_k", "plot_segments",
           "write_plots"]

PLOT_FORMATS = ("png", "svg")
_WIN, _LOSS, _TIE = "#1b7837", "#b2182b", "#999999"


def _figure(figsize: tuple[float, float]) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - the plot extra is installed in tests
        raise ImportError(
            "Plotting needs matplotlib; install it with: pip install 'skrank[plot]'"
        ) from exc
    return Figure(figsize=figsize, layout="constrained")


def _save(fig: Any, path: Any) -> None:
    if path is not None:
        fig.savefig(os.fspath(path))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.replace("@", "_at_")).strip("_") or "plot"


def plot_differences(comparison: PairedComparison, path: Any = None, *,
                     title: str | None = None) -> Any:
    """Bar chart of the per-query differences, sorted, with the mean and its interval.

    Parameters
    ----------
    comparison : PairedComparison
        From :func:`skrank.stats.paired_comparison` (or ``Report.comparison``).
    path : str or path-like, optional
        Save the figure there (the format follows the suffix: ``.png``, ``.svg``, ...).
    title : str, optional
        Defaults to the systems, metric, mean difference, interval and p-value.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(comparison, PairedComparison):
        raise param_error("comparison", "a skrank.stats.PairedComparison",
                          type(comparison).__name__, "plot_differences")
    c = comparison
    d = np.sort(np.asarray(c.differences, dtype=np.float64))
    fig = _figure((7.0, 3.6))
    ax = fig.add_subplot()
    x = np.arange(d.size)
    colors = np.where(d > 0, _WIN, np.where(d < 0, _LOSS, _TIE))
    ax.bar(x, d, width=0.85, color=colors)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.axhline(c.mean_difference, color="#2166ac", linewidth=1.2,
               label=f"mean {c.mean_difference:+.4f}")
    lo, hi = c.ci_bca.low, c.ci_bca.high
    if math.isfinite(lo) and math.isfinite(hi):
        ax.axhspan(lo, hi, color="#2166ac", alpha=0.15,
                   label=f"{c.confidence * 100:g}% CI [{lo:+.4f}, {hi:+.4f}]")
    metric = c.metric or "metric"
    ax.set_xlabel(f"query, sorted by difference ({c.wins} wins, {c.ties} ties, "
                  f"{c.losses} losses)")
    ax.set_ylabel(f"{metric}: {c.name_a} - {c.name_b}")
    ax.set_xlim(-0.6, max(d.size - 0.4, 0.6))
    ax.legend(loc="upper left", fontsize="small", frameon=False)
    ax.set_title(title or f"{c.name_a} vs {c.name_b} on {metric} (n = {c.n}, "
                 f"p = {c.pvalue:.3g})", fontsize="medium")
    _save(fig, path)
    return fig


def metric_at_k(y_true: Any, y_score: Any, qid: Any = None, *, metric: str = "ndcg",
                ks: Iterable[int] = range(1, 21), **evaluate_kwargs: Any
                ) -> tuple[np.ndarray, np.ndarray]:
    """The mean of ``metric@k`` for each cutoff ``k`` (one :func:`skrank.evaluate` pass).

    Parameters
    ----------
    y_true, y_score, qid
        As in :func:`skrank.evaluate`.
    metric : str, default="ndcg"
        A metric name without cutoff (``"ndcg"``, ``"p"``, ``"r"``, ``"ap"``, ...).
    ks : iterable of int, default=range(1, 21)
        The cutoffs.
    **evaluate_kwargs
        Conventions and other arguments of :func:`skrank.evaluate`.

    Returns
    -------
    ks : ndarray of int
    values : ndarray of float

    Examples
    --------
    >>> from skrank.reports import metric_at_k
    >>> ks, values = metric_at_k([1, 0, 1], [0.9, 0.8, 0.1], [1, 1, 1], metric="p", ks=[1, 2, 3])
    >>> ks.tolist(), values.round(4).tolist()
    ([1, 2, 3], [1.0, 0.5, 0.6667])
    """
    from ..metrics._evaluate import evaluate

    base = Metric.parse(metric)
    k_list = [int(k) for k in ks]
    if not k_list:
        raise param_error("ks", "a non-empty sequence of cutoffs", ks, "metric_at_k")
    names = [Metric(base.name, k) for k in k_list]
    res = evaluate(y_true, y_score, qid, metrics=names, _caller="metric_at_k",
                   **evaluate_kwargs)
    return np.asarray(k_list), np.array([res[m].value for m in names], dtype=np.float64)


def plot_metric_at_k(curves: Mapping[str, tuple[Any, Any]], path: Any = None, *,
                     metric: str = "ndcg", title: str | None = None) -> Any:
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

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(curves, Mapping) or not curves:
        raise param_error("curves", "a non-empty mapping of system names to (ks, values)",
                          curves, "plot_metric_at_k")
    fig = _figure((6.0, 3.8))
    ax = fig.add_subplot()
    for name, (ks, values) in curves.items():
        ax.plot(np.asarray(ks), np.asarray(values), marker="o", markersize=3, label=str(name))
    label = Metric.parse(metric).display
    ax.set_xlabel("k (cutoff)")
    ax.set_ylabel(f"{label}@k")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", frameon=False)
    ax.set_title(title or f"{label}@k", fontsize="medium")
    _save(fig, path)
    return fig


def plot_segments(table: SegmentTable, path: Any = None, *, title: str | None = None) -> Any:
    """The difference in each segment with its confidence interval (means without a baseline).

    Parameters
    ----------
    table : SegmentTable
        From :func:`skrank.segments.segment_table`.
    path : str or path-like, optional
        Save the figure there.
    title : str, optional
        Defaults to the table's title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(table, SegmentTable):
        raise param_error("table", "a skrank.segments.SegmentTable", type(table).__name__,
                          "plot_segments")
    rows = list(table)
    fig = _figure((6.0, 0.8 + 0.55 * max(len(rows), 2)))
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    labels = [f"{r.segment} (n = {r.n})" for r in rows]
    if table.paired:
        for yi, r in zip(y, rows):
            if not math.isfinite(r.difference):
                continue
            color = _WIN if r.difference > 0 else _LOSS if r.difference < 0 else _TIE
            if r.ci is not None and math.isfinite(r.ci.low):
                ax.plot([r.ci.low, r.ci.high], [yi, yi], color=color, linewidth=2)
            ax.plot([r.difference], [yi], "o", color=color)
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"{table.metric or 'metric'}: {table.name_a} - {table.name_b} "
                      f"({table.confidence * 100:g}% CI)")
    else:
        ax.barh(y, [r.mean_a for r in rows], color="#2166ac")
        ax.set_xlabel(f"mean {table.metric or 'metric'} of {table.name_a}")
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title or table.title(), fontsize="medium")
    _save(fig, path)
    return fig


def write_plots(report: Report, directory: Any, *, format: str = "png",
                curves: Mapping[str, Mapping[str, tuple[Any, Any]]] | None = None
                ) -> list[Path]:
    """Write every figure of a report into ``directory`` (created if needed).

    Files: ``differences_<comparison>.<format>`` per comparison,
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
        for row in report.comparisons:
            path = out / f"differences_{_slug(row.name)}.{fmt}"
            plot_differences(row.comparison, path)
            written.append(path)
    for table in report.segments:
        path = out / f"segments_{_slug(table.name)}_{_slug(table.name_a)}.{fmt}"
        plot_segments(table, path)
        written.append(path)
    for metric, per_system in (curves or {}).items():
        path = out / f"{_slug(str(metric))}_at_k.{fmt}"
        plot_metric_at_k(per_system, path, metric=metric)
        written.append(path)
    return written
