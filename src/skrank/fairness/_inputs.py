"""Checks of the arrays given to the exposure measures, in skrank's one error format, and the
encoding of query, sample and document ids as integer codes."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_column, input_error
from ..exceptions import InputError

__all__ = ["codes", "dense", "first_duplicate", "input_error", "plain", "position_in_segment",
           "segment_starts", "vector"]


def vector(name: str, value: Any, caller: str, *, n: int | None = None, of: str = "",
           numeric: bool = False) -> np.ndarray:
    """``value`` as a 1-D array (of ``n`` rows, one per row of ``of``, when given)."""
    arr = as_column(name, value, caller, kinds=None)
    if n is not None and arr.shape[0] != n:
        raise input_error(name, f"an array with one value per row of {of} ({n:,} rows)",
                          f"{arr.shape[0]:,} values", caller)
    if numeric:
        if arr.dtype.kind not in "biuf":
            raise input_error(name, "numeric", f"an array of dtype {arr.dtype}", caller)
        if arr.dtype.kind == "f":
            bad = ~np.isfinite(arr)
            if bad.any():
                raise input_error(name, "finite", f"{int(bad.sum()):,} NaN or infinite values "
                                  f"(the first at row {int(np.flatnonzero(bad)[0])})", caller)
    elif arr.dtype.kind == "f" and np.isnan(arr).any():
        first = int(np.flatnonzero(np.isnan(arr))[0])
        raise input_error(name, "ids without NaN", f"NaN at row {first}", caller)
    return arr


def plain(value: Any) -> Any:
    """A NumPy scalar as the Python value it holds (for error messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _runs(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first value of each run of equal adjacent values, and the run lengths."""
    if arr.shape[0] == 0:
        return arr, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, arr[1:] != arr[:-1]])
    return arr[starts], np.diff(np.r_[starts, arr.shape[0]])


def _hashed(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``np.unique(values, return_inverse=True)`` for str ids, labels unsorted:
    ids are hashed to 64-bit integers, which sort far faster than strings, and the result is
    checked against the strings (None on a collision)."""
    if values.dtype.kind == "O":  # Python str: their own (cached) hash
        if not all(isinstance(v, str) for v in values[:100]):
            return None
        h = np.fromiter(map(hash, values), dtype=np.int64, count=values.shape[0])
    else:
        width = values.dtype.itemsize // 4
        chars = values.view(np.uint32).reshape(values.shape[0], width)
        h = np.full(values.shape[0], 1469598103934665603, dtype=np.uint64)
        for j in range(width):  # FNV-1a over the characters
            h ^= chars[:, j].astype(np.uint64)
            h *= np.uint64(1099511628211)
    order = np.argsort(h)  # any member of a group of equal hashes may stand for it
    sorted_h = h[order]
    new = np.r_[True, sorted_h[1:] != sorted_h[:-1]]
    inverse = np.empty(values.shape[0], dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    labels = values[order[new]]
    if not bool((values == labels[inverse]).all()):
        return None  # pragma: no cover - a 64-bit collision (or ids that are not str)
    return labels, inverse


def codes(*arrays: np.ndarray, sort: bool = True) -> tuple[np.ndarray, list[np.ndarray]]:
    """Integer codes of the values of several arrays in one shared id space (the labels
    sorted unless ``sort=False``, which lets long str ids be hashed instead of sorted).

    Ids usually come in runs (the rows of a query, of a ranking): only the first value of
    each run is coded, and the codes are repeated over the run.
    """
    heads, lengths = zip(*(_runs(a) for a in arrays))
    sizes = [h.shape[0] for h in heads]
    try:
        values = np.concatenate(heads)
        found = None
        if not sort and values.dtype.kind in "UO" and values.shape[0] > 10_000:
            found = _hashed(values)
        labels, inverse = found or np.unique(values, return_inverse=True)
    except TypeError as exc:  # object arrays mixing ids that do not compare
        raise InputError(f"Ids must be of one comparable type (all str or all int): {exc}") \
            from None
    inverse = inverse.ravel().astype(np.int64)
    parts = [np.repeat(c, n) for c, n in zip(np.split(inverse, np.cumsum(sizes)[:-1]),
                                             lengths)]
    return labels, parts


def dense(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for int keys in ``[0, size)``, by a table when
    ``size`` is small beside the number of keys (no sort)."""
    if size > 4 * keys.shape[0] + 1024:
        values, inverse = np.unique(keys, return_inverse=True)
        return values, inverse.ravel().astype(np.int64)
    present = np.zeros(size, dtype=bool)
    present[keys] = True
    values = np.flatnonzero(present)
    code = np.cumsum(present) - 1
    return values, code[keys].astype(np.int64)


def first_duplicate(keys: np.ndarray) -> int:
    """Row of the first key that repeats an earlier one, or -1."""
    order = np.argsort(keys, kind="stable")
    dup = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    return -1 if dup.shape[0] == 0 else int(order[dup[0] + 1])


def segment_starts(sorted_codes: np.ndarray) -> np.ndarray:
    """Index of the first row of each run of equal values in a sorted array."""
    if sorted_codes.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])


def position_in_segment(sorted_codes: np.ndarray) -> np.ndarray:
    """0-based index of each row within its run of equal values (a sorted array)."""
    n = sorted_codes.shape[0]
    starts = segment_starts(sorted_codes)
    first = np.zeros(n, dtype=np.int64)
    first[starts] = starts
    np.maximum.accumulate(first, out=first)
    return np.arange(n, dtype=np.int64) - first
