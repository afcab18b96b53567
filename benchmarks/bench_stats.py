"""What skrank's paired statistics take from SciPy, and what they keep: against SciPy, one run.

skrank's bootstrap interval (:func:`skrank.stats.bootstrap_ci`) draws its resamples and its
percentile interval with :func:`scipy.stats.bootstrap`, and reads the BCa interval from them
with the closed-form acceleration of a mean, where SciPy's ``method="BCa"`` runs a jackknife
(``n x (n - 1)`` values: quadratic in the number of queries). The randomization test
(:func:`skrank.stats.randomization_test`) is skrank's own, tested against
:func:`scipy.stats.permutation_test` (``tests/stats``). This benchmark times both against SciPy
on the same per-query differences, with the same number of resamples, at the sizes of an IR
comparison (1,000 to 10,000 queries, 10,000 resamples; BCa alone at 30,000), for one system pair
and for a comparison of several systems against one baseline (each pair its own call, as
:func:`skrank.stats.compare_many` makes them).

SciPy's permutation test of paired samples permutes the pairs' labels; skrank computes a
sign-flip test from a table of byte patterns (eight queries a lookup). Both are vectorised; the
table is what makes the difference.

The machine may be shared: each time is the CPU time of the process (``time.process_time``)
next to the wall time, of the run with the least CPU time (after one untimed run).

Run: ``python benchmarks/bench_stats.py [--queries 1000,10000] [--bca-queries 30000]
[--systems 5]``.
"""

from __future__ import annotations

import argparse
import inspect
import os
import time

import numpy as np
from scipy import stats

from skrank.stats import bootstrap_ci, randomization_test

_RNG_KW = "rng" if "rng" in inspect.signature(stats.permutation_test).parameters else \
    "random_state"


def best(fn, repeat: int = 3) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of the run of ``fn`` with the least CPU time, after one
    untimed run when ``repeat > 1`` (first-call costs: imports, caches, memory)."""
    if repeat > 1:
        fn()
    times = []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        times.append((time.process_time() - c0, time.perf_counter() - w0))
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


def rows_for(d: np.ndarray, b: int, k: int, bca_only: bool = False):
    """(work, skrank call, SciPy call) for the per-query differences ``d``."""
    yield ("bootstrap interval, BCa",
           lambda: bootstrap_ci(d, method="bca", n_resamples=b, rng=0),
           lambda: scipy_bootstrap(d, b, "BCa"))
    if bca_only:
        return
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
    parser.add_argument("--bca-queries", default="30000",
                        help="sizes timed for the BCa interval only (comma-separated; '' none)")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=5,
                        help="systems compared with one baseline (pairs timed)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    b = args.resamples
    print(f"{b:,} resamples; CPU and wall seconds, best of 3 by CPU time after a warm-up "
          f"(1 run, no warm-up, for the many-systems row; SciPy {__import__('scipy').__version__}, "
          f"{os.cpu_count()} CPUs)")
    print("| work | queries | skrank CPU s | skrank wall s | SciPy CPU s | SciPy wall s | "
          "SciPy / skrank (CPU) |")
    print("|---|---|---|---|---|---|---|")
    sizes = [(int(x), False) for x in args.queries.split(",") if x]
    sizes += [(int(x), True) for x in args.bca_queries.split(",") if x]
    for n, bca_only in sizes:
        d = rng.normal(0.01, 0.2, n)
        for name, ours, theirs in rows_for(d, b, args.systems, bca_only):
            repeat = 1 if "systems" in name else 3
            (c_ours, w_ours), (c_theirs, w_theirs) = best(ours, repeat), best(theirs, repeat)
            print(f"| {name} | {n:,} | {c_ours:.3f} | {w_ours:.3f} | {c_theirs:.3f} | "
                  f"{w_theirs:.3f} | {c_theirs / c_ours:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
