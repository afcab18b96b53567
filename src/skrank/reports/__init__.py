"""Reports of an evaluation: text for a terminal, markdown for a pull request, JSON, CSV, plots.

:func:`build_report` compares systems evaluated with :func:`skrank.evaluate` (paired tests
per metric with a multiple-comparison correction, segment tables) and returns a
:class:`Report`, which renders itself as text (:meth:`Report.to_text`), markdown
(:meth:`Report.to_markdown`), one self-contained HTML page (:meth:`Report.to_html`), JSON
(:meth:`Report.to_json`), CSV (:meth:`Report.to_csv`) or trec_eval's format
(:meth:`Report.to_trec`), and writes its per-query table (:meth:`Report.write_per_query`).
With matplotlib (``pip install 'skrank[plot]'``), :func:`plot_differences`,
:func:`plot_forest`, :func:`plot_metric_at_k`, :func:`plot_segments` and
:func:`write_plots` draw the figures. The ``skrank eval`` command is a thin layer over these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy

# Imported on first use (a report without figures imports no plotting module, one without
# comparisons or segments none of their statistics): public name -> its module.
_LAZY: dict[str, str] = {
    "metric_at_k": "skrank.metrics._curves",
    **dict.fromkeys(["PLOT_FORMATS", "plot_differences", "plot_forest", "plot_metric_at_k",
                     "plot_segments", "write_plots"], "skrank.reports._plots"),
    "trec_name": "skrank.reports._render",
    **dict.fromkeys(["Report", "build_report"], "skrank.reports._report"),
}

if TYPE_CHECKING:  # for type checkers and linters; at run time see __getattr__
    from ..metrics._curves import metric_at_k
    from ._plots import (
        PLOT_FORMATS,
        plot_differences,
        plot_forest,
        plot_metric_at_k,
        plot_segments,
        write_plots,
    )
    from ._render import trec_name
    from ._report import Report, build_report

__getattr__, __dir__ = _lazy.lazy_attributes(globals(), _LAZY)

__all__ = [
    "PLOT_FORMATS",
    "Report",
    "build_report",
    "metric_at_k",
    "plot_differences",
    "plot_forest",
    "plot_metric_at_k",
    "plot_segments",
    "trec_name",
    "write_plots",
]
