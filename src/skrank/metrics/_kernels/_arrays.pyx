# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled passes over flat arrays: runs of query ids, grouping by a table, the checks and
means of :func:`skrank.evaluate`. Compiled when the package is built (Cython); the loops that
callers run in threads release the GIL."""

import numpy as np

from libc.math cimport floor, isfinite, isinf, isnan
from libc.stdint cimport (
    int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
)

ctypedef fused qid_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t

ctypedef fused real_t:
    float
    double


def next_run_start(const qid_t[::1] qid, Py_ssize_t i):
    """The first row at or after ``i`` (``0 < i``) whose id differs from its predecessor's."""
    cdef Py_ssize_t n = qid.shape[0]
    with nogil:
        while i < n and qid[i] == qid[i - 1]:
            i += 1
    return i


def run_starts(const qid_t[::1] qid):
    """Starts of the runs of equal integer ids (plus ``n``), the runs' ids, and whether they
    strictly increase. The pass releases the GIL (callers scan slices in threads).

    One pass: the starts go to a buffer of ``n + 1`` entries of which only the used pages are
    ever touched, then the used prefix is copied out. The runs' ids are read right after the
    pass, while the rows are still in cache.
    """
    cdef Py_ssize_t n = qid.shape[0], i, j, count = 1
    cdef bint increasing = True
    buf = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] b = buf
    cdef qid_t prev, cur
    b[0] = 0
    with nogil:
        if n > 0:
            prev = qid[0]
            for i in range(1, n):
                cur = qid[i]
                if cur != prev:
                    if cur < prev:
                        increasing = False
                    b[count] = i
                    count += 1
                    prev = cur
        b[count] = n
    ids = np.asarray(qid).take(buf[:count]) if n > 0 else np.asarray(qid)[:0].copy()
    return buf[: count + 1].copy(), ids, increasing


def group_by_table(const qid_t[::1] qid, id_min, Py_ssize_t span):
    """Group rows by integer ids within ``id_min .. id_min + span - 1`` in O(n + span).

    A table indexed by ``id - id_min`` (computed modulo 2**64, so the difference is exact
    for every integer dtype) numbers the queries in order of first appearance; the rows are then placed query
    by query, keeping their input order (a counting sort). Returns ``(ids, offsets, rows)``.
    """
    cdef Py_ssize_t n = qid.shape[0], i, n_q = 0, m = min(n, span)
    cdef qid_t lo = id_min
    code_arr = np.full(span, -1, dtype=np.int64)
    ids_arr = np.empty(m, dtype=np.asarray(qid).dtype)
    counts_arr = np.zeros(m + 1, dtype=np.int64)
    rows_arr = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] code_of = code_arr, counts = counts_arr, rows = rows_arr
    cdef qid_t[::1] ids = ids_arr
    cdef int64_t c
    cdef size_t slot
    with nogil:
        for i in range(n):
            slot = <size_t>(<uint64_t>qid[i] - <uint64_t>lo)
            c = code_of[slot]
            if c < 0:
                c = n_q
                code_of[slot] = c
                ids[c] = qid[i]
                n_q += 1
            counts[c + 1] += 1
    offsets = np.cumsum(counts_arr[: n_q + 1])
    fill_arr = offsets[:n_q].copy()
    cdef int64_t[::1] fill = fill_arr
    with nogil:
        for i in range(n):
            c = code_of[<size_t>(<uint64_t>qid[i] - <uint64_t>lo)]
            rows[fill[c]] = i
            fill[c] += 1
    return ids_arr[:n_q].copy(), offsets, rows_arr


def scan(const double[::1] values):
    """``(all finite, min, max, all integer)`` of ``values`` in one pass."""
    cdef bint finite = True, integer = True
    cdef double lo = np.inf, hi = -np.inf, v
    cdef Py_ssize_t i
    with nogil:
        for i in range(values.shape[0]):
            v = values[i]
            if not isfinite(v):
                finite = False
                continue
            if v < lo:
                lo = v
            if v > hi:
                hi = v
            if integer and v != floor(v):
                integer = False
    return finite, lo, hi, integer


def first_not_finite(const real_t[::1] values, mask):
    """The first row (among those ``mask`` keeps, if given) whose value is not finite, or -1."""
    cdef const uint8_t[::1] keep = (np.zeros(0, dtype=np.uint8) if mask is None or len(mask) == 0
                                    else np.asarray(mask).view(np.uint8))
    cdef bint has_mask = keep.shape[0] > 0
    cdef Py_ssize_t i, bad = -1
    with nogil:
        for i in range(values.shape[0]):
            if has_mask and not keep[i]:
                continue
            if not isfinite(values[i]):
                bad = i
                break
    return bad


def query_weights(const int64_t[::1] rows, const int64_t[::1] offsets,
                  const real_t[::1] weights):
    """Each query's mean row weight, summed in the weights' own dtype and row order (as
    LightGBM does with its float32 weights), divided in float64.

    A sum that overflows (equal weights of 1e308, or 3e38 in float32) is redone as
    ``max * mean(w / max)`` in float64: the mean fits, as it is at most the largest weight.
    Sums that do not overflow keep today's operations, hence their bits.
    """
    cdef Py_ssize_t n_q = offsets.shape[0] - 1, q, j
    out_arr = np.empty(n_q, dtype=np.asarray(weights).dtype)
    cdef real_t[::1] out = out_arr
    cdef real_t s
    cdef double m, t
    with nogil:
        for q in range(n_q):
            s = weights[rows[offsets[q]]]
            for j in range(offsets[q] + 1, offsets[q + 1]):
                s += weights[rows[j]]
            if isinf(<double>s):
                m = 0.0
                for j in range(offsets[q], offsets[q + 1]):
                    m = max(m, <double>weights[rows[j]])
                t = 0.0
                for j in range(offsets[q], offsets[q + 1]):
                    t += <double>weights[rows[j]] / m
                out[q] = <real_t>(m * (t / <double>(offsets[q + 1] - offsets[q])))
            else:
                out[q] = <real_t>(<double>s / <double>(offsets[q + 1] - offsets[q]))
    return out_arr


cdef inline void _weighted_sums(const double[::1] values, const uint8_t[::1] emp,
                                int empty_rule, const real_t[::1] weights,
                                bint empty_weighted, double divisor, double* num,
                                double* den) noexcept nogil:
    # divisor: 1 (today's operations) or the largest weight (when a sum overflows)
    cdef bint has_w = weights.shape[0] > 0
    cdef double v, w
    cdef Py_ssize_t q
    num[0] = 0.0
    den[0] = 0.0
    for q in range(values.shape[0]):
        if emp[q]:
            if empty_rule == 0:
                continue
            v = 0.0 if empty_rule == 1 else 1.0
        else:
            v = values[q]
        if has_w:
            w = weights[q] if divisor == 1.0 else weights[q] / divisor
            if emp[q] and not empty_weighted:
                num[0] += v if divisor == 1.0 else v / divisor
            else:
                num[0] += v * w
            den[0] += w
        else:
            num[0] += v
            den[0] += 1.0


def weighted_mean(const double[::1] values, empty, int empty_rule, const real_t[::1] weights,
                  bint empty_weighted):
    """The mean of per-query values under the empty-query rule (0 exclude, 1 zero, 2 one),
    weighted by query weights when given; NaN when nothing counts (or the weights that count
    sum to 0: the caller says so).

    Sums that overflow (weights near the largest float) are redone with every weight divided
    by the largest one; ordinary weights keep today's operations, hence their bits.
    """
    cdef const uint8_t[::1] emp = np.asarray(empty).view(np.uint8)
    cdef double num = 0.0, den = 0.0, m = 0.0
    cdef Py_ssize_t q
    with nogil:
        _weighted_sums(values, emp, empty_rule, weights, empty_weighted, 1.0, &num, &den)
        if weights.shape[0] > 0 and (isinf(num) or isinf(den) or isnan(num)):
            for q in range(weights.shape[0]):
                m = max(m, <double>weights[q])
            if m > 0.0:
                _weighted_sums(values, emp, empty_rule, weights, empty_weighted, m, &num,
                               &den)
    if den == 0.0:
        return np.nan
    return num / den


cdef extern from *:
    """
    /* x86-64-v3 (AVX2, FMA, BMI1/2, F16C): what the _ranking_v3 build may execute. */
    static int skrank_cpu_x86_64_v3(void) {
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2")
            && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi")
            && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c");
    #else
        return 0;
    #endif
    }
    """
    int skrank_cpu_x86_64_v3() noexcept nogil


def cpu_has_x86_64_v3():
    """Whether this CPU (and its operating system) runs x86-64-v3 code: AVX2, FMA, BMI."""
    return bool(skrank_cpu_x86_64_v3())


def first_repeat(const int64_t[::1] codes, const int64_t[::1] rows,
                 const int64_t[::1] offsets, int64_t lo, Py_ssize_t span):
    """The first row (in query order, then row order) whose code already appeared in its
    query, or -1; ``codes`` lie in ``lo .. lo + span - 1``.

    One pass with a table of the last query that held each code: O(n + span), where sorting
    (query, code) pairs takes O(n log n). ``rows`` lists the rows query by query (empty when
    the queries are contiguous).
    """
    table_arr = np.full(span, -1, dtype=np.int64)
    cdef int64_t[::1] last = table_arr
    cdef Py_ssize_t n_q = offsets.shape[0] - 1, q, j, r, found = -1
    cdef bint contiguous = rows.shape[0] == 0
    cdef size_t slot
    with nogil:
        for q in range(n_q):
            for j in range(offsets[q], offsets[q + 1]):
                r = j if contiguous else rows[j]
                slot = <size_t>(codes[r] - lo)
                if last[slot] == q:
                    found = r
                    break
                last[slot] = q
            if found >= 0:
                break
    return found
