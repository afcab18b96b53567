"""Input checks shared by the online-evaluation modules (private)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._validation import param_error
from ..exceptions import InputError


def input_error(name: str, allowed: str, got: Any, caller: str | None = None) -> InputError:
    """An :class:`InputError` in the message format of :func:`skrank._validation.param_error`."""
    where = f" of {caller}" if caller else ""
    return InputError(f"The {name!r} parameter{where} must be {allowed}. Got {got} instead.")


def check_rng(rng: Any, caller: str | None = None) -> np.random.Generator:
    """Return a Generator from None, an int seed or a Generator."""
    if isinstance(rng, np.random.Generator):
        return rng
    is_seed = isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and rng >= 0
    if rng is None or is_seed:
        return np.random.default_rng(rng)
    raise param_error("rng", "None, an int >= 0 or a numpy.random.Generator", rng, caller)


def check_confidence_level(value: Any, caller: str | None = None) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok and 0.0 < float(value) < 1.0:
        return float(value)
    raise param_error("confidence_level", "a real number in (0, 1)", value, caller)


def check_positive_int(name: str, value: Any, caller: str | None = None, minimum: int = 1) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= minimum:
        return int(value)
    raise param_error(name, f"an int >= {minimum}", value, caller)


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


def _first(mask: np.ndarray) -> int | tuple[int, ...]:
    idx = np.argwhere(mask)[0]
    return int(idx[0]) if idx.size == 1 else tuple(int(i) for i in idx)


def _short(x: Any) -> str:
    s = repr(x)
    return s if len(s) <= 60 else s[:57] + "..."
