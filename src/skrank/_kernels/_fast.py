"""The common case in one pass over the rows: contiguous queries, small integer labels, k <= 32.

:func:`evaluate_contiguous` computes exactly what :func:`._metrics.evaluate_grouped` computes
(same arithmetic in the same order, so the same bits; ``tests/metrics/test_fast_path.py``
checks it) when

* the queries' rows are adjacent and every row is ranked (no ``retrieved`` mask);
* labels are small integers indexing a gain table (the usual graded labels 0..4, or LightGBM's
  ``label_gain``);
* the tie rule is not ``"docid"``;
* every cutoff is between 1 and ``SMALL_K`` (or the metric is RR, which needs no cutoff).

Per query:

1. One pass over the rows checks each score and label, counts the labels (the ideal ranking
   and the number of relevant documents follow from the counts; labels 0..7 are counted in
   the bytes of one integer) and copies the rows to a small local buffer. Every later pass
   reads that buffer: reading the large input arrays a second time is several times slower.
2. A threshold that at least k rows reach is found by interpolation between the lowest and
   the highest score, each step counting the rows above a trial value; the rows above it
   (about 1.2 k) are compacted and ranked by counting. None of these loops branches on the
   data: on a branchy selection (an insertion-sorted buffer) mispredicted branches cost more
   than all the rest. Heavy ties (more than ``MAX_CANDIDATES`` candidates) take the general
   kernel's selection (an insertion-sorted buffer).
3. The metrics come from the labels of the ranked rows; RR and the tie flags use counting
   passes too.

It stops at the first row that is not a finite score with a label in
``0 .. len(gain_table) - 1`` and returns it; the caller then runs the full validation, which
raises the precise error (or takes the general kernel, e.g. for fractional labels).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from ._metrics import (
    DCG,
    GAIN_TABLE,
    HIT,
    NDCG,
    RR,
    P,
    R,
    _exact,
    _expected,
    _expected_rr,
    _tie_affected,
    discounts,
)
from ._select import AVERAGE, INPUT, OPTIMISTIC, PESSIMISTIC, select_top

# largest cutoff the one-pass kernel takes (larger ones, and no cutoff, go to the general one)
SMALL_K = 32


@njit(cache=True, nogil=True, error_model="numpy")
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
    max_n = 1
    for q in range(n_q):
        max_n = max(max_n, offsets[q + 1] - offsets[q])
    # the query's rows, copied while checked: the later passes read these (reading the big
    # arrays a second time is several times slower than reading a small local copy)
    bs = np.empty(max_n, dtype=scores.dtype)
    bl = np.empty(max_n, dtype=np.int64)
    # the best rows, best first: scores and labels (room for every candidate, and for the
    # first row left out)
    hs = np.empty(max(k_sort + 1, MAX_CANDIDATES), dtype=scores.dtype)
    hl = np.empty(max(k_sort + 1, MAX_CANDIDATES), dtype=np.int64)
    # rows at or above the threshold: positions, scores, labels, tie keys
    cand = np.empty(max_n, dtype=np.int64)
    cs = np.empty(max_n, dtype=scores.dtype)
    cl = np.empty(max_n, dtype=np.int64)
    ck = np.empty(MAX_CANDIDATES, dtype=np.int64)
    hp = np.empty(max(k_sort, 1), dtype=np.int64)  # heavy ties: positions, tie keys
    ht = np.zeros(max(k_sort, 1), dtype=np.int64)
    ideal = np.empty(max(k_ideal, 1), dtype=np.float64)
    counts = np.zeros(max(n_labels, 8), dtype=np.int64)
    average = tie_mode == AVERAGE
    # ties="average": scratch of the general kernel's expectation
    lbuf = np.empty(2 * max_n + 2 if average else 0, dtype=np.int64)
    prodbuf = np.empty(3 * max_n + 3 if average else 0, dtype=np.float64)
    identity = np.arange(hs.shape[0])
    monotone = True  # gains never decrease with the label (exp, linear, LightGBM's default)
    for c in range(1, n_labels):
        if gain_table[c] < gain_table[c - 1]:
            monotone = False
    pess = tie_mode == PESSIMISTIC  # average ranks ties by input first, as the general kernel
    opt = tie_mode == OPTIMISTIC
    for q in range(n_q):
        lo = offsets[q]
        hi = offsets[q + 1]
        n = hi - lo
        kq = min(k_sort, n)

        # pass 1: check each row, count its label, copy it, find the score range
        max_label = 0
        s_min = np.inf
        s_max = -np.inf
        # labels 0..7 are counted in the bytes of one integer (no store-to-load chain through
        # memory when neighbouring rows share a label), flushed every 255 rows. This loop is
        # bound by its instruction count, hence:
        # * unsigned indices: numba then omits its negative-index wraparound, which cost more
        #   instructions than the work itself (about 12% of the kernel's time);
        # * bad rows are noted, not branched on, and looked for once per block (about 10%):
        #   a label outside the table sets ``bad``, a NaN or infinite score makes ``nan``
        #   NaN (as ``score * 0`` is NaN for them and 0 for finite scores)
        for block in range(lo, hi, 255):
            packed = 0
            bad = False
            nan = 0.0
            for r in range(block, min(block + 255, hi)):
                ur = np.uint64(r)
                lab = labels[ur]
                sc = scores[ur]
                li, wrong = _label_index(lab, n_labels)
                bad |= wrong
                nan += sc * 0.0
                if np.uint64(li) < np.uint64(8):
                    packed += np.int64(1) << (li << 3)
                elif not wrong:
                    counts[li] += 1
                    max_label = max(max_label, li)
                ui = np.uint64(r - lo)
                bs[ui] = sc
                bl[ui] = li
                s_min = sc if sc < s_min else s_min
                s_max = sc if sc > s_max else s_max
            if bad or nan != 0.0:  # the first bad row of the block (earlier blocks are clean)
                for r in range(block, min(block + 255, hi)):
                    lab = labels[r]
                    sc = scores[r]
                    if not (lab >= 0 and lab < n_labels) or sc - sc != 0.0:
                        return r
                    if np.int64(lab) != lab:
                        return r
            for c in range(8):
                cnt = (packed >> (c << 3)) & 255
                counts[c] += cnt
                max_label = c if (cnt > 0 and c > max_label) else max_label

        # the best kq rows in rank order into hs/hl; ``continues``: a row left out ties with
        # the last one taken
        continues = False
        if kq > 0:
            n_cand = _candidates(bs, bl, n, kq, s_min, s_max, cs, cl, cand)
            if n_cand <= MAX_CANDIDATES:
                # tie keys: lower labels first (pessimistic), higher first (optimistic), then
                # input position
                if pess:
                    for i in range(n_cand):
                        ck[i] = cl[i] * n + cand[i]
                elif opt:
                    for i in range(n_cand):
                        ck[i] = (n_labels - 1 - cl[i]) * n + cand[i]
                else:
                    for i in range(n_cand):
                        ck[i] = cand[i]
                _rank(cs, ck, cl, n_cand, hs, hl)
                continues = n_cand > kq and hs[kq] == hs[kq - 1]
            else:
                # heavy ties: the general kernel's selection (an insertion-sorted buffer),
                # then whether a row left out shares the last selected score
                select_top(n, kq, bs, bl, ht[:0], False, tie_mode if not average else INPUT,
                           hp, hs, hl, ht)
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
        n_top = kq
        last_score = hs[n_top - 1] if n_top > 0 else 0.0
        last_start = n_top
        while last_start > 0 and hs[last_start - 1] == last_score:
            last_start -= 1
        last_lo = 0
        last_hi = 0
        if n_top > 0:
            last_lo = hl[n_top - 1]
            last_hi = last_lo
            for t in range(last_start, n_top):
                last_lo = min(last_lo, hl[t])
                last_hi = max(last_hi, hl[t])
            if continues:
                for i in range(n):
                    if bs[i] == last_score:
                        last_lo = min(last_lo, bl[i])
                        last_hi = max(last_hi, bl[i])
        # ties="average": the labels of the whole last group, in input order, as the general
        # kernel collects them
        last_total = n_top - last_start
        if average and continues:
            last_total = 0
            for i in range(n):
                if bs[i] == last_score:
                    lbuf[last_total] = bl[i]
                    last_total += 1
        elif average:  # the group lies in the buffer, in input order already
            for t in range(last_total):
                lbuf[t] = hl[last_start + t]

        # the start of the first tie group (inside the buffer) whose labels are mixed
        first_mixed = n_top
        start = 0
        for i in range(1, n_top):
            same = np.int64(hs[i] == hs[i - 1])
            start = i - (i - start) * same  # arithmetic selects: no data-dependent branch
            pair = same & np.int64(hl[i] != hl[i - 1])
            first_mixed = min(first_mixed, n_top - (n_top - start) * pair)

        for j in range(m):
            kind = kinds[j]
            k = ks[j]
            graded = kind == NDCG or kind == DCG
            empty[q, j] = (max_gain <= 0.0) if graded else (n_rel == 0)
            if kind == RR:
                values[q, j], ties[q, j] = _reciprocal_rank(bs, bl, n, k, tie_mode, rel_min)
                continue
            kk = min(k, n)
            if average:
                # the general kernel's expectation over the orders of tied rows, on the ranked
                # buffer (positions 0..kq-1 in place of row ids)
                values[q, j] = _expected(
                    kind, kk, k, identity, n_top, last_start, last_total, lbuf, hs, hl,
                    GAIN_TABLE, gain_table, rel_min, err_scale, ap_den, p_min_kn, n, n_rel,
                    disc, ideal, n_ideal, prodbuf,
                )
            else:
                values[q, j] = _exact(kind, kk, k, hl, GAIN_TABLE, gain_table,
                                      rel_min, err_scale, ap_den, p_min_kn, n, n_rel, disc,
                                      ideal, n_ideal, terms_times_inverse)
            # did a tie with mixed labels fall inside the top kk (P, R, hit rate: across kk)?
            if kind == P or kind == R or kind == HIT:
                affected = _tie_affected(True, hs, hl, kk, n_top, last_score, continues,
                                         last_lo, last_hi)
            else:
                affected = first_mixed < kk or (last_start < kk and last_hi != last_lo)
            ties[q, j] = affected
    return -1


def _label_index(lab, n_labels):
    """``(index, wrong)``: the label as an int64 index into a gain table of ``n_labels``
    entries, and whether it is not one (negative, too large, fractional or NaN; the index is
    then meaningless). Compiled per label type, see the overload below."""
    raise NotImplementedError  # pragma: no cover - only compiled through the overload


@overload(_label_index, inline="always")
def _label_index_overload(lab, n_labels):
    if isinstance(lab, types.Integer):
        def for_integers(lab, n_labels):  # one unsigned comparison catches negatives too
            li = np.int64(lab)
            return li, np.uint64(li) >= np.uint64(n_labels)
        return for_integers

    def for_floats(lab, n_labels):  # never converts a float outside the table's range
        li = np.int64(lab) if (lab >= 0) & (lab < n_labels) else np.int64(0)
        return li, li != lab
    return for_floats


# candidates up to this many are ranked by counting (quadratic, but free of data-dependent
# branches); more (heavy ties) go through the general kernel's insertion-sorted buffer
MAX_CANDIDATES = 64


@njit(cache=True, inline="always", error_model="numpy")
def _count_at_least(values, n, t):
    c = 0
    for i in range(n):
        c += values[i] >= t
    return c


@njit(cache=True, error_model="numpy")
def _candidates(values, labels, n, k, v_min, v_max, cand_values, cand_labels, cand):
    """Values at or above a threshold that at least ``k`` values reach, with their labels and
    positions.

    The threshold is found by interpolation between the lowest and the highest value (each
    step counts the values at or above a trial threshold, a loop without data-dependent
    branches), aiming at about 1.2 k candidates, in at most 8 steps. Returns their number;
    when that is more than ``MAX_CANDIDATES``, nothing is written.
    """
    t_lo = v_min  # every value reaches it
    c_lo = n
    # above the top: no value reaches it (the guess c_hi = 0 only steers the interpolation;
    # every threshold kept as t_lo is counted)
    t_hi = v_max
    c_hi = 0
    for _ in range(8):
        if c_lo <= k + k // 2 + 1:
            break
        t = t_hi - (t_hi - t_lo) * ((1.2 * k - c_hi) / (c_lo - c_hi))
        if not (t > t_lo and t <= t_hi):
            break
        c = _count_at_least(values, n, t)
        if c >= k:
            t_lo = t
            c_lo = c
        else:
            t_hi = t
            c_hi = c
    if c_lo > MAX_CANDIDATES:
        return c_lo
    c = 0
    for i in range(n):
        v = values[i]
        cand_values[c] = v
        cand_labels[c] = labels[i]
        cand[c] = i
        c += v >= t_lo
    return c


@njit(cache=True, error_model="numpy")
def _rank(cs, ck, cl, n_cand, hs, hl):
    """Sort the candidates (scores ``cs``, distinct tie keys ``ck``) into hs/hl by counting.

    A candidate's rank is the number of candidates with a higher score, or an equal score and
    a smaller tie key.
    """
    for i in range(n_cand):
        si = cs[i]
        ki = ck[i]
        rank = 0
        for j in range(n_cand):
            rank += (cs[j] > si) | ((cs[j] == si) & (ck[j] < ki))
        hs[rank] = si
        hl[rank] = cl[i]


# added to a value: keep it (index 1) or push it out of a minimum / maximum (index 0)
_MASK_UP = np.array([np.inf, 0.0])
_MASK_DOWN = np.array([-np.inf, 0.0])


@njit(cache=True, error_model="numpy")
def _reciprocal_rank(scores, labels, n, k, tie_mode, rel_min):
    """RR@k (k = 0: no cutoff) and its tie flag, as ``_metrics._rr`` computes them.

    Counting passes instead of comparisons that branch on the data: the first relevant row
    has the best relevant score ``m``; rows above ``m`` rank before it, and so do rows scoring
    ``m`` that the tie rule puts first (pessimistic: lower labels; optimistic: none, since a
    higher label would be relevant too; input: earlier rows).
    """
    # float minima and maxima, and adding 0 or +-inf by table lookup, keep these loops free
    # of branches (a conditional select on a loop-carried value would become one)
    m = -np.inf
    for i in range(n):
        v = scores[i] + _MASK_DOWN[np.int64(labels[i] >= rel_min)]
        m = v if v > m else m
    if m == -np.inf:
        return 0.0, False
    n_above = 0
    g = 0
    g_rel = 0
    best_label = np.inf
    first_rel = np.inf
    for i in range(n):
        tied = scores[i] == m
        rel = tied & (labels[i] >= rel_min)
        n_above += scores[i] > m
        g += tied
        g_rel += rel
        lab = labels[i] + _MASK_UP[np.int64(rel)]
        best_label = lab if lab < best_label else best_label
        pos = i + _MASK_UP[np.int64(rel)]
        first_rel = pos if pos < first_rel else first_rel
    before = 0
    if tie_mode == PESSIMISTIC:
        for i in range(n):
            before += (scores[i] == m) & (labels[i] < best_label)
    elif tie_mode != OPTIMISTIC and tie_mode != AVERAGE:
        for i in range(int(first_rel)):
            before += scores[i] == m
    affected = g > g_rel and g_rel > 0
    if tie_mode == AVERAGE:
        return _expected_rr(n_above, g, g_rel, k), affected
    rank = n_above + before + 1
    if k > 0 and rank > k:
        return 0.0, affected
    return 1.0 / rank, affected
