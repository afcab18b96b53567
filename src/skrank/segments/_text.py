"""Numbers, p-values, intervals and aligned tables as text, for the segment tables and reports."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..stats import Interval
from ..stats._results import format_p


def _fmt_num(x: float | None, digits: int = 4, signed: bool = False) -> str:
    """A number for a report: fixed digits, ``n/a`` for None and NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


_fmt_p = format_p  # the one p-value format (skrank.stats)


def _fmt_ci(ci: Interval | None) -> str:
    if ci is None or math.isnan(ci.low):
        return "n/a"
    return f"[{ci.low:+.4f}, {ci.high:+.4f}]"


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """Aligned plain-text table lines; the first ``left`` columns are left-aligned."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return [line(header), *(line(r) for r in rows)]
