"""``SurvivalScorer``: scikit-learn scorers for survival models that see the training data's
censoring distribution, through metadata routing, without wrapping the estimator."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._routing import UNCHANGED, require_routing, score_request, set_requests
from .._validation import Satisfies, check_real, param_error, relabel, validate_params
from ..exceptions import InputError, InvalidParameterError
from ._conventions import declared, resolve
from ._inputs import survival_pair
from ._metrics import (
    concordance_index_censored,
    concordance_index_ipcw,
    cumulative_dynamic_auc,
    integrated_brier_score,
)

__all__ = [
    "SurvivalScorer",
    "cumulative_auc",
    "harrell_c",
    "integrated_brier",
    "make_survival_scorer",
    "uno_c",
]

_METRICS = {
    "harrell_c": "harrell_c",
    "concordance_index_censored": "harrell_c",
    "uno_c": "uno_c",
    "concordance_index_ipcw": "uno_c",
    "cumulative_auc": "cumulative_auc",
    "cumulative_dynamic_auc": "cumulative_auc",
    "integrated_brier": "integrated_brier",
    "integrated_brier_score": "integrated_brier",
}
_NEEDS_CENSORING = ("uno_c", "cumulative_auc", "integrated_brier")
_REQUESTABLE = ("sample_index",)


class SurvivalScorer:
    """A scikit-learn scorer for a survival metric; greater is better.

    Build it with :func:`make_survival_scorer` or a shortcut (:func:`harrell_c`,
    :func:`uno_c`, :func:`cumulative_auc`, :func:`integrated_brier`). Called as scikit-learn
    does, ``scorer(estimator, X, y)`` with ``y`` the test fold's structured array (or an
    ``(event, time)`` pair), it scores ``estimator.predict(X)`` (risk scores) or, for the
    integrated Brier score, ``estimator.predict_survival_function(X)`` at ``times``, and
    returns a float (the negative of the integrated Brier score, so that greater is better).

    *Where the training data's censoring distribution comes from* (Uno's C, the AUC and the
    Brier score weight by it; Harrell's C needs none), in this order:

    1. ``survival_train=`` passed to the call (by hand, after a train/test split);
    2. the routed ``sample_index`` metadata and the ``survival`` outcomes given to the
       scorer: with metadata routing enabled, ``search.fit(X, y,
       sample_index=np.arange(len(y)))`` hands the scorer the positions of the test fold's
       rows; the training fold is every other row of ``survival`` (which must be the ``y``
       given to the search). This is exact for splitters whose train and test folds
       partition the data (``KFold``, ``StratifiedKFold``, ``GroupKFold``, their repeated
       forms); for ``ShuffleSplit`` or ``TimeSeriesSplit`` the rows outside the test fold
       are more than the training fold;
    3. the test fold itself, when the scorer was made with ``censoring="test"``, which is all
       a plain scikit-learn scorer can do: the weights then follow the censoring of a fifth
       of the data and differ from scikit-survival's numbers.

    Otherwise the call raises :class:`~skrank.InputError`: it never falls back silently.

    Parameters
    ----------
    metric : {"harrell_c", "uno_c", "cumulative_auc", "integrated_brier"}
        scikit-survival's function names are accepted too.
    tau : float, optional
        Truncation time of Uno's C.
    times : array-like, optional
        Evaluation times of the AUC (its mean is the score) and of the integrated Brier score
        (required there).
    survival : structured array or (event, time) pair, optional
        The outcomes of every row the search sees, for route 2.
    preset : {"sksurv", "lifelines"}, optional
    **conventions
        ``tied_risk``, ``tied_time``, ``tied_tol``, ``censoring``, ``orientation``; see
        :class:`SurvivalConventions`.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.survival import uno_c
    >>> class Risk:  # a "model" whose risk score is the first column
    ...     def predict(self, X):
    ...         return np.asarray(X)[:, 0]
    >>> y = np.array([(True, 1.0), (False, 2.0), (True, 3.0), (True, 4.0), (False, 6.0),
    ...               (True, 5.0), (False, 7.0), (True, 8.0), (False, 3.5), (True, 9.0)],
    ...              dtype=[("event", bool), ("time", float)])
    >>> X = np.array([[0.9], [0.3], [0.7], [0.4], [0.1], [0.6], [0.2], [0.5], [0.65], [0.35]])
    >>> scorer = uno_c(survival=y)
    >>> scorer
    make_survival_scorer('uno_c', survival=<10 subjects>)
    >>> test = np.array([0, 3, 5, 7, 8])  # the test fold's positions, as routing passes them
    >>> print(f"{scorer(Risk(), X[test], y[test], sample_index=test):.4f}")
    0.6403
    >>> print(f"{uno_c(censoring='test')(Risk(), X[test], y[test]):.4f}")
    0.6190
    """

    def __init__(
        self,
        metric: str,
        *,
        tau: float | None = None,
        times: Any = None,
        survival: Any = None,
        preset: str | None = None,
        **conventions: Any,
    ) -> None:
        caller = "make_survival_scorer"  # the class's messages name its factory
        with relabel(caller):
            self.metric = _METRICS.get(metric) if isinstance(metric, str) else None
            if self.metric is None:
                raise param_error(
                    "metric", "one of 'harrell_c', 'uno_c', 'cumulative_auc', 'integrated_brier'",
                    metric, caller,
                )
            self.conventions = resolve(preset, **conventions)
            if tau is not None:
                if self.metric != "uno_c":
                    raise param_error("tau", "None: it applies to 'uno_c' only", tau, caller)
                tau = check_real("tau", tau, positive=True, caller=caller)
            if self.metric in ("cumulative_auc", "integrated_brier"):
                if times is None:
                    raise param_error("times", f"the evaluation times of {self.metric!r}", None,
                                      caller)
                times = np.atleast_1d(np.asarray(times, dtype=np.float64))
            elif times is not None:
                raise param_error("times", "None: it applies to 'cumulative_auc' and "
                                  "'integrated_brier' only", times, caller)
            if survival is not None:
                survival_pair(survival, "survival")
        self.tau = tau
        self.times = times
        self.survival = survival
        self._preset = preset
        self._given = {k: v for k, v in conventions.items() if v is not None}
        self._requests: dict[str, bool | str | None] = {"sample_index": True}

    # -- description ---------------------------------------------------------------------

    def __repr__(self) -> str:
        parts = [repr(self.metric)]
        if self.tau is not None:
            parts.append(f"tau={self.tau:g}")
        if self.times is not None:
            parts.append(f"times=<{self.times.shape[0]} times>")
        if self.survival is not None:
            with relabel("make_survival_scorer"):
                n = survival_pair(self.survival, "survival")[0].shape[0]
            parts.append(f"survival=<{n} subjects>")
        if self._preset is not None:
            parts.append(f"preset={self._preset!r}")
        parts += [f"{k}={v!r}" for k, v in self._given.items()]
        return f"make_survival_scorer({', '.join(parts)})"

    def _routing_repr(self) -> str:  # shown by scikit-learn's routing error messages
        return repr(self)

    # -- metadata routing ----------------------------------------------------------------

    def set_score_request(self, *, sample_index: bool | str | None = UNCHANGED) -> SurvivalScorer:
        """Choose whether the scorer receives ``sample_index`` (routing must be enabled).

        Parameters
        ----------
        sample_index : bool, str or None
            ``True`` (the default) requests it, ``False`` refuses it, ``None`` leaves it
            unset, a string requests it under another name.

        Returns
        -------
        self : SurvivalScorer
        """
        require_routing()
        set_requests(self._requests, sample_index=sample_index)
        return self

    def get_metadata_routing(self):
        """The metadata this scorer requests, for scikit-learn's metadata routing."""
        return score_request(self, self._requests)

    # -- scoring -------------------------------------------------------------------------

    def _train(self, sample_index: Any, survival_train: Any, n: int, where: str) -> Any:
        if survival_train is not None:
            return survival_train
        if sample_index is not None and self.survival is not None:
            with relabel(where):
                event, time = survival_pair(self.survival, "survival")
            idx = np.asarray(sample_index)
            if idx.ndim != 1 or idx.shape[0] != n or idx.dtype.kind not in "iu":
                raise InputError(
                    f"The 'sample_index' metadata of {where} must be integer positions, one "
                    f"per scored row ({n}). Got an array of shape {idx.shape} and dtype "
                    f"{idx.dtype} instead. Route np.arange(len(y))."
                )
            if idx.size and (idx.min() < 0 or idx.max() >= event.shape[0]):
                raise InputError(
                    f"The 'sample_index' metadata of {where} must index the {event.shape[0]} "
                    f"subjects of 'survival'. Got positions up to {idx.max()} instead: "
                    "'survival' must be the y given to the search."
                )
            keep = np.ones(event.shape[0], dtype=bool)
            keep[idx] = False
            return (event[keep], time[keep])
        if self.conventions.censoring == "test":
            return None
        raise InputError(
            f"{where} needs the training data's censoring distribution and received none. "
            "Either (1) make the scorer with survival=y (the outcomes given to the search), "
            "enable metadata routing (sklearn.set_config(enable_metadata_routing=True)) and "
            "route the rows' positions: search.fit(X, y, sample_index=np.arange(len(y))); "
            "or (2) call it by hand with survival_train=y_train; or (3) make it with "
            "censoring='test' to estimate the censoring from the scored fold alone."
        )

    def __call__(
        self,
        estimator: Any,
        X: Any,
        y_true: Any,
        *,
        sample_index: Any = None,
        survival_train: Any = None,
    ) -> float:
        """Score ``estimator`` on ``X`` against the survival outcomes ``y_true``.

        Parameters
        ----------
        estimator : object
            A fitted survival model: ``predict`` returns risk scores (or survival times
            under ``orientation="survival"``); ``predict_survival_function`` for the Brier
            score.
        X : array-like of shape (n_rows, n_features)
        y_true : structured array or (event, time) pair
            The outcomes of the rows of ``X``.
        sample_index : array-like of int, optional
            Positions of the rows of ``X`` in ``survival`` (routed by scikit-learn).
        survival_train : structured array or (event, time) pair, optional
            The training outcomes, when calling by hand.

        Returns
        -------
        float
        """
        where = repr(self)
        with relabel(where):
            event, time = survival_pair(y_true, "y_true")
        n = event.shape[0]
        train = None
        if self.metric in _NEEDS_CENSORING:
            train = self._train(sample_index, survival_train, n, where)
        test = (event, time)
        opts = {k: v for k, v in self.conventions.to_dict().items()}
        if self.metric == "integrated_brier":
            fn = getattr(estimator, "predict_survival_function", None)
            if not callable(fn):
                raise InvalidParameterError(
                    f"The 'estimator' parameter of {where} must have a "
                    f"predict_survival_function method. Got a {type(estimator).__name__} "
                    "instead."
                )
            surv = np.asarray([f(self.times) for f in fn(X)], dtype=np.float64)
            return -float(integrated_brier_score(train, test, surv, self.times,
                                                 censoring=opts["censoring"]))
        predict = getattr(estimator, "predict", None)
        if not callable(predict):
            raise InvalidParameterError(
                f"The 'estimator' parameter of {where} must be a fitted estimator with a "
                f"predict method. Got a {type(estimator).__name__} instead."
            )
        estimate = np.asarray(predict(X), dtype=np.float64)
        if self.metric == "harrell_c":
            opts.pop("censoring")
            return float(concordance_index_censored(event, time, estimate, **opts))
        if self.metric == "uno_c":
            return float(concordance_index_ipcw(train, test, estimate, tau=self.tau, **opts))
        opts.pop("tied_risk")
        opts.pop("tied_time")
        return float(cumulative_dynamic_auc(train, test, estimate, self.times, **opts))


@validate_params({
    "metric": Satisfies(  # the four names and the functions' names (aliases)
        lambda m: isinstance(m, str) and m in _METRICS,
        "one of 'harrell_c', 'uno_c', 'cumulative_auc', 'integrated_brier'",
    ),
    **declared("preset"),
})  # tau, times and the conventions: SurvivalScorer, which knows the metric
def make_survival_scorer(
    metric: str,
    *,
    tau: float | None = None,
    times: Any = None,
    survival: Any = None,
    preset: str | None = None,
    **conventions: Any,
) -> SurvivalScorer:
    """Make a scikit-learn scorer for a survival metric with explicit conventions.

    See :class:`SurvivalScorer` for how the scorer finds the training data's censoring
    distribution. Several scorers in a ``scoring={...}`` dict share the routed
    ``sample_index``, so multi-metric searches and ``refit="uno"`` work.

    Parameters
    ----------
    metric : {"harrell_c", "uno_c", "cumulative_auc", "integrated_brier"}
    tau, times, survival, preset, **conventions
        See :class:`SurvivalScorer`.

    Returns
    -------
    SurvivalScorer

    Examples
    --------
    >>> from skrank.survival import make_survival_scorer
    >>> make_survival_scorer("concordance_index_ipcw", tau=365, preset="sksurv")
    make_survival_scorer('uno_c', tau=365, preset='sksurv')

    A grid search whose folds are scored with the training folds' censoring::

        import sklearn
        from sklearn.model_selection import GridSearchCV, KFold
        sklearn.set_config(enable_metadata_routing=True)
        scoring = {"uno": uno_c(tau=1825, survival=y), "harrell": harrell_c()}
        search = GridSearchCV(CoxPHSurvivalAnalysis(), {"alpha": [0.01, 1, 100]},
                              scoring=scoring, refit="uno", cv=KFold(5))
        search.fit(X, y, sample_index=np.arange(len(y)))
    """
    return SurvivalScorer(metric, tau=tau, times=times, survival=survival, preset=preset,
                          **conventions)


# the shortcuts' options are make_survival_scorer's, checked by SurvivalScorer under that name
@validate_params({})
def harrell_c(**options: Any) -> SurvivalScorer:
    """Scorer of Harrell's C (needs no training data); ``options`` as
    :func:`make_survival_scorer`.

    Examples
    --------
    >>> from skrank.survival import harrell_c
    >>> harrell_c(preset="lifelines")
    make_survival_scorer('harrell_c', preset='lifelines')
    """
    return SurvivalScorer("harrell_c", **options)


@validate_params({})
def uno_c(tau: float | None = None, **options: Any) -> SurvivalScorer:
    """Scorer of Uno's C truncated at ``tau``; ``options`` as :func:`make_survival_scorer`.

    Examples
    --------
    >>> from skrank.survival import uno_c
    >>> uno_c(tau=1825)
    make_survival_scorer('uno_c', tau=1825)
    """
    return SurvivalScorer("uno_c", tau=tau, **options)


@validate_params({})
def cumulative_auc(times: Any, **options: Any) -> SurvivalScorer:
    """Scorer of the mean cumulative/dynamic AUC over ``times``.

    Examples
    --------
    >>> from skrank.survival import cumulative_auc
    >>> cumulative_auc([365, 730, 1095], censoring="test")
    make_survival_scorer('cumulative_auc', times=<3 times>, censoring='test')
    """
    return SurvivalScorer("cumulative_auc", times=times, **options)


@validate_params({})
def integrated_brier(times: Any, **options: Any) -> SurvivalScorer:
    """Scorer of the integrated Brier score over ``times``, negated (greater is better).

    Examples
    --------
    >>> from skrank.survival import integrated_brier
    >>> integrated_brier([365, 730, 1095])
    make_survival_scorer('integrated_brier', times=<3 times>)
    """
    return SurvivalScorer("integrated_brier", times=times, **options)

