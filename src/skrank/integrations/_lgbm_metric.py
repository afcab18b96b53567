"""LightGBM training-time metrics: ``feval``, ``eval_metric`` and an early-stopping callback.

Nothing here imports LightGBM at module import time: the metric callables only read the
``Dataset`` they are given, and :func:`early_stopping` imports LightGBM when it is created.
The metric set and its checks are shared with XGBoost's adapter (:mod:`._common`).
"""

from __future__ import annotations

import math
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

__all__ = ["LightGBMEvalMetric", "LightGBMFeval", "early_stopping", "eval_metric", "feval"]


def _import_lightgbm(caller: str):
    return import_optional("lightgbm", "LightGBM", caller)


def _field(values: Any, dtype: type) -> np.ndarray | None:
    """A LightGBM field (query sizes, weights) as ``dtype``; None when not set (None or empty)."""
    if values is None:
        return None
    arr = np.asarray(values)
    if arr.size == 0:
        return None
    return arr.astype(dtype, copy=False)


def _label_gain(s: MetricSet, params: Any) -> tuple[float, ...] | None:
    """The ``label_gain`` of LightGBM's parameters as a gain table; None when not set.

    ``lightgbm.train`` merges the training parameters into each Dataset it evaluates
    (``Dataset.params``), so a ``label_gain`` given there reaches the feval.
    """
    if not params or params.get("label_gain") is None:
        return None
    value = params["label_gain"]
    try:
        if isinstance(value, str):  # LightGBM also takes "0,1,3,7"
            value = [v for v in value.replace(" ", "").split(",") if v]
        table = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise InputError(
            f"{s.caller} reads LightGBM's label_gain from the training parameters under "
            f"preset='lightgbm', but cannot read {value!r} as a list of gains. Pass gain=[...] "
            "to set the gain yourself."
        ) from None
    if not table:
        return None
    return table


def _results(
    s: MetricSet, y_true: Any, y_pred: Any, sizes: np.ndarray, weight: Any, where: str,
    params: Any = None,
) -> list[tuple[str, float, bool]]:
    """``[(name, value, True), ...]``: what LightGBM expects of a metric callable."""
    n = int(np.asarray(y_true).shape[0])
    pred = s.check_scores(y_pred, n, where)
    conv = s.with_gain(_label_gain(s, params)) if s.reads_library_gain else None
    # LightGBM stores weights as float32 and averages them per query in float32
    values = s.values(y_true, pred, sizes, _field(weight, np.float32), where,
                      conventions=conv)
    return [(name, v, True) for name, v in zip(s.names, values)]


class LightGBMFeval(MetricSetView):
    """A ``feval`` for :func:`lightgbm.train`: skrank metrics on each evaluated ``Dataset``.

    Created by :func:`skrank.lightgbm.feval`; called by LightGBM as ``f(preds, eval_data)``
    and returns one ``(name, value, True)`` per metric (every skrank metric is
    higher-is-better).

    Attributes
    ----------
    metrics : tuple of Metric
        The metrics, in order.
    names : tuple of str
        The names LightGBM records them under (``prefix`` + canonical metric name, e.g.
        ``"skrank_ndcg@5"``).
    conventions : Conventions
        The conventions in force.
    """

    def __repr__(self) -> str:
        return f"<skrank LightGBM feval {self._set.describe()}>"

    def __call__(self, preds: Any, eval_data: Any) -> list[tuple[str, float, bool]]:
        s = self._set
        if not hasattr(eval_data, "get_group"):
            raise InputError(
                f"{s.caller} returns a feval for lightgbm.train(feval=...), called as "
                f"f(preds, eval_data) with a lightgbm.Dataset; got a "
                f"{type(eval_data).__name__} as eval_data. For LGBMRanker.fit(eval_metric=...) "
                "use skrank.lightgbm.eval_metric(...)."
            )
        sizes = _field(eval_data.get_group(), np.int64)
        if sizes is None:
            raise s.no_groups(
                "the evaluated lightgbm.Dataset",
                "Build it with lgb.Dataset(X, y, group=sizes) (or reference= a Dataset that "
                "has them).",
            )
        return _results(s, eval_data.get_label(), preds, sizes, eval_data.get_weight(),
                        "the evaluated Dataset", getattr(eval_data, "params", None))


class LightGBMEvalMetric(MetricSetView):
    """An ``eval_metric`` for ``LGBMRanker.fit``: called as ``f(y_true, y_pred, weight, group)``.

    Created by :func:`skrank.lightgbm.eval_metric`. LightGBM's scikit-learn API counts the
    parameters of the callable; this one declares the four-argument form, so it receives the
    query sizes (``group``) and the row weights.

    Attributes
    ----------
    metrics, names, conventions
        As for :class:`LightGBMFeval`.
    """

    def __repr__(self) -> str:
        return f"<skrank LightGBM eval_metric {self._set.describe()}>"

    def __call__(
        self, y_true: Any, y_pred: Any, weight: Any, group: Any
    ) -> list[tuple[str, float, bool]]:
        s = self._set
        sizes = _field(group, np.int64)
        if sizes is None:
            raise s.no_groups(
                "the evaluation set",
                "Fit LGBMRanker with group= and give eval_group= for every eval_set entry.",
            )
        return _results(s, y_true, y_pred, sizes, weight, "the evaluation set")


_FACTORY_DOC_PARAMS = """
    Parameters
    ----------""" + FACTORY_PARAMS.substitute(
    preset="""With ``preset="lightgbm"`` the values
        equal LightGBM's own ``ndcg@k`` and ``map@k`` bit for bit (``num_threads=1``).""",
    prefix="""Prepended to each canonical metric name to form the name LightGBM records
        (``"skrank_ndcg@5"``); it keeps skrank's values apart from LightGBM's built-in
        ``ndcg@5``. Use different prefixes for two callables with different conventions.""",
)


def feval(
    *metrics: str | Metric,
    preset: str | None = None,
    conventions: Conventions | None = None,
    prefix: str = "skrank_",
    **overrides: Any,
) -> LightGBMFeval:
    """Training-time skrank metrics for ``lightgbm.train(..., feval=...)``.

    The returned callable reads query boundaries (``get_group()``), labels and row weights
    from each evaluated ``Dataset``; a query's weight is the mean of its rows' weights, as in
    LightGBM (weights are taken as float32, like LightGBM stores them). With
    ``preset="lightgbm"`` and no ``gain=``, a ``label_gain`` in the training parameters is
    the gain table, as for LightGBM's own NDCG: ``lightgbm.train`` merges its parameters into
    each Dataset it evaluates (``Dataset.params``). A Dataset constructed before training
    (``.construct()``) does not receive them: pass ``gain=label_gain`` then.
    {params}
    Returns
    -------
    LightGBMFeval
        Callable ``f(preds, eval_data)`` returning ``[(name, value, True), ...]``.

    Raises
    ------
    InputError
        At evaluation time, when a Dataset has no query groups, when predictions are not one
        score per row (multiclass), or when a binary metric (P, R, hit, AP, RR) meets graded
        labels (largest label > 1) without ``rel_min`` or a preset.

    See Also
    --------
    eval_metric : the four-argument form for ``LGBMRanker.fit(eval_metric=...)``.
    early_stopping : stop on one of these metrics, always in the right direction.

    Notes
    -----
    LightGBM's ``early_stopping(first_metric_only=True)`` watches the first *built-in*
    metric, not a ``feval``; use :func:`skrank.lightgbm.early_stopping` with the metric's
    name instead (or set ``metric="None"`` in the parameters).

    Examples
    --------
    >>> import numpy as np, lightgbm as lgb
    >>> import skrank.lightgbm
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(60, 3)), rng.integers(0, 3, size=60)
    >>> train = lgb.Dataset(X, y, group=[20, 20, 20])
    >>> f = skrank.lightgbm.feval("ndcg@5", preset="lightgbm")
    >>> f.names
    ('skrank_ndcg@5',)
    >>> log = {{}}
    >>> params = dict(objective="lambdarank", eval_at=[5], num_leaves=3, min_data_in_leaf=5,
    ...               num_threads=1, verbose=-1)
    >>> booster = lgb.train(params, train, num_boost_round=3, valid_sets=[train],
    ...                     feval=f, callbacks=[lgb.record_evaluation(log)])
    >>> log["training"]["skrank_ndcg@5"] == log["training"]["ndcg@5"]
    True
    """
    return LightGBMFeval(MetricSet(metrics, preset, conventions, overrides, prefix,
                                    "skrank.lightgbm.feval"))


def eval_metric(
    *metrics: str | Metric,
    preset: str | None = None,
    conventions: Conventions | None = None,
    prefix: str = "skrank_",
    **overrides: Any,
) -> LightGBMEvalMetric:
    """Training-time skrank metrics for ``LGBMRanker.fit(..., eval_metric=...)``.

    The same metrics as :func:`feval`, in the four-argument form
    ``f(y_true, y_pred, weight, group)`` that LightGBM's scikit-learn API passes query sizes
    to. That form receives no parameters: with ``LGBMRanker(label_gain=...)`` pass the same
    table as ``gain=`` (``preset="lightgbm", gain=ranker.label_gain``), or use :func:`feval`
    with ``lightgbm.train``, which reads it.
    {params}
    Returns
    -------
    LightGBMEvalMetric
        Callable ``f(y_true, y_pred, weight, group)`` returning ``[(name, value, True), ...]``.

    Examples
    --------
    >>> import numpy as np, lightgbm as lgb
    >>> import skrank.lightgbm
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(60, 3)), rng.integers(0, 3, size=60)
    >>> ranker = lgb.LGBMRanker(n_estimators=3, num_leaves=3, min_child_samples=5,
    ...                         n_jobs=1, verbose=-1)
    >>> f = skrank.lightgbm.eval_metric("ndcg@5", preset="lightgbm")
    >>> _ = ranker.fit(X, y, group=[20, 20, 20], eval_X=(X,), eval_y=(y,),
    ...                eval_group=[[20, 20, 20]], eval_at=[5], eval_metric=f)
    >>> res = ranker.evals_result_["training"]
    >>> res["skrank_ndcg@5"] == res["ndcg@5"]
    True
    """
    return LightGBMEvalMetric(MetricSet(metrics, preset, conventions, overrides, prefix,
                                         "skrank.lightgbm.eval_metric"))


if feval.__doc__ is not None:  # None under python -OO
    feval.__doc__ = feval.__doc__.format(params=_FACTORY_DOC_PARAMS)
if eval_metric.__doc__ is not None:
    eval_metric.__doc__ = eval_metric.__doc__.format(params=_FACTORY_DOC_PARAMS)


class _EarlyStopping:
    """LightGBM callback: stop when one named metric on one dataset stops improving."""

    def __init__(
        self,
        metric_name: str,
        stopping_rounds: int,
        data_name: str | None,
        maximize: bool | None,
        min_delta: float,
        verbose: bool,
    ) -> None:
        self.metric_name = metric_name
        self.stopping_rounds = stopping_rounds
        self.data_name = data_name
        self.maximize = maximize
        self.min_delta = min_delta
        self.verbose = verbose
        # LightGBM runs callbacks by ``order``: after print (10) and record_evaluation (20),
        # like its own early stopping (30).
        self.order = 30
        self.before_iteration = False
        self._reset()

    def _reset(self) -> None:
        self.best_iteration: int = -1
        self.best_score: float = math.nan
        self.history: list[float] = []
        self._best_list: list = []
        self._index: int = -1
        self._maximize: bool = True
        self._watched: str = ""

    def __repr__(self) -> str:
        return (
            f"<skrank LightGBM early_stopping on {self.metric_name!r}, "
            f"{self.stopping_rounds} rounds>"
        )

    def _init(self, env: Any) -> None:
        self._reset()
        results = env.evaluation_result_list or []
        if not results:
            raise InputError(
                "skrank.lightgbm.early_stopping needs evaluation results: pass valid_sets= "
                "(lightgbm.train) or eval_set= (LGBMRanker.fit), and the metric through "
                "feval= / eval_metric=."
            )
        lgb = _import_lightgbm("skrank.lightgbm.early_stopping")
        if isinstance(env.model, lgb.CVBooster):  # lightgbm.cv: the folds' 'train'/'valid'
            validation = {r[0] for r in results} - {"train"}
        else:
            # the public list of the validation sets' names (Booster.add_valid); anything
            # else is the training data, whatever name lightgbm.train gave it
            validation = set(env.model.name_valid_sets)
        candidates = [
            i
            for i, r in enumerate(results)
            if r[1] == self.metric_name
            and (r[0] == self.data_name if self.data_name is not None else r[0] in validation)
        ]
        if not candidates:
            seen = sorted({f"{r[0]}'s {r[1]}" for r in results})
            where = (
                f"dataset {self.data_name!r}"
                if self.data_name is not None
                else "a validation dataset (the training data is never watched unless named)"
            )
            raise param_error(
                "metric_name",
                f"a metric evaluated on {where}; evaluated: " + ", ".join(seen),
                self.metric_name,
                "skrank.lightgbm.early_stopping",
            )
        # the last validation dataset, as XGBoost does
        self._index = candidates[-1]
        entry = results[self._index]
        self._watched = f"{entry[0]}'s {entry[1]}"
        self._maximize = bool(entry[3]) if self.maximize is None else self.maximize

    def __call__(self, env: Any) -> None:
        if env.iteration == env.begin_iteration:
            self._init(env)
        lgb = _import_lightgbm("skrank.lightgbm.early_stopping")
        results = env.evaluation_result_list
        entry = results[self._index]
        if entry[1] != self.metric_name:  # pragma: no cover - LightGBM keeps the order fixed
            raise RuntimeError("LightGBM changed the order of its evaluation results.")
        value = float(entry[2])
        self.history.append(value)
        if not self._best_list or improved(value, self.best_score, self._maximize,
                                            self.min_delta):
            self.best_score = value
            self.best_iteration = env.iteration
            self._best_list = list(results)
        stop = env.iteration - self.best_iteration >= self.stopping_rounds
        last = env.iteration == env.end_iteration - 1
        if stop or last:
            if self.verbose:
                how = "Early stopping" if stop else "Did not meet early stopping"
                print(
                    f"{how} on {self._watched} ({'max' if self._maximize else 'min'}imised): "
                    f"best iteration is [{self.best_iteration + 1}] with {self.best_score!r}"
                )
            raise lgb.callback.EarlyStopException(self.best_iteration, self._best_list)


def early_stopping(
    metric_name: str,
    stopping_rounds: int,
    *,
    data_name: str | None = None,
    maximize: bool | None = None,
    min_delta: float = 0.0,
    verbose: bool = True,
):
    """Early stopping on one named metric (a skrank metric or a built-in), in its direction.

    LightGBM's own ``early_stopping`` stops when *any* metric stops improving, or with
    ``first_metric_only=True`` watches the first built-in metric, never a ``feval``. This
    callback watches exactly ``metric_name`` on one validation dataset and maximises it
    when the metric says higher is better (every skrank metric does).

    Parameters
    ----------
    metric_name : str
        The name as recorded, e.g. ``"skrank_ndcg@5"`` (see ``feval(...).names``) or a
        built-in such as ``"ndcg@5"``.
    stopping_rounds : int
        Stop after this many iterations without improvement.
    data_name : str, optional
        The dataset to watch (``"valid_0"``, or a name from ``valid_names``). Default: the
        last validation dataset that reports the metric; the training data is watched only
        when named.
    maximize : bool, optional
        Force the direction; default: the ``is_higher_better`` flag the metric reports.
    min_delta : float, default=0.0
        Minimum improvement that counts.
    verbose : bool, default=True
        Print the best iteration when training stops.

    Returns
    -------
    callable
        A LightGBM callback. After training, ``booster.best_iteration`` is the 1-based best
        iteration; the callback keeps ``history`` (the watched values), ``best_iteration``
        (0-based) and ``best_score``.

    Examples
    --------
    >>> import numpy as np, lightgbm as lgb
    >>> import skrank.lightgbm
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(80, 3)), rng.integers(0, 3, size=80)
    >>> train = lgb.Dataset(X[:60], y[:60], group=[20, 20, 20])
    >>> valid = lgb.Dataset(X[60:], y[60:], group=[10, 10], reference=train)
    >>> stop = skrank.lightgbm.early_stopping("skrank_rr", 3, verbose=False)
    >>> booster = lgb.train(
    ...     dict(objective="lambdarank", num_leaves=3, min_data_in_leaf=5, num_threads=1,
    ...          metric="None", verbose=-1),
    ...     train, num_boost_round=20, valid_sets=[valid],
    ...     feval=skrank.lightgbm.feval("rr", rel_min=1), callbacks=[stop])
    >>> booster.best_iteration == int(np.argmax(stop.history)) + 1
    True
    """
    caller = "skrank.lightgbm.early_stopping"
    if not isinstance(metric_name, str) or not metric_name:
        raise param_error("metric_name", "a metric name such as 'skrank_ndcg@5'", metric_name,
                          caller)
    check_int("stopping_rounds", stopping_rounds, min_value=1, caller=caller)
    if data_name is not None and not isinstance(data_name, str):
        raise param_error("data_name", "a str or None", data_name, caller)
    if maximize is not None and not isinstance(maximize, bool):
        raise param_error("maximize", "a bool or None", maximize, caller)
    min_delta = check_min_delta(min_delta, caller)
    if not isinstance(verbose, bool):
        raise param_error("verbose", "a bool", verbose, caller)
    _import_lightgbm(caller)
    return _EarlyStopping(metric_name, stopping_rounds, data_name, maximize, min_delta, verbose)
