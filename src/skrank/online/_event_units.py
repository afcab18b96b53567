"""The result of :func:`skrank.online.event_metrics`: one row per unit, ready for an A/B analysis.

:class:`EventUnits` holds the unit table, the ``metrics=`` of :func:`analyze_experiment`, the
conventions that produced the numbers and the log's counts; ``analyze(control)`` runs the
analysis. The metrics themselves are computed in :mod:`skrank.online._events`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

from .._validation import input_error
from ._experiment import analyze_experiment

__all__ = ["EventUnits"]


@dataclass(frozen=True)
class EventUnits:
    """One row per unit (user or session) of an event log, from :func:`event_metrics`.

    Attributes
    ----------
    table : DataFrame
        The unit table, of the event log's kind (pandas, polars, pyarrow): the unit's id
        column(s), the arm, ``sessions``, ``queries`` and the numerator and denominator
        columns of each metric. Pass it to :func:`analyze_experiment` with ``metrics``.
    metrics : dict
        Metric name -> column or ``(numerator, denominator)`` pair of ``table``, the form
        ``analyze_experiment(metrics=...)`` takes (``"ctr@10"``, ``"abandonment"``, ...).
    unit : str
        ``"user"`` or ``"session"``.
    arm : str or None
        The arm column carried through.
    conventions : dict
        Every definition that produced the numbers, by name.
    n_events, n_units, n_sessions, n_queries, n_clicks : int
        Counts of the log.
    n_unattributed_clicks : int
        Clicks before the first query of their session (in no query's metrics).
    n_censored : int or None
        Users left out of retention because their window ends after the log (``None``
        without retention).
    """

    table: Any
    metrics: dict[str, Any]
    unit: str
    arm: str | None
    conventions: dict[str, Any]
    n_events: int
    n_units: int
    n_sessions: int
    n_queries: int
    n_clicks: int
    n_unattributed_clicks: int
    n_censored: int | None = None
    _means: dict[str, float] = field(default_factory=dict, repr=False, compare=False)

    def analyze(self, control: Any, **kwargs: Any) -> Any:
        """``analyze_experiment(self.table, arm=self.arm, control=control,
        metrics=self.metrics, **kwargs)``."""
        if self.arm is None:
            raise input_error("arm", "the arm column, given to event_metrics",
                              "None", "EventUnits.analyze")
        return analyze_experiment(self.table, arm=self.arm, control=control,
                                  metrics=self.metrics, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Everything but the table, as plain Python values."""
        return {
            "metrics": {k: list(v) if isinstance(v, tuple) else v
                        for k, v in self.metrics.items()},
            "unit": self.unit, "arm": self.arm, "conventions": dict(self.conventions),
            "n_events": self.n_events, "n_units": self.n_units, "n_sessions": self.n_sessions,
            "n_queries": self.n_queries, "n_clicks": self.n_clicks,
            "n_unattributed_clicks": self.n_unattributed_clicks,
            "n_censored": self.n_censored, "overall": dict(self._means),
        }

    def __str__(self) -> str:
        conv = "; ".join(f"{k}={v}" for k, v in self.conventions.items())
        lines = [f"EventUnits: {self.n_units:,} {self.unit}s from {self.n_events:,} events "
                 f"({self.n_sessions:,} sessions, {self.n_queries:,} queries, "
                 f"{self.n_clicks:,} clicks, {self.n_unattributed_clicks:,} before any query)",
                 *textwrap.wrap(conv, 92, initial_indent="  conventions: ",
                                subsequent_indent="    ")]
        for name, spec in self.metrics.items():
            what = spec if isinstance(spec, str) else f"{spec[0]} / {spec[1]}"
            lines.append(f"  {name} = {self._means[name]:.4g} overall ({what})")
        if self.n_censored:
            lines.append(f"  retention: {self.n_censored:,} users censored "
                         f"({self.conventions['retention_censoring']})")
        return "\n".join(lines)
