"""Top-k lists from what recommenders produce: a users x items score matrix (dense or CSR) or
flat ``(user, item, score)`` arrays, with items seen in training excluded and the order of
tied scores set by a named rule.

Selection is vectorised by blocks of rows: a dense block goes through ``np.partition`` (the
k-th largest score of each row), the rows' entries above it are taken and the entries equal to
it are taken in tie order until the row has k; a CSR block is first laid out as a dense
block of its stored entries (padded with ``-inf`` to the longest row of the block).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import Interval, Options, check_choice, check_int, param_error, validate_params
from ..exceptions import InputError

__all__ = ["TOPK_TIE_RULES", "TopK", "top_k"]

#: How items with equal scores are ordered in a top-k list (names of
#: :data:`skrank.conventions.TIE_RULES`): ``"input"``, the item's column (or first
#: appearance in flat input) ascending; ``"docid"``, the item's column descending, as
#: trec_eval orders tied documents by id descending.
TOPK_TIE_RULES = ("input", "docid")

# cells of a dense block processed at once (bounds the temporary arrays)
_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True, eq=False)
class TopK:
    """Per-user top-k lists.

    Attributes
    ----------
    users : ndarray of shape (n_users,)
        User ids, one per row of :attr:`item_index`.
    item_index : ndarray of int64, shape (n_users, k)
        Column of each recommended item, best first; ``-1`` pads lists shorter than ``k``.
    scores : ndarray of float64, shape (n_users, k)
        Their scores; ``nan`` in the padding.
    item_ids : ndarray of shape (n_items,)
        The id of each column.
    k : int
        The requested list length.
    ties : str
        The tie rule that ordered equal scores.
    n_excluded : int
        Candidate (user, item) scores removed because the user saw the item in training.
    n_tied_at_cutoff : int
        Users whose k-th and (k+1)-th candidates tie: the tie rule chose which came in.
    """

    users: np.ndarray
    item_index: np.ndarray
    scores: np.ndarray
    item_ids: np.ndarray
    k: int
    ties: str
    n_excluded: int = 0
    n_tied_at_cutoff: int = 0

    @property
    def lengths(self) -> np.ndarray:
        """Number of items recommended to each user (``k`` unless too few candidates)."""
        return np.count_nonzero(self.item_index >= 0, axis=1)

    @property
    def items(self) -> np.ndarray:
        """Item ids of the lists, shape (n_users, k); padding is ``-1`` for integer ids and
        ``None`` otherwise."""
        ids = self.item_ids
        pad: Any = -1 if ids.dtype.kind in "iu" else None
        out = np.empty(self.item_index.shape, dtype=ids.dtype if pad == -1 else object)
        mask = self.item_index >= 0
        out[mask] = ids[self.item_index[mask]]
        out[~mask] = pad
        return out

    def to_flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(user, item, rank, score)`` arrays, one row per recommendation, rank from 1."""
        mask = self.item_index >= 0
        rows, pos = np.nonzero(mask)
        return (self.users[rows], self.item_ids[self.item_index[mask]], pos + 1,
                self.scores[mask])

    def __len__(self) -> int:
        return int(self.users.shape[0])

    def __repr__(self) -> str:
        return (f"<TopK: {len(self):,} users, k={self.k}, ties={self.ties}, "
                f"{int(self.lengths.sum()):,} recommendations, {self.n_excluded:,} seen items "
                f"excluded, {self.n_tied_at_cutoff:,} users with a tie at the cutoff>")


# --------------------------------------------------------------------------- selection


def _select_dense(s: np.ndarray, k: int, ties: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Top-k positions of each row of ``s`` (``-inf`` marks non-candidates).

    Returns the positions (``-1`` padded), their scores and the number of rows with a tie
    across the cutoff. Ties go to the lower position (``"input"``) or the higher
    (``"docid"``).
    """
    r, m = s.shape
    kk = min(k, m)
    if ties == "docid":
        s = s[:, ::-1]
    valid = s > -np.inf
    if kk < m:
        kth = np.partition(s, m - kk, axis=1)[:, m - kk]
        above = s > kth[:, None]
        equal = (s == kth[:, None]) & valid
        need = kk - np.count_nonzero(above, axis=1)
        take = above | (equal & (np.cumsum(equal, axis=1) <= need[:, None]))
        n_tied = int(np.count_nonzero((np.count_nonzero(equal, axis=1) > need) & (need > 0)))
    else:
        take = valid
        n_tied = 0
    rows, cols = np.nonzero(take)
    counts = np.bincount(rows, minlength=r)
    starts = np.cumsum(counts) - counts
    slot = np.arange(rows.shape[0]) - np.repeat(starts, counts)
    pos = np.full((r, kk), -1, dtype=np.int64)
    val = np.full((r, kk), -np.inf)
    pos[rows, slot] = cols
    val[rows, slot] = s[rows, cols]
    # best first; a stable sort keeps tied entries in position order
    order = np.argsort(-val, axis=1, kind="stable")
    pos = np.take_along_axis(pos, order, axis=1)
    val = np.take_along_axis(val, order, axis=1)
    if ties == "docid":
        pos = np.where(pos >= 0, m - 1 - pos, -1)
    val[pos < 0] = np.nan
    if kk < k:
        pos = np.hstack([pos, np.full((r, k - kk), -1, dtype=np.int64)])
        val = np.hstack([val, np.full((r, k - kk), np.nan)])
    return pos, val, n_tied


def _seen_matrix(exclude: Any, shape: tuple[int, int], caller: str):
    """The seen (user, item) pairs as a boolean CSR matrix of ``shape``, or None."""
    import scipy.sparse as sp

    if exclude is None:
        return None
    if sp.issparse(exclude):
        if exclude.shape != shape:
            raise param_error("exclude", f"a sparse matrix of shape {shape} like the scores",
                              f"shape {exclude.shape}", caller)
        m = sp.csr_matrix(exclude, copy=True)
        m.eliminate_zeros()
    else:
        if not isinstance(exclude, tuple | list) or len(exclude) != 2:
            raise param_error("exclude", "a scipy.sparse matrix, a (users, items) pair of "
                              "index arrays, or None", type(exclude).__name__, caller)
        u = np.asarray(exclude[0]).ravel()
        i = np.asarray(exclude[1]).ravel()
        if u.shape != i.shape or u.dtype.kind not in "iu" or i.dtype.kind not in "iu":
            raise param_error("exclude", "two integer index arrays of the same length",
                              f"dtypes {u.dtype}, {i.dtype}, lengths {u.size}, {i.size}",
                              caller)
        if u.size and (u.min() < 0 or u.max() >= shape[0] or i.min() < 0
                       or i.max() >= shape[1]):
            raise param_error("exclude", f"index pairs inside the score matrix {shape}",
                              "an index out of range", caller)
        m = sp.csr_matrix((np.ones(u.size, dtype=bool), (u, i)), shape=shape)
    m.sum_duplicates()
    m.sort_indices()
    return m


def _check_finite(values: np.ndarray, caller: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        raise InputError(f"The 'scores' of {caller} must be finite; got "
                         f"{values[bad][0]!r} at entry {int(np.flatnonzero(bad)[0])}.")


def _dense_top_k(s: np.ndarray, k: int, ties: str, seen, caller: str):
    n_users, n_items = s.shape
    if not np.issubdtype(s.dtype, np.number) or s.dtype.kind == "c":
        raise param_error("scores", "a real-valued matrix", f"dtype {s.dtype}", caller)
    step = max(1, _BLOCK_CELLS // max(n_items, 1))
    kk = k
    pos = np.empty((n_users, kk), dtype=np.int64)
    val = np.empty((n_users, kk))
    n_tied = n_excl = 0
    for a in range(0, n_users, step):
        b = min(n_users, a + step)
        block = np.array(s[a:b], dtype=np.float64)
        _check_finite(block.ravel(), caller)
        if seen is not None:
            sub = seen[a:b]
            rows = np.repeat(np.arange(b - a), np.diff(sub.indptr))
            block[rows, sub.indices] = -np.inf
            n_excl += sub.nnz
        p, v, t = _select_dense(block, kk, ties)
        pos[a:b], val[a:b], n_tied = p, v, n_tied + t
    return pos, val, n_tied, n_excl


def _sparse_top_k(s, k: int, ties: str, seen, caller: str):
    import scipy.sparse as sp

    s = sp.csr_matrix(s, copy=True)
    s.sum_duplicates()  # also sorts the column indices of each row
    data = np.asarray(s.data, dtype=np.float64)
    _check_finite(data, caller)
    indptr, indices = s.indptr.astype(np.int64), s.indices.astype(np.int64)
    n_users, n_items = s.shape
    n_excl = 0
    if seen is not None:
        key = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(indptr)) * n_items + indices
        skey = np.repeat(np.arange(n_users, dtype=np.int64),
                         np.diff(seen.indptr)) * n_items + seen.indices
        # both key arrays are sorted (CSR rows in order, columns sorted within rows)
        at = np.minimum(np.searchsorted(skey, key), max(skey.size - 1, 0))
        drop = skey[at] == key if skey.size else np.zeros(key.size, dtype=bool)
        n_excl = int(np.count_nonzero(drop))
        if n_excl:
            keep = ~drop
            data, indices = data[keep], indices[keep]
            lens = np.bincount(key[keep] // n_items, minlength=n_users)
            indptr = np.concatenate([[0], np.cumsum(lens)])
    lens = np.diff(indptr)
    pos = np.full((n_users, k), -1, dtype=np.int64)
    val = np.full((n_users, k), np.nan)
    n_tied = 0
    a = 0
    while a < n_users:
        # grow the block while its padded size stays bounded
        width = max(int(lens[a]), 1)
        b = a + 1
        while b < n_users:
            w = max(width, int(lens[b]))
            if (b + 1 - a) * w > _BLOCK_CELLS:
                break
            width, b = w, b + 1
        cnt = lens[a:b]
        block = np.full((b - a, width), -np.inf)
        rows = np.repeat(np.arange(b - a), cnt)
        slot = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        lo, hi = indptr[a], indptr[b]
        block[rows, slot] = data[lo:hi]
        cols = np.full((b - a, width), -1, dtype=np.int64)
        cols[rows, slot] = indices[lo:hi]
        if ties == "docid":
            # stored entries are in column order: position order is column order; reversing
            # it needs the padding at the end kept out, so reverse within each row
            rev = np.where(slot >= 0, cnt[rows] - 1 - slot, 0)
            block2 = np.full_like(block, -np.inf)
            cols2 = np.full_like(cols, -1)
            block2[rows, rev] = block[rows, slot]
            cols2[rows, rev] = cols[rows, slot]
            block, cols = block2, cols2
        p, v, t = _select_dense(block, k, "input")
        n_tied += t
        got = p >= 0
        pos[a:b] = np.where(got, np.take_along_axis(cols, np.maximum(p, 0), axis=1), -1)
        val[a:b] = v
        a = b
    return pos, val, n_tied, n_excl


def _codes(values: Any, name: str, caller: str) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise param_error(name, "a 1-d array", f"shape {arr.shape}", caller)
    ids, codes = np.unique(arr, return_inverse=True)
    return ids, codes.astype(np.int64)


@validate_params({"k": Interval(int, 1), "ties": Options(TOPK_TIE_RULES)})
def top_k(
    scores: Any = None,
    k: int = 10,
    *,
    exclude: Any = None,
    ties: str = "input",
    users: Any = None,
    items: Any = None,
    item_ids: Any = None,
    user_ids: Any = None,
) -> TopK:
    """The top-k items of each user from a score matrix or flat ``(user, item, score)`` data.

    Parameters
    ----------
    scores : ndarray or scipy.sparse matrix of shape (n_users, n_items), or array-like
        A dense matrix (every item is a candidate of every user), a sparse matrix (only the
        stored entries are candidates: an item without a stored score is never recommended),
        or, with ``users=`` and ``items=``, the flat scores of (user, item) pairs.
    k : int, default=10
        List length. A user with fewer than ``k`` candidates gets a shorter list (padded).
    exclude : scipy.sparse matrix or (users, items) pair of arrays, optional
        Items each user saw in training; they are removed from the candidates. For a matrix
        of scores: a sparse matrix of the same shape (stored nonzeros are seen) or a pair of
        row and column index arrays. For flat scores: a pair of user and item id arrays
        (ids that never got a score are ignored).
    ties : {"input", "docid"}, default="input"
        Order of items with equal scores, at the cutoff and inside the list: by column
        ascending (``"input"``; for flat data the sorted item ids ascending) or descending
        (``"docid"``).
    users, items : array-like of shape (n_pairs,), optional
        The user and item ids of flat scores. Repeated pairs are an error.
    item_ids, user_ids : array-like, optional
        Ids of the columns and rows of a score matrix (default ``0..n-1``).

    Returns
    -------
    TopK

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import top_k
    >>> s = np.array([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.8]])
    >>> top_k(s, 2, exclude=([0], [0])).item_index
    array([[1, 2],
           [1, 2]])
    >>> top_k(s, 2, ties="docid").item_index
    array([[0, 2],
           [3, 2]])
    """
    import scipy.sparse as sp

    caller = "top_k"
    k = check_int("k", k, min_value=1, caller=caller)
    check_choice("ties", ties, TOPK_TIE_RULES, caller)
    flat = users is not None or items is not None
    if flat:
        if users is None or items is None:
            raise param_error("users" if users is None else "items",
                              "given together with the other for flat scores", None, caller)
        s = np.asarray(scores, dtype=np.float64).ravel()
        uid, ucode = _codes(users, "users", caller)
        iid, icode = _codes(items, "items", caller)
        if not (s.size == ucode.size == icode.size):
            raise param_error("scores", f"as long as users and items ({ucode.size}, "
                              f"{icode.size})", f"length {s.size}", caller)
        key = ucode * iid.size + icode
        if np.unique(key).size != key.size:
            raise InputError(f"The (users, items) pairs of {caller} must be distinct; "
                             f"{key.size - np.unique(key).size} pairs are repeated.")
        shape = (uid.size, iid.size)
        matrix = sp.csr_matrix((s, (ucode, icode)), shape=shape)
        seen = None
        if exclude is not None:
            if not isinstance(exclude, tuple | list) or len(exclude) != 2:
                raise param_error("exclude", "a (users, items) pair of id arrays for flat "
                                  "scores", type(exclude).__name__, caller)
            eu, ei = np.asarray(exclude[0]).ravel(), np.asarray(exclude[1]).ravel()
            if eu.shape != ei.shape:
                raise param_error("exclude", "two id arrays of the same length",
                                  f"lengths {eu.size}, {ei.size}", caller)
            ui = np.clip(np.searchsorted(uid, eu), 0, max(uid.size - 1, 0))
            ii = np.clip(np.searchsorted(iid, ei), 0, max(iid.size - 1, 0))
            ok = (uid[ui] == eu) & (iid[ii] == ei) if uid.size and iid.size else eu[:0] == 0
            seen = _seen_matrix((ui[ok], ii[ok]), shape, caller)
        pos, val, n_tied, n_excl = _sparse_top_k(matrix, k, ties, seen, caller)
        return TopK(uid, pos, val, iid, k, ties, n_excl, n_tied)
    if scores is None:
        raise param_error("scores", "a score matrix or flat scores", None, caller)
    if sp.issparse(scores):
        shape = scores.shape
    else:
        scores = np.asarray(scores)
        if scores.ndim != 2:
            raise param_error("scores", "a 2-d (users x items) matrix, or flat scores with "
                              "users= and items=", f"shape {scores.shape}", caller)
        shape = scores.shape
    seen = _seen_matrix(exclude, shape, caller)
    uid = np.arange(shape[0]) if user_ids is None else np.asarray(user_ids)
    iid = np.arange(shape[1]) if item_ids is None else np.asarray(item_ids)
    for name, arr, n in (("user_ids", uid, shape[0]), ("item_ids", iid, shape[1])):
        if arr.shape != (n,):
            raise param_error(name, f"an array of length {n}", f"shape {arr.shape}", caller)
    if sp.issparse(scores):
        pos, val, n_tied, n_excl = _sparse_top_k(scores, k, ties, seen, caller)
    else:
        pos, val, n_tied, n_excl = _dense_top_k(scores, k, ties, seen, caller)
    return TopK(uid, pos, val, iid, k, ties, n_excl, n_tied)
