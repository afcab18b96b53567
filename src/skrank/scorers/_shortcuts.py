"""One scorer per metric (``ndcg_at(10)``), a scorer by name, and the deprecated aliases."""

from __future__ import annotations

import warnings
from typing import Any

from .._validation import InstanceOf, param_error, public_name, validate_params
from ..exceptions import InvalidParameterError
from ..metrics._spec import METRIC_NAMES, Metric
from ._scorer import RankingScorer

__all__ = [
    "average_precision_at",
    "dcg_at",
    "err_at",
    "get_ranking_scorer",
    "get_ranking_scorer_names",
    "hit_rate_at",
    "ndcg_at",
    "precision_at",
    "recall_at",
    "reciprocal_rank_at",
]


# k is checked by Metric, whose message names the metric ("'k' parameter of ndcg"), as the
# metric functions' do
_K_BY_METRIC: dict[str, Any] = {}


def _shortcut(name: str, k: int | None, options: dict[str, Any]) -> RankingScorer:
    return RankingScorer(Metric(name, k), **options)


@validate_params(_K_BY_METRIC)
def ndcg_at(k: int | None, **options: Any) -> RankingScorer:
    """Scorer of NDCG@k (normalised discounted cumulative gain).

    Parameters
    ----------
    k : int or None
        Cutoff; ``None`` is the whole ranked list.
    **options
        ``preset``, ``conventions`` and conventions, as in :func:`make_ranking_scorer`.

    Examples
    --------
    >>> from skrank import ndcg_at
    >>> ndcg_at(5, ties="pessimistic")
    make_ranking_scorer('ndcg@5', ties='pessimistic')
    """
    return _shortcut("ndcg", k, options)


@validate_params(_K_BY_METRIC)
def dcg_at(k: int | None, **options: Any) -> RankingScorer:
    """Scorer of DCG@k (discounted cumulative gain); see :func:`ndcg_at` for the parameters.

    Examples
    --------
    >>> from skrank import dcg_at
    >>> dcg_at(10, gain="linear")
    make_ranking_scorer('dcg@10', gain='linear')
    """
    return _shortcut("dcg", k, options)


@validate_params(_K_BY_METRIC)
def precision_at(k: int | None, **options: Any) -> RankingScorer:
    """Scorer of P@k (precision); see :func:`ndcg_at` for the parameters.

    Examples
    --------
    >>> from skrank import precision_at
    >>> precision_at(5, p_divisor="min_k_n")
    make_ranking_scorer('p@5', p_divisor='min_k_n')
    """
    return _shortcut("p", k, options)


@validate_params(_K_BY_METRIC)
def recall_at(k: int | None, **options: Any) -> RankingScorer:
    """Scorer of R@k (recall); see :func:`ndcg_at` for the parameters.

    Examples
    --------
    >>> from skrank import recall_at
    >>> recall_at(100)
    make_ranking_scorer('r@100')
    """
    return _shortcut("r", k, options)


@validate_params(_K_BY_METRIC)
def average_precision_at(k: int | None, **options: Any) -> RankingScorer:
    """Scorer of AP@k (:func:`skrank.average_precision`), whose mean over queries is MAP@k.

    See :func:`ndcg_at` for the parameters.

    Examples
    --------
    >>> from skrank import average_precision_at
    >>> average_precision_at(10, ap_denominator="min_k")
    make_ranking_scorer('ap@10', ap_denominator='min_k')
    """
    return _shortcut("ap", k, options)


@validate_params(_K_BY_METRIC)
def reciprocal_rank_at(k: int | None, **options: Any) -> RankingScorer:
    """Scorer of RR@k (:func:`skrank.reciprocal_rank`), whose mean over queries is MRR@k.

    See :func:`ndcg_at` for the parameters.

    Examples
    --------
    >>> from skrank import reciprocal_rank_at
    >>> reciprocal_rank_at(None)
    make_ranking_scorer('rr')
    """
    return _shortcut("rr", k, options)


@validate_params(_K_BY_METRIC)
def err_at(k: int | None, **options: Any) -> RankingScorer:
    """Scorer of ERR@k (expected reciprocal rank); see :func:`ndcg_at` for the parameters.

    Examples
    --------
    >>> from skrank import err_at
    >>> err_at(20, max_label=4)
    make_ranking_scorer('err@20', max_label=4)
    """
    return _shortcut("err", k, options)


@validate_params(_K_BY_METRIC)
def hit_rate_at(k: int | None, **options: Any) -> RankingScorer:
    """Scorer of the hit rate at k (a relevant document in the top k); see :func:`ndcg_at`.

    Examples
    --------
    >>> from skrank import hit_rate_at
    >>> hit_rate_at(10)
    make_ranking_scorer('hit@10')
    """
    return _shortcut("hit", k, options)


@validate_params({"scoring": InstanceOf(
    (str, Metric, RankingScorer),
    "a metric name such as 'ndcg@10' (see skrank.get_ranking_scorer_names())",
)})
def get_ranking_scorer(scoring: str | Metric | RankingScorer) -> RankingScorer:
    """A scorer from a metric name, with skrank's default conventions.

    Named so as not to shadow :func:`sklearn.metrics.get_scorer` (which takes scikit-learn's
    own scorer names): ``from skrank import *`` beside scikit-learn is safe.

    Parameters
    ----------
    scoring : str, Metric or RankingScorer
        A name such as ``"ndcg@10"`` (see :func:`get_ranking_scorer_names`); a scorer is
        returned as is.

    Returns
    -------
    RankingScorer

    Examples
    --------
    >>> from skrank import get_ranking_scorer
    >>> get_ranking_scorer("ndcg@10")
    make_ranking_scorer('ndcg@10')
    >>> get_ranking_scorer("MRR")
    make_ranking_scorer('rr')
    """
    if isinstance(scoring, RankingScorer):
        return scoring
    try:
        return RankingScorer(scoring)
    except InvalidParameterError:
        raise param_error(
            "scoring",
            "a ranking metric name from skrank.get_ranking_scorer_names(), optionally with @k "
            "(e.g. 'ndcg@10'); scikit-learn's own scorers come from sklearn.metrics.get_scorer",
            scoring,
            public_name(),
        ) from None


@validate_params({})
def get_ranking_scorer_names() -> list[str]:
    """Names accepted by :func:`get_ranking_scorer`, each optionally followed by ``@k``.

    Aliases are accepted too: ``"map"`` for ``"ap"``, ``"mrr"`` for ``"rr"``,
    ``"precision"``, ``"recall"``, ``"hit_rate"``, ``"success"``.

    Returns
    -------
    list of str
        Canonical metric names, sorted.

    Examples
    --------
    >>> from skrank import get_ranking_scorer_names
    >>> get_ranking_scorer_names()
    ['ap', 'dcg', 'err', 'hit', 'ndcg', 'p', 'r', 'rr']
    """
    return sorted(METRIC_NAMES)


# -- deprecated names ------------------------------------------------------------------------


def _deprecated(old: str, new: Any, why: str) -> Any:
    def alias(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"skrank.{old} is deprecated and will be removed; use skrank.{new.__name__}, "
            f"the same function ({why}).",
            DeprecationWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated alias of :func:`{new.__name__}` ({why})."
    return alias


_ONE_NAME = "one name per metric, as the metric function's"
_SHADOWS = "this name shadowed scikit-learn's function of another meaning"
map_at = _deprecated("map_at", average_precision_at, _ONE_NAME)
mrr_at = _deprecated("mrr_at", reciprocal_rank_at, _ONE_NAME)
get_scorer = _deprecated("get_scorer", get_ranking_scorer, _SHADOWS)
get_scorer_names = _deprecated("get_scorer_names", get_ranking_scorer_names, _SHADOWS)
