"""The evaluation report: every system's metrics, the paired comparisons and the segments."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._text import listing
from .._validation import check_choice, check_int, param_error, renamed_parameters
from ..exceptions import InputError
from ..metrics._result import EvaluationResult, MetricResult
from ..metrics._spec import Metric
from ..segments._common import _key
from ..stats import ComparisonTable, PairedComparison, comparison_table
from ..stats._checks import check_alternative
from ..stats._corrections import CORRECTIONS, TESTS
from ..stats._progress import progress_bar

if TYPE_CHECKING:  # the segments and the paired tests are imported where used
    from ..segments import Segmentation, SegmentTable

__all__ = ["Report", "build_report"]


@dataclass(frozen=True, eq=False)
class Report:
    """The result of an evaluation: metrics per system, comparisons, segments, notes.

    Build it with :func:`build_report`; render it with :meth:`to_text`, :meth:`to_markdown`,
    :meth:`to_html`, :meth:`to_json`, :meth:`to_csv` or :meth:`to_trec`, and write the
    per-query table with :meth:`write_per_query`.

    Attributes
    ----------
    systems : dict of str to EvaluationResult
        Each system's metrics, in input order (the baseline included).
    metrics : tuple of Metric
        The metrics, in the order asked for.
    baseline : str or None
        The system every other one is compared with.
    comparisons : ComparisonTable or None
        One paired comparison per (compared system, metric), with the multiple-comparison
        correction over all of them (the primary comparison, if any, left uncorrected).
    primary : str or None
        The name of the pre-registered primary comparison (a row of ``comparisons``).
    segments : tuple of SegmentTable
        Per-segment tables, one per (segmentation, compared system).
    segmentations : tuple of Segmentation
        The segmentations the tables were built from.
    segment_metric : Metric or None
        The metric of the segment tables.
    settings : dict
        Statistical settings (correction, test, alpha, confidence, alternative, resamples).
    seed : int or None
        The seed of every resampling in the report.
    inputs : tuple of str
        Lines that describe where the data came from.
    notes : tuple of str
        Remarks on the input and on the comparisons (queries on one side only, queries left
        out, ...).
    """

    systems: dict[str, EvaluationResult]
    metrics: tuple[Metric, ...]
    baseline: str | None = None
    comparisons: ComparisonTable | None = None
    primary: str | None = None
    segments: tuple[SegmentTable, ...] = ()
    segmentations: tuple[Segmentation, ...] = ()
    segment_metric: Metric | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    inputs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    # -- access -------------------------------------------------------------------------
    @property
    def compared(self) -> list[str]:
        """The systems compared with the baseline (empty without a baseline)."""
        if self.baseline is None:
            return []
        return [s for s in self.systems if s != self.baseline]

    def comparison_name(self, system: str, metric: str | Metric) -> str:
        """The name of the comparison of ``system`` with the baseline on ``metric``."""
        return comparison_name(system, Metric.parse(metric), len(self.compared))

    def comparison(self, system: str, metric: str | Metric) -> PairedComparison:
        """The paired comparison of ``system`` with the baseline on ``metric``."""
        if self.comparisons is None:
            raise KeyError("The report has no comparisons (no baseline was given).")
        return self.comparisons[self.comparison_name(system, metric)].comparison

    def result(self, system: str, metric: str | Metric) -> MetricResult:
        """``system``'s :class:`~skrank.MetricResult` for ``metric``."""
        return self.systems[system][metric]

    @property
    def n_queries(self) -> int:
        """The number of distinct queries over all systems."""
        return len({_key(q) for res in self.systems.values() for q in res.qids.tolist()})

    def conventions(self, metric: str | Metric) -> str:
        """The conventions of ``metric`` as printed with its values."""
        system = self.baseline or next(iter(self.systems))
        return self.systems[system][metric].describe_conventions()

    # -- per-query table ----------------------------------------------------------------
    def per_query_table(self) -> dict[str, list[Any]]:
        """One row per query: its segments, every metric of every system, the differences.

        Columns: ``qid``; one per segmentation (the query's segment); ``METRIC:SYSTEM`` for
        every metric and system; and with a baseline ``METRIC:SYSTEM-BASELINE`` for each
        compared system. Queries are in order of first appearance; a value a system does not
        have (a query it did not cover, or one left out by ``empty="exclude"``) is NaN.
        """
        order: dict[str, Any] = {}
        for res in self.systems.values():
            for q in res.qids.tolist():
                order.setdefault(_key(q), q)
        keys = list(order)
        cols: dict[str, list[Any]] = {"qid": [order[k] for k in keys]}
        for seg in self.segmentations:
            lookup = dict(zip((_key(q) for q in seg.qids.tolist()), seg.labels.tolist()))
            cols[seg.name] = [lookup.get(k, "") for k in keys]
        values: dict[tuple[str, Metric], dict[str, float]] = {}
        for name, res in self.systems.items():
            qk = [_key(q) for q in res.qids.tolist()]
            for m in self.metrics:
                values[name, m] = dict(zip(qk, res[m].per_query.tolist()))
        nan = float("nan")
        for m in self.metrics:
            for name in self.systems:
                cols[f"{m}:{name}"] = [values[name, m].get(k, nan) for k in keys]
            for name in self.compared:
                a, b = values[name, m], values[self.baseline, m]
                cols[f"{m}:{name}-{self.baseline}"] = [
                    a.get(k, nan) - b.get(k, nan) for k in keys
                ]
        return cols

    def write_per_query(self, path: Any) -> None:
        """Write :meth:`per_query_table` as CSV (TSV when the name ends in ``.tsv``)."""
        from ._render import write_table

        write_table(self.per_query_table(), path)

    # -- renderings -----------------------------------------------------------------------
    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        """The report as nested dicts of built-in types (NaN becomes None)."""
        from ._render import report_dict

        return report_dict(self, per_query=per_query)

    def to_text(self, per_query: bool = False) -> str:
        """A plain-text report for a terminal."""
        from ._render import render_text

        return render_text(self, per_query=per_query)

    def to_markdown(self, per_query: bool = False) -> str:
        """A markdown report (a pull-request comment)."""
        from ._render import render_markdown

        return render_markdown(self, per_query=per_query)

    def to_json(self, per_query: bool = False, indent: int | None = 2) -> str:
        """The report as JSON (strict: NaN is written as null)."""
        from ._render import render_json

        return render_json(self, per_query=per_query, indent=indent)

    def to_html(self, *, curves: Mapping[str, Mapping[str, Any]] | None = None,
                figures: bool | None = None, title: str | None = None,
                per_query: bool = False) -> str:
        """The report as one self-contained HTML page, to read in a browser or print.

        The page holds the inputs and their conventions, the metric table with tie ranges,
        every comparison with the baseline (interval, p-value, correction), a forest plot of
        the differences, each comparison's per-query differences with the largest losses
        named, the segment tables with their flags, and notes on what the data hit (ties
        that change values, queries without relevant documents, topics missing from a run).
        Figures are inline SVG; styles and the one line of script are inline too, and the
        page's Content-Security-Policy forbids loading anything, so it needs no network.
        All text is HTML-escaped.

        Parameters
        ----------
        curves : mapping, optional
            ``{metric: {system: (ks, values)}}`` (e.g. from :func:`metric_at_k`) for the
            metric-by-cutoff charts, as in :func:`write_plots`.
        figures : bool or None, default=None
            Draw the figures (needs matplotlib: ``pip install 'skrank[plot]'``). None draws
            them when matplotlib is installed and otherwise says so in the page's notes;
            True raises ImportError without matplotlib; False leaves them out.
        title : str, optional
            The page's title (default: "skrank evaluation report").
        per_query : bool, default=False
            Also include :meth:`per_query_table`.

        Returns
        -------
        str
            The HTML document; write it with ``open(path, "w", encoding="utf-8")``.

        Examples
        --------
        >>> import skrank
        >>> from skrank.reports import build_report
        >>> results = {
        ...     "new": skrank.evaluate([1, 0, 0, 1], [0.9, 0.1, 0.5, 0.3], [1, 1, 2, 2],
        ...                            metrics=["rr"]),
        ...     "<old>": skrank.evaluate([1, 0, 0, 1], [0.1, 0.9, 0.5, 0.3], [1, 1, 2, 2],
        ...                              metrics=["rr"]),
        ... }
        >>> page = build_report(results, baseline="<old>", rng=0, n_resamples=100,
        ...                     n_permutations=100).to_html(figures=False)
        >>> page.startswith("<!DOCTYPE html>"), "&lt;old&gt;" in page, "<old>" in page
        (True, True, False)
        """
        from ._html import render_html

        return render_html(self, curves=curves, figures=figures, title=title,
                           per_query=per_query)

    def to_csv(self, sep: str = ",") -> str:
        """One CSV row per (system, metric) and per segment, with the comparison columns."""
        from ._render import render_csv

        return render_csv(self, sep=sep)

    def to_trec(self, per_query: bool = False, runids: Mapping[str, str] | None = None, *,
                unlisted: Mapping[str, Collection[str]] | None = None) -> str:
        """trec_eval's output format (``measure<TAB>topic<TAB>value``), one block per system.

        Parameters
        ----------
        per_query : bool, default=False
            Also print one line per topic and metric first, like ``trec_eval -q``.
        runids : mapping of str to str, optional
            The ``runid`` to print for each system (e.g. the run tags); default: its name.
        unlisted : mapping of str to collection of str, optional
            Topics of each system (by name) that get no per-topic lines, though they count
            in the means: trec_eval 9's ``-q -c`` prints none for a judged topic the run has
            no result for (trec_eval 10 prints them).
        """
        from ._render import render_trec

        return render_trec(self, per_query=per_query, runids=runids, unlisted=unlisted)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return (f"Report(systems={list(self.systems)!r}, metrics="
                f"{[str(m) for m in self.metrics]!r}, baseline={self.baseline!r})")


def comparison_name(system: str, metric: Metric, n_compared: int) -> str:
    """``"ndcg@10"`` with one compared system, ``"lgbm:ndcg@10"`` with several."""
    return str(metric) if n_compared <= 1 else f"{system}:{metric}"


def _check_coverage(name: str, res: EvaluationResult, baseline: str,
                    base: EvaluationResult) -> None:
    qa = {_key(q) for q in res.qids.tolist()}
    qb = {_key(q) for q in base.qids.tolist()}
    if qa == qb:
        return
    parts = []
    only_a = sorted(qa - qb)
    only_b = sorted(qb - qa)
    if only_a:
        parts.append(f"the baseline {baseline!r} has no value for {len(only_a)} "
                     f"{'query' if len(only_a) == 1 else 'queries'} of {name!r}: "
                     f"{listing(only_a)}")
    if only_b:
        parts.append(f"{name!r} has no value for {len(only_b)} "
                     f"{'query' if len(only_b) == 1 else 'queries'} of the baseline "
                     f"{baseline!r}: {listing(only_b)}")
    raise InputError(
        "; ".join(parts) + ". Paired tests need the same queries in both systems (with TREC "
        "runs, count judged topics without results as 0 in both: trec_eval -c)."
    )


def _resolve_primary(primary: str | None, metrics: tuple[Metric, ...],
                     compared: list[str]) -> tuple[str | None, Metric | None]:
    if primary is None:
        return None, None
    if not isinstance(primary, str):
        raise param_error("primary", "a metric name or 'system:metric'", primary, "build_report")
    system, _, text = primary.rpartition(":")
    try:
        metric = Metric.parse(text)
    except ValueError:
        metric = None
    if metric not in metrics:
        raise param_error("primary", "one of the metrics (" + ", ".join(str(m) for m in metrics)
                          + "), optionally as 'system:metric'", primary, "build_report")
    if not compared:
        raise param_error("primary", "None when there is no baseline (nothing is compared)",
                          primary, "build_report")
    if system:
        if system not in compared:
            raise param_error("primary", "'system:metric' with a compared system ("
                              + ", ".join(repr(s) for s in compared) + ")", primary,
                              "build_report")
    elif len(compared) > 1:
        raise param_error("primary", "'system:metric' when several systems are compared ("
                          + ", ".join(repr(s) for s in compared) + ")", primary, "build_report")
    else:
        system = compared[0]
    return comparison_name(system, metric, len(compared)), metric


@renamed_parameters(seed="rng", confidence="confidence_level")
def build_report(
    results: Mapping[str, EvaluationResult],
    *,
    baseline: str | None = None,
    primary: str | None = None,
    correction: str = "holm",
    test: str = "randomization",
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    n_permutations: int = 10_000,
    top_losses: int = 5,
    segmentations: Sequence[Segmentation] = (),
    segment_metric: str | Metric | None = None,
    rng: int | None = None,
    inputs: Sequence[str] = (),
    notes: Sequence[str] = (),
    progress: bool | None = None,
) -> Report:
    """Compare systems evaluated with :func:`skrank.evaluate` and segment the comparison.

    Parameters
    ----------
    results : mapping of str to EvaluationResult
        Each system's evaluation, all with the same metrics (the baseline included).
    baseline : str or None, default=None
        The system the others are compared with, query by query. None reports each
        system's metrics without comparisons.
    primary : str or None, default=None
        The pre-registered primary comparison: a metric name (``"ndcg@10"``), or
        ``"system:metric"`` when several systems are compared. It is tested at ``alpha`` on
        its own; ``correction`` applies to the other comparisons. With None every
        (system, metric) comparison is in one corrected family.
    correction : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Multiple-comparison correction over the comparisons, and over the segments of each
        segment table.
    test : {"randomization", "t", "wilcoxon"}, default="randomization"
        The test whose p-values are corrected and reported in the tables (every comparison
        also reports the other two).
    alpha, confidence_level, alternative, n_resamples, n_permutations, top_losses
        As in :func:`skrank.stats.paired_comparison`.
    segmentations : sequence of Segmentation, default=()
        Segmentations of the queries; each gives one table per compared system (or per
        system without a baseline).
    segment_metric : str, Metric or None, default=None
        The metric of the segment tables; defaults to the primary comparison's metric, else
        the first metric.
    rng : int or None, default=None
        Seed of every bootstrap and randomisation in the report (the same for each
        comparison). None draws one, reported in ``Report.seed``.
    inputs, notes : sequence of str, default=()
        Lines describing the input, and remarks to carry into the report.
    progress : bool or None, default=None
        A progress bar of the comparisons and segment tables on standard error (tqdm): None
        shows it on a terminal only, once the work has lasted 2 seconds; True always; False
        never.

    Returns
    -------
    Report

    Raises
    ------
    InputError
        A compared system and the baseline cover different queries (the queries found on
        one side only are named), or fewer than 2 queries are left to compare.
    InvalidParameterError
        A parameter outside its allowed values.

    Examples
    --------
    >>> import numpy as np
    >>> import skrank
    >>> from skrank.reports import build_report
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(30), 10)
    >>> y = rng.integers(0, 3, size=qid.size)
    >>> results = {
    ...     "model": skrank.evaluate(y, y + rng.normal(0, 1.0, qid.size), qid,
    ...                              metrics=["ndcg@5", "rr"]),
    ...     "bm25": skrank.evaluate(y, y + rng.normal(0, 1.5, qid.size), qid,
    ...                             metrics=["ndcg@5", "rr"]),
    ... }
    >>> report = build_report(results, baseline="bm25", primary="ndcg@5", rng=0,
    ...                       n_resamples=2000, n_permutations=2000)
    >>> [(row.name, row.role) for row in report.comparisons]
    [('ndcg@5', 'primary'), ('rr', 'secondary')]
    >>> comp = report.comparison("model", "ndcg@5")
    >>> comp.n, round(comp.mean_difference, 4) == round(
    ...     results["model"]["ndcg@5"].value - results["bm25"]["ndcg@5"].value, 4)
    (30, True)
    """
    seed, confidence = rng, confidence_level  # the names used below
    caller = "build_report"
    if not isinstance(results, Mapping) or not results:
        raise param_error("results", "a non-empty mapping of system names to EvaluationResult",
                          type(results).__name__, caller)
    systems: dict[str, EvaluationResult] = {}
    for name, res in results.items():
        if not isinstance(name, str) or not isinstance(res, EvaluationResult):
            raise param_error("results", "a mapping of str system names to EvaluationResult "
                              "(from skrank.evaluate)", f"{name!r}: {type(res).__name__}",
                              caller)
        systems[name] = res
    first = next(iter(systems.values()))
    metrics = tuple(first.metrics)
    for name, res in systems.items():
        if set(res.metrics) != set(metrics):
            raise InputError(
                f"{caller}: every system needs the same metrics; {name!r} has "
                f"{[str(m) for m in res.metrics]} but {next(iter(systems))!r} has "
                f"{[str(m) for m in metrics]}."
            )
    correction = check_choice("correction", correction, CORRECTIONS, caller)
    test = check_choice("test", test, TESTS, caller)
    alternative = check_alternative(alternative, caller)
    top_losses = check_int("top_losses", top_losses, min_value=0, caller=caller)
    if baseline is not None and baseline not in systems:
        raise param_error("baseline", "None or one of the systems ("
                          + ", ".join(repr(s) for s in systems) + ")", baseline, caller)
    if baseline is not None and len(systems) < 2:
        raise InputError(f"{caller}: the baseline {baseline!r} is the only system; there is "
                         "nothing to compare it with.")
    compared = [s for s in systems if s != baseline] if baseline is not None else []
    primary_name, primary_metric = _resolve_primary(primary, metrics, compared)
    if segment_metric is None:
        seg_metric = primary_metric or metrics[0]
    else:
        seg_metric = Metric.parse(segment_metric)
        if seg_metric not in metrics:
            raise param_error("segment_metric", "one of the metrics ("
                              + ", ".join(str(m) for m in metrics) + ")", segment_metric, caller)
    segmentations = tuple(segmentations)
    if segmentations:
        from ..segments import Segmentation
    for seg in segmentations:
        if not isinstance(seg, Segmentation):
            raise param_error("segmentations", "a sequence of skrank.segments.Segmentation",
                              type(seg).__name__, caller)
    if seed is None:
        seed = int(np.random.default_rng().integers(0, 2**63))
    check_int("seed", seed, min_value=0, caller=caller)
    if progress is not None and not isinstance(progress, bool):
        raise param_error("progress", "None (on a terminal), True or False", progress, caller)
    n_tables = len(segmentations) * (len(compared) if baseline is not None else len(systems))
    bar = progress_bar(len(compared) * len(metrics) + n_tables, progress,
                       "comparisons" if baseline is not None else "segment tables",
                       unit="comparison")

    stat_kwargs = dict(n_resamples=n_resamples, n_permutations=n_permutations,
                       confidence_level=confidence, alternative=alternative, rng=seed)
    out_notes = list(notes)
    table = None
    if baseline is not None:
        from ..stats import paired_comparison

        base = systems[baseline]
        comparisons: dict[str, PairedComparison] = {}
        for name in compared:
            res = systems[name]
            _check_coverage(name, res, baseline, base)
            for m in metrics:
                comp = paired_comparison(
                    res[m].per_query, base[m].per_query, qids_a=res.qids, qids_b=base.qids,
                    metric=str(m), name_a=name, name_b=baseline, nan_policy="omit",
                    top_losses=top_losses, progress=False, **stat_kwargs,
                )
                comparisons[comparison_name(name, m, len(compared))] = comp
                bar.update()
        table = comparison_table(comparisons, primary=primary_name, correction=correction,
                                 test=test, alpha=alpha)
        for comp in comparisons.values():
            k = comp.n_omitted
            if k:
                what = comp.metric if len(compared) == 1 else f"{comp.name_a}, {comp.metric}"
                out_notes.append(
                    f"{what}: {k} {'query' if k == 1 else 'queries'} without a value in one "
                    f"system or both (no relevant document, empty="
                    f"{base[comp.metric].conventions.empty}) left out of the comparison."
                )

    tables: list[SegmentTable] = []
    if segmentations:
        from ..segments import segment_table
    for seg in segmentations:
        pairs = [(s, baseline) for s in compared] if baseline is not None else [
            (s, None) for s in systems]
        for name, base_name in pairs:
            res = systems[name]
            b = systems[base_name][seg_metric] if base_name is not None else None
            if b is not None:
                # align the baseline on the system's queries (coverage was checked above)
                pos = {_key(q): i for i, q in enumerate(systems[base_name].qids.tolist())}
                idx = np.array([pos[_key(q)] for q in res.qids.tolist()], dtype=np.int64)
                b_values = b.per_query[idx]
            else:
                b_values = None
            tables.append(segment_table(
                res[seg_metric].per_query, b_values, seg, qids=res.qids, metric=str(seg_metric),
                name_a=name, name_b=base_name or "baseline", correction=correction, test=test,
                alpha=alpha, **stat_kwargs,
            ))
            bar.update()
    bar.close()
    settings = {
        "correction": correction, "test": test, "alpha": float(alpha),
        "confidence": float(confidence), "alternative": alternative,
        "n_resamples": int(n_resamples), "n_permutations": int(n_permutations),
        "top_losses": int(top_losses),
    }
    return Report(
        systems=systems, metrics=metrics, baseline=baseline, comparisons=table,
        primary=primary_name, segments=tuple(tables), segmentations=segmentations,
        segment_metric=seg_metric if segmentations else None, settings=settings, seed=seed,
        inputs=tuple(inputs), notes=tuple(out_notes),
    )
