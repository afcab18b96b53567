"""Compiled per-query metric kernels over grouped flat arrays.

Everything here trusts its inputs: validation, defaults and conventions are resolved by
:mod:`skrank.metrics`. One call evaluates several metrics that share one ordering per query.

Layout of the inputs: ``rows`` lists row indices query by query (``offsets`` delimits
queries; ``rows`` is ``arange(n)`` when the queries are already contiguous). ``retrieved``
(uint8, or empty) marks rows that take part in the ranking; the others are judged rows of the
pool that only feed the ideal DCG and the number of relevant documents when ``pool`` is set.

Kernels compile with numba's ``error_model="numpy"``: every division here is guarded, so the
per-division zero checks of the Python error model would only cost time.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._select import AVERAGE, INPUT, before_key, select_top, top_values

# metric kinds (kept in sync with skrank.metrics._spec.METRIC_NAMES)
NDCG = 0
DCG = 1
P = 2
R = 3
HIT = 4
AP = 5
RR = 6
ERR = 7

# gain modes
GAIN_EXP = 0
GAIN_LINEAR = 1
GAIN_TABLE = 2

# AP denominators
AP_ALL = 0
AP_MIN_K = 1
AP_FOUND = 2


@njit(cache=True, inline="always", error_model="numpy")
def gain_of(label, mode, table):
    if mode == GAIN_EXP:
        return 2.0**label - 1.0
    if mode == GAIN_LINEAR:
        return float(label)
    return table[int(label)]


@njit(cache=True, error_model="numpy")
def discounts(n):
    """``1 / log2(i + 2)`` for ``i < n``."""
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        out[i] = 1.0 / math.log2(i + 2.0)
    return out


@njit(cache=True, inline="always", error_model="numpy")
def _stop_prob(label, rel_min, err_scale):
    # ERR's stopping probability (2**l - 1) / 2**max_label, 0 below rel_min
    if label < rel_min:
        return 0.0
    return (2.0**label - 1.0) * err_scale


@njit(cache=True, error_model="numpy")
def _avg_products(values, n_values, skip, t_max, out):
    """``out[t]`` = mean over t-subsets of ``values`` (without index ``skip``) of prod(1 - v).

    Computed with a stable convex recurrence over the elements, for t <= t_max.
    """
    out[0] = 1.0
    for t in range(1, t_max + 1):
        out[t] = 0.0
    size = 0
    for j in range(n_values):
        if j == skip:
            continue
        w = 1.0 - values[j]
        size += 1
        top = min(size, t_max)
        for t in range(top, 0, -1):
            out[t] = out[t] * (size - t) / size + w * out[t - 1] * t / size


@njit(cache=True, error_model="numpy")
def _query(
    qs,
    ql,
    qt,
    use_key,
    pool_extra,
    tie_mode,
    gain_mode,
    gain_table,
    gain_order,
    rel_min,
    err_scale,
    ap_den,
    p_min_kn,
    kinds,
    ks,
    disc,
    out_val,
    out_empty,
    out_ties,
    top,
    gbuf,
    ibuf,
    lbuf,
    prodbuf,
    hs,
    hl,
    ht,
    counts,
    terms_times_inverse,
):
    """Evaluate every metric of one query; results go to ``out_*[j]`` for metric j.

    ``qs``, ``ql``, ``qt``: scores, labels and tie keys of the ranked rows, in input order
    (positions are the last tie-break). ``pool_extra``: labels of judged rows that were not
    ranked but belong to the ideal ranking (``idcg="pool"``).
    """
    n = qs.shape[0]
    m = kinds.shape[0]
    # cutoffs: the ideal ranking for NDCG, one shared ordering for every metric but RR
    k_ideal = 0
    k_sort = 0
    for j in range(m):
        kk = ks[j] if ks[j] > 0 else n + pool_extra.shape[0]
        if kinds[j] == NDCG and kk > k_ideal:
            k_ideal = kk
        if kinds[j] != RR and kk > k_sort:
            k_sort = kk
    # the source of the ideal ranking and of the number of relevant documents
    n_rel_src = 0
    max_gain = 0.0
    n_ideal = 0
    if gain_mode == GAIN_TABLE:
        # integer labels: count them; the ideal ranking follows from the counts
        if k_ideal > 0:
            counts[:] = 0
        for part in range(2):
            src = ql if part == 0 else pool_extra
            for j in range(src.shape[0]):
                lab = src[j]
                g = gain_table[int(lab)]
                if g > max_gain:
                    max_gain = g
                if lab >= rel_min:
                    n_rel_src += 1
                if k_ideal > 0:
                    counts[int(lab)] += 1
        if k_ideal > 0:
            for lab in gain_order:
                c = counts[lab]
                while c > 0 and n_ideal < k_ideal:
                    ibuf[n_ideal] = gain_table[lab]
                    n_ideal += 1
                    c -= 1
                if n_ideal == k_ideal:
                    break
    else:
        n_src = 0
        for part in range(2):
            src = ql if part == 0 else pool_extra
            for j in range(src.shape[0]):
                lab = src[j]
                g = gain_of(lab, gain_mode, gain_table)
                gbuf[n_src] = g
                n_src += 1
                if g > max_gain:
                    max_gain = g
                if lab >= rel_min:
                    n_rel_src += 1
        n_ideal = top_values(gbuf, n_src, k_ideal, ibuf)

    # ordering of the ranked rows
    k_sort = min(k_sort, n)
    sort_mode = tie_mode if tie_mode != AVERAGE else INPUT  # average: ties by input first
    n_top = select_top(n, k_sort, qs, ql, qt, use_key, sort_mode, top, hs, hl, ht)

    # the tie group at the end of the selected prefix may continue beyond it
    last_score = qs[top[n_top - 1]] if n_top > 0 else 0.0
    last_total = 0  # size of the whole group with the last selected score
    last_lo = 0.0
    last_hi = 0.0
    if n_top > 0:
        last_lo = ql[top[n_top - 1]]
        last_hi = last_lo
        for j in range(n):
            if qs[j] == last_score:
                lab = ql[j]
                if tie_mode == AVERAGE:
                    lbuf[last_total] = lab
                last_total += 1
                last_lo = min(last_lo, lab)
                last_hi = max(last_hi, lab)
    last_start = n_top
    while last_start > 0 and qs[top[last_start - 1]] == last_score:
        last_start -= 1

    for j in range(m):
        kind = kinds[j]
        k = ks[j]
        kk = n if k == 0 else min(k, n)
        graded = kind == NDCG or kind == DCG
        out_empty[j] = (max_gain <= 0.0) if graded else (n_rel_src == 0)
        if kind == RR:
            out_val[j], out_ties[j] = _rr(n, k, qs, ql, qt, use_key, tie_mode, rel_min)
            continue
        if tie_mode == AVERAGE:
            out_val[j] = _expected(
                kind, kk, k, top, n_top, last_start, last_total, lbuf, qs, ql,
                gain_mode, gain_table, rel_min, err_scale, ap_den, p_min_kn, n, n_rel_src,
                disc, ibuf, n_ideal, prodbuf,
            )
        else:
            out_val[j] = _exact(  # hl: the selected labels in rank order
                kind, kk, k, hl, gain_mode, gain_table, rel_min, err_scale,
                ap_den, p_min_kn, n, n_rel_src, disc, ibuf, n_ideal, terms_times_inverse,
            )
        # did a tie with mixed labels fall inside the top kk (P, R, hit rate: across kk)?
        out_ties[j] = _tie_affected(
            kind == P or kind == R or kind == HIT, hs, hl, kk, n_top, last_score,
            last_total > n_top - last_start, last_lo, last_hi,
        )


@njit(cache=True, error_model="numpy")
def _tie_affected(across_only, scores, labels, kk, n_top, last_score, continues, last_lo,
                  last_hi):
    """Whether a tie group with mixed labels meets the top ``kk`` of a ranking.

    ``scores``/``labels``: the ``n_top`` selected rows in rank order; the group of the last
    selected score may go on past them (``continues``), its labels spanning
    ``last_lo..last_hi``. With ``across_only`` (P, R, hit rate, which ignore the order inside
    the top kk) only a group that the cutoff splits counts.
    """
    i = 0
    while i < kk:
        s = scores[i]
        lo = labels[i]
        hi = lo
        e = i + 1
        while e < n_top and scores[e] == s:
            lo = min(lo, labels[e])
            hi = max(hi, labels[e])
            e += 1
        cut = e > kk or (s == last_score and continues)
        if s == last_score:
            lo = min(lo, last_lo)
            hi = max(hi, last_hi)
        if hi != lo and (cut or not across_only):
            return True
        i = e
    return False


@njit(cache=True, inline="always", error_model="numpy")
def _exact(kind, kk, k, top_labels, gain_mode, gain_table, rel_min, err_scale, ap_den,
           p_min_kn, n, n_rel_src, disc, ideal, n_ideal, terms_times_inverse):
    """One metric from the labels of the ranked rows, in rank order (ties broken)."""
    if kind == DCG or kind == NDCG:
        inv = 0.0
        if kind == NDCG:
            idcg = 0.0
            for i in range(min(k if k > 0 else n_ideal, n_ideal)):
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
        if kind == DCG:
            return dcg
        return dcg * inv  # LightGBM: DCG * (1 / IDCG)
    if kind == ERR:
        err = 0.0
        p_reach = 1.0
        for i in range(kk):
            rp = _stop_prob(top_labels[i], rel_min, err_scale)
            err += p_reach * rp / (i + 1.0)
            p_reach *= 1.0 - rp
        return err
    hits = 0
    sum_prec = 0.0
    for i in range(kk):
        if top_labels[i] >= rel_min:
            hits += 1
            if kind == AP:
                sum_prec += hits / (i + 1.0)
    if kind == P:
        div = k if k > 0 else n
        if p_min_kn and n < div:
            div = n
        return hits / div if div > 0 else 0.0
    if kind == R:
        return hits / n_rel_src if n_rel_src > 0 else 0.0
    if kind == HIT:
        return 1.0 if hits > 0 else 0.0
    # AP
    if ap_den == AP_ALL:
        den = n_rel_src
    elif ap_den == AP_MIN_K:
        den = min(n_rel_src, kk)
    else:
        den = hits
    return sum_prec / den if den > 0 else 0.0


@njit(cache=True, error_model="numpy")
def _rr(n, k, qs, ql, qt, use_key, tie_mode, rel_min):
    """Reciprocal rank in O(n): the best relevant row and how many rows rank before it."""
    best = -1
    for r in range(n):
        if ql[r] >= rel_min:
            if best < 0:
                best = r
            elif tie_mode == AVERAGE:
                if qs[r] > qs[best]:
                    best = r
            elif before_key(qs[r], ql[r], qt[r] if use_key else 0, r, qs[best], ql[best],
                             qt[best] if use_key else 0, best, tie_mode):
                best = r
    if best < 0:
        return 0.0, False
    s = qs[best]
    lb = ql[best]
    tb = qt[best] if use_key else 0
    n_before = 0
    g = 0
    g_rel = 0
    for r in range(n):
        if qs[r] > s:
            n_before += 1
        elif qs[r] == s:
            g += 1
            if ql[r] >= rel_min:
                g_rel += 1
            if tie_mode != AVERAGE and before_key(s, ql[r], qt[r] if use_key else 0, r,
                                                   s, lb, tb, best, tie_mode):
                n_before += 1
    affected = g > g_rel and g_rel > 0
    if tie_mode != AVERAGE:
        rank = n_before + 1
        if k > 0 and rank > k:
            return 0.0, affected
        return 1.0 / rank, affected
    return _expected_rr(n_before, g, g_rel, k), affected


@njit(cache=True, inline="always", error_model="numpy")
def _expected_rr(n_before, g, g_rel, k):
    """Expected RR@k (k = 0: no cutoff) when ``n_before`` rows rank first and then ``g`` tied
    rows, ``g_rel`` of them relevant, come in random order.

    The first relevant row is at offset t with probability prod_{i<t} (g-r-i)/(g-i) * r/(g-t).
    """
    limit = g - g_rel + 1
    if k > 0:
        limit = min(limit, k - n_before)
    value = 0.0
    q = 1.0
    for t in range(max(limit, 0)):
        value += q * g_rel / (g - t) / (n_before + t + 1.0)
        q *= (g - g_rel - t) / (g - t)
    return value


@njit(cache=True, error_model="numpy")
def _expected(kind, kk, k, top, n_top, last_start, last_total, lbuf, scores, labels,
              gain_mode, gain_table, rel_min, err_scale, ap_den, p_min_kn, n, n_rel_src,
              disc, ideal, n_ideal, prodbuf):
    """Expected value of a metric over all orders of tied rows (``ties="average"``)."""
    # walk over the tie groups intersecting [0, kk)
    dcg = 0.0
    exp_hits = 0.0  # expected relevant rows in the top kk
    hits_before = 0  # relevant rows in groups fully before the current one
    p_none = 1.0  # probability of no relevant row in the top kk
    err = 0.0
    p_reach = 1.0
    ap_num = 0.0  # expected sum of precisions (constant denominators)
    found_cut = False
    cut_g = 0
    cut_r = 0
    cut_m = 0
    cut_start = 0
    cut_hits_before = 0
    i = 0
    while i < kk:
        s = scores[top[i]]
        e = i + 1
        while e < n_top and scores[top[e]] == s:
            e += 1
        if e == i + 1 and i != last_start and kind != ERR:
            # a row tied with no other (the usual case): the steps below with g = 1, the
            # same operations on the same values
            lab = labels[top[i]]
            r = 1 if lab >= rel_min else 0
            dcg += gain_of(lab, gain_mode, gain_table) * disc[i]
            exp_hits += r
            p_none *= (1 - r) / 1.0
            ap_num += (r / 1 * (hits_before + 1) + 0 * 0.0) / (i + 1.0)
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
            half = lbuf.shape[0] // 2
            for t in range(g):
                lbuf[half + t] = labels[top[i + t]]
            grp_labels = lbuf[half:]
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
        dcg += gsum / g * dsum
        exp_hits += r * mslots / g
        # probability that none of the mslots slots holds a relevant row
        q = 1.0
        for t in range(mslots):
            q *= (g - r - t) / (g - t)
        p_none *= q
        # AP numerator: E[rel_t * hits_t] / (rank)
        for t in range(mslots):
            pair = r * (r - 1) / (g * (g - 1.0)) if g > 1 else 0.0
            ap_num += (r / g * (hits_before + 1) + t * pair) / (i + t + 1.0)
        if mslots < g:
            found_cut = True
            cut_g = g
            cut_r = r
            cut_m = mslots
            cut_start = i
            cut_hits_before = hits_before
        # ERR over random orders of the group
        if kind == ERR:
            contrib = 0.0
            # stop probabilities of the members
            for t in range(g):
                prodbuf[g + 1 + t] = _stop_prob(grp_labels[t], rel_min, err_scale)
            stops = prodbuf[g + 1: 2 * g + 1]
            # members with equal stop probabilities share one expectation: compute it once
            for a in range(g):
                ra = stops[a]
                if ra == 0.0:
                    continue
                seen = False
                for b in range(a):
                    if stops[b] == ra:
                        seen = True
                        break
                if seen:
                    continue
                same = 0
                for b in range(a, g):
                    if stops[b] == ra:
                        same += 1
                _avg_products(stops, g, a, mslots - 1, prodbuf)
                for t in range(mslots):
                    contrib += same * ra * prodbuf[t] / g / (i + t + 1.0)
            err += p_reach * contrib
            whole = 1.0
            for t in range(g):
                whole *= 1.0 - stops[t]
            p_reach *= whole
        hits_before += r
        i = i + mslots
    if kind == DCG or kind == NDCG:
        if kind == DCG:
            return dcg
        idcg = 0.0
        for t in range(min(k if k > 0 else n_ideal, n_ideal)):
            idcg += ideal[t] * disc[t]
        return dcg / idcg if idcg > 0.0 else 0.0
    if kind == ERR:
        return err
    if kind == P:
        div = k if k > 0 else n
        if p_min_kn and n < div:
            div = n
        return exp_hits / div if div > 0 else 0.0
    if kind == R:
        return exp_hits / n_rel_src if n_rel_src > 0 else 0.0
    if kind == HIT:
        return 1.0 - p_none
    # AP
    if ap_den == AP_ALL:
        return ap_num / n_rel_src if n_rel_src > 0 else 0.0
    if ap_den == AP_MIN_K:
        den = min(n_rel_src, kk)
        return ap_num / den if den > 0 else 0.0
    # denominator = relevant rows found in the top kk: random when a group is cut.
    if not found_cut:
        fixed = exp_hits  # integer-valued here
        return ap_num / fixed if fixed > 0 else 0.0
    # condition on h relevant rows among the cut group's slots (hypergeometric)
    # numerator from the groups before the cut group is fixed
    before_num = 0.0
    # recompute the part of ap_num that belongs to the cut group and remove it
    g = cut_g
    r = cut_r
    mslots = cut_m
    pair_all = r * (r - 1) / (g * (g - 1.0)) if g > 1 else 0.0
    cut_part = 0.0
    for t in range(mslots):
        cut_part += (r / g * (cut_hits_before + 1) + t * pair_all) / (cut_start + t + 1.0)
    before_num = ap_num - cut_part
    value = 0.0
    for h in range(0, min(r, mslots) + 1):
        # P(h) = C(r, h) C(g - r, m - h) / C(g, m)
        if mslots - h > g - r:
            continue
        logp = (_lchoose(r, h) + _lchoose(g - r, mslots - h) - _lchoose(g, mslots))
        ph = math.exp(logp)
        den = cut_hits_before + h
        if den == 0:
            continue
        num = 0.0
        if h > 0:
            pair = h * (h - 1) / (mslots * (mslots - 1.0)) if mslots > 1 else 0.0
            for t in range(mslots):
                num += (h / mslots * (cut_hits_before + 1) + t * pair) / (cut_start + t + 1.0)
        value += ph * (before_num + num) / den
    return value


@njit(cache=True, inline="always", error_model="numpy")
def _lchoose(n, k):
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate_grouped(
    rows,
    offsets,
    contiguous,
    labels,
    scores,
    tiekey,
    retrieved,
    pool,
    tie_mode,
    gain_mode,
    gain_table,
    gain_order,
    rel_min,
    err_scale,
    ap_den,
    p_min_kn,
    kinds,
    ks,
    max_query,
    terms_times_inverse,
):
    """Evaluate ``kinds``/``ks`` on every query; returns values, empty flags, tie flags.

    ``rows`` lists row indices query by query, or is empty when ``contiguous``. Contiguous
    queries without a ``retrieved`` mask are read in place; otherwise each query's rows are
    first gathered into local buffers. It releases the GIL so that callers may run
    chunks of queries in threads; it never uses numba's parallel backend, which would share
    (and resize) the process's OpenMP pool with LightGBM and XGBoost, changing their
    results' last bits.
    """
    n_q = offsets.shape[0] - 1
    m = kinds.shape[0]
    values = np.empty((n_q, m), dtype=np.float64)
    empty = np.zeros((n_q, m), dtype=np.bool_)
    ties = np.zeros((n_q, m), dtype=np.bool_)
    if n_q == 0:
        return values, empty, ties
    size = max(max_query, 1)
    disc = discounts(size)
    has_retrieved = retrieved.shape[0] > 0
    use_key = tiekey.shape[0] > 0
    in_place = contiguous and not has_retrieved
    top = np.empty(size, dtype=np.int64)
    gbuf = np.empty(size, dtype=np.float64)
    ibuf = np.empty(size, dtype=np.float64)
    lbuf = np.empty(2 * size + 2, dtype=labels.dtype)
    prodbuf = np.empty(3 * size + 3, dtype=np.float64)
    hs = np.empty(size, dtype=scores.dtype)
    hl = np.empty(size, dtype=labels.dtype)
    ht = np.empty(size, dtype=np.int64)
    counts = np.zeros(gain_table.shape[0], dtype=np.int64)
    bs = np.empty(0 if in_place else size, dtype=scores.dtype)
    bl = np.empty(0 if in_place else size, dtype=labels.dtype)
    bt = np.empty(size if use_key and not in_place else 0, dtype=np.int64)
    bp = np.empty(size if pool and has_retrieved else 0, dtype=labels.dtype)
    for q in range(n_q):
        lo = offsets[q]
        hi = offsets[q + 1]
        if in_place:
            qs = scores[lo:hi]
            ql = labels[lo:hi]
            qt = tiekey[lo:hi] if use_key else tiekey
            qp = bp[:0]
        else:
            n = 0
            n_pool = 0
            # unsigned indices: numba leaves out its negative-index wraparound
            for j in range(lo, hi):
                r = np.uint64(j if contiguous else rows[np.uint64(j)])
                if has_retrieved and not retrieved[r]:
                    if pool:
                        bp[n_pool] = labels[r]
                        n_pool += 1
                    continue
                un = np.uint64(n)
                bs[un] = scores[r]
                bl[un] = labels[r]
                if use_key:
                    bt[un] = tiekey[r]
                n += 1
            qs = bs[:n]
            ql = bl[:n]
            qt = bt[:n] if use_key else tiekey
            qp = bp[:n_pool]
        _query(
            qs, ql, qt, use_key, qp, tie_mode, gain_mode, gain_table, gain_order, rel_min,
            err_scale, ap_den, p_min_kn, kinds, ks, disc, values[q], empty[q], ties[q], top,
            gbuf, ibuf, lbuf, prodbuf, hs, hl, ht, counts, terms_times_inverse,
        )
    return values, empty, ties
