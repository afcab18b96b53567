# The common case in one pass over the rows: contiguous queries, small integer labels,
# k <= 32. Included by ``_ranking.pyx``.
#
# ``evaluate_contiguous`` computes exactly what ``evaluate_grouped`` computes (same arithmetic
# in the same order, so the same bits; ``tests/metrics/test_fast_path.py`` checks it) when
#
# * the queries' rows are adjacent and every row is ranked (no ``retrieved`` mask);
# * labels are small integers indexing a gain table (the usual graded labels 0..4, or
#   LightGBM's ``label_gain``);
# * the tie rule is not "docid";
# * every cutoff is between 1 and ``SMALL_K`` (or the metric is RR, which needs no cutoff).
#
# Per query:
#
# 1. One pass over the rows checks each score and label, counts the labels (the ideal ranking
#    and the number of relevant documents follow from the counts; labels 0..7 are counted in
#    the bytes of one integer) and copies the rows to a small local buffer. Every later pass
#    reads that buffer: reading the large input arrays a second time is several times slower.
# 2. A threshold that at least k rows reach is found by interpolation between the lowest and
#    the highest score, each step counting the rows above a trial value; the rows above it
#    (about 1.2 k) are compacted and ranked by counting. None of these loops branches on the
#    data: on a branchy selection (an insertion-sorted buffer) mispredicted branches cost more
#    than all the rest. Heavy ties (more than ``MAX_CANDIDATES`` candidates) take the general
#    kernel's selection (an insertion-sorted buffer).
# 3. The metrics come from the labels of the ranked rows; RR and the tie flags use counting
#    passes too.
#
# It stops at the first row that is not a finite score with a label in
# ``0 .. len(gain_table) - 1`` and returns it; the caller then runs the full validation, which
# raises the precise error (or takes the general kernel, e.g. for fractional labels).

# largest cutoff the one-pass kernel takes (larger ones, and no cutoff, go to the general one)
cdef enum:
    FAST_MAX_K = 32
# candidates up to this many are ranked by counting (quadratic, but free of data-dependent
# branches); more (heavy ties) go through the general kernel's insertion-sorted buffer
cdef enum:
    MAX_CAND = 64


cdef struct FastBuffers:
    int64_t* bl     # the query's label indices (its scores: ``bs``)
    int64_t* hl     # the best rows' labels, best first (scores: ``hs``)
    int64_t* cand   # rows at or above the threshold: positions, labels, tie keys
    int64_t* cl
    int64_t* ck
    int64_t* hp     # heavy ties: positions
    int64_t* ht     # heavy ties: tie keys (zeros)
    double* ideal
    int64_t* counts
    int64_t* lbuf   # ties="average": the labels of the last tie group, then scratch
    Py_ssize_t lbuf_len
    double* prodbuf
    int64_t* identity
    double* disc


cdef inline Py_ssize_t _count_at_least(const score_t* values, Py_ssize_t n,
                                       double t) noexcept nogil:
    cdef Py_ssize_t c = 0, i
    for i in range(n):
        c += values[i] >= t
    return c


cdef Py_ssize_t _candidates(const score_t* values, const int64_t* labels, Py_ssize_t n,
                            Py_ssize_t k, double v_min, double v_max, score_t* cand_values,
                            int64_t* cand_labels, int64_t* cand) noexcept nogil:
    """Values at or above a threshold that at least ``k`` values reach, with their labels and
    positions.

    The threshold is found by interpolation between the lowest and the highest value (each
    step counts the values at or above a trial threshold, a loop without data-dependent
    branches), aiming at about 1.2 k candidates, in at most 8 steps. Returns their number;
    when that is more than ``MAX_CAND``, nothing is written.
    """
    cdef double t_lo = v_min  # every value reaches it
    cdef Py_ssize_t c_lo = n
    # above the top: no value reaches it (the guess c_hi = 0 only steers the interpolation;
    # every threshold kept as t_lo is counted)
    cdef double t_hi = v_max, t
    cdef Py_ssize_t c_hi = 0, c, i, step
    cdef score_t v
    for step in range(8):
        if c_lo <= k + k // 2 + 1:
            break
        t = t_hi - (t_hi - t_lo) * ((1.2 * k - c_hi) / <double>(c_lo - c_hi))
        if not (t > t_lo and t <= t_hi):
            break
        c = _count_at_least(values, n, t)
        if c >= k:
            t_lo = t
            c_lo = c
        else:
            t_hi = t
            c_hi = c
    if c_lo > MAX_CAND:
        return c_lo
    c = 0
    for i in range(n):
        v = values[i]
        cand_values[c] = v
        cand_labels[c] = labels[i]
        cand[c] = i
        c += v >= t_lo
    return c


cdef void _rank(const score_t* cs, const int64_t* ck, const int64_t* cl, Py_ssize_t n_cand,
                score_t* hs, int64_t* hl) noexcept nogil:
    """Sort the candidates (scores ``cs``, distinct tie keys ``ck``) into hs/hl by counting.

    A candidate's rank is the number of candidates with a higher score, or an equal score and
    a smaller tie key.
    """
    cdef Py_ssize_t i, j, rank
    cdef score_t si
    cdef int64_t ki
    for i in range(n_cand):
        si = cs[i]
        ki = ck[i]
        rank = 0
        for j in range(n_cand):
            rank += (cs[j] > si) | ((cs[j] == si) & (ck[j] < ki))
        hs[rank] = si
        hl[rank] = cl[i]


cdef double _reciprocal_rank(const score_t* scores, const int64_t* labels, Py_ssize_t n,
                             Py_ssize_t k, int tie_mode, double rel_min,
                             uint8_t* affected) noexcept nogil:
    """RR@k (k = 0: no cutoff) and its tie flag, as the general kernel computes them.

    Counting passes instead of comparisons that branch on the data: the first relevant row
    has the best relevant score ``m``; rows above ``m`` rank before it, and so do rows scoring
    ``m`` that the tie rule puts first (pessimistic: lower labels; optimistic: none, since a
    higher label would be relevant too; input: earlier rows).
    """
    # float minima and maxima, and adding 0 or +-inf by table lookup, keep these loops free
    # of branches (a conditional select on a loop-carried value would become one)
    cdef double mask_up[2]
    cdef double mask_down[2]
    mask_up[0] = INFINITY
    mask_up[1] = 0.0
    mask_down[0] = -INFINITY
    mask_down[1] = 0.0
    cdef double m = -INFINITY, v, best_label = INFINITY, first_rel = INFINITY, lab, pos
    cdef Py_ssize_t i, n_above = 0, g = 0, g_rel = 0, before = 0, rank
    cdef Py_ssize_t tied, rel
    for i in range(n):
        v = scores[i] + mask_down[labels[i] >= rel_min]
        m = v if v > m else m
    if m == -INFINITY:
        affected[0] = False
        return 0.0
    for i in range(n):
        tied = scores[i] == m
        rel = tied & (labels[i] >= rel_min)
        n_above += scores[i] > m
        g += tied
        g_rel += rel
        lab = labels[i] + mask_up[rel]
        best_label = lab if lab < best_label else best_label
        pos = i + mask_up[rel]
        first_rel = pos if pos < first_rel else first_rel
    if tie_mode == TIE_PESSIMISTIC:
        for i in range(n):
            before += (scores[i] == m) & (labels[i] < best_label)
    elif tie_mode != TIE_OPTIMISTIC and tie_mode != TIE_AVERAGE:
        for i in range(<Py_ssize_t>first_rel):
            before += scores[i] == m
    affected[0] = g > g_rel and g_rel > 0
    if tie_mode == TIE_AVERAGE:
        return expected_rr(n_above, g, g_rel, k)
    rank = n_above + before + 1
    if k > 0 and rank > k:
        return 0.0
    return 1.0 / rank


cdef Py_ssize_t _contiguous(const int64_t* offsets, Py_ssize_t n_q, const in_label_t* labels,
                            const score_t* scores, int tie_mode, const double* gain_table,
                            Py_ssize_t n_labels, const int64_t* gain_order, double rel_min,
                            double err_scale, int ap_den, bint p_min_kn, const int64_t* kinds,
                            const int64_t* ks, Py_ssize_t m, Py_ssize_t k_sort,
                            Py_ssize_t k_ideal, bint terms_times_inverse, double* values,
                            uint8_t* empty, uint8_t* ties, FastBuffers* f, score_t* bs,
                            score_t* hs, score_t* cs) noexcept nogil:
    cdef bint average = tie_mode == TIE_AVERAGE
    cdef bint pess = tie_mode == TIE_PESSIMISTIC  # average ranks ties by input first
    cdef bint opt = tie_mode == TIE_OPTIMISTIC
    cdef bint monotone = True  # gains never decrease with the label (exp, linear, LightGBM's)
    cdef Py_ssize_t q, lo, hi, n, kq, block, bend, r, c, i, t, j, n_cand, n_last, n_last_in
    cdef Py_ssize_t n_rel, n_ideal, n_top, last_start, last_total, first_mixed, start, kk
    cdef int64_t li, max_label, cnt, last_lo, last_hi, same, pair
    cdef uint64_t packed
    cdef bint bad, wrong, continues, graded
    cdef double nan, s_min, s_max, max_gain, last_score
    cdef in_label_t lab
    cdef score_t sc
    cdef int kind
    cdef Py_ssize_t k
    for c in range(1, n_labels):
        if gain_table[c] < gain_table[c - 1]:
            monotone = False
    for q in range(n_q):
        lo = offsets[q]
        hi = offsets[q + 1]
        n = hi - lo
        kq = min(k_sort, n)

        # pass 1: check each row, count its label, copy it, find the score range. Labels 0..7
        # are counted in the bytes of one integer (no store-to-load chain through memory when
        # neighbouring rows share a label), flushed every 255 rows. Bad rows are noted, not
        # branched on, and looked for once per block: a label outside the table sets ``bad``,
        # a NaN or infinite score makes ``nan`` NaN (``score * 0`` is NaN for them and 0 for
        # finite scores).
        max_label = 0
        s_min = INFINITY
        s_max = -INFINITY
        for block in range(lo, hi, 255):
            packed = 0
            bad = False
            nan = 0.0
            bend = min(block + 255, hi)
            for r in range(block, bend):
                lab = labels[r]
                sc = scores[r]
                if in_label_t is float or in_label_t is double:
                    # never converts a float outside the table's range
                    li = <int64_t>lab if (lab >= 0) & (lab < n_labels) else 0
                    wrong = li != lab
                else:  # one unsigned comparison catches negatives too
                    li = lab
                    wrong = <uint64_t>li >= <uint64_t>n_labels
                bad |= wrong
                nan += sc * 0.0
                if <uint64_t>li < 8:
                    packed += (<uint64_t>1) << (li << 3)
                elif not wrong:
                    f.counts[li] += 1
                    max_label = max(max_label, li)
                bs[r - lo] = sc
                f.bl[r - lo] = li
                s_min = sc if sc < s_min else s_min
                s_max = sc if sc > s_max else s_max
            if bad or nan != 0.0:  # the first bad row of the block (earlier blocks are clean)
                for r in range(block, bend):
                    lab = labels[r]
                    sc = scores[r]
                    if not (lab >= 0 and lab < n_labels) or sc - sc != 0.0:
                        return r
                    if <int64_t>lab != lab:
                        return r
            for c in range(8):
                cnt = <int64_t>((packed >> (c << 3)) & 255)
                f.counts[c] += cnt
                max_label = c if (cnt > 0 and c > max_label) else max_label

        # the best kq rows in rank order into hs/hl; ``continues``: a row left out ties with
        # the last one taken
        continues = False
        if kq > 0:
            n_cand = _candidates(bs, f.bl, n, kq, s_min, s_max, cs, f.cl, f.cand)
            if n_cand <= MAX_CAND:
                # tie keys: lower labels first (pessimistic), higher first (optimistic), then
                # input position
                if pess:
                    for i in range(n_cand):
                        f.ck[i] = f.cl[i] * n + f.cand[i]
                elif opt:
                    for i in range(n_cand):
                        f.ck[i] = (n_labels - 1 - f.cl[i]) * n + f.cand[i]
                else:
                    for i in range(n_cand):
                        f.ck[i] = f.cand[i]
                _rank(cs, f.ck, f.cl, n_cand, hs, f.hl)
                continues = n_cand > kq and hs[kq] == hs[kq - 1]
            else:
                # heavy ties: the general kernel's selection (an insertion-sorted buffer),
                # then whether a row left out shares the last selected score
                select_top(n, kq, bs, f.bl, f.ht, False,
                           tie_mode if not average else TIE_INPUT, f.hp, hs, f.hl, f.ht)
                n_last = 0
                for i in range(n):
                    n_last += bs[i] == hs[kq - 1]
                n_last_in = 0
                for i in range(kq):
                    n_last_in += hs[i] == hs[kq - 1]
                continues = n_last > n_last_in

        # labels: relevant count, the largest gain, the ideal ranking (counts of labels above
        # max_label are zero)
        n_rel = 0
        max_gain = 0.0
        for c in range(max_label + 1):
            if f.counts[c] > 0:
                if c >= rel_min:
                    n_rel += f.counts[c]
                if gain_table[c] > max_gain:
                    max_gain = gain_table[c]
        n_ideal = 0
        if k_ideal > 0:
            for i in range(n_labels):
                # gains in decreasing order: by label downwards when the table is monotone
                c = max_label - i if monotone else gain_order[i]
                if c < 0:
                    break
                if c > max_label:
                    continue
                cnt = f.counts[c]
                while cnt > 0 and n_ideal < k_ideal:
                    f.ideal[n_ideal] = gain_table[c]
                    n_ideal += 1
                    cnt -= 1
                if n_ideal == k_ideal:
                    break
        for c in range(max_label + 1):
            f.counts[c] = 0

        # the tie group of the last buffered score: does it continue outside the buffer, and
        # are its labels mixed?
        n_top = kq
        last_score = hs[n_top - 1] if n_top > 0 else 0.0
        last_start = n_top
        while last_start > 0 and hs[last_start - 1] == last_score:
            last_start -= 1
        last_lo = 0
        last_hi = 0
        if n_top > 0:
            last_lo = f.hl[n_top - 1]
            last_hi = last_lo
            for t in range(last_start, n_top):
                last_lo = min(last_lo, f.hl[t])
                last_hi = max(last_hi, f.hl[t])
            if continues:
                for i in range(n):
                    if bs[i] == last_score:
                        last_lo = min(last_lo, f.bl[i])
                        last_hi = max(last_hi, f.bl[i])
        # ties="average": the labels of the whole last group, in input order, as the general
        # kernel collects them
        last_total = n_top - last_start
        if average and continues:
            last_total = 0
            for i in range(n):
                if bs[i] == last_score:
                    f.lbuf[last_total] = f.bl[i]
                    last_total += 1
        elif average:  # the group lies in the buffer, in input order already
            for t in range(last_total):
                f.lbuf[t] = f.hl[last_start + t]

        # the start of the first tie group (inside the buffer) whose labels are mixed
        first_mixed = n_top
        start = 0
        for i in range(1, n_top):
            same = hs[i] == hs[i - 1]
            start = i - (i - start) * same  # arithmetic selects: no data-dependent branch
            pair = same & (f.hl[i] != f.hl[i - 1])
            first_mixed = min(first_mixed, n_top - (n_top - start) * pair)

        for j in range(m):
            kind = kinds[j]
            k = ks[j]
            graded = kind == KIND_NDCG or kind == KIND_DCG
            empty[q * m + j] = (max_gain <= 0.0) if graded else (n_rel == 0)
            if kind == KIND_RR:
                values[q * m + j] = _reciprocal_rank(bs, f.bl, n, k, tie_mode, rel_min,
                                                     &ties[q * m + j])
                continue
            kk = min(k, n)
            if average:
                # the general kernel's expectation over the orders of tied rows, on the
                # ranked buffer (positions 0..kq-1 in place of row ids)
                values[q * m + j] = expected(
                    kind, kk, k, f.identity, n_top, last_start, last_total, f.lbuf,
                    f.lbuf_len, hs, f.hl, GAIN_TABLE, gain_table, rel_min, err_scale, ap_den,
                    p_min_kn, n, n_rel, f.disc, f.ideal, n_ideal, f.prodbuf,
                )
            else:
                values[q * m + j] = exact(
                    kind, kk, k, f.hl, GAIN_TABLE, gain_table, rel_min, err_scale, ap_den,
                    p_min_kn, n, n_rel, f.disc, f.ideal, n_ideal, terms_times_inverse,
                )
            # did a tie with mixed labels fall inside the top kk (P, R, hit rate: across kk)?
            if kind == KIND_P or kind == KIND_R or kind == KIND_HIT:
                ties[q * m + j] = tie_affected(True, hs, f.hl, kk, n_top, last_score,
                                               continues, last_lo, last_hi)
            else:
                ties[q * m + j] = first_mixed < kk or (last_start < kk and last_hi != last_lo)
    return -1


def evaluate_contiguous(
    const int64_t[::1] offsets,
    const in_label_t[::1] labels,
    const score_t[::1] scores,
    int tie_mode,
    const double[::1] gain_table,
    const int64_t[::1] gain_order,
    double rel_min,
    double err_scale,
    int ap_den,
    bint p_min_kn,
    const int64_t[::1] kinds,
    const int64_t[::1] ks,
    bint terms_times_inverse,
    double[:, ::1] values,
    empty,
    ties,
):
    """Evaluate ``kinds``/``ks`` on queries ``offsets``; write ``values``, ``empty``, ``ties``.

    ``labels`` are integers (8 to 64 bits, unsigned up to 32) or integer-valued floats,
    ``scores`` float64 or float32. Returns -1,
    or the first row whose score is not finite or whose label is not an integer in
    ``0 .. len(gain_table) - 1`` (the outputs are then incomplete). The loop releases the GIL.
    """
    cdef Py_ssize_t n_q = offsets.shape[0] - 1, m = kinds.shape[0], j, q
    cdef Py_ssize_t k_sort = 0, k_ideal = 0, max_n = 1
    cdef uint8_t[:, ::1] v_empty = _as_u8(empty)
    cdef uint8_t[:, ::1] v_ties = _as_u8(ties)
    if n_q <= 0:
        return -1
    for j in range(m):  # one sorted prefix serves every metric but RR
        if kinds[j] != KIND_RR and ks[j] > k_sort:
            k_sort = ks[j]
        if kinds[j] == KIND_NDCG and ks[j] > k_ideal:
            k_ideal = ks[j]
    for q in range(n_q):
        max_n = max(max_n, offsets[q + 1] - offsets[q])
    cdef bint average = tie_mode == TIE_AVERAGE, err = False
    for j in range(m):
        err = err or kinds[j] == KIND_ERR
    cdef Py_ssize_t n_head = max(k_sort + 1, MAX_CAND)
    # the candidates' compaction writes at most MAX_CAND + 1 entries (it runs only when that
    # many rows reach the threshold)
    cdef Py_ssize_t n_cand_buf = MAX_CAND + 1
    sdtype = np.float32 if score_t is float else np.float64
    bs = np.empty(max_n, dtype=sdtype)
    hs = np.empty(n_head, dtype=sdtype)
    cs = np.empty(n_cand_buf, dtype=sdtype)
    ints = np.zeros(max_n + 2 * n_cand_buf + 2 * n_head + MAX_CAND + 2 * max(k_sort, 1)
                    + max(gain_table.shape[0], 8) + (2 * max_n + 2 if average else 0),
                    dtype=np.int64)
    floats = np.empty(max(k_ideal, 1) + (6 * max_n + 6 if average and err else 0) + FAST_MAX_K,
                      dtype=np.float64)
    cdef score_t[::1] v_bs = bs, v_hs = hs, v_cs = cs
    cdef int64_t[::1] v_ints = ints
    cdef double[::1] v_floats = floats
    cdef int64_t* ip = &v_ints[0]
    cdef double* fp = &v_floats[0]
    cdef FastBuffers f
    # carve the scratch arrays out of two blocks
    f.bl = ip
    ip += max_n
    f.cand = ip
    ip += n_cand_buf
    f.cl = ip
    ip += n_cand_buf
    f.hl = ip
    ip += n_head
    f.identity = ip
    for j in range(n_head):
        f.identity[j] = j
    ip += n_head
    f.ck = ip
    ip += MAX_CAND
    f.hp = ip
    ip += max(k_sort, 1)
    f.ht = ip  # zeros
    ip += max(k_sort, 1)
    f.counts = ip  # zeros
    ip += max(gain_table.shape[0], 8)
    f.lbuf = ip
    f.lbuf_len = 2 * max_n + 2 if average else 0
    f.disc = fp
    fill_discounts(fp, FAST_MAX_K)
    fp += FAST_MAX_K
    f.ideal = fp
    fp += max(k_ideal, 1)
    f.prodbuf = fp
    cdef Py_ssize_t bad
    with nogil:
        bad = _contiguous(
            &offsets[0], n_q, &labels[0], &scores[0], tie_mode, &gain_table[0],
            gain_table.shape[0], &gain_order[0], rel_min, err_scale, ap_den, p_min_kn,
            &kinds[0], &ks[0], m, k_sort, k_ideal, terms_times_inverse, &values[0, 0],
            &v_empty[0, 0], &v_ties[0, 0], &f, &v_bs[0], &v_hs[0], &v_cs[0],
        )
    return bad
