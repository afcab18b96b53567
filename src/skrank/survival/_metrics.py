"""The survival metrics: Harrell's and Uno's concordance, cumulative/dynamic AUC, Brier scores.

Names and argument order are scikit-survival's (``sksurv.metrics``); every choice on which
implementations differ is a named convention (:class:`SurvivalConventions`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import Described, Interval, public_name, validate_params
from ..exceptions import InputError
from ._concordance import concordance_counts
from ._conventions import SurvivalConventions, declared, resolve
from ._inputs import check_estimate, check_event, check_time, check_times, survival_pair
from ._km import StepFunction, censoring_km, inverse_weights, survival_km
from ._results import BrierScores, ConcordanceResult, SurvivalScore, TimeDependentAUC

__all__ = [
    "brier_score",
    "concordance_index_censored",
    "concordance_index_ipcw",
    "cumulative_dynamic_auc",
    "integrated_brier_score",
]


def _oriented(estimate: np.ndarray, conv: SurvivalConventions) -> np.ndarray:
    return -estimate if conv.orientation == "survival" else estimate


def _ratio(w_con: float, w_dis: float, w_tie: float, rule: str) -> float:
    if rule == "half":
        return (w_con + 0.5 * w_tie) / (w_con + w_dis + w_tie)
    if rule == "concordant":
        return (w_con + w_tie) / (w_con + w_dis + w_tie)
    if rule == "discordant":
        return w_con / (w_con + w_dis + w_tie)
    return w_con / (w_con + w_dis)  # "exclude"


def _concordance(
    name: str,
    event: np.ndarray,
    time: np.ndarray,
    risk: np.ndarray,
    weight: np.ndarray,
    anchors: np.ndarray,
    conv: SurvivalConventions,
    tau: float | None = None,
) -> ConcordanceResult:
    order = np.argsort(time, kind="stable")
    t = np.ascontiguousarray(time[order])
    r = np.ascontiguousarray(risk[order])
    uniq, rank = np.unique(r, return_inverse=True)
    counts = concordance_counts(
        t,
        np.ascontiguousarray(anchors[order], dtype=np.uint8),
        r,
        np.ascontiguousarray(rank, dtype=np.intp),
        uniq,
        np.ascontiguousarray(weight[order]),
        conv.tied_tol,
        conv.tied_time == "censored_later",
    )
    n_con, n_dis, n_tie, n_tt, w_con, w_dis, w_tie = counts
    counted = n_con + n_dis + (0 if conv.tied_risk == "exclude" else n_tie)
    if counted == 0:
        where = f" with an event before tau={tau:g}" if tau is not None else ""
        raise InputError(
            f"{public_name()} found no comparable pairs{where}: a pair is comparable when the "
            "subject with the shorter time had an event"
            + (" (pairs tied in risk are excluded by tied_risk='exclude')"
               if conv.tied_risk == "exclude" and n_tie else "")
            + f". The data have {int(event.sum())} events among {event.shape[0]} subjects "
            "(scikit-survival: \"Data has no comparable pairs, cannot estimate concordance "
            "index\")."
        )
    value = _ratio(w_con, w_dis, w_tie, conv.tied_risk)
    return ConcordanceResult(
        name=name,
        value=float(value),
        conventions=conv,
        n_concordant=int(n_con),
        n_discordant=int(n_dis),
        n_tied_risk=int(n_tie),
        n_tied_time=int(n_tt),
        n_subjects=int(event.shape[0]),
        n_events=int(event.sum()),
        tau=tau,
    )


@validate_params(declared("preset", "tied_tol", "tied_risk", "tied_time", "orientation"))
def concordance_index_censored(
    event_indicator: Any,
    event_time: Any,
    estimate: Any,
    tied_tol: float | None = None,
    *,
    preset: str | None = None,
    tied_risk: str | None = None,
    tied_time: str | None = None,
    orientation: str | None = None,
) -> ConcordanceResult:
    """Harrell's concordance index for right-censored data, in O(n log n).

    A pair of subjects is comparable when the one with the shorter time had an event (and,
    under ``tied_time="censored_later"``, when an event and a censored subject share a
    time); it is concordant when that subject has the higher risk. The index is
    ``(concordant + 1/2 tied) / comparable`` under the default ``tied_risk="half"``.

    Parameters
    ----------
    event_indicator : array-like of shape (n_subjects,)
        ``True`` (or 1) for an event, ``False`` (or 0) for a censored time.
    event_time : array-like of shape (n_subjects,)
        Time of the event or of censoring; finite and >= 0.
    estimate : array-like of shape (n_subjects,)
        Risk scores (``orientation="risk"``: higher means an earlier event, as
        ``estimator.predict`` of scikit-survival) or predicted survival times
        (``orientation="survival"``, lifelines).
    tied_tol : float, optional
        Scores within ``tied_tol`` of each other are tied; default 1e-8 (0 for
        ``preset="lifelines"``).
    preset : {"sksurv", "lifelines"}, optional
        Conventions of scikit-survival (the defaults) or of lifelines'
        ``concordance_index`` (survival times, exact ties).
    tied_risk, tied_time, orientation : str, optional
        Conventions; see :class:`SurvivalConventions`.

    Returns
    -------
    ConcordanceResult
        Usable as a float; unpacks as scikit-survival's
        ``(cindex, concordant, discordant, tied_risk, tied_time)``.

    Raises
    ------
    skrank.InputError
        Events that are not boolean (or 0/1), negative or non-finite times, NaN estimates,
        no comparable pair.

    Examples
    --------
    >>> from skrank.survival import concordance_index_censored
    >>> event = [True, False, True, True, False, True]
    >>> time = [1.0, 3.0, 3.0, 4.0, 5.0, 6.0]
    >>> risk = [0.9, 0.5, 0.6, 0.6, 0.1, 0.2]
    >>> c = concordance_index_censored(event, time, risk)
    >>> print(c)
    Harrell's C = 0.9545 (tied_risk=half, tied_time=censored_later, tied_tol=1e-08,
    orientation=risk; 6 subjects, 4 events; 11 comparable pairs: 10 concordant, 0 discordant, 1
    tied in risk; 1 event/censored pairs tied in time (comparable))
    >>> round(c, 4), c > 0.5, f"{c:.2f}"
    (0.9545, True, '0.95')
    >>> cindex, concordant, discordant, tied_risk, tied_time = c  # scikit-survival's tuple
    >>> concordant, discordant, tied_risk, tied_time
    (10, 0, 1, 1)

    lifelines takes predicted survival times: risk scores given as survival times give 1 - C.

    >>> print(f"{concordance_index_censored(event, time, risk, preset='lifelines'):.4f}")
    0.0455
    >>> survival_time = [-r for r in risk]
    >>> print(f"{concordance_index_censored(event, time, survival_time, preset='lifelines'):.4f}")
    0.9545
    """
    caller = public_name()
    conv = resolve(preset, tied_tol=tied_tol, tied_risk=tied_risk, tied_time=tied_time,
                   orientation=orientation)
    event = check_event(event_indicator, "event_indicator")
    time = check_time(event_time, "event_time")
    if event.shape[0] != time.shape[0]:
        raise InputError(
            f"The 'event_time' parameter of {caller} must have one time per subject of "
            f"event_indicator ({event.shape[0]}). Got {time.shape[0]} times instead."
        )
    est = check_estimate(estimate, event.shape[0])
    risk = _oriented(est, conv)
    weight = np.ones(event.shape[0])
    return _concordance("Harrell's C", event, time, risk, weight, event, conv)


def _censoring(
    conv: SurvivalConventions,
    survival_train: Any,
    test_event: np.ndarray,
    test_time: np.ndarray,
) -> StepFunction:
    if conv.censoring == "test":
        return censoring_km(test_event, test_time, "test data")
    if survival_train is None:
        raise InputError(
            f"The 'survival_train' parameter of {public_name()} must be the training data's "
            "survival outcomes under censoring='train' (scikit-survival's rule). Got None "
            "instead. Pass censoring='test' to estimate the censoring from the test data."
        )
    ev, t = survival_pair(survival_train, "survival_train")
    return censoring_km(ev, t, "training data")


def _test_pair(survival_test: Any) -> tuple[np.ndarray, np.ndarray]:
    event, time = survival_pair(survival_test, "survival_test")
    if not event.any():
        raise InputError(
            f"The 'survival_test' parameter of {public_name()} must hold at least one event. Got "
            f"{event.shape[0]} censored subjects instead (scikit-survival: \"all samples are "
            "censored\")."
        )
    return event, time


@validate_params({
    **declared("preset", "tied_tol", "tied_risk", "tied_time", "censoring", "orientation"),
    "tau": Described("a finite real number > 0", Interval(float, 0, closed="neither"), None),
})
def concordance_index_ipcw(
    survival_train: Any,
    survival_test: Any,
    estimate: Any,
    tau: float | None = None,
    tied_tol: float | None = None,
    *,
    preset: str | None = None,
    tied_risk: str | None = None,
    tied_time: str | None = None,
    censoring: str | None = None,
    orientation: str | None = None,
) -> ConcordanceResult:
    """Uno's concordance index: Harrell's pairs weighted by ``1 / G(t_i)^2``, in O(n log n).

    ``G`` is the Kaplan-Meier estimate of the censoring distribution (from the training data
    by default), evaluated at the time of the pair's earlier event; only pairs whose earlier
    event is before ``tau`` count.

    Parameters
    ----------
    survival_train : structured array or (event, time) pair, or None
        Training outcomes, for the censoring distribution (unused, and may be None, under
        ``censoring="test"``).
    survival_test : structured array or (event, time) pair
        Test outcomes: a structured array whose first field is the boolean event indicator and
        second the time (``sksurv.util.Surv.from_arrays``), or a pair ``(event, time)``.
    estimate : array-like of shape (n_test,)
        Risk scores (or survival times under ``orientation="survival"``).
    tau : float, optional
        Truncation time; events at or after ``tau`` anchor no pair. ``G`` must be positive
        before it.
    tied_tol : float, optional
        Scores within ``tied_tol`` are tied; default 1e-8.
    preset : {"sksurv", "lifelines"}, optional
        Conventions of a library (lifelines has no Uno's C: its preset sets the orientation
        and ties of its Harrell's C).
    tied_risk, tied_time, censoring, orientation : str, optional
        Conventions; see :class:`SurvivalConventions`.

    Returns
    -------
    ConcordanceResult
        The counts cover the pairs that enter the index (earlier event before ``tau``);
        scikit-survival's tuple counts the pairs beyond ``tau`` too.

    Raises
    ------
    skrank.InputError
        As :func:`concordance_index_censored`, and when a test event lies beyond the last
        training time (where the censoring estimate is undefined) or where it is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.survival import concordance_index_ipcw
    >>> event = np.array([1, 0, 1, 0, 1, 1, 0, 0, 1, 0], dtype=bool)
    >>> train = (event, np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10.0]))
    >>> test = (np.array([True, True, False, True, True, False]), np.array([1.5, 3, 4, 6.5, 8, 9]))
    >>> risk = [0.9, 0.4, 0.5, 0.1, 0.3, 0.2]
    >>> print(concordance_index_ipcw(train, test, risk))
    Uno's C = 0.7691 (tied_risk=half, tied_time=censored_later, tied_tol=1e-08,
    orientation=risk; 6 subjects, 4 events; 12 comparable pairs: 9 concordant, 3 discordant, 0
    tied in risk; 0 event/censored pairs tied in time (comparable))
    >>> c = concordance_index_ipcw(train, test, risk, tau=5)
    >>> print(f"{c:.4f} from {c.n_comparable} pairs")
    0.8742 from 9 pairs
    """
    conv = resolve(preset, tied_tol=tied_tol, tied_risk=tied_risk, tied_time=tied_time,
                   censoring=censoring, orientation=orientation)
    if tau is not None:
        tau = float(tau)
    event, time = _test_pair(survival_test)
    est = check_estimate(estimate, event.shape[0])
    G = _censoring(conv, survival_train, event, time)
    anchors = event if tau is None else event & (time < tau)
    weight = np.zeros(event.shape[0])
    if anchors.any():
        w = inverse_weights(G, time[anchors], "the event time")
        weight[anchors] = w * w
    return _concordance(
        "Uno's C", event, time, _oriented(est, conv), weight, anchors, conv, tau
    )


def _grid(
    estimate: Any, times: Any, event: np.ndarray, time: np.ndarray, allow_1d: bool,
) -> tuple[np.ndarray, np.ndarray]:
    caller = public_name()
    grid, order = check_times(times, time)
    est = check_estimate(estimate, event.shape[0], ndim=(1, 2))
    if est.ndim == 1:
        if not allow_1d and grid.shape[0] > 1:
            raise InputError(
                f"The 'estimate' parameter of {caller} must be 2-D, one column of survival "
                f"probabilities per time point ({grid.shape[0]}). Got a 1-D array instead."
            )
        est = np.broadcast_to(est[:, None], (est.shape[0], grid.shape[0]))
    elif est.shape[1] != grid.shape[0]:
        raise InputError(
            f"The 'estimate' parameter of {caller} must have one column per time point "
            f"({grid.shape[0]}). Got {est.shape[1]} columns instead."
        )
    else:
        est = est[:, order]
    return grid, est


def _auc_at(
    risk: np.ndarray, case_w: np.ndarray, control: np.ndarray, tol: float
) -> tuple[float, int]:
    o = np.argsort(-risk, kind="stable")
    r = risk[o]
    # a new group of tied risks starts where the step from the previous one exceeds tol
    starts = np.flatnonzero(np.r_[True, np.abs(np.diff(r)) > tol])
    tp = np.add.reduceat(case_w[o], starts)
    fp = np.add.reduceat(control[o].astype(np.float64), starts)
    n_tied = int(r.shape[0] - starts.shape[0])
    ctp = np.cumsum(tp)
    cfp = np.cumsum(fp)
    tpr = np.r_[0.0, ctp / ctp[-1]]
    fpr = np.r_[0.0, cfp / cfp[-1]]
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0)), n_tied


@validate_params(declared("preset", "tied_tol", "censoring", "orientation"))
def cumulative_dynamic_auc(
    survival_train: Any,
    survival_test: Any,
    estimate: Any,
    times: Any,
    tied_tol: float | None = None,
    *,
    preset: str | None = None,
    censoring: str | None = None,
    orientation: str | None = None,
) -> TimeDependentAUC:
    """Cumulative/dynamic AUC at each time ``t``: events by ``t`` (cases, weighted by the
    inverse probability of censoring) against subjects followed beyond ``t`` (controls).

    Parameters
    ----------
    survival_train : structured array or (event, time) pair, or None
        Training outcomes, for the censoring distribution (may be None under
        ``censoring="test"``).
    survival_test : structured array or (event, time) pair
        Test outcomes.
    estimate : array-like of shape (n_test,) or (n_test, n_times)
        Risk scores, the same at every time (1-D) or one column per time (2-D).
    times : array-like of shape (n_times,)
        Distinct evaluation times inside ``[min(test time), max(test time))``; they are sorted,
        and the columns of a 2-D ``estimate`` with them.
    tied_tol : float, optional
        Scores within ``tied_tol`` of the next one (sorted) are tied; default 1e-8.
    preset : {"sksurv", "lifelines"}, optional
    censoring, orientation : str, optional
        Conventions; see :class:`SurvivalConventions`.

    Returns
    -------
    TimeDependentAUC
        Usable as the mean AUC (a float); unpacks as ``auc, mean_auc``.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.survival import cumulative_dynamic_auc
    >>> event = np.array([1, 0, 1, 0, 1, 1, 0, 0, 1, 0], dtype=bool)
    >>> train = (event, np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10.0]))
    >>> test = (np.array([True, True, False, True, True, False]), np.array([1.5, 3, 4, 6.5, 8, 9]))
    >>> res = cumulative_dynamic_auc(train, test, [0.9, 0.4, 0.5, 0.1, 0.3, 0.2], times=[2, 5, 8])
    >>> print(res)
    mean AUC(t) = 0.8763 over 3 times in [2, 8] (censoring=train, tied_tol=1e-08,
    orientation=risk; 6 subjects, 4 events)
    >>> auc, mean_auc = res
    >>> auc.round(4).tolist()
    [1.0, 1.0, 0.7835]
    """
    caller = public_name()
    conv = resolve(preset, tied_tol=tied_tol, censoring=censoring,
                   orientation=orientation)
    event, time = _test_pair(survival_test)
    grid, est = _grid(estimate, times, event, time, allow_1d=True)
    G = _censoring(conv, survival_train, event, time)
    ipcw = np.zeros(event.shape[0])
    ipcw[event] = inverse_weights(G, time[event], "the event time")
    risk = _oriented(est, conv)
    scores = np.empty(grid.shape[0])
    n_tied = 0
    for j, t in enumerate(grid):
        case_w = np.where(event & (time <= t), ipcw, 0.0)
        control = time > t
        if not case_w.any():
            raise InputError(
                f"The 'times' parameter of {caller} must hold times with at least one test "
                f"event at or before them. Got {t:g}, before the first event "
                f"({time[event].min():g}), instead."
            )
        scores[j], tied = _auc_at(np.ascontiguousarray(risk[:, j]), case_w, control,
                                  conv.tied_tol)
        n_tied = max(n_tied, tied)
    if grid.shape[0] == 1:
        mean = float(scores[0])
    else:
        S = survival_km(event, time, "test data")(grid, "time")
        drop = -np.diff(np.r_[1.0, S])
        mean = float((scores * drop).sum() / (1.0 - S[-1]))
    return TimeDependentAUC(
        times=grid, auc=scores, value=mean, conventions=conv,
        n_subjects=int(event.shape[0]), n_events=int(event.sum()), n_tied_risk=n_tied,
    )


def _brier(
    survival_train: Any, survival_test: Any, estimate: Any, times: Any,
    conv: SurvivalConventions,
) -> BrierScores:
    caller = public_name()
    event, time = _test_pair(survival_test)
    grid, est = _grid(estimate, times, event, time, allow_1d=False)
    if ((est < 0) | (est > 1)).any():
        raise InputError(
            f"The 'estimate' parameter of {caller} must hold survival probabilities in "
            f"[0, 1]. Got values in [{est.min():g}, {est.max():g}] instead (risk scores "
            "are not probabilities)."
        )
    G = _censoring(conv, survival_train, event, time)
    g_t = G(grid, "the evaluation time")
    g_y = G(time, "the test time")
    with np.errstate(divide="ignore"):
        inv_t = np.where(g_t > 0, 1.0 / np.where(g_t > 0, g_t, 1.0), 0.0)
        inv_y = np.where(g_y > 0, 1.0 / np.where(g_y > 0, g_y, 1.0), 0.0)
    scores = np.empty(grid.shape[0])
    for j, t in enumerate(grid):
        p = est[:, j]
        case = event & (time <= t)
        control = time > t
        scores[j] = np.mean(np.square(p) * case * inv_y + np.square(1.0 - p) * control * inv_t[j])
    return BrierScores(
        times=grid, scores=scores, conventions=conv,
        n_subjects=int(event.shape[0]), n_events=int(event.sum()),
    )


@validate_params(declared("censoring"))
def brier_score(
    survival_train: Any,
    survival_test: Any,
    estimate: Any,
    times: Any,
    *,
    censoring: str | None = None,
) -> BrierScores:
    """Time-dependent Brier score with inverse probability of censoring weights (Graf et al.).

    At time ``t``: the mean over test subjects of ``S_i(t)^2 / G(t_i)`` for an event at or
    before ``t`` and ``(1 - S_i(t))^2 / G(t)`` for a subject followed beyond ``t``; subjects
    censored before ``t`` count 0. Lower is better.

    Parameters
    ----------
    survival_train : structured array or (event, time) pair, or None
        Training outcomes, for the censoring distribution ``G``.
    survival_test : structured array or (event, time) pair
        Test outcomes.
    estimate : array-like of shape (n_test, n_times)
        Predicted survival probabilities ``S_i(t)`` at each time (1-D for a single time).
    times : array-like of shape (n_times,)
        Distinct times inside ``[min(test time), max(test time))``.
    censoring : {"train", "test"}, optional
        Where ``G`` comes from; default ``"train"``.

    Returns
    -------
    BrierScores
        Unpacks as ``times, scores``.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.survival import brier_score
    >>> y = (np.array([True, False, True, True, False]), np.array([1.0, 2, 3, 4, 5]))
    >>> S = np.array([[0.8, 0.5], [0.7, 0.6], [0.6, 0.4], [0.5, 0.3], [0.6, 0.5]])
    >>> res = brier_score(y, y, S, times=[1.5, 3.5])
    >>> print(res)
    Brier score at 2 times in [1.5, 3.5] = [1.5: 0.2600, 3.5: 0.2900] (censoring=train; 5
    subjects, 3 events)
    >>> times, scores = res
    >>> scores.round(4).tolist()
    [0.26, 0.29]
    """
    conv = resolve(None, censoring=censoring)
    return _brier(survival_train, survival_test, estimate, times, conv)


@validate_params(declared("censoring"))
def integrated_brier_score(
    survival_train: Any,
    survival_test: Any,
    estimate: Any,
    times: Any,
    *,
    censoring: str | None = None,
) -> SurvivalScore:
    """The Brier score integrated over ``times`` (trapezoidal rule) and divided by their span.

    Parameters are those of :func:`brier_score`; ``times`` needs at least two points.

    Returns
    -------
    SurvivalScore
        Usable as a float (lower is better).

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.survival import integrated_brier_score
    >>> y = (np.array([True, False, True, True, False]), np.array([1.0, 2, 3, 4, 5]))
    >>> S = np.array([[0.8, 0.5], [0.7, 0.6], [0.6, 0.4], [0.5, 0.3], [0.6, 0.5]])
    >>> ibs = integrated_brier_score(y, y, S, times=[1.5, 3.5])
    >>> print(ibs)
    Integrated Brier score = 0.2750 over 2 times in [1.5, 3.5] (censoring=train; 5 subjects, 3
    events)
    """
    caller = public_name()
    conv = resolve(None, censoring=censoring)
    res = _brier(survival_train, survival_test, estimate, times, conv)
    if res.times.shape[0] < 2:
        raise InputError(
            f"The 'times' parameter of {caller} must hold at least two time points. Got "
            f"{res.times.shape[0]} instead."
        )
    t, s = res.times, res.scores
    value = float(np.sum(np.diff(t) * (s[1:] + s[:-1]) / 2.0) / (t[-1] - t[0]))
    return SurvivalScore(
        name="Integrated Brier score", value=value, times=t, conventions=conv,
        n_subjects=res.n_subjects, n_events=res.n_events,
    )
