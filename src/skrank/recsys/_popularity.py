"""Popularity segments of items (head, torso, tail) from training interactions, the share of
each segment in users' lists, and a per-user label that :mod:`skrank.segments` takes as a
segmentation of the queries (users)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import Interval, Options, check_choice, check_real, param_error, validate_params
from ..exceptions import InputError
from ._inputs import prepare

__all__ = ["POPULARITY_SPLITS", "PopularitySegments", "popularity_segments"]

#: What the thresholds of :func:`popularity_segments` are shares of: training interactions
#: (head items together take the first ``head`` share of all interactions, as in
#: Abdollahpouri et al.'s short-head / long-tail split) or items (the ``head`` most popular
#: share of the items).
POPULARITY_SPLITS = ("interactions", "items")
SEGMENTS = ("head", "torso", "tail")


@dataclass(frozen=True, eq=False)
class PopularitySegments:
    """The head / torso / tail segment of each item.

    Attributes
    ----------
    item_ids : ndarray
        Items, most popular first (ties by id ascending).
    counts : ndarray of int64
        Their training interactions.
    labels : ndarray of str
        ``"head"``, ``"torso"`` or ``"tail"``; items without interactions (from the
        ``catalog``) are ``"tail"``.
    split : str
        What the thresholds are shares of.
    head, tail : float
        The thresholds: the head ends at the ``head`` share, the tail starts after the
        ``tail`` share.
    """

    item_ids: np.ndarray
    counts: np.ndarray
    labels: np.ndarray
    split: str
    head: float
    tail: float

    order = SEGMENTS

    def sizes(self) -> dict[str, int]:
        """Items in each segment."""
        return {s: int(np.count_nonzero(self.labels == s)) for s in SEGMENTS}

    def label_of(self, items: Any) -> np.ndarray:
        """The segment of each of ``items``; unknown items are an error."""
        arr = np.asarray(items).ravel()
        order = np.argsort(self.item_ids, kind="stable")
        sorted_ids = self.item_ids[order]
        at = np.clip(np.searchsorted(sorted_ids, arr), 0, max(sorted_ids.size - 1, 0))
        found = sorted_ids[at] == arr if sorted_ids.size else np.zeros(arr.size, bool)
        if not found.all():
            raise InputError(f"{int((~found).sum())} items have no popularity segment, e.g. "
                             f"{arr[~found][0]!r}: pass them in 'catalog'.")
        return self.labels[order[at]]

    def shares(self, reco: Any, *, k: int | None = None) -> dict[str, np.ndarray]:
        """The share of head, torso and tail items in each user's list.

        Returns a dict with ``"users"`` and one array per segment (each row sums to 1); the
        mean of ``"tail"`` is the long-tail share of the recommendations (APLT).
        """
        d = prepare(reco, k, "PopularitySegments.shares")
        lab = self.label_of(d.item_ids[d.ri])
        users = np.unique(d.ru)
        n = np.bincount(d.ru, minlength=d.n_users)[users]
        out: dict[str, np.ndarray] = {"users": d.user_ids[users]}
        for s in SEGMENTS:
            out[s] = np.bincount(d.ru, weights=(lab == s).astype(float),
                                 minlength=d.n_users)[users] / n
        return out

    def user_labels(self, users: Any, items: Any) -> tuple[np.ndarray, np.ndarray]:
        """One segment per user, from the user's (held-out) items: the segment most of them
        are in, ties going to the less popular segment.

        Returns ``(qids, labels)``, which :func:`skrank.segments.by_column` turns into a
        segmentation of the queries: ``by_column(*seg.user_labels(u, i), name="popularity",
        order=seg.order)``.
        """
        u = np.asarray(users).ravel()
        if u.shape != np.asarray(items).ravel().shape:
            raise param_error("items", f"as long as users ({u.size})",
                              f"length {np.asarray(items).size}", "user_labels")
        lab = self.label_of(items)
        uid, code = np.unique(u, return_inverse=True)
        counts = np.stack([np.bincount(code, weights=(lab == s).astype(float),
                                       minlength=uid.size) for s in SEGMENTS], axis=1)
        # the last maximum wins: ties go to the less popular segment
        best = 2 - np.argmax(counts[:, ::-1], axis=1)
        return uid, np.array(SEGMENTS, dtype=object)[best]

    def __repr__(self) -> str:
        sizes = ", ".join(f"{s} {n:,}" for s, n in self.sizes().items())
        return (f"<PopularitySegments split={self.split}, head={self.head:g}, "
                f"tail={self.tail:g}: {sizes} items>")


@validate_params({"head": Interval(float), "tail": Interval(float),
                  "split": Options(POPULARITY_SPLITS)})
def popularity_segments(train: Any, *, catalog: Any = None, head: float = 0.2,
                        tail: float = 0.8, split: str = "interactions") -> PopularitySegments:
    """Split items into head, torso and tail by their training popularity.

    Items are ranked by training interactions (ties by item id ascending); an item is in the
    head while the share before it is below ``head``, in the tail once the share before it
    reaches ``tail``, in the torso between.

    Parameters
    ----------
    train : (users, items) pair of arrays
        Training interactions (repeats count).
    catalog : array-like, optional
        Every item id; items without interactions are tail.
    head, tail : float, default=0.2, 0.8
        Thresholds, ``0 <= head <= tail <= 1``.
    split : {"interactions", "items"}, default="interactions"
        Whether the thresholds are shares of interactions or of items.

    Returns
    -------
    PopularitySegments

    Examples
    --------
    >>> from skrank.recsys import popularity_segments
    >>> seg = popularity_segments(([1, 2, 3, 4, 5, 1, 2, 3, 1, 2], [7, 7, 7, 7, 7, 8, 8, 8, 9, 9]),
    ...                           catalog=[7, 8, 9, 10], head=0.5, tail=0.8)
    >>> seg.label_of([7, 8, 9, 10]).tolist()
    ['head', 'torso', 'tail', 'tail']
    """
    caller = "popularity_segments"
    check_choice("split", split, POPULARITY_SPLITS, caller)
    h = check_real("head", head, caller=caller)
    t = check_real("tail", tail, caller=caller)
    if not 0.0 <= h <= t <= 1.0:
        raise param_error("tail", f"a float with head <= tail <= 1 (head={h:g})", tail, caller)
    if not isinstance(train, tuple | list) or len(train) != 2:
        raise param_error("train", "a (users, items) pair of arrays", type(train).__name__,
                          caller)
    items = np.asarray(train[1]).ravel()
    ids = items if catalog is None else np.concatenate([items, np.asarray(catalog).ravel()])
    try:
        item_ids, code = np.unique(ids, return_inverse=True)
    except TypeError as exc:
        raise InputError(f"The item ids of {caller} must be of one type: {exc}.") from None
    counts = np.bincount(code[: items.size], minlength=item_ids.size)
    if counts.sum() == 0:
        raise InputError(f"The 'train' interactions of {caller} are empty.")
    order = np.lexsort((np.arange(item_ids.size), -counts))
    c = counts[order]
    if split == "interactions":
        before = (np.cumsum(c) - c) / c.sum()
    else:
        before = np.arange(c.size) / c.size
    labels = np.where(before < h, "head", np.where(before < t, "torso", "tail")).astype(object)
    labels[c == 0] = "tail"
    return PopularitySegments(item_ids[order], c.astype(np.int64), labels, split, h, t)
