"""Input checks and small computations shared by the online-evaluation modules (private)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

from .._validation import Interval, input_error
from ..exceptions import InputError

POSITIVE_REAL = Interval(float, 0, closed="neither")
"""A finite real number > 0 (``rho``, ``tau``, ``daily_units``)."""


def as_float_array(
    name: str, x: Any, caller: str | None, ndim: int | tuple[int, ...] = 1, allow_nan: bool = False
) -> np.ndarray:
    """``x`` as a float64 array of the given number of dimensions, finite unless allowed."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise input_error(name, "an array of real numbers", _short(x), caller) from None
    ndims = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim not in ndims:
        allowed = " or ".join(f"{d}-D" for d in ndims)
        raise input_error(name, f"a {allowed} array", f"an array of shape {arr.shape}", caller)
    bad = ~np.isfinite(arr) if not allow_nan else np.isinf(arr)
    if bad.any():
        i = _first(bad)
        raise input_error(name, "finite", f"{float(arr[i])!r} at index {i}", caller)
    return arr


def as_int_array(name: str, x: Any, caller: str | None, ndim: int = 1) -> np.ndarray:
    """``x`` as an int64 array (integer-valued floats are accepted)."""
    arr = np.asarray(x)
    if arr.ndim != ndim:
        raise input_error(name, f"a {ndim}-D array", f"an array of shape {arr.shape}", caller)
    if arr.size and arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise input_error(name, "an array of integers", _short(arr), caller)
    elif arr.size and arr.dtype.kind not in "iub":
        raise input_error(name, "an array of integers", f"dtype {arr.dtype}", caller)
    return arr.astype(np.int64)


def check_probabilities(
    name: str, p: np.ndarray, caller: str | None, allow_zero: bool = False
) -> np.ndarray:
    """Raise unless every entry of ``p`` lies in (0, 1] (or [0, 1])."""
    low_bad = p < 0 if allow_zero else p <= 0
    bad = low_bad | (p > 1)
    if bad.any():
        i = _first(bad)
        allowed = "probabilities in [0, 1]" if allow_zero else "probabilities in (0, 1]"
        raise input_error(name, allowed, f"{float(p[i])!r} at index {i}", caller)
    return p


def check_binary(name: str, x: np.ndarray, caller: str | None) -> np.ndarray:
    """Raise unless every entry of ``x`` is 0 or 1 (click indicators)."""
    if not np.isin(x, (0.0, 1.0)).all():
        raise input_error(name, "0/1 or bool", f"values {np.unique(x)[:5]}", caller)
    return x


def check_same_length(caller: str | None, **arrays: np.ndarray) -> int:
    """Raise unless all arrays have the same first dimension; return it."""
    items = list(arrays.items())
    n = items[0][1].shape[0]
    for name, arr in items[1:]:
        if arr.shape[0] != n:
            raise InputError(
                f"{caller}: {items[0][0]!r} has {n} rows but {name!r} has {arr.shape[0]}; "
                "they must have the same length."
            )
    return n


def normal_ci(value: Any, se: Any, level: float) -> tuple[Any, Any]:
    """``value -/+ z se`` with ``z`` the standard normal quantile at ``0.5 + level / 2``.

    ``value`` and ``se`` may be floats or arrays (one interval per entry).
    """
    z = float(special.ndtri(0.5 + level / 2))
    return value - z * se, value + z * se


def ratio_delta_var(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``mean(num[:, k]) / mean(den)`` for each column ``k`` and its delta-method variance.

    ``Var ≈ (s_x² - 2 R s_xy + R² s_y²) / (n ybar²)`` from the sample (co)variances of the
    rows (Deng, Knoblich and Lu, 2018), clipped at 0. ``num`` is 2-D (rows, columns) and
    ``den`` 1-D with the same rows.
    """
    n = den.shape[0]
    mx, my = num.mean(axis=0), den.mean()
    r = mx / my
    vx = num.var(axis=0, ddof=1)
    vy = den.var(ddof=1)
    cov = ((num - mx) * (den - my)[:, None]).sum(axis=0) / (n - 1)
    var = (vx - 2 * r * cov + r * r * vy) / (n * my * my)
    return r, np.maximum(var, 0.0)


def _first(mask: np.ndarray) -> int | tuple[int, ...]:
    idx = np.argwhere(mask)[0]
    return int(idx[0]) if idx.size == 1 else tuple(int(i) for i in idx)


def _short(x: Any) -> str:
    s = repr(x)
    return s if len(s) <= 60 else s[:57] + "..."
