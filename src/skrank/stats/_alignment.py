"""Lining up two systems' per-query values, query by query, before a paired comparison.

:func:`skrank.stats.paired_comparison` takes arrays or :class:`skrank.MetricResult` objects,
with or without query ids. Here the results are unpacked into their per-query values, ids and
metric label (:func:`_unpack_results`), the ids are checked (one per value, no repeats) and ``b``
is reordered to ``a``'s queries (:func:`_align`); two systems that cover different queries are
an :class:`~skrank.InputError` naming the ids.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import public_name
from ..exceptions import InputError
from ..metrics._result import MetricResult
from ._checks import preview

# --------------------------------------------------------------------------- alignment


def _kind(q: np.ndarray) -> str:
    if q.dtype.kind in "iufb":
        return "numbers"
    if q.dtype.kind in "US":
        return "strings"
    return "objects"


def _as_qids(q: Any, name: str, length: int, what: str) -> np.ndarray:
    caller = public_name()
    arr = np.asarray(q)
    if arr.ndim != 1:
        raise InputError(f"{caller}: {name} must be 1-D (one id per query); got shape {arr.shape}.")
    if arr.size != length:
        raise InputError(
            f"{caller}: {name} has {arr.size} ids but {what} has {length} values; "
            "give one id per value."
        )
    try:
        uniq, counts = np.unique(arr, return_counts=True)
    except TypeError:
        raise InputError(
            f"{caller}: the ids in {name} cannot be compared with each other."
        ) from None
    if (counts > 1).any():
        dup = uniq[counts > 1]
        raise InputError(
            f"{caller}: {name} repeats {dup.size} query id(s) ({preview(dup)}); each query must "
            "appear once (aggregate per query before comparing)."
        )
    return arr


def _align(
    a: np.ndarray, b: np.ndarray, qids_a: Any, qids_b: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``a``, ``b`` and the query ids, aligned on ``qids_a``'s order."""
    caller = public_name()
    if qids_a is None and qids_b is None:
        if a.size != b.size:
            raise InputError(
                f"{caller}: a and b must hold one value per query in the same order; got "
                f"{a.size} and {b.size} values. Pass qids_a and qids_b to align them by query id."
            )
        return a, b, np.arange(a.size)
    if qids_a is None or qids_b is None:
        # One list of ids labels both vectors, which must then be in the same order.
        name = "qids_a" if qids_b is None else "qids_b"
        if a.size != b.size:
            raise InputError(
                f"{caller}: with only {name}, a and b must have the same length; got {a.size} "
                f"and {b.size}. Pass both qids_a and qids_b to align them by query id."
            )
        q = _as_qids(qids_a if qids_b is None else qids_b, name, a.size, "a")
        return a, b, q
    qa = _as_qids(qids_a, "qids_a", a.size, "a")
    qb = _as_qids(qids_b, "qids_b", b.size, "b")
    ka, kb = _kind(qa), _kind(qb)
    if "objects" not in (ka, kb) and ka != kb:
        raise InputError(
            f"{caller}: qids_a holds {ka} but qids_b holds {kb}; query ids must be of the same "
            "type to be matched."
        )
    only_a = qa[~np.isin(qa, qb)]
    only_b = qb[~np.isin(qb, qa)]
    if only_a.size or only_b.size:
        parts = []
        if only_a.size:
            parts.append(f"{only_a.size} query id(s) only in qids_a: {preview(only_a)}")
        if only_b.size:
            parts.append(f"{only_b.size} query id(s) only in qids_b: {preview(only_b)}")
        raise InputError(
            f"{caller}: the two systems cover different queries ({'; '.join(parts)}). Paired "
            "tests need the same queries in both; restrict both to the common queries first."
        )
    sorter = np.argsort(qb, kind="stable")
    idx = sorter[np.searchsorted(qb, qa, sorter=sorter)]
    return a, b[idx], qa


def _unpack_results(a: Any, b: Any, qids_a: Any, qids_b: Any, metric: str | None
                    ) -> tuple[Any, Any, Any, Any, str | None]:
    """Per-query values, ids and the metric's label from :class:`~skrank.MetricResult` inputs.

    A result gives its ``per_query`` values and, unless ids are passed, its ``qids``. Two
    results must be of the same metric under the same conventions; queries that both leave
    out (``empty="exclude"``: NaN in both) are left out of the comparison as of the means.
    """
    caller = public_name()
    ra, rb = isinstance(a, MetricResult), isinstance(b, MetricResult)
    if not (ra or rb):
        return a, b, qids_a, qids_b, metric
    if ra and rb:
        if a.metric != b.metric:
            raise InputError(
                f"{caller}: a and b are results of different metrics ({a.metric.display} and "
                f"{b.metric.display}); compare one metric at a time."
            )
        if a.conventions != b.conventions:
            da, db = a.conventions.to_dict(), b.conventions.to_dict()
            diff = [k for k in da if da[k] != db[k]]
            raise InputError(
                f"{caller}: a and b were computed under different conventions "
                f"({a.conventions.describe(diff)} against {b.conventions.describe(diff)}); a "
                "paired comparison needs the same ones."
            )
    for r in (a, b):
        if isinstance(r, MetricResult) and metric is None:
            metric = r.metric.display
    if ra:
        qids_a = a.qids if qids_a is None else qids_a
        a = a.per_query
    if rb:
        qids_b = b.qids if qids_b is None else qids_b
        b = b.per_query
    if ra and rb:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        qa, qb = np.asarray(qids_a), np.asarray(qids_b)
        if qa.shape == a.shape and qb.shape == b.shape:
            both = np.intersect1d(qa[np.isnan(a)], qb[np.isnan(b)])
            if both.size:
                keep_a, keep_b = ~np.isin(qa, both), ~np.isin(qb, both)
                a, qids_a, b, qids_b = a[keep_a], qa[keep_a], b[keep_b], qb[keep_b]
    return a, b, qids_a, qids_b, metric
