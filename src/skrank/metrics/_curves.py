"""A metric at every cutoff of a list: the curve behind the metric@k charts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .._validation import InstanceOf, param_error, public_name, validate_params
from ._evaluate import evaluate
from ._spec import Metric

__all__ = ["metric_at_k"]


@validate_params({"metric": InstanceOf(str, "a metric name such as 'ndcg'")})
def metric_at_k(y_true: Any, y_score: Any, qid: Any = None, *, metric: str = "ndcg",
                ks: Iterable[int] = range(1, 21), **evaluate_kwargs: Any
                ) -> tuple[np.ndarray, np.ndarray]:
    """The mean of ``metric@k`` for each cutoff ``k`` (one :func:`skrank.evaluate` pass).

    Parameters
    ----------
    y_true, y_score, qid
        As in :func:`skrank.evaluate`.
    metric : str, default="ndcg"
        A metric name without cutoff (``"ndcg"``, ``"p"``, ``"r"``, ``"ap"``, ...).
    ks : iterable of int, default=range(1, 21)
        The cutoffs.
    **evaluate_kwargs
        Conventions and other arguments of :func:`skrank.evaluate`.

    Returns
    -------
    ks : ndarray of int
    values : ndarray of float

    Examples
    --------
    >>> from skrank.reports import metric_at_k
    >>> ks, values = metric_at_k([1, 0, 1], [0.9, 0.8, 0.1], [1, 1, 1], metric="p", ks=[1, 2, 3])
    >>> ks.tolist(), values.round(4).tolist()
    ([1, 2, 3], [1.0, 0.5, 0.6667])
    """
    base = Metric.parse(metric)
    k_list = [int(k) for k in ks]
    if not k_list:
        raise param_error("ks", "a non-empty sequence of cutoffs", ks, public_name())
    names = [Metric(base.name, k) for k in k_list]
    res = evaluate(y_true, y_score, qid, metrics=names, **evaluate_kwargs)
    return np.asarray(k_list), np.array([res[m].value for m in names], dtype=np.float64)
