# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Pair counts of the concordance index in O(n log n): a Fenwick tree over risk ranks.

The subjects arrive sorted by time (ascending). Blocks of equal time are visited from the
latest to the earliest; the tree holds the risk ranks of every subject seen so far, i.e. of
every subject that lived longer than the current block (and, when ``censored_later`` is set,
of the block's censored subjects, which count as outliving an event at the same time). Each
event of the block then reads, in two prefix sums, how many of them have a lower risk
(concordant), a risk within ``tied_tol`` (tied) and a higher risk (discordant).

No validation and no defaults here: the caller (``_metrics.py``) checks and prepares the input.
"""

from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport calloc, free


cdef inline void _add(int64_t* tree, Py_ssize_t m, Py_ssize_t pos) noexcept nogil:
    # pos is 0-based; the tree is 1-based
    pos += 1
    while pos <= m:
        tree[pos] += 1
        pos += pos & (-pos)


cdef inline int64_t _prefix(const int64_t* tree, Py_ssize_t pos) noexcept nogil:
    # how many inserted ranks are <= pos (0-based); pos may be -1
    cdef int64_t s = 0
    pos += 1
    while pos > 0:
        s += tree[pos]
        pos -= pos & (-pos)
    return s


def concordance_counts(
    const double[::1] time,
    const uint8_t[::1] event,
    const double[::1] risk,
    const Py_ssize_t[::1] rank,
    const double[::1] uniq,
    const double[::1] weight,
    double tied_tol,
    bint censored_later,
):
    """Pair counts and weighted pair sums over comparable pairs.

    Parameters (all aligned, sorted by ``time`` ascending)
    ------------------------------------------------------
    time, event : the outcome; ``event`` 1 marks a subject that can anchor a pair.
    risk : oriented so that a higher value means an earlier expected event.
    rank : index of each risk in ``uniq`` (the sorted distinct risks).
    weight : the anchor's weight of each pair (1 for Harrell, 1/G(t)^2 for Uno).
    tied_tol : risks with ``abs(r_j - r_i) <= tied_tol`` are tied.
    censored_later : an event and a censored subject at the same time form a pair.

    Returns
    -------
    (concordant, discordant, tied_risk, tied_time, w_concordant, w_discordant, w_tied), where
    tied_time counts the (event, censored) pairs at one time, comparable or not.
    """
    cdef Py_ssize_t n = time.shape[0]
    cdef Py_ssize_t m = uniq.shape[0]
    cdef int64_t n_con = 0, n_dis = 0, n_tie = 0, n_tt = 0
    cdef double w_con = 0.0, w_dis = 0.0, w_tie = 0.0
    cdef int64_t total = 0, below, upto, above, n_cens
    cdef Py_ssize_t k, s, p, lo, hi, a, b, mid
    cdef double r, w, t
    cdef int64_t* tree = <int64_t*> calloc(m + 1, sizeof(int64_t))
    if tree == NULL:
        raise MemoryError()
    try:
        with nogil:
            k = n
            while k > 0:
                t = time[k - 1]
                s = k - 1
                while s > 0 and time[s - 1] == t:
                    s -= 1
                n_cens = 0
                for p in range(s, k):
                    if not event[p]:
                        n_cens += 1
                        if censored_later:
                            _add(tree, m, rank[p])
                            total += 1
                for p in range(s, k):
                    if not event[p]:
                        continue
                    r = risk[p]
                    if tied_tol > 0:
                        # first index whose distance from r is not below -tol
                        a = 0
                        b = rank[p]
                        while a < b:
                            mid = (a + b) // 2
                            if uniq[mid] - r < -tied_tol:
                                a = mid + 1
                            else:
                                b = mid
                        lo = a
                        # last index whose distance from r is <= tol
                        a = rank[p]
                        b = m
                        while a < b:
                            mid = (a + b) // 2
                            if uniq[mid] - r <= tied_tol:
                                a = mid + 1
                            else:
                                b = mid
                        hi = a - 1
                    else:
                        lo = rank[p]
                        hi = rank[p]
                    below = _prefix(tree, lo - 1)
                    upto = _prefix(tree, hi)
                    above = total - upto
                    w = weight[p]
                    n_con += below
                    n_tie += upto - below
                    n_dis += above
                    w_con += w * below
                    w_tie += w * (upto - below)
                    w_dis += w * above
                    n_tt += n_cens
                for p in range(s, k):
                    if event[p] or not censored_later:
                        _add(tree, m, rank[p])
                        total += 1
                k = s
    finally:
        free(tree)
    return n_con, n_dis, n_tie, n_tt, w_con, w_dis, w_tie
