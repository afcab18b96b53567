"""Why skrank's paired statistics keep their own resampling code: against SciPy, one run.

skrank's bootstrap interval (:func:`skrank.stats.bootstrap_ci`) and randomization test
(:func:`skrank.stats.randomization_test`) are tested against :func:`scipy.stats.bootstrap`
and :func:`scipy.stats.permutation_test` (``tests/stats``); this benchmark times them on the
same per-query differences, with the same number of resamples, at the sizes of an IR
comparison (1,000 to 10,000 queries, 10,000 resamples), for one system pair and for a
comparison of many systems against one baseline (each pair its own call, as
:func:`skrank.stats.compare_many` makes them).

SciPy draws its resamples in one array of ``n_resamples x n_queries`` (``batch`` bounds it),
and its permutation test of paired samples permutes the pairs' labels; skrank draws indices in
chunks of about a million and computes a sign-flip test from a table of byte patterns (eight
queries a lookup). Both are vectorised; the table is what makes the difference.

Run: ``python benchmarks/bench_stats.py [--queries 1000,10000] [--systems 20]``.
"""

from __future__ import annotations

import argparse
import inspect
import time

import numpy as np
from scipy import stats

from skrank.stats import bootstrap_ci, randomization_test

_RNG_KW = "rng" if "rng" in inspect.signature(stats.permutation_test).parameters else \
    "random_state"


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def scipy_bootstrap(d, n_resamples, method):
    return stats.bootstrap((d,), np.mean, n_resamples=n_resamples, method=method,
                           vectorized=True, batch=max(1, (1 << 20) // d.size),
                           **{_RNG_KW: 0}).confidence_interval


def scipy_permutation(d, n_resamples):
    def statistic(x, axis):
        return np.mean(x, axis=axis)

    # the paired sign-flip test: permutation_type="samples" on the differences and zeros
    return stats.permutation_test((d, np.zeros_like(d)), lambda x, y, axis: statistic(x - y,
                                  axis), permutation_type="samples", vectorized=True,
                                  n_resamples=n_resamples, batch=max(1, (1 << 20) // d.size),
                                  **{_RNG_KW: 0}).pvalue


def rows_for(d: np.ndarray, b: int, k: int):
    """(work, skrank call, SciPy call) for the per-query differences ``d``."""
    yield ("bootstrap interval, BCa",
           lambda: bootstrap_ci(d, method="bca", n_resamples=b, rng=0),
           lambda: scipy_bootstrap(d, b, "BCa"))
    yield ("bootstrap interval, percentile",
           lambda: bootstrap_ci(d, method="percentile", n_resamples=b, rng=0),
           lambda: scipy_bootstrap(d, b, "percentile"))
    yield ("randomization (sign-flip) test",
           lambda: randomization_test(d, n_permutations=b, rng=0),
           lambda: scipy_permutation(d, b))
    if k:  # SciPy: k times one pair (its time per pair does not depend on the pair)
        yield (f"{k} systems vs a baseline, randomization test",
               lambda: [randomization_test(d, n_permutations=b, rng=s) for s in range(k)],
               lambda: [scipy_permutation(d, b) for _ in range(k)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", default="1000,10000")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=20,
                        help="systems compared with one baseline (pairs timed)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    b = args.resamples
    print(f"{b:,} resamples; seconds, best of 3 (1 for the many-systems row; SciPy "
          f"{__import__('scipy').__version__})")
    print("| work | queries | skrank s | SciPy s | SciPy / skrank |")
    print("|---|---|---|---|---|")
    for n in (int(x) for x in args.queries.split(",")):
        d = rng.normal(0.01, 0.2, n)
        for name, ours, theirs in rows_for(d, b, args.systems):
            repeat = 1 if "systems" in name else 3
            t_ours, t_theirs = best(ours, repeat), best(theirs, repeat)
            print(f"| {name} | {n:,} | {t_ours:.3f} | {t_theirs:.3f} | "
                  f"{t_theirs / t_ours:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
