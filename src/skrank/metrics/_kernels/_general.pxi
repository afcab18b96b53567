# The general kernel: any layout of rows, a ``retrieved`` mask, fractional labels, any
# cutoff, every tie rule. Included by ``_ranking.pyx``.
#
# Layout of the inputs: ``rows`` lists row indices query by query (``offsets`` delimits
# queries; empty when the queries are already contiguous). ``retrieved`` (bool, or empty)
# marks rows that take part in the ranking; the others are judged rows of the pool that only
# feed the ideal DCG and the number of relevant documents when ``pool`` is set.

cdef struct Scratch:
    # per-call buffers, sized for the largest query
    int64_t* top
    double* gbuf
    double* ibuf
    double* lbuf
    Py_ssize_t lbuf_len
    double* prodbuf
    double* hl
    int64_t* ht
    int64_t* counts
    Py_ssize_t n_counts


cdef struct Setup:
    # the conventions of one call, as kernel codes
    int tie_mode
    int bound  # -1/+1: the low/high end of the tie range (TIE_LOW/TIE_HIGH), else 0
    int gain_mode
    const double* gain_table
    const int64_t* gain_order
    Py_ssize_t n_gains
    double rel_min
    double err_scale
    int ap_den
    bint p_min_kn
    const int64_t* kinds
    const int64_t* ks
    Py_ssize_t m
    const double* disc
    bint terms_times_inverse


cdef void _query(const score_t* qs, const double* ql, const int64_t* qt, Py_ssize_t n,
                 bint use_key, const double* pool_extra, Py_ssize_t n_pool,
                 const Setup* st, double* out_val, uint8_t* out_empty, uint8_t* out_ties,
                 Scratch* b, score_t* hs) noexcept nogil:
    """Evaluate every metric of one query; results go to ``out_*[j]`` for metric j.

    ``qs``, ``ql``, ``qt``: scores, labels and tie keys of the ranked rows, in input order
    (positions are the last tie-break). ``pool_extra``: labels of judged rows that were not
    ranked but belong to the ideal ranking (``idcg="pool"``).
    """
    cdef Py_ssize_t j, kk, k, c, part, n_src, n_top, last_total, last_start, i
    cdef Py_ssize_t k_ideal = 0, k_sort = 0, n_rel_src = 0, n_ideal = 0, src_n
    cdef double max_gain = 0.0, g, lab, last_score, last_lo, last_hi
    cdef int kind, sort_mode
    cdef int64_t li
    cdef const double* src
    cdef bint graded
    # cutoffs: the ideal ranking for NDCG, one shared ordering for every metric but RR
    for j in range(st.m):
        kk = st.ks[j] if st.ks[j] > 0 else n + n_pool
        if st.kinds[j] == KIND_NDCG and kk > k_ideal:
            k_ideal = kk
        if st.kinds[j] != KIND_RR and kk > k_sort:
            k_sort = kk
    # the source of the ideal ranking and of the number of relevant documents
    if st.gain_mode == GAIN_TABLE:
        # integer labels: count them; the ideal ranking follows from the counts
        if k_ideal > 0:
            for c in range(b.n_counts):
                b.counts[c] = 0
        for part in range(2):
            src = ql if part == 0 else pool_extra
            src_n = n if part == 0 else n_pool
            for j in range(src_n):
                lab = src[j]
                g = st.gain_table[<Py_ssize_t>lab]
                if g > max_gain:
                    max_gain = g
                if lab >= st.rel_min:
                    n_rel_src += 1
                if k_ideal > 0:
                    b.counts[<Py_ssize_t>lab] += 1
        if k_ideal > 0:
            for j in range(st.n_gains):
                li = st.gain_order[j]
                c = b.counts[li]
                while c > 0 and n_ideal < k_ideal:
                    b.ibuf[n_ideal] = st.gain_table[li]
                    n_ideal += 1
                    c -= 1
                if n_ideal == k_ideal:
                    break
    else:
        n_src = 0
        for part in range(2):
            src = ql if part == 0 else pool_extra
            src_n = n if part == 0 else n_pool
            for j in range(src_n):
                lab = src[j]
                g = gain_of(lab, st.gain_mode, st.gain_table)
                b.gbuf[n_src] = g
                n_src += 1
                if g > max_gain:
                    max_gain = g
                if lab >= st.rel_min:
                    n_rel_src += 1
        n_ideal = top_values(b.gbuf, n_src, k_ideal, b.ibuf)

    # ordering of the ranked rows
    k_sort = min(k_sort, n)
    sort_mode = st.tie_mode if st.tie_mode != TIE_AVERAGE else TIE_INPUT  # ties by input first
    n_top = select_top(n, k_sort, qs, ql, qt, use_key, sort_mode, b.top, hs, b.hl, b.ht)

    # the tie group at the end of the selected prefix may continue beyond it
    last_score = qs[b.top[n_top - 1]] if n_top > 0 else 0.0
    last_total = 0  # size of the whole group with the last selected score
    last_lo = 0.0
    last_hi = 0.0
    if n_top > 0:
        last_lo = ql[b.top[n_top - 1]]
        last_hi = last_lo
        for j in range(n):
            if qs[j] == last_score:
                lab = ql[j]
                if st.tie_mode == TIE_AVERAGE:
                    b.lbuf[last_total] = lab
                last_total += 1
                last_lo = min(last_lo, lab)
                last_hi = max(last_hi, lab)
    last_start = n_top
    while last_start > 0 and qs[b.top[last_start - 1]] == last_score:
        last_start -= 1

    for j in range(st.m):
        kind = st.kinds[j]
        k = st.ks[j]
        kk = n if k == 0 else min(k, n)
        graded = kind == KIND_NDCG or kind == KIND_DCG
        out_empty[j] = (max_gain <= 0.0) if graded else (n_rel_src == 0)
        if kind == KIND_RR:
            out_val[j] = _rr(n, k, qs, ql, qt, use_key, st.tie_mode, st.rel_min, &out_ties[j])
            continue
        if st.tie_mode == TIE_AVERAGE:
            out_val[j] = expected(
                kind, kk, k, b.top, n_top, last_start, last_total, b.lbuf, b.lbuf_len, qs, ql,
                st.gain_mode, st.gain_table, st.rel_min, st.err_scale, st.ap_den,
                st.p_min_kn, n, n_rel_src, st.disc, b.ibuf, n_ideal, b.prodbuf,
            )
        else:
            out_val[j] = exact(  # hl: the selected labels in rank order
                kind, kk, k, b.hl, st.gain_mode, st.gain_table, st.rel_min, st.err_scale,
                st.ap_den, st.p_min_kn, n, n_rel_src, st.disc, b.ibuf, n_ideal,
                st.terms_times_inverse,
            )
            if st.bound != 0 and kind == KIND_AP and st.ap_den == AP_FOUND:
                out_val[j] = ap_found_extreme(st.bound, kk, n, hs, b.hl, qs, ql, st.rel_min,
                                              out_val[j])
        # did a tie with mixed labels fall inside the top kk (P, R, hit rate: across kk)?
        out_ties[j] = tie_affected(
            kind == KIND_P or kind == KIND_R or kind == KIND_HIT, hs, b.hl, kk, n_top,
            last_score, last_total > n_top - last_start, last_lo, last_hi,
        )


cdef double _rr(Py_ssize_t n, Py_ssize_t k, const score_t* qs, const double* ql,
                const int64_t* qt, bint use_key, int tie_mode, double rel_min,
                uint8_t* affected) noexcept nogil:
    """Reciprocal rank in O(n): the best relevant row and how many rows rank before it."""
    cdef Py_ssize_t best = -1, r, n_before = 0, g = 0, g_rel = 0, rank
    cdef double s, lb
    cdef int64_t tb
    for r in range(n):
        if ql[r] >= rel_min:
            if best < 0:
                best = r
            elif tie_mode == TIE_AVERAGE:
                if qs[r] > qs[best]:
                    best = r
            elif before_key(qs[r], ql[r], qt[r] if use_key else 0, r, qs[best], ql[best],
                            qt[best] if use_key else 0, best, tie_mode):
                best = r
    if best < 0:
        affected[0] = False
        return 0.0
    s = qs[best]
    lb = ql[best]
    tb = qt[best] if use_key else 0
    for r in range(n):
        if qs[r] > s:
            n_before += 1
        elif qs[r] == s:
            g += 1
            if ql[r] >= rel_min:
                g_rel += 1
            if tie_mode != TIE_AVERAGE and before_key(s, ql[r], qt[r] if use_key else 0, r,
                                                      s, lb, tb, best, tie_mode):
                n_before += 1
    affected[0] = g > g_rel and g_rel > 0
    if tie_mode != TIE_AVERAGE:
        rank = n_before + 1
        if k > 0 and rank > k:
            return 0.0
        return 1.0 / rank
    return expected_rr(n_before, g, g_rel, k)


cdef void _grouped(const int64_t* rows, const int64_t* offsets, Py_ssize_t n_q,
                   bint contiguous, const double* labels, const score_t* scores,
                   const int64_t* tiekey, bint use_key, const uint8_t* retrieved,
                   bint has_retrieved, bint pool, const Setup* st, double* values,
                   uint8_t* empty, uint8_t* ties, Scratch* b, score_t* hs, score_t* bs,
                   double* bl, int64_t* bt, double* bp) noexcept nogil:
    cdef Py_ssize_t q, lo, hi, n, n_pool, j
    cdef size_t r
    cdef bint in_place = contiguous and not has_retrieved
    cdef const score_t* qs
    cdef const double* ql
    cdef const int64_t* qt
    for q in range(n_q):
        lo = offsets[q]
        hi = offsets[q + 1]
        if in_place:
            qs = scores + lo
            ql = labels + lo
            qt = tiekey + lo if use_key else tiekey
            n = hi - lo
            n_pool = 0
        else:
            n = 0
            n_pool = 0
            for j in range(lo, hi):
                r = <size_t>(j if contiguous else rows[j])
                if has_retrieved and not retrieved[r]:
                    if pool:
                        bp[n_pool] = labels[r]
                        n_pool += 1
                    continue
                bs[n] = scores[r]
                bl[n] = labels[r]
                if use_key:
                    bt[n] = tiekey[r]
                n += 1
            qs = bs
            ql = bl
            qt = bt if use_key else tiekey
        _query(qs, ql, qt, n, use_key, bp, n_pool, st, values + q * st.m, empty + q * st.m,
               ties + q * st.m, b, hs)


def evaluate_grouped(
    const int64_t[::1] rows,
    const int64_t[::1] offsets,
    bint contiguous,
    const double[::1] labels,
    const score_t[::1] scores,
    const int64_t[::1] tiekey,
    retrieved,
    bint pool,
    int tie_mode,
    int gain_mode,
    const double[::1] gain_table,
    const int64_t[::1] gain_order,
    double rel_min,
    double err_scale,
    int ap_den,
    bint p_min_kn,
    const int64_t[::1] kinds,
    const int64_t[::1] ks,
    Py_ssize_t max_query,
    bint terms_times_inverse,
):
    """Evaluate ``kinds``/``ks`` on every query; returns values, empty flags, tie flags.

    ``rows`` lists row indices query by query, or is empty when ``contiguous``. Contiguous
    queries without a ``retrieved`` mask are read in place; otherwise each query's rows are
    first gathered into local buffers. The loop releases the GIL so that callers may run
    chunks of queries in threads; it never uses OpenMP, whose pool LightGBM and XGBoost
    share (resizing it changes their results' last bits).
    """
    cdef Py_ssize_t n_q = offsets.shape[0] - 1, m = kinds.shape[0]
    values_arr = np.empty((n_q, m), dtype=np.float64)
    empty_arr = np.zeros((n_q, m), dtype=np.uint8)
    ties_arr = np.zeros((n_q, m), dtype=np.uint8)
    if n_q == 0:
        return values_arr, empty_arr.view(np.bool_), ties_arr.view(np.bool_)
    cdef Py_ssize_t size = max(max_query, 1), j, kj
    cdef const uint8_t[::1] ret = _as_u8(retrieved)
    cdef bint has_retrieved = ret.shape[0] > 0
    cdef bint use_key = tiekey.shape[0] > 0
    cdef bint in_place = contiguous and not has_retrieved
    cdef bint average = tie_mode == TIE_AVERAGE, err = False
    # scratch sized by what the metrics need: the selected prefix (the largest cutoff, or the
    # whole query for a metric without one), the ideal ranking (NDCG's largest cutoff); the
    # buffers of tie averaging and of fractional labels only when used
    cdef Py_ssize_t sel = 1, kid = 1
    for j in range(m):
        kj = min(ks[j], size) if ks[j] > 0 else size
        if kinds[j] != KIND_RR:
            sel = max(sel, kj)
        if kinds[j] == KIND_NDCG:
            kid = max(kid, kj)
        err = err or kinds[j] == KIND_ERR
    disc = np.empty(max(sel, kid), dtype=np.float64)
    top = np.empty(sel, dtype=np.int64)
    gbuf = np.empty(size if gain_mode != GAIN_TABLE else 1, dtype=np.float64)
    ibuf = np.empty(kid, dtype=np.float64)
    lbuf = np.empty(2 * size + 2 if average else 2, dtype=np.float64)
    prodbuf = np.empty(6 * size + 6 if average and err else 1, dtype=np.float64)
    hs = np.empty(sel, dtype=np.float32 if score_t is float else np.float64)
    hl = np.empty(sel, dtype=np.float64)
    ht = np.empty(sel, dtype=np.int64)
    counts = np.zeros(max(gain_table.shape[0], 1), dtype=np.int64)
    bs = np.empty(0 if in_place else size, dtype=hs.dtype)
    bl = np.empty(0 if in_place else size, dtype=np.float64)
    bt = np.empty(size if use_key and not in_place else 0, dtype=np.int64)
    bp = np.empty(size if pool and has_retrieved else 1, dtype=np.float64)
    cdef double[::1] v_disc = disc, v_gbuf = gbuf, v_ibuf = ibuf, v_lbuf = lbuf
    cdef double[::1] v_prod = prodbuf, v_hl = hl, v_bl = bl, v_bp = bp
    cdef int64_t[::1] v_top = top, v_ht = ht, v_counts = counts, v_bt = bt
    cdef score_t[::1] v_hs = hs, v_bs = bs
    cdef double[:, ::1] v_values = values_arr
    cdef uint8_t[:, ::1] v_empty = empty_arr, v_ties = ties_arr
    cdef Scratch b
    cdef Setup st
    fill_discounts(&v_disc[0], v_disc.shape[0])
    b.top = &v_top[0]
    b.gbuf = &v_gbuf[0]
    b.ibuf = &v_ibuf[0]
    b.lbuf = &v_lbuf[0]
    b.lbuf_len = v_lbuf.shape[0]
    b.prodbuf = &v_prod[0]
    b.hl = &v_hl[0]
    b.ht = &v_ht[0]
    b.counts = &v_counts[0]
    b.n_counts = v_counts.shape[0]
    st.tie_mode = tie_mode
    st.bound = 0
    if tie_mode == TIE_LOW:
        st.tie_mode = TIE_PESSIMISTIC
        st.bound = -1
    elif tie_mode == TIE_HIGH:
        st.tie_mode = TIE_OPTIMISTIC
        st.bound = 1
    st.gain_mode = gain_mode
    st.gain_table = &gain_table[0]
    st.gain_order = &gain_order[0] if gain_order.shape[0] else NULL
    st.n_gains = gain_order.shape[0]
    st.rel_min = rel_min
    st.err_scale = err_scale
    st.ap_den = ap_den
    st.p_min_kn = p_min_kn
    st.kinds = &kinds[0]
    st.ks = &ks[0]
    st.m = m
    st.disc = &v_disc[0]
    st.terms_times_inverse = terms_times_inverse
    with nogil:
        _grouped(
            &rows[0] if rows.shape[0] else NULL, &offsets[0], n_q, contiguous, &labels[0],
            &scores[0], &tiekey[0] if use_key else NULL, use_key,
            &ret[0] if has_retrieved else NULL, has_retrieved, pool, &st,
            &v_values[0, 0], &v_empty[0, 0], &v_ties[0, 0], &b, &v_hs[0],
            &v_bs[0] if v_bs.shape[0] else NULL, &v_bl[0] if v_bl.shape[0] else NULL,
            &v_bt[0] if v_bt.shape[0] else NULL, &v_bp[0],
        )
    return values_arr, empty_arr.view(np.bool_), ties_arr.view(np.bool_)
