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

import sys
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
    bits = np.add(score, 0.0, dtype=np.float64).view(np.uint64)  # + 0.0: -0.0 becomes 0.0
    flip = bits >> np.uint64(63)  # negative scores: all bits flipped; others: the sign bit
    np.negative(flip, out=flip)
    flip |= _SIGN
    bits ^= flip
    return bits


def _from_groups(
    sizes: np.ndarray, nt: np.ndarray, yt: np.ndarray, ysum: np.ndarray
) -> Knots:
    """Knots from per-group sums in ranking order."""
    cum = [_cumulative(part) for part in (sizes, nt, yt, ysum)]
    cum[3] -= cum[2]
    n_tied = int(sizes[sizes > 1].sum())
    return Knots(*cum, n_tied)


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


def _cumulative(part: np.ndarray) -> np.ndarray:
    """``[0, part[0], part[0] + part[1], ...]`` in float64 (exact for counts below 2**53)."""
    if part.dtype.kind in "biu":  # integer sums are exact and faster, then one conversion
        out = np.empty(part.shape[0] + 1, dtype=np.int64)
        out[0] = 0
        np.cumsum(part, dtype=np.int64, out=out[1:])
        return out.astype(np.float64)
    out = np.empty(part.shape[0] + 1)
    out[0] = 0.0
    np.cumsum(part, dtype=np.float64, out=out[1:])
    return out


def _low_bits_collide(score: np.ndarray) -> bool:
    """Whether two different scores have keys that differ only in their two lowest bits
    (they would be merged into one group by the packed sort)."""
    exact = np.sort(_order_keys(score))
    gap = exact[1:] ^ exact[:-1]
    del exact
    gap -= np.uint64(1)  # equal neighbours wrap around to 2**64 - 1
    return bool(np.any(gap < np.uint64(3)))


def _groups_packed(rows: Rows, score: np.ndarray) -> Knots | None:
    """``ties="group"`` with binary outcomes: sort keys that carry flag and outcome.

    The two lowest bits of each score's key are replaced by the treatment flag and the
    outcome. That can merge two scores only into a group of several rows; when the sort finds
    such groups and some key used those bits, the keys are checked (one more sort) and the
    caller falls back to an argsort if two different scores would meet.
    """
    keys = _order_keys(score)
    if keys is score:
        keys = keys.copy()
    low_bits_used = bool(int(np.bitwise_or.reduce(keys)) & 3)
    keys &= ~_LOW2
    cat = rows.treated.view(np.uint8) << np.uint8(1)
    cat |= rows.y.view(np.uint8)
    keys |= cat
    del cat
    keys.sort()
    desc = keys[::-1]
    low_byte = 0 if sys.byteorder == "little" else 7
    cat = keys.view(np.uint8)[low_byte::8][::-1] & np.uint8(3)  # in ranking order
    gap = desc[:-1] ^ desc[1:]
    new_group = gap > _LOW2  # between the last row of a group and the first of the next
    del gap, keys, desc
    n = cat.shape[0]
    distinct = int(np.count_nonzero(new_group)) == n - 1
    if low_bits_used and not distinct and _low_bits_collide(score):
        return None
    t = cat >> np.uint8(1)
    y = cat & np.uint8(1)
    ty = t & y
    if distinct:  # no two rows share a score: one knot per row
        x = np.arange(n + 1, dtype=np.float64)
        nt, yt, ysum = _cumulative(t), _cumulative(ty), _cumulative(y)
        ysum -= yt
        return Knots(x, nt, yt, ysum, 0)
    ends = np.flatnonzero(new_group)  # last row of each group but the last
    starts = np.empty(ends.shape[0] + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = ends + 1
    nt, yt, ysum = _group_sums(starts, t, ty, y)
    sizes = np.diff(np.append(starts, n)).astype(np.float64)
    return _from_groups(sizes, nt, yt, ysum)


def category_knots(n_cat: dict[tuple[int, int], float], score: dict[tuple[int, int], int]
                   ) -> Knots:
    """Knots of a ranking whose score depends only on (treated, outcome), binary outcomes,
    ties grouped: from the four counts, without looking at the rows again."""
    sizes, nt, yt, ysum = [], [], [], []
    for value in sorted(set(score.values()), reverse=True):
        cats = [c for c in score if score[c] == value and n_cat[c] > 0]
        if not cats:
            continue
        sizes.append(sum(n_cat[c] for c in cats))
        nt.append(sum(n_cat[c] for c in cats if c[0] == 1))
        yt.append(sum(n_cat[c] for c in cats if c == (1, 1)))
        ysum.append(sum(n_cat[c] for c in cats if c[1] == 1))
    return _from_groups(*(np.array(v, dtype=np.float64) for v in (sizes, nt, yt, ysum)))


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
    nt, yt, yc = _cumulative(t), _cumulative(y * t), _cumulative(y)
    yc -= yt
    return Knots(x, nt, yt, yc, int(np.count_nonzero(tied)))


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
