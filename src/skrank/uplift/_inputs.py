"""Checks of the arrays given to the uplift functions, in skrank's one error format."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_column, input_error, public_name

__all__ = ["Rows", "check_rows", "check_treatment", "input_error"]


@dataclass(frozen=True)
class Rows:
    """Validated rows: outcomes, scores and the treatment flag, all of one length."""

    y: np.ndarray  # float64 outcomes (or int8 when binary)
    score: np.ndarray  # scores as given when numeric (for sorting), else float64
    treated: np.ndarray  # bool
    y_binary: bool
    n_treatment: int
    n_control: int

    @property
    def n(self) -> int:
        return int(self.treated.shape[0])


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def check_treatment(treatment: Any, n: int | None) -> np.ndarray:
    """The treatment flag as a bool array; binary, with both groups present."""
    caller = public_name()
    t = as_column("treatment", treatment, caller)
    if n is not None and t.shape[0] != n:
        raise input_error(
            "treatment",
            f"an array with one flag per row of y_true ({n} rows)",
            f"{t.shape[0]} flags",
            caller,
        )
    if t.dtype.kind == "b":
        flags = t
    else:
        if t.dtype.kind in "iu":
            ok = t.shape[0] == 0 or (int(t.min()) >= 0 and int(t.max()) <= 1)
        else:
            ok = bool(((t == 0) | (t == 1)).all())
        if not ok:
            shown = np.unique(t[~((t == 0) | (t == 1))])[:5].tolist()
            raise input_error(
                "treatment",
                "binary: 1 (or True) for treated rows, 0 (or False) for control rows",
                f"other values, e.g. {shown}",
                caller,
            )
        flags = t == 1
    n_t = int(np.count_nonzero(flags))
    n_c = int(flags.shape[0] - n_t)
    if n_t == 0 or n_c == 0:
        raise input_error(
            "treatment",
            "a flag with both treated (1) and control (0) rows",
            f"{n_t} treated and {n_c} control rows",
            caller,
        )
    return flags


def check_rows(
    y_true: Any,
    uplift: Any | None,
    treatment: Any,
    *,
    binary_y: bool = False,
) -> Rows:
    """Validate ``y_true``, ``uplift`` (optional) and ``treatment`` together."""
    caller = public_name()
    y = as_column("y_true", y_true, caller)
    n = y.shape[0]
    if n == 0:
        raise input_error("y_true", "a non-empty array", "an empty array", caller)
    if uplift is not None:
        s = as_column("uplift", uplift, caller)
        if s.shape[0] != n:
            raise input_error(
                "uplift",
                f"an array with one score per row of y_true ({n} rows)",
                f"{s.shape[0]} scores",
                caller,
            )
        if s.dtype.kind == "f":
            nan = np.isnan(s)
            if nan.any():
                raise input_error(
                    "uplift",
                    "free of NaN (a row without a score cannot be ranked)",
                    f"{int(nan.sum())} NaN scores (the first at row {_first_bad(nan)})",
                    caller,
                )
        if s.dtype.kind == "b":
            s = s.astype(np.int8)
    else:
        s = np.zeros(0)
    flags = check_treatment(treatment, n)
    if y.dtype.kind == "b":
        y = y.astype(np.int8)
        is_binary = True
    elif y.dtype.kind in "iu":
        is_binary = int(y.min()) >= 0 and int(y.max()) <= 1
    else:
        bad = ~np.isfinite(y)
        if bad.any():
            raise input_error(
                "y_true",
                "finite outcomes",
                f"{int(bad.sum())} NaN or infinite values (the first at row {_first_bad(bad)})",
                caller,
            )
        is_binary = bool(((y == 0) | (y == 1)).all())
    if binary_y and not is_binary:
        shown = np.unique(y[~((y == 0) | (y == 1))])[:5].tolist()
        raise input_error(
            "y_true",
            "binary (1 for a response, 0 for none) to draw a perfect curve",
            f"other values, e.g. {shown}",
            caller,
        )
    y_out = y.astype(np.int8) if is_binary else y.astype(np.float64)
    n_t = int(np.count_nonzero(flags))
    return Rows(y_out, s, flags, is_binary, n_t, n - n_t)
