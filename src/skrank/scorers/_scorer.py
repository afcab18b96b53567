"""``RankingScorer``: a scikit-learn scorer that scores each query on its own."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from .._routing import UNCHANGED, require_routing, score_request, set_requests
from .._validation import param_error, relabel, validate_params
from ..conventions import CONVENTION_NAMES, TIE_RULES, Conventions, resolve_conventions
from ..exceptions import InputError, InvalidParameterError, SkrankWarning
from ..metrics._evaluate import evaluate
from ..metrics._result import EvaluationResult
from ..metrics._spec import Metric, unique_specs
from ._queries import (
    QID_COLUMN,
    FitQueries,
    as_1d_column,
    check_qid,
    is_pandas,
    n_rows,
    query_order,
    split_qid_column,
)

__all__ = ["MultiMetricRankingScorer", "RankingScorer", "make_ranking_scorer"]

# metadata a scorer can receive, and what it requests by default
_REQUESTABLE = ("qid", "groups", "sample_weight")
_DEFAULT_REQUESTS: dict[str, bool | str | None] = {
    "qid": True,
    "groups": True,
    "sample_weight": None,
}
_SCORER_TIES = tuple(t for t in TIE_RULES if t != "docid")


class _QueryScorer:
    """What the one-metric and the multi-metric scorers share: conventions, routing, qids."""

    def __init__(
        self,
        metrics: tuple[Metric, ...],
        preset: str | None,
        conventions: Conventions | None,
        overrides: dict[str, Any],
    ) -> None:
        self._metrics = metrics
        given = {k: v for k, v in overrides.items() if v is not None}
        for name in given:
            if name not in CONVENTION_NAMES:
                raise param_error(
                    name,
                    "not passed: it is not a convention; known are " + ", ".join(CONVENTION_NAMES),
                    given[name],
                    "make_ranking_scorer",
                )
        self.conventions = resolve_conventions(preset, conventions, **given)
        if self.conventions.ties == "docid":
            raise param_error(
                "ties",
                "one of " + ", ".join(repr(t) for t in _SCORER_TIES)
                + " (ties='docid' needs document ids, which a scorer does not receive)",
                "docid",
                "make_ranking_scorer",
            )
        self._preset = preset
        self._base = conventions
        self._overrides = {k: given[k] for k in CONVENTION_NAMES if k in given}
        self._requests: dict[str, bool | str | None] = dict(_DEFAULT_REQUESTS)

    # -- description ---------------------------------------------------------------------

    def _shown_metrics(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        parts = [self._shown_metrics()]
        if self._preset is not None:
            parts.append(f"preset={self._preset!r}")
        if self._base is not None:
            parts.append(f"conventions={self._base!r}")
        parts += [f"{k}={v!r}" for k, v in self._overrides.items()]
        return f"make_ranking_scorer({', '.join(parts)})"

    def _routing_repr(self) -> str:  # shown by scikit-learn's routing error messages
        return repr(self)

    # -- metadata routing ----------------------------------------------------------------

    def set_score_request(
        self,
        *,
        qid: bool | str | None = UNCHANGED,
        groups: bool | str | None = UNCHANGED,
        sample_weight: bool | str | None = UNCHANGED,
    ) -> Any:
        """Choose which metadata the scorer receives (metadata routing must be enabled).

        Parameters
        ----------
        qid, groups, sample_weight : bool, str or None
            ``True`` requests the metadata, ``False`` refuses it, ``None`` leaves it unset
            (an error if it is passed), a string requests it under another name (an alias).
            Defaults: ``qid=True``, ``groups=True``, ``sample_weight=None``.

        Returns
        -------
        self
            The scorer itself.
        """
        require_routing()
        set_requests(self._requests, identifiers=True, qid=qid, groups=groups,
                     sample_weight=sample_weight)
        return self

    def get_metadata_routing(self):
        """The metadata this scorer requests, for scikit-learn's metadata routing.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRequest
        """
        return score_request(self, self._requests)

    def _accept_sample_weight(self) -> bool:
        # Asked by scikit-learn's multi-metric scoring (a dict of scorers) and by its searches
        # when routing is disabled: a private hook of scikit-learn (TODO(slep006) there),
        # pinned by tests/scorers/test_sklearn_hooks.py, which fails when scikit-learn stops
        # asking or renames it.
        return True

    # -- scoring -------------------------------------------------------------------------

    def _evaluate(self, estimator: Any, X: Any, y_true: Any, qid: Any, groups: Any,
                  sample_weight: Any) -> EvaluationResult:
        """Predict once and evaluate every metric of the scorer in one pass."""
        where = repr(self)
        predict = getattr(estimator, "predict", None)
        if not callable(predict):
            raise InvalidParameterError(
                f"The 'estimator' parameter of {where} must be a fitted estimator with a "
                f"predict method (a ranker or regressor). Got a {type(estimator).__name__} "
                "instead, which has no predict."
            )
        n = n_rows(X)
        y = as_1d_column(y_true)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y.ndim != 1 or y.shape[0] != n:
            raise InputError(
                f"The labels given to {where} must be 1-D with one label per row of X: X has "
                f"{n} rows but y has shape {y.shape}."
            )
        rows_qid = self._find_qid(X, n, qid, groups, where)

        y_pred = as_1d_column(predict(X))
        if y_pred.ndim == 2 and y_pred.shape[1] == 1:
            y_pred = y_pred.ravel()
        if y_pred.ndim != 1 or y_pred.shape[0] != n:
            raise InputError(
                f"{type(estimator).__name__}.predict must return one score per row for {where}:"
                f" X has {n} rows but the predictions have shape {y_pred.shape}."
            )
        _warn_if_cut(estimator, X, rows_qid, where)
        with relabel(where):
            return evaluate(
                y,
                y_pred,
                rows_qid,
                metrics=list(self._metrics),
                conventions=self.conventions,
                sample_weight=sample_weight,
            )

    def _find_qid(self, X: Any, n: int, qid: Any, groups: Any, where: str) -> np.ndarray:
        if qid is not None:
            return check_qid(qid, n, source="the 'qid' metadata", where=where)
        _, column = split_qid_column(X)
        if groups is not None:
            routed = check_qid(groups, n, source="the 'groups' metadata", where=where)
            if column is not None:
                col = check_qid(column, n, source="the 'qid' column of X", where=where)
                a = query_order(routed, where=where)
                b = query_order(col, where=where)
                if not np.array_equal(a.codes, b.codes):
                    raise InputError(
                        f"{where} received 'groups' but not 'qid', and X has a 'qid' column "
                        "that groups the rows differently. The groups of the splitter are "
                        "not the queries here: route the query ids too, e.g. "
                        "params={'groups': groups, 'qid': qid}."
                    )
            return routed
        if column is not None:
            return check_qid(column, n, source=f"the {QID_COLUMN!r} column of X", where=where)
        raise InputError(
            f"{where} cannot tell which query each row of X belongs to, and will not score "
            "all rows as one query. Give it the query ids in one of two ways: (1) enable "
            "metadata routing with sklearn.set_config(enable_metadata_routing=True) and pass "
            "them as metadata, e.g. cross_validate(..., params={'qid': qid, 'groups': qid}) "
            "(the scorer requests 'qid' and 'groups'); or (2) keep them in a 'qid' column of "
            "a pandas DataFrame X, which XGBRanker and skrank.lightgbm.LGBMRanker do not use "
            "as a feature. Called by hand: scorer(estimator, X, y, qid=qid)."
        )


class RankingScorer(_QueryScorer):
    """A scikit-learn scorer for one ranking metric, computed query by query.

    Build it with :func:`make_ranking_scorer`, a shortcut such as :func:`ndcg_at`, or
    :func:`get_ranking_scorer`. Call it as scikit-learn does, ``scorer(estimator, X, y)``: it
    predicts scores for ``X``, ranks the rows of each query by them and returns the metric's
    mean over the queries (greater is better, for every metric).

    The query of each row comes from, in this order:

    1. the ``qid`` passed to the call (with metadata routing enabled, scikit-learn passes the
       rows' slice of ``params={"qid": qid}``), or else the ``groups`` passed when ``qid`` is
       not (so that ``params={"groups": qid}`` alone is enough);
    2. a ``qid`` column of a DataFrame ``X`` (pandas, polars or pyarrow; XGBoost's
       convention; the ranker must not use it as a feature: :class:`xgboost.XGBRanker` and
       :class:`skrank.lightgbm.LGBMRanker` drop it);
    3. nowhere: the scorer raises :class:`~skrank.InputError`. It never scores all rows as
       one query.

    Parameters
    ----------
    metric : str or Metric
        A metric name such as ``"ndcg@5"``, ``"ap@10"``, ``"rr"`` (see
        :func:`get_ranking_scorer_names`), or a :class:`skrank.Metric`.
    preset : {"lightgbm", "xgboost", "trec_eval", "trec_eval9", "sklearn", "spark"}, optional
        Start from the conventions of a reference library.
    conventions : Conventions, optional
        A complete set of conventions to start from (instead of ``preset``).
    **overrides
        Individual conventions (``gain``, ``ties``, ``empty``, ``rel_min``,
        ``ap_denominator``, ``p_divisor``, ``score_precision``, ``default_k``, ``max_label``,
        ``empty_weighted``, ``idcg``); see :class:`skrank.Conventions`. ``ties="docid"`` is
        refused: a scorer receives no document ids.

    Attributes
    ----------
    metric : Metric
        The metric and its cutoff.
    conventions : Conventions
        Every convention in force.

    See Also
    --------
    MultiMetricRankingScorer : Several metrics from one ``predict``.

    Notes
    -----
    *Metadata routing.* The scorer requests ``qid`` and ``groups`` by default and leaves
    ``sample_weight`` unrequested, as scikit-learn's scorers do; change that with
    :meth:`set_score_request` (routing enabled). Row weights, when routed, weight each query
    by the mean of its rows' weights.

    *Several metrics.* Every call predicts afresh: nothing is cached between calls. A dict
    of scorers (``scoring={"ndcg@5": ndcg_at(5), "ap@10": average_precision_at(10)}``)
    therefore predicts once per scorer; ``make_ranking_scorer(["ndcg@5", "ap@10"])``
    predicts once for all of them (:class:`MultiMetricRankingScorer`).

    *Queries cut by the split.* When the estimator is a skrank ranker adapter (or a pipeline
    or search ending in one), it remembers the query ids it was trained on; the scorer warns
    with :class:`~skrank.SkrankWarning` when the rows it scores belong to queries that were
    also trained on, which means the cross-validation split cut queries in two. It can only
    tell when some but not all scored queries were trained on or, for DataFrames, when the
    scored rows are not training rows (different index labels).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skrank import make_ranking_scorer
    >>> X = np.array([[3.0], [1.0], [2.0], [0.0], [2.0], [1.0]])
    >>> y = np.array([2, 0, 1, 0, 1, 0])
    >>> qid = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LinearRegression().fit(X, y)
    >>> scorer = make_ranking_scorer("ndcg@2", ties="pessimistic")
    >>> scorer
    make_ranking_scorer('ndcg@2', ties='pessimistic')
    >>> round(scorer(model, X, y, qid=qid), 4)
    1.0
    """

    def __init__(
        self,
        metric: str | Metric,
        *,
        preset: str | None = None,
        conventions: Conventions | None = None,
        **overrides: Any,
    ) -> None:
        self.metric = Metric.parse(metric)
        super().__init__((self.metric,), preset, conventions, overrides)

    def _shown_metrics(self) -> str:
        return repr(str(self.metric))

    @property
    def name(self) -> str:
        """The metric's name, e.g. ``"ndcg@5"`` (a key for ``scoring={...}``)."""
        return str(self.metric)

    def __call__(
        self,
        estimator: Any,
        X: Any,
        y_true: Any,
        *,
        qid: Any = None,
        groups: Any = None,
        sample_weight: Any = None,
    ) -> float:
        """Score ``estimator`` on ``X`` against the labels ``y_true``, query by query.

        Parameters
        ----------
        estimator : object
            A fitted estimator with ``predict``; higher predictions rank first.
        X : array-like, DataFrame or sparse matrix of shape (n_rows, n_features)
            The rows to score. A DataFrame may hold the query ids in a ``qid`` column.
        y_true : array-like of shape (n_rows,)
            Graded relevance labels.
        qid : array-like of shape (n_rows,), optional
            Query id of each row (routed by scikit-learn, or passed by hand).
        groups : array-like of shape (n_rows,), optional
            Used as the query ids when ``qid`` is not given (the splitter's groups).
        sample_weight : array-like of shape (n_rows,), optional
            Row weights; a query weighs the mean of its rows' weights.

        Returns
        -------
        float
            The metric's mean over the queries (NaN if no query counts).
        """
        result = self._evaluate(estimator, X, y_true, qid, groups, sample_weight)
        return float(result[self.metric].value)


class MultiMetricRankingScorer(_QueryScorer):
    """A scikit-learn scorer for several ranking metrics: one ``predict``, one pass.

    Built by :func:`make_ranking_scorer` from a list of metrics. Called as scikit-learn calls
    a scorer, ``scorer(estimator, X, y)``, it predicts once, evaluates every metric in one
    :func:`skrank.evaluate` pass and returns ``{name: mean}``: a scoring callable that
    returns a dict, which scikit-learn's ``cross_validate`` and searches take as
    ``scoring=`` (with ``refit=`` one of the names). Nothing is cached between calls, so a
    refitted estimator is always scored on fresh predictions.

    The query ids are found as by :class:`RankingScorer`; metadata routing is the same.

    Parameters
    ----------
    metrics : sequence of str or Metric
        The metrics, e.g. ``["ndcg@5", "ap@10", "rr"]``; repeats are dropped.
    preset, conventions, **overrides
        As for :class:`RankingScorer`; one set of conventions for every metric.

    Attributes
    ----------
    metrics : tuple of Metric
        The metrics, in the order given.
    names : tuple of str
        Their canonical names, the keys of the returned dict (``"ap@10"`` for
        ``"map@10"``): use one of them as ``refit=``.
    conventions : Conventions
        Every convention in force.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skrank import make_ranking_scorer
    >>> X = np.array([[3.0], [1.0], [2.0], [0.0], [2.0], [1.0]])
    >>> y = np.array([2, 0, 1, 0, 1, 0])
    >>> qid = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LinearRegression().fit(X, y)
    >>> scorer = make_ranking_scorer(["ndcg@2", "MAP@2", "rr"], ties="pessimistic")
    >>> scorer
    make_ranking_scorer(['ndcg@2', 'ap@2', 'rr'], ties='pessimistic')
    >>> scorer(model, X, y, qid=qid)
    {'ndcg@2': 1.0, 'ap@2': 1.0, 'rr': 1.0}

    In a search: ``GridSearchCV(ranker, grid, cv=GroupKFold(5), scoring=scorer,
    refit="ndcg@2")``.
    """

    def __init__(
        self,
        metrics: Sequence[str | Metric],
        *,
        preset: str | None = None,
        conventions: Conventions | None = None,
        **overrides: Any,
    ) -> None:
        if isinstance(metrics, (str, Metric)) or not isinstance(metrics, Sequence) or (
            len(metrics) == 0
        ):
            raise param_error(
                "metrics", "a non-empty list of metric names such as ['ndcg@5', 'ap@10']",
                metrics, "make_ranking_scorer",
            )
        self.metrics: tuple[Metric, ...] = tuple(unique_specs(metrics))
        super().__init__(self.metrics, preset, conventions, overrides)

    def _shown_metrics(self) -> str:
        return repr([str(m) for m in self.metrics])

    @property
    def names(self) -> tuple[str, ...]:
        """The keys of the returned dict, e.g. ``("ndcg@5", "ap@10")``."""
        return tuple(str(m) for m in self.metrics)

    def __call__(
        self,
        estimator: Any,
        X: Any,
        y_true: Any,
        *,
        qid: Any = None,
        groups: Any = None,
        sample_weight: Any = None,
    ) -> dict[str, float]:
        """Score ``estimator`` on ``X`` with every metric, from one ``predict``.

        Parameters are those of :meth:`RankingScorer.__call__`.

        Returns
        -------
        dict of str to float
            ``{name: mean over the queries}``, in the order of :attr:`metrics`.
        """
        result = self._evaluate(estimator, X, y_true, qid, groups, sample_weight)
        return {str(m): float(result[m].value) for m in self.metrics}



def _fit_queries(estimator: Any) -> FitQueries | None:
    obj = estimator
    for _ in range(6):
        found = getattr(obj, "_skrank_fit_queries", None)
        if isinstance(found, FitQueries):
            return found
        steps = getattr(obj, "steps", None)
        if isinstance(steps, list) and steps and isinstance(steps[-1], tuple):
            obj = steps[-1][-1]
            continue
        best = getattr(obj, "best_estimator_", None)
        if best is None:
            return None
        obj = best
    return None


def _warn_if_cut(estimator: Any, X: Any, qid: np.ndarray, where: str) -> None:
    fitted = _fit_queries(estimator)
    if fitted is None or fitted.qids.size == 0:
        return
    scored = np.unique(qid)
    inside = np.isin(scored, fitted.qids)
    n_in = int(inside.sum())
    if n_in == 0:
        return
    cut = n_in < scored.shape[0]
    if not cut and fitted.index is not None and is_pandas(X):
        cut = not bool(X.index.isin(fitted.index).any())
    if cut:
        shown = ", ".join(repr(v) for v in scored[inside][:3].tolist())
        warnings.warn(
            f"{n_in} of the {scored.shape[0]} queries scored by {where} (e.g. {shown}) also "
            "have rows in the data the ranker was trained on: the split cut these queries in "
            "two, so the score mixes trained-on and held-out documents of the same query. "
            "Split by query: GroupKFold with groups=qid (or params={'groups': qid}). If X is "
            "a separate test set whose query ids merely reuse training ids, ignore this.",
            SkrankWarning,
            stacklevel=3,
        )


@overload
def make_ranking_scorer(
    metric: str | Metric,
    *,
    preset: str | None = None,
    conventions: Conventions | None = None,
    **overrides: Any,
) -> RankingScorer: ...


@overload
def make_ranking_scorer(
    metric: Sequence[str | Metric],
    *,
    preset: str | None = None,
    conventions: Conventions | None = None,
    **overrides: Any,
) -> MultiMetricRankingScorer: ...


@validate_params({})  # metric: Metric.parse; the conventions: Conventions
def make_ranking_scorer(
    metric: str | Metric | Sequence[str | Metric],
    *,
    preset: str | None = None,
    conventions: Conventions | None = None,
    **overrides: Any,
) -> RankingScorer | MultiMetricRankingScorer:
    """Make a scikit-learn scorer for a ranking metric with explicit conventions.

    The scorer ranks the rows of each query by the estimator's predictions and returns the
    mean of the metric over the queries; greater is better. It finds the query of each row in
    the routed ``qid`` (or ``groups``) metadata, else in a ``qid`` column of a DataFrame
    ``X``; see :class:`RankingScorer`.

    A list of metrics makes one scorer for all of them: it predicts once, evaluates every
    metric in one pass and returns ``{name: mean}``, a scoring callable that returns a dict
    as scikit-learn documents it (``scoring=scorer, refit="ndcg@5"``); see
    :class:`MultiMetricRankingScorer`.

    Parameters
    ----------
    metric : str, Metric or list of them
        ``"ndcg@10"``, ``"dcg@5"``, ``"p@5"``, ``"r@100"``, ``"hit@10"``, ``"ap@10"``
        (or ``"map@10"``), ``"rr"`` (or ``"mrr"``), ``"err@20"``, trec_eval's names
        (``"ndcg_cut.10"``, ``"P.5"``), a :class:`skrank.Metric`, or a list of them.
    preset : {"lightgbm", "xgboost", "trec_eval", "trec_eval9", "sklearn", "spark"}, optional
        Conventions of a reference library; explicit conventions override it.
    conventions : Conventions, optional
        A complete set of conventions to start from (instead of ``preset``).
    **overrides
        Conventions such as ``gain="exp"``, ``ties="pessimistic"``, ``empty="exclude"``,
        ``rel_min=1``; see :class:`skrank.Conventions`. Defaults are skrank's.

    Returns
    -------
    RankingScorer or MultiMetricRankingScorer
        A picklable scorer whose ``repr`` rebuilds it: a :class:`RankingScorer` (returns a
        float) for one metric, a :class:`MultiMetricRankingScorer` (returns a dict) for a
        list.

    See Also
    --------
    ndcg_at, average_precision_at, reciprocal_rank_at : Shortcuts for common metrics.
    get_ranking_scorer : A scorer from a name alone.

    Examples
    --------
    >>> from skrank import make_ranking_scorer
    >>> make_ranking_scorer("map@10", preset="lightgbm")
    make_ranking_scorer('ap@10', preset='lightgbm')
    >>> make_ranking_scorer("ndcg@5", ties="pessimistic").conventions.ties
    'pessimistic'
    >>> make_ranking_scorer(["ndcg@5", "ap@10", "rr"], ties="pessimistic").names
    ('ndcg@5', 'ap@10', 'rr')

    Cross-validating a LightGBM ranker, the query ids in a ``qid`` column of X::

        from sklearn.model_selection import GroupKFold, cross_validate
        from skrank.lightgbm import LGBMRanker
        cross_validate(LGBMRanker(), X, y, groups=X["qid"], cv=GroupKFold(5),
                       scoring=make_ranking_scorer("ndcg@5", ties="pessimistic"))

    Several metrics from one ``predict`` per fold, the search refitted on one of them::

        GridSearchCV(LGBMRanker(), grid, cv=GroupKFold(5), refit="ndcg@5",
                     scoring=make_ranking_scorer(["ndcg@5", "ap@10", "rr"], ties="pessimistic"))
    """
    if isinstance(metric, (str, Metric)):
        return RankingScorer(metric, preset=preset, conventions=conventions, **overrides)
    return MultiMetricRankingScorer(metric, preset=preset, conventions=conventions, **overrides)
