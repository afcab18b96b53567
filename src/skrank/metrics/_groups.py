"""Query ids <-> group sizes <-> offsets, with stable grouping of non-contiguous rows."""

from __future__ import annotations

import numbers
import sys
from dataclasses import dataclass

import numpy as np

from .._validation import param_error
from ..exceptions import InputError
from ._kernels._arrays import group_by_table as _group_by_table
from ._kernels._arrays import next_run_start, run_starts

__all__ = ["Grouping", "as_qid_array", "group_rows", "next_run_start", "run_starts", "unmasked"]


@dataclass(frozen=True)
class Grouping:
    """How the rows of a flat input form queries.

    Attributes
    ----------
    qids : ndarray
        One id per query, in order of first appearance.
    offsets : ndarray of int64, shape (n_queries + 1,)
        Query ``q`` is ``rows[offsets[q]:offsets[q + 1]]``.
    order : ndarray of int64 or None
        Row indices query by query, input order kept inside each query (a stable grouping);
        None when every query's rows were already adjacent.
    """

    qids: np.ndarray
    offsets: np.ndarray
    order: np.ndarray | None

    @property
    def contiguous(self) -> bool:
        """True when every query's rows were already adjacent in the input."""
        return self.order is None

    @property
    def rows(self) -> np.ndarray:
        """Row indices query by query (``arange(n)`` for contiguous input)."""
        if self.order is None:
            return np.arange(int(self.offsets[-1]), dtype=np.int64)
        return self.order

    @property
    def kernel_rows(self) -> np.ndarray:
        """``order`` for the kernels: an empty array when the input is contiguous."""
        return np.zeros(0, dtype=np.int64) if self.order is None else self.order

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def max_size(self) -> int:
        return int(self.sizes.max()) if self.n_queries else 0

    def query_index(self) -> np.ndarray:
        """For every row (in input order), the position of its query in ``qids``."""
        out = np.empty(self.rows.shape[0], dtype=np.int64)
        out[self.rows] = np.repeat(np.arange(self.n_queries), self.sizes)
        return out


def _missing(v) -> bool:
    """None, a float NaN or pandas' NA / NaT (without importing pandas)."""
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in (
        "NAType", "NaTType")


def _id_kinds(arr: np.ndarray) -> set[str]:
    """The kinds of the ids of an object array: 'str', 'number' or a type name."""
    return {"str" if isinstance(v, str) else
            "number" if isinstance(v, numbers.Number) and not isinstance(v, bool) else
            type(v).__name__ for v in arr[:]}


def unmasked(name: str, value, caller: str | None):
    """``value`` itself, or the data of a ``numpy.ma`` masked array that masks nothing.

    A masked array with masked entries is refused with the standard error naming ``name``:
    ``np.asarray`` (and scikit-learn's ``check_array``) would take the values under the mask
    as if they were data, and dropping those rows silently would change every query they
    belong to.
    """
    # a masked array means numpy.ma is imported: no need to import it (it is slow) to check
    ma = sys.modules.get("numpy.ma")
    if ma is None or not isinstance(value, ma.MaskedArray):
        return value
    mask = ma.getmaskarray(value).ravel()
    if mask.any():
        rows = np.flatnonzero(mask)
        raise InputError(
            f"The {name!r} parameter{' of ' + caller if caller else ''} must not have masked "
            "entries: skrank takes every row, and would otherwise read the values under the "
            f"mask. Got {rows.shape[0]} masked {'entry' if rows.shape[0] == 1 else 'entries'} "
            f"(first at row {int(rows[0])}) instead. Drop those rows from every input, or "
            "fill them (.filled(value)).", parameter=name, row=int(rows[0]),
            allowed="no masked entry")
    return ma.getdata(value)


def as_qid_array(qid, n: int, caller: str | None) -> np.ndarray:
    """``qid`` as a 1-D array of ``n`` integer or string ids, or the standard error."""
    arr = np.asarray(unmasked("qid", qid, caller))
    if arr.ndim != 1:
        raise InputError(
            f"The 'qid' parameter{' of ' + caller if caller else ''} must be 1-D with one "
            f"query id per row. Got an array of shape {arr.shape} instead."
        )
    if arr.shape[0] != n:
        raise InputError(
            f"The 'qid' parameter{' of ' + caller if caller else ''} must have one query id per "
            f"row: y_true has {n} rows but qid has {arr.shape[0]}."
        )
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            row = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise InputError(
                "The 'qid' parameter contains missing (NaN) or infinite values (first at row "
                f"{row}: {arr[row].item()!r}).", parameter="qid", row=row,
                allowed="a finite query id for every row")
    elif arr.dtype.kind == "O":
        row = next((i for i, v in enumerate(arr[:]) if _missing(v)), None)
        if row is not None:
            raise InputError(
                "The 'qid' parameter contains missing values (None, NaN or pandas NA; first "
                f"at row {row}: {arr[row]!r}).", parameter="qid", row=row,
                allowed="a query id for every row")
        kinds = _id_kinds(arr)
        if len(kinds) > 1:  # 1 and "1" would be two queries, or fail to sort: refused
            raise param_error(
                "qid", "ids of one type (all integers or all strings)",
                f"a mix of {' and '.join(sorted(kinds))}", caller,
            )
        try:
            arr = arr.astype(str) if kinds == {"str"} else arr
        except (TypeError, ValueError):  # pragma: no cover - mixed exotic objects
            pass
    elif arr.dtype.kind not in "iub" and arr.dtype.kind not in "US":
        raise param_error("qid", "an array of integers or strings", arr.dtype, caller)
    if arr.dtype.kind in "iu":  # the compiled passes read native, contiguous integers
        arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))
    return arr


def _all_distinct(values: np.ndarray) -> bool:
    """True when no value repeats (monotone runs of ids, the usual case, need no sort)."""
    if values.shape[0] < 2:
        return True
    step = values[1:] > values[:-1]
    if step.all() or (values[1:] < values[:-1]).all():
        return True
    ordered = np.sort(values)
    return not bool((ordered[1:] == ordered[:-1]).any())


def group_rows(
    n: int, qid=None, group=None, *, caller: str | None = None
) -> Grouping:
    """Group ``n`` rows into queries from per-row ``qid`` or from ``group`` sizes.

    Rows of a query need not be contiguous: they are gathered with a stable sort, so input
    order inside each query is kept (it decides ``ties="input"``).
    """
    if (qid is None) == (group is None):
        raise param_error(
            "qid",
            "given (one query id per row), or else 'group' (query sizes), but not both",
            "both" if qid is not None else None,
            caller,
        )
    if group is not None:
        sizes = np.asarray(unmasked("group", group, caller))
        if sizes.ndim != 1 or sizes.dtype.kind not in "iu" or (sizes.size and sizes.min() <= 0):
            raise param_error("group", "a 1-D array of positive int query sizes", group, caller)
        if int(sizes.sum()) != n:
            raise InputError(
                f"The 'group' sizes add up to {int(sizes.sum())} rows but y_true has {n} rows."
            )
        offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return Grouping(qids=np.arange(sizes.shape[0]), offsets=offsets, order=None)
    arr = as_qid_array(qid, n, caller)
    if n == 0:
        return Grouping(arr[:0], np.zeros(1, np.int64), None)
    increasing = False
    if arr.dtype.kind in "iu":
        starts, run_ids, increasing = run_starts(arr)
    else:
        change = np.flatnonzero(arr[1:] != arr[:-1]) + 1
        starts = np.concatenate(([0], change, [n])).astype(np.int64)
        run_ids = arr[starts[:-1]]
    # runs with distinct ids are whole queries; with few runs (the usual contiguous input,
    # ids in any order) sorting their ids tells at once, with many the table below does
    few_runs = run_ids.shape[0] <= n // 16
    if increasing or (few_runs and _all_distinct(run_ids)):
        return Grouping(run_ids, starts, None)
    if arr.dtype.kind in "iu":
        lo, hi = int(arr.min()), int(arr.max())
        if hi - lo <= n + 1024:  # ids within a span of the order of the rows: a table
            qids, offsets, rows = _group_by_table(arr, arr.dtype.type(lo), hi - lo + 1)
            if qids.shape[0] == run_ids.shape[0]:  # one run per id: contiguous after all
                return Grouping(run_ids, starts, None)
            return Grouping(qids, offsets, rows)
    if not few_runs and _all_distinct(run_ids):
        return Grouping(run_ids, starts, None)
    # non-contiguous: number queries by first appearance, then a stable sort of the rows
    uniq, first_row, inverse = np.unique(arr, return_index=True, return_inverse=True)
    by_first = np.argsort(first_row, kind="stable")
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(by_first.shape[0])
    code = rank[inverse.ravel()]
    rows = np.argsort(code, kind="stable").astype(np.int64)
    counts = np.bincount(code, minlength=uniq.shape[0])
    offsets = np.zeros(uniq.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return Grouping(uniq[by_first], offsets, rows)

