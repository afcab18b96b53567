"""XGBoost training-time metrics: ``custom_metric`` and a full-precision metric callback.

XGBoost is imported only when :func:`metric_callback` is called (or when a pickled
:class:`MetricCallback` is loaded): the callback class subclasses
``xgboost.callback.TrainingCallback`` and is built on first use, then published under this
module's name so that pickle finds it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_int, param_error
from ..conventions import Conventions
from ..exceptions import InputError
from ..metrics._spec import Metric
from ._common import (
    FACTORY_PARAMS,
    MetricSet,
    MetricSetView,
    check_min_delta,
    import_optional,
    improved,
)

__all__ = ["XGBoostCustomMetric", "custom_metric", "metric_callback"]


def _import_xgboost(caller: str):
    return import_optional("xgboost", "XGBoost", caller)


def _dmatrix_groups(set_: MetricSet, dmat: Any, where: str) -> np.ndarray:
    ptr = np.asarray(dmat.get_uint_info("group_ptr"))
    if ptr.size < 2:
        raise set_.no_groups(
            where,
            "Build it with xgboost.DMatrix(X, y, qid=qid) (or group=sizes).",
        )
    return np.diff(ptr.astype(np.int64))


def _dmatrix_weights(dmat: Any, sizes: np.ndarray, n_rows: int) -> np.ndarray | None:
    """Per-row weights for skrank from XGBoost's weights (one per query for ranking)."""
    w = np.asarray(dmat.get_weight())
    if w.size == 0:
        return None
    if w.size == sizes.shape[0]:
        # one weight per query: every row of a query gets it, in float64 so that the mean of
        # a query's rows gives the weight back exactly
        return np.repeat(w.astype(np.float64), sizes)
    if w.size == n_rows:
        return w
    raise InputError(
        f"The DMatrix has {w.size} weights for {sizes.shape[0]} queries and {n_rows} rows; "
        "ranking weights are one per query."
    )


def _booster_gain(set_: MetricSet, model: Any) -> str | None:
    """``"linear"`` when the booster is set to ``ndcg_exp_gain=False``; None otherwise.

    XGBoost exposes the setting in ``Booster.save_config()``: under the ranking objective's
    ``lambdarank_param``, or under an ``ndcg`` metric's.
    """
    try:
        learner = json.loads(model.save_config())["learner"]
    except (AttributeError, TypeError, ValueError, KeyError) as exc:
        raise InputError(
            f"{set_.caller} reads XGBoost's ndcg_exp_gain from Booster.save_config() under "
            f"preset='xgboost', but could not read the configuration ({exc!r}). Pass gain= "
            "('exp' or 'linear') to set the gain yourself."
        ) from None
    sources = [learner.get("objective", {}), *learner.get("metrics", [])]
    for source in sources:
        value = source.get("lambdarank_param", {}).get("ndcg_exp_gain")
        if value is not None:
            return None if str(value).lower() in ("1", "true") else "linear"
    return None


class XGBoostCustomMetric(MetricSetView):
    """A ``custom_metric`` for :func:`xgboost.train`: skrank metrics on each evaluated DMatrix.

    Created by :func:`skrank.xgboost.custom_metric`; called by XGBoost as
    ``f(predt, dmatrix)`` with float32 predictions, and returns ``[(name, value), ...]``.
    XGBoost prints (and stores in ``evals_result``) custom metric values with 6 decimals;
    :func:`skrank.xgboost.metric_callback` keeps full precision.

    Attributes
    ----------
    metrics : tuple of Metric
    names : tuple of str
        The names XGBoost records them under (``prefix`` + canonical metric name).
    conventions : Conventions
    """

    def __repr__(self) -> str:
        return f"<skrank XGBoost custom_metric {self._set.describe()}>"

    def values(self, predt: Any, dmatrix: Any) -> list[float]:
        """Full-precision values of the metrics for predictions on ``dmatrix``."""
        s = self._set
        if not hasattr(dmatrix, "get_uint_info"):
            raise InputError(
                f"{s.caller} returns a custom_metric for xgboost.train(custom_metric=...), "
                f"called as f(predt, dmatrix) with an xgboost.DMatrix; got a "
                f"{type(dmatrix).__name__}. XGBRanker(eval_metric=callable) calls its metric "
                "once per query and averages by query size: use "
                "XGBRanker(callbacks=[skrank.xgboost.metric_callback(...)]) instead."
            )
        sizes = _dmatrix_groups(s, dmatrix, "the evaluated DMatrix")
        y_true = np.asarray(dmatrix.get_label())
        n = int(y_true.shape[0])
        pred = s.check_scores(predt, n, "the evaluated DMatrix")
        weights = _dmatrix_weights(dmatrix, sizes, n)
        return s.values(y_true, pred, sizes, weights, "the evaluated DMatrix")

    def __call__(self, predt: Any, dmatrix: Any) -> list[tuple[str, float]]:
        return list(zip(self._set.names, self.values(predt, dmatrix)))


_PARAMS = FACTORY_PARAMS.substitute(
    preset="""With ``preset="xgboost"`` the values
        equal XGBoost's ``ndcg@k``, ``ndcg``, ``map@k``, ``map`` and ``pre@k`` (and, with
        ``empty="zero"``, ``ndcg@k-`` and ``map@k-``) to the printed digits.""",
    prefix="""Prepended to each canonical metric name to form the recorded name
        (``"skrank_ndcg@5"``), apart from XGBoost's built-in ``ndcg@5``.""",
)


def custom_metric(
    *metrics: str | Metric,
    preset: str | None = None,
    conventions: Conventions | None = None,
    prefix: str = "skrank_",
    **overrides: Any,
) -> XGBoostCustomMetric:
    """Training-time skrank metrics for ``xgboost.train(..., custom_metric=...)``.

    Query boundaries come from the DMatrix (``group_ptr``), predictions arrive as float32,
    and the one-per-query weights of a ranking DMatrix weight the queries.

    Parameters
    ----------{params}
    Returns
    -------
    XGBoostCustomMetric
        Callable ``f(predt, dmatrix)`` returning ``[(name, value), ...]``.

    Notes
    -----
    XGBoost calls a custom metric without the booster, so it cannot see the training
    parameters: with ``ndcg_exp_gain=False`` pass ``gain="linear"`` (or use
    :func:`metric_callback`, which reads the setting).

    Two XGBoost traps apply to every custom metric, this one included:

    - XGBoost stores custom metric values with 6 decimals (``"%f"``), in ``evals_result``
      and for early stopping. :func:`metric_callback` records full precision.
    - XGBoost's early stopping guesses the direction from the name: names that do not start
      with ``auc``, ``aucpr``, ``pre``, ``map`` or ``ndcg`` are *minimised*, and
      ``"skrank_..."`` is such a name. Pass ``maximize=True`` to ``xgboost.train`` together
      with ``early_stopping_rounds``, or use :func:`metric_callback`.

    Examples
    --------
    >>> import numpy as np, xgboost as xgb
    >>> import skrank.xgboost
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(60, 3)), rng.integers(0, 3, size=60)
    >>> dtrain = xgb.DMatrix(X, y, qid=np.repeat([0, 1, 2], 20))
    >>> log = {{}}
    >>> _ = xgb.train({{"objective": "rank:ndcg", "eval_metric": "ndcg@5", "nthread": 1}},
    ...               dtrain, num_boost_round=2, evals=[(dtrain, "train")], evals_result=log,
    ...               custom_metric=skrank.xgboost.custom_metric("ndcg@5", preset="xgboost"),
    ...               verbose_eval=False)
    >>> sorted(log["train"])
    ['ndcg@5', 'skrank_ndcg@5']
    >>> abs(log["train"]["ndcg@5"][-1] - log["train"]["skrank_ndcg@5"][-1]) < 1e-6
    True
    """
    return XGBoostCustomMetric(
        MetricSet(metrics, preset, conventions, overrides, prefix, "skrank.xgboost.custom_metric")
    )


if custom_metric.__doc__ is not None:  # None under python -OO
    custom_metric.__doc__ = custom_metric.__doc__.format(params=_PARAMS)


# ----------------------------------------------------------------------------------------
# The callback


class _EvalSet:
    """One evaluation set of the callback: how to predict on it and what to compare with."""

    def __init__(self, name: str, dmatrix: Any, y_true: np.ndarray, qid: Any,
                 sizes: np.ndarray | None, weights: np.ndarray | None) -> None:
        self.name = name
        self.dmatrix = dmatrix
        self.y_true = y_true
        self.qid = qid
        self.sizes = sizes
        self.weights = weights


def _prepare_evals(evals: Any, set_: MetricSet, xgb: Any) -> list[_EvalSet]:
    caller = set_.caller
    allowed = (
        "a non-empty list of (DMatrix, name) pairs (as for xgboost.train's evals) or of "
        "(X, y, qid) / (X, y, qid, name) tuples (as for XGBRanker's eval_set with eval_qid)"
    )
    if isinstance(evals, (str, bytes)) or not isinstance(evals, Sequence) or len(evals) == 0:
        raise param_error("evals", allowed, evals, caller)
    out: list[_EvalSet] = []
    for i, item in enumerate(evals):
        if isinstance(item, xgb.DMatrix):
            item = (item, f"validation_{i}")
        if not isinstance(item, tuple) or len(item) not in (2, 3, 4):
            raise param_error("evals", allowed, evals, caller)
        if len(item) == 2:
            if not isinstance(item[0], xgb.DMatrix) or not isinstance(item[1], str):
                if not isinstance(item[0], xgb.DMatrix):
                    raise InputError(
                        f"{caller} ranks within queries: evals[{i}] is an (X, y) pair without "
                        "query ids. Give (X, y, qid) (the eval_qid of XGBRanker) or a DMatrix "
                        "built with qid=."
                    )
                raise param_error("evals", allowed, evals, caller)
            dmat, name = item
            sizes = _dmatrix_groups(set_, dmat, f"evals[{i}] ({name!r})")
            y = np.asarray(dmat.get_label())
            weights = _dmatrix_weights(dmat, sizes, int(y.shape[0]))
            out.append(_EvalSet(name, dmat, y, None, sizes, weights))
            continue
        X, y, qid = item[:3]
        name = item[3] if len(item) == 4 else f"validation_{i}"
        if not isinstance(name, str):
            raise param_error("evals", allowed, evals, caller)
        if qid is None:
            raise set_.no_groups(f"evals[{i}] ({name!r})", "Give a qid array as third element.")
        y = np.asarray(y)
        qid = np.asarray(qid)
        if y.ndim != 1 or qid.shape != y.shape:
            raise InputError(
                f"evals[{i}] ({name!r}) of {caller} needs 1-D y and qid of equal length. Got "
                f"shapes {y.shape} and {qid.shape}."
            )
        out.append(_EvalSet(name, xgb.DMatrix(X), y, qid, None, None))
    names = [e.name for e in out]
    bad = [n for n in names if "-" in n or any(c.isspace() for c in n)]
    if bad:
        raise param_error("evals", "names without '-' or spaces (XGBoost's rule)", bad[0], caller)
    if len(set(names)) != len(names):
        raise param_error("evals", "distinct dataset names", names, caller)
    return out


_CALLBACK_CLASS: type | None = None


def _callback_class() -> type:
    """Build (once) the TrainingCallback subclass; XGBoost is imported here."""
    global _CALLBACK_CLASS
    if _CALLBACK_CLASS is not None:
        return _CALLBACK_CLASS
    xgb = _import_xgboost("skrank.xgboost.metric_callback")

    class MetricCallback(MetricSetView, xgb.callback.TrainingCallback):
        """Evaluate skrank metrics on whole eval sets after each iteration; early-stop on one.

        Created by :func:`skrank.xgboost.metric_callback`, which documents the parameters.

        Attributes
        ----------
        history : dict
            ``{data_name: {metric_name: [value per iteration]}}`` at full precision (the same
            values are written into XGBoost's ``evals_result``).
        best_iteration : int or None
            0-based best iteration of the watched metric (when early stopping).
        best_score : float or None
        """

        def __init__(self, metric_set, evals, early_stopping_rounds, data_name, metric_name,
                     min_delta, save_best, output_margin, verbose):
            super().__init__(metric_set)
            self.evals = evals
            self.early_stopping_rounds = early_stopping_rounds
            self.data_name = data_name
            self.metric_name = metric_name
            self.min_delta = min_delta
            self.save_best = save_best
            self.output_margin = output_margin
            self.verbose = verbose
            self._prepared: list[_EvalSet] | None = None
            self._reset()

        def _reset(self) -> None:
            self.history: dict[str, dict[str, list[float]]] = {}
            self.best_iteration: int | None = None
            self.best_score: float | None = None
            self._since_best = 0
            self._start = 0

        def __repr__(self) -> str:
            es = (f", early stopping on {self._watched()} after "
                  f"{self.early_stopping_rounds} rounds") if self.early_stopping_rounds else ""
            return f"<skrank XGBoost metric_callback {self._set.describe()}{es}>"

        def __getstate__(self) -> dict:
            state = self.__dict__.copy()
            state["_prepared"] = None  # DMatrix objects do not pickle; rebuilt on first use
            return state

        def __deepcopy__(self, memo: dict) -> Any:
            # scikit-learn's clone deep-copies callbacks: share the (read-only) eval data,
            # never copy a DMatrix, start with fresh state
            new = copy.copy(self)
            new._prepared = None
            new._reset()
            return new

        def _watched(self) -> str:
            data = self.data_name
            if data is None and self._prepared:
                data = self._prepared[-1].name
            return f"{data or 'the last eval set'}'s {self.metric_name}"

        def before_training(self, model):
            xgb_ = _import_xgboost("skrank.xgboost.metric_callback")
            if not isinstance(model, xgb_.Booster):
                raise InputError(
                    "skrank.xgboost.metric_callback works with xgboost.train and the "
                    "scikit-learn estimators, not with xgboost.cv."
                )
            if self._prepared is None:
                self._prepared = _prepare_evals(self.evals, self._set, xgb_)
                if self.data_name is not None and self.data_name not in [
                    e.name for e in self._prepared
                ]:
                    raise param_error(
                        "data_name", "one of " + ", ".join(repr(e.name) for e in self._prepared),
                        self.data_name, self._set.caller,
                    )
            self._reset()
            self._start = model.num_boosted_rounds()
            return model

        def after_iteration(self, model, epoch, evals_log) -> bool:
            s = self._set
            conv = s.with_gain(_booster_gain(s, model)) if s.reads_library_gain else None
            for ev in self._prepared:
                pred = model.predict(ev.dmatrix, output_margin=self.output_margin)
                where = f"eval set {ev.name!r}"
                pred = s.check_scores(pred, int(ev.y_true.shape[0]), where)
                values = s.values(ev.y_true, pred, ev.sizes, ev.weights, where, qid=ev.qid,
                                  conventions=conv)
                data_log = evals_log.setdefault(ev.name, {})
                mine = self.history.setdefault(ev.name, {})
                for name, value in zip(s.names, values):
                    mine.setdefault(name, []).append(value)
                    data_log.setdefault(name, []).append(value)
            if not self.early_stopping_rounds:
                return False
            data = self.data_name if self.data_name is not None else self._prepared[-1].name
            value = self.history[data][self.metric_name][-1]
            iteration = epoch + self._start
            if self.best_score is None or improved(value, self.best_score, True, self.min_delta):
                self.best_score = value
                self.best_iteration = iteration
                self._since_best = 0
                model.set_attr(best_iteration=str(iteration), best_score=repr(value))
            else:
                self._since_best += 1
            if self._since_best >= self.early_stopping_rounds:
                if self.verbose:
                    print(
                        f"Early stopping on {data}'s {self.metric_name} (maximised): best "
                        f"iteration is [{self.best_iteration}] with {self.best_score!r}"
                    )
                return True
            return False

        def after_training(self, model):
            if self.save_best and self.best_iteration is not None:
                best_iteration, best_score = self.best_iteration, self.best_score
                model = model[: best_iteration + 1]
                model.set_attr(best_iteration=str(best_iteration), best_score=repr(best_score))
            return model

    MetricCallback.__module__ = __name__
    MetricCallback.__qualname__ = "MetricCallback"
    _CALLBACK_CLASS = MetricCallback
    return MetricCallback


def __getattr__(name: str) -> Any:
    # lets pickle (and users) find the lazily built class under this module's name
    if name == "MetricCallback":
        return _callback_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def metric_callback(
    *metrics: str | Metric,
    evals: Sequence[Any],
    preset: str | None = None,
    conventions: Conventions | None = None,
    prefix: str = "skrank_",
    early_stopping_rounds: int | None = None,
    metric_name: str | None = None,
    data_name: str | None = None,
    min_delta: float = 0.0,
    save_best: bool = False,
    output_margin: bool = False,
    verbose: bool = False,
    **overrides: Any,
):
    """A training callback that computes skrank metrics on whole eval sets, at full precision.

    After each boosting round the callback predicts every eval set with the current model and
    evaluates the metrics with :func:`skrank.evaluate` over all its queries: the true
    per-query mean, not XGBRanker's average of per-query calls weighted by query size, and
    with every digit (XGBoost keeps 6 decimals of a ``custom_metric``). The values go into
    XGBoost's evaluation log (``evals_result`` / ``XGBRanker.evals_result_``) and into
    ``callback.history``. With ``early_stopping_rounds`` it stops when the watched metric has
    not increased for that many rounds: skrank metrics are always *maximised*, whatever
    their name, and the booster's ``best_iteration`` / ``best_score`` are set as XGBoost's
    own early stopping sets them (so ``XGBRanker.predict`` uses the best iteration).
    With ``preset="xgboost"`` and no ``gain=``, the gain follows the booster's
    ``ndcg_exp_gain`` (read from ``Booster.save_config()``): the label itself when it is
    False, as in XGBoost's own NDCG.

    Parameters
    ----------{params}    evals : list
        The eval sets (keyword-only): ``(DMatrix, name)`` pairs (DMatrix built with ``qid=``
        or ``group=``) as for ``xgboost.train``, or ``(X, y, qid)`` / ``(X, y, qid, name)``
        tuples as for ``XGBRanker.fit(eval_set=..., eval_qid=...)``; unnamed sets are called
        ``validation_0``, ``validation_1``, ... like XGBRanker's. ``qid`` need not be sorted.
        Use tuples when the estimator is cloned or pickled (a DMatrix does not pickle).
    early_stopping_rounds : int, optional
        Stop after this many rounds without improvement of the watched metric.
    metric_name : str, optional
        The watched metric's recorded name; default: the first metric's (``names[0]``).
    data_name : str, optional
        The watched eval set; default: the last one.
    min_delta : float, default=0.0
        Minimum increase that counts as an improvement.
    save_best : bool, default=False
        Return the model truncated to the best iteration (as XGBoost's ``EarlyStopping``).
    output_margin : bool, default=False
        Rank by the raw margin instead of the transformed prediction (the same order for
        ranking objectives).
    verbose : bool, default=False
        Print the best iteration when stopping.

    Returns
    -------
    MetricCallback
        An ``xgboost.callback.TrainingCallback``; pass it in ``callbacks=``. Create a new one
        for each training run (state is reset in ``before_training`` anyway).

    Examples
    --------
    >>> import numpy as np, xgboost as xgb
    >>> import skrank.xgboost
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(80, 3)), rng.integers(0, 3, size=80)
    >>> qid = np.repeat(np.arange(8), 10)
    >>> cb = skrank.xgboost.metric_callback("rr", rel_min=1, evals=[(X[40:], y[40:], qid[40:])],
    ...                                     early_stopping_rounds=3)
    >>> ranker = xgb.XGBRanker(n_estimators=20, max_depth=2, n_jobs=1, callbacks=[cb])
    >>> _ = ranker.fit(X[:40], y[:40], qid=qid[:40])
    >>> rr = cb.history["validation_0"]["skrank_rr"]
    >>> ranker.best_iteration == int(np.argmax(rr))
    True
    """
    caller = "skrank.xgboost.metric_callback"
    metric_set = MetricSet(metrics, preset, conventions, overrides, prefix, caller)
    check_int("early_stopping_rounds", early_stopping_rounds, min_value=1, allow_none=True,
              caller=caller)
    if metric_name is None:
        metric_name = metric_set.names[0]
    elif metric_name not in metric_set.names:
        raise param_error("metric_name", "one of " + ", ".join(map(repr, metric_set.names)),
                          metric_name, caller)
    if data_name is not None and not isinstance(data_name, str):
        raise param_error("data_name", "a str or None", data_name, caller)
    min_delta = check_min_delta(min_delta, caller)
    for flag, value in (("save_best", save_best), ("output_margin", output_margin),
                        ("verbose", verbose)):
        if not isinstance(value, bool):
            raise param_error(flag, "a bool", value, caller)
    if isinstance(evals, (str, bytes)) or not isinstance(evals, Sequence) or len(evals) == 0:
        raise param_error(
            "evals",
            "a non-empty list of (DMatrix, name) pairs or (X, y, qid) tuples",
            evals, caller,
        )
    cls = _callback_class()
    return cls(metric_set, list(evals), early_stopping_rounds, data_name, metric_name,
               min_delta, save_best, output_margin, verbose)


if metric_callback.__doc__ is not None:
    metric_callback.__doc__ = metric_callback.__doc__.format(params=_PARAMS)
