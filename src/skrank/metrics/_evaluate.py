"""``evaluate``: validate flat inputs once, group them, run the kernel, apply conventions."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from .._validation import (
    Described,
    InstanceOf,
    Interval,
    param_error,
    public_name,
    validate_params,
)
from ..conventions import Conventions, resolve_conventions
from ..exceptions import InputError, InvalidParameterError
from ._fast import _FAILED, _fast_eligible, _kinds_ks, _run_all_fast, _split_first_pass

# _EMPTY_CODE and _xgboost_weighted_precision: metrics/_pieces.py imports them from here
from ._finish import _finish
from ._general import _run
from ._groups import group_rows
from ._inputs import (
    _as_1d,
    _check_values,
    _float32_labels,
    _labels_array,
    _numeric,
    _object_flags,
    _tiekey,
    _to_float32,
    _weights,
)
from ._result import EvaluationResult
from ._spec import Metric, metric_specs
from ._tie_range import _tie_range_needs, _true_tie_range

__all__ = ["evaluate"]


# below this many rows, one thread groups all rows before the threads evaluate
_SPLIT_ROWS = 200_000


@validate_params({
    "tie_bounds": InstanceOf(bool, "a bool"),
    "n_jobs": Described("None, a positive int or -1", None, Interval(int, 1),
                        Interval(int, -1, -1)),
})
def evaluate(
    y_true,
    y_score,
    qid=None,
    *,
    group=None,
    metrics: Sequence[str | Metric] | str | Metric = ("ndcg@10",),
    preset: str | None = None,
    conventions: Conventions | None = None,
    doc_id=None,
    sample_weight=None,
    retrieved=None,
    tie_bounds: bool = False,
    gain=None,
    ties: str | None = None,
    empty: str | None = None,
    rel_min: float | None = None,
    ap_denominator: str | None = None,
    p_divisor: str | None = None,
    idcg: str | None = None,
    ideal_order: str | None = None,
    score_precision: str | None = None,
    label_precision: str | None = None,
    weight_precision: str | None = None,
    default_k: int | None = None,
    max_label: int | None = None,
    empty_weighted: bool | None = None,
    arithmetic: str | None = None,
    n_jobs: int | None = None,
) -> EvaluationResult:
    """Compute several ranking metrics in one pass over flat arrays.

    Rows are documents; ``qid`` says which query each row belongs to (rows of a query need
    not be adjacent). One ordering per query is shared by every metric.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Graded relevance labels: non-negative, except that ``gain="linear"`` takes negative
        labels (negative gains, as scikit-learn's ``dcg_score``) for every metric but NDCG and
        ERR.
    y_score : array-like of shape (n_rows,)
        Scores; higher ranks first.
    qid : array-like of shape (n_rows,), optional
        Query id of each row (integers or strings). Give either ``qid`` or ``group``.
    group : array-like of int, optional
        Query sizes of contiguous queries (LightGBM's ``group``), instead of ``qid``.
    metrics : str, Metric or sequence of them, default=("ndcg@10",)
        Metric names such as ``"ndcg@10"``, ``"ap@10"``, ``"p@5"``, ``"r@100"``,
        ``"hit@10"``, ``"rr"``, ``"err@20"``, ``"dcg@5"``.
    preset : {"lightgbm", "xgboost", "trec_eval", "trec_eval9", "sklearn", "spark"}, optional
        Conventions that reproduce a reference library; explicit conventions override it.
    conventions : Conventions, optional
        A complete set of conventions to start from (instead of ``preset``).
    doc_id : array-like of shape (n_rows,), optional
        Document ids; needed by ``ties="docid"``. Repeats within a query are an error.
    sample_weight : array-like of shape (n_rows,), optional
        Row weights; a query's weight is the mean of its rows' weights (as in LightGBM).
        Under ``arithmetic="xgboost"`` (the xgboost preset) the rows of a query must share
        one weight, XGBoost's one weight per query group.
    retrieved : array-like of bool, optional
        False marks judged documents the system did not return: they are not ranked but
        count in the ideal DCG and the number of relevant documents under ``idcg="pool"``.
    tie_bounds : bool, default=False
        Also compute the tie range ``MetricResult.tie_interval``, ``(low, high)``: the means
        of each query's minimum and maximum over every order of its tied rows (the two
        ordering rules, pessimistic and optimistic, except for AP@k over the relevant found
        and DCG/NDCG under a falling gain table; see the tie range in
        ``docs/conventions.rst``).
    n_jobs : int or None, default=None
        Threads for the compiled kernel (which releases the GIL): None is 1, -1 every core.
        The rows are cut into chunks at query boundaries, run by a private pool of worker
        threads kept for the process, the calling thread taking its share; the result is
        identical for any ``n_jobs``. Worth it from about a million rows.
    gain, ties, empty, rel_min, ap_denominator, p_divisor, idcg, ideal_order, \
score_precision, label_precision, weight_precision, default_k, \
max_label, empty_weighted, arithmetic
        Conventions; see :class:`skrank.Conventions`. Defaults: ``gain="exp"``,
        ``ties="pessimistic"``, ``empty="exclude"``, ``rel_min=1``.

    Returns
    -------
    EvaluationResult
        A mapping from metric name to :class:`MetricResult`.

    Examples
    --------
    >>> import skrank
    >>> y_true = [2, 0, 1, 0, 0, 1]
    >>> y_score = [0.9, 0.5, 0.5, 0.3, 0.8, 0.8]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> res = skrank.evaluate(y_true, y_score, qid, metrics=["ndcg@2", "rr"])
    >>> print(res)  # doctest: +NORMALIZE_WHITESPACE
    NDCG@2 = 0.7286 (gain=exp, ties=pessimistic, empty=exclude; 2 queries,
    2 with ties that change the value)
    RR = 0.7500 (ties=pessimistic, empty=exclude, rel_min=1; 2 queries,
    1 with ties that change the value)
    >>> res["rr"].per_query
    array([1. , 0.5])
    """
    caller = public_name("evaluate")
    overrides = dict(
        gain=gain, ties=ties, empty=empty, rel_min=rel_min, ap_denominator=ap_denominator,
        p_divisor=p_divisor, idcg=idcg, ideal_order=ideal_order,
        score_precision=score_precision,
        label_precision=label_precision, weight_precision=weight_precision,
        default_k=default_k,
        max_label=max_label, empty_weighted=empty_weighted, arithmetic=arithmetic,
    )
    # one complete value: a preset's per-metric exceptions travel inside it (and an explicit
    # convention replaces them), so conventions=resolve_conventions(preset) gives the same
    # numbers as preset=, whatever entry point passes it on
    conv = resolve_conventions(preset, conventions, **overrides)
    specs = metric_specs(metrics, caller)
    n_threads = _threads(n_jobs)

    # labels keep an integer dtype (int64) or become float64, scores float64 (or float32 when
    # ranked in float32): few compiled kernels, whatever dtypes the caller has
    y_true = _labels_array(_numeric("y_true", _as_1d("y_true", y_true, caller), caller))
    y_score = np.ascontiguousarray(
        _numeric("y_score", _as_1d("y_score", y_score, caller), caller), dtype=np.float64
    )
    n = y_true.shape[0]
    if y_score.shape[0] != n:
        raise InputError(
            f"y_true and y_score of {caller} must have the same length. "
            f"Got {n} and {y_score.shape[0]} instead."
        )
    if n == 0:
        raise InputError(f"The input of {caller} is empty: y_true and y_score have no rows.")

    mask = np.zeros(0, dtype=np.bool_)
    if retrieved is not None:
        mask = _as_1d("retrieved", retrieved, caller)
        if mask.dtype == object and mask.shape[0] == n:  # a nullable column, with nulls
            mask = _object_flags(mask, caller)
        if mask.dtype.kind != "b" or mask.shape[0] != n:
            raise param_error("retrieved", f"a boolean array of length {n}", retrieved, caller)
    if conv.label_precision == "float32":
        y_true = _float32_labels(y_true, caller)
    if conv.score_precision == "float32":
        y_score = _to_float32(y_score, "y_score", "scores", "score_precision", caller, mask)

    # metrics sharing the same conventions share one pass (a preset may differ per metric:
    # Conventions.for_metric);
    # within a group, the metrics the one-pass kernel takes go there and the others to the
    # general kernel, so one metric without a cutoff does not send the rest to the slower one
    by_conv: dict[Conventions, list[Metric]] = {}
    for spec in specs:
        by_conv.setdefault(conv.for_metric(spec.name), []).append(spec)
    fast_ok = retrieved is None and doc_id is None
    fast_groups: dict[Conventions, list[Metric]] = {}
    slow_groups: dict[Conventions, list[Metric]] = {}
    for mconv, group_specs in by_conv.items():
        for spec in group_specs:
            route = (fast_groups if fast_ok and _fast_eligible(mconv, [spec], conv.max_label)
                     else slow_groups)
            route.setdefault(mconv, []).append(spec)
    # the one-pass kernel checks scores and labels as it reads them; the general kernel needs
    # them checked first (as does a failed fast pass, to raise the precise error)
    checked = None
    if slow_groups:
        checked = _check_values(y_true, y_score, mask, conv, specs, caller)
    grouping = first = None
    try:
        if fast_groups and group is None and n_threads > 1 and n >= _SPLIT_ROWS:
            # each thread finds the queries of its slice of rows and evaluates them at once
            first, grouping = _split_first_pass(y_true, y_score, qid, n, fast_groups, conv,
                                                specs, n_threads, caller)
        if grouping is None:
            grouping = group_rows(n, qid, group, caller=caller)
    except (InputError, InvalidParameterError):
        if checked is None:  # errors in the values come first, as on the checked route
            _check_values(y_true, y_score, mask, conv, specs, caller)
        raise
    tiekey = np.zeros(0, dtype=np.int64)
    if doc_id is not None:
        tiekey = _tiekey(doc_id, grouping, n, caller)
    elif conv.ties == "docid":
        raise param_error("doc_id", "given when ties='docid' (trec_eval's tie rule)", None, caller)

    try:
        weights = _weights(sample_weight, grouping, n, conv.weight_precision, caller,
                           one_per_query=conv.arithmetic == "xgboost")
    except InputError:
        if checked is None:
            _check_values(y_true, y_score, mask, conv, specs, caller)
        raise

    # (conventions, metrics of that group, per-query values and tie bounds) for every pass
    passes = []
    fast_raws = None
    if fast_groups and grouping.contiguous and first is not _FAILED:
        fast_raws = _run_all_fast(y_true, y_score, grouping, fast_groups, conv, specs,
                                  tie_bounds, n_threads, first)
        # None: a row failed the kernel's check; the full check raises the precise error, or
        # the labels are valid but not small integers (the general kernel takes them)
    if fast_raws is None:
        slow_groups = by_conv
    else:
        passes += [(mconv, fast_groups[mconv], *raw) for mconv, raw in fast_raws.items()]
    if slow_groups:
        if checked is None:
            checked = _check_values(y_true, y_score, mask, conv, specs, caller)
        labels = y_true.astype(np.float64, copy=False)
        for mconv, group_specs in slow_groups.items():
            kinds, ks_arr = _kinds_ks(mconv, group_specs)
            args = (labels, y_score, tiekey, mask, grouping, mconv)
            raw = _run(*args, mconv.ties, kinds, ks_arr, *checked, n_threads)
            bounds = None
            if tie_bounds:
                bounds = tuple(_run(*args, rule, kinds, ks_arr, *checked, n_threads)
                               for rule in ("pessimistic", "optimistic"))
            passes.append((mconv, group_specs, raw, bounds))
    if tie_bounds:
        needs = [p for p in passes if _tie_range_needs(p[0], p[1])]
        if needs and checked is None:
            checked = _check_values(y_true, y_score, mask, conv, specs, caller)
        passes = [(mconv, group_specs, raw,
                   _true_tie_range(bounds, mconv, group_specs, y_true, y_score, mask, grouping,
                                   checked, n_threads)
                   if _tie_range_needs(mconv, group_specs) else bounds)
                  for mconv, group_specs, raw, bounds in passes]
    results = {}
    for mconv, group_specs, raw, bounds in passes:
        for j, spec in enumerate(group_specs):
            results[spec] = _finish(spec, j, raw, bounds, grouping, mconv, weights, caller)
    return EvaluationResult(tuple(specs), grouping.qids, conv, results)


def _threads(n_jobs: int | None) -> int:
    """Resolve a checked ``n_jobs`` (scikit-learn's convention: None is 1, -1 is every core)."""
    if n_jobs is None:
        return 1
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)
