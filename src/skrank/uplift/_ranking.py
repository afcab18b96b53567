"""Rows ranked by uplift score, reduced to the cumulative sums every uplift metric reads.

The ranking is summarised by *knots*: after each step of the ranking (each row, or each group
of tied scores under ``ties="group"``), the number of rows so far, of treated rows, and the
outcome sums of the treated and of the control rows. Curves are these sums at the knots;
cutoffs between knots (uplift@k, percentiles) interpolate them linearly, which under
``ties="group"`` counts each row of a tied group by the fraction of the group taken.

Cost: one sort of the scores and a few passes; no per-row Python. With binary outcomes and
``ties="group"`` the sort is a plain (SIMD) sort of 64-bit keys that carry the treatment flag
and the outcome in their two lowest bits, instead of an argsort.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._inputs import Rows

_SIGN = np.uint64(1 << 63)
_LOW2 = np.uint64(3)


@dataclass(frozen=True)
class Knots:
    """Cumulative sums after each step of the ranking, with the origin first."""

    x: np.ndarray  # rows so far (float64), x[0] = 0, x[-1] = n
    nt: np.ndarray  # treated rows so far
    yt: np.ndarray  # outcome sum of the treated rows so far
    yc: np.ndarray  # outcome sum of the control rows so far
    n_tied: int  # rows whose score equals another row's

    @property
    def nc(self) -> np.ndarray:
        return self.x - self.nt

    def at(self, positions: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(nt, yt, nc, yc)`` after the first ``positions`` rows (interpolated in groups)."""
        nt = np.interp(positions, self.x, self.nt)
        yt = np.interp(positions, self.x, self.yt)
        yc = np.interp(positions, self.x, self.yc)
        return nt, yt, positions - nt, yc

    def group(self, treated: bool) -> tuple[np.ndarray, np.ndarray]:
        """Knots of the ranking of one group's rows alone: ``(rows so far, outcome sum)``."""
        count = self.nt if treated else self.nc
        total = self.yt if treated else self.yc
        keep = np.ones(count.shape[0], dtype=bool)
        keep[1:] = count[1:] > count[:-1]
        return count[keep], total[keep]


def _order_keys(score: np.ndarray) -> np.ndarray:
    """Unsigned 64-bit keys in the order of the scores (equal scores, equal keys)."""
    if score.dtype == np.uint64:
        return score
    if score.dtype.kind in "iu":
        return score.astype(np.int64, copy=False).view(np.uint64) ^ _SIGN
    bits = (score.astype(np.float64) + 0.0).view(np.uint64)  # + 0.0 turns -0.0 into 0.0
    return bits ^ ((np.uint64(0) - (bits >> np.uint64(63))) | _SIGN)


def _from_groups(
    sizes: np.ndarray, nt: np.ndarray, yt: np.ndarray, ysum: np.ndarray
) -> Knots:
    """Knots from per-group sums in ranking order."""
    x = np.empty(sizes.shape[0] + 1)
    x[0] = 0.0
    np.cumsum(sizes, out=x[1:])
    cum = []
    for part in (nt, yt, ysum):
        c = np.empty(sizes.shape[0] + 1)
        c[0] = 0.0
        np.cumsum(part, out=c[1:])
        cum.append(c)
    n_tied = int(sizes[sizes > 1].sum())
    return Knots(x, cum[0], cum[1], cum[2] - cum[1], n_tied)


def _groups_small_int(rows: Rows, score: np.ndarray) -> Knots:
    v = score.astype(np.int64)
    lo = int(v.min())
    v -= lo
    size = np.bincount(v)
    t = rows.treated
    nt = np.bincount(v, weights=t)
    yt = np.bincount(v, weights=rows.y * t)
    ysum = np.bincount(v, weights=rows.y)
    keep = np.flatnonzero(size)[::-1]  # highest score first
    return _from_groups(size[keep].astype(np.float64), nt[keep], yt[keep], ysum[keep])


def _group_sums(starts: np.ndarray, *parts: np.ndarray) -> list[np.ndarray]:
    return [np.add.reduceat(p, starts, dtype=np.float64) for p in parts]


def _groups_packed(rows: Rows, score: np.ndarray) -> Knots | None:
    """``ties="group"`` with binary outcomes: sort keys that carry flag and outcome."""
    keys = _order_keys(score)
    if np.any(keys & _LOW2):
        # the two low bits are replaced below: make sure no two different scores then meet
        exact = np.sort(keys)
        differ = exact[1:] != exact[:-1]
        if np.any(differ & ((exact[1:] >> np.uint64(2)) == (exact[:-1] >> np.uint64(2)))):
            return None
        del exact, differ
    cat = rows.treated.astype(np.uint64) << np.uint64(1)
    cat |= rows.y.astype(np.uint64)
    packed = (keys & ~_LOW2) | cat
    del cat
    packed.sort()
    desc = packed[::-1]
    high = desc >> np.uint64(2)
    bounds = np.flatnonzero(high[1:] != high[:-1]) + 1
    starts = np.concatenate(([0], bounds))
    del high
    low = (desc & _LOW2).astype(np.int8)
    t = low >> 1
    y = low & 1
    nt, yt, ysum = _group_sums(starts, t, t & y, y)
    sizes = np.diff(np.append(starts, low.shape[0])).astype(np.float64)
    return _from_groups(sizes, nt, yt, ysum)


def _groups_argsort(rows: Rows, score: np.ndarray) -> Knots:
    order = np.argsort(score)[::-1]
    s = score[order]
    starts = np.concatenate(([0], np.flatnonzero(s[1:] != s[:-1]) + 1))
    t = rows.treated[order]
    y = rows.y[order].astype(np.float64)
    nt, yt, ysum = _group_sums(starts, t.astype(np.int8), y * t, y)
    sizes = np.diff(np.append(starts, s.shape[0])).astype(np.float64)
    return _from_groups(sizes, nt, yt, ysum)


def row_order(score: np.ndarray, ties: str) -> np.ndarray:
    """Row indices from the highest score to the lowest, ties ordered by ``ties``."""
    n = score.shape[0]
    if ties == "reverse":
        return np.argsort(score, kind="stable")[::-1]
    kind = "stable" if ties == "input" else "quicksort"
    # pandas' descending sort_values: sort the reversed column, map back, read backwards
    return (n - 1 - np.argsort(score[::-1], kind=kind))[::-1]


def _rows(rows: Rows, score: np.ndarray, ties: str) -> Knots:
    order = row_order(score, ties)
    s = score[order]
    eq = s[1:] == s[:-1]
    tied = np.zeros(s.shape[0], dtype=bool)
    tied[1:] |= eq
    tied[:-1] |= eq
    t = rows.treated[order]
    y = rows.y[order].astype(np.float64)
    x = np.arange(s.shape[0] + 1, dtype=np.float64)
    cum = []
    for part in (t, y * t, y):
        c = np.empty(s.shape[0] + 1)
        c[0] = 0.0
        np.cumsum(part, out=c[1:])
        cum.append(c)
    return Knots(x, cum[0], cum[1], cum[2] - cum[1], int(np.count_nonzero(tied)))


def rank(rows: Rows, score: np.ndarray, ties: str) -> Knots:
    """The knots of ``rows`` ranked by ``score`` (highest first) under the tie rule."""
    if ties != "group":
        return _rows(rows, score, ties)
    if score.dtype.kind in "biu" and score.dtype.itemsize <= 2:
        return _groups_small_int(rows, score)
    if rows.y_binary:
        found = _groups_packed(rows, score)
        if found is not None:
            return found
    return _groups_argsort(rows, score)
