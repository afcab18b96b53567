# Per-query metric kernels over grouped flat arrays (no validation). Included by
# ``_ranking.pyx``.
#
# Everything here trusts its inputs: validation, defaults and conventions are resolved by
# :mod:`skrank.metrics`. One call evaluates several metrics that share one ordering per
# query. Integer divisions are written as float divisions of converted operands, in the order
# of the Python expressions they replace, so the results are the same bits as before.

# metric kinds (named for Python by KINDS in _ranking_body.pxi, the names of
# skrank.metrics._spec.METRIC_NAMES)
cdef enum:
    KIND_NDCG = 0
    KIND_DCG = 1
    KIND_P = 2
    KIND_R = 3
    KIND_HIT = 4
    KIND_AP = 5
    KIND_RR = 6
    KIND_ERR = 7

# gain modes
cdef enum:
    GAIN_EXP = 0
    GAIN_LINEAR = 1
    GAIN_TABLE = 2

# AP denominators
cdef enum:
    AP_ALL = 0
    AP_MIN_K = 1
    AP_FOUND = 2


cdef inline double gain_of(double label, int mode, const double* table) noexcept nogil:
    if mode == GAIN_EXP:
        return pow(2.0, label) - 1.0
    if mode == GAIN_LINEAR:
        return label
    return table[<Py_ssize_t>label]


cdef void fill_discounts(double* out, Py_ssize_t n) noexcept nogil:
    """``1 / log2(i + 2)`` for ``i < n``."""
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = 1.0 / log2(i + 2.0)


cdef inline double _stop_prob(double label, double rel_min, double err_scale) noexcept nogil:
    # ERR's stopping probability (2**l - 1) / 2**max_label, 0 below rel_min
    if label < rel_min:
        return 0.0
    return (pow(2.0, label) - 1.0) * err_scale


cdef int _ascending(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*>a)[0]
    cdef double y = (<const double*>b)[0]
    return (x > y) - (x < y)


# binomial and convolved probabilities below the smallest normal double are dropped: at most
# the group's size of them, each times a value <= 1, so only an ERR below about 1e-300 (a
# stopping probability of 2**-1000) could notice
cdef double _TINY = 2.2250738585072014e-308


cdef Py_ssize_t _binomial(Py_ssize_t c, double r, double* out, Py_ssize_t* lo) noexcept nogil:
    """P(Bin(c, r) = h) into ``out[0..]`` for h = ``lo[0]`` + index; returns the count.

    Unnormalised from the mode by the ratios P(h + 1) / P(h) = (c - h) r / ((h + 1)(1 - r)),
    both ways until a value falls below ``_TINY``, then divided by their sum (no lgamma,
    whose absolute error would grow with c). ``out`` has room for c + 1 values.
    """
    cdef Py_ssize_t mode, h, a, b, t
    cdef double v, total
    if r >= 1.0:
        lo[0] = c
        out[0] = 1.0
        return 1
    mode = <Py_ssize_t>((c + 1) * r)
    if mode > c:
        mode = c
    # downwards from the mode: written from the top of the buffer, then moved
    a = mode
    out[c] = 1.0
    v = 1.0
    h = mode
    while h > 0:
        v = v * (<double>h * (1.0 - r)) / (<double>(c - h + 1) * r)
        if v < _TINY:
            break
        h -= 1
        out[c - (mode - h)] = v
        a = h
    # move the lower part to the front (in increasing h), then go upwards
    for t in range(mode - a + 1):
        out[t] = out[c - (mode - a) + t]
    b = mode
    v = 1.0
    h = mode
    while h < c:
        v = v * (<double>(c - h) * r) / (<double>(h + 1) * (1.0 - r))
        if v < _TINY:
            break
        h += 1
        out[h - a] = v
        b = h
    total = 0.0
    for t in range(b - a + 1):
        total += out[t]
    for t in range(b - a + 1):
        out[t] = out[t] / total
    lo[0] = a
    return b - a + 1


cdef double _err_group(double* stops, Py_ssize_t g, Py_ssize_t mslots, Py_ssize_t i,
                       double* work) noexcept nogil:
    """Expected ERR contribution of a tie group of ``g`` rows in uniformly random order,
    starting at rank ``i``, ``mslots`` of its slots inside the cutoff, given that the user
    reaches it: E[sum_t prod_{s<t} (1 - R_s) R_t / (i + t + 1)] over the orders (t < mslots).

    Each row stops the user with its probability R independently of its place, so the
    expectation is over H, the number of rows that would stop the user (a sum of binomials,
    one per distinct stopping probability), of phi(H): the mean of 1 / (i + 1 + X) over the
    first of H random places X among the g (0 when it falls past the cutoff). phi follows
    a recurrence in H with positive terms, run downwards from phi(g) = 1 / (i + 1).
    O(g log g) for the sort, O(g) for phi, plus the convolutions of the binomials of
    distinct stopping probabilities (one binomial, no convolution, for binary labels).
    ``stops`` (g values) is sorted in place; ``work`` has room for 5 g + 5 values.
    """
    cdef Py_ssize_t n_pos = 0, t, h, a, c, n_b, b_lo, p_lo, p_n, o_n, x, y
    cdef double r, value, fh, rh
    cdef double* pmf = work
    cdef double* binom = work + g + 1
    cdef double* conv = work + 2 * g + 2
    cdef double* phi = work + 3 * g + 3
    cdef double* fcut = work + 4 * g + 4
    for t in range(g):
        if stops[t] != 0.0:
            stops[n_pos] = stops[t]
            n_pos += 1
    if n_pos == 0:
        return 0.0
    qsort(stops, n_pos, sizeof(double), _ascending)
    # the distribution of H: binomials of equal stopping probabilities, convolved
    p_lo = 0
    p_n = 1
    pmf[0] = 1.0
    a = 0
    while a < n_pos:
        r = stops[a]
        c = 1
        while a + c < n_pos and stops[a + c] == r:
            c += 1
        a += c
        n_b = _binomial(c, r, binom, &b_lo)
        o_n = p_n + n_b - 1
        for x in range(o_n):
            conv[x] = 0.0
        for x in range(p_n):
            for y in range(n_b):
                conv[x + y] += pmf[x] * binom[y]
        # drop negligible ends
        x = 0
        while x < o_n - 1 and conv[x] < _TINY:
            x += 1
        y = o_n - 1
        while y > x and conv[y] < _TINY:
            y -= 1
        for t in range(y - x + 1):
            pmf[t] = conv[x + t]
        p_lo = p_lo + b_lo + x
        p_n = y - x + 1
    # F(h) = P(the first of h random places among g is inside the cutoff), h = 1..g
    if mslots >= g:
        for h in range(1, g + 1):
            fcut[h] = 1.0
    else:
        rh = 1.0  # P(the first of h places is past the cutoff) = C(g - m, h) / C(g, h)
        fh = 0.0
        for h in range(1, g + 1):
            fh = fh + rh * mslots / <double>(g - h + 1)
            rh = rh * <double>(g - mslots - h + 1) / <double>(g - h + 1)
            if rh < 0.0:
                rh = 0.0
            fcut[h] = fh
    # phi(h) = sum_p P(first place = p | h) / (i + 1 + p) over p < mslots
    phi[g] = 1.0 / (i + 1.0)
    for h in range(g - 1, 0, -1):
        phi[h] = (<double>h * <double>(g - h) / (h + 1.0) * phi[h + 1] + fcut[h]) \
            / <double>(g - h + i + 1)
    value = 0.0
    for t in range(p_n):
        h = p_lo + t
        if h > 0:
            value += pmf[t] * phi[h]
    return value


cdef bint tie_affected(bint across_only, const score_t* scores, const label_t* labels,
                       Py_ssize_t kk, Py_ssize_t n_top, double last_score, bint continues,
                       double last_lo, double last_hi) noexcept nogil:
    """Whether a tie group with mixed labels meets the top ``kk`` of a ranking.

    ``scores``/``labels``: the ``n_top`` selected rows in rank order; the group of the last
    selected score may go on past them (``continues``), its labels spanning
    ``last_lo..last_hi``. With ``across_only`` (P, R, hit rate, which ignore the order inside
    the top kk) only a group that the cutoff splits counts.
    """
    cdef Py_ssize_t i = 0, e
    cdef double s, lo, hi
    cdef bint cut
    while i < kk:
        s = scores[i]
        lo = labels[i]
        hi = lo
        e = i + 1
        while e < n_top and scores[e] == s:
            lo = min(lo, <double>labels[e])
            hi = max(hi, <double>labels[e])
            e += 1
        cut = e > kk or (s == last_score and continues)
        if s == last_score:
            lo = min(lo, last_lo)
            hi = max(hi, last_hi)
        if hi != lo and (cut or not across_only):
            return True
        i = e
    return False


cdef double exact(int kind, Py_ssize_t kk, Py_ssize_t k, const label_t* top_labels,
                  int gain_mode, const double* gain_table, double rel_min, double err_scale,
                  int ap_den, bint p_min_kn, Py_ssize_t n, Py_ssize_t n_rel_src,
                  const double* disc, const double* ideal, Py_ssize_t n_ideal,
                  bint terms_times_inverse) noexcept nogil:
    """One metric from the labels of the ranked rows, in rank order (ties broken)."""
    cdef Py_ssize_t i, hits = 0, div, den, stop
    cdef double inv = 0.0, idcg, total, dcg, err, p_reach, rp, sum_prec = 0.0
    if kind == KIND_DCG or kind == KIND_NDCG:
        if kind == KIND_NDCG:
            idcg = 0.0
            stop = min(k if k > 0 else n_ideal, n_ideal)
            for i in range(stop):
                idcg += ideal[i] * disc[i]
            if idcg <= 0.0:
                return 0.0
            inv = 1.0 / idcg
            if terms_times_inverse:  # XGBoost: sum of gain * discount * (1 / IDCG)
                total = 0.0
                for i in range(kk):
                    total += gain_of(top_labels[i], gain_mode, gain_table) * disc[i] * inv
                return total
        dcg = 0.0
        for i in range(kk):
            dcg += gain_of(top_labels[i], gain_mode, gain_table) * disc[i]
        if kind == KIND_DCG:
            return dcg
        return dcg * inv  # LightGBM: DCG * (1 / IDCG)
    if kind == KIND_ERR:
        err = 0.0
        p_reach = 1.0
        for i in range(kk):
            rp = _stop_prob(top_labels[i], rel_min, err_scale)
            err += p_reach * rp / (i + 1.0)
            p_reach *= 1.0 - rp
        return err
    for i in range(kk):
        if top_labels[i] >= rel_min:
            hits += 1
            if kind == KIND_AP:
                sum_prec += <double>hits / (i + 1.0)
    if kind == KIND_P:
        div = k if k > 0 else n
        if p_min_kn and n < div:
            div = n
        return <double>hits / <double>div if div > 0 else 0.0
    if kind == KIND_R:
        return <double>hits / <double>n_rel_src if n_rel_src > 0 else 0.0
    if kind == KIND_HIT:
        return 1.0 if hits > 0 else 0.0
    # AP
    if ap_den == AP_ALL:
        den = n_rel_src
    elif ap_den == AP_MIN_K:
        # min(R, k), the documented rule: k the cutoff, not the rows retrieved (with
        # idcg="pool" R counts judged rows the run missed; without a cutoff it is R)
        den = min(n_rel_src, k) if k > 0 else n_rel_src
    else:
        den = hits
    return sum_prec / <double>den if den > 0 else 0.0


cdef double _ap_placed(Py_ssize_t hits, double sum_prec, Py_ssize_t start, Py_ssize_t m,
                       Py_ssize_t h, bint first) noexcept nogil:
    """AP@k over the relevant found, ``hits`` relevant rows and ``sum_prec`` before rank
    ``start``, then ``h`` relevant rows among the ``m`` slots from ``start``: the first h
    slots or the last h. The operations of :func:`exact` on that order, so the same bits."""
    cdef Py_ssize_t t, pos
    for t in range(h):
        hits += 1
        pos = start + t if first else start + m - h + t
        sum_prec += <double>hits / (pos + 1.0)
    return sum_prec / <double>hits if hits > 0 else 0.0


cdef double ap_found_extreme(int bound, Py_ssize_t kk, Py_ssize_t n, const score_t* hs,
                             const label_t* hl, const score_t* qs, const double* ql,
                             double rel_min, double current) noexcept nogil:
    """The minimum (``bound`` < 0) or maximum (> 0) of AP@kk over the relevant found, over
    every order of the tied rows; ``current``: its value on the ranking ``hs``/``hl`` (the
    selected scores and labels, worst label first within ties for the minimum, best first
    for the maximum).

    Only a tie group that the cutoff splits makes the denominator depend on the order: with
    h of its relevant rows inside the cutoff (h_lo..h_hi), the denominator is fixed, and
    moving a relevant row up never lowers the numerator, so for each h the extreme places
    them first (maximum) or last (minimum) among the group's slots, and the groups before it
    in the order of ``hl``. Over h, the maximum is at h_lo or h_hi (a mean of precisions
    that first fall, then rise); the minimum is searched over every h, with the sum of
    precisions updated in O(1) per h, then recomputed exactly for the best h.
    """
    cdef Py_ssize_t ic, j, g = 0, r = 0, m, h, h_lo, h_hi, hits = 0, t, best_h
    cdef double s, sum_prec = 0.0, v, best, S = 0.0, T = 0.0, c
    if kk <= 0 or kk >= n:
        return current
    s = hs[kk - 1]
    ic = kk - 1
    while ic > 0 and hs[ic - 1] == s:
        ic -= 1
    for j in range(n):
        if qs[j] == s:
            g += 1
            if ql[j] >= rel_min:
                r += 1
    m = kk - ic
    if g <= m or r == 0 or r == g:
        return current  # no group split by the cutoff, or nothing to choose in it
    for t in range(ic):
        if hl[t] >= rel_min:
            hits += 1
            sum_prec += <double>hits / (t + 1.0)
    h_lo = max(0, m - (g - r))
    h_hi = min(r, m)
    if bound > 0:
        return max(_ap_placed(hits, sum_prec, ic, m, h_lo, True),
                   _ap_placed(hits, sum_prec, ic, m, h_hi, True))
    # S: the sum of precisions of h relevant rows in the last h slots (ranks c + 1..ic + m,
    # c = ic + m - h, the u-th of them with hits + u hits); T = sum_u 1 / (c + u)
    best = INFINITY
    best_h = h_lo
    for h in range(h_hi + 1):
        if h >= h_lo:
            v = (sum_prec + S) / <double>(hits + h) if hits + h > 0 else 0.0
            if v < best:
                best = v
                best_h = h
        if h < h_hi:
            c = <double>(ic + m - h)
            S = S + (hits + 1.0) / c + T
            T = T + 1.0 / c
    # the exact operations for the best h and its neighbours (the search rounds differently)
    best = _ap_placed(hits, sum_prec, ic, m, best_h, False)
    for h in range(max(best_h - 1, h_lo), min(best_h + 1, h_hi) + 1):
        best = min(best, _ap_placed(hits, sum_prec, ic, m, h, False))
    return best


cdef inline double expected_rr(Py_ssize_t n_before, Py_ssize_t g, Py_ssize_t g_rel,
                               Py_ssize_t k) noexcept nogil:
    """Expected RR@k (k = 0: no cutoff) when ``n_before`` rows rank first and then ``g`` tied
    rows, ``g_rel`` of them relevant, come in random order.

    The first relevant row is at offset t with probability prod_{i<t} (g-r-i)/(g-i) * r/(g-t).
    """
    cdef Py_ssize_t limit = g - g_rel + 1, t
    cdef double value = 0.0, q = 1.0
    if k > 0:
        limit = min(limit, k - n_before)
    for t in range(max(limit, 0)):
        value += q * g_rel / <double>(g - t) / (n_before + t + 1.0)
        q *= <double>(g - g_rel - t) / <double>(g - t)
    return value


cdef inline double _lchoose(Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0)


cdef double expected(int kind, Py_ssize_t kk, Py_ssize_t k, const int64_t* top,
                     Py_ssize_t n_top, Py_ssize_t last_start, Py_ssize_t last_total,
                     label_t* lbuf, Py_ssize_t lbuf_len, const score_t* scores,
                     const label_t* labels, int gain_mode, const double* gain_table,
                     double rel_min, double err_scale, int ap_den, bint p_min_kn, Py_ssize_t n,
                     Py_ssize_t n_rel_src, const double* disc, const double* ideal,
                     Py_ssize_t n_ideal, double* prodbuf) noexcept nogil:
    """Expected value of a metric over all orders of tied rows (``ties="average"``).

    ``top``: positions of the selected rows in rank order (into ``scores``/``labels``);
    ``lbuf``: the labels of the whole last selected tie group in its first
    ``last_total`` entries (its second half is scratch).
    """
    # walk over the tie groups intersecting [0, kk)
    cdef double dcg = 0.0, exp_hits = 0.0, p_none = 1.0, err = 0.0, p_reach = 1.0
    cdef double ap_num = 0.0  # expected sum of precisions (constant denominators)
    cdef Py_ssize_t hits_before = 0  # relevant rows in groups fully before the current one
    cdef bint found_cut = False
    cdef Py_ssize_t cut_g = 0, cut_r = 0, cut_m = 0, cut_start = 0, cut_hits_before = 0
    cdef Py_ssize_t i = 0, e, g, r, t, mslots, half, h, div, den, stop
    cdef double s, lab, gsum, dsum, q, pair, contrib, whole, idcg, fixed
    cdef double before_num, pair_all, cut_part, value, logp, ph, num
    cdef label_t* grp_labels
    while i < kk:
        s = scores[top[i]]
        e = i + 1
        while e < n_top and scores[top[e]] == s:
            e += 1
        if e == i + 1 and i != last_start and kind != KIND_ERR:
            # a row tied with no other (the usual case): the steps below with g = 1, the
            # same operations on the same values
            lab = labels[top[i]]
            r = 1 if lab >= rel_min else 0
            dcg += gain_of(lab, gain_mode, gain_table) * disc[i]
            exp_hits += r
            p_none *= (1 - r) / 1.0
            ap_num += (<double>r / 1.0 * (hits_before + 1) + 0 * 0.0) / (i + 1.0)
            hits_before += r
            i = e
            continue
        if i == last_start:
            g = last_total
            grp_labels = lbuf
        else:
            # inner groups are complete inside the selected prefix; copy their labels to the
            # second half of the scratch buffer (the first half holds the last group's labels)
            g = e - i
            half = lbuf_len // 2
            for t in range(g):
                lbuf[half + t] = labels[top[i + t]]
            grp_labels = lbuf + half
        mslots = min(g, kk - i)
        gsum = 0.0
        r = 0
        for t in range(g):
            lab = grp_labels[t]
            gsum += gain_of(lab, gain_mode, gain_table)
            if lab >= rel_min:
                r += 1
        # DCG: every slot gets the mean gain of the group
        dsum = 0.0
        for t in range(mslots):
            dsum += disc[i + t]
        dcg += gsum / <double>g * dsum
        exp_hits += <double>(r * mslots) / <double>g
        # probability that none of the mslots slots holds a relevant row
        q = 1.0
        for t in range(mslots):
            q *= <double>(g - r - t) / <double>(g - t)
        p_none *= q
        # AP numerator: E[rel_t * hits_t] / (rank)
        for t in range(mslots):
            pair = <double>(r * (r - 1)) / (g * (g - 1.0)) if g > 1 else 0.0
            ap_num += (<double>r / <double>g * (hits_before + 1) + t * pair) / (i + t + 1.0)
        if mslots < g:
            found_cut = True
            cut_g = g
            cut_r = r
            cut_m = mslots
            cut_start = i
            cut_hits_before = hits_before
        # ERR over random orders of the group
        if kind == KIND_ERR:
            for t in range(g):
                prodbuf[t] = _stop_prob(grp_labels[t], rel_min, err_scale)
            whole = 1.0
            for t in range(g):
                whole *= 1.0 - prodbuf[t]
            if g == 1:  # a row tied with no other: its own term, as in exact()
                contrib = prodbuf[0] / (i + 1.0) if prodbuf[0] != 0.0 else 0.0
            else:
                contrib = _err_group(prodbuf, g, mslots, i, prodbuf + g)
            err += p_reach * contrib
            p_reach *= whole
        hits_before += r
        i = i + mslots
    if kind == KIND_DCG or kind == KIND_NDCG:
        if kind == KIND_DCG:
            return dcg
        idcg = 0.0
        stop = min(k if k > 0 else n_ideal, n_ideal)
        for t in range(stop):
            idcg += ideal[t] * disc[t]
        return dcg / idcg if idcg > 0.0 else 0.0
    if kind == KIND_ERR:
        return err
    if kind == KIND_P:
        div = k if k > 0 else n
        if p_min_kn and n < div:
            div = n
        return exp_hits / <double>div if div > 0 else 0.0
    if kind == KIND_R:
        return exp_hits / <double>n_rel_src if n_rel_src > 0 else 0.0
    if kind == KIND_HIT:
        return 1.0 - p_none
    # AP
    if ap_den == AP_ALL:
        return ap_num / <double>n_rel_src if n_rel_src > 0 else 0.0
    if ap_den == AP_MIN_K:
        den = min(n_rel_src, k) if k > 0 else n_rel_src  # min(R, k), as in exact()
        return ap_num / <double>den if den > 0 else 0.0
    # denominator = relevant rows found in the top kk: random when a group is cut.
    if not found_cut:
        fixed = exp_hits  # integer-valued here
        return ap_num / fixed if fixed > 0 else 0.0
    # condition on h relevant rows among the cut group's slots (hypergeometric); the
    # numerator from the groups before the cut group is fixed: remove the cut group's part
    g = cut_g
    r = cut_r
    mslots = cut_m
    pair_all = <double>(r * (r - 1)) / (g * (g - 1.0)) if g > 1 else 0.0
    cut_part = 0.0
    for t in range(mslots):
        cut_part += (<double>r / <double>g * (cut_hits_before + 1) + t * pair_all) \
            / (cut_start + t + 1.0)
    before_num = ap_num - cut_part
    value = 0.0
    for h in range(0, min(r, mslots) + 1):
        # P(h) = C(r, h) C(g - r, m - h) / C(g, m)
        if mslots - h > g - r:
            continue
        logp = _lchoose(r, h) + _lchoose(g - r, mslots - h) - _lchoose(g, mslots)
        ph = exp(logp)
        den = cut_hits_before + h
        if den == 0:
            continue
        num = 0.0
        if h > 0:
            pair = <double>(h * (h - 1)) / (mslots * (mslots - 1.0)) if mslots > 1 else 0.0
            for t in range(mslots):
                num += (<double>h / <double>mslots * (cut_hits_before + 1) + t * pair) \
                    / (cut_start + t + 1.0)
        value += ph * (before_num + num) / <double>den
    return value
