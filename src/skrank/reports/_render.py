"""Renderers of a :class:`~skrank.reports.Report`: text, markdown, JSON, CSV and trec_eval."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._text import plural
from .._version import __version__
from ..exceptions import InvalidParameterError
from ..metrics._spec import _TREC_FAMILY_OF, _TREC_PLAIN_OF, Metric
from ..segments._text import _fmt_ci, _fmt_num
from ..stats._results import format_p
from ..stats._table import text_table

if TYPE_CHECKING:  # pragma: no cover
    from ._report import Report

__all__ = [
    "render_csv",
    "render_json",
    "render_markdown",
    "render_text",
    "render_trec",
    "report_dict",
    "trec_name",
    "write_table",
]


# --------------------------------------------------------------------------- shared pieces


def _headline(report: Report) -> str:
    n_sys = len(report.systems)
    return (f"skrank {__version__} eval: {plural(n_sys, 'system', thousands=False)}, "
            f"{plural(report.n_queries, 'query', 'queries', thousands=False)}")


def _comparison_method(report: Report) -> str:
    s = report.settings
    table = report.comparisons
    n = len(table) if table is not None else 0
    if n == 1:
        family = "one comparison, nothing to correct"
    elif report.primary is None:
        family = f"{s['correction']} correction over all {plural(n, 'comparison', thousands=False)}"
    else:
        family = (f"primary {report.primary!r} uncorrected (pre-registered), {s['correction']} "
                  f"correction over the other {n - 1}")
    return (f"differences are system - baseline; {s['confidence'] * 100:g}% CI: paired "
            f"bootstrap BCa ({s['n_resamples']:,} resamples); p: {s['test']} test "
            f"({s['alternative']}); {family}; * = significant at alpha = {s['alpha']:g}; "
            f"MDD: minimum detectable difference (paired t, power 0.8); seed {report.seed}")


def _comparison_rows(report: Report) -> tuple[list[str], list[list[str]]]:
    s = report.settings
    compared = report.compared
    one = len(compared) == 1
    header = ["comparison", "n", f"mean {compared[0]}" if one else "mean system",
              f"mean {report.baseline}", "diff", f"{s['confidence'] * 100:g}% CI", "p",
              f"p {s['correction']}", "W/T/L", "MDD"]
    body = []
    for row in report.comparisons:
        c = row.comparison
        name = row.name + (" (primary)" if row.role == "primary" else "")
        body.append([
            name, str(c.n), _fmt_num(c.mean_a), _fmt_num(c.mean_b),
            _fmt_num(c.mean_difference, signed=True), _fmt_ci(c.ci_bca), format_p(row.pvalue),
            format_p(row.pvalue_adjusted) + (" *" if row.reject else ""),
            f"{c.wins}/{c.ties}/{c.losses}", _fmt_num(c.mdd.value),
        ])
    return header, body


def _per_query_cells(report: Report) -> tuple[list[str], list[list[str]]]:
    cols = report.per_query_table()
    header = list(cols)
    n = len(cols["qid"])
    diffs = {f"{m}:{s}-{report.baseline}" for m in report.metrics for s in report.compared}
    body = []
    for i in range(n):
        row = []
        for name in header:
            v = cols[name][i]
            row.append(_fmt_num(v, signed=name in diffs) if isinstance(v, float) else str(v))
        body.append(row)
    return header, body


def _segment_title(report: Report, table) -> str:
    conv = report.conventions(table.metric) if table.metric else ""
    return f"{table.title()} ({conv})" if conv else table.title()


# --------------------------------------------------------------------------- text


def render_text(report: Report, per_query: bool = False) -> str:
    """A plain-text report for a terminal (see :meth:`Report.to_text`)."""
    lines = [_headline(report)]
    lines += [f"input: {line}" for line in report.inputs]
    if report.baseline is not None:
        lines.append(f"baseline: {report.baseline}")
    lines.append("")
    for name, res in report.systems.items():
        lines.append(name + (" (baseline)" if name == report.baseline else ""))
        lines += [f"  {res[m]}" for m in report.metrics]
    if report.comparisons is not None:
        lines += ["", f"Comparison with the baseline {report.baseline}",
                  _comparison_method(report)]
        lines += text_table(*_comparison_rows(report))
        lines.append("conventions: " + "; ".join(
            f"{m}: {report.conventions(m)}" for m in report.metrics))
        for row in report.comparisons:
            lines += ["", f"{row.name}: {report.conventions(row.comparison.metric)}"]
            lines += [f"  {line}" for line in str(row.comparison).splitlines()]
    for table in report.segments:
        header, body = table.table()
        lines += ["", _segment_title(report, table), table.method()]
        lines += text_table(header, body)
        lines += [f"note: {n}" for n in table.footnotes()]
    if per_query:
        lines += ["", "Per query"]
        lines += text_table(*_per_query_cells(report))
    if report.notes:
        lines += ["", "notes:"]
        lines += [f"  - {note}" for note in report.notes]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- markdown


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(header: Sequence[str], body: Sequence[Sequence[str]], left: int = 1,
              right: Sequence[int] | None = None) -> list[str]:
    """A markdown table: the first ``left`` columns (or all but ``right``) left-aligned."""
    if right is None:
        right = range(left, len(header))
    align = ["---:" if i in right else "---" for i in range(len(header))]
    out = ["| " + " | ".join(_md_cell(h) for h in header) + " |",
           "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in body]
    return out


def render_markdown(report: Report, per_query: bool = False) -> str:
    """A markdown report, e.g. for a pull-request comment (see :meth:`Report.to_markdown`)."""
    lines = [f"### {_headline(report)}", ""]
    lines += [f"- input: {_md_cell(line)}" for line in report.inputs]
    if report.baseline is not None:
        lines.append(f"- baseline: `{report.baseline}`")
    lines += ["", "#### Metrics", ""]
    body = []
    for name, res in report.systems.items():
        label = f"{name} (baseline)" if name == report.baseline else name
        for m in report.metrics:
            r = res[m]
            body.append([label, m.display, _fmt_num(r.value), r.describe_conventions(),
                         r._counts()])
    lines += _md_table(["system", "metric", "value", "conventions", "queries"], body,
                       right=[2])
    if report.comparisons is not None:
        lines += ["", f"#### Comparison with the baseline `{report.baseline}`", "",
                  _comparison_method(report), ""]
        lines += _md_table(*_comparison_rows(report))
        lines += ["", "Conventions: " + "; ".join(
            f"{m}: {report.conventions(m)}" for m in report.metrics), ""]
        for row in report.comparisons:
            lines += ["<details>", f"<summary>{_md_cell(row.name)}: details</summary>", "",
                      "```text", str(row.comparison), "```", "</details>", ""]
    for table in report.segments:
        header, body = table.table()
        lines += ["", f"#### {_segment_title(report, table)}", "", table.method(), ""]
        lines += _md_table(header, body)
        lines += [""] + [f"Note: {n}" for n in table.footnotes()] if table.footnotes() else []
    if per_query:
        lines += ["", "#### Per query", ""]
        lines += _md_table(*_per_query_cells(report))
    if report.notes:
        lines += ["", "#### Notes", ""]
        lines += [f"- {_md_cell(note)}" for note in report.notes]
    return "\n".join(lines).rstrip("\n") + "\n"


# --------------------------------------------------------------------------- JSON


def _clean(value: Any) -> Any:
    """Built-in types only; NaN and infinities become None (strict JSON)."""
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_clean(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def report_dict(report: Report, per_query: bool = False) -> dict[str, Any]:
    """The report as nested dicts of built-in types (see :meth:`Report.to_dict`)."""
    systems = {}
    for name, res in report.systems.items():
        systems[name] = {
            "baseline": name == report.baseline,
            "n_queries": res.n_queries,
            "metrics": {str(m): {**res[m].to_dict(), "conventions_text":
                                 res[m].describe_conventions(), "text": str(res[m])}
                        for m in report.metrics},
        }
    out = {
        "skrank_version": __version__,
        "inputs": list(report.inputs),
        "metrics": [str(m) for m in report.metrics],
        "baseline": report.baseline,
        "primary": report.primary,
        "seed": report.seed,
        "settings": dict(report.settings),
        "systems": systems,
        "comparisons": (report.comparisons.to_dict(per_query=per_query)
                        if report.comparisons is not None else None),
        "segment_metric": str(report.segment_metric) if report.segment_metric else None,
        "segments": [t.to_dict() for t in report.segments],
        "notes": list(report.notes),
    }
    if per_query:
        out["per_query"] = report.per_query_table()
    return _clean(out)


def render_json(report: Report, per_query: bool = False, indent: int | None = 2) -> str:
    """The report as strict JSON (see :meth:`Report.to_json`)."""
    return json.dumps(report_dict(report, per_query=per_query), indent=indent,
                      allow_nan=False) + "\n"


# --------------------------------------------------------------------------- CSV

CSV_COLUMNS = (
    "system", "baseline", "metric", "segmentation", "segment", "n", "value", "baseline_value",
    "difference", "ci_low", "ci_high", "pvalue", "pvalue_adjusted", "test", "correction",
    "wins", "ties", "losses", "mdd", "role", "conventions",
)


def _csv_value(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    return str(v)


def render_csv(report: Report, sep: str = ",") -> str:
    """One row per (system, metric), then one per segment (see :meth:`Report.to_csv`)."""
    s = report.settings
    rows: list[dict[str, Any]] = []
    rows_by_name = ({r.name: r for r in report.comparisons}
                    if report.comparisons is not None else {})
    for name, res in report.systems.items():
        for m in report.metrics:
            r = res[m]
            rec: dict[str, Any] = {"system": name, "metric": str(m), "n": r.n_counted,
                                   "value": float(r.value),
                                   "conventions": r.describe_conventions()}
            if name in report.compared:
                row = rows_by_name[report.comparison_name(name, m)]
                c = row.comparison
                rec.update(baseline=report.baseline,
                           baseline_value=float(report.systems[report.baseline][m].value),
                           n=c.n, difference=c.mean_difference, ci_low=c.ci_bca.low,
                           ci_high=c.ci_bca.high, pvalue=row.pvalue,
                           pvalue_adjusted=row.pvalue_adjusted, test=s["test"],
                           correction=s["correction"] if row.role != "primary" else "none",
                           wins=c.wins, ties=c.ties, losses=c.losses, mdd=c.mdd.value,
                           role=row.role)
            rows.append(rec)
    for table in report.segments:
        conv = report.conventions(table.metric)
        for rec in table.to_records():
            rows.append({
                "system": rec["name_a"], "baseline": rec["name_b"], "metric": rec["metric"],
                "segmentation": rec["segmentation"], "segment": rec["segment"], "n": rec["n"],
                "value": rec["mean_a"], "baseline_value": rec["mean_b"] if table.paired else None,
                "difference": rec["difference"] if table.paired else None,
                "ci_low": rec["ci_low"] if table.paired else None,
                "ci_high": rec["ci_high"] if table.paired else None,
                "pvalue": rec["pvalue"] if table.paired else None,
                "pvalue_adjusted": rec["pvalue_adjusted"] if table.paired else None,
                "test": table.test if table.paired else None,
                "correction": table.correction if table.paired else None,
                "wins": rec["wins"] if table.paired else None,
                "ties": rec["ties"] if table.paired else None,
                "losses": rec["losses"] if table.paired else None,
                "conventions": conv,
            })
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rec in rows:
        writer.writerow([_csv_value(rec.get(c)) for c in CSV_COLUMNS])
    return buf.getvalue()


def write_table(columns: Mapping[str, Sequence[Any]], path: Any) -> None:
    """Write columns as CSV, or TSV when the file name ends in ``.tsv`` / ``.tab``."""
    name = os.fspath(path)
    sep = "\t" if name.lower().endswith((".tsv", ".tab")) else ","
    names = list(columns)
    n = len(columns[names[0]]) if names else 0
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, delimiter=sep, lineterminator="\n")
        writer.writerow(names)
        for i in range(n):
            writer.writerow([_csv_value(columns[c][i]) for c in names])


# --------------------------------------------------------------------------- trec_eval


def trec_name(metric: str | Metric) -> str:
    """trec_eval's name of a metric: ``ndcg_cut_10``, ``P_5``, ``map``, ``recip_rank``, ...

    Metrics trec_eval does not have keep skrank's name.

    Examples
    --------
    >>> from skrank.reports import trec_name
    >>> [trec_name(m) for m in ["ndcg@10", "ap", "ap@100", "p@5", "r@1000", "rr", "hit@1"]]
    ['ndcg_cut_10', 'map', 'map_cut_100', 'P_5', 'recall_1000', 'recip_rank', 'success_1']
    """
    m = Metric.parse(metric)  # one table with the parser: metrics._spec's
    if m.k is None:
        return _TREC_PLAIN_OF.get(m.name, str(m))
    if m.name in _TREC_FAMILY_OF:
        return f"{_TREC_FAMILY_OF[m.name]}_{m.k}"
    return str(m)


def _has_trec_name(m: Metric) -> bool:
    """Whether trec_eval has the metric (``ndcg`` is one, whose name is skrank's too)."""
    return m.name in (_TREC_FAMILY_OF if m.k is not None else _TREC_PLAIN_OF)


# trec_eval's conventions, by metric (rel_min is trec_eval's -l, score_precision separates
# trec_eval 9 from 10: both are trec_eval's); a metric without a trec_eval name is free
_TREC_RULES = {"ties": "docid", "empty": "zero"}
_TREC_METRIC_RULES = {
    "ndcg": {"gain": "linear", "idcg": "pool"},
    "ap": {"ap_denominator": "all", "idcg": "pool"},
    "r": {"idcg": "pool"},
    "p": {"p_divisor": "k"},
    "rr": {},
    "hit": {},
}


def trec_mismatch(metric: str | Metric, conventions: Any) -> str | None:
    """Why ``metric`` computed under ``conventions`` is not trec_eval's measure, or None.

    ``None`` too for a metric trec_eval does not have (it keeps skrank's name). Otherwise the
    conventions that differ from trec_eval's, as ``name=value (trec_eval: value)``.
    """
    m = Metric.parse(metric)
    if not _has_trec_name(m) or m.name not in _TREC_METRIC_RULES:
        return None
    conv = conventions.for_metric(m.name)
    rules = {**_TREC_RULES, **_TREC_METRIC_RULES[m.name]}
    wrong = [f"{name}={conv.gain_name() if name == 'gain' else getattr(conv, name)} "
             f"(trec_eval: {value})"
             for name, value in rules.items()
             if (conv.gain_name() if name == "gain" else getattr(conv, name)) != value]
    if m.k is None and conv.default_k is not None:
        wrong.append(f"default_k={conv.default_k} (trec_eval: the whole list)")
    return ", ".join(wrong) or None


def check_trec_conventions(pairs: Any, fix: str) -> None:
    """Refuse trec_eval's measure names for numbers computed under other conventions.

    ``pairs``: ``(metric, conventions)`` pairs; ``fix`` ends the error message.
    """
    for m, conventions in pairs:
        m = Metric.parse(m)
        wrong = trec_mismatch(m, conventions)
        if wrong is not None:
            raise InvalidParameterError(
                f"The trec format prints trec_eval's measure names, but {m.display} would be "
                f"printed as {trec_name(m)} with values computed under other conventions: "
                f"{wrong}. {fix}"
            )


def render_trec(report: Report, per_query: bool = False,
                runids: Mapping[str, str] | None = None,
                unlisted: Mapping[str, Collection[str]] | None = None) -> str:
    """trec_eval's format, ``%-22s\\t%s\\t%.4f`` (see :meth:`Report.to_trec`).

    trec_eval's measure names (``ndcg_cut_10``) are printed only for values computed under
    trec_eval's conventions; other values are refused (see :func:`trec_mismatch`).
    """
    for res in report.systems.values():
        check_trec_conventions(
            ((m, res[m].conventions) for m in report.metrics),
            "Evaluate with preset='trec_eval' (trec_eval 10) or 'trec_eval9' (trec_eval 9, "
            "pytrec_eval), or use another format (to_text, to_csv, to_json).")
    lines = []
    for name, res in report.systems.items():
        if per_query:
            skip = {str(q) for q in (unlisted or {}).get(name, ())}
            for i, q in enumerate(res.qids.tolist()):
                if str(q) in skip:
                    continue
                for m in report.metrics:
                    v = float(res[m].per_query[i])
                    if not math.isnan(v):
                        lines.append(f"{trec_name(m):<22}\t{q}\t{v:.4f}")
        lines.append(f"{'runid':<22}\tall\t{(runids or {}).get(name, name)}")
        lines.append(f"{'num_q':<22}\tall\t{res.n_queries}")
        for m in report.metrics:
            lines.append(f"{trec_name(m):<22}\tall\t{res[m].value:.4f}")
    return "\n".join(lines) + "\n"
