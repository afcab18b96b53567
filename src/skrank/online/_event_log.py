"""Reading an event log: its columns as arrays, the events' one order, the arm's check.

The helpers :func:`skrank.online.event_metrics` reads a log with, whatever its data frame kind
(through narwhals): ids as integer codes that order like the values, times in seconds, one
boolean mask per event type, the order by user, session and time (queries first at equal
times), and the check that the arm is constant within each unit. Errors name
``event_metrics``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import input_error
from ._experiment import arm_codes

_CALLER = "event_metrics"
_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def _codes(series: Any, role: str) -> np.ndarray:
    """Integer codes that order like the values (numbers as they are; others densely ranked
    by the data frame itself)."""
    if series.null_count():
        raise input_error(role, "a column without missing values",
                          f"{series.null_count()} missing in column {series.name!r}", _CALLER)
    if series.dtype.is_numeric():
        return np.asarray(series.to_numpy())
    return np.asarray(series.rank(method="dense").to_numpy()).astype(np.int64)


def _seconds(series: Any, time_unit: str) -> np.ndarray:
    import narwhals.stable.v2 as nw

    if series.null_count():
        raise input_error("timestamp", "a column without missing values",
                          f"{series.null_count()} missing in column {series.name!r}", _CALLER)
    if series.dtype == nw.Datetime:
        return np.asarray(series.dt.timestamp("us").to_numpy(), dtype=np.float64) * 1e-6
    if not series.dtype.is_numeric():
        raise input_error("timestamp", "a column of datetimes or numbers",
                          f"column {series.name!r} of dtype {series.dtype}", _CALLER)
    t = np.asarray(series.to_numpy(), dtype=np.float64)
    bad = ~np.isfinite(t)
    if bad.any():
        i = int(np.argmax(bad))
        raise input_error("timestamp", "finite times", f"{t[i]!r} at row {i}", _CALLER)
    return t * _TIME_UNITS[time_unit]


def _is_event(series: Any, value: Any) -> np.ndarray:
    return np.asarray((series == value).fill_null(False).to_numpy(), dtype=bool)


def _event_order(u: np.ndarray, s: np.ndarray | None, t: np.ndarray,
                 is_q: np.ndarray) -> np.ndarray:
    """The events' order by user, session, time, queries first, then the log's order.

    With integer ids it is one sort of one int64 key, ``(user, session) * n + rank``, the
    rank being each event's place by time (queries first, then the log's order: one stable
    sort, nearly free on a log written in time order); the keys are distinct, so an
    unstable sort gives the same order. Other ids, or ids whose key would overflow, take
    :func:`numpy.lexsort` of the four keys.
    """
    n = t.size
    keys = [u] if s is None else [u, s]
    if all(k.dtype.kind in "iu" for k in keys):
        lows = [int(k.min()) for k in keys]
        spans = [int(k.max()) - lo + 1 for k, lo in zip(keys, lows)]
        if spans[0] * (spans[1] if s is not None else 1) * n < 1 << 62:
            pre = np.concatenate([np.flatnonzero(is_q), np.flatnonzero(~is_q)])
            rank = np.empty(n, dtype=np.int64)
            rank[pre[np.argsort(t[pre], kind="stable")]] = np.arange(n)
            comp = u.astype(np.int64) - lows[0]
            if s is not None:
                comp *= spans[1]
                comp += s.astype(np.int64) - lows[1]
            comp *= n
            comp += rank
            return np.argsort(comp)
    return np.lexsort((~is_q, t, u) if s is None else (~is_q, t, s, u))


def _check_arm(frame: Any, arm: str, order: np.ndarray, starts: np.ndarray) -> None:
    """Raise unless the arm is constant within each unit (``starts``: the sorted events that
    open a unit)."""
    col = frame[arm]
    if col.null_count():
        raise input_error("arm", "a column without missing values",
                          f"{col.null_count()} missing in column {arm!r}", _CALLER)
    if col.dtype.is_numeric() or str(col.dtype) == "Boolean":
        codes = arm_codes(col.to_numpy(), caller=_CALLER)[1]
    else:
        uniques = col.unique().to_list()
        codes = arm_codes(np.empty(len(col), dtype=object), uniques, caller=_CALLER,
                          equal=lambda a: (col == a).to_numpy())[1]
    c = codes[order]
    unit_idx = np.cumsum(starts) - 1
    bad = c != c[np.flatnonzero(starts)][unit_idx]
    if bad.any():
        row = int(order[np.argmax(bad)])
        raise input_error("arm", "constant within each unit (one arm per randomised unit)",
                          f"a second arm at row {row}", _CALLER)
