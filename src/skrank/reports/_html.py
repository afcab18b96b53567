"""The HTML rendering of a :class:`~skrank.reports.Report`: one self-contained file.

Everything the page needs is inside it: the styles, the figures (inline SVG drawn by
matplotlib, with text kept as text) and one line of script (open the collapsed details before
printing). A Content-Security-Policy in the page forbids loading anything else, so the file
reads the same offline. Every piece of text from the report (system, metric, topic and input
names, notes) is HTML-escaped.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..segments._table import SMALL_SEGMENT
from ..segments._text import _fmt_ci, _fmt_num
from ..stats._results import format_p
from ._render import _comparison_method, _comparison_rows, _headline, _segment_title

if TYPE_CHECKING:  # pragma: no cover
    from ._report import Report

__all__ = ["render_html"]

_PLOT_HINT = "Figures need matplotlib; install it with: pip install 'skrank[plot]'"

# Open every <details> before printing, so that a printout holds the whole report.
_SCRIPT = ("addEventListener('beforeprint',function(){document.querySelectorAll('details')"
           ".forEach(function(d){d.open=true})});")
_SCRIPT_HASH = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
_CSP = (f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{_SCRIPT_HASH}'")

_CSS = """\
:root{--fg:#1a1a1a;--muted:#555;--line:#d0d0d0;--head:#f3f4f6;--win:#1b7837;--loss:#b2182b;
--flag:#fff4d6;--sig:#e6f4ea}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:#fff;font:15px/1.5 system-ui,-apple-system,"Segoe UI",
Roboto,"Helvetica Neue",Arial,sans-serif;-webkit-text-size-adjust:100%}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.5rem;margin:.2em 0}h2{font-size:1.25rem;margin:1.6em 0 .4em;
border-bottom:1px solid var(--line);padding-bottom:.2em}h3{font-size:1.05rem;margin:1.2em 0 .3em}
p,li{overflow-wrap:anywhere}
.muted,.method,figcaption{color:var(--muted);font-size:.9em}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.4em 0 .8em;max-width:100%}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:.92em}
th,td{border:1px solid var(--line);padding:.25em .5em;text-align:right;white-space:nowrap}
th{background:var(--head);font-weight:600}
td.l,th.l{text-align:left}td.wrap{white-space:normal;min-width:16em;text-align:left}
tr.sig td{background:var(--sig)}tr.flag td{background:var(--flag)}
.pos{color:var(--win)}.neg{color:var(--loss)}
figure{margin:.8em 0 1.2em;overflow-x:auto;-webkit-overflow-scrolling:touch}
figure svg{display:block;width:100%;min-width:520px;max-width:760px;height:auto}
details{margin:.4em 0}summary{cursor:pointer}
pre{overflow-x:auto;background:#f7f7f7;padding:.6em;font-size:.82em;line-height:1.35}
ul.notes li{margin:.2em 0}
@media (max-width:600px){body{font-size:14px}main{padding:10px}th,td{padding:.2em .35em}}
@media print{body{font-size:10.5pt}main{max-width:none;padding:0}.scroll{overflow:visible}
table{font-size:8.5pt}th,td{white-space:normal}figure,table,tr{break-inside:avoid}
h2,h3{break-after:avoid}summary{display:none}figure{overflow:visible}
figure svg{min-width:0}pre{white-space:pre-wrap;background:none}
a{color:inherit}}
"""


def _e(value: Any) -> str:
    """HTML-escaped text (quotes too, so that it is safe in attributes)."""
    return html.escape(str(value), quote=True)


def _signed_class(text: str) -> str:
    return " pos" if text.startswith("+") else " neg" if text.startswith("-") else ""


def _table(header: Sequence[str], body: Sequence[Sequence[str]], *, left: int = 1,
           row_classes: Sequence[str] | None = None, wrap: Sequence[int] = (),
           caption: str | None = None) -> str:
    """An HTML table in a horizontally scrolling box; the first ``left`` columns left-aligned."""
    out = ['<div class="scroll"><table>']
    if caption:
        out.append(f"<caption class=\"muted\">{_e(caption)}</caption>")
    th_left, th = '<th scope="col" class="l">', '<th scope="col">'
    out.append("<thead><tr>" + "".join(f"{th_left if i < left or i in wrap else th}{_e(h)}</th>"
                                       for i, h in enumerate(header)) + "</tr></thead><tbody>")
    for r, row in enumerate(body):
        cls = row_classes[r] if row_classes else ""
        cells = []
        for i, cell in enumerate(row):
            kind = "wrap" if i in wrap else "l" if i < left else ""
            tag = "th" if i == 0 else "td"
            scope = ' scope="row"' if i == 0 else ""
            css = f' class="{kind}"' if kind else ""
            cells.append(f"<{tag}{scope}{css}>{_e(cell)}</{tag}>")
        tr = f'<tr class="{cls}">' if cls else "<tr>"
        out.append(tr + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


# --------------------------------------------------------------------------- figures


class _Figures:
    """Draws figures as inline SVG; without matplotlib, says so once (or raises)."""

    def __init__(self, figures: bool | None) -> None:
        self.count = 0
        self.missing = False
        self.enabled = figures is not False
        if self.enabled:
            try:
                import matplotlib  # noqa: F401
            except ImportError as exc:
                if figures:
                    raise ImportError(_PLOT_HINT) from exc
                self.enabled, self.missing = False, True

    def __call__(self, draw: Any, caption: str, *args: Any, **kwargs: Any) -> str:
        if not self.enabled:
            return ""
        import matplotlib

        fig = draw(*args, **kwargs)
        buf = io.StringIO()
        # text stays text (searchable, scalable); ids are stable, then made unique per figure
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "skrank"}):
            fig.savefig(buf, format="svg", metadata={"Date": None})
        self.count += 1
        svg = _inline_svg(buf.getvalue(), f"f{self.count}-", caption)
        return f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


def _inline_svg(text: str, prefix: str, label: str) -> str:
    """matplotlib's SVG document as an element of the page, its ids prefixed."""
    start = text.index("<svg")
    svg = text[start:]
    svg = re.sub(r'\bid="', f'id="{prefix}', svg)
    svg = re.sub(r"url\(#", f"url(#{prefix}", svg)
    svg = re.sub(r'href="#', f'href="#{prefix}', svg)
    # size by CSS (width 100%, height from the viewBox): drop the fixed size in points
    head_end = svg.index(">")
    head = re.sub(r'\s(width|height)="[^"]*"', "", svg[:head_end])
    head += f' role="img" aria-label="{_e(label)}"'
    return head + svg[head_end:]


# --------------------------------------------------------------------------- sections


def _inputs(report: Report) -> list[str]:
    out = ["<h2 id=\"inputs\">Inputs</h2>", "<ul>"]
    out += [f"<li>{_e(line)}</li>" for line in report.inputs]
    if report.baseline is not None:
        out.append(f"<li>baseline: <b>{_e(report.baseline)}</b></li>")
    out.append(f"<li>systems: {_e(', '.join(report.systems))}</li>")
    out.append(f"<li>seed of every resampling: {_e(report.seed)}</li>")
    out.append("</ul>")
    out += ["<h3>Conventions</h3>",
            _table(["metric", "conventions"],
                   [[m.display, report.conventions(m)] for m in report.metrics], wrap=(1,))]
    return out


def _metrics(report: Report) -> list[str]:
    body, classes = [], []
    any_range = False
    for name, res in report.systems.items():
        label = f"{name} (baseline)" if name == report.baseline else name
        for m in report.metrics:
            r = res[m]
            if r.tie_interval is not None:
                lo, hi = r.tie_interval
                span = f"[{lo:.4f}, {hi:.4f}]"
                any_range = True
            else:
                span = "n/a"
            body.append([label, m.display, _fmt_num(r.value), span, str(r.n_queries),
                         str(r.n_empty), str(r.n_tie_affected), r.describe_conventions()])
            classes.append("flag" if r.n_tie_affected else "")
    out = ["<h2 id=\"metrics\">Metrics</h2>",
           _table(["system", "metric", "value", "tie range", "queries",
                   "without relevant", "ties change the value", "conventions"],
                  body, left=2, row_classes=classes, wrap=(7,))]
    hint = ("tie range: the value with the worst and the best order of documents with equal "
            "scores.")
    if not any_range:
        hint += (" Not computed here: evaluate with tie_bounds=True (skrank eval "
                 "--tie-bounds).")
    out.append(f'<p class="muted">{_e(hint)} Highlighted: rows whose value depends on how '
               "ties are ordered.</p>")
    return out


def _comparisons(report: Report, fig: _Figures) -> list[str]:
    table = report.comparisons
    if table is None:
        return []
    header, body = _comparison_rows(report)
    header = [*header, "role"]
    rows = list(table)
    body = [[*cells, row.role] for cells, row in zip(body, rows)]
    classes = ["sig" if row.reject else "" for row in rows]
    out = [f"<h2 id=\"comparisons\">Comparison with the baseline {_e(report.baseline)}</h2>",
           f'<p class="method">{_e(_comparison_method(report))}</p>',
           _table(header, body, row_classes=classes),
           '<p class="muted">Highlighted: significant after the correction. Conventions: '
           + _e("; ".join(f"{m}: {report.conventions(m)}" for m in report.metrics)) + "</p>"]
    from ._plots import _all_conventions, plot_forest

    conv = _all_conventions(report)
    out.append(fig(plot_forest, f"Forest plot: each difference (system - baseline) with its "
                   f"{report.settings['confidence'] * 100:g}% bootstrap BCa interval; "
                   f"conventions: {conv}", table))
    for row in rows:
        out += _one_comparison(report, row, fig)
    return out


def _one_comparison(report: Report, row: Any, fig: _Figures) -> list[str]:
    from ._plots import plot_differences

    c = row.comparison
    conv = report.conventions(c.metric)
    diff = _fmt_num(c.mean_difference, signed=True)
    p_corr = ("uncorrected (primary)" if row.role == "primary" or len(report.comparisons) == 1
              else f"{report.settings['correction']}-corrected {format_p(row.pvalue_adjusted)}")
    out = [f"<h3>{_e(row.name)}: {_e(c.name_a)} vs {_e(c.name_b)}</h3>",
           f"<p>mean {_e(c.name_a)} <b>{_fmt_num(c.mean_a)}</b>, {_e(c.name_b)} "
           f"<b>{_fmt_num(c.mean_b)}</b>, difference <b class=\"{_signed_class(diff)[1:]}\">"
           f"{diff}</b>, {c.confidence * 100:g}% CI {_e(_fmt_ci(c.ci_bca))}, "
           f"p = {format_p(row.pvalue)} ({_e(report.settings['test'])}; {_e(p_corr)}); "
           f"{c.wins} wins, {c.ties} ties, {c.losses} losses.</p>",
           f'<p class="muted">{_e(conv)}</p>']
    out.append(fig(plot_differences, f"Per-query differences {c.name_a} - {c.name_b} on "
                   f"{c.metric}, sorted; the largest losses are named. Conventions: {conv}",
                   c, conventions=conv))
    if c.largest_losses:
        body = [[str(q.qid), _fmt_num(q.a), _fmt_num(q.b), _fmt_num(q.difference, signed=True)]
                for q in c.largest_losses]
        out.append(_table(["query", c.name_a, c.name_b, "difference"], body,
                          caption=f"largest losses of {c.name_a}"))
    out.append(f"<details><summary>every statistic of {_e(row.name)}</summary>"
               f"<pre>{_e(str(c))}</pre></details>")
    return out


def _curves(report: Report, curves: Mapping[str, Mapping[str, Any]] | None,
            fig: _Figures) -> list[str]:
    if not curves:
        return []
    from ._plots import _curve_conventions, plot_metric_at_k

    out = ["<h2 id=\"curves\">Metrics by cutoff</h2>"]
    for metric, per_system in curves.items():
        conv = _curve_conventions(report, metric)
        caption = f"{metric}@k by cutoff k, one line per system" + (
            f"; conventions: {conv}" if conv else "")
        out.append(fig(plot_metric_at_k, caption, per_system, metric=metric, conventions=conv))
        ks = sorted({int(k) for _, (kk, _) in per_system.items() for k in kk})
        header = ["system", *(f"k={k}" for k in ks)]
        body = []
        for name, (kk, values) in per_system.items():
            by_k = {int(k): float(v) for k, v in zip(kk, values)}
            body.append([str(name), *(_fmt_num(by_k.get(k, math.nan)) for k in ks)])
        out.append(_table(header, body, caption=f"{metric}@k"))
    return out


def _segments(report: Report, fig: _Figures) -> list[str]:
    if not report.segments:
        return []
    from ._plots import plot_segments

    out = ["<h2 id=\"segments\">Segments</h2>"]
    for table in report.segments:
        header, body = table.table()
        flags, classes = [], []
        for r in table:
            flag = []
            if table.paired and r.reject:
                flag.append("significant")
            if table.paired and r.n < 2:
                flag.append("no test (fewer than 2 queries)")
            elif table.paired and r.n < SMALL_SEGMENT:
                flag.append(f"fewer than {SMALL_SEGMENT} queries: interval unreliable")
            if r.n_omitted:
                flag.append(f"{r.n_omitted} left out (no value)")
            flags.append("; ".join(flag))
            classes.append("sig" if table.paired and r.reject else "flag" if flag else "")
        body = [[*cells, f] for cells, f in zip(body, flags)]
        conv = report.conventions(table.metric) if table.metric else None
        out += [f"<h3>{_e(_segment_title(report, table))}</h3>",
                f'<p class="method">{_e(table.method())}</p>',
                _table([*header, "flags"], body, row_classes=classes, wrap=(len(header),))]
        notes = table.footnotes()
        if notes:
            out.append('<ul class="notes">' + "".join(f"<li>{_e(n)}</li>" for n in notes)
                       + "</ul>")
        caption = table.title() + (f"; conventions: {conv}" if conv else "")
        out.append(fig(plot_segments, caption, table, conventions=conv))
    return out


def data_notes(report: Report) -> list[str]:
    """What the data hit: ties that change values, queries without relevant documents."""
    notes = []
    for m in report.metrics:
        for name, res in report.systems.items():
            r = res[m]
            if r.n_tie_affected:
                span = ""
                if r.tie_interval is not None:
                    span = (f"; from worst to best order of the ties it ranges over "
                            f"[{r.tie_interval[0]:.4f}, {r.tie_interval[1]:.4f}]")
                has = "query has" if r.n_tie_affected == 1 else "queries have"
                notes.append(
                    f"ties: {name}, {m.display}: {r.n_tie_affected} of {r.n_queries} {has} "
                    f"documents with equal scores and different labels inside or across "
                    f"the cutoff, so the value depends on the tie rule "
                    f"(ties={r.conventions.for_metric(m.name).ties}){span}.")
            if r.n_empty:
                how = {"exclude": "left out of the mean", "zero": "counted as 0",
                       "one": "counted as 1"}.get(r.conventions.empty, "")
                has = "query has" if r.n_empty == 1 else "queries have"
                notes.append(
                    f"empty queries: {name}, {m.display}: {r.n_empty} of {r.n_queries} "
                    f"{has} no relevant document ({how}; "
                    f"empty={r.conventions.empty}).")
    return notes


def _notes(report: Report, fig: _Figures) -> list[str]:
    notes = [*report.notes, *data_notes(report)]
    if fig.missing:
        notes.append(_PLOT_HINT + ".")
    if not notes:
        return []
    return ["<h2 id=\"notes\">Notes on the data</h2>", '<ul class="notes">',
            *(f"<li>{_e(n)}</li>" for n in notes), "</ul>"]


def render_html(report: Report, *, curves: Mapping[str, Mapping[str, Any]] | None = None,
                figures: bool | None = None, title: str | None = None,
                per_query: bool = False) -> str:
    """The report as one self-contained HTML page (see :meth:`Report.to_html`)."""
    from ._render import _per_query_cells

    fig = _Figures(figures)
    heading = title or "skrank evaluation report"
    body = [f"<header><h1>{_e(heading)}</h1>", f'<p class="muted">{_e(_headline(report))}</p>',
            "</header>"]
    body += _inputs(report)
    body += _metrics(report)
    body += _comparisons(report, fig)
    body += _curves(report, curves, fig)
    body += _segments(report, fig)
    if per_query:
        body += ["<h2 id=\"per-query\">Per query</h2>", _table(*_per_query_cells(report))]
    body += _notes(report, fig)
    body.append(f'<footer><p class="muted">skrank {_e(__version__)}; seed {_e(report.seed)}'
                "</p></footer>")
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="skrank">',
        f"<title>{_e(heading)}</title>",
        f"<style>\n{_CSS}</style>",
        f"<script>{_SCRIPT}</script>",
        "</head>",
        "<body><main>",
        *body,
        "</main></body>",
        "</html>",
        "",
    ])
