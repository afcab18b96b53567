"""``evaluate``: validate flat inputs once, group them, run the kernel, apply conventions."""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import (
    Described,
    InstanceOf,
    Interval,
    param_error,
    public_name,
    relabel,
    validate_params,
)
from ..conventions import Conventions, resolve_conventions
from ..exceptions import EmptyQueryError, InputError, InvalidParameterError
from ._groups import (
    Grouping,
    _id_kinds,
    _missing,
    as_qid_array,
    group_rows,
    next_run_start,
    run_starts,
    unmasked,
)
from ._kernels import _arrays as A
from ._kernels import ranking as K
from ._result import EvaluationResult, MetricResult
from ._spec import Metric
from ._threads import run_chunks, run_shared

__all__ = ["evaluate"]

_KIND = K.KINDS
_TIE = K.TIE_RULES
_AP_DEN = K.AP_DENOMINATORS


def _as_1d(name: str, value: Any, caller: str) -> np.ndarray:
    arr = np.asarray(unmasked(name, value, caller))
    if arr.ndim != 1:
        raise InputError(
            f"The {name!r} parameter of {caller} must be a 1-D array (one value per row). "
            f"Got an array of shape {arr.shape} instead."
        )
    return arr


def _numeric(name: str, arr: np.ndarray, caller: str) -> np.ndarray:
    if arr.dtype.kind == "b":
        return arr.astype(np.int8)
    if arr.dtype.kind not in "iuf":
        raise InputError(
            f"The {name!r} parameter of {caller} must hold numbers. Got dtype {arr.dtype} instead."
        )
    return arr


def _show(value) -> float | int:
    """A label as the user wrote it: 31 rather than 31.0 (labels are held as float64)."""
    v = float(value)
    return int(v) if v.is_integer() else v


def _check_labels(y_true: np.ndarray, conv: Conventions, metrics: Sequence[Metric], caller: str):
    finite, lo, hi, integer = A.scan(y_true)
    if not finite:
        bad = np.flatnonzero(~np.isfinite(y_true))[0]
        raise InputError(
            f"The 'y_true' parameter of {caller} must hold finite relevance labels. "
            f"Got {_show(y_true[bad])!r} at row {bad} instead."
        )
    if lo < 0:
        # under linear gain a negative label is a negative gain, as in scikit-learn's
        # dcg_score; NDCG refuses them as ndcg_score does (its ideal DCG is no maximum of a
        # [0, 1] scale any more) and ERR's stopping probability (2**l - 1) / 2**max would be
        # negative
        refused = sorted({m.display.split("@")[0] for m in metrics if m.name in ("ndcg", "err")})
        if conv.gain != "linear" or refused:
            bad = int(np.flatnonzero(y_true < 0)[0])
            why = (f"gain={conv.gain_name()}" if conv.gain != "linear"
                   else f"for {' and '.join(refused)}; gain='linear' takes them for DCG and "
                        "the binary metrics")
            raise InputError(
                f"The 'y_true' parameter of {caller} must hold non-negative relevance labels "
                f"({why}). Got {_show(y_true[bad])!r} at row {bad} instead."
            )
    if isinstance(conv.gain, tuple):
        if not integer:
            bad = int(np.flatnonzero(y_true != np.floor(y_true))[0])
            raise InputError(
                f"The 'y_true' parameter of {caller} must hold integer labels to index the "
                f"gain table (gain={conv.gain_name()}). Got {_show(y_true[bad])!r} at row "
                f"{bad} instead."
            )
        if hi >= len(conv.gain):
            bad = int(np.flatnonzero(y_true >= len(conv.gain))[0])
            raise InputError(
                f"The 'y_true' parameter of {caller} must hold labels 0..{len(conv.gain) - 1} "
                f"(the gain table has {len(conv.gain)} entries). Got {_show(y_true[bad])!r} "
                f"at row {bad} instead."
            )
    elif conv.gain == "exp" and hi > 1000:
        raise InputError(
            f"The 'y_true' parameter of {caller} must hold labels <= 1000 with gain='exp' "
            f"(2**label overflows). Got {hi!r} instead."
        )
    max_label = hi if hi != -np.inf else 0.0
    # small integer labels: gains come from a table (exact, no pow(), and the kernel takes the
    # ideal ranking from label counts)
    int_labels = int(max_label) + 1 if integer and max_label <= 62 and lo >= 0 else 0
    if any(m.name == "err" for m in metrics) and conv.max_label is not None:
        if hi > conv.max_label:
            raise InputError(
                f"The 'y_true' parameter of {caller} must hold labels <= max_label="
                f"{conv.max_label} for ERR. Got {hi!r} instead."
            )
        max_label = float(conv.max_label)
    return max_label, int_labels


def _tiekey(doc_id, grouping: Grouping, n: int, caller: str) -> np.ndarray:
    ids = _as_1d("doc_id", doc_id, caller)
    if ids.shape[0] != n:
        raise InputError(
            f"The 'doc_id' parameter of {caller} must have one id per row: y_true has {n} rows "
            f"but doc_id has {ids.shape[0]}."
        )
    if ids.dtype.kind == "O":
        bad = next((i for i, v in enumerate(ids[:]) if _missing(v)), None)
        if bad is not None:
            raise InputError(
                f"The 'doc_id' parameter of {caller} must hold an id for every row. "
                f"Got {ids[bad]!r} at row {bad} instead."
            )
        kinds = _id_kinds(ids)
        if len(kinds) > 1:
            raise param_error("doc_id", "ids of one type (all integers or all strings)",
                              f"a mix of {' and '.join(sorted(kinds))}", caller)
    if ids.dtype.kind in "iu" and (ids.dtype.itemsize < 8 or ids.dtype.kind == "i"
                                   or int(ids.max()) <= np.iinfo(np.int64).max):
        # integer ids (the readers' codes) order the documents as they are: no sort
        code = np.ascontiguousarray(ids, dtype=np.int64)
    else:
        try:
            _, code = np.unique(ids, return_inverse=True)
        except TypeError:  # ids that do not sort (e.g. objects of one exotic type)
            raise param_error("doc_id", "ids that sort (integers or strings)",
                              f"ids of dtype {ids.dtype}", caller) from None
        code = code.ravel().astype(np.int64)
    _check_unique_in_queries(code, ids, grouping, caller)
    return code


def _check_unique_in_queries(code: np.ndarray, ids: np.ndarray, grouping: Grouping,
                             caller: str) -> None:
    """The standard error for the first document repeated within a query."""
    lo, hi = int(code.min()), int(code.max())
    if hi - lo <= 2 * code.shape[0] + 1024:  # codes of about the rows' span: a table pass
        row = A.first_repeat(code, grouping.kernel_rows, grouping.offsets, lo, hi - lo + 1)
    else:  # sparse ids: sort (query, doc) pairs and look at neighbours
        qidx = grouping.query_index()
        pair = np.lexsort((code, qidx))
        dup = (qidx[pair][1:] == qidx[pair][:-1]) & (code[pair][1:] == code[pair][:-1])
        row = int(pair[1:][dup][0]) if dup.any() else -1
    if row >= 0:
        q = grouping.query_index()[row]
        raise InputError(
            f"The 'doc_id' parameter of {caller} must not repeat a document within a query. "
            f"Got {ids[row].item()!r} twice in query {grouping.qids[q].item()!r}."
        )


def _takes_old_caller(func):
    """Accept the ``_caller=`` keyword of old internal callers as :func:`relabel`.

    Transitional: ``reports/_plots.py`` passes it still; the public signature has no
    ``_caller`` (``inspect.signature`` follows ``__wrapped__``).
    """

    @functools.wraps(func)
    def wrapper(*args: Any, _caller: str | None = None, **kwargs: Any) -> Any:
        if _caller is None:
            return func(*args, **kwargs)
        with relabel(_caller):
            return func(*args, **kwargs)

    return wrapper


@_takes_old_caller
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
    preset : {"lightgbm", "xgboost", "trec_eval", "sklearn"}, optional
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
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Sequence) or len(metrics) == 0:
        raise param_error("metrics", "a non-empty list of metric names such as 'ndcg@10'",
                          metrics, caller)
    specs: list[Metric] = []
    for m in metrics:
        spec = Metric.parse(m)
        if spec not in specs:
            specs.append(spec)
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
        if mask.dtype.kind != "b" or mask.shape[0] != n:
            raise param_error("retrieved", f"a boolean array of length {n}", retrieved, caller)
    if conv.label_precision == "float32":
        y_true = _float32_labels(y_true, caller)
    if conv.score_precision == "float32":
        y_score = _to_float32(y_score, "y_score", "scores", "score_precision", caller)

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


def _weights(sample_weight, grouping: Grouping, n: int, precision: str, caller: str,
             one_per_query: bool = False):
    """Each query's weight: the mean of its rows' ``sample_weight`` (None without weights),
    the rows' weights held at ``precision`` (``"input"`` or ``"float32"``).

    ``one_per_query`` (``arithmetic="xgboost"``): XGBoost has one weight per query group and
    refuses per-row weights, so every row of a query must carry the same weight, which is
    the query's weight as it is (no mean, whose float sum can move it by an ulp).
    """
    if sample_weight is None:
        return None
    w = _numeric("sample_weight", _as_1d("sample_weight", sample_weight, caller), caller)
    if w.shape[0] != n:
        raise InputError(
            f"The 'sample_weight' parameter of {caller} must have one weight per row: "
            f"y_true has {n} rows but sample_weight has {w.shape[0]}."
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise InputError(
            f"The 'sample_weight' parameter of {caller} must hold finite non-negative "
            "weights."
        )
    if w.dtype.kind != "f":
        w = w.astype(np.float64)
    if precision == "float32" or w.dtype.itemsize < 4:  # float16 is summed as float32 too
        w = _to_float32(w, "sample_weight", "weights", "weight_precision", caller)
    w = np.ascontiguousarray(w, dtype=w.dtype.newbyteorder("="))
    if one_per_query:
        return _one_weight_per_query(w, grouping, caller)
    return A.query_weights(grouping.rows, grouping.offsets, w)  # rows: arange if contiguous


def _one_weight_per_query(w: np.ndarray, grouping: Grouping, caller: str) -> np.ndarray:
    """The weight shared by the rows of each query, or the standard error naming the first
    row whose weight differs from its query's first row."""
    by_query = w[grouping.rows] if grouping.order is not None else w
    first = by_query[grouping.offsets[:-1]]
    differ = np.flatnonzero(by_query != np.repeat(first, grouping.sizes))
    if differ.size:
        q = int(np.searchsorted(grouping.offsets, differ[0], side="right")) - 1
        row = int(grouping.rows[differ[0]])
        raise InputError(
            f"The 'sample_weight' parameter of {caller} must give every row of a query the "
            "same weight under arithmetic='xgboost' (the xgboost preset): XGBoost has one "
            "weight per query group and refuses per-row weights. Got "
            f"{by_query[differ[0]].item()!r} at row {row} and "
            f"{first[q].item()!r} at the first row of query {grouping.qids[q].item()!r} "
            "instead. Give each query one weight, or choose arithmetic='lightgbm' (the mean "
            "of the rows' weights)."
        )
    return first


def _labels_array(arr: np.ndarray) -> np.ndarray:
    """Labels as int64 (integer or bool input that int64 holds) or float64, contiguous."""
    if arr.dtype.kind in "ib" or (arr.dtype.kind == "u" and arr.dtype.itemsize < 8):
        return np.ascontiguousarray(arr, dtype=np.int64)
    return np.ascontiguousarray(arr, dtype=np.float64)


def _check_values(y_true, y_score, mask, conv: Conventions, specs, caller: str):
    """Check scores and labels; return (max_label, int_labels) for the general kernel."""
    bad = A.first_not_finite(y_score, mask)
    if bad >= 0:
        raise InputError(
            f"The 'y_score' parameter of {caller} must hold finite scores. "
            f"Got {y_score[bad].item()!r} at row {bad} instead."
        )
    return _check_labels(y_true.astype(np.float64, copy=False), conv, specs, caller)


# the one-pass kernel's gain table for exponential and linear gain: labels 0..62
_FAST_LABELS = np.arange(63, dtype=np.float64)
_FAST_GAINS = {"exp": 2.0**_FAST_LABELS - 1.0, "linear": _FAST_LABELS}
_FAST_TIES = ("pessimistic", "optimistic", "input", "average")


def _kinds_ks(conv: Conventions, specs) -> tuple[np.ndarray, np.ndarray]:
    """Kernel codes and cutoffs (0: the whole list) of metrics sharing ``conv``."""
    ks = []
    for s in specs:
        k = s.k if s.k is not None else conv.default_k
        ks.append(0 if k is None else k)
    kinds = np.array([_KIND[s.name] for s in specs], dtype=np.int64)
    return kinds, np.array(ks, dtype=np.int64)


def _fast_eligible(conv: Conventions, specs, max_label: int | None) -> bool:
    """Whether the one-pass kernel computes these metrics (``evaluate_contiguous``)."""
    if conv.ties not in _FAST_TIES:
        return False
    kinds, ks = _kinds_ks(conv, specs)
    for kind, k in zip(kinds.tolist(), ks.tolist()):
        if kind == _KIND["err"] and max_label is None:
            return False  # ERR's scale depends on the largest label of the whole input
        if kind != _KIND["rr"] and not 1 <= k <= K.SMALL_K:
            return False
    return True


def _ideal_order(table: np.ndarray, conv: Conventions) -> np.ndarray:
    """The labels in the order of the ideal ranking: the kernels fill it from label counts.

    By decreasing gain, or by decreasing label (``ideal_order="label"``, LightGBM's).
    """
    if conv.ideal_order == "label":
        return np.arange(table.shape[0] - 1, -1, -1, dtype=np.int64)
    return np.argsort(-table, kind="stable").astype(np.int64)


def _fast_setup(mconv: Conventions, conv: Conventions, specs, group_specs):
    """The one-pass kernel's gain table, gain order, err scale, kinds and cutoffs."""
    if isinstance(mconv.gain, tuple):
        table = np.asarray(mconv.gain, dtype=np.float64)
    else:
        table = _FAST_GAINS[mconv.gain]
    if any(s.name == "err" for s in specs) and conv.max_label is not None:
        table = table[: conv.max_label + 1]  # larger labels: the full check raises
    order = _ideal_order(table, mconv)
    err_scale = float(2.0 ** -conv.max_label) if conv.max_label is not None else 1.0
    return (table, order, err_scale, *_kinds_ks(mconv, group_specs))


# below this many rows, one thread groups all rows before the threads evaluate
_SPLIT_ROWS = 200_000
_FAILED = "failed"


def _shrinking_cuts(n: int, n_threads: int) -> list[int]:
    """Row positions cutting ``n`` rows into ``2 n_threads`` chunks: ``n_threads`` of 40% of
    the rows each (``0.8 / n_threads``), then ``n_threads`` of 10% (``0.2 / n_threads``).

    Threads take the chunks in turn: evenly loaded threads take one large and one small
    chunk each, while a thread slowed by its core (two-thread timings on shared machines
    vary by tens of percent) leaves its small chunk to the others.
    """
    sizes = [0.8 / n_threads] * n_threads + [0.2 / n_threads] * (n_threads - 1)
    return [int(n * f) for f in itertools.accumulate(sizes)]


def _split_first_pass(y_true, y_score, qid, n, fast_groups, conv, specs, n_threads, caller):
    """Group and evaluate (first metric group, own tie rule) slice by slice, in threads.

    The rows are cut at query boundaries near :func:`_shrinking_cuts`; each thread takes the
    next slice, finds its runs of ids and evaluates them, so grouping is no serial pass.
    Returns ``(raw, grouping)``; ``(None, None)`` when it does not apply (ids that are not
    integers, or that do not increase from run to run: a query may then come back, and the
    caller groups all rows first); ``(_FAILED, None)`` when a row fails the kernel's check.
    """
    arr = as_qid_array(qid, n, caller)
    if arr.dtype.kind not in "iu":
        return None, None
    arr = np.ascontiguousarray(arr)
    cuts = [0]
    for c in _shrinking_cuts(n, n_threads):
        c = next_run_start(arr, c)
        if cuts[-1] < c < n:
            cuts.append(c)
    cuts.append(n)
    mconv, group_specs = next(iter(fast_groups.items()))
    table, order, err_scale, kinds, ks = _fast_setup(mconv, conv, specs, group_specs)

    def work(ab):
        a, b = ab
        starts, ids, increasing = run_starts(arr[a:b])
        if not increasing:
            return None
        offsets = starts + a
        out = _fast_outputs(offsets.shape[0] - 1, kinds.shape[0])
        bad = _kernel(y_true, y_score, offsets, mconv, mconv.ties, table, order, err_scale,
                      kinds, ks, *out)
        return bad, offsets, ids, out

    chunks = list(itertools.pairwise(cuts))
    parts = run_shared(work, chunks, n_threads)
    if any(p is None for p in parts) or any(arr[b - 1] >= arr[b] for _, b in chunks[:-1]):
        return None, None
    if any(p[0] >= 0 for p in parts):
        return _FAILED, None
    # each slice's offsets end where the next one's begin
    offsets = np.concatenate([*(p[1][:-1] for p in parts[:-1]), parts[-1][1]])
    qids = np.concatenate([p[2] for p in parts])
    raw = tuple(np.concatenate([p[3][i] for p in parts]) for i in range(3))
    return raw, Grouping(qids, offsets, None)


def _run_all_fast(y_true, y_score, grouping, fast_groups, conv, specs, tie_bounds, n_threads,
                  first=None):
    """Every metric group through the one-pass kernel; None if a row fails its check.

    ``first``: the first group's result under its own tie rule, when already computed.
    """
    out = {}
    for mconv, group_specs in fast_groups.items():
        rules = [mconv.ties] + (["pessimistic", "optimistic"] if tie_bounds else [])
        raws = []
        setup = None
        for rule in rules:
            if first is not None:
                raw, first = first, None
            else:
                if setup is None:
                    setup = _fast_setup(mconv, conv, specs, group_specs)
                raw = _run_fast(y_true, y_score, grouping.offsets, mconv, rule, setup,
                                n_threads)
            if raw is None:
                return None
            raws.append(raw)
        out[mconv] = (raws[0], tuple(raws[1:]) if tie_bounds else None)
    return out


def _fast_outputs(n_q: int, m: int):
    """Per-query values, empty flags and tie flags for the one-pass kernel to fill."""
    return (np.empty((n_q, m), dtype=np.float64), np.zeros((n_q, m), dtype=np.bool_),
            np.zeros((n_q, m), dtype=np.bool_))


def _kernel(y_true, y_score, offsets, conv, tie_rule, table, order, err_scale, kinds, ks,
            values, empty, ties):
    return K.evaluate_contiguous(
        offsets, y_true, y_score, _TIE[tie_rule], table, order, float(conv.rel_min),
        err_scale, _AP_DEN[conv.ap_denominator], conv.p_divisor == "min_k_n", kinds, ks,
        conv.arithmetic == "xgboost", values, empty, ties,
    )


def _run_fast(y_true, y_score, offsets, conv, tie_rule, setup, n_threads):
    table, order, err_scale, kinds, ks = setup
    values, empty, ties = _fast_outputs(offsets.shape[0] - 1, kinds.shape[0])

    def run(ab):
        a, b = ab
        return _kernel(y_true, y_score, offsets[a:b + 1], conv, tie_rule, table, order,
                       err_scale, kinds, ks, values[a:b], empty[a:b], ties[a:b])

    # the kernel releases the GIL: chunks of queries of about equal rows run in parallel
    # threads, each writing its own rows of the outputs
    bad = run_chunks(run, list(itertools.pairwise(_chunk_bounds(offsets, n_threads))))
    if any(b >= 0 for b in bad):
        return None
    return values, empty, ties


def _falling_table(conv: Conventions) -> np.ndarray | None:
    """The gain table of ``conv`` when some label gains less than a smaller one, else None."""
    if not isinstance(conv.gain, tuple):
        return None
    table = np.asarray(conv.gain, dtype=np.float64)
    return table if bool(np.any(np.diff(table) < 0)) else None


def _range_columns(conv: Conventions, specs) -> tuple[list[int], list[int]]:
    """Columns whose tie range is not given by the two ordering rules: AP@k over the
    relevant found, and DCG/NDCG under a falling gain table."""
    found = [j for j, s in enumerate(specs) if s.name == "ap"
             and conv.ap_denominator == "found" and _kinds_ks(conv, [s])[1][0] > 0]
    graded = ([j for j, s in enumerate(specs) if s.name in ("dcg", "ndcg")]
              if _falling_table(conv) is not None else [])
    return found, graded


def _tie_range_needs(conv: Conventions, specs) -> bool:
    found, graded = _range_columns(conv, specs)
    return bool(found or graded)


def _true_tie_range(bounds, conv: Conventions, specs, y_true, y_score, mask, grouping,
                    checked, n_threads):
    """``bounds`` (the raw results of the pessimistic and optimistic rules) with the columns
    of :func:`_range_columns` replaced by the true minimum and maximum over the tie orders.

    AP@k over the relevant found: the general kernel's ``"low"``/``"high"`` rules, which
    choose how many relevant rows of a tie group split by the cutoff fall inside it. DCG and
    NDCG under a gain table that falls: ties ordered by gain, not label (the labels renamed
    so that the table rises, which changes no gain nor the ideal DCG).
    """
    found, graded = _range_columns(conv, specs)
    low, high = ([a.copy() for a in side] for side in bounds)
    labels = y_true.astype(np.float64, copy=False)
    none = np.zeros(0, dtype=np.int64)
    kinds, ks = _kinds_ks(conv, specs)
    if found:
        sel = np.array(found)
        for out, rule in ((low, "low"), (high, "high")):
            raw = _run(labels, y_score, none, mask, grouping, conv, rule, kinds[sel], ks[sel],
                       *checked, n_threads)
            out[0][:, sel] = raw[0]
    if graded:
        table = _falling_table(conv)
        rank = np.argsort(table, kind="stable")  # labels by rising gain
        renamed = np.empty_like(rank)
        renamed[rank] = np.arange(rank.shape[0])
        risen = table[rank]
        if conv.ideal_order == "label":  # the ideal ranking keeps LightGBM's label order
            order = renamed[::-1].astype(np.int64)
        else:
            order = np.argsort(-risen, kind="stable").astype(np.int64)
        relabelled = renamed[labels.astype(np.int64)].astype(np.float64)
        sel = np.array(graded)
        for out, rule in ((low, "pessimistic"), (high, "optimistic")):
            raw = _run(relabelled, y_score, none, mask, grouping, conv, rule, kinds[sel],
                       ks[sel], *checked, n_threads, gain=(risen, order))
            out[0][:, sel] = raw[0]
    return tuple(low), tuple(high)


def _run(y_true, y_score, tiekey, mask, grouping, conv, tie_rule, kinds, ks, max_lab, int_labels,
         n_threads, gain=None):
    """The general kernel over every query; ``gain``: a (table, ideal order) to use instead
    of those of ``conv``."""
    if gain is not None:
        gain_mode = K.GAIN_MODES["table"]
        table, order = gain
    elif isinstance(conv.gain, tuple):
        gain_mode, table = K.GAIN_MODES["table"], np.asarray(conv.gain, dtype=np.float64)
    elif int_labels:
        labels = np.arange(int_labels, dtype=np.float64)
        gain_mode = K.GAIN_MODES["table"]
        table = labels if conv.gain == "linear" else 2.0**labels - 1.0
    else:
        gain_mode = K.GAIN_MODES[conv.gain]
        table = np.zeros(1, dtype=np.float64)
    if gain is None:
        order = _ideal_order(table, conv)

    def run(offsets):
        return K.evaluate_grouped(
            grouping.kernel_rows, offsets, grouping.contiguous, y_true, y_score, tiekey, mask,
            conv.idcg == "pool", _TIE[tie_rule], gain_mode, table, order,
            float(conv.rel_min), float(2.0 ** -max_lab), _AP_DEN[conv.ap_denominator],
            conv.p_divisor == "min_k_n", kinds, ks, max(grouping.max_size, 1),
            conv.arithmetic == "xgboost",
        )

    bounds = _chunk_bounds(grouping.offsets, n_threads)
    if len(bounds) == 2:
        return run(grouping.offsets)
    # the kernel releases the GIL: query chunks of about equal rows run in parallel threads;
    # every query's value is computed alone, so the result does not depend on n_jobs
    parts = run_chunks(lambda ab: run(grouping.offsets[ab[0]:ab[1] + 1]),
                       list(itertools.pairwise(bounds)))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def _chunk_bounds(offsets: np.ndarray, n_threads: int) -> list[int]:
    """Query indices that cut the queries into ``n_threads`` chunks of about equal rows."""
    n_q = offsets.shape[0] - 1
    n_threads = min(n_threads, n_q)
    if n_threads <= 1:
        return [0, n_q]
    targets = offsets[-1] * np.arange(1, n_threads) / n_threads
    cuts = np.searchsorted(offsets, targets).tolist()
    return sorted({0, *cuts, n_q})


def _threads(n_jobs: int | None) -> int:
    """Resolve a checked ``n_jobs`` (scikit-learn's convention: None is 1, -1 is every core)."""
    if n_jobs is None:
        return 1
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


_EMPTY_CODE = {"exclude": 0, "zero": 1, "one": 2}


def _float32_labels(y_true: np.ndarray, caller: str) -> np.ndarray:
    """Labels rounded to float32 (``label_precision="float32"``), held as float64.

    Integer labels up to 2**24 are exact in float32 and keep their dtype.
    """
    if y_true.dtype.kind in "iu":
        if y_true.shape[0] == 0 or max(abs(int(y_true.min())), abs(int(y_true.max()))) <= 2**24:
            return y_true
        y_true = y_true.astype(np.float64)
    return _to_float32(y_true, "y_true", "labels", "label_precision", caller).astype(np.float64)


def _to_float32(values: np.ndarray, name: str, what: str, convention: str,
                caller: str) -> np.ndarray:
    """``values`` as float32, or the standard error for the first finite value that does not
    fit (float32 would make it infinite)."""
    with np.errstate(over="ignore"):
        v32 = values.astype(np.float32)
    if not np.isfinite(v32).all():
        lost = np.isfinite(values) & ~np.isfinite(v32)
        if lost.any():
            bad = int(np.flatnonzero(lost)[0])
            raise InputError(
                f"The {name!r} parameter of {caller} must hold {what} that fit float32 "
                f"({convention}='float32', largest {float(np.finfo(np.float32).max):g})."
                f" Got {values[bad].item()!r} at row {bad} instead."
            )
    return v32


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
    values, empty, ties = raw
    col = np.ascontiguousarray(values[:, j])
    emp = np.ascontiguousarray(empty[:, j])
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
        xgb_value = _xgboost_weighted_precision(spec, conv, col, emp, code, w, grouping)
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
    if bounds is not None:
        # per query the two ends of the range over the tie orders (_true_tie_range: the
        # two ordering rules, or the true minimum and maximum where they are not the ends),
        # as [smaller, larger]
        pess, opt = (b[0][:, j] for b in bounds)
        interval = tuple(
            float(A.weighted_mean(np.ascontiguousarray(side), emp, code, w,
                                  conv.empty_weighted))
            for side in (np.fmin(pess, opt), np.fmax(pess, opt))
        )
    return MetricResult(
        metric=spec,
        value=float(value),
        per_query=per_query,
        qids=grouping.qids,
        conventions=conv,
        n_queries=grouping.n_queries,
        n_empty=n_empty,
        n_tie_affected=int(np.count_nonzero(ties[:, j])),
        tie_interval=interval,
        weighted=weights is not None,
    )
