"""Counterfactual evaluation of slates from logged feedback (private module).

Slates of ``L`` positions with a reward per position (OBP's ``obp.ope.estimators_slate``):
the value is ``mean_i sum_l w_il r_il`` with ``w_il`` the ratio of the evaluation and
behaviour probabilities of the whole slate (standard IPS, no assumption), of the item at
position ``l`` (independent IPS, assumes each position's reward depends on its own item only;
Li et al., 2018), or of the top-``l`` prefix (reward-interaction IPS, assumes a cascade;
McInerney et al., 2020). Standard errors and intervals are those of ``_counterfactual``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import renamed_parameters, validate_params
from ..exceptions import InputError
from ._counterfactual import _CI, _CI_PARAMS, _kish_ess
from ._results import OffPolicyEstimate
from ._utils import as_float_array, check_probabilities, check_same_length, input_error

__all__ = ["independent_ips", "reward_interaction_ips", "slate_standard_ips"]


def _slate(
    caller: str, name: str, reward: Any, pscore: Any, evaluation_pscore: Any, joint: bool,
    confidence_level: Any, ci: Any, n_resamples: Any, rng: Any,
) -> OffPolicyEstimate:
    opts = _CI(confidence_level, ci, n_resamples, rng, caller)
    r = as_float_array("reward", reward, caller, ndim=2)
    ndim = 1 if joint else 2
    if joint:
        pb_name = "pscore"
    else:
        pb_name = "pscore_item_position" if name == "iips" else "pscore_cascade"
    pe_name = "evaluation_" + pb_name
    pb = as_float_array(pb_name, pscore, caller, ndim=ndim)
    pe = as_float_array(pe_name, evaluation_pscore, caller, ndim=ndim)
    check_same_length(caller, reward=r, **{pb_name: pb, pe_name: pe})
    if not joint:
        for nm, arr in ((pb_name, pb), (pe_name, pe)):
            if arr.shape != r.shape:
                raise InputError(
                    f"{caller}: {nm!r} has shape {arr.shape} but 'reward' has {r.shape}; "
                    "they must have the same shape."
                )
    if r.shape[0] == 0:
        raise input_error("reward", "at least one slate", "0 slates", caller)
    check_probabilities(pb_name, pb, caller)
    check_probabilities(pe_name, pe, caller, allow_zero=True)
    w = pe / pb
    if joint:
        values = w * r.sum(axis=1)
        ess_w = w
    else:
        values = np.sum(w * r, axis=1)
        # the least effective position bounds the information of the whole estimate
        ess_w = w[:, int(np.argmin([_kish_ess(w[:, j]) for j in range(w.shape[1])]))]
    res = opts.result(name, values, ess_w)
    return res


@renamed_parameters(n_bootstrap="n_resamples")
@validate_params(_CI_PARAMS)
def slate_standard_ips(
    reward: Any,
    pscore: Any,
    evaluation_pscore: Any,
    *,
    confidence_level: float = 0.95,
    ci: str = "normal",
    n_resamples: int = 2000,
    rng: Any = None,
) -> OffPolicyEstimate:
    """Standard slate IPS: whole-slate importance weights (OBP's ``SlateStandardIPS``).

    ``V = mean_i (pi_e(s_i) / pi_b(s_i)) sum_l r_il``: no assumption about user behaviour,
    but the variance grows with the number of possible slates.

    Parameters
    ----------
    reward : array-like of float, shape (n_slates, len_list)
        Reward at each position (e.g. a click).
    pscore : array-like of float, shape (n_slates,)
        Behaviour policy's probability of the whole logged slate, in (0, 1].
    evaluation_pscore : array-like of float, shape (n_slates,)
        Evaluation policy's probability of the logged slate, in [0, 1].
    confidence_level, ci, n_resamples, rng
        As in :func:`ips`.

    Returns
    -------
    OffPolicyEstimate

    Examples
    --------
    >>> from skrank.online import slate_standard_ips
    >>> slate_standard_ips([[1, 0], [0, 1]], [0.25, 0.5], [0.5, 0.0]).value  # (2*1 + 0) / 2
    1.0
    """
    return _slate("slate_standard_ips", "sips", reward, pscore, evaluation_pscore, True,
                  confidence_level, ci, n_resamples, rng)


@renamed_parameters(n_bootstrap="n_resamples")
@validate_params(_CI_PARAMS)
def independent_ips(
    reward: Any,
    pscore_item_position: Any,
    evaluation_pscore_item_position: Any,
    *,
    confidence_level: float = 0.95,
    ci: str = "normal",
    n_resamples: int = 2000,
    rng: Any = None,
) -> OffPolicyEstimate:
    """Independent (item-position) IPS for slates (OBP's ``SlateIndependentIPS``).

    ``V = mean_i sum_l r_il pi_e(a_il at l) / pi_b(a_il at l)`` with marginal item-position
    probabilities. Unbiased when the reward at a position depends only on the item shown there
    (the item-position click model, e.g. the PBM); biased under cascades.

    Parameters
    ----------
    reward : array-like of float, shape (n_slates, len_list)
    pscore_item_position : array-like of float, shape (n_slates, len_list)
        Behaviour policy's marginal probability of the logged item at that position, in (0, 1].
    evaluation_pscore_item_position : array-like of float, shape (n_slates, len_list)
        Evaluation policy's marginal probability of the logged item at that position.
    confidence_level, ci, n_resamples, rng
        As in :func:`ips`.

    Returns
    -------
    OffPolicyEstimate
        ``ess`` is that of the position with the smallest effective sample size.

    Examples
    --------
    >>> from skrank.online import independent_ips
    >>> independent_ips([[1, 1]], [[0.5, 0.5]], [[1.0, 0.25]]).value   # 2 + 0.5
    2.5
    """
    return _slate("independent_ips", "iips", reward, pscore_item_position,
                  evaluation_pscore_item_position, False, confidence_level, ci, n_resamples, rng)


@renamed_parameters(n_bootstrap="n_resamples")
@validate_params(_CI_PARAMS)
def reward_interaction_ips(
    reward: Any,
    pscore_cascade: Any,
    evaluation_pscore_cascade: Any,
    *,
    confidence_level: float = 0.95,
    ci: str = "normal",
    n_resamples: int = 2000,
    rng: Any = None,
) -> OffPolicyEstimate:
    """Reward-interaction IPS for slates (OBP's ``SlateRewardInteractionIPS``).

    ``V = mean_i sum_l r_il pi_e(a_i1..a_il) / pi_b(a_i1..a_il)`` with the probabilities of
    the top-``l`` prefix. Unbiased when the reward at a position depends on the items at or
    above it (the cascade assumption; McInerney et al., 2020).

    Parameters
    ----------
    reward : array-like of float, shape (n_slates, len_list)
    pscore_cascade : array-like of float, shape (n_slates, len_list)
        Behaviour policy's probability of the logged top-``l`` prefix, in (0, 1].
    evaluation_pscore_cascade : array-like of float, shape (n_slates, len_list)
        Evaluation policy's probability of that prefix.
    confidence_level, ci, n_resamples, rng
        As in :func:`ips`.

    Returns
    -------
    OffPolicyEstimate

    Examples
    --------
    >>> from skrank.online import reward_interaction_ips
    >>> reward_interaction_ips([[1, 1]], [[0.5, 0.25]], [[1.0, 0.25]]).value   # 2 + 1
    3.0
    """
    return _slate("reward_interaction_ips", "rips", reward, pscore_cascade,
                  evaluation_pscore_cascade, False, confidence_level, ci, n_resamples, rng)
