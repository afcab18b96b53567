"""Numbers, intervals and aligned tables as text, for the segment tables and reports
(p-values: :func:`skrank.stats._results.format_p`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

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


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """Aligned plain-text table lines; the first ``left`` columns are left-aligned."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return [line(header), *(line(r) for r in rows)]
