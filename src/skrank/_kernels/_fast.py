"""The common case in one pass per query: contiguous queries, small integer labels, small k.

:func:`evaluate_contiguous` computes exactly what :func:`._metrics.evaluate_grouped` computes
(same arithmetic, same order of operations, so the same bits) when

* the queries' rows are adjacent and every row is ranked (no ``retrieved`` mask);
* labels are small integers indexing a gain table (the usual graded labels 0..4, or LightGBM's
  ``label_gain``);
* the tie rule is ``"pessimistic"``, ``"optimistic"`` or ``"input"``;
* every cutoff is between 1 and ``SMALL_K`` (or the metric is RR, which needs no cutoff).

It reads each row once: the row's label is counted (the ideal ranking and the number of
relevant documents follow from the counts) and its score is compared with the k-th best so
far, which rejects most rows with one comparison; the best ``k`` are kept in an
insertion-sorted buffer. The loop over queries indexes the flat arrays directly, with no
per-query call or slicing, which matters for queries of about a hundred documents.

It also checks the input as it reads it and stops at the first row that is not a finite
score with a label in ``0 .. len(gain_table) - 1``; the caller then runs the full validation,
which raises the precise error (or takes the general kernel, e.g. for fractional labels).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._metrics import (
    AP,
    AP_ALL,
    AP_MIN_K,
    DCG,
    ERR,
    HIT,
    NDCG,
    RR,
    P,
    R,
    _rr,
    _stop_prob,
    discounts,
)
from ._select import OPTIMISTIC, PESSIMISTIC

# largest cutoff handled here (a sorted buffer of this many rows per query)
SMALL_K = 32


@njit(cache=True, nogil=True)
def evaluate_contiguous(
    offsets,
    labels,
    scores,
    tie_mode,
    gain_table,
    gain_order,
    rel_min,
    err_scale,
    ap_den,
    p_min_kn,
    kinds,
    ks,
    terms_times_inverse,
    values,
    empty,
    ties,
):
    """Evaluate ``kinds``/``ks`` on queries ``offsets``; write ``values``, ``empty``, ``ties``.

    ``labels`` are integers (any int dtype) or integer-valued floats. Returns -1, or the
    first row whose score is not finite or whose label is not an integer in
    ``0 .. len(gain_table) - 1`` (the outputs are then incomplete).
    """
    n_q = offsets.shape[0] - 1
    m = kinds.shape[0]
    n_labels = gain_table.shape[0]
    disc = discounts(max(SMALL_K, 1))
    k_sort = 0  # one sorted prefix serves every metric but RR
    k_ideal = 0
    for j in range(m):
        if kinds[j] != RR and ks[j] > k_sort:
            k_sort = ks[j]
        if kinds[j] == NDCG and ks[j] > k_ideal:
            k_ideal = ks[j]
    hs = np.empty(max(k_sort, 1), dtype=scores.dtype)  # buffer: scores, best first
    hl = np.empty(max(k_sort, 1), dtype=np.int64)  # and their labels
    ideal = np.empty(max(k_ideal, 1), dtype=np.float64)
    counts = np.zeros(n_labels, dtype=np.int64)
    monotone = True  # gains never decrease with the label (exp, linear, LightGBM's default)
    for c in range(1, n_labels):
        if gain_table[c] < gain_table[c - 1]:
            monotone = False
    pess = tie_mode == PESSIMISTIC
    opt = tie_mode == OPTIMISTIC
    for q in range(n_q):
        lo = offsets[q]
        hi = offsets[q + 1]
        n = hi - lo
        kq = min(k_sort, n)
        size = 0
        # rows scoring below ``thr`` (the k-th best score once the buffer is full) are out
        thr = -np.inf if kq > 0 else np.inf
        # the best score among rows left out of the buffer (rejected or evicted)
        rest_max = -np.inf
        max_label = 0
        # labels 0..7 are counted in the bytes of one integer (no store-to-load chain through
        # memory when neighbouring rows share a label), flushed every 255 rows
        for block in range(lo, hi, 255):
            packed = 0
            for r in range(block, min(block + 255, hi)):
                lab = labels[r]
                s = scores[r]
                if not (lab >= 0 and lab < n_labels) or s - s != 0.0:
                    return r
                li = np.int64(lab)
                if li != lab:
                    return r
                max_label = max(max_label, li)
                if li < 8:
                    packed += np.int64(1) << (li << 3)
                else:
                    counts[li] += 1
                if s < thr:
                    rest_max = max(rest_max, s)
                    continue
                if size == kq:
                    # a later row goes before an entry only on a higher score, or on an equal
                    # score with a lower (pessimistic) or higher (optimistic) label
                    if s == thr and not ((pess and li < hl[kq - 1]) or (opt and li > hl[kq - 1])):
                        rest_max = max(rest_max, s)
                        continue
                    rest_max = max(rest_max, thr)  # the evicted entry
                    pos = kq - 1
                else:
                    pos = size
                    size += 1
                while pos > 0:
                    sp = hs[pos - 1]
                    if s > sp or (s == sp and ((pess and li < hl[pos - 1])
                                               or (opt and li > hl[pos - 1]))):
                        hs[pos] = sp
                        hl[pos] = hl[pos - 1]
                        pos -= 1
                    else:
                        break
                hs[pos] = s
                hl[pos] = li
                if size == kq:
                    thr = hs[kq - 1]
            for c in range(min(max_label + 1, 8)):
                counts[c] += (packed >> (c << 3)) & 255

        # labels: relevant count, the largest gain, the ideal ranking (counts of labels above
        # max_label are zero)
        n_rel = 0
        max_gain = 0.0
        for c in range(max_label + 1):
            if counts[c] > 0:
                if c >= rel_min:
                    n_rel += counts[c]
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
                cnt = counts[c]
                while cnt > 0 and n_ideal < k_ideal:
                    ideal[n_ideal] = gain_table[c]
                    n_ideal += 1
                    cnt -= 1
                if n_ideal == k_ideal:
                    break
        for c in range(max_label + 1):
            counts[c] = 0

        # the tie group of the last buffered score: does it continue outside the buffer, and
        # are its labels mixed?
        n_top = size
        last_score = hs[n_top - 1] if n_top > 0 else 0.0
        last_start = n_top
        while last_start > 0 and hs[last_start - 1] == last_score:
            last_start -= 1
        continues = n_top > 0 and rest_max == last_score
        last_lo = 0
        last_hi = 0
        if n_top > 0:
            last_lo = hl[n_top - 1]
            last_hi = last_lo
            for t in range(last_start, n_top):
                last_lo = min(last_lo, hl[t])
                last_hi = max(last_hi, hl[t])
            if continues:
                for r in range(lo, hi):
                    if scores[r] == last_score:
                        lab_r = np.int64(labels[r])
                        last_lo = min(last_lo, lab_r)
                        last_hi = max(last_hi, lab_r)

        for j in range(m):
            kind = kinds[j]
            k = ks[j]
            graded = kind == NDCG or kind == DCG
            empty[q, j] = (max_gain <= 0.0) if graded else (n_rel == 0)
            if kind == RR:
                values[q, j], ties[q, j] = _rr(
                    n, k, scores[lo:hi], labels[lo:hi], offsets[:0], False, tie_mode, rel_min
                )
                continue
            kk = min(k, n)
            values[q, j] = _value(kind, kk, k, hl, gain_table, rel_min, err_scale, ap_den,
                                  p_min_kn, n, n_rel, disc, ideal, n_ideal, terms_times_inverse)
            # did a tie with mixed labels fall inside the top kk?
            affected = False
            i = 0
            while i < kk:
                s = hs[i]
                lo_l = hl[i]
                hi_l = lo_l
                e = i + 1
                while e < n_top and hs[e] == s:
                    lo_l = min(lo_l, hl[e])
                    hi_l = max(hi_l, hl[e])
                    e += 1
                cut = e > kk or (s == last_score and continues)
                if s == last_score:
                    lo_l = min(lo_l, last_lo)
                    hi_l = max(hi_l, last_hi)
                if hi_l != lo_l and (cut or not (kind == P or kind == R or kind == HIT)):
                    affected = True
                    break
                i = e
            ties[q, j] = affected
    return -1


@njit(cache=True, inline="always")
def _value(kind, kk, k, top_labels, gain_table, rel_min, err_scale, ap_den, p_min_kn, n,
           n_rel, disc, ideal, n_ideal, terms_times_inverse):
    """One metric from the labels of the top ``kk`` rows (``_metrics._exact``'s arithmetic)."""
    if kind == DCG or kind == NDCG:
        inv = 0.0
        if kind == NDCG:
            idcg = 0.0
            for i in range(min(k, n_ideal)):
                idcg += ideal[i] * disc[i]
            if idcg <= 0.0:
                return 0.0
            inv = 1.0 / idcg
            if terms_times_inverse:
                total = 0.0
                for i in range(kk):
                    total += gain_table[top_labels[i]] * disc[i] * inv
                return total
        dcg = 0.0
        for i in range(kk):
            dcg += gain_table[top_labels[i]] * disc[i]
        if kind == DCG:
            return dcg
        return dcg * inv
    if kind == ERR:
        err = 0.0
        p_reach = 1.0
        for i in range(kk):
            rp = _stop_prob(float(top_labels[i]), rel_min, err_scale)
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
        div = k
        if p_min_kn and n < div:
            div = n
        return hits / div if div > 0 else 0.0
    if kind == R:
        return hits / n_rel if n_rel > 0 else 0.0
    if kind == HIT:
        return 1.0 if hits > 0 else 0.0
    if ap_den == AP_ALL:
        den = n_rel
    elif ap_den == AP_MIN_K:
        den = min(n_rel, kk)
    else:
        den = hits
    return sum_prec / den if den > 0 else 0.0
