"""Numbers and intervals as text, for the segment tables and reports (p-values:
:func:`skrank.stats._results.format_p`; aligned tables: :func:`skrank.stats._table.text_table`)."""

from __future__ import annotations

import math

from ..stats import Interval


def _fmt_num(x: float | None, digits: int = 4, signed: bool = False) -> str:
    """A number for a report: fixed digits, ``n/a`` for None and NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _fmt_ci(ci: Interval | None) -> str:
    if ci is None or math.isnan(ci.low):
        return "n/a"
    return f"[{ci.low:+.4f}, {ci.high:+.4f}]"
