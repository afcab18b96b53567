"""Segmentations: a partition of the queries, and the ways to build one (candidates, frequency,
a categorical column)."""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._text import listing
from .._validation import (
    Options,
    Satisfies,
    check_int,
    param_error,
    public_name,
    relabel,
    validate_params,
)
from ..exceptions import InputError
from ._common import _as_1d, _key, _same_length, _unique_qids

_BASES = ("traffic", "queries")


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
        # the class is public, built directly or by the by_* functions: its messages name it
        caller = "Segmentation"
        with relabel(caller):
            if not isinstance(self.name, str) or not self.name:
                raise param_error("name", "a non-empty str", self.name, caller)
            qids = _unique_qids(self.qids)
            labels = _as_1d(self.labels, "labels")
            _same_length(labels, qids, "labels")
            labels = np.array([str(x) for x in labels.tolist()], dtype=object)
            order = tuple(str(o) for o in self.order) if self.order else tuple(
                sorted(set(labels.tolist()))
            )
            if len(set(order)) != len(order):
                raise param_error("order", "a sequence of distinct segment names", self.order,
                                  caller)
            unknown = sorted(set(labels.tolist()) - set(order))
            if unknown:
                raise param_error("order", f"a sequence naming every segment (missing "
                                  f"{listing(unknown)})", self.order, caller)
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
        with relabel("Segmentation.labels_for"):
            keys = [_key(q) for q in _as_1d(qids, "qids").tolist()]
        idx = np.fromiter((self._index.get(k, -1) for k in keys), dtype=np.int64,
                          count=len(keys))
        if (idx < 0).any():
            missing = [k for k, i in zip(keys, idx) if i < 0]
            raise InputError(
                f"The {self.name!r} segmentation has no segment for {len(missing)} of the "
                f"{len(keys)} queries: {listing(missing)}."
            )
        return self.labels[idx]

    def to_dict(self) -> dict[str, Any]:
        """Name, description and segment sizes, as built-in types."""
        return {"name": self.name, "description": self.description, "sizes": self.sizes()}


def _range_label(lo: int, hi: int | None) -> str:
    if hi is None:
        return f"{lo}+"
    return str(lo) if lo == hi else f"{lo}-{hi}"


@validate_params({})  # bins: in the body, whose words depend on the kind of value
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
    caller = public_name()
    q = _unique_qids(qids)
    counts = _as_1d(n_candidates, "n_candidates")
    _same_length(counts, q, "n_candidates")
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


@validate_params({
    "basis": Options(_BASES),
    "cuts": Satisfies(
        lambda c: isinstance(c, Sequence) and len(c) == 2
        and all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in c)
        and 0 < c[0] < c[1] <= 1,
        "two increasing shares in (0, 1]",
    ),
})
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
    caller = public_name()
    q = _unique_qids(qids)
    f = _as_1d(frequency, "frequency")
    _same_length(f, q, "frequency")
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


@validate_params({})  # name and order: Segmentation's
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
    q = _unique_qids(qids)
    v = _as_1d(values, "values")
    _same_length(v, q, "values")
    labels = np.array([str(x) for x in v.tolist()], dtype=object)
    return Segmentation(name, q, labels, tuple(order) if order else (),
                        f"the {name!r} of each query")
