"""From a pass's per-query values to a :class:`MetricResult`: empty queries, the
(weighted) mean, XGBoost's weighted precision and the tie interval.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import EmptyQueryError, InputError
from ._kernels import _arrays as A
from ._result import MetricResult

_EMPTY_CODE = {"exclude": 0, "zero": 1, "one": 2}


def _xgboost_weighted_precision(spec, conv, col, emp, code, w, grouping):
    """XGBoost's weighted ``pre@k``: each query adds ``(hits * weight) / divisor`` (not
    ``weight * (hits / divisor)``), then the sum is divided by the sum of the weights.

    None when the hit counts cannot be recovered from the per-query values (rows left out
    of the ranking by ``retrieved``): the caller takes the ordinary weighted mean.
    """
    k = spec.k if spec.k is not None else conv.default_k
    sizes = np.diff(grouping.offsets).astype(np.float64)
    if k is None:
        div = sizes
    elif conv.p_divisor == "min_k_n":
        div = np.minimum(float(k), sizes)
    else:
        div = np.full(sizes.shape[0], float(k))
    div = np.maximum(div, 1.0)
    hits = np.rint(col * div)
    full = ~emp
    if not np.array_equal(hits[full] / div[full], col[full]):
        return None
    wd = np.asarray(w, dtype=np.float64)
    terms = (hits * wd) / div
    if code != 0 and emp.any():
        v = 0.0 if code == 1 else 1.0
        terms[emp] = v * wd[emp] if conv.empty_weighted else v
    keep = full if code == 0 else np.ones(col.shape[0], dtype=bool)
    if not keep.any():
        return None
    # sequential sums, in query order, as XGBoost's and skrank's own weighted means
    num = float(np.cumsum(terms[keep])[-1])
    den = float(np.cumsum(wd[keep])[-1])
    if den == 0.0 or not np.isfinite(num) or not np.isfinite(den):
        return None
    return num / den


def _finish(spec, j, raw, bounds, grouping, conv, weights, caller) -> MetricResult:
    """The result of metric ``j`` of one pass over all the queries."""
    values, empty, ties = raw
    col = np.ascontiguousarray(values[:, j])
    emp = np.ascontiguousarray(empty[:, j])
    sides = None
    if bounds is not None:
        # per query the two ends of the range over the tie orders (_true_tie_range: the
        # two ordering rules, or the true minimum and maximum where they are not the ends),
        # as [smaller, larger]
        pess, opt = (b[0][:, j] for b in bounds)
        sides = (np.fmin(pess, opt), np.fmax(pess, opt))
    return metric_result(spec, col, emp, sides, int(np.count_nonzero(ties[:, j])), grouping,
                         conv, weights, caller, xgboost_col=col)


def metric_result(spec, col, emp, sides, n_ties, grouping, conv, weights, caller,
                  xgboost_col) -> MetricResult:
    """A :class:`MetricResult` from per-query values ``col`` and their empty flags ``emp``:
    the empty rule, the (weighted) mean, XGBoost's weighted precision (from
    ``xgboost_col``), and the tie interval from the per-query ends ``sides``.

    Shared by :func:`skrank.evaluate` and the engines that assemble per-query values from
    pieces (``metrics/_pieces.py``), so that both give the same result from the same values.
    """
    n_empty = int(np.count_nonzero(emp))
    if conv.empty == "error" and n_empty:
        first = grouping.qids[int(np.flatnonzero(emp)[0])].item()
        raise EmptyQueryError(
            f"{n_empty} {'query has' if n_empty == 1 else 'queries have'} no relevant document "
            f"for {spec.display} (first: query {first!r}) and empty='error'. "
            "Choose empty='exclude', 'zero' or 'one'."
        )
    code = _EMPTY_CODE.get(conv.empty, 0)
    w = weights if weights is not None else np.zeros(0)
    value = A.weighted_mean(col, emp, code, w, conv.empty_weighted)
    if weights is not None and spec.name == "p" and conv.arithmetic == "xgboost":
        xgb_value = _xgboost_weighted_precision(spec, conv, xgboost_col, emp, code, w,
                                                grouping)
        value = value if xgb_value is None else xgb_value
    n_counted = grouping.n_queries - (n_empty if code == 0 else 0)
    if weights is not None and n_counted and np.isnan(value):
        raise InputError(
            f"The 'sample_weight' parameter of {caller} must give the queries that count in "
            f"the mean of {spec.display} a positive total weight. Got weights that sum to 0 "
            f"over its {n_counted} {'query' if n_counted == 1 else 'queries'} instead."
        )
    per_query = col.copy()
    if n_empty:
        per_query[emp] = {0: np.nan, 1: 0.0, 2: 1.0}[code]
    interval = None
    if sides is not None:
        interval = tuple(
            float(A.weighted_mean(np.ascontiguousarray(side), emp, code, w,
                                  conv.empty_weighted))
            for side in sides
        )
    return MetricResult(
        metric=spec,
        value=float(value),
        per_query=per_query,
        qids=grouping.qids,
        conventions=conv,
        n_queries=grouping.n_queries,
        n_empty=n_empty,
        n_tie_affected=n_ties,
        tie_interval=interval,
        weighted=weights is not None,
    )
