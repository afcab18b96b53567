"""Rankings under the position-based click model (private module): the position
propensities, estimated from randomised logs (shuffled top results, swap interventions), and
the IPS value of a new ranking from logged clicks re-weighted by them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import renamed_parameters, validate_params
from ..exceptions import InputError
from ..stats._checks import OPEN_UNIT
from ._counterfactual import _CI, _CI_PARAMS
from ._results import OffPolicyEstimate, PropensityEstimate
from ._utils import (
    as_float_array,
    as_int_array,
    check_binary,
    check_probabilities,
    check_same_length,
    input_error,
    normal_ci,
    ratio_delta_var,
)

__all__ = ["estimate_propensities_shuffle", "estimate_propensities_swap", "pbm_ips"]


def _check_rankings(name: str, r: Any, caller: str) -> np.ndarray:
    arr = as_int_array(name, r, caller, ndim=2)
    if (arr < -1).any():
        raise input_error(name, "document ids >= 0 (or -1 for an empty slot)",
                          repr(int(arr.min())), caller)
    if arr.shape[1] > 1:
        s = np.sort(arr, axis=1)
        dup = (s[:, 1:] == s[:, :-1]) & (s[:, 1:] >= 0)
        if dup.any():
            i, j = np.argwhere(dup)[0]
            raise input_error(
                name, "rankings without duplicate documents",
                f"document {int(s[i, j + 1])} twice in row {int(i)}", caller,
            )
    return arr


@renamed_parameters(n_bootstrap="n_resamples")
@validate_params(_CI_PARAMS)
def pbm_ips(
    clicks: Any,
    logged_rankings: Any,
    target_rankings: Any,
    propensities: Any,
    *,
    logged_propensities: Any = None,
    target_weights: Any = None,
    confidence_level: float = 0.95,
    ci: str = "normal",
    n_resamples: int = 2000,
    rng: Any = None,
) -> OffPolicyEstimate:
    """Position-based-model IPS: a new ranking's expected clicks from logged clicks.

    Under the position-based model a click on document ``d`` shown at logged position ``j``
    has probability ``theta_j * alpha_d``, so ``c / theta_j`` is an unbiased estimate of the
    attractiveness ``alpha_d`` (Joachims, Swaminathan and Schnabel, 2017). Re-weighting each
    click by the examination the target ranking would give the same document,

    ``V = mean_i sum_{j clicked} target_weights[m_ij] / theta_j``,

    with ``m_ij`` the document's position in the target ranking, estimates the target's
    expected number of clicks per impression (``target_weights = propensities``, the default)
    or any other position-weighted sum of attractiveness.

    Unbiased only when every document the target ranking would show (with a non-zero weight)
    could have been shown and examined by the logging policy. Documents that were not shown
    get no clicks, so a target that surfaces them is underestimated (selection bias). With a
    randomised logging policy pass ``logged_propensities``: each shown slot's examination
    probability averaged over the randomisation (the "policy-aware" propensity,
    ``sum_k P(d at k) theta_k``; Oosterhuis and de Rijke, 2020).

    Parameters
    ----------
    clicks : array-like of {0, 1}, shape (n_impressions, n_logged)
        Clicks in logged order.
    logged_rankings : array-like of int, shape (n_impressions, n_logged)
        Logged (shown) document ids; ``-1`` marks an empty slot, which cannot be clicked.
    target_rankings : array-like of int, shape (n_impressions, n_target)
        The target ranking's document ids for the same impressions; ``-1`` pads.
    propensities : array-like of float, shape (n_positions,)
        Examination probability of each position, in (0, 1] (relative values are fine: the
        estimator only uses ratios when ``target_weights`` is None).
    logged_propensities : array-like of float, shape (n_impressions, n_logged), optional
        Examination probability of each logged slot, replacing ``propensities[j]``.
    target_weights : array-like of float, shape (n_weights,), optional
        Weight of each target position (default ``propensities``); positions past its end
        weigh 0.
    confidence_level, ci, n_resamples, rng
        As in :func:`ips`.

    Returns
    -------
    OffPolicyEstimate
        ``ess`` and ``mean_weight`` are None. The standard error treats the propensities as
        known; when they were estimated from the same log the true uncertainty is somewhat
        larger (resample the log and re-estimate them to include it).

    Examples
    --------
    >>> from skrank.online import pbm_ips
    >>> clicks = [[0, 1], [1, 0]]
    >>> logged = [[7, 8], [7, 8]]
    >>> target = [[8, 7], [8, 7]]             # the target swaps the two documents
    >>> pbm_ips(clicks, logged, target, [1.0, 0.5]).value   # (1/0.5 + 0.5/1) / 2
    1.25
    """
    caller = "pbm_ips"
    opts = _CI(confidence_level, ci, n_resamples, rng, caller)
    c = check_binary("clicks", as_float_array("clicks", clicks, caller, ndim=2), caller)
    logged = _check_rankings("logged_rankings", logged_rankings, caller)
    target = _check_rankings("target_rankings", target_rankings, caller)
    theta = as_float_array("propensities", propensities, caller)
    if theta.size == 0:
        raise input_error("propensities", "non-empty", "an empty array", caller)
    check_probabilities("propensities", theta, caller)
    check_same_length(caller, clicks=c, logged_rankings=logged, target_rankings=target)
    if c.shape != logged.shape:
        raise InputError(
            f"{caller}: 'clicks' has shape {c.shape} but 'logged_rankings' has {logged.shape}; "
            "there must be one click indicator per logged slot."
        )
    if c.shape[0] == 0:
        raise input_error("clicks", "at least one impression", "0 impressions", caller)
    outside = (c > 0) & (logged < 0)
    if outside.any():
        i, j = np.argwhere(outside)[0]
        raise input_error(
            "clicks", "on shown documents only",
            f"a click in empty slot {int(j)} of impression {int(i)} (outside the shown list)",
            caller,
        )
    n_logged = logged.shape[1]
    if logged_propensities is None:
        clicked_cols = np.flatnonzero(c.any(axis=0))
        if clicked_cols.size and clicked_cols.max() >= theta.size:
            raise input_error(
                "propensities",
                f"given for every clicked position (up to {clicked_cols.max() + 1})",
                f"{theta.size} positions", caller,
            )
        rho = np.ones(n_logged)
        m = min(n_logged, theta.size)
        rho[:m] = theta[:m]
        rho = np.broadcast_to(rho, logged.shape)
    else:
        rho = as_float_array("logged_propensities", logged_propensities, caller, ndim=2)
        if rho.shape != logged.shape:
            raise InputError(
                f"{caller}: 'logged_propensities' has shape {rho.shape} but 'logged_rankings' "
                f"has {logged.shape}; they must have the same shape."
            )
        check_probabilities("logged_propensities", np.where(logged >= 0, rho, 1.0), caller)
    if target_weights is None:
        tw = theta
    else:
        tw = as_float_array("target_weights", target_weights, caller)
        if (tw < 0).any():
            raise input_error("target_weights", "non-negative", repr(float(tw.min())), caller)
    n_target = target.shape[1]
    tw_full = np.zeros(n_target)
    m = min(n_target, tw.size)
    tw_full[:m] = tw[:m]
    # match[i, j, m]: logged doc j of impression i is the target's m-th document
    match = (logged[:, :, None] == target[:, None, :]) & (logged[:, :, None] >= 0)
    weight_of_slot = match.astype(np.float64) @ tw_full  # (n, n_logged)
    with np.errstate(divide="ignore", invalid="ignore"):
        contrib = np.where(c > 0, weight_of_slot / rho, 0.0)
    return opts.result("pbm_ips", contrib.sum(axis=1), None)


@validate_params({"confidence_level": OPEN_UNIT})
def estimate_propensities_shuffle(
    clicks: Any, *, confidence_level: float = 0.95
) -> PropensityEstimate:
    """Position propensities from logs whose top ``n`` results were shuffled uniformly.

    After a uniform random shuffle every position holds a document of the same expected
    attractiveness, so under the position-based model the click rate of position ``k`` is
    proportional to its examination probability (the RandTop-n experiment of Wang et al.,
    2016): ``theta_k ∝ mean_i clicks[i, k]``.

    Parameters
    ----------
    clicks : array-like of {0, 1}, shape (n_impressions, n_positions)
        Clicks of impressions with every one of the ``n_positions`` slots filled (use only
        impressions that showed at least ``n_positions`` documents).
    confidence_level : float, default=0.95

    Returns
    -------
    PropensityEstimate
        Relative propensities divided by the largest; delta-method standard errors.

    Examples
    --------
    >>> from skrank.online import estimate_propensities_shuffle
    >>> est = estimate_propensities_shuffle([[1, 1, 0], [1, 0, 0], [0, 0, 1], [1, 0, 0]])
    >>> est.propensities.tolist()           # click rates 3/4, 1/4, 1/4 divided by 3/4
    [1.0, 0.3333333333333333, 0.3333333333333333]
    """
    caller = "estimate_propensities_shuffle"
    level = float(confidence_level)
    c = check_binary("clicks", as_float_array("clicks", clicks, caller, ndim=2), caller)
    if c.shape[0] < 2 or c.shape[1] == 0:
        raise input_error("clicks", "at least 2 impressions and 1 position",
                          f"shape {c.shape}", caller)
    rate = c.mean(axis=0)
    ref = int(np.argmax(rate))
    if rate[ref] == 0:
        raise InputError(f"{caller}: there is no click in 'clicks', so no propensity can be "
                         "estimated.")
    theta = rate / rate[ref]
    se = np.sqrt(ratio_delta_var(c, c[:, ref])[1])
    se[ref] = 0.0
    return _propensity_result(theta, se, level, np.full(c.shape[1], c.shape[0]), "shuffle")


@validate_params({"confidence_level": OPEN_UNIT})
def estimate_propensities_swap(
    swap_position: Any, clicked: Any, *, confidence_level: float = 0.95
) -> PropensityEstimate:
    """Position propensities from swap interventions (Joachims, Swaminathan and Schnabel, 2017).

    In each logged impression the top result was either left in place (``swap_position``
    0, the control) or swapped with the result at position ``k``. The top result's
    attractiveness does not depend on where it is shown, so
    ``theta_k / theta_0 = P(click on it | moved to k) / P(click on it | left at 0)``.

    Parameters
    ----------
    swap_position : array-like of int, shape (n_impressions,)
        Where the originally top document was shown (0-based; 0 means no swap).
    clicked : array-like of {0, 1}, shape (n_impressions,)
        Whether that document was clicked.
    confidence_level : float, default=0.95

    Returns
    -------
    PropensityEstimate
        Relative propensities (divided by the largest, normally position 0's); delta-method
        standard errors relative to the control.

    Examples
    --------
    >>> from skrank.online import estimate_propensities_swap
    >>> est = estimate_propensities_swap([0, 0, 0, 0, 1, 1, 1, 1], [1, 1, 0, 1, 1, 0, 0, 0])
    >>> est.propensities.tolist()           # (1/4) / (3/4)
    [1.0, 0.3333333333333333]
    """
    caller = "estimate_propensities_swap"
    level = float(confidence_level)
    pos = as_int_array("swap_position", swap_position, caller)
    y = as_float_array("clicked", clicked, caller)
    check_same_length(caller, swap_position=pos, clicked=y)
    check_binary("clicked", y, caller)
    if pos.size == 0 or pos.min() < 0:
        raise input_error("swap_position", "non-empty, with positions >= 0",
                          repr(pos[:5].tolist()), caller)
    k = int(pos.max()) + 1
    n_k = np.bincount(pos, minlength=k)
    if (n_k == 0).any():
        missing = int(np.flatnonzero(n_k == 0)[0])
        raise input_error("swap_position", f"every position 0..{k - 1} at least once",
                          f"no impression for position {missing}", caller)
    m_k = np.bincount(pos, weights=y, minlength=k) / n_k
    if m_k[0] == 0:
        raise InputError(f"{caller}: the control impressions (swap_position 0) have no click, "
                         "so no ratio can be formed.")
    v_k = m_k * (1 - m_k) * n_k / np.maximum(n_k - 1, 1)   # sample variance of 0/1 data
    ratio = m_k / m_k[0]
    var = v_k / (n_k * m_k[0] ** 2) + m_k**2 * v_k[0] / (n_k[0] * m_k[0] ** 4)
    var[0] = 0.0
    top = ratio.max()
    return _propensity_result(ratio / top, np.sqrt(var) / top, level, n_k, "swap")


def _propensity_result(
    theta: np.ndarray, se: np.ndarray, level: float, n: np.ndarray, method: str
) -> PropensityEstimate:
    lo, hi = normal_ci(theta, se, level)
    n = n.astype(np.int64)
    for arr in (theta, se, lo, hi, n):
        arr.setflags(write=False)
    return PropensityEstimate(theta, se, (lo, hi), level, n, method)
