# The join of a run with its qrels, included by ``_runreader.pyx``.
#
# Documents are known by their 64-bit hash, with their bytes in the buffer they were read
# from: equal hashes do not prove equal ids, so every hash match compares the bytes.
#
# * ``first_repeat``: the earliest row of a run (or qrels) repeating a document of its topic
#   (a small table per topic): the qrels' check, and the message of a run's repeat;
# * ``join_batch``: for each topic of a batch, each row's label and the repeat check by one
#   probe of a small table of the topic's judgements and of its documents met so far (built
#   per topic: it stays in the cache), its rows in trec_eval's order (score descending, then
#   docno descending by byte comparison: of a topic written in score order, only the runs
#   of tied scores are sorted, or where the rows' places are all that is written, only those
#   holding a judged row; else a merge sort), a tie key that puts them in that order
#   under ``ties="docid"``, ``-M``'s cut, then the judged documents the run missed.


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


cdef struct Entry:
    uint64_t hash
    int64_t row       # -1: an empty slot


cdef inline uint64_t _doc_hash(const uint8_t* buf, int64_t size, int64_t start,
                               int32_t n, uint64_t mask) noexcept nogil:
    """The hash of the document id at ``start`` (``size``: the buffer's). An id of 1 to 16
    bytes: its two little-endian words, zero-padded, multiplied into 128 bits and folded
    (one multiplication where ``_hash`` makes two per word), then mixed; the words are read
    at once where 16 bytes of the buffer follow the id's start (on a little-endian machine),
    else byte by byte (the same words). A longer id: ``_hash``. Which way depends only on the length, so an id has one
    hash in any buffer (the join compares a run's with a qrels')."""
    cdef uint64_t a, b = 0, lo, hi
    cdef const uint8_t* p = buf + start
    if n < 1 or n > 16:
        return _hash(p, n, buf + size) & mask
    if RR_LITTLE_ENDIAN and start + 16 <= size:
        memcpy(&a, p, 8)
        memcpy(&b, p + 8, 8)
        if n < 8:
            a &= (<uint64_t>1 << (8 * n)) - 1
            b = 0
        elif n < 16:
            b &= (<uint64_t>1 << (8 * (n - 8))) - 1
    else:
        a = _word(p, 8 if n > 8 else n, buf + size)
        if n > 8:
            b = _word(p + 8, n - 8, buf + size)
    hi = rr_mul(a ^ K1, b ^ K2 ^ <uint64_t>n, &lo)
    return _fmix(hi ^ lo) & mask


def first_repeat(const uint8_t[::1] buf, const int64_t[::1] dstart,
                 const int32_t[::1] dlen, const index_t[::1] order,
                 const int64_t[::1] bounds, const int64_t[::1] topics,
                 uint64_t hash_mask=0xFFFFFFFFFFFFFFFF, uint64_t[::1] hashes=None,
                 int64_t hash_base=0):
    """``(a, b, t)``: the earliest row ``b`` whose document row ``a < b`` of its topic ``t``
    has, or ``(-1, -1, -1)``, among the ``topics`` given. The rows of topic ``t`` are
    ``order[bounds[t]:bounds[t + 1]]``, in file order. ``hash_mask`` keeps bits of the
    document hashes (fewer: collisions, for tests).

    ``hashes`` (when there is no repeat) receives the hash of the document of
    ``order[i]`` at ``hashes[i - hash_base]``, for :func:`join_batch`."""
    cdef int64_t n_t = topics.shape[0], x, t, lo, hi, m, biggest = 0, i, r, k, size
    cdef int64_t a = -1, b = -1, tb = -1, nbuf = buf.shape[0]
    cdef uint64_t mask, j, h
    cdef uint64_t* hout = NULL
    for x in range(n_t):
        t = topics[x]
        biggest = max(biggest, bounds[t + 1] - bounds[t])
        if hashes is not None and bounds[t + 1] > bounds[t] and (
                bounds[t] < hash_base or bounds[t + 1] - hash_base > hashes.shape[0]):
            raise ValueError("first_repeat: hashes does not cover the topics")
    if hashes is not None and biggest:
        hout = &hashes[0]
    if biggest < 1 or (biggest < 2 and hout == NULL):
        return -1, -1, -1
    table = np.empty(_table_size(biggest) * sizeof(Entry), dtype=np.uint8)
    cdef uint8_t[::1] tv = table
    cdef Entry* s = <Entry*>&tv[0]
    cdef const uint8_t* base = &buf[0]
    with nogil:
        for x in range(n_t):
            t = topics[x]
            lo, hi = bounds[t], bounds[t + 1]
            m = hi - lo
            if m < 2:
                if m == 1 and hout != NULL:
                    r = order[lo]
                    hout[lo - hash_base] = _doc_hash(base, nbuf, dstart[r], dlen[r], hash_mask)
                continue
            size = _table_size(m)
            mask = size - 1
            for i in range(size):
                s[i].row = -1
            for i in range(lo, hi):
                r = order[i]
                if b >= 0 and r >= b:
                    break  # a repeat found earlier in the file already
                h = _doc_hash(base, nbuf, dstart[r], dlen[r], hash_mask)
                if hout != NULL:
                    hout[i - hash_base] = h
                j = h & mask
                while s[j].row >= 0:
                    k = s[j].row
                    if s[j].hash == h and dlen[k] == dlen[r] and \
                            _same(base + dstart[k], base + dstart[r], dlen[r]):
                        break
                    j = (j + 1) & mask
                if s[j].row >= 0:
                    if b < 0 or r < b:
                        a, b, tb = s[j].row, r, t
                    break
                s[j].hash = h
                s[j].row = r
    return a, b, tb


cdef struct Key:
    double score       # as float32 under score_precision="float32"
    uint64_t prefix    # big-endian bytes of the docno after the topic's common prefix
    int64_t start      # the docno in the buffer
    int32_t length
    int32_t local      # the row's place in the topic


cdef struct Order:
    const uint8_t* buf


cdef inline bint _before(const Order* o, const Key* x, const Key* y) noexcept nogil:
    """Whether ``x`` comes before ``y`` in trec_eval's order: score descending, then docno
    descending."""
    if x.score != y.score:
        return x.score > y.score
    if x.prefix != y.prefix:
        return x.prefix > y.prefix
    return _doc_cmp(o.buf + x.start, x.length, o.buf + y.start, y.length) > 0


cdef void _sort(const Order* o, Key* a, Key* tmp, int64_t n) noexcept nogil:
    """Merge sort of ``a[:n]`` into trec_eval's order (linear on sorted input: halves
    already in order are not merged)."""
    cdef int64_t i, j, k, h
    cdef Key x
    if n <= 16:
        for i in range(1, n):
            x = a[i]
            j = i
            while j > 0 and _before(o, &x, &a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = x
        return
    h = n // 2
    _sort(o, a, tmp, h)
    _sort(o, a + h, tmp, n - h)
    if not _before(o, &a[h], &a[h - 1]):
        return
    i, j, k = 0, h, 0
    while i < h and j < n:
        if _before(o, &a[j], &a[i]):
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
    memcpy(a, tmp, k * sizeof(Key))


cdef inline double _ranked(const double* score, int64_t r, bint f32) noexcept nogil:
    """The score of row ``r`` as trec_eval's order compares it (as float32 when ``f32``)."""
    return <float>score[r] if f32 else score[r]


cdef void _keys(const uint8_t* buf, const uint8_t* limit, const double* score,
                const int64_t* dstart, const int32_t* dlen, const index_t* rows, int64_t m,
                bint f32, Key* out, int32_t first_local=0) noexcept nogil:
    """Sort keys of the rows ``rows[:m]`` of one topic, or of a run of them (``limit``: the
    end of ``buf``; ``first_local``: the place in the topic of ``rows[0]``)."""
    cdef int64_t common = dlen[rows[0]], i, c, n, r
    cdef const uint8_t* first = buf + dstart[rows[0]]
    cdef const uint8_t* d
    cdef uint64_t w
    for i in range(1, m):  # the prefix every docno of the topic shares orders nothing
        r = rows[i]
        d = buf + dstart[r]
        n = dlen[r] if dlen[r] < common else common
        c = 0
        while c < n and d[c] == first[c]:
            c += 1
        common = c
    for i in range(m):
        r = rows[i]
        out[i].score = _ranked(score, r, f32)
        out[i].start = dstart[r]
        out[i].length = dlen[r]
        out[i].local = first_local + <int32_t>i
        d = buf + dstart[r] + common
        n = dlen[r] - common
        if n > 8:
            n = 8
        if RR_LITTLE_ENDIAN and d + 8 <= limit:  # a word read at once, its first byte high
            memcpy(&w, d, 8)
            w = rr_bswap(w)
            if n == 0:
                w = 0
            elif n < 8:
                w &= ~((<uint64_t>1 << (8 * (8 - n))) - 1)
        else:
            w = 0
            for c in range(n):
                w = (w << 8) | d[c]
            if n < 8:
                w <<= 8 * (8 - n)
        out[i].prefix = w


cdef void _order(const Order* o, Key* a, Key* tmp, int64_t m) noexcept nogil:
    """Sort ``a[:m]`` into trec_eval's order. A run is usually written in score order
    already: then only each run of tied scores is sorted (by docno), else the whole topic."""
    cdef int64_t i, g = 0
    for i in range(1, m):
        if a[i].score > a[i - 1].score:
            _sort(o, a, tmp, m)
            return
    for i in range(1, m + 1):
        if i == m or a[i].score != a[g].score:
            if i - g > 1:
                _sort(o, a + g, tmp, i - g)
            g = i


cdef void _place(const Order* o, Key* a, Key* tmp, int64_t g, const int32_t* jof,
                 const double* score, const index_t* rows) noexcept nogil:
    """Order a run of tied scores ``a[:g]`` (score order, docno descending) where only the
    judged rows' places matter: the unjudged rows (``jof`` -1) of one score are alike to the
    kernels (label 0, the same score, the tie key their place gives), so only each judged
    row's place is counted (the rows whose docno is greater: no moves, no branches on the
    data), and the unjudged ones fill the other places in the order they come. Where the
    scores' bits differ (tied as float32, or 0.0 and -0.0), or many rows are judged, the run
    is sorted."""
    cdef uint64_t b0, b
    cdef int64_t x, y, k = 0, cnt
    memcpy(&b0, &score[rows[a[0].local]], 8)
    for x in range(g):
        memcpy(&b, &score[rows[a[x].local]], 8)
        if b != b0:
            _sort(o, a, tmp, g)
            return
        k += jof[a[x].local] >= 0
    if k == 0:
        return
    if k > 32:
        _sort(o, a, tmp, g)
        return
    for x in range(g):
        tmp[x].length = -1  # a free place
    for x in range(g):
        if jof[a[x].local] < 0:
            continue
        cnt = 0
        for y in range(g):
            if a[y].prefix != a[x].prefix:
                cnt += a[y].prefix > a[x].prefix
            else:
                cnt += _doc_cmp(o.buf + a[y].start, a[y].length, o.buf + a[x].start,
                                a[x].length) > 0
        tmp[cnt] = a[x]
    y = 0
    for x in range(g):
        if jof[a[x].local] >= 0:
            continue
        while tmp[y].length >= 0:
            y += 1
        tmp[y] = a[x]
        y += 1
    memcpy(a, tmp, g * sizeof(Key))


cdef struct Slot:
    uint32_t tag      # the hash's high bits
    int32_t row       # -1: empty; below the topic's judgements: a judgement; else a run row


def join_batch(const uint8_t[::1] rbuf, const double[::1] score,
               const int64_t[::1] dstart, const int32_t[::1] dlen,
               const index_t[::1] order, const int64_t[::1] bounds,
               const int64_t[::1] emit_run, const int64_t[::1] emit_qrels,
               const uint8_t[::1] qbuf,
               const int64_t[::1] q_start, const int32_t[::1] q_len,
               const int64_t[::1] q_rel, const index_t[::1] q_order,
               const int64_t[::1] q_bounds, int64_t max_docs, bint f32, bint in_order,
               int64_t[::1] code, int64_t[::1] tiekey, double[::1] y_true,
               double[::1] y_score, uint8_t[::1] retrieved, int64_t[::1] src,
               int64_t[::1] candidates, uint64_t hash_mask=0xFFFFFFFFFFFFFFFF,
               bint sorted_fast=True):
    """Join topics of a batch with their judgements; returns ``(n, n_negative,
    first_negative, repeat)``.

    Output topic ``i`` is the run's topic ``emit_run[i]`` (rows ``order[bounds[t]:bounds[t +
    1]]``, file order; -1: none) judged as qrels topic ``emit_qrels[i]`` (rows
    ``q_order[q_bounds[u]:q_bounds[u + 1]]``; -1: none). Its rows, written from the start of
    the outputs: the retrieved rows kept (the first ``max_docs`` in trec_eval's order when
    ``max_docs > 0``), in file order (in trec_eval's order when ``in_order``), then the
    judgements not retrieved, in qrels order.
    ``tiekey`` orders the retrieved rows as trec_eval does under ``ties="docid"`` (greater
    first; scores compared as float32 when ``f32``); ``src`` is the run row, or ``-1 - j``
    for judgement ``j`` (not written when ``src`` is empty); ``candidates[i]`` the retrieved rows kept. Negative labels become 0
    (counted; ``first_negative`` is the output row of the first, or -1). ``hash_mask``:
    the bits of the document hashes kept (fewer: collisions, for tests).

    Each document of the run is hashed once and looked up in one small table per topic,
    holding the topic's judgements and the documents of the topic met so far: a document
    met twice stops the join, ``repeat`` then being the output topic (-1: none; the caller
    names the lines). ``sorted_fast``: a topic written in score order has only its ties
    sorted (False: every topic merge-sorted; for tests); when the rows are written in that
    order without their run rows (``in_order``, ``src`` empty), only the runs of tied scores
    that hold a judged row get sort keys, and of those only the judged rows are placed (see
    :func:`_place`): the outputs are the same.
    """
    cdef int64_t n_emit = emit_run.shape[0], i, t, u, lo, hi, m, r, p, k, j, x, c, e
    cdef int64_t biggest = 1, judged = 1, out = 0, n_neg = 0, first_neg = -1, kept, n_un
    cdef int64_t qb, n_j, g, repeat = -1
    cdef uint64_t mask = 0, h
    cdef uint32_t tag
    cdef int64_t nr = rbuf.shape[0], nq = qbuf.shape[0]
    cdef double lab
    for i in range(n_emit):
        t = emit_run[i]
        if t >= 0:
            biggest = max(biggest, bounds[t + 1] - bounds[t])
    for i in range(n_emit):
        u = emit_qrels[i]
        if u >= 0:
            judged = max(judged, q_bounds[u + 1] - q_bounds[u])
    if biggest + judged >= 1 << 30:
        raise ValueError("join_batch: a topic of 2**30 rows or more")
    cdef int64_t size = _table_size(biggest + judged)
    keys = np.empty(2 * biggest * sizeof(Key), dtype=np.uint8)
    ints = np.empty(biggest, dtype=np.int64)  # positions
    hit = np.empty(biggest, dtype=np.int32)  # each row's judgement (-1: none)
    places = np.empty(biggest, dtype=np.int32)  # the rows in trec_eval's order (in_order)
    entries = np.empty(size * sizeof(Slot), dtype=np.uint8)
    found = np.zeros(judged, dtype=np.uint8)  # 1: retrieved; 2: retrieved and kept
    cdef uint8_t[::1] kv = keys
    cdef int64_t[::1] iv = ints
    cdef int32_t[::1] hv = hit
    cdef int32_t[::1] lv = places
    cdef uint8_t[::1] ev = entries
    cdef uint8_t[::1] fv = found
    cdef Key* ka = <Key*>&kv[0]
    cdef Key* kt = ka + biggest
    cdef int64_t* pos = &iv[0]
    cdef int32_t* jof = &hv[0]
    cdef int32_t* loc = &lv[0]
    cdef double s0, s1
    cdef bint sorted_in, to_place
    cdef uint64_t b0 = 0, b1
    cdef Slot* table = <Slot*>&ev[0]
    cdef uint8_t* met = &fv[0]
    cdef const uint8_t* rb = &rbuf[0] if rbuf.shape[0] else NULL
    cdef const uint8_t* qbp = &qbuf[0]
    cdef bint with_src = src.shape[0] > 0
    cdef Order o
    o.buf = rb
    with nogil:
        for i in range(n_emit):
            t = emit_run[i]
            u = emit_qrels[i]
            kept = 0
            qb = q_bounds[u] if u >= 0 else 0
            n_j = q_bounds[u + 1] - qb if u >= 0 else 0
            m = bounds[t + 1] - bounds[t] if t >= 0 else 0
            lo = bounds[t] if t >= 0 else 0
            if t >= 0 or u >= 0:
                # the topic's judgements, then its documents, in one small table
                size = _table_size(n_j + m)
                mask = size - 1
                memset(table, 0xFF, size * sizeof(Slot))  # every row -1: empty
                for k in range(n_j):
                    j = q_order[qb + k]
                    h = _doc_hash(qbp, nq, q_start[j], q_len[j], hash_mask)
                    x = h & mask
                    while table[x].row >= 0:
                        x = (x + 1) & mask
                    table[x].row = <int32_t>k
                    table[x].tag = <uint32_t>(h >> 32)
                    met[k] = 0
            for c in range(m):  # file order
                r = order[lo + c]
                h = _doc_hash(rb, nr, dstart[r], dlen[r], hash_mask)
                tag = <uint32_t>(h >> 32)
                x = h & mask
                jof[c] = -1
                while table[x].row >= 0:
                    e = table[x].row
                    if table[x].tag == tag:
                        if e < n_j:
                            j = q_order[qb + e]
                            if q_len[j] == dlen[r] and \
                                    _same(qbp + q_start[j], rb + dstart[r], dlen[r]):
                                if met[e]:
                                    repeat = i
                                else:
                                    met[e] = 1
                                    jof[c] = <int32_t>e
                                break
                        else:
                            k = order[lo + e - n_j]
                            if dlen[k] == dlen[r] and \
                                    _same(rb + dstart[k], rb + dstart[r], dlen[r]):
                                repeat = i
                                break
                    x = (x + 1) & mask
                if repeat >= 0:
                    break
                if jof[c] < 0:
                    table[x].row = <int32_t>(n_j + c)
                    table[x].tag = tag
            if repeat >= 0:
                break
            sorted_in = False
            if m and sorted_fast and in_order and not with_src:
                # only the judged rows' places matter: a topic written in score order keeps
                # its order but in the runs of tied scores that hold a judged row or scores
                # of other bits (see _place); a score above the one before stops this (the
                # topic is then sorted whole)
                sorted_in = True
                g = 0
                to_place = jof[0] >= 0
                r = order[lo]
                s0 = s1 = _ranked(&score[0], r, f32)
                memcpy(&b0, &score[r], 8)
                b1 = b0
                loc[0] = 0
                for k in range(1, m + 1):
                    if k < m:
                        r = order[lo + k]
                        s1 = _ranked(&score[0], r, f32)
                        if s1 > s0:
                            sorted_in = False
                            break
                        memcpy(&b1, &score[r], 8)
                        loc[k] = <int32_t>k
                    if k == m or s1 != s0:
                        if k - g > 1 and to_place:
                            _keys(rb, rb + nr, &score[0], &dstart[0], &dlen[0],
                                  &order[lo + g], k - g, f32, ka + g, <int32_t>g)
                            _place(&o, ka + g, kt, k - g, jof, &score[0], &order[lo])
                            for x in range(g, k):
                                loc[x] = ka[x].local
                        g = k
                        to_place = False
                        s0, b0 = s1, b1
                    if k < m and (jof[k] >= 0 or b1 != b0):
                        to_place = True  # a judged row, or scores of other bits
            if m and not sorted_in:
                _keys(rb, rb + nr, &score[0], &dstart[0], &dlen[0], &order[lo], m, f32, ka)
                if not sorted_fast:
                    _sort(&o, ka, kt, m)
                elif not (in_order and not with_src):
                    _order(&o, ka, kt, m)
                else:  # written out of score order: sorted whole
                    _sort(&o, ka, kt, m)
                if in_order:
                    for k in range(m):
                        loc[k] = ka[k].local
                else:
                    for k in range(m):  # each row's rank in trec_eval's order
                        pos[ka[k].local] = k
            for c in range(m):
                if in_order:
                    p = c
                    k = loc[c]
                else:
                    k = c
                    p = pos[k]
                if max_docs > 0 and p >= max_docs:
                    continue
                r = order[lo + k]
                lab = 0.0
                e = jof[k]
                if e >= 0:
                    met[e] = 2
                    lab = <double>q_rel[q_order[qb + e]]
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
                if with_src:
                    src[out] = r
                out += 1
                kept += 1
            candidates[i] = kept
            n_un = 0
            for k in range(n_j):
                if met[k] == 2:
                    continue
                j = q_order[qb + k]
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
                if with_src:
                    src[out] = -1 - j
                out += 1
    return out, n_neg, first_neg, repeat
