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

Slates are in ``_slates`` and rankings under the position-based click model in
``_position_bias``; both summarise their per-round values as below.

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
from ._results import OffPolicyEstimate
from ._utils import (
    as_float_array,
    as_int_array,
    check_probabilities,
    check_same_length,
    input_error,
    normal_ci,
)

__all__ = [
    "CI_METHODS",
    "direct_method",
    "doubly_robust",
    "ips",
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
