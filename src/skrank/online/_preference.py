"""Interleaving outcomes aggregated: wins, losses, ties, the preference, its sign test and
bootstrap interval (private module).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from .._validation import SEED, Options, as_generator, renamed_parameters, validate_params
from ..stats._bootstrap import percentile_interval
from ..stats._checks import NONNEG_INT, OPEN_UNIT, POSITIVE_INT
from ..stats._results import Interval
from ._interleaving import NO_CLICK_RULES
from ._results import InterleavingResult
from ._utils import as_float_array, input_error

__all__ = ["interleaving_test", "sign_test"]


@validate_params({"wins": NONNEG_INT, "losses": NONNEG_INT})
def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact binomial sign test of ``wins`` against ``losses`` (ties left out).

    ``p = min(1, 2 * P(X <= min(wins, losses)))`` with ``X ~ Binomial(wins + losses, 1/2)``,
    which equals ``scipy.stats.binomtest(wins, wins + losses).pvalue``; 1.0 when both are 0.

    Examples
    --------
    >>> from skrank.online import sign_test
    >>> round(sign_test(9, 1), 6)     # 2 * (1 + 10) / 2**10
    0.021484
    """
    wins, losses = int(wins), int(losses)
    n = wins + losses
    if n == 0:
        return 1.0
    return float(min(1.0, 2.0 * stats.binom.cdf(min(wins, losses), n, 0.5)))


@renamed_parameters(n_bootstrap="n_resamples")
@validate_params({
    "no_click": Options(NO_CLICK_RULES),
    "confidence_level": OPEN_UNIT,
    "n_resamples": POSITIVE_INT,
    "rng": SEED,
})
def interleaving_test(
    outcomes: Any,
    *,
    groups: Any = None,
    no_click: str = "drop",
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: Any = None,
) -> InterleavingResult:
    """Aggregate interleaving outcomes: wins, losses, ties, preference, sign test, bootstrap CI.

    Parameters
    ----------
    outcomes : array-like of float, shape (n_impressions,)
        Per-impression outcomes from :meth:`Interleaving.credit` or
        :func:`simulate_interleaving`: values in [-1, 1] (positive favours A), NaN for
        impressions without clicks.
    groups : array-like or None, default=None
        A user or session id per impression. When given, each group's outcomes are averaged
        first and the group is the unit (one vote per user), which keeps heavy users from
        dominating and makes the test honest when a user's impressions are correlated.
    no_click : {"drop", "tie"}, default="drop"
        Impressions (groups) without clicks are left out (Chapelle et al., 2012) or counted as
        ties.
    confidence_level : float, default=0.95
        Level of the bootstrap interval.
    n_resamples : int, default=2000
        Bootstrap resamples of the units. The preference depends only on the counts, so
        resampling units is drawing ``(wins, losses, ties)`` from a multinomial.
    rng : None, int or numpy.random.Generator, default=None
        Seed or generator of the bootstrap.

    Returns
    -------
    InterleavingResult
        A unit with a positive outcome is a win for A, negative a loss, zero a tie;
        ``preference = (wins + ties/2)/n - 1/2``; ``p_value`` from :func:`sign_test`.

    Examples
    --------
    >>> from skrank.online import interleaving_test
    >>> res = interleaving_test([1, 1, 1, -1, 0, float("nan")], rng=0)
    >>> res.wins, res.losses, res.ties, res.n, res.n_no_click
    (3, 1, 1, 5, 1)
    >>> res.preference                    # (3 + 0.5) / 5 - 0.5
    0.2
    >>> res.p_value                       # 2 * P(Binomial(4, 1/2) <= 1) = 2 * 5/16
    0.625
    """
    caller = "interleaving_test"
    o = as_float_array("outcomes", outcomes, caller, allow_nan=True)
    finite = o[~np.isnan(o)]
    if ((finite < -1) | (finite > 1)).any():
        bad = finite[(finite < -1) | (finite > 1)][0]
        raise input_error(
            "outcomes", "in [-1, 1] (or NaN for no clicks)", repr(float(bad)), caller
        )
    level, n_resamples, gen = float(confidence_level), int(n_resamples), as_generator(rng)
    unit = "impression"
    if groups is not None:
        g = np.asarray(groups)
        if g.ndim != 1 or g.size != o.size:
            raise input_error(
                "groups", f"one id per outcome ({o.size})", f"shape {g.shape}", caller
            )
        uniq, inv = np.unique(g, return_inverse=True)
        inv = inv.ravel()
        valid = ~np.isnan(o)
        sums = np.bincount(inv[valid], weights=o[valid], minlength=uniq.size)
        counts = np.bincount(inv[valid], minlength=uniq.size)
        o = np.full(uniq.size, np.nan)
        o[counts > 0] = sums[counts > 0] / counts[counts > 0]
        unit = "group"
    no_clicks = np.isnan(o)
    n_no_click = int(no_clicks.sum())
    o = o[~no_clicks] if no_click == "drop" else np.where(no_clicks, 0.0, o)
    wins, losses = int((o > 0).sum()), int((o < 0).sum())
    ties = int(o.size - wins - losses)
    n = o.size
    if n == 0:
        nan = math.nan
        ci = Interval(nan, nan, level, "percentile", n_resamples)
        return InterleavingResult(0, 0, 0, 0, nan, 1.0, ci, level, nan, unit, n_no_click)
    preference = (wins + ties / 2) / n - 0.5
    draws = gen.multinomial(n, [wins / n, losses / n, ties / n], size=n_resamples)
    boot = (draws[:, 0] + draws[:, 2] / 2) / n - 0.5
    return InterleavingResult(
        wins=wins, losses=losses, ties=ties, n=n, preference=float(preference),
        p_value=sign_test(wins, losses),
        ci=Interval(*percentile_interval(boot, level), level, "percentile", n_resamples),
        confidence_level=level, mean_outcome=float(o.mean()), unit=unit, n_no_click=n_no_click,
    )
