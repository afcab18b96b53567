"""analyze_experiment against tea-tasting on one table of users, in one run.

The table issue 21 sizes: 10M users (one row each), two arms, five metrics (three means and
two ratio metrics, clicks / impressions and revenue / orders), each with CUPED on its
pre-experiment value, and the sample ratio check. skrank reads the columns once through
narwhals and computes each arm's moments with numpy; tea-tasting 1.14 aggregates the same
pandas table with its own (pandas/ibis) aggregation and computes the same statistics (the
tests check the numbers are equal to 1e-10). Both start from the same pandas DataFrame.

Times are the best of ``--repeat`` runs, wall seconds and process CPU seconds (the machine
may be shared: CPU time shows the work, wall time what a user waits).

Run: ``python benchmarks/bench_experiments.py [--users 10000000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import importlib.util

import numpy as np
import pandas as pd
from _timing import timed

from skrank.online import analyze_experiment


def table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    arm = rng.integers(0, 2, n).astype(np.int8)
    activity = rng.gamma(2.0, 1.0, n)
    cols = {"arm": arm}
    for period in ("", "_pre"):
        impressions = rng.poisson(4 * activity) + 1.0
        cols["impressions" + period] = impressions
        cols["clicks" + period] = rng.binomial(impressions.astype(np.int64), 0.1).astype(float)
        cols["sessions" + period] = rng.poisson(3 * activity).astype(float)
        orders = rng.poisson(0.5 * activity) + 1.0
        cols["orders" + period] = orders
        cols["revenue" + period] = orders * rng.gamma(2.0, 10.0, n)
        cols["minutes" + period] = activity * rng.gamma(3.0, 5.0, n)
    return pd.DataFrame(cols)


METRICS = {"sessions": "sessions", "minutes": "minutes", "clicks": "clicks",
           "ctr": ("clicks", "impressions"), "aov": ("revenue", "orders")}
COVARIATES = {"sessions": "sessions_pre", "minutes": "minutes_pre", "clicks": "clicks_pre",
              "ctr": ("clicks_pre", "impressions_pre"), "aov": ("revenue_pre", "orders_pre")}


def run_skrank(df: pd.DataFrame):
    return analyze_experiment(df, arm="arm", control=0, metrics=METRICS, covariates=COVARIATES)


def tea_experiment():
    import tea_tasting as tt

    return tt.Experiment(
        variant="arm",
        sessions=tt.Mean("sessions", covariate="sessions_pre"),
        minutes=tt.Mean("minutes", covariate="minutes_pre"),
        clicks=tt.Mean("clicks", covariate="clicks_pre"),
        ctr=tt.RatioOfMeans("clicks", "impressions", "clicks_pre", "impressions_pre"),
        aov=tt.RatioOfMeans("revenue", "orders", "revenue_pre", "orders_pre"),
        srm=tt.SampleRatio(),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    df = table(args.users)
    print(f"{args.users:,} users x {len(METRICS)} metrics with CUPED and the sample ratio "
          f"check; best of {args.repeat}")
    wall, cpu, res = timed(lambda: run_skrank(df), args.repeat)
    rows = [("skrank analyze_experiment", wall, cpu)]
    if importlib.util.find_spec("tea_tasting") is None:
        print("tea-tasting is not installed: pip install tea-tasting")
    else:
        import tea_tasting

        exp = tea_experiment()
        t_wall, t_cpu, ref = timed(lambda: exp.analyze(df, control=0), args.repeat)
        rows.append((f"tea-tasting {tea_tasting.__version__}", t_wall, t_cpu))
        worst = max(abs(res[m].difference - ref[m].effect_size) / abs(ref[m].effect_size)
                    for m in METRICS)
        print(f"largest relative difference of the effects: {worst:.1e}")
    print(f"{'':28} {'wall s':>8} {'cpu s':>8} {'wall ratio':>11}")
    for name, w, c in rows:
        print(f"{name:28} {w:8.3f} {c:8.3f} {w / rows[0][1]:10.1f}x")


if __name__ == "__main__":
    main()
