"""The randomisation (sign-flip) test of paired differences.

Under the null hypothesis that the two systems are exchangeable on every query, the sign of each
per-query difference is equally likely to be + or -. The test compares the observed sum of
differences with its distribution over random sign patterns.

Sign patterns are drawn as random bytes, one bit per query. A table holds, for every group of 8
queries and each of the 256 values of its byte, the signed sum of those 8 differences, so a
pattern's sum is ``n / 8`` table look-ups instead of ``n`` multiply-adds. Patterns are processed
in chunks: 10,000 patterns over 10,000 queries take a fraction of a second without a
10,000 x 10,000 matrix in memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._validation import SEED, public_name, renamed_parameters, validate_params
from ..exceptions import InputError
from ._checks import ALTERNATIVE, POSITIVE_INT, as_vector, resolve_seed
from ._progress import PROGRESS, progress_bar
from ._results import SignificanceTest

__all__ = ["randomization_test"]

#: Sign bits per chunk when enumerating every pattern.
_CHUNK_ELEMENTS = 1 << 18
#: Table look-ups per chunk of random patterns (small enough for the index array to stay in
#: cache).
_LOOKUPS_PER_CHUNK = 1 << 16
#: Row b of _BYTE_SIGNS holds the signs (+1 for a set bit, -1 for a cleared one) that byte
#: value b gives to its 8 queries, most significant bit first (np.unpackbits' order).
_BYTE_SIGNS = 2.0 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1) - 1.0
#: Relative tolerance under which a permuted sum counts as equal to the observed one (the sums
#: are computed in a different order, so exact ties would otherwise be lost to rounding).
_REL_TOL = 1e-9


def _count_extreme(stats: np.ndarray, observed: float, tol: float, alternative: str) -> int:
    if alternative == "greater":
        return int(np.count_nonzero(stats >= observed - tol))
    if alternative == "less":
        return int(np.count_nonzero(stats <= observed + tol))
    return int(np.count_nonzero(np.abs(stats) >= abs(observed) - tol))


def sign_flip(
    d: np.ndarray, n_permutations: int, alternative: str, rng: np.random.Generator,
    tick: Callable[[int], Any] | None = None,
) -> tuple[float, int, bool]:
    """Return ``(pvalue, number of sign patterns used, exact)`` for the differences ``d``.

    Zero differences do not change under a sign flip and are left out. With ``m`` non-zero
    differences and ``2**m <= n_permutations`` every pattern is enumerated and the p-value is
    the exact share of patterns at least as extreme as the observed one (the identity pattern
    included, so it is never 0). Otherwise ``n_permutations`` random patterns give
    ``p = (b + 1) / (B + 1)``, a valid p-value that is never 0. ``tick(k)``, when given, is
    called after each chunk of ``k`` random patterns (a progress bar's ``update``; enumerated
    patterns are few and not counted).
    """
    nz = d[d != 0]
    m = nz.size
    if m == 0:
        return 1.0, 1, True
    observed = float(nz.sum())
    tol = _REL_TOL * float(np.abs(nz).sum())
    total = float(observed)
    exact = m < 62 and (1 << m) <= n_permutations
    count = 0
    if exact:
        n_patterns = 1 << m
        rows = max(1, _CHUNK_ELEMENTS // m)
        shifts = np.arange(m, dtype=np.int64)
        for start in range(0, n_patterns, rows):
            codes = np.arange(start, min(n_patterns, start + rows), dtype=np.int64)
            bits = ((codes[:, None] >> shifts) & 1).astype(np.float64)
            # A set bit keeps the sign, a cleared bit flips it: sum(s * d) = 2 bits @ d - sum(d).
            stats = 2.0 * (bits @ nz) - total
            count += _count_extreme(stats, observed, tol, alternative)
        return count / n_patterns, n_patterns, True
    n_bytes = (m + 7) // 8
    padded = np.zeros(n_bytes * 8)
    padded[:m] = nz
    # table[j, v]: signed sum of queries 8j..8j+7 under byte value v (padding adds zeros).
    table = (padded.reshape(n_bytes, 8) @ _BYTE_SIGNS.T).ravel()
    offsets = np.arange(n_bytes, dtype=np.intp) * 256
    rows = max(1, _LOOKUPS_PER_CHUNK // n_bytes)
    for start in range(0, n_permutations, rows):
        k = min(n_permutations, start + rows) - start
        raw = np.frombuffer(rng.bytes(k * n_bytes), dtype=np.uint8).reshape(k, n_bytes)
        stats = table[raw + offsets].sum(axis=1)
        count += _count_extreme(stats, observed, tol, alternative)
        if tick is not None:
            tick(k)
    return (count + 1) / (n_permutations + 1), n_permutations, False


@renamed_parameters(seed="rng")
@validate_params({"n_permutations": POSITIVE_INT, "alternative": ALTERNATIVE, "rng": SEED,
                  "progress": PROGRESS})
def randomization_test(
    differences: Any,
    *,
    n_permutations: int = 10_000,
    alternative: str = "two-sided",
    rng: int | np.random.Generator | None = None,
    progress: bool | None = None,
) -> SignificanceTest:
    """Randomisation (sign-flip) test of paired per-query differences.

    Parameters
    ----------
    differences : array-like of shape (n_queries,)
        Per-query differences ``a - b``; finite, at least 2.
    n_permutations : int, default=10_000
        Number of random sign patterns ``B``. When the ``m`` non-zero differences have at most
        ``B`` patterns (``2**m <= B``), all are enumerated and the p-value is exact.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: the mean difference is positive (system better); ``"two-sided"`` counts
        patterns whose absolute sum reaches the observed absolute sum.
    rng : int, numpy.random.Generator or None, default=None
        Seed of the sign patterns; the same seed gives the same p-value.
    progress : bool or None, default=None
        A progress bar of the sign patterns on standard error (tqdm): None shows it on a terminal
        only, once the work has lasted 2 seconds; True always; False never.

    Returns
    -------
    SignificanceTest
        ``statistic`` is the mean difference, ``pvalue`` is ``(b + 1) / (B + 1)`` with ``b`` the
        number of random patterns at least as extreme (exact share when enumerated).

    Examples
    --------
    Five differences have 32 sign patterns, all enumerated. Four reach the observed absolute
    sum 0.7: the observed one, the one flipping -0.05 (sum 0.8) and their mirror images:

    >>> from skrank.stats import randomization_test
    >>> res = randomization_test([0.2, 0.1, 0.3, -0.05, 0.15], rng=0)
    >>> res.exact, res.n_resamples, res.pvalue
    (True, 32, 0.125)
    """
    seed = rng  # the names used below
    caller = public_name()
    n_permutations = int(n_permutations)
    d = as_vector(differences, "differences")
    if np.isnan(d).any():
        raise InputError(f"{caller}: differences has NaN values; drop those queries first.")
    if d.size < 2:
        raise InputError(f"{caller}: at least 2 differences are needed; got {d.size}.")
    _, ss = resolve_seed(seed)
    # The second child stream, as in paired_comparison (the first one is the bootstrap's).
    rng = np.random.default_rng(ss.spawn(2)[1])
    with progress_bar(n_permutations, progress, "sign flips", unit="pattern") as bar:
        p, used, exact = sign_flip(d, n_permutations, alternative, rng, bar.update)
    return SignificanceTest(
        "randomization", float(d.mean()), p, alternative, n_resamples=used, exact=exact,
        n_zero=int(np.count_nonzero(d == 0)),
    )
