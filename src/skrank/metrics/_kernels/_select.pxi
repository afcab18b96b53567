# Top-k selection of the rows of one query under a tie rule (no validation).
#
# A row ``a`` ranks before row ``b`` when its score is higher; equal scores are ordered by the
# tie rule's secondary key, and finally by input position, so the order is total and
# deterministic. Selection keeps the best ``k`` rows in an insertion-sorted buffer (small k)
# or a bounded heap (O(n log k)); a row whose score is below the current k-th best is
# rejected with one comparison. Included by ``_ranking.pyx``.

# tie modes (named for Python by TIE_RULES in _ranking_body.pxi)
cdef enum:
    TIE_PESSIMISTIC = 0
    TIE_OPTIMISTIC = 1
    TIE_INPUT = 2
    TIE_AVERAGE = 3
    TIE_DOCID = 4
    # the ends of the tie range (general kernel only): ordered as pessimistic/optimistic,
    # and AP@k over the relevant found takes its true minimum/maximum over the tie orders
    TIE_LOW = 5
    TIE_HIGH = 6

# below this cutoff a sorted buffer beats the heap (fewer, more predictable comparisons)
cdef enum:
    SORTED_K = 32


cdef inline bint before_key(double sa, double la, int64_t ta, Py_ssize_t a, double sb,
                            double lb, int64_t tb, Py_ssize_t b, int mode) noexcept nogil:
    """Whether row a (score, label, tie key, position) ranks before row b."""
    if sa != sb:
        return sa > sb
    if mode == TIE_PESSIMISTIC:
        if la != lb:
            return la < lb
    elif mode == TIE_OPTIMISTIC:
        if la != lb:
            return la > lb
    elif mode == TIE_DOCID:
        if ta != tb:
            return ta > tb
    return a < b


cdef inline void _sift_down(int64_t* out, score_t* hs, label_t* hl, int64_t* ht,
                            Py_ssize_t size, int64_t r, score_t sr, label_t lr, int64_t tr,
                            int mode) noexcept nogil:
    """Place row r (keys sr, lr, tr) from the root down a heap of ``size`` entries."""
    cdef Py_ssize_t pos = 0, child, right
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
        out[pos] = out[child]
        hs[pos] = hs[child]
        hl[pos] = hl[child]
        ht[pos] = ht[child]
        pos = child
    out[pos] = r
    hs[pos] = sr
    hl[pos] = lr
    ht[pos] = tr


cdef Py_ssize_t _select_sorted(Py_ssize_t n, Py_ssize_t k, const score_t* scores,
                               const label_t* labels, const int64_t* tiekey, bint use_key,
                               int mode, int64_t* out, score_t* hs, label_t* hl,
                               int64_t* ht) noexcept nogil:
    """``select_top`` for small k: an insertion-sorted buffer, worst entry last."""
    cdef Py_ssize_t size = 0, r, pos
    cdef score_t sr
    cdef label_t lr
    cdef int64_t tr
    for r in range(n):
        sr = scores[r]
        if size == k and sr < hs[k - 1]:
            continue  # the usual case: below the k-th best score
        lr = labels[r]
        tr = tiekey[r] if use_key else 0
        if size == k:
            if not before_key(sr, lr, tr, r, hs[k - 1], hl[k - 1], ht[k - 1], out[k - 1],
                              mode):
                continue
            pos = k - 1  # r replaces the worst entry
        else:
            pos = size
            size += 1
        while pos > 0 and before_key(sr, lr, tr, r, hs[pos - 1], hl[pos - 1], ht[pos - 1],
                                     out[pos - 1], mode):
            out[pos] = out[pos - 1]
            hs[pos] = hs[pos - 1]
            hl[pos] = hl[pos - 1]
            ht[pos] = ht[pos - 1]
            pos -= 1
        out[pos] = r
        hs[pos] = sr
        hl[pos] = lr
        ht[pos] = tr
    return size


cdef bint _in_order(Py_ssize_t n, const score_t* scores, const label_t* labels,
                    const int64_t* tiekey, bint use_key, int mode) noexcept nogil:
    """Whether the rows are in rank order already (a run written in rank order, rows a
    reader put in trec_eval's order): one comparison a row, stopping at the first pair out
    of order."""
    cdef Py_ssize_t r
    for r in range(1, n):
        if not before_key(scores[r - 1], labels[r - 1], tiekey[r - 1] if use_key else 0,
                          r - 1, scores[r], labels[r], tiekey[r] if use_key else 0, r,
                          mode):
            return False
    return True


cdef Py_ssize_t select_top(Py_ssize_t n, Py_ssize_t k, const score_t* scores,
                           const label_t* labels, const int64_t* tiekey, bint use_key,
                           int mode, int64_t* out, score_t* hs, label_t* hl,
                           int64_t* ht) noexcept nogil:
    """Write the positions of the best ``k`` of ``n`` rows into ``out[:k]`` in rank order.

    Returns the number written; the selected scores, labels and tie keys are in hs, hl, ht.
    Rows already in rank order are taken as they are; else a bounded heap keeps the worst
    selected row at its root, and a row whose score is below the root's is rejected with
    one comparison. The heap's keys live beside the row ids, so
    comparisons never gather from the input arrays.
    """
    cdef Py_ssize_t size = 0, r, pos, parent, end
    cdef score_t sr
    cdef label_t lr
    cdef int64_t tr, rr
    if k > n:
        k = n
    if k <= 0:
        return 0
    use_key = use_key and mode == TIE_DOCID
    if k <= SORTED_K:
        return _select_sorted(n, k, scores, labels, tiekey, use_key, mode, out, hs, hl, ht)
    if _in_order(n, scores, labels, tiekey, use_key, mode):
        for r in range(k):  # the selection is the first k rows, as they are
            out[r] = r
            hs[r] = scores[r]
            hl[r] = labels[r]
            ht[r] = tiekey[r] if use_key else 0
        return k
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
                out[pos] = out[parent]
                hs[pos] = hs[parent]
                hl[pos] = hl[parent]
                ht[pos] = ht[parent]
                pos = parent
            out[pos] = r
            hs[pos] = sr
            hl[pos] = lr
            ht[pos] = tr
            size += 1
        elif before_key(sr, lr, tr, r, hs[0], hl[0], ht[0], out[0], mode):
            _sift_down(out, hs, hl, ht, size, r, sr, lr, tr, mode)  # replaces the root
    # heap sort in place: move the worst to the end, re-place the last entry from the root
    for end in range(size - 1, 0, -1):
        rr = out[end]
        sr = hs[end]
        lr = hl[end]
        tr = ht[end]
        out[end] = out[0]
        hs[end] = hs[0]
        hl[end] = hl[0]
        ht[end] = ht[0]
        _sift_down(out, hs, hl, ht, end, rr, sr, lr, tr, mode)
    return size


cdef int _descending(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*>a)[0]
    cdef double y = (<const double*>b)[0]
    return (x < y) - (x > y)


cdef Py_ssize_t top_values(double* values, Py_ssize_t n, Py_ssize_t k,
                           double* out) noexcept nogil:
    """The ``k`` largest of ``values[:n]`` in descending order into ``out``; return k used.

    The ideal ranking when gains do not come from a small label table (fractional or large
    labels); the usual case counts labels instead. Sorts ``values`` in place.
    """
    cdef Py_ssize_t i
    k = min(k, n)
    if k <= 0:
        return 0
    qsort(values, n, sizeof(double), _descending)
    for i in range(k):
        out[i] = values[i]
    return k
