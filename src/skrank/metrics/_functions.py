"""One function per metric, for single use: each is ``evaluate`` with one metric."""

from __future__ import annotations

import difflib
import inspect
from typing import Any

from .._validation import Interval, param_error, public_name, validate_params
from ._evaluate import evaluate
from ._result import MetricResult
from ._spec import Metric

__all__ = [
    "average_precision",
    "dcg",
    "err",
    "hit_rate",
    "ndcg",
    "precision",
    "recall",
    "reciprocal_rank",
]

_SHARED = """
    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Graded relevance labels: non-negative, except that ``gain="linear"`` takes negative
        labels (negative gains, as scikit-learn's ``dcg_score``) for DCG and the binary
        metrics; NDCG and ERR refuse them.
    y_score : array-like of shape (n_rows,)
        Scores; higher ranks first.
    qid : array-like of shape (n_rows,), optional
        Query id of each row; or give ``group`` sizes instead.
    k : int or None, default=None
        Cutoff; None is the whole list.
    **kwargs
        ``group``, ``preset``, ``doc_id``, ``sample_weight``, ``retrieved``, ``tie_bounds`` and
        every convention (``gain``, ``ties``, ``empty``, ``rel_min``, ...), as in
        :func:`skrank.evaluate`.

    Returns
    -------
    MetricResult
        ``float(result)`` is the mean; ``result.per_query`` the per-query values.
"""


# what a metric function passes on to evaluate (not the metric list)
_PASSED_ON = tuple(
    p for p in inspect.signature(evaluate).parameters
    if p not in ("y_true", "y_score", "qid", "metrics")
)
# what each metric function declares; the conventions are checked by Conventions
_PARAMS = {"k": [Interval(int, 1), None]}


def _one(name: str, k: int | None, y_true, y_score, qid, kwargs: dict[str, Any]) -> MetricResult:
    caller = public_name()
    for key in kwargs:
        if key not in _PASSED_ON:
            close = difflib.get_close_matches(key, _PASSED_ON, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise param_error(
                key,
                f"not passed: {caller}() has no such parameter{hint}; it takes k and "
                + ", ".join(_PASSED_ON),
                kwargs[key],
                caller,
            )
    metric = Metric(name, k)
    return evaluate(y_true, y_score, qid, metrics=[metric], **kwargs)[metric]


@validate_params(_PARAMS)
def ndcg(y_true, y_score, qid=None, *, k: int | None = None, **kwargs: Any) -> MetricResult:
    """Normalised DCG at k: DCG@k divided by the DCG@k of the ideal ordering.
    {shared}
    Examples
    --------
    >>> from skrank import ndcg
    >>> r = ndcg([2, 1, 0], [0.1, 0.5, 0.5], [7, 7, 7], k=3, gain="linear")
    >>> round(float(r), 4)         # pessimistic: (0 + 1/log2(3) + 2/2) / (2 + 1/log2(3))
    0.6199
    >>> ndcg([2, 1, 0], [0.1, 0.5, 0.5], [7, 7, 7], k=3, gain="linear", ties="optimistic").value
    0.7601...
    """
    return _one("ndcg", k, y_true, y_score, qid, kwargs)


@validate_params(_PARAMS)
def dcg(y_true, y_score, qid=None, *, k: int | None = None, **kwargs: Any) -> MetricResult:
    """Discounted cumulative gain at k: sum of gain(label) / log2(rank + 1) over the top k.
    {shared}
    Examples
    --------
    >>> from skrank import dcg
    >>> dcg([3, 2], [0.9, 0.1], [0, 0], gain="linear").value
    4.2618...
    """
    return _one("dcg", k, y_true, y_score, qid, kwargs)


@validate_params(_PARAMS)
def precision(y_true, y_score, qid=None, *, k: int | None = None, **kwargs: Any) -> MetricResult:
    """Precision at k: relevant documents (label >= rel_min) in the top k, divided by k.
    {shared}
    Examples
    --------
    >>> from skrank import precision
    >>> precision([1, 0, 1], [0.9, 0.8, 0.1], [0, 0, 0], k=2).value
    0.5
    """
    return _one("p", k, y_true, y_score, qid, kwargs)


@validate_params(_PARAMS)
def recall(y_true, y_score, qid=None, *, k: int | None = None, **kwargs: Any) -> MetricResult:
    """Recall at k: relevant documents in the top k over all relevant documents.
    {shared}
    Examples
    --------
    >>> from skrank import recall
    >>> recall([1, 0, 1], [0.9, 0.8, 0.1], [0, 0, 0], k=2).value
    0.5
    """
    return _one("r", k, y_true, y_score, qid, kwargs)


@validate_params(_PARAMS)
def hit_rate(y_true, y_score, qid=None, *, k: int | None = None, **kwargs: Any) -> MetricResult:
    """Hit rate (success) at k: 1 when at least one relevant document is in the top k.
    {shared}
    Examples
    --------
    >>> from skrank import hit_rate
    >>> hit_rate([0, 1, 0, 1], [0.9, 0.8, 0.1, 0.7], [0, 0, 1, 1], k=1).value
    0.5
    """
    return _one("hit", k, y_true, y_score, qid, kwargs)


@validate_params(_PARAMS)
def average_precision(
    y_true, y_score, qid=None, *, k: int | None = None, **kwargs: Any
) -> MetricResult:
    """Average precision at k: mean of P@i over the relevant ranks i <= k.

    The denominator is a convention (``ap_denominator``): all relevant documents
    (trec_eval), ``min(relevant, k)`` (LightGBM, XGBoost) or those found in the top k.
    {shared}
    Examples
    --------
    >>> from skrank import average_precision
    >>> y = [1, 0, 1, 0, 0, 0, 1, 1]   # relevant at ranks 1, 3, 7, 8 (R=4)
    >>> s = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> q = [0] * 8
    >>> [round(average_precision(y, s, q, k=3, ap_denominator=d).value, 4)
    ...  for d in ("all", "min_k", "found")]
    [0.4167, 0.5556, 0.8333]
    """
    return _one("ap", k, y_true, y_score, qid, kwargs)


@validate_params(_PARAMS)
def reciprocal_rank(
    y_true, y_score, qid=None, *, k: int | None = None, **kwargs: Any
) -> MetricResult:
    """Reciprocal rank: 1 / rank of the first relevant document (0 if none in the top k).
    {shared}
    Examples
    --------
    >>> from skrank import reciprocal_rank
    >>> y, s, q = [0, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0, 0]   # a constant scorer
    >>> [reciprocal_rank(y, s, q, ties=t).value for t in ("pessimistic", "input", "average")]
    [0.25, 0.3333333333333333, 0.5208333333333333]
    """
    return _one("rr", k, y_true, y_score, qid, kwargs)


@validate_params(_PARAMS)
def err(y_true, y_score, qid=None, *, k: int | None = None, **kwargs: Any) -> MetricResult:
    """Expected reciprocal rank at k (Chapelle et al., 2009).

    ``ERR@k = sum_i 1/i * R_i * prod_{j<i} (1 - R_j)`` with stopping probability
    ``R = (2**label - 1) / 2**max_label`` (``max_label`` defaults to the largest label).
    {shared}
    Examples
    --------
    >>> from skrank import err
    >>> err([2, 0, 1], [0.9, 0.5, 0.1], [0, 0, 0]).value    # 3/4 + (1/4)(1/4)/3
    0.7708...
    """
    return _one("err", k, y_true, y_score, qid, kwargs)


for _f in (ndcg, dcg, precision, recall, hit_rate, average_precision, reciprocal_rank, err):
    if _f.__doc__ is not None:  # None under python -OO
        _f.__doc__ = _f.__doc__.replace("{shared}", _SHARED)
del _f
