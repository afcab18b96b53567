"""Top-k selection of the rows of one query under a tie rule (compiled, no validation).

A row ``a`` ranks before row ``b`` when its score is higher; equal scores are ordered by the
tie rule's secondary key, and finally by input position, so the order is total and
deterministic. Selection keeps the best ``k`` rows in an insertion-sorted buffer (small k) or
a bounded heap (O(n log k)); a row whose score is below the current k-th best is rejected
with one comparison.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# tie modes (kept in sync with conventions.TIE_RULES)
PESSIMISTIC = 0
OPTIMISTIC = 1
INPUT = 2
AVERAGE = 3
DOCID = 4


@njit(cache=True, inline="always", error_model="numpy")
def before_key(sa, la, ta, a, sb, lb, tb, b, mode):
    """``before`` on loaded keys (score, label, tie key, position): no array arguments."""
    if sa != sb:
        return sa > sb
    if mode == PESSIMISTIC:
        if la != lb:
            return la < lb
    elif mode == OPTIMISTIC:
        if la != lb:
            return la > lb
    elif mode == DOCID:
        if ta != tb:
            return ta > tb
    return a < b


@njit(cache=True, inline="always", error_model="numpy")
def _put(out, hs, hl, ht, pos, r, sr, lr, tr):
    out[pos] = r
    hs[pos] = sr
    hl[pos] = lr
    ht[pos] = tr


@njit(cache=True, inline="always", error_model="numpy")
def _sift_down(out, hs, hl, ht, size, r, sr, lr, tr, mode):
    """Place row r (keys sr, lr, tr) from the root down a heap of ``size`` entries."""
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        right = child + 1
        if right < size and before_key(hs[child], hl[child], ht[child], out[child],
                                        hs[right], hl[right], ht[right], out[right], mode):
            child = right  # the worse of the two children
        if not before_key(sr, lr, tr, r, hs[child], hl[child], ht[child], out[child], mode):
            break
        _put(out, hs, hl, ht, pos, out[child], hs[child], hl[child], ht[child])
        pos = child
    _put(out, hs, hl, ht, pos, r, sr, lr, tr)


# below this cutoff a sorted buffer beats the heap (fewer, more predictable comparisons)
SMALL_K = 32


@njit(cache=True, error_model="numpy")
def _select_sorted(n, k, scores, labels, tiekey, use_key, mode, out, hs, hl, ht):
    """``select_top`` for small k: an insertion-sorted buffer, worst entry last."""
    size = 0
    for r in range(n):
        sr = scores[r]
        if size == k and sr < hs[k - 1]:
            continue  # the usual case: below the k-th best score
        lr = labels[r]
        tr = tiekey[r] if use_key else 0
        if size == k:
            if not before_key(sr, lr, tr, r, hs[k - 1], hl[k - 1], ht[k - 1], out[k - 1], mode):
                continue
            pos = k - 1  # r replaces the worst entry
        else:
            pos = size
            size += 1
        while pos > 0 and before_key(sr, lr, tr, r, hs[pos - 1], hl[pos - 1], ht[pos - 1],
                                     out[pos - 1], mode):
            _put(out, hs, hl, ht, pos, out[pos - 1], hs[pos - 1], hl[pos - 1], ht[pos - 1])
            pos -= 1
        _put(out, hs, hl, ht, pos, r, sr, lr, tr)
    return size


@njit(cache=True, error_model="numpy")
def select_top(n, k, scores, labels, tiekey, use_key, mode, out, hs, hl, ht):
    """Write the positions of the best ``k`` of ``n`` rows into ``out[:k]`` in rank order.

    Returns the number written. The inputs are one query's arrays; positions break ties last.

    A bounded heap keeps the worst selected row at its root; a row whose score is below the
    root's is rejected with one comparison. The heap's keys (score, label, tie key) live in
    the scratch arrays ``hs``, ``hl``, ``ht`` beside the row ids, so comparisons never
    gather from the input arrays.
    """
    if k > n:
        k = n
    if k <= 0:
        return 0
    use_key = use_key and mode == DOCID
    if k <= SMALL_K:
        return _select_sorted(n, k, scores, labels, tiekey, use_key, mode, out, hs, hl, ht)
    size = 0
    for r in range(n):
        sr = scores[r]
        if size == k and sr < hs[0]:
            continue
        lr = labels[r]
        tr = tiekey[r] if use_key else 0
        if size < k:
            # sift up: parents that rank before r move down
            pos = size
            while pos > 0:
                parent = (pos - 1) // 2
                if not before_key(hs[parent], hl[parent], ht[parent], out[parent],
                                   sr, lr, tr, r, mode):
                    break
                _put(out, hs, hl, ht, pos, out[parent], hs[parent], hl[parent], ht[parent])
                pos = parent
            _put(out, hs, hl, ht, pos, r, sr, lr, tr)
            size += 1
        elif before_key(sr, lr, tr, r, hs[0], hl[0], ht[0], out[0], mode):
            _sift_down(out, hs, hl, ht, size, r, sr, lr, tr, mode)  # replaces the root
    # heap sort in place: move the worst to the end, re-place the last entry from the root
    for end in range(size - 1, 0, -1):
        r, sr, lr, tr = out[end], hs[end], hl[end], ht[end]
        _put(out, hs, hl, ht, end, out[0], hs[0], hl[0], ht[0])
        _sift_down(out, hs, hl, ht, end, r, sr, lr, tr, mode)
    return size


@njit(cache=True, error_model="numpy")
def top_values(values, n, k, out):
    """The ``k`` largest of ``values[:n]`` in descending order into ``out``; return k used.

    The ideal ranking when gains do not come from a small label table (fractional or large
    labels); the usual case counts labels instead.
    """
    k = min(k, n)
    if k <= 0:
        return 0
    ordered = np.sort(values[:n])
    for i in range(k):
        out[i] = ordered[n - 1 - i]
    return k
