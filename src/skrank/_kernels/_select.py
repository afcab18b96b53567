"""Top-k selection of the rows of one query under a tie rule (compiled, no validation).

A row ``a`` ranks before row ``b`` when its score is higher; equal scores are ordered by the
tie rule's secondary key, and finally by input position, so the order is total and
deterministic. Selection keeps a bounded heap of the best ``k`` rows: O(n log k) per query,
and a row whose score is below the current k-th best is rejected with one comparison.
"""

from __future__ import annotations

from numba import njit

# tie modes (kept in sync with conventions.TIE_RULES)
PESSIMISTIC = 0
OPTIMISTIC = 1
INPUT = 2
AVERAGE = 3
DOCID = 4


@njit(cache=True, inline="always")
def before(a, b, scores, labels, tiekey, mode):
    """True when row ``a`` is ranked before row ``b``."""
    sa = scores[a]
    sb = scores[b]
    if sa != sb:
        return sa > sb
    if mode == PESSIMISTIC:
        la = labels[a]
        lb = labels[b]
        if la != lb:
            return la < lb
    elif mode == OPTIMISTIC:
        la = labels[a]
        lb = labels[b]
        if la != lb:
            return la > lb
    elif mode == DOCID:
        ta = tiekey[a]
        tb = tiekey[b]
        if ta != tb:
            return ta > tb
    return a < b


@njit(cache=True, inline="always")
def _sift_down(heap, size, pos, scores, labels, tiekey, mode):
    # heap keeps the *worst* selected row at its root
    item = heap[pos]
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        right = child + 1
        if right < size and before(heap[child], heap[right], scores, labels, tiekey, mode):
            child = right
        if before(item, heap[child], scores, labels, tiekey, mode):
            heap[pos] = heap[child]
            pos = child
        else:
            break
    heap[pos] = item


@njit(cache=True, inline="always")
def _sift_up(heap, pos, scores, labels, tiekey, mode):
    item = heap[pos]
    while pos > 0:
        parent = (pos - 1) // 2
        if before(heap[parent], item, scores, labels, tiekey, mode):
            heap[pos] = heap[parent]
            pos = parent
        else:
            break
    heap[pos] = item


@njit(cache=True)
def select_top(rows, n, k, scores, labels, tiekey, mode, out):
    """Write the best ``k`` of ``rows[:n]`` into ``out[:k]`` in rank order; return k used."""
    if k > n:
        k = n
    if k <= 0:
        return 0
    size = 0
    for j in range(n):
        r = rows[j]
        if size < k:
            out[size] = r
            _sift_up(out, size, scores, labels, tiekey, mode)
            size += 1
        else:
            root = out[0]
            # fast rejection on the score alone
            if scores[r] < scores[root]:
                continue
            if before(r, root, scores, labels, tiekey, mode):
                out[0] = r
                _sift_down(out, size, 0, scores, labels, tiekey, mode)
    # heap sort in place: repeatedly move the worst to the end
    end = size - 1
    while end > 0:
        tmp = out[0]
        out[0] = out[end]
        out[end] = tmp
        _sift_down(out, end, 0, scores, labels, tiekey, mode)
        end -= 1
    return size


@njit(cache=True, inline="always")
def _before_value(x, y):
    return x > y


@njit(cache=True)
def top_values(values, n, k, out):
    """The ``k`` largest of ``values[:n]`` in descending order into ``out``; return k used.

    Used for the ideal ranking, where only the values matter.
    """
    if k > n:
        k = n
    if k <= 0:
        return 0
    size = 0
    for j in range(n):
        v = values[j]
        if size < k:
            pos = size
            while pos > 0:
                parent = (pos - 1) // 2
                if out[parent] > v:
                    out[pos] = out[parent]
                    pos = parent
                else:
                    break
            out[pos] = v
            size += 1
        elif v > out[0]:
            pos = 0
            while True:
                child = 2 * pos + 1
                if child >= size:
                    break
                right = child + 1
                if right < size and out[right] < out[child]:
                    child = right
                if out[child] < v:
                    out[pos] = out[child]
                    pos = child
                else:
                    break
            out[pos] = v
    # sort the min-heap descending
    end = size - 1
    while end > 0:
        tmp = out[0]
        out[0] = out[end]
        out[end] = tmp
        v = out[0]
        pos = 0
        while True:
            child = 2 * pos + 1
            if child >= end:
                break
            right = child + 1
            if right < end and out[right] < out[child]:
                child = right
            if out[child] < v:
                out[pos] = out[child]
                pos = child
            else:
                break
        out[pos] = v
        end -= 1
    return size
