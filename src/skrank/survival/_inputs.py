"""Checks of the arrays given to the survival functions, in skrank's one error format."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_column, input_error, public_name

__all__ = ["check_estimate", "check_event", "check_time", "check_times", "input_error",
           "survival_pair"]


def _shown(values: np.ndarray, limit: int = 3) -> str:
    return "[" + ", ".join(repr(v) for v in values[:limit].tolist()) + (
        ", ..." if values.shape[0] > limit else ""
    ) + "]"


def check_event(value: Any, name: str) -> np.ndarray:
    """The event indicator as a bool array: booleans, or numbers that are all 0 or 1."""
    caller = public_name()
    arr = as_column(name, value, caller, kinds=None)
    if arr.dtype.kind == "b":
        return arr.astype(bool, copy=False)
    allowed = "boolean (True for an event, False for censoring), or numbers that are all 0 or 1"
    if arr.dtype.kind not in "iuf":
        raise input_error(name, allowed, f"an array of dtype {arr.dtype}", caller)
    bad = ~((arr == 0) | (arr == 1))
    if bad.any():
        raise input_error(name, allowed, f"the values {_shown(np.unique(arr[bad]))}", caller)
    return arr == 1


def check_time(value: Any, name: str) -> np.ndarray:
    """Observed times as float64: finite and >= 0."""
    caller = public_name()
    arr = as_column(name, value, caller, kinds="iuf", what="numeric times")
    arr = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise input_error(name, "finite times", f"{float(arr[i])!r} at position {i}", caller)
    if (arr < 0).any():
        i = int(np.flatnonzero(arr < 0)[0])
        raise input_error(
            name, "times >= 0 (observed times cannot be negative)",
            f"{float(arr[i])!r} at position {i}", caller,
        )
    return arr


def survival_pair(value: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(event, time)`` from a structured array (event field first) or an (event, time) pair."""
    caller = public_name()
    if isinstance(value, np.ndarray) and value.dtype.names is not None:
        if len(value.dtype.names) != 2:
            raise input_error(
                name,
                "a structured array with two fields (the boolean event indicator, then the "
                "time) or a pair (event, time)",
                f"a structured array with fields {value.dtype.names}",
                caller,
            )
        ev_field, t_field = value.dtype.names
        event = check_event(value[ev_field], f'{name}["{ev_field}"]')
        time = check_time(value[t_field], f'{name}["{t_field}"]')
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        event = check_event(value[0], f"{name}[0] (event)")
        time = check_time(value[1], f"{name}[1] (time)")
        if event.shape[0] != time.shape[0]:
            raise input_error(
                name, "a pair (event, time) of equal lengths",
                f"{event.shape[0]} events and {time.shape[0]} times", caller,
            )
    else:
        raise input_error(
            name,
            "a structured array with two fields (the boolean event indicator, then the time; "
            "sksurv.util.Surv makes one) or a pair (event, time)",
            f"a {type(value).__name__}",
            caller,
        )
    if event.shape[0] < 2:
        raise input_error(name, "at least two subjects", f"{event.shape[0]}", caller)
    return event, time


def check_estimate(
    value: Any, n: int, *, ndim: tuple[int, ...] = (1,), name: str = "estimate"
) -> np.ndarray:
    """Predictions as float64, finite, one row per subject (1-D, or 2-D when allowed)."""
    caller = public_name()
    arr = np.asarray(value)
    if ndim == (1,) and arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim not in ndim:
        shape = "a 1-D array" if ndim == (1,) else "a 1-D or 2-D array"
        if ndim == (2,):
            shape = "a 2-D array"
        raise input_error(name, shape, f"an array of shape {arr.shape}", caller)
    if arr.dtype.kind not in "biuf":
        raise input_error(name, "numeric", f"an array of dtype {arr.dtype}", caller)
    arr = arr.astype(np.float64, copy=False)
    if arr.shape[0] != n:
        raise input_error(
            name, f"one prediction per test subject ({n})", f"{arr.shape[0]} rows", caller
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad.reshape(arr.shape[0], -1).any(axis=1))[0])
        raise input_error(
            name, "finite (no NaN or infinity)",
            f"{float(arr.reshape(n, -1)[i][~np.isfinite(arr.reshape(n, -1)[i])][0])!r} "
            f"for subject {i}", caller,
        )
    return arr


def check_times(value: Any, test_time: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Evaluation times: finite, distinct, inside ``[min(test_time), max(test_time))``.

    Returns the times sorted and the order that sorts them (for the columns of ``estimate``).
    """
    caller = public_name()
    arr = np.atleast_1d(np.asarray(value))
    if arr.ndim != 1 or arr.shape[0] == 0 or arr.dtype.kind not in "iuf":
        raise input_error("times", "a non-empty 1-D array of numbers", repr(value), caller)
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise input_error("times", "finite", _shown(arr[~np.isfinite(arr)]), caller)
    order = np.argsort(arr, kind="stable")
    arr = arr[order]
    if arr.shape[0] > 1 and (np.diff(arr) == 0).any():
        dup = arr[1:][np.diff(arr) == 0]
        raise input_error("times", "distinct time points", f"{_shown(dup)} repeated", caller)
    lo, hi = float(test_time.min()), float(test_time.max())
    outside = (arr < lo) | (arr >= hi)
    if outside.any():
        raise input_error(
            "times",
            f"within the follow-up time of the test data, [{lo:g}; {hi:g}[ (scikit-survival: "
            "\"all times must be within follow-up time of test data\")",
            _shown(arr[outside]),
            caller,
        )
    return arr, order
