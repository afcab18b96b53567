"""Per-query columns from per-row data: a constant column, candidate counts, query-log counts."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import param_error, public_name, validate_params
from ..exceptions import InputError
from ._common import _as_1d, _key


@validate_params({})  # name: any label, for messages
def per_query(qid: Any, values: Any, *, name: str = "values") -> tuple[np.ndarray, np.ndarray]:
    """Collapse a per-row column to one value per query (it must be constant within a query).

    Parameters
    ----------
    qid : array-like of shape (n_rows,)
        Query id of each row.
    values : array-like of shape (n_rows,)
        The column, e.g. a query type or a query frequency repeated on every row.
    name : str, default="values"
        Name of the column, for error messages.

    Returns
    -------
    qids : ndarray
        The query ids in order of first appearance.
    values : ndarray
        The value of each query.

    Raises
    ------
    InputError
        A query has two different values; the message names the query and both values.

    Examples
    --------
    >>> from skrank.segments import per_query
    >>> per_query([7, 7, 3, 3, 3], ["nav", "nav", "info", "info", "info"], name="type")
    (array([7, 3]), array(['nav', 'info'], dtype='<U4'))
    """
    q = _as_1d(qid, "qid")
    v = _as_1d(values, name)
    if v.shape[0] != q.shape[0]:
        raise InputError(
            f"The {name!r} column must have one value per row: {q.shape[0]} query ids but "
            f"{v.shape[0]} values."
        )
    if q.shape[0] == 0:
        return q, v
    _, first, inverse = np.unique(q, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    expected = v[first][inverse]
    same = expected == v
    if v.dtype.kind == "f":
        same |= np.isnan(expected) & np.isnan(v)
    if not np.all(same):
        row = int(np.flatnonzero(~same)[0])
        raise InputError(
            f"The {name!r} column must hold one value per query, but query "
            f"{_key(q[row])!r} has both {expected[row].item()!r} and {v[row].item()!r}."
        )
    order = np.sort(first)
    return q[order], v[order]


@validate_params({})  # retrieved: an array, checked against qid's length in the body
def count_candidates(qid: Any, *, retrieved: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Number of candidate documents of each query: its rows (only retrieved ones if given).

    Parameters
    ----------
    qid : array-like of shape (n_rows,)
        Query id of each row.
    retrieved : array-like of bool, optional
        Rows marked False (judged documents a run did not return) are not candidates.

    Returns
    -------
    qids : ndarray
        Query ids in order of first appearance.
    counts : ndarray of int64
        Candidates per query.

    Examples
    --------
    >>> from skrank.segments import count_candidates
    >>> count_candidates(["b", "b", "a", "b"])
    (array(['b', 'a'], dtype='<U1'), array([3, 1]))
    """
    caller = public_name()
    q = _as_1d(qid, "qid")
    uniq, first, inverse = np.unique(q, return_index=True, return_inverse=True)
    weights = None
    if retrieved is not None:
        r = _as_1d(retrieved, "retrieved")
        if r.dtype.kind != "b" or r.shape[0] != q.shape[0]:
            raise param_error("retrieved", f"a boolean array of length {q.shape[0]}",
                              retrieved, caller)
        weights = r.astype(np.int64)
    counts = np.bincount(inverse.ravel(), weights=weights, minlength=uniq.shape[0])
    order = np.argsort(first, kind="stable")
    return uniq[order], counts[order].astype(np.int64)


@validate_params({})
def count_queries(log: Any, qids: Any) -> np.ndarray:
    """How often each of ``qids`` occurs in a log of issued queries (0 when absent).

    Parameters
    ----------
    log : array-like
        One query id per issued query, e.g. from :func:`read_query_log`.
    qids : array-like of shape (n_queries,)
        The queries to count (matched as text).

    Returns
    -------
    ndarray of int64
        The counts, aligned with ``qids``.

    Examples
    --------
    >>> from skrank.segments import count_queries
    >>> count_queries(["7", "3", "7", "7", "9"], [3, 7, 8])
    array([1, 3, 0])
    """
    keys, counts = np.unique([_key(x) for x in _as_1d(log, "log").tolist()],
                             return_counts=True)
    table = dict(zip(keys.tolist(), counts.tolist()))
    q = _as_1d(qids, "qids")
    return np.array([table.get(_key(x), 0) for x in q.tolist()], dtype=np.int64)
