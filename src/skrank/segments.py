"""Segment analysis: the comparison of two systems within groups of queries.

A mean gain can hide a loss on part of the traffic: rankers often improve frequent (head)
queries while hurting rare (tail) ones. This module splits the queries into segments and
compares the two systems within each segment, with the same paired statistics as
:func:`skrank.stats.paired_comparison` and a multiple-comparison correction over the segments
of one table.

Build a :class:`Segmentation` (one label per query) with

- :func:`by_frequency`: head / torso / tail from how often each query was issued (a frequency
  column, or counts in a query log with :func:`read_query_log` and :func:`count_queries`);
- :func:`by_candidates`: the number of candidate documents per query, binned
  (:func:`count_candidates` counts them from per-row query ids);
- :func:`by_column`: any categorical per-query attribute, such as a query type
  (:func:`per_query` collapses a per-row column to one value per query);

then :func:`segment_table` gives one row per segment: the number of queries, both means, the
difference with its bootstrap confidence interval, the raw and corrected p-values and the
wins / ties / losses.

Examples
--------
>>> import numpy as np
>>> from skrank.segments import by_column, segment_table
>>> qids = np.array(["q1", "q2", "q3", "q4", "q5", "q6"])
>>> kind = by_column(qids, ["nav", "info", "nav", "info", "nav", "info"], name="type")
>>> kind.sizes()
{'info': 3, 'nav': 3}
>>> new = np.array([0.9, 0.4, 0.8, 0.3, 0.7, 0.5])
>>> old = np.array([0.7, 0.5, 0.6, 0.4, 0.6, 0.6])
>>> table = segment_table(new, old, kind, qids=qids, metric="ndcg@10", name_a="new",
...                       name_b="old", rng=0, n_resamples=1000)
>>> [(row.segment, row.n, round(row.difference, 4)) for row in table]
[('info', 3, -0.1), ('nav', 3, 0.1667)]
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._validation import check_choice, check_int, param_error, renamed_parameters
from .exceptions import InputError
from .stats import Interval, PairedComparison, multiple_comparisons, paired_comparison
from .stats._corrections import CORRECTIONS, TESTS

__all__ = [
    "SegmentRow",
    "SegmentTable",
    "Segmentation",
    "by_candidates",
    "by_column",
    "by_frequency",
    "count_candidates",
    "count_queries",
    "per_query",
    "read_query_log",
    "segment_table",
]

_BASES = ("traffic", "queries")
#: Below this many queries a segment's bootstrap interval is flagged as unreliable.
SMALL_SEGMENT = 10


# --------------------------------------------------------------------------- small helpers


def _listing(values: Sequence[Any], limit: int = 5) -> str:
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v)
                      for v in list(values)[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _key(q: Any) -> str:
    """Query ids are matched as text: ``7`` from a LibSVM file is ``"7"`` in a CSV file."""
    q = q.item() if isinstance(q, np.generic) else q
    if isinstance(q, float) and q.is_integer():
        q = int(q)
    return str(q)


def _as_1d(value: Any, name: str, caller: str) -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise InputError(
            f"The {name!r} parameter of {caller} must be 1-D (one value per query). "
            f"Got shape {arr.shape} instead."
        )
    return arr


def _same_length(arr: np.ndarray, qids: np.ndarray, name: str, caller: str) -> None:
    if arr.shape[0] != qids.shape[0]:
        raise InputError(
            f"The {name!r} parameter of {caller} must have one value per query: "
            f"{qids.shape[0]} query ids but {arr.shape[0]} values."
        )


def _unique_qids(qids: Any, caller: str) -> np.ndarray:
    q = _as_1d(qids, "qids", caller)
    keys = [_key(x) for x in q.tolist()]
    if len(set(keys)) != len(keys):
        seen: set[str] = set()
        dup = next(k for k in keys if k in seen or seen.add(k))
        raise InputError(
            f"The 'qids' parameter of {caller} must list each query once. Got {dup!r} twice."
        )
    return q


def _fmt_num(x: float | None, digits: int = 4, signed: bool = False) -> str:
    """A number for a report: fixed digits, ``n/a`` for None and NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _fmt_p(p: float | None) -> str:
    """A p-value for a report (scientific below 1e-4, ``n/a`` when undefined)."""
    if p is None or math.isnan(p):
        return "n/a"
    return f"{p:.1e}" if 0 < p < 1e-4 else f"{p:.4f}"


def _fmt_ci(ci: Interval | None) -> str:
    if ci is None or math.isnan(ci.low):
        return "n/a"
    return f"[{ci.low:+.4f}, {ci.high:+.4f}]"


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """Aligned plain-text table lines; the first ``left`` columns are left-aligned."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return [line(header), *(line(r) for r in rows)]


# --------------------------------------------------------------------------- segmentations


@dataclass(frozen=True, eq=False)
class Segmentation:
    """A partition of the queries into named segments.

    Parameters
    ----------
    name : str
        What the segments are about, e.g. ``"frequency"``, ``"candidates"``, ``"type"``.
    qids : array-like of shape (n_queries,)
        The query ids (each once). Ids are matched as text, so ``7`` and ``"7"`` are the
        same query.
    labels : array-like of str, shape (n_queries,)
        The segment of each query.
    order : sequence of str, optional
        The order in which segments are reported; defaults to the sorted labels. Every
        label must be in it; segments without queries are allowed (and reported with n = 0).
    description : str, default=""
        How the segments were made (shown in reports).

    Examples
    --------
    >>> from skrank.segments import Segmentation
    >>> seg = Segmentation("type", ["a", "b", "c"], ["nav", "info", "nav"])
    >>> seg.order, seg.sizes()
    (('info', 'nav'), {'info': 1, 'nav': 2})
    >>> seg.labels_for(["c", "a"])
    array(['nav', 'nav'], dtype=object)
    """

    name: str
    qids: np.ndarray
    labels: np.ndarray
    order: tuple[str, ...] = ()
    description: str = ""
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        caller = "Segmentation"
        if not isinstance(self.name, str) or not self.name:
            raise param_error("name", "a non-empty str", self.name, caller)
        qids = _unique_qids(self.qids, caller)
        labels = _as_1d(self.labels, "labels", caller)
        _same_length(labels, qids, "labels", caller)
        labels = np.array([str(x) for x in labels.tolist()], dtype=object)
        order = tuple(str(o) for o in self.order) if self.order else tuple(
            sorted(set(labels.tolist()))
        )
        if len(set(order)) != len(order):
            raise param_error("order", "a sequence of distinct segment names", self.order, caller)
        unknown = sorted(set(labels.tolist()) - set(order))
        if unknown:
            raise param_error("order", f"a sequence naming every segment (missing "
                              f"{_listing(unknown)})", self.order, caller)
        object.__setattr__(self, "qids", qids)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "_index", {_key(q): i for i, q in enumerate(qids.tolist())})

    def __len__(self) -> int:
        return int(self.qids.shape[0])

    def sizes(self) -> dict[str, int]:
        """Number of queries in each segment, in report order."""
        return {s: int(np.count_nonzero(self.labels == s)) for s in self.order}

    def labels_for(self, qids: Any) -> np.ndarray:
        """The segment of each of ``qids`` (in that order).

        Raises
        ------
        InputError
            Some queries have no segment; the message names them.
        """
        keys = [_key(q) for q in _as_1d(qids, "qids", "Segmentation.labels_for").tolist()]
        idx = np.fromiter((self._index.get(k, -1) for k in keys), dtype=np.int64,
                          count=len(keys))
        if (idx < 0).any():
            missing = [k for k, i in zip(keys, idx) if i < 0]
            raise InputError(
                f"The {self.name!r} segmentation has no segment for {len(missing)} of the "
                f"{len(keys)} queries: {_listing(missing)}."
            )
        return self.labels[idx]

    def to_dict(self) -> dict[str, Any]:
        """Name, description and segment sizes, as built-in types."""
        return {"name": self.name, "description": self.description, "sizes": self.sizes()}


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
    caller = "per_query"
    q = _as_1d(qid, "qid", caller)
    v = _as_1d(values, name, caller)
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
    q = _as_1d(qid, "qid", "count_candidates")
    uniq, first, inverse = np.unique(q, return_index=True, return_inverse=True)
    weights = None
    if retrieved is not None:
        r = _as_1d(retrieved, "retrieved", "count_candidates")
        if r.dtype.kind != "b" or r.shape[0] != q.shape[0]:
            raise param_error("retrieved", f"a boolean array of length {q.shape[0]}",
                              retrieved, "count_candidates")
        weights = r.astype(np.int64)
    counts = np.bincount(inverse.ravel(), weights=weights, minlength=uniq.shape[0])
    order = np.argsort(first, kind="stable")
    return uniq[order], counts[order].astype(np.int64)


def _range_label(lo: int, hi: int | None) -> str:
    if hi is None:
        return f"{lo}+"
    return str(lo) if lo == hi else f"{lo}-{hi}"


def by_candidates(qids: Any, n_candidates: Any, *, bins: int | Sequence[int] = 3) -> Segmentation:
    """Segment queries by their number of candidate documents.

    Parameters
    ----------
    qids : array-like of shape (n_queries,)
        Query ids.
    n_candidates : array-like of int, shape (n_queries,)
        Candidates of each query, e.g. from :func:`count_candidates`.
    bins : int or sequence of int, default=3
        An int: that many bins with about equal numbers of queries (cut at the quantiles of
        the counts; fewer bins when counts repeat). A sequence: increasing lower bounds, e.g.
        ``[1, 10, 50]`` for the bins ``1-9``, ``10-49`` and ``50+`` (queries below the first
        bound get a bin of their own).

    Returns
    -------
    Segmentation
        Named ``"candidates"``, segments labelled by their ranges (``"6-12"``, ``"50+"``).

    Examples
    --------
    >>> from skrank.segments import by_candidates
    >>> seg = by_candidates(["a", "b", "c", "d", "e", "f"], [5, 8, 12, 20, 25, 40], bins=3)
    >>> seg.sizes()
    {'5-10': 2, '11-21': 2, '22-40': 2}
    >>> by_candidates(["a", "b", "c"], [3, 10, 60], bins=[1, 10, 50]).sizes()
    {'1-9': 1, '10-49': 1, '50+': 1}
    """
    caller = "by_candidates"
    q = _unique_qids(qids, caller)
    counts = _as_1d(n_candidates, "n_candidates", caller)
    _same_length(counts, q, "n_candidates", caller)
    whole = counts.dtype.kind == "f" and bool(
        np.all(np.isfinite(counts)) and np.all(counts == np.round(counts)))
    if counts.dtype.kind not in "iu" and not whole:
        raise InputError(f"The 'n_candidates' parameter of {caller} must hold integer counts.")
    counts = counts.astype(np.int64)
    if counts.size == 0:
        raise InputError(f"The 'qids' parameter of {caller} is empty: no query to segment.")
    lo_all, hi_all = int(counts.min()), int(counts.max())
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        n_bins = check_int("bins", bins, min_value=1, caller=caller)
        cuts = np.quantile(counts, np.arange(1, n_bins) / n_bins) if n_bins > 1 else []
        # bin j holds the counts in (cut_{j-1}, cut_j]; as integers: lower = floor(cut) + 1
        uppers = sorted({math.floor(c) for c in cuts if lo_all <= math.floor(c) < hi_all})
        lowers = [lo_all] + [u + 1 for u in uppers]
        highs: list[int | None] = [*uppers, hi_all]
        description = f"number of candidates, {len(lowers)} bins at quantiles"
    else:
        if (not isinstance(bins, Sequence) or isinstance(bins, str) or not bins or not all(
                isinstance(b, numbers.Integral) and not isinstance(b, bool) for b in bins)
                or any(b2 <= b1 for b1, b2 in itertools.pairwise(bins))):
            raise param_error("bins", "an int >= 1 or an increasing sequence of int lower "
                              "bounds", bins, caller)
        lowers = [int(b) for b in bins]
        if lo_all < lowers[0]:
            lowers.insert(0, lo_all)
        highs = [b - 1 for b in lowers[1:]] + [None]
        description = "number of candidates, bins from " + ", ".join(str(b) for b in lowers)
    names = [_range_label(lo, hi) for lo, hi in zip(lowers, highs)]
    idx = np.searchsorted(np.asarray(lowers), counts, side="right") - 1
    return Segmentation("candidates", q, np.asarray(names, dtype=object)[idx], tuple(names),
                        description)


def by_frequency(
    qids: Any,
    frequency: Any,
    *,
    cuts: Sequence[float] = (1 / 3, 2 / 3),
    basis: str = "traffic",
) -> Segmentation:
    """Segment queries into head, torso and tail by how often they were issued.

    Queries are ordered from the most to the least frequent. With ``basis="traffic"`` a query
    is in the head when the queries more frequent than it account for less than ``cuts[0]``
    of all traffic (the sum of the frequencies), in the torso when they account for less
    than ``cuts[1]``, and in the tail otherwise: with the default cuts, the head, torso and
    tail each carry about a third of the traffic, so the head holds few queries and the tail
    many. With ``basis="queries"`` the shares count queries instead of traffic. Queries with
    equal frequencies always share a segment; the most frequent query is always in the head.

    Parameters
    ----------
    qids : array-like of shape (n_queries,)
        Query ids.
    frequency : array-like of shape (n_queries,)
        Non-negative frequencies (issue counts, or a per-query frequency column).
    cuts : pair of float, default=(1/3, 2/3)
        Increasing shares in (0, 1] where the torso and the tail start.
    basis : {"traffic", "queries"}, default="traffic"
        What the shares are shares of.

    Returns
    -------
    Segmentation
        Named ``"frequency"`` with segments ``head``, ``torso``, ``tail``.

    Examples
    --------
    >>> from skrank.segments import by_frequency
    >>> seg = by_frequency(list("abcdef"), [600, 200, 100, 50, 30, 20])
    >>> dict(zip(seg.qids.tolist(), seg.labels.tolist()))
    {'a': 'head', 'b': 'torso', 'c': 'tail', 'd': 'tail', 'e': 'tail', 'f': 'tail'}
    >>> by_frequency(list("abcdef"), [600, 200, 100, 50, 30, 20], basis="queries").sizes()
    {'head': 2, 'torso': 2, 'tail': 2}
    """
    caller = "by_frequency"
    q = _unique_qids(qids, caller)
    f = _as_1d(frequency, "frequency", caller)
    _same_length(f, q, "frequency", caller)
    basis = check_choice("basis", basis, _BASES, caller)
    if (not isinstance(cuts, Sequence) or len(cuts) != 2 or not all(
            isinstance(c, numbers.Real) and not isinstance(c, bool) for c in cuts)
            or not 0 < cuts[0] < cuts[1] <= 1):
        raise param_error("cuts", "two increasing shares in (0, 1]", cuts, caller)
    try:
        f = f.astype(np.float64)
    except (TypeError, ValueError):
        raise InputError(f"The 'frequency' parameter of {caller} must hold numbers.") from None
    if f.size == 0:
        raise InputError(f"The 'qids' parameter of {caller} is empty: no query to segment.")
    if not np.all(np.isfinite(f)) or (f < 0).any():
        bad = int(np.flatnonzero(~np.isfinite(f) | (f < 0))[0])
        raise InputError(
            f"The 'frequency' parameter of {caller} must hold finite non-negative numbers. "
            f"Got {float(f[bad])!r} for query {_key(q[bad])!r}."
        )
    weight = f if basis == "traffic" else np.ones_like(f)
    total = float(weight.sum())
    if total <= 0:
        raise InputError(f"The 'frequency' parameter of {caller} is 0 for every query: "
                         "there is no traffic to split.")
    # share carried by the queries strictly more frequent than each query
    order = np.argsort(-f, kind="stable")
    fs = f[order]
    cum = np.concatenate([[0.0], np.cumsum(weight[order])])
    first_equal = np.searchsorted(-fs, -fs, side="left")
    above = np.empty_like(f)
    above[order] = cum[first_equal] / total
    labels = np.where(above < cuts[0] - 1e-12, "head",
                      np.where(above < cuts[1] - 1e-12, "torso", "tail")).astype(object)
    description = (f"query frequency: head / torso / tail start at {cuts[0]:.0%} / "
                   f"{cuts[1]:.0%} of the {basis}")
    return Segmentation("frequency", q, labels, ("head", "torso", "tail"), description)


def by_column(qids: Any, values: Any, *, name: str = "type",
              order: Sequence[str] | None = None) -> Segmentation:
    """Segment queries by a categorical attribute, such as a query type.

    Parameters
    ----------
    qids : array-like of shape (n_queries,)
        Query ids.
    values : array-like of shape (n_queries,)
        The attribute of each query (printed with ``str``).
    name : str, default="type"
        Name of the segmentation.
    order : sequence of str, optional
        Report order; sorted by default.

    Returns
    -------
    Segmentation

    Examples
    --------
    >>> from skrank.segments import by_column
    >>> by_column([1, 2, 3], ["nav", "info", "nav"]).sizes()
    {'info': 1, 'nav': 2}
    """
    caller = "by_column"
    q = _unique_qids(qids, caller)
    v = _as_1d(values, "values", caller)
    _same_length(v, q, "values", caller)
    labels = np.array([str(x) for x in v.tolist()], dtype=object)
    return Segmentation(name, q, labels, tuple(order) if order else (),
                        f"the {name!r} of each query")


def read_query_log(source: str | os.PathLike[str]) -> np.ndarray:
    """Read a query log: the first field of each line is the id of a query that was issued.

    Blank lines and lines whose first non-blank character is ``#`` are skipped; anything
    after the first field (a timestamp, the query text) is ignored. Give the result to
    :func:`count_queries`.

    Parameters
    ----------
    source : str or path-like
        The log file (UTF-8 text).

    Returns
    -------
    ndarray of str
        One query id per issued query, in file order.

    Raises
    ------
    InputError
        The file does not exist, is not UTF-8 or holds no query.
    """
    name = os.fspath(source)
    try:
        with open(source, encoding="utf-8") as fh:
            ids = [line.split(None, 1)[0] for line in fh
                   if line.strip() and not line.lstrip().startswith("#")]
    except FileNotFoundError:
        raise InputError(f"{name}: no such file.") from None
    except UnicodeDecodeError:
        raise InputError(f"{name}: the query log is not UTF-8 text.") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, not a file.") from None
    if not ids:
        raise InputError(f"{name}: the query log holds no query.")
    return np.array(ids, dtype=str)


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
    keys, counts = np.unique([_key(x) for x in _as_1d(log, "log", "count_queries").tolist()],
                             return_counts=True)
    table = dict(zip(keys.tolist(), counts.tolist()))
    q = _as_1d(qids, "qids", "count_queries")
    return np.array([table.get(_key(x), 0) for x in q.tolist()], dtype=np.int64)


# --------------------------------------------------------------------------- per-segment tables


@dataclass(frozen=True, eq=False)
class SegmentRow:
    """One segment of a :class:`SegmentTable`.

    Attributes
    ----------
    segment : str
        The segment's name.
    n : int
        Queries of the segment that enter the comparison.
    n_omitted : int
        Queries of the segment left out because a value was NaN (``empty="exclude"``).
    mean_a, mean_b : float
        Means of the system and of the baseline (``mean_b`` is NaN without a baseline).
    difference : float
        ``mean_a - mean_b`` over the segment's queries.
    ci : Interval or None
        Paired bootstrap BCa interval of the difference (None below 2 queries).
    pvalue : float
        Raw p-value of the table's test (NaN below 2 queries).
    pvalue_adjusted : float
        p-value corrected over the segments of the table.
    reject : bool
        ``pvalue_adjusted <= alpha``.
    wins, ties, losses : int
        Queries where the system is better, equal, worse.
    comparison : PairedComparison or None
        Everything :func:`skrank.stats.paired_comparison` computed for the segment.
    """

    segment: str
    n: int
    n_omitted: int
    mean_a: float
    mean_b: float
    difference: float
    ci: Interval | None
    pvalue: float
    pvalue_adjusted: float
    reject: bool
    wins: int
    ties: int
    losses: int
    comparison: PairedComparison | None = None

    def to_record(self) -> dict[str, Any]:
        """The row as a flat dict of built-in types (NaN for undefined numbers)."""
        nan = float("nan")
        return {
            "segment": self.segment,
            "n": self.n,
            "n_omitted": self.n_omitted,
            "mean_a": float(self.mean_a),
            "mean_b": float(self.mean_b),
            "difference": float(self.difference),
            "ci_low": float(self.ci.low) if self.ci is not None else nan,
            "ci_high": float(self.ci.high) if self.ci is not None else nan,
            "pvalue": float(self.pvalue),
            "pvalue_adjusted": float(self.pvalue_adjusted),
            "reject": bool(self.reject),
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
        }


@dataclass(frozen=True, eq=False)
class SegmentTable:
    """Per-segment comparison of a system with a baseline (see :func:`segment_table`).

    Iterate over it for :class:`SegmentRow` objects; index it by position or segment name.

    Attributes
    ----------
    segmentation : Segmentation
        The segments.
    rows : tuple of SegmentRow
        One per segment, in the segmentation's order.
    metric : str or None
        The metric compared.
    name_a, name_b : str or None
        The system and the baseline (``name_b`` is None without a baseline).
    correction, test : str
        The multiple-comparison correction over the segments and the test it corrects.
    alpha, confidence : float
        Level of ``reject`` and of the intervals.
    seed : int or None
        The seed of the resampling.
    """

    segmentation: Segmentation
    rows: tuple[SegmentRow, ...]
    metric: str | None
    name_a: str
    name_b: str | None
    correction: str
    test: str
    alpha: float
    confidence: float
    seed: int | None

    @property
    def confidence_level(self) -> float:
        """The confidence level, by the name of the parameter that set it (``confidence``
        is the same number)."""
        return self.confidence

    @property
    def name(self) -> str:
        """The segmentation's name."""
        return self.segmentation.name

    @property
    def paired(self) -> bool:
        """Whether there is a baseline (and so differences and tests)."""
        return self.name_b is not None

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[SegmentRow]:
        return iter(self.rows)

    def __getitem__(self, key: int | str) -> SegmentRow:
        if isinstance(key, str):
            for row in self.rows:
                if row.segment == key:
                    return row
            raise KeyError(f"No segment named {key!r}; segments are "
                           f"{[r.segment for r in self.rows]}.")
        return self.rows[key]

    def title(self) -> str:
        """One line saying what the table compares."""
        what = f"{self.name_a} vs {self.name_b}" if self.paired else self.name_a
        metric = f" on {self.metric}" if self.metric else ""
        return f"Segments by {self.name}: {what}{metric}"

    def method(self) -> str:
        """One line saying how the p-values and intervals were computed."""
        if not self.paired:
            return self.segmentation.description
        pct = f"{self.confidence * 100:g}%"
        return (f"{self.segmentation.description}; {pct} paired bootstrap BCa intervals; "
                f"{self.test} test p-values, {self.correction} correction over the "
                f"{sum(1 for r in self.rows if r.n >= 2)} segments with 2 or more queries; "
                f"* = significant at alpha = {self.alpha:g}")

    def to_records(self) -> list[dict[str, Any]]:
        """One flat dict per segment, with the table's metric and systems."""
        out = []
        for row in self.rows:
            rec = {"segmentation": self.name, "metric": self.metric, "name_a": self.name_a,
                   "name_b": self.name_b}
            rec.update(row.to_record())
            out.append(rec)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The table as nested dicts of built-in types (JSON-ready)."""
        return {
            "segmentation": self.segmentation.to_dict(),
            "metric": self.metric,
            "name_a": self.name_a,
            "name_b": self.name_b,
            "correction": self.correction,
            "test": self.test,
            "alpha": float(self.alpha),
            "confidence": float(self.confidence),
            "seed": self.seed,
            "rows": [r.to_record() for r in self.rows],
        }

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Header and cells of the table as strings (for text and markdown reports)."""
        if not self.paired:
            header = ["segment", "n", f"mean {self.name_a}"]
            return header, [[r.segment, str(r.n), _fmt_num(r.mean_a)] for r in self.rows]
        pct = f"{self.confidence * 100:g}% CI"
        header = ["segment", "n", f"mean {self.name_a}", f"mean {self.name_b}", "diff", pct,
                  "p", f"p {self.correction}", "W/T/L"]
        body = []
        for r in self.rows:
            body.append([
                r.segment, str(r.n), _fmt_num(r.mean_a), _fmt_num(r.mean_b),
                _fmt_num(r.difference, signed=True), _fmt_ci(r.ci), _fmt_p(r.pvalue),
                _fmt_p(r.pvalue_adjusted) + (" *" if r.reject else ""),
                f"{r.wins}/{r.ties}/{r.losses}",
            ])
        return header, body

    def footnotes(self) -> list[str]:
        """Remarks printed under the table: small segments, queries left out."""
        notes = []
        small = [r.segment for r in self.rows if self.paired and 2 <= r.n < SMALL_SEGMENT]
        if small:
            notes.append(f"fewer than {SMALL_SEGMENT} queries in {_listing(small)}: the "
                         "bootstrap interval is unreliable there (the randomisation p-value "
                         "stays valid)")
        if self.paired and any(r.n < 2 for r in self.rows):
            notes.append("segments with fewer than 2 queries have no test")
        omitted = sum(r.n_omitted for r in self.rows)
        if omitted:
            notes.append(f"{omitted} {'query' if omitted == 1 else 'queries'} without a value "
                         "(no relevant document, empty=exclude) left out")
        return notes

    def __str__(self) -> str:
        header, body = self.table()
        lines = [self.title(), self.method(), *_text_table(header, body)]
        lines += [f"note: {n}" for n in self.footnotes()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"SegmentTable(name={self.name!r}, metric={self.metric!r}, "
                f"segments={[r.segment for r in self.rows]!r})")


@renamed_parameters(seed="rng", confidence="confidence_level")
def segment_table(
    a: Any,
    b: Any,
    segmentation: Segmentation,
    *,
    qids: Any,
    metric: str | None = None,
    name_a: str = "system",
    name_b: str = "baseline",
    correction: str = "holm",
    test: str = "randomization",
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    n_permutations: int = 10_000,
    rng: int | None = None,
) -> SegmentTable:
    """Compare a system with a baseline within each segment of the queries.

    Parameters
    ----------
    a : array-like of shape (n_queries,)
        Per-query values of the system, e.g. ``MetricResult.per_query``; NaN marks a query
        excluded by ``empty="exclude"`` (left out and counted in ``n_omitted``).
    b : array-like of shape (n_queries,) or None
        Per-query values of the baseline, aligned with ``a``; None reports the means of
        ``a`` per segment only.
    segmentation : Segmentation
        The segments; it must give a segment to every query of ``qids``.
    qids : array-like of shape (n_queries,)
        Query ids of ``a`` and ``b``.
    metric : str or None
        Label of the metric, for display.
    name_a, name_b : str
        Labels of the system and of the baseline.
    correction : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Correction of the p-values over the segments of the table (segments with fewer
        than 2 queries have no test and are not counted).
    test : {"randomization", "t", "wilcoxon"}, default="randomization"
        The test whose p-value is reported and corrected.
    alpha, confidence_level, alternative, n_resamples, n_permutations, rng
        As in :func:`skrank.stats.paired_comparison`; every segment uses the same seed
        (``rng=None``, the default as everywhere in skrank, draws one and reports it).

    Returns
    -------
    SegmentTable

    Raises
    ------
    InputError
        Lengths differ, or some queries have no segment (they are named).
    """
    seed, confidence = rng, confidence_level  # the names used below
    caller = "segment_table"
    if not isinstance(segmentation, Segmentation):
        raise param_error("segmentation", "a skrank.segments.Segmentation",
                          type(segmentation).__name__, caller)
    correction = check_choice("correction", correction, CORRECTIONS, caller)
    test = check_choice("test", test, TESTS, caller)
    q = _as_1d(qids, "qids", caller)
    av = _as_1d(a, "a", caller).astype(np.float64)
    _same_length(av, q, "a", caller)
    bv = None
    if b is not None:
        bv = _as_1d(b, "b", caller).astype(np.float64)
        _same_length(bv, q, "b", caller)
    if seed is None:  # one seed for every segment, reported with the table
        seed = int(np.random.default_rng().integers(0, 2**63))
    labels = segmentation.labels_for(q)
    nan = np.isnan(av) if bv is None else (np.isnan(av) | np.isnan(bv))

    rows: list[SegmentRow] = []
    pending: list[tuple[str, int, int, PairedComparison | None, np.ndarray]] = []
    for seg in segmentation.order:
        in_seg = labels == seg
        keep = in_seg & ~nan
        n, n_omit = int(keep.sum()), int((in_seg & nan).sum())
        comp = None
        if bv is not None and n >= 2:
            comp = paired_comparison(
                av[keep], bv[keep], qids_a=q[keep], metric=metric, name_a=name_a,
                name_b=name_b, n_resamples=n_resamples, n_permutations=n_permutations,
                confidence_level=confidence, alternative=alternative, rng=seed, top_losses=0,
            )
        pending.append((seg, n, n_omit, comp, keep))

    raw = [c.test(test).pvalue for _, _, _, c, _ in pending if c is not None]
    adjusted = iter(multiple_comparisons(raw, correction, alpha=alpha).pvalues_adjusted
                    if raw else [])
    nan_f = float("nan")
    for seg, n, n_omit, comp, keep in pending:
        mean_a = float(av[keep].mean()) if n else nan_f
        if comp is not None:
            p_adj = float(next(adjusted))
            rows.append(SegmentRow(
                seg, n, n_omit, comp.mean_a, comp.mean_b, comp.mean_difference, comp.ci_bca,
                comp.test(test).pvalue, p_adj, p_adj <= alpha, comp.wins, comp.ties,
                comp.losses, comp,
            ))
            continue
        mean_b = float(bv[keep].mean()) if (bv is not None and n) else nan_f
        d = (av[keep] - bv[keep]) if bv is not None else np.zeros(0)
        rows.append(SegmentRow(
            seg, n, n_omit, mean_a, mean_b, mean_a - mean_b, None, nan_f, nan_f, False,
            int((d > 1e-12).sum()), int((np.abs(d) <= 1e-12).sum()), int((d < -1e-12).sum()),
        ))
    return SegmentTable(segmentation, tuple(rows), metric, name_a,
                        name_b if bv is not None else None, correction, test, alpha,
                        confidence, seed)
