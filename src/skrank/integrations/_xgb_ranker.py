"""``skrank.xgboost.XGBRanker``: XGBoost's ranker, robust to rows of a query that are apart.

:class:`xgboost.XGBRanker` takes per-row ``qid`` but refuses ids that are not sorted
(XGBoost 3.2: "`qid` must be sorted in non-decreasing order along with data"), takes weights
per query (which scikit-learn cannot slice per fold) and needs numeric ids. This subclass
gathers the rows of each query with a stable sort, numbers the queries, accepts per-row
weights that are constant within a query, and otherwise leaves XGBoost alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import xgboost
except ImportError as exc:  # pragma: no cover - the extra is installed in the test env
    raise ImportError("skrank.xgboost needs XGBoost: pip install 'skrank[xgboost]'") from exc

from ..exceptions import InputError
from ..scorers._queries import (
    QID_COLUMN,
    FitQueries,
    QueryOrder,
    query_order,
    resolve_fit_qid,
    split_qid_column,
    take_rows,
)
from ._common import check_eval_query_source, check_query_source

__all__ = ["XGBRanker"]


def _query_weights(weights: Any, order: QueryOrder, n: int, name: str, where: str) -> Any:
    """Per-query weights (XGBoost's form) from per-query or per-row weights."""
    if weights is None:
        return None
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1:
        raise InputError(f"{where} needs {name} as a 1-D array. Got shape {w.shape} instead.")
    if w.shape[0] == order.n_queries:
        return w
    if w.shape[0] != n:
        raise InputError(
            f"{where} needs {name} with one weight per query ({order.n_queries}, in order of "
            f"first appearance) or one per row ({n}). Got {w.shape[0]} weights instead."
        )
    _, first_row = np.unique(order.codes, return_index=True)
    per_query = w[first_row]
    differs = w != per_query[order.codes]
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        raise InputError(
            f"{where} got row weights in {name} that differ within a query (row {row}). "
            "XGBoost weighs queries, not rows: give one weight per query, or the same weight "
            "to every row of a query."
        )
    return per_query


class XGBRanker(xgboost.XGBRanker):
    """XGBoost's :class:`xgboost.XGBRanker`, fitted from query ids in any row order.

    A drop-in subclass: the same parameters, ``get_params``/``set_params``/``clone``,
    feature names, callbacks and eval sets. What it adds:

    - Rows of a query need not be adjacent nor sorted by id (XGBoost refuses unsorted
      ``qid``, which a cross-validation fold of shuffled data easily is): they are gathered
      with a stable sort before fitting, their order inside each query kept, and queries
      numbered by first appearance, so string ids work too. :meth:`predict` returns one score
      per row of ``X`` in its own order. Queries already sorted give XGBoost's own model.
    - ``sample_weight`` may be one weight per row, equal within each query (so that
      scikit-learn can slice it per fold), or XGBoost's one weight per query (queries in order
      of first appearance).
    - ``qid`` is requested from metadata routing by default: ``cross_validate(...,
      params={"qid": qid, "groups": qid})`` works as is.
    - :meth:`score` refuses a ``X`` without query ids instead of scoring all rows as one
      query; use a skrank scorer for cross-validation.

    A ``qid`` column of a pandas DataFrame ``X`` is used as the query ids and is not a
    feature, as in XGBoost.

    Parameters
    ----------
    **params
        XGBoost's parameters; see :class:`xgboost.XGBRanker`.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.xgboost import XGBRanker
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 4))
    >>> qid = np.tile([3, 1, 4, 2], 20)  # unsorted and interleaved: XGBoost alone refuses it
    >>> y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 1)
    >>> ranker = XGBRanker(n_estimators=5, max_depth=3)
    >>> ranker.fit(X, y, qid=qid).predict(X).shape
    (80,)
    """

    __metadata_request__fit = {"qid": True}  # noqa: RUF012 (scikit-learn's class-level hook)

    def fit(  # type: ignore[override]
        self,
        X: Any,
        y: Any,
        *,
        group: Any = None,
        qid: Any = None,
        sample_weight: Any = None,
        base_margin: Any = None,
        eval_set: Any = None,
        eval_group: Any = None,
        eval_qid: Any = None,
        verbose: bool | int | None = False,
        xgb_model: Any = None,
        sample_weight_eval_set: Any = None,
        base_margin_eval_set: Any = None,
        feature_weights: Any = None,
    ) -> XGBRanker:
        """Fit the ranker; the query ids come from ``qid``, a ``qid`` column or ``group``.

        Parameters are those of :meth:`xgboost.XGBRanker.fit`; ``qid`` and ``eval_qid``
        may be in any row order, and ``sample_weight`` (``sample_weight_eval_set``) may hold
        one weight per row, equal within each query.

        Returns
        -------
        self : XGBRanker
        """
        where = f"{type(self).__name__}.fit"
        X_feat, ids = resolve_fit_qid(X, qid, where=where)
        check_query_source(ids, group, where, "XGBoost", "")
        common = dict(verbose=verbose, xgb_model=xgb_model, feature_weights=feature_weights)
        if ids is None:
            super().fit(
                X, y, group=group, sample_weight=sample_weight, base_margin=base_margin,
                eval_set=eval_set, eval_group=eval_group, eval_qid=eval_qid,
                sample_weight_eval_set=sample_weight_eval_set,
                base_margin_eval_set=base_margin_eval_set, **common,
            )
            self._skrank_fit_queries = None
            return self

        n = ids.shape[0]
        order = query_order(ids, where=where)
        X_fit = take_rows(X_feat, order.perm)
        y_fit = take_rows(y, order.perm)
        weights = _query_weights(sample_weight, order, n, "sample_weight", where)

        evals: dict[str, Any] = {}
        if eval_set is not None:
            pairs = list(eval_set)
            for name, value in (("eval_qid", eval_qid), ("eval_group", eval_group),
                                ("sample_weight_eval_set", sample_weight_eval_set),
                                ("base_margin_eval_set", base_margin_eval_set)):
                if value is not None and len(value) != len(pairs):
                    raise InputError(
                        f"{where} needs {name} with one entry per eval set: there are "
                        f"{len(pairs)} eval sets but {len(value)} entries."
                    )
            out_pairs, out_qid, out_w, out_m = [], [], [], []
            for i, (Xe, ye) in enumerate(pairs):
                weight = sample_weight_eval_set[i] if sample_weight_eval_set is not None else None
                margin = base_margin_eval_set[i] if base_margin_eval_set is not None else None
                what = f"eval set {i}"
                if Xe is X and ye is y:  # the training data
                    out_pairs.append((X_fit, y_fit))
                    out_qid.append(order.sorted_codes)
                    out_w.append(_query_weights(weight, order, n, "sample_weight_eval_set",
                                                where))
                    out_m.append(take_rows(margin, order.perm))
                    continue
                given = eval_qid[i] if eval_qid is not None else None
                Xe_feat, ide = resolve_fit_qid(Xe, given, where=where, what=what)
                sizes = eval_group[i] if eval_group is not None else None
                check_eval_query_source(ide, sizes, where, what)
                if ide is None:
                    sizes = np.asarray(sizes, dtype=np.int64)
                    ide = np.repeat(np.arange(sizes.shape[0]), sizes)
                eorder = query_order(ide, where=where)
                out_pairs.append((take_rows(Xe_feat, eorder.perm), take_rows(ye, eorder.perm)))
                out_qid.append(eorder.sorted_codes)
                out_w.append(_query_weights(weight, eorder, ide.shape[0],
                                            "sample_weight_eval_set", where))
                out_m.append(take_rows(margin, eorder.perm))
            evals = dict(eval_set=out_pairs, eval_qid=out_qid)
            if sample_weight_eval_set is not None:
                evals["sample_weight_eval_set"] = out_w
            if base_margin_eval_set is not None:
                evals["base_margin_eval_set"] = out_m
        elif eval_qid is not None or eval_group is not None:
            raise InputError(f"{where} got eval_qid or eval_group without eval_set.")

        super().fit(
            X_fit,
            y_fit,
            qid=order.sorted_codes,
            sample_weight=weights,
            base_margin=take_rows(base_margin, order.perm),
            **evals,
            **common,
        )
        self._skrank_fit_queries = FitQueries.from_fit(ids, X)
        return self

    def predict(  # type: ignore[override]
        self,
        X: Any,
        *,
        output_margin: bool = False,
        validate_features: bool = True,
        base_margin: Any = None,
        iteration_range: Any = None,
    ) -> Any:
        """Scores of the rows of ``X``, in its order (a ``qid`` column is ignored).

        Parameters and return value are those of :meth:`xgboost.XGBRanker.predict`.
        """
        X_feat, _ = split_qid_column(X)
        return super().predict(
            X_feat,
            output_margin=output_margin,
            validate_features=validate_features,
            base_margin=base_margin,
            iteration_range=iteration_range,
        )

    def score(self, X: Any, y: Any) -> float:
        """XGBoost's last evaluation metric on ``X``, whose ``qid`` column gives the queries.

        The rows may be in any order. Unlike :meth:`xgboost.XGBRanker.score`, an ``X``
        without a ``qid`` column is refused rather than scored as one query.

        Returns
        -------
        float
        """
        where = f"{type(self).__name__}.score"
        X_feat, ids = resolve_fit_qid(X, None, where=where)
        if ids is None:
            raise InputError(
                f"{where} needs the query ids in a 'qid' column of a DataFrame X; without "
                "them XGBoost would score all rows as one query. Use a skrank scorer, e.g. "
                "skrank.ndcg_at(10)(ranker, X, y, qid=qid)."
            )
        order = query_order(ids, where=where)
        X_sorted = take_rows(X_feat, order.perm).copy()
        X_sorted[QID_COLUMN] = order.sorted_codes
        return super().score(X_sorted, take_rows(y, order.perm))
