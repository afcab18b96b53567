"""Parameter and input checks shared by the statistics modules (one error format)."""

from __future__ import annotations

import importlib
import numbers
from typing import Any

import numpy as np

from .._validation import check_choice, param_error
from ..exceptions import InputError

ALTERNATIVES = ("two-sided", "greater", "less")


def check_alternative(value: Any, caller: str) -> str:
    return check_choice("alternative", value, ALTERNATIVES, caller)


def check_open_unit(name: str, value: Any, caller: str) -> float:
    """A real number strictly between 0 and 1 (confidence, alpha, power)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok and 0.0 < float(value) < 1.0:
        return float(value)
    raise param_error(name, "a float in the open interval (0, 1)", value, caller)


def check_nonneg_real(name: str, value: Any, caller: str) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok and float(value) >= 0.0 and np.isfinite(float(value)):
        return float(value)
    raise param_error(name, "a finite real number >= 0", value, caller)


def check_seed(value: Any, caller: str, name: str = "rng"
               ) -> np.random.SeedSequence | np.random.Generator | int:
    """Accept None, a non-negative int or a numpy Generator (the ``rng`` parameter)."""
    if value is None or isinstance(value, np.random.Generator):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 0:
        return int(value)
    raise param_error(name, "None, an int >= 0 or a numpy.random.Generator", value, caller)


def resolve_seed(seed: Any) -> tuple[int | None, np.random.SeedSequence]:
    """Return (the seed to report, the SeedSequence to draw from).

    With ``seed=None`` a seed is drawn from the operating system's entropy and reported, so that
    the run can be reproduced by passing it back. A Generator is consumed deterministically
    (one draw) and reported as ``None``.
    """
    if seed is None:
        drawn = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
        return drawn, np.random.SeedSequence(drawn)
    if isinstance(seed, np.random.Generator):
        return None, np.random.SeedSequence(seed.integers(0, 2**63, size=2).tolist())
    return int(seed), np.random.SeedSequence(int(seed))


def as_vector(x: Any, name: str, caller: str) -> np.ndarray:
    """A 1-D float64 array without infinities (NaN allowed: see nan_policy)."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{caller}: {name} must be a 1-D array of numbers ({exc}).") from None
    if arr.ndim != 1:
        raise InputError(
            f"{caller}: {name} must be a 1-D array of per-query values; got shape {arr.shape}."
        )
    if np.isinf(arr).any():
        bad = np.flatnonzero(np.isinf(arr))
        raise InputError(
            f"{caller}: {name} has {bad.size} infinite value(s) (first at position {bad[0]}); "
            "per-query metric values must be finite."
        )
    return arr


def preview(values: Any, limit: int = 10) -> str:
    """Comma-separated repr of at most ``limit`` values, with '...' when cut."""
    vals = [v.item() if isinstance(v, np.generic) else v for v in list(values)[:limit]]
    text = ", ".join(repr(v) for v in vals)
    return text + (", ..." if len(values) > limit else "")


class LazyModule:
    """A module imported on first attribute access: scipy's statistics cost about a second to
    import, which ``skrank eval`` without a comparison should not pay."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)
