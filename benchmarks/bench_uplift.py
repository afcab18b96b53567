"""Uplift curves and areas: skrank.uplift against scikit-uplift (and causalml), same run.

Binary outcomes and treatment at random, two kinds of scores: continuous (no ties) and heavy
ties (scores rounded to three decimals, 1,001 distinct values). Each function runs with
scikit-uplift's conventions (``preset="sklift"``) and the results are checked equal to
scikit-uplift's before timing. Prints the median wall seconds of each library and the ratio
scikit-uplift / skrank.

    .venv/bin/python benchmarks/bench_uplift.py [--rows 10000000] [--repeats 3] [--causalml]

``--causalml`` adds causalml's ``auuc_score`` and ``qini_score`` (pandas; its own tie order)
against ``preset="causalml"``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np


def _median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _as_array(result) -> np.ndarray:
    if isinstance(result, tuple):
        return np.concatenate([np.asarray(a, dtype=float) for a in result])
    if hasattr(result, "x"):
        return np.concatenate([result.x, result.y])
    return np.array([float(result)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--causalml", action="store_true")
    args = parser.parse_args(argv)

    warnings.simplefilter("ignore")  # scikit-uplift's FutureWarnings under scikit-learn 1.8+
    import sklift
    import sklift.metrics as sm

    import skrank.uplift as su

    rng = np.random.default_rng(0)
    n = args.rows
    y = rng.integers(0, 2, n)
    t = rng.integers(0, 2, n)
    continuous = rng.random(n)
    scores = {"continuous": continuous, "ties": np.round(continuous, 3)}
    functions = [
        ("uplift_curve", sm.uplift_curve, su.uplift_curve),
        ("qini_curve", sm.qini_curve, su.qini_curve),
        ("uplift_auc_score", sm.uplift_auc_score, su.uplift_auc_score),
        ("qini_auc_score", sm.qini_auc_score, su.qini_auc_score),
    ]
    print(f"{n:,} rows, binary outcome and treatment; median of {args.repeats} runs; "
          f"scikit-uplift {sklift.__version__}, numpy {np.__version__}")
    print(f"{'function':<18} {'scores':<11} {'sklift s':>9} {'skrank s':>9} {'ratio':>7}  "
          f"max |diff|")
    ratios = []
    for kind, s in scores.items():
        for name, ref, ours in functions:
            want = _as_array(ref(y, s, t))
            got = _as_array(ours(y, s, t, preset="sklift"))
            diff = float(np.max(np.abs(want - got))) if want.shape == got.shape else np.inf
            t_ref = _median_seconds(lambda ref=ref, s=s: ref(y, s, t), args.repeats)
            t_ours = _median_seconds(
                lambda ours=ours, s=s: ours(y, s, t, preset="sklift"), args.repeats
            )
            ratios.append(t_ref / t_ours)
            print(f"{name:<18} {kind:<11} {t_ref:9.3f} {t_ours:9.3f} {t_ref / t_ours:6.1f}x  "
                  f"{diff:.1e}", flush=True)
    print(f"smallest ratio: {min(ratios):.1f}x")

    if args.causalml:
        import pandas as pd
        from causalml.metrics import auuc_score, qini_score

        print(f"\ncausalml (pandas) against preset='causalml', {n:,} rows")
        print(f"{'function':<18} {'scores':<11} {'causalml':>9} {'skrank s':>9} {'ratio':>7}  "
              f"max |diff|")
        for kind, s in scores.items():
            df = pd.DataFrame({"y": y, "w": t, "model": s})
            for name, ref, ours in (("auuc_score", auuc_score, su.uplift_auc_score),
                                    ("qini_score", qini_score, su.qini_auc_score)):
                want = float(ref(df)["model"])
                got = float(ours(y, s, t, preset="causalml"))
                t_ref = _median_seconds(lambda ref=ref, df=df: ref(df), args.repeats)
                t_ours = _median_seconds(
                    lambda ours=ours, s=s: ours(y, s, t, preset="causalml"), args.repeats
                )
                print(f"{name:<18} {kind:<11} {t_ref:9.3f} {t_ours:9.3f} "
                      f"{t_ref / t_ours:6.1f}x  {abs(want - got):.1e}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
