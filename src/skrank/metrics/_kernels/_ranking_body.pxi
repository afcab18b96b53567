# The body of the _ranking and _ranking_v3 extension modules (one source, two builds).

import numpy as np

from libc.math cimport INFINITY, exp, lgamma, log2, pow
from libc.stdint cimport (
    int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
)
from libc.stdlib cimport qsort

ctypedef fused score_t:
    float
    double

# labels inside the kernels: label indices (one-pass kernel) or float64 labels (general)
ctypedef fused label_t:
    int64_t
    double

# labels as the one-pass kernel reads them from the caller's array
ctypedef fused in_label_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    float
    double


def _as_u8(flags):
    """A bool (or uint8) array as uint8 without a copy; an empty array for ``None``."""
    if flags is None:
        return np.zeros(0, dtype=np.uint8)
    arr = np.asarray(flags)
    if arr.dtype == np.bool_:
        return arr.view(np.uint8)
    return arr


include "_select.pxi"
include "_metrics.pxi"
include "_general.pxi"
include "_fast.pxi"

# codes read by the Python side of the kernels (skrank.metrics._general and ._fast)
KINDS = {"ndcg": KIND_NDCG, "dcg": KIND_DCG, "p": KIND_P, "r": KIND_R, "hit": KIND_HIT,
         "ap": KIND_AP, "rr": KIND_RR, "err": KIND_ERR}
TIE_RULES = {"pessimistic": TIE_PESSIMISTIC, "optimistic": TIE_OPTIMISTIC,
             "input": TIE_INPUT, "average": TIE_AVERAGE, "docid": TIE_DOCID,
             "low": TIE_LOW, "high": TIE_HIGH}
AP_DENOMINATORS = {"all": AP_ALL, "min_k": AP_MIN_K, "found": AP_FOUND}
GAIN_MODES = {"exp": GAIN_EXP, "linear": GAIN_LINEAR, "table": GAIN_TABLE}
# largest cutoff of evaluate_contiguous; more candidates than this take its heavy-tie route
SMALL_K = FAST_MAX_K
MAX_CANDIDATES = MAX_CAND


def discounts(Py_ssize_t n):
    """``1 / log2(i + 2)`` for ``i < n`` (the DCG discounts the kernels use)."""
    out = np.empty(max(n, 0), dtype=np.float64)
    cdef double[::1] v = out
    if n > 0:
        fill_discounts(&v[0], n)
    return out
