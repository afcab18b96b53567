# The join of a run with its qrels, included by ``_runreader.pyx``.
#
# Documents are known by their 64-bit hash, with their bytes in the buffer they were read
# from: equal hashes do not prove equal ids, so every hash match compares the bytes.
#
# * ``qrels_table``: the judgements in an open-addressing table keyed by (topic, document),
#   which also finds a document judged twice for a topic;
# * ``first_repeat``: the earliest row of a run repeating a document of its topic (a small
#   table per topic);
# * ``join_batch``: for each topic of a batch, its rows in trec_eval's order (score
#   descending, then docno descending by byte comparison, only among tied scores: a merge
#   sort that finds the rows of a run written in rank order already sorted), a tie key that
#   puts them in that order under ``ties="docid"``, ``-M``'s cut, each row's label by one
#   probe of the qrels table, then the judged documents the run missed.


cdef inline uint64_t _slot(uint64_t h, int64_t topic) noexcept nogil:
    return _fmix(h ^ (<uint64_t>(topic + 1) * K1))


cdef inline int _doc_cmp(const uint8_t* a, int64_t na, const uint8_t* b,
                         int64_t nb) noexcept nogil:
    """strcmp's order of two ids (bytes as unsigned, a prefix first)."""
    cdef int c = memcmp(a, b, na if na < nb else nb)
    if c != 0:
        return c
    return (na > nb) - (na < nb)


cdef int64_t _table_size(int64_t n) noexcept nogil:
    cdef int64_t size = 16
    while size < 2 * n:
        size *= 2
    return size


def qrels_table(const uint8_t[::1] buf, const int32_t[::1] topic, const uint64_t[::1] dhash,
                const int64_t[::1] dstart, const int32_t[::1] dlen):
    """The judgements keyed by (topic, document): ``(slots, a, b)``.

    ``slots`` (int64, a power of two long) holds row + 1 (0: empty); ``(a, b)`` is the first
    judgement and the earliest one repeating it when a document is judged twice for a topic
    (the table is then incomplete), else ``(-1, -1)``.
    """
    cdef int64_t n = topic.shape[0], size = _table_size(n), i, k, a = -1, b = -1
    cdef uint64_t mask = size - 1, j
    slots = np.zeros(size, dtype=np.int64)
    cdef int64_t[::1] s = slots
    with nogil:
        for i in range(n):
            j = _slot(dhash[i], topic[i]) & mask
            while s[j] != 0:
                k = s[j] - 1
                if dhash[k] == dhash[i] and topic[k] == topic[i] and dlen[k] == dlen[i] \
                        and _same(&buf[0] + dstart[k], &buf[0] + dstart[i], dlen[i]):
                    a, b = k, i
                    break
                j = (j + 1) & mask
            if b >= 0:
                break
            s[j] = i + 1
    return slots, a, b


def first_repeat(const uint8_t[::1] buf, const uint64_t[::1] dhash,
                 const int64_t[::1] dstart, const int32_t[::1] dlen,
                 const int64_t[::1] order, const int64_t[::1] bounds,
                 const int64_t[::1] topics):
    """``(a, b)``: the earliest row ``b`` whose document row ``a < b`` of its topic has, or
    ``(-1, -1)``, among the ``topics`` given. The rows of topic ``t`` are
    ``order[bounds[t]:bounds[t + 1]]``, in file order."""
    cdef int64_t n_t = topics.shape[0], x, t, lo, hi, m, biggest = 0, i, r, k, size
    cdef int64_t a = -1, b = -1
    cdef uint64_t mask, j
    for x in range(n_t):
        t = topics[x]
        biggest = max(biggest, bounds[t + 1] - bounds[t])
    if biggest < 2:
        return -1, -1
    table = np.zeros(_table_size(biggest), dtype=np.int64)
    cdef int64_t[::1] s = table
    cdef const uint8_t* base = &buf[0]
    with nogil:
        for x in range(n_t):
            t = topics[x]
            lo, hi = bounds[t], bounds[t + 1]
            m = hi - lo
            if m < 2:
                continue
            size = _table_size(m)
            mask = size - 1
            memset(&s[0], 0, size * sizeof(int64_t))
            for i in range(lo, hi):
                r = order[i]
                if b >= 0 and r >= b:
                    break  # a repeat found earlier in the file already
                j = dhash[r] & mask
                while s[j] != 0:
                    k = s[j] - 1
                    if dhash[k] == dhash[r] and dlen[k] == dlen[r] and \
                            _same(base + dstart[k], base + dstart[r], dlen[r]):
                        break
                    j = (j + 1) & mask
                if s[j] != 0:
                    if b < 0 or r < b:
                        a, b = s[j] - 1, r
                    break
                s[j] = r + 1
    return a, b


cdef struct Order:
    const uint8_t* buf
    const double* score
    const int64_t* dstart
    const int32_t* dlen
    const int64_t* rows
    bint f32


cdef inline bint _before(const Order* o, int64_t i, int64_t j) noexcept nogil:
    """Whether local row ``i`` comes before ``j`` in trec_eval's order."""
    cdef int64_t ri = o.rows[i], rj = o.rows[j]
    cdef double si = o.score[ri], sj = o.score[rj]
    if o.f32:
        si = <float>si
        sj = <float>sj
    if si != sj:
        return si > sj
    return _doc_cmp(o.buf + o.dstart[ri], o.dlen[ri], o.buf + o.dstart[rj], o.dlen[rj]) > 0


cdef void _sort(const Order* o, int64_t* a, int64_t* tmp, int64_t n) noexcept nogil:
    """Merge sort of the local rows ``a[:n]`` into trec_eval's order (linear on sorted
    input: halves already in order are not merged)."""
    cdef int64_t i, j, k, h, x
    if n <= 16:
        for i in range(1, n):
            x = a[i]
            j = i
            while j > 0 and _before(o, x, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = x
        return
    h = n // 2
    _sort(o, a, tmp, h)
    _sort(o, a + h, tmp, n - h)
    if not _before(o, a[h], a[h - 1]):
        return
    i, j, k = 0, h, 0
    while i < h and j < n:
        if _before(o, a[j], a[i]):
            tmp[k] = a[j]
            j += 1
        else:
            tmp[k] = a[i]
            i += 1
        k += 1
    while i < h:
        tmp[k] = a[i]
        i += 1
        k += 1
    memcpy(a, tmp, k * sizeof(int64_t))


cdef struct Qrels:
    const uint8_t* buf
    const int64_t* slots
    uint64_t mask
    const int32_t* topic
    const uint64_t* dhash
    const int64_t* dstart
    const int32_t* dlen
    const int64_t* rel
    const int64_t* order
    const int64_t* bounds
    int64_t* stamp


cdef inline int64_t _judgement(const Qrels* q, int64_t topic, uint64_t h, const uint8_t* doc,
                               int32_t n) noexcept nogil:
    """Row of the judgement of ``doc`` (hash ``h``) for ``topic``, or -1."""
    cdef uint64_t j = _slot(h, topic) & q.mask
    cdef int64_t k
    while q.slots[j] != 0:
        k = q.slots[j] - 1
        if q.dhash[k] == h and q.topic[k] == topic and q.dlen[k] == n and \
                _same(q.buf + q.dstart[k], doc, n):
            return k
        j = (j + 1) & q.mask
    return -1


def join_batch(const uint8_t[::1] rbuf, const double[::1] score, const uint64_t[::1] dhash,
               const int64_t[::1] dstart, const int32_t[::1] dlen,
               const int64_t[::1] order, const int64_t[::1] bounds,
               const int64_t[::1] emit_run, const int64_t[::1] emit_qrels,
               const uint8_t[::1] qbuf, const int64_t[::1] slots, const int32_t[::1] q_topic,
               const uint64_t[::1] q_hash, const int64_t[::1] q_start,
               const int32_t[::1] q_len, const int64_t[::1] q_rel,
               const int64_t[::1] q_order, const int64_t[::1] q_bounds,
               int64_t[::1] stamp, int64_t stamp0, int64_t max_docs, bint f32,
               int64_t[::1] code, int64_t[::1] tiekey, double[::1] y_true,
               double[::1] y_score, uint8_t[::1] retrieved, int64_t[::1] src,
               int64_t[::1] candidates):
    """Join topics of a batch with their judgements; returns ``(n, n_negative,
    first_negative)``.

    Output topic ``i`` is the run's topic ``emit_run[i]`` (rows ``order[bounds[t]:bounds[t +
    1]]``, file order; -1: none) judged as qrels topic ``emit_qrels[i]`` (rows
    ``q_order[q_bounds[u]:q_bounds[u + 1]]``; -1: none). Its rows, written from the start of
    the outputs: the retrieved rows kept (the first ``max_docs`` in trec_eval's order when
    ``max_docs > 0``), in file order, then the judgements not retrieved, in qrels order.
    ``tiekey`` orders the retrieved rows as trec_eval does under ``ties="docid"`` (greater
    first; scores compared as float32 when ``f32``); ``src`` is the run row, or ``-1 - j``
    for judgement ``j``; ``candidates[i]`` the retrieved rows kept. Negative labels become 0
    (counted; ``first_negative`` is the output row of the first, or -1). ``stamp`` marks the
    judgements met, with values from ``stamp0`` on (one per output topic).
    """
    cdef int64_t n_emit = emit_run.shape[0], i, t, u, lo, hi, m, biggest = 1, r, p, k, j
    cdef int64_t out = 0, n_neg = 0, first_neg = -1, kept, n_un, mark
    cdef double lab
    for i in range(n_emit):
        t = emit_run[i]
        if t >= 0:
            biggest = max(biggest, bounds[t + 1] - bounds[t])
    scratch = np.empty(3 * biggest, dtype=np.int64)
    cdef int64_t[::1] sv = scratch
    cdef int64_t* idx = &sv[0]
    cdef int64_t* tmp = idx + biggest
    cdef int64_t* pos = tmp + biggest
    cdef Order o
    cdef Qrels q
    o.buf = &rbuf[0] if rbuf.shape[0] else NULL
    o.score = &score[0] if score.shape[0] else NULL
    o.dstart = &dstart[0] if dstart.shape[0] else NULL
    o.dlen = &dlen[0] if dlen.shape[0] else NULL
    o.rows = &order[0] if order.shape[0] else NULL
    o.f32 = f32
    q.buf = &qbuf[0]
    q.slots = &slots[0]
    q.mask = slots.shape[0] - 1
    q.topic = &q_topic[0]
    q.dhash = &q_hash[0]
    q.dstart = &q_start[0]
    q.dlen = &q_len[0]
    q.rel = &q_rel[0]
    q.order = &q_order[0]
    q.bounds = &q_bounds[0]
    q.stamp = &stamp[0]
    with nogil:
        for i in range(n_emit):
            t = emit_run[i]
            u = emit_qrels[i]
            mark = stamp0 + i
            kept = 0
            if t >= 0:
                lo, hi = bounds[t], bounds[t + 1]
                m = hi - lo
                for k in range(m):
                    idx[k] = k
                o.rows = &order[lo]
                _sort(&o, idx, tmp, m)
                for k in range(m):
                    pos[idx[k]] = k
                for k in range(m):
                    p = pos[k]
                    if max_docs > 0 and p >= max_docs:
                        continue
                    r = order[lo + k]
                    lab = 0.0
                    if u >= 0:
                        j = _judgement(&q, u, dhash[r], &rbuf[0] + dstart[r], dlen[r])
                        if j >= 0:
                            stamp[j] = mark
                            lab = <double>q_rel[j]
                    if lab < 0:
                        n_neg += 1
                        if first_neg < 0:
                            first_neg = out
                        lab = 0.0
                    code[out] = i
                    tiekey[out] = m - p
                    y_true[out] = lab
                    y_score[out] = score[r]
                    retrieved[out] = 1
                    src[out] = r
                    out += 1
                    kept += 1
            candidates[i] = kept
            if u >= 0:
                n_un = 0
                for k in range(q_bounds[u], q_bounds[u + 1]):
                    j = q_order[k]
                    if stamp[j] == mark:
                        continue
                    lab = <double>q_rel[j]
                    if lab < 0:
                        n_neg += 1
                        if first_neg < 0:
                            first_neg = out
                        lab = 0.0
                    n_un += 1
                    code[out] = i
                    tiekey[out] = -n_un
                    y_true[out] = lab
                    y_score[out] = -INFINITY
                    retrieved[out] = 0
                    src[out] = -1 - j
                    out += 1
    return out, n_neg, first_neg
