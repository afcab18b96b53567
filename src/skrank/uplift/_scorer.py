"""``UpliftScorer``: a scikit-learn scorer for uplift models, the treatment flag routed."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._routing import UNCHANGED, require_routing, score_request, set_requests
from .._validation import Satisfies, check_choice, param_error, relabel, validate_params
from ..exceptions import InputError, InvalidParameterError
from ._at_k import STRATEGIES, _check_k, uplift_at_k
from ._conventions import CONVENTION_NAMES, CUT, QINI_AUC, UPLIFT_AUC, resolve
from ._curves import qini_auc_score, uplift_auc_score

_METRICS = {
    "qini_auc": "qini_auc",
    "qini_auc_score": "qini_auc",
    "uplift_auc": "uplift_auc",
    "uplift_auc_score": "uplift_auc",
    "auuc": "uplift_auc",
    "uplift_at_k": "uplift_at_k",
}
_REQUESTABLE = ("treatment", "sample_weight")


class UpliftScorer:
    """A scikit-learn scorer for an uplift metric; the treatment flag comes as metadata.

    Build it with :func:`make_uplift_scorer`. Called as scikit-learn does,
    ``scorer(estimator, X, y, treatment=treatment)``, it takes ``estimator.predict(X)`` as the
    predicted uplift (scikit-uplift's models and any estimator whose ``predict`` returns an
    uplift) and returns the metric as a float; greater is better.

    With metadata routing enabled (``sklearn.set_config(enable_metadata_routing=True)``),
    ``GridSearchCV`` and ``cross_validate`` pass each fold's slice of
    ``params={"treatment": treatment}``; the scorer requests ``treatment`` by default
    (change it with :meth:`set_score_request`). Several scorers in a dict share the routed
    flag, so ``scoring={...}`` with ``refit="qini"`` works.

    Parameters
    ----------
    metric : {"qini_auc", "uplift_auc", "uplift_at_k"}
        Also accepted: scikit-uplift's names ``"qini_auc_score"``, ``"uplift_auc_score"``.
    strategy : {"overall", "by_group"}, optional
        For ``"uplift_at_k"`` only (required there).
    k : float or int, optional
        For ``"uplift_at_k"`` only; default 0.3.
    preset : {"sklift", "causalml"}, optional
        Conventions of a library.
    **conventions
        ``ties``, ``empty_group``, ``normalize``, ``baseline``, ``area``,
        ``negative_effect``; see :class:`UpliftConventions`.

    Attributes
    ----------
    metric : str
        ``"qini_auc"``, ``"uplift_auc"`` or ``"uplift_at_k"``.
    conventions : UpliftConventions
        Every convention in force.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.uplift import make_uplift_scorer
    >>> class Fixed:  # an "uplift model" whose predict returns the first column
    ...     def predict(self, X):
    ...         return np.asarray(X)[:, 0]
    >>> X = np.array([[0.9], [0.8], [0.8], [0.5], [0.5], [0.3], [0.2], [0.2]])
    >>> y = np.array([1, 1, 0, 1, 0, 0, 1, 0])
    >>> t = np.array([1, 1, 0, 1, 0, 1, 0, 0])
    >>> scorer = make_uplift_scorer("qini_auc", preset="sklift")
    >>> scorer
    make_uplift_scorer('qini_auc', preset='sklift')
    >>> round(scorer(Fixed(), X, y, treatment=t), 4)
    0.7727
    """

    def __init__(
        self,
        metric: str,
        *,
        strategy: str | None = None,
        k: float | None = None,
        preset: str | None = None,
        **conventions: Any,
    ) -> None:
        caller = "make_uplift_scorer"  # the class's messages name its factory
        with relabel(caller):
            self.metric = _METRICS.get(metric) if isinstance(metric, str) else None
            if self.metric is None:
                raise param_error("metric", "one of 'qini_auc', 'uplift_auc', 'uplift_at_k'",
                                  metric, caller)
            given = {n: v for n, v in conventions.items() if v is not None}
            for name in given:
                if name not in CONVENTION_NAMES:
                    raise param_error(
                        name,
                        "not passed: it is not an uplift convention; known are "
                        + ", ".join(CONVENTION_NAMES),
                        given[name],
                        caller,
                    )
            if self.metric == "uplift_at_k":
                if strategy is None:
                    raise param_error("strategy", "one of 'overall', 'by_group' for uplift_at_k",
                                      None, caller)
                check_choice("strategy", strategy, STRATEGIES, caller)
                _check_k(0.3 if k is None else k)
                extra = set(given) - {"ties"}
            else:
                if strategy is not None or k is not None:
                    name = "strategy" if strategy is not None else "k"
                    raise param_error(name, "None: it applies to 'uplift_at_k' only",
                                      strategy if strategy is not None else k, caller)
                extra = {"negative_effect"} & set(given) if self.metric == "uplift_auc" else set()
            if extra:
                name = sorted(extra)[0]
                raise param_error(name, f"not passed: {self.metric} does not use it",
                                  given[name], caller)
            self._strategy = strategy
            self._k = k
            self._preset = preset
            self._conventions = given
            self._requests: dict[str, bool | str | None] = {"treatment": True,
                                                            "sample_weight": None}
            # resolved now, so that a bad convention or preset fails at construction
            kind = {"qini_auc": QINI_AUC, "uplift_auc": UPLIFT_AUC, "uplift_at_k": CUT}
            self.conventions = resolve(kind[self.metric], preset, **given)

    def __repr__(self) -> str:
        parts = [repr(self.metric)]
        if self._strategy is not None:
            parts.append(f"strategy={self._strategy!r}")
        if self._k is not None:
            parts.append(f"k={self._k!r}")
        if self._preset is not None:
            parts.append(f"preset={self._preset!r}")
        parts += [f"{k}={v!r}" for k, v in self._conventions.items()]
        return f"make_uplift_scorer({', '.join(parts)})"

    def _routing_repr(self) -> str:
        return repr(self)

    # -- metadata routing ------------------------------------------------------------

    def set_score_request(
        self,
        *,
        treatment: bool | str | None = UNCHANGED,
        sample_weight: bool | str | None = UNCHANGED,
    ) -> UpliftScorer:
        """Choose which metadata the scorer receives (metadata routing must be enabled).

        Parameters
        ----------
        treatment, sample_weight : bool, str or None
            ``True`` requests it, ``False`` refuses it, ``None`` leaves it unset, a string
            requests it under another name. Defaults: ``treatment=True``,
            ``sample_weight=None`` (uplift metrics take no row weights; requesting them
            is an error when they are passed).

        Returns
        -------
        self : UpliftScorer
        """
        require_routing()
        set_requests(self._requests, treatment=treatment, sample_weight=sample_weight)
        return self

    def get_metadata_routing(self):
        """The metadata this scorer requests, for scikit-learn's metadata routing.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRequest
        """
        return score_request(self, self._requests)

    # -- scoring ---------------------------------------------------------------------

    def _score(self, y: Any, s: Any, t: Any):
        options = dict(self._conventions)
        if self.metric == "uplift_at_k":
            k = 0.3 if self._k is None else self._k
            return uplift_at_k(y, s, t, self._strategy, k, preset=self._preset, **options)
        if self.metric == "qini_auc":
            return qini_auc_score(y, s, t, preset=self._preset, **options)
        return uplift_auc_score(y, s, t, preset=self._preset, **options)

    def __call__(
        self,
        estimator: Any,
        X: Any,
        y_true: Any,
        *,
        treatment: Any = None,
        sample_weight: Any = None,
    ) -> float:
        """Score ``estimator`` on ``X`` against the outcomes ``y_true``.

        Parameters
        ----------
        estimator : object
            A fitted estimator whose ``predict`` returns the predicted uplift.
        X : array-like of shape (n_rows, n_features)
            The rows to score.
        y_true : array-like of shape (n_rows,)
            Outcomes.
        treatment : array-like of shape (n_rows,)
            Treatment flag of the rows (routed by scikit-learn, or passed by hand).
        sample_weight : None
            Refused: the uplift metrics take no row weights.

        Returns
        -------
        float
        """
        where = repr(self)
        if treatment is None:
            raise InputError(
                f"{where} needs the treatment flag of the rows it scores. Enable metadata "
                "routing with sklearn.set_config(enable_metadata_routing=True) and pass it, "
                "e.g. GridSearchCV(...).fit(X, y, treatment=treatment) or cross_validate(..., "
                "params={'treatment': treatment}); called by hand: scorer(estimator, X, y, "
                "treatment=treatment)."
            )
        if sample_weight is not None:
            raise param_error("sample_weight", "None: uplift metrics take no row weights",
                              "an array", where)
        predict = getattr(estimator, "predict", None)
        if not callable(predict):
            raise InvalidParameterError(
                f"The 'estimator' parameter of {where} must be a fitted estimator whose "
                f"predict returns the uplift. Got a {type(estimator).__name__} instead, which "
                "has no predict."
            )
        uplift = np.asarray(predict(X))
        return float(self._score(y_true, uplift, treatment))


@validate_params({
    "metric": Satisfies(  # the three names and scikit-uplift's function names (aliases)
        lambda m: isinstance(m, str) and m in _METRICS,
        "one of 'qini_auc', 'uplift_auc', 'uplift_at_k'",
    ),
})  # strategy, k, preset and the conventions: UpliftScorer, which knows the metric
def make_uplift_scorer(
    metric: str,
    *,
    strategy: str | None = None,
    k: float | None = None,
    preset: str | None = None,
    **conventions: Any,
) -> UpliftScorer:
    """Make a scikit-learn scorer for an uplift metric, the treatment flag routed as metadata.

    Parameters
    ----------
    metric : {"qini_auc", "uplift_auc", "uplift_at_k"}
        The metric (scikit-uplift's names ``"qini_auc_score"``, ``"uplift_auc_score"`` too).
    strategy : {"overall", "by_group"}, optional
        For ``"uplift_at_k"``: required.
    k : float or int, optional
        For ``"uplift_at_k"``; default 0.3.
    preset : {"sklift", "causalml"}, optional
        Conventions of a library.
    **conventions
        ``ties``, ``empty_group``, ``normalize``, ``baseline``, ``area``,
        ``negative_effect``.

    Returns
    -------
    UpliftScorer

    Examples
    --------
    >>> from skrank.uplift import make_uplift_scorer
    >>> scoring = {"qini": make_uplift_scorer("qini_auc"),
    ...            "uplift@30%": make_uplift_scorer("uplift_at_k", strategy="overall", k=0.3)}
    >>> scoring["uplift@30%"]
    make_uplift_scorer('uplift_at_k', strategy='overall', k=0.3)

    With routing enabled: ``GridSearchCV(model, grid, scoring=scoring, refit="qini",
    cv=StratifiedKFold(5)).fit(X, y, treatment=treatment)``.
    """
    return UpliftScorer(metric, strategy=strategy, k=k, preset=preset, **conventions)
