"""Kaplan-Meier estimates of the survival and of the censoring distribution, as step functions.

At a time where events and censorings coincide, the events come first: the censored subjects
are still at risk of the event and are no longer at risk of censoring (scikit-survival's and
lifelines' rule). The censoring estimate is therefore
``G(t) = prod_{t_k <= t} (1 - c_k / (n_k - d_k))`` with ``n_k`` at risk, ``d_k`` events and
``c_k`` censorings at ``t_k``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import public_name
from ..exceptions import InputError


@dataclass(frozen=True)
class StepFunction:
    """A right-continuous step function that starts at 1: ``value[k]`` on ``[x[k], x[k+1])``."""

    x: np.ndarray
    value: np.ndarray
    source: str  # "training data" or "test data", for messages

    def __call__(self, t: np.ndarray, what: str) -> np.ndarray:
        """The function at ``t``; beyond its last time only when it has reached 0 there."""
        caller = public_name()
        t = np.asarray(t, dtype=np.float64)
        last = self.x[-1]
        beyond = t > last
        if beyond.any() and self.value[-1] > 0:
            bad = float(t[beyond].max())
            raise InputError(
                f"{caller} needs the censoring distribution at {what} {bad:g}, beyond the last "
                f"time observed in the {self.source} ({last:g}), where the Kaplan-Meier "
                "estimate is undefined (scikit-survival: \"time must be smaller than largest "
                "observed time point\"). Truncate with tau (or choose times) below it, or "
                "estimate the censoring from data that follow subjects longer."
            )
        idx = np.searchsorted(self.x, t, side="right") - 1
        out = np.where(idx >= 0, self.value[np.maximum(idx, 0)], 1.0)
        return out


def _counts(event: np.ndarray, time: np.ndarray):
    uniq, inverse = np.unique(time, return_inverse=True)
    total = np.bincount(inverse, minlength=uniq.shape[0])
    events = np.bincount(inverse, weights=event, minlength=uniq.shape[0]).astype(np.int64)
    at_risk = time.shape[0] - np.r_[0, np.cumsum(total)[:-1]]
    return uniq, events, total - events, at_risk


def censoring_km(event: np.ndarray, time: np.ndarray, source: str) -> StepFunction:
    """Kaplan-Meier estimate of ``G(t) = P(C > t)``, censoring being the 'event'."""
    uniq, d, c, n = _counts(event, time)
    at_risk = n - d
    ratio = np.divide(c, at_risk, out=np.zeros(uniq.shape[0]), where=c != 0)
    return StepFunction(uniq, np.cumprod(1.0 - ratio), source)


def survival_km(event: np.ndarray, time: np.ndarray, source: str) -> StepFunction:
    """Kaplan-Meier estimate of ``S(t) = P(T > t)``."""
    uniq, d, _, n = _counts(event, time)
    ratio = np.divide(d, n, out=np.zeros(uniq.shape[0]), where=d != 0)
    return StepFunction(uniq, np.cumprod(1.0 - ratio), source)


def inverse_weights(
    G: StepFunction, time: np.ndarray, what: str = "time"
) -> np.ndarray:
    """``1 / G(time)``; an error where ``G`` is 0 (no subject left uncensored)."""
    caller = public_name()
    g = G(time, what)
    if (g <= 0).any():
        bad = float(time[g <= 0].min())
        raise InputError(
            f"{caller}: the Kaplan-Meier estimate of the censoring distribution from the "
            f"{G.source} is 0 at time {bad:g} (every subject still followed was censored by "
            "then), so an event there cannot be weighted (scikit-survival: \"censoring "
            "survival function is zero at one or more time points\"). Truncate with tau (or "
            "choose times) below it."
        )
    return 1.0 / g
