"""``skrank.lightgbm.LGBMRanker``: LightGBM's ranker, fed per-row query ids.

:class:`lightgbm.LGBMRanker` takes ``group`` (the sizes of contiguous queries), which
scikit-learn cannot slice per cross-validation fold. This subclass also takes ``qid`` (one id
per row, sliced with the rows by scikit-learn's metadata routing) or a ``qid`` column of a
DataFrame ``X``, turns it into group sizes, and otherwise leaves LightGBM alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    import lightgbm
except ImportError as exc:  # pragma: no cover - the extra is installed in the test env
    raise ImportError(
        "skrank.lightgbm needs LightGBM: pip install 'skrank[lightgbm]'"
    ) from exc

from ..exceptions import InputError
from ..scorers._queries import (
    FitQueries,
    query_order,
    resolve_fit_qid,
    split_qid_column,
    take_rows,
)
from ._common import check_eval_query_source, check_query_source

__all__ = ["LGBMRanker"]


def _item(collection: Any, i: int, name: str) -> Any:
    """Entry ``i`` of an optional per-eval-set list (LightGBM accepts lists and dicts)."""
    if collection is None:
        return None
    if isinstance(collection, dict):
        return collection.get(i)
    if isinstance(collection, (list, tuple)):
        return collection[i] if i < len(collection) else None
    raise TypeError(f"{name} should be dict or list")


def eval_pairs(eval_set: Any, eval_X: Any, eval_y: Any) -> tuple[list, str | None]:
    """The eval sets as a list of ``(X, y)`` and the form they came in.

    Forms: ``"eval_set"``, ``"tuple"`` (``eval_X``/``eval_y`` tuples), ``"single"`` (one
    ``eval_X``/``eval_y``) or ``None``. Messages are LightGBM's.
    """
    if eval_set is not None:
        if eval_X is not None or eval_y is not None:
            raise ValueError("Specify either 'eval_set' or 'eval_X' and 'eval_y', but not both.")
        return ([eval_set] if isinstance(eval_set, tuple) else list(eval_set)), "eval_set"
    if (eval_X is None) != (eval_y is None):
        raise ValueError("You must specify eval_X and eval_y, not just one of them.")
    if eval_X is None:
        return [], None
    if isinstance(eval_X, tuple) != isinstance(eval_y, tuple) or (
        isinstance(eval_X, tuple) and len(eval_X) != len(eval_y)
    ):
        raise ValueError(
            "If eval_X is a tuple, y_val must be a tuple of same length, and vice versa."
        )
    if isinstance(eval_X, tuple):
        return list(zip(eval_X, eval_y)), "tuple"
    return [(eval_X, eval_y)], "single"


class LGBMRanker(lightgbm.LGBMRanker):
    """LightGBM's :class:`lightgbm.LGBMRanker`, also fitted from per-row query ids.

    A drop-in subclass: the same parameters, ``get_params``/``set_params``/``clone``,
    feature names, callbacks, eval sets and fitted attributes. What it adds:

    - ``fit(X, y, qid=qid)``: one query id per row (integers or strings) instead of
      ``group`` sizes, so that scikit-learn can slice the ids per fold. With metadata routing
      enabled, ``qid`` is requested by default: ``cross_validate(..., params={"qid": qid,
      "groups": qid})`` works as is, and ``set_fit_request(qid="groups")`` takes the
      splitter's groups as the query ids.
    - A ``qid`` column of a pandas DataFrame ``X`` (XGBoost's convention) is used as the
      query ids and dropped before fitting and predicting: it is never a feature.
    - Rows of a query need not be adjacent: they are gathered with a stable sort before
      fitting (their order inside each query is kept), and :meth:`predict` returns one score
      per row of ``X`` in its own order. Queries already contiguous are passed through
      unchanged, so the model is the one LightGBM fits from ``group`` sizes.
    - Eval sets take their own ids: ``eval_qid=[qid_valid, ...]`` (or a ``qid`` column).

    ``group`` sizes are still accepted (without ``qid``), exactly as LightGBM takes them.
    Integer ``categorical_feature`` indices count the columns of ``X`` without its ``qid``
    column.

    Parameters
    ----------
    **params
        LightGBM's parameters; see :class:`lightgbm.LGBMRanker`.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.lightgbm import LGBMRanker
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 4))
    >>> qid = np.repeat([3, 1, 4, 2], 20)
    >>> y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 1)
    >>> ranker = LGBMRanker(n_estimators=5, min_child_samples=5, verbose=-1)
    >>> ranker.fit(X, y, qid=qid).predict(X).shape
    (80,)
    """

    # A ranker cannot train without query ids: request them from metadata routing by default.
    __metadata_request__fit = {"qid": True}  # noqa: RUF012 (scikit-learn's class-level hook)

    def fit(  # type: ignore[override]
        self,
        X: Any,
        y: Any,
        sample_weight: Any = None,
        init_score: Any = None,
        group: Any = None,
        eval_set: Any = None,
        eval_names: Any = None,
        eval_sample_weight: Any = None,
        eval_init_score: Any = None,
        eval_group: Any = None,
        eval_metric: Any = None,
        eval_at: Sequence[int] = (1, 2, 3, 4, 5),
        feature_name: Any = "auto",
        categorical_feature: Any = "auto",
        callbacks: Any = None,
        init_model: Any = None,
        *,
        eval_X: Any = None,
        eval_y: Any = None,
        qid: Any = None,
        eval_qid: Any = None,
    ) -> LGBMRanker:
        """Fit the ranker; the query ids come from ``qid``, a ``qid`` column or ``group``.

        Parameters are those of :meth:`lightgbm.LGBMRanker.fit`, plus:

        Parameters
        ----------
        qid : array-like of shape (n_samples,), optional
            Query id of each row of ``X`` (integers or strings). Exclusive with ``group``;
            may be given together with a ``qid`` column of ``X`` only if they agree.
        eval_qid : list of array-like, optional
            Query ids of each eval set (``None`` entries for sets that have a ``qid`` column
            or ``eval_group`` sizes). An eval set that is the training ``(X, y)`` itself
            reuses the training ids.

        Returns
        -------
        self : LGBMRanker
        """
        where = f"{type(self).__name__}.fit"
        X_feat, ids = resolve_fit_qid(X, qid, where=where)
        check_query_source(ids, group, where, "LightGBM",
                           ": qid is one id per row, group the sizes of contiguous queries")
        common = dict(
            eval_names=eval_names,
            eval_metric=eval_metric,
            eval_at=eval_at,
            feature_name=feature_name,
            categorical_feature=categorical_feature,
            callbacks=callbacks,
            init_model=init_model,
        )
        if ids is None:
            if eval_qid is not None:
                raise InputError(
                    f"{where} got eval_qid with group sizes; give the training query ids as "
                    "qid too, or eval_group sizes for the eval sets."
                )
            X_feat = split_qid_column(X)[0]
            super().fit(
                X_feat, y, sample_weight=sample_weight, init_score=init_score, group=group,
                eval_set=eval_set, eval_sample_weight=eval_sample_weight,
                eval_init_score=eval_init_score, eval_group=eval_group,
                eval_X=eval_X, eval_y=eval_y, **common,
            )
            self._skrank_fit_queries = None
            return self

        order = query_order(ids, where=where)
        X_fit = take_rows(X_feat, order.perm)
        y_fit = take_rows(y, order.perm)
        pairs, form = eval_pairs(eval_set, eval_X, eval_y)
        if eval_qid is not None and (
            not isinstance(eval_qid, (list, tuple)) or len(eval_qid) != len(pairs)
        ):
            raise InputError(
                f"{where} needs eval_qid as a list with one entry per eval set: there are "
                f"{len(pairs)} eval sets."
            )
        out_pairs, out_groups, out_weights, out_init = [], [], [], []
        for i, (Xe, ye) in enumerate(pairs):
            weight = _item(eval_sample_weight, i, "eval_sample_weight")
            init = _item(eval_init_score, i, "eval_init_score")
            if Xe is X and ye is y:  # the training data: LightGBM reuses its Dataset
                out_pairs.append((X_fit, y_fit))
                out_groups.append(order.sizes)
                out_weights.append(take_rows(weight, order.perm))
                out_init.append(take_rows(init, order.perm))
                continue
            what = f"eval set {i}"
            given = eval_qid[i] if eval_qid is not None else None
            Xe_feat, ide = resolve_fit_qid(Xe, given, where=where, what=what)
            sizes = _item(eval_group, i, "eval_group")
            check_eval_query_source(ide, sizes, where, what)
            if ide is None:
                out_pairs.append((Xe_feat, ye))
                out_groups.append(sizes)
                out_weights.append(weight)
                out_init.append(init)
                continue
            eorder = query_order(ide, where=where)
            out_pairs.append((take_rows(Xe_feat, eorder.perm), take_rows(ye, eorder.perm)))
            out_groups.append(eorder.sizes)
            out_weights.append(take_rows(weight, eorder.perm))
            out_init.append(take_rows(init, eorder.perm))

        evals: dict[str, Any] = {}
        if pairs:
            if form == "eval_set":
                evals["eval_set"] = out_pairs
            elif form == "tuple":
                evals["eval_X"] = tuple(p[0] for p in out_pairs)
                evals["eval_y"] = tuple(p[1] for p in out_pairs)
            else:
                evals["eval_X"], evals["eval_y"] = out_pairs[0]
            evals["eval_group"] = out_groups
            if eval_sample_weight is not None:
                evals["eval_sample_weight"] = out_weights
            if eval_init_score is not None:
                evals["eval_init_score"] = out_init
        super().fit(
            X_fit,
            y_fit,
            sample_weight=take_rows(sample_weight, order.perm),
            init_score=take_rows(init_score, order.perm),
            group=order.sizes,
            **evals,
            **common,
        )
        self._skrank_fit_queries = FitQueries.from_fit(ids, X)
        return self

    def predict(  # type: ignore[override]
        self,
        X: Any,
        raw_score: bool = False,
        start_iteration: int = 0,
        num_iteration: int | None = None,
        pred_leaf: bool = False,
        pred_contrib: bool = False,
        validate_features: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Scores of the rows of ``X``, in its order (a ``qid`` column is ignored).

        Parameters and return value are those of :meth:`lightgbm.LGBMRanker.predict`.
        """
        X_feat, _ = split_qid_column(X)
        return super().predict(
            X_feat,
            raw_score=raw_score,
            start_iteration=start_iteration,
            num_iteration=num_iteration,
            pred_leaf=pred_leaf,
            pred_contrib=pred_contrib,
            validate_features=validate_features,
            **kwargs,
        )
