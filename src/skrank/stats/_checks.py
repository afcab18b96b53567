"""Parameter and input checks shared by the statistics modules (one error format)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from .._validation import Interval, Options, check_choice, public_name
from ..exceptions import InputError

ALTERNATIVES = ("two-sided", "greater", "less")

# the constraints the statistics functions declare (skrank._validation.validate_params)
ALTERNATIVE = Options(ALTERNATIVES)
OPEN_UNIT = Interval(float, 0, 1, closed="neither", text="a float in the open interval (0, 1)")
NONNEG_REAL = Interval(float, 0, text="a finite real number >= 0")
POSITIVE_INT = Interval(int, 1)
NONNEG_INT = Interval(int, 0)


def check_alternative(value: Any, caller: str) -> str:
    return check_choice("alternative", value, ALTERNATIVES, caller)


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


def as_vector(x: Any, name: str) -> np.ndarray:
    """A 1-D float64 array without infinities (NaN allowed: see nan_policy); messages name the
    running public function."""
    caller = public_name()
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
