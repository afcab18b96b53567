"""Pipelines with preprocessing in front of a ranker: the query ids go round the steps.

``make_pipeline(StandardScaler(), LGBMRanker())`` cannot train on a DataFrame whose ``qid``
column holds the query ids: the scaler treats the column as a feature (it scales the ids, or
returns an array without it), so the ranker never sees the queries. A
:class:`RankingPipeline` takes the ``qid`` column out of ``X`` before the first step and hands
the ids to the last step's ``fit`` as ``qid=``; the steps see only the features. Everything
else is scikit-learn's :class:`~sklearn.pipeline.Pipeline` (parameters, ``clone``, metadata
routing, caching). See :doc:`/cross_validation`.

Importing this module imports scikit-learn.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from sklearn.pipeline import Pipeline

from ._routing import routing_enabled
from .exceptions import InputError
from .scorers._queries import QID_COLUMN, check_qid, n_rows, split_qid_column

__all__ = ["RankingPipeline", "make_ranking_pipeline"]


def _takes(method: Any, name: str) -> bool:
    """Whether ``method`` has a parameter ``name`` (or ``**kwargs``)."""
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


class RankingPipeline(Pipeline):
    """A :class:`~sklearn.pipeline.Pipeline` whose steps never see the ``qid`` column.

    When ``X`` is a DataFrame (pandas, polars or pyarrow) with a ``qid`` column, the pipeline
    removes the column before the first step and gives the ids to the last step: ``fit``
    passes them as ``qid=`` (to a ranker that takes them, such as
    :class:`skrank.lightgbm.LGBMRanker`, :class:`skrank.xgboost.XGBRanker` or
    :class:`xgboost.XGBRanker`; a last step without a ``qid`` parameter gets only the
    features), and ``predict``, ``decision_function``, ``transform`` and ``score`` drop the
    column before transforming. skrank's scorers read the ids from the same column of the
    ``X`` they are given, so ``cross_validate(pipe, X, y, groups=X["qid"],
    scoring=ndcg_at(5))`` works without metadata routing.

    With metadata routing enabled, per-row ``qid`` metadata is routed as by a
    :class:`~sklearn.pipeline.Pipeline`; a ``qid`` column is used only when no ``qid`` is
    routed, and both may be given only if they agree. ``X`` without a ``qid`` column (a
    NumPy array, with routed ids) passes through unchanged.

    Parameters
    ----------
    steps : list of (str, estimator) tuples
        As for :class:`~sklearn.pipeline.Pipeline`; the last one is the ranker.
    transform_input, memory, verbose
        As for :class:`~sklearn.pipeline.Pipeline`.

    See Also
    --------
    make_ranking_pipeline : Build one from estimators, naming the steps.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skrank.lightgbm import LGBMRanker
    >>> from skrank.pipeline import make_ranking_pipeline
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    >>> X.insert(0, "qid", np.repeat([3, 1, 4, 2], 20))
    >>> y = (X["a"] > 0).astype(int)
    >>> pipe = make_ranking_pipeline(
    ...     StandardScaler(), LGBMRanker(n_estimators=5, min_child_samples=5, verbose=-1))
    >>> pipe.fit(X, y).predict(X).shape
    (80,)
    >>> pipe[0].feature_names_in_          # the scaler never saw the query ids
    array(['a', 'b', 'c'], dtype=object)
    """

    def _last_takes_qid(self, method: str) -> bool:
        last = self._final_estimator
        return last not in (None, "passthrough") and _takes(getattr(last, method, None), "qid")

    def fit(self, X: Any, y: Any = None, **params: Any) -> RankingPipeline:
        """Fit the steps on the features of ``X``, the last one with the query ids.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_columns)
            Training rows; a DataFrame may hold the query ids in a ``qid`` column.
        y : array-like of shape (n_samples,)
            Relevance labels.
        **params
            As for :meth:`sklearn.pipeline.Pipeline.fit`.

        Returns
        -------
        self : RankingPipeline
        """
        X_feat, ids = split_qid_column(X)
        if ids is not None:
            params = self._with_qid(params, ids, n_rows(X))
        super().fit(X_feat, y, **params)
        return self

    def _with_qid(self, params: dict[str, Any], ids: np.ndarray, n: int) -> dict[str, Any]:
        where = f"{type(self).__name__}.fit"
        if routing_enabled():
            key = "qid"
        else:
            if not self._last_takes_qid("fit"):
                return params  # a last step without query ids: the column is simply dropped
            key = f"{self.steps[-1][0]}__qid"
        if key in params and params[key] is not None:
            given = check_qid(params[key], n, source="the routed 'qid'", where=where)
            column = check_qid(ids, n, source=f"the {QID_COLUMN!r} column of X", where=where)
            if not np.array_equal(given, column):
                raise InputError(
                    f"{where} got query ids twice, as routed 'qid' metadata and as a 'qid' "
                    "column of X, and they differ. Give one of them."
                )
            return params
        return {**params, key: ids}

    def predict(self, X: Any, **params: Any) -> Any:
        """Scores of the rows of ``X`` (its ``qid`` column removed before the steps)."""
        return super().predict(split_qid_column(X)[0], **params)

    def decision_function(self, X: Any, **params: Any) -> Any:
        """The last step's ``decision_function`` on the features of ``X``."""
        return super().decision_function(split_qid_column(X)[0], **params)

    def transform(self, X: Any, **params: Any) -> Any:
        """The steps' transform of the features of ``X`` (without its ``qid`` column)."""
        return super().transform(split_qid_column(X)[0], **params)

    def score(self, X: Any, y: Any = None, sample_weight: Any = None, **params: Any) -> Any:
        """The last step's ``score`` on the transformed features, with the query ids.

        A last step whose ``score`` takes ``qid`` receives the ``qid`` column of ``X``.
        """
        X_feat, ids = split_qid_column(X)
        if ids is not None and "qid" not in params and self._last_takes_qid("score"):
            if routing_enabled():
                params = {**params, "qid": ids}
            else:
                Xt = X_feat
                for _, _, step in self._iter(with_final=False):
                    Xt = step.transform(Xt)
                extra = {} if sample_weight is None else {"sample_weight": sample_weight}
                return self._final_estimator.score(Xt, y, qid=ids, **extra)
        return super().score(X_feat, y, sample_weight=sample_weight, **params)


def make_ranking_pipeline(
    *steps: Any, memory: Any = None, transform_input: Any = None, verbose: bool = False
) -> RankingPipeline:
    """Build a :class:`RankingPipeline` from estimators, naming the steps as scikit-learn does.

    The drop-in for :func:`sklearn.pipeline.make_pipeline` in front of a ranker: the steps
    never see a ``qid`` column of ``X``, and the ranker gets the ids.

    Parameters
    ----------
    *steps : estimators
        Transformers, then the ranker.
    memory, transform_input, verbose
        As for :func:`sklearn.pipeline.make_pipeline`.

    Returns
    -------
    RankingPipeline

    Examples
    --------
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skrank.lightgbm import LGBMRanker
    >>> from skrank.pipeline import make_ranking_pipeline
    >>> make_ranking_pipeline(StandardScaler(), LGBMRanker()).steps[1][0]
    'lgbmranker'
    """
    from sklearn.pipeline import make_pipeline

    plain = make_pipeline(*steps, memory=memory, transform_input=transform_input,
                          verbose=verbose)
    return RankingPipeline(plain.steps, memory=memory, transform_input=transform_input,
                           verbose=verbose)
