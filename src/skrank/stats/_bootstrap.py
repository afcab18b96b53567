"""Bootstrap confidence intervals of a mean (percentile and BCa) through scipy.stats.bootstrap.

For a paired comparison the resampled unit is the query: resampling the per-query differences
``d = a - b`` is the paired bootstrap (both systems keep their values for the same query).

The resamples and the percentile interval are :func:`scipy.stats.bootstrap`'s (vectorised, in
batches of about a million drawn indices). The BCa interval is read from the same resampled
means with skrank's closed-form acceleration of a mean (:func:`bca_interval`), equal to SciPy's
BCa on the same resamples up to rounding: SciPy computes the acceleration by a jackknife, whose
``n x (n - 1)`` work grows with the square of the number of queries. With 10,000 resamples
(``benchmarks/bench_stats.py``, CPU seconds, SciPy 1.17.1; the table in ``docs/statistics.rst``)
SciPy's BCa takes 0.59 s at 10,000 queries and 3.2 s at 30,000, skrank's 0.38 s and 1.1 s: the
jackknife costs twice the resampling at 30,000 queries, the closed form milliseconds.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._validation import SEED, Options, public_name, renamed_parameters, validate_params
from ..exceptions import InputError
from ._checks import OPEN_UNIT, POSITIVE_INT, LazyModule, as_vector, resolve_seed
from ._progress import PROGRESS, progress_bar
from ._results import Interval

__all__ = ["bootstrap_ci"]

special = LazyModule("scipy.special")
stats = LazyModule("scipy.stats")

#: Indices drawn per batch of resamples: about 8 MB of int64, which keeps memory flat whatever
#: the number of queries and resamples (``batch`` of :func:`scipy.stats.bootstrap`).
BATCH_ELEMENTS = 1 << 20


@functools.lru_cache(maxsize=1)
def _rng_keyword() -> str:
    """SciPy's name of the seed of :func:`scipy.stats.bootstrap`: ``rng`` since SciPy 1.15."""
    return "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"


def bootstrap_means(d: np.ndarray, n_resamples: int, confidence: float,
                    rng: np.random.Generator, tick: Callable[[int], Any] | None = None) -> Any:
    """:func:`scipy.stats.bootstrap` of the mean of ``d``, percentile interval.

    ``n_resamples`` resamples of ``d`` with replacement, drawn from ``rng`` in batches of
    ``BATCH_ELEMENTS // d.size`` resamples (vectorised: one call of the mean per batch).
    ``tick(k)``, when given, is called after each batch of ``k`` resamples (a progress bar's
    ``update``). Returns SciPy's ``BootstrapResult``: ``bootstrap_distribution`` holds the
    resampled means, ``confidence_interval`` the percentile interval at ``confidence``.
    """

    def mean(x: np.ndarray, axis: int) -> np.ndarray:
        if tick is not None and x.ndim > 1:  # a batch of resamples, not the data themselves
            tick(x.shape[0])
        return np.mean(x, axis=axis)

    with warnings.catch_warnings():
        # SciPy's standard error of a single resample (ddof=1: NaN), which skrank does not use.
        for text in ("Degrees of freedom <= 0", "invalid value encountered"):
            warnings.filterwarnings("ignore", text, RuntimeWarning)
        return stats.bootstrap(
            (d,), mean, n_resamples=n_resamples, batch=max(1, BATCH_ELEMENTS // d.size),
            vectorized=True, confidence_level=confidence, method="percentile",
            **{_rng_keyword(): rng},
        )


def bootstrap_intervals(d: np.ndarray, n_resamples: int, confidence: float,
                        rng: np.random.Generator, tick: Callable[[int], Any] | None = None,
                        ) -> tuple[tuple[float, float], tuple[float, float]]:
    """The percentile and the BCa interval of the mean of ``d``, from the same resamples.

    ``d`` must not be constant (the caller returns the point interval). The BCa interval is
    ``(nan, nan)`` when every resampled mean lies on one side of the observed mean.
    """
    res = bootstrap_means(d, n_resamples, confidence, rng, tick)
    ci = res.confidence_interval
    return ((float(ci.low), float(ci.high)),
            bca_interval(d, res.bootstrap_distribution, confidence))


def percentile_interval(boot: np.ndarray, confidence: float) -> tuple[float, float]:
    """Quantiles ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` of the bootstrap means.

    Quantiles use numpy's default (linear interpolation), as :func:`scipy.stats.bootstrap`.
    For the bootstrap distributions that skrank.online draws itself.
    """
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(boot, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def bca_interval(d: np.ndarray, boot: np.ndarray, confidence: float) -> tuple[float, float]:
    """Bias-corrected and accelerated interval (Efron 1987) of the mean of ``d``.

    Bias correction ``z0 = Phi^-1(share of bootstrap means below the observed mean)``, ties
    counted one half. The acceleration of the mean has a closed form from the jackknife:
    ``a = sum(e**3) / (6 * sum(e**2) ** 1.5)`` with ``e = d - mean(d)``. The interval is the
    pair of bootstrap quantiles at ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for
    ``z = Phi^-1((1 -+ confidence) / 2)``. Returns ``(nan, nan)`` when every bootstrap mean lies on
    one side of the observed mean (the correction is infinite).

    This is :func:`scipy.stats.bootstrap`'s ``method="BCa"`` on the same resamples, but for the
    acceleration: SciPy's jackknife recomputes the statistic ``n`` times on ``n - 1`` values
    (quadratic in the number of queries), where the mean has this closed form (the two agree
    to rounding; ``tests/stats/test_bootstrap.py``).
    """
    theta = float(d.mean())
    below = np.count_nonzero(boot < theta)
    equal = np.count_nonzero(boot == theta)
    share = (below + 0.5 * equal) / boot.size
    if share <= 0.0 or share >= 1.0:
        return float("nan"), float("nan")
    z0 = float(special.ndtri(share))
    e = d - theta
    s2 = float(np.dot(e, e))
    accel = float(np.sum(e**3)) / (6.0 * s2**1.5) if s2 > 0 else 0.0
    alpha = (1.0 - confidence) / 2.0
    z = special.ndtri(np.array([alpha, 1.0 - alpha]))
    levels = special.ndtr(z0 + (z0 + z) / (1.0 - accel * (z0 + z)))
    lo, hi = np.quantile(boot, levels)
    return float(lo), float(hi)


@renamed_parameters(seed="rng", confidence="confidence_level")
@validate_params({
    "method": Options(("bca", "percentile")),
    "n_resamples": POSITIVE_INT,
    "confidence_level": OPEN_UNIT,
    "rng": SEED,
    "progress": PROGRESS,
})
def bootstrap_ci(
    values: Any,
    *,
    method: str = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: int | np.random.Generator | None = None,
    progress: bool | None = None,
) -> Interval:
    """Bootstrap confidence interval of the mean of per-query values.

    Pass per-query differences ``a - b`` to get the paired bootstrap interval of a mean
    difference (what :func:`paired_comparison` does), or one system's per-query values to get an
    interval of its mean.

    Parameters
    ----------
    values : array-like of shape (n_queries,)
        Finite per-query values; at least 2.
    method : {"bca", "percentile"}, default="bca"
        ``"bca"``: bias-corrected and accelerated (second-order accurate, recommended);
        ``"percentile"``: the plain quantiles of the bootstrap means.
    n_resamples : int, default=10_000
        Number of bootstrap resamples.
    confidence_level : float, default=0.95
        Confidence level, in (0, 1).
    rng : int, numpy.random.Generator or None, default=None
        Seed of the resampling; the same seed gives the same interval.
    progress : bool or None, default=None
        A progress bar of the resamples on standard error (tqdm): None shows it on a terminal
        only, once the work has lasted 2 seconds; True always; False never.

    Returns
    -------
    Interval
        With ``low``, ``high``, ``confidence``, ``method`` and ``n_resamples``.

    See Also
    --------
    paired_comparison : Bootstrap intervals together with the tests.

    Notes
    -----
    The resamples and the percentile interval are :func:`scipy.stats.bootstrap`'s
    (``vectorized=True``, in batches of about a million drawn indices, seeded by the first child
    of ``rng``'s seed sequence). BCa reads SciPy's resampled means at its corrected levels, with
    the closed-form acceleration of a mean instead of SciPy's jackknife, whose cost grows with
    the square of the number of queries; the two agree to rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.stats import bootstrap_ci
    >>> d = np.array([0.1, -0.05, 0.2, 0.0, 0.15, 0.05, -0.1, 0.3])
    >>> ci = bootstrap_ci(d, rng=0)
    >>> ci.method, bool(ci.low < d.mean() < ci.high)
    ('bca', True)
    """
    seed, confidence = rng, confidence_level  # the names used below
    caller = public_name()
    n_resamples, confidence = int(n_resamples), float(confidence)
    d = as_vector(values, "values")
    if np.isnan(d).any():
        n_nan = int(np.isnan(d).sum())
        raise InputError(f"{caller}: values has {n_nan} NaN value(s); drop them first.")
    if d.size < 2:
        raise InputError(f"{caller}: at least 2 values are needed; got {d.size}.")
    _, ss = resolve_seed(seed)
    rng = np.random.default_rng(ss.spawn(1)[0])
    if np.all(d == d[0]):
        return Interval(float(d[0]), float(d[0]), confidence, method, n_resamples)
    with progress_bar(n_resamples, progress, "bootstrap", unit="resample") as bar:
        pct, bca = bootstrap_intervals(d, n_resamples, confidence, rng, bar.update)
    lo, hi = bca if method == "bca" else pct
    return Interval(lo, hi, confidence, method, n_resamples)
