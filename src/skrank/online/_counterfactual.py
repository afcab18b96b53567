"""Counterfactual (off-policy) evaluation from logged feedback (private module).

Logged bandit feedback: rounds ``i`` with an action ``a_i`` drawn by a behaviour (logging)
policy with probability ``pscore_i = pi_b(a_i | x_i)`` and a reward ``r_i``; the evaluation
policy gives ``action_dist[i, a] = pi_e(a | x_i)``. With ``w_i = pi_e(a_i | x_i) / pscore_i``
the estimators are those of the Open Bandit Pipeline (Saito et al., 2021), ``obp.ope``:

- IPS: ``mean(w r)`` (``InverseProbabilityWeighting``);
- clipped IPS: ``mean(min(w, lam) r)`` (the same with ``lambda_=lam``);
- self-normalised IPS: ``sum(w r) / sum(w)`` (``SelfNormalizedInverseProbabilityWeighting``);
- direct method: ``mean_i sum_a pi_e(a|x_i) q(x_i, a)`` (``DirectMethod``);
- doubly robust: ``mean_i [sum_a pi_e(a|x_i) q(x_i, a) + min(w_i, lam) (r_i - q(x_i, a_i))]``
  (``DoublyRobust``).

Slates of ``L`` positions with a reward per position (OBP's ``obp.ope.estimators_slate``):
the value is ``mean_i sum_l w_il r_il`` with ``w_il`` the ratio of the evaluation and
behaviour probabilities of the whole slate (standard IPS, no assumption), of the item at
position ``l`` (independent IPS, assumes each position's reward depends on its own item only;
Li et al., 2018), or of the top-``l`` prefix (reward-interaction IPS, assumes a cascade;
McInerney et al., 2020).

Standard errors use the normal approximation over rounds (the delta method for the
self-normalised estimator); ``ci="bootstrap"`` gives a percentile bootstrap over rounds as OBP's
``estimate_interval`` does (here the self-normalised estimator is re-normalised within each
resample).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from .._validation import (
    Described,
    Options,
    Satisfies,
    as_generator,
    renamed_parameters,
    validate_params,
)
from ..exceptions import InputError
from ..stats._bootstrap import percentile_interval
from ..stats._checks import OPEN_UNIT, POSITIVE_INT
from ..stats._results import Interval
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

__all__ = [
    "CI_METHODS",
    "direct_method",
    "doubly_robust",
    "estimate_propensities_shuffle",
    "estimate_propensities_swap",
    "independent_ips",
    "ips",
    "pbm_ips",
    "reward_interaction_ips",
    "slate_standard_ips",
    "snips",
]

#: How confidence intervals are computed.
CI_METHODS = ("normal", "bootstrap")


# ----------------------------------------------------------------------------- helpers
def _kish_ess(w: np.ndarray) -> float:
    s2 = float(np.sum(w * w))
    return float(np.sum(w) ** 2 / s2) if s2 > 0 else 0.0


# what every estimator declares: its confidence interval (the rng is checked where the
# bootstrap draws from it, as a normal interval does not use it)
_CI_PARAMS = {
    "confidence_level": OPEN_UNIT,
    "ci": Options(CI_METHODS),
    "n_resamples": POSITIVE_INT,
}
# the clipping of the importance weights (infinity clips nothing)
_MAX_WEIGHT = Described(
    "None or a real number > 0",
    Satisfies(lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool) and v > 0,
              "a real number > 0"),
    None,
)


def _bootstrap_ci(
    stat: Callable[[np.ndarray], np.ndarray], n: int, n_boot: int, level: float,
    gen: np.random.Generator,
) -> tuple[float, float]:
    chunk = max(1, 5_000_000 // max(n, 1))
    vals = []
    done = 0
    while done < n_boot:
        m = min(chunk, n_boot - done)
        vals.append(stat(gen.integers(0, n, size=(m, n))))
        done += m
    return percentile_interval(np.concatenate(vals), level)


class _CI:
    """The confidence-interval options shared by every estimator."""

    def __init__(self, confidence_level: Any, ci: Any, n_resamples: Any, rng: Any, caller: str):
        self.level = float(confidence_level)
        self.method = ci
        self.n_resamples = int(n_resamples)
        self.rng = rng
        self.caller = caller

    def result(
        self,
        estimator: str,
        values: np.ndarray,
        weights: np.ndarray | None,
        *,
        value: float | None = None,
        influence: np.ndarray | None = None,
        boot_stat: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> OffPolicyEstimate:
        """Summarise per-round ``values`` (their mean is the estimate unless ``value``)."""
        n = values.shape[0]
        est = float(values.mean()) if value is None else value
        infl = values if influence is None else influence
        se = float(np.std(infl, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        if self.method == "normal":
            ci = Interval(*normal_ci(est, se, self.level), self.level, "normal")
        else:
            gen = as_generator(self.rng, self.caller)
            stat = boot_stat if boot_stat is not None else (lambda idx: values[idx].mean(axis=1))
            ci = Interval(*_bootstrap_ci(stat, n, self.n_resamples, self.level, gen), self.level,
                          "percentile", self.n_resamples)
        ess = None if weights is None else _kish_ess(weights)
        mean_w = None if weights is None else float(weights.mean())
        return OffPolicyEstimate(estimator, est, se, ci, self.level, int(n), ess, mean_w)


def _bandit_inputs(
    caller: str,
    action_dist: Any,
    position: Any,
    reward: Any = None,
    action: Any = None,
    pscore: Any = None,
    estimated_rewards: Any = None,
) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    dist = as_float_array("action_dist", action_dist, caller, ndim=(2, 3))
    if dist.ndim == 2:
        dist = dist[:, :, None]
    n, n_actions, len_list = dist.shape
    check_probabilities("action_dist", dist, caller, allow_zero=True)
    sums = dist.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        i = np.argwhere(~np.isclose(sums, 1.0, atol=1e-6))[0]
        raise input_error(
            "action_dist", "a distribution over actions (summing to 1 over axis 1)",
            f"a sum of {sums[tuple(i)]!r} in round {int(i[0])}", caller,
        )
    if position is None:
        if len_list > 1:
            raise input_error(
                "position", f"given when action_dist has {len_list} positions", "None", caller
            )
        pos = np.zeros(n, dtype=np.int64)
    else:
        pos = as_int_array("position", position, caller)
        check_same_length(caller, action_dist=dist, position=pos)
        if pos.size and (pos.min() < 0 or pos.max() >= len_list):
            raise input_error(
                "position", f"integers in [0, {len_list})", f"{int(pos.max())!r}", caller
            )
    rows = np.arange(n)
    out["pi_e"] = dist[rows, :, pos]  # (n, n_actions)
    if reward is not None:
        out["reward"] = as_float_array("reward", reward, caller)
        act = as_int_array("action", action, caller)
        ps = as_float_array("pscore", pscore, caller)
        check_same_length(caller, action_dist=dist, reward=out["reward"], action=act, pscore=ps)
        if act.size and (act.min() < 0 or act.max() >= n_actions):
            bad = act[(act < 0) | (act >= n_actions)][0]
            raise input_error("action", f"integers in [0, {n_actions})", repr(int(bad)), caller)
        check_probabilities("pscore", ps, caller)
        out["action"] = act
        out["w"] = out["pi_e"][rows, act] / ps
    if estimated_rewards is not None:
        q = as_float_array("estimated_rewards", estimated_rewards, caller, ndim=(2, 3))
        if q.ndim == 2:
            q = q[:, :, None]
        if q.shape != dist.shape:
            raise InputError(
                f"{caller}: 'estimated_rewards' has shape {q.shape} but 'action_dist' has "
                f"{dist.shape}; they must have the same shape."
            )
        out["q"] = q[rows, :, pos]
    if n == 0:
        raise input_error("action_dist", "at least one round", "0 rounds", caller)
    return out


# ----------------------------------------------------------------------------- bandit
@renamed_parameters(n_bootstrap="n_resamples")
@validate_params({"max_weight": _MAX_WEIGHT, **_CI_PARAMS})
def ips(
    reward: Any,
    action: Any,
    pscore: Any,
    action_dist: Any,
    *,
    position: Any = None,
    max_weight: float | None = None,
    confidence_level: float = 0.95,
    ci: str = "normal",
    n_resamples: int = 2000,
    rng: Any = None,
) -> OffPolicyEstimate:
    """Inverse propensity scoring (IPS), optionally with clipped weights.

    ``V = mean_i(w_i r_i)`` with ``w_i = pi_e(a_i | x_i) / pi_b(a_i | x_i)``; with
    ``max_weight`` the weights are clipped, ``min(w_i, max_weight)`` (OBP's
    ``InverseProbabilityWeighting(lambda_=max_weight)``): less variance, some downward bias.
    Unbiased when the propensities are right and ``pi_b > 0`` wherever ``pi_e > 0``.

    Parameters
    ----------
    reward : array-like of float, shape (n_rounds,)
        Observed reward ``r_i``.
    action : array-like of int, shape (n_rounds,)
        Logged action ``a_i`` (column of ``action_dist``).
    pscore : array-like of float, shape (n_rounds,)
        Behaviour policy's probability of the logged action, in (0, 1].
    action_dist : array-like of float, shape (n_rounds, n_actions[, len_list])
        Evaluation policy's action probabilities (rows sum to 1); 3-D with one slice per
        position, as in OBP.
    position : array-like of int or None, default=None
        Slot of each round when ``action_dist`` is 3-D.
    max_weight : float or None, default=None
        Clip the importance weights at this value (clipped IPS); None does not clip.
    confidence_level : float, default=0.95
    ci : {"normal", "bootstrap"}, default="normal"
        Normal approximation ``value -/+ z se`` or percentile bootstrap over rounds.
    n_resamples : int, default=2000
    rng : None, int or numpy.random.Generator, default=None
        Seed of the bootstrap.

    Returns
    -------
    OffPolicyEstimate

    Examples
    --------
    >>> from skrank.online import ips
    >>> reward, action, pscore = [1.0, 0.0, 1.0], [0, 1, 0], [0.5, 0.25, 0.8]
    >>> action_dist = [[0.9, 0.1], [0.9, 0.1], [0.4, 0.6]]
    >>> round(ips(reward, action, pscore, action_dist).value, 6)   # (1.8 + 0 + 0.5) / 3
    0.766667
    >>> ips(reward, action, pscore, action_dist, max_weight=1.0).value  # (1 + 0 + 0.5) / 3
    0.5
    """
    caller = "ips"
    lam = None if max_weight is None else float(max_weight)
    opts = _CI(confidence_level, ci, n_resamples, rng, caller)
    d = _bandit_inputs(caller, action_dist, position, reward, action, pscore)
    w = d["w"] if lam is None else np.minimum(d["w"], lam)
    return opts.result("ips" if lam is None else "clipped_ips", w * d["reward"], w)


@renamed_parameters(n_bootstrap="n_resamples")
@validate_params(_CI_PARAMS)
def snips(
    reward: Any,
    action: Any,
    pscore: Any,
    action_dist: Any,
    *,
    position: Any = None,
    confidence_level: float = 0.95,
    ci: str = "normal",
    n_resamples: int = 2000,
    rng: Any = None,
) -> OffPolicyEstimate:
    """Self-normalised IPS: ``sum(w r) / sum(w)`` (OBP's SelfNormalizedInverseProbabilityWeighting).

    Biased but consistent, bounded by the rewards' range and far more stable than IPS when
    weights are large (Swaminathan and Joachims, 2015). The standard error is the delta
    method's: ``sd(w (r - V)) / (mean(w) sqrt(n))``.

    Parameters are those of :func:`ips` (without ``max_weight``).

    Returns
    -------
    OffPolicyEstimate

    Examples
    --------
    >>> from skrank.online import snips
    >>> res = snips([1.0, 0.0, 1.0], [0, 1, 0], [0.5, 0.25, 0.8],
    ...             [[0.9, 0.1], [0.9, 0.1], [0.4, 0.6]])
    >>> round(res.value, 6)           # (1.8 + 0.5) / (1.8 + 0.4 + 0.5)
    0.851852
    """
    caller = "snips"
    opts = _CI(confidence_level, ci, n_resamples, rng, caller)
    d = _bandit_inputs(caller, action_dist, position, reward, action, pscore)
    w, r = d["w"], d["reward"]
    sw = w.sum()
    if sw <= 0:
        raise InputError(
            "snips: every importance weight is 0 (the evaluation policy never takes a logged "
            "action), so the self-normalised estimate is undefined."
        )
    value = float(np.sum(w * r) / sw)
    wr = w * r

    def stat(idx: np.ndarray) -> np.ndarray:
        den = w[idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, wr[idx].sum(axis=1) / den, np.nan)

    influence = w * (r - value) / w.mean()
    return opts.result("snips", w * r / w.mean(), w, value=value, influence=influence,
                       boot_stat=stat)


@renamed_parameters(n_bootstrap="n_resamples")
@validate_params(_CI_PARAMS)
def direct_method(
    action_dist: Any,
    estimated_rewards: Any,
    *,
    position: Any = None,
    confidence_level: float = 0.95,
    ci: str = "normal",
    n_resamples: int = 2000,
    rng: Any = None,
) -> OffPolicyEstimate:
    """Direct method: ``mean_i sum_a pi_e(a | x_i) q(x_i, a)`` (OBP's DirectMethod).

    Uses only a reward model ``q``; no propensities. Low variance, but biased by as much as the
    model is wrong, and its standard error ignores the model's own uncertainty.

    Parameters
    ----------
    action_dist : array-like of float, shape (n_rounds, n_actions[, len_list])
        Evaluation policy's action probabilities.
    estimated_rewards : array-like of float, same shape as ``action_dist``
        Reward model ``q(x_i, a)`` (OBP's ``estimated_rewards_by_reg_model``).
    position, confidence_level, ci, n_resamples, rng
        As in :func:`ips`.

    Returns
    -------
    OffPolicyEstimate
        With ``ess`` and ``mean_weight`` None.

    Examples
    --------
    >>> from skrank.online import direct_method
    >>> direct_method([[0.5, 0.5], [1.0, 0.0]], [[0.2, 0.4], [0.6, 0.0]]).value  # (0.3+0.6)/2
    0.45
    """
    caller = "direct_method"
    opts = _CI(confidence_level, ci, n_resamples, rng, caller)
    d = _bandit_inputs(caller, action_dist, position, estimated_rewards=estimated_rewards)
    return opts.result("dm", np.sum(d["pi_e"] * d["q"], axis=1), None)


@renamed_parameters(n_bootstrap="n_resamples")
@validate_params({"max_weight": _MAX_WEIGHT, **_CI_PARAMS})
def doubly_robust(
    reward: Any,
    action: Any,
    pscore: Any,
    action_dist: Any,
    estimated_rewards: Any,
    *,
    position: Any = None,
    max_weight: float | None = None,
    confidence_level: float = 0.95,
    ci: str = "normal",
    n_resamples: int = 2000,
    rng: Any = None,
) -> OffPolicyEstimate:
    """Doubly robust: the direct method plus an IPS correction of the model's residual.

    ``V = mean_i [ sum_a pi_e(a|x_i) q(x_i, a) + w_i (r_i - q(x_i, a_i)) ]`` (Dudík et al.,
    2014; OBP's ``DoublyRobust``, whose ``lambda_`` is ``max_weight`` here). Unbiased when
    either the propensities or the reward model are right.

    Parameters
    ----------
    reward, action, pscore, action_dist, position, max_weight
        As in :func:`ips`.
    estimated_rewards : array-like of float, same shape as ``action_dist``
        Reward model ``q(x_i, a)``.
    confidence_level, ci, n_resamples, rng
        As in :func:`ips`.

    Returns
    -------
    OffPolicyEstimate

    Examples
    --------
    >>> from skrank.online import doubly_robust
    >>> res = doubly_robust([1.0, 0.0], [0, 1], [0.5, 0.5], [[1.0, 0.0], [0.5, 0.5]],
    ...                     [[0.5, 0.5], [0.5, 0.5]])
    >>> res.value                     # ((0.5 + 2 * 0.5) + (0.5 + 1 * -0.5)) / 2
    0.75
    """
    caller = "doubly_robust"
    lam = None if max_weight is None else float(max_weight)
    opts = _CI(confidence_level, ci, n_resamples, rng, caller)
    d = _bandit_inputs(caller, action_dist, position, reward, action, pscore, estimated_rewards)
    w = d["w"] if lam is None else np.minimum(d["w"], lam)
    rows = np.arange(w.size)
    q_logged = d["q"][rows, d["action"]]
    values = np.sum(d["pi_e"] * d["q"], axis=1) + w * (d["reward"] - q_logged)
    return opts.result("dr", values, w)


# ----------------------------------------------------------------------------- slates
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


# ----------------------------------------------------------------------------- rankings
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

