"""event_metrics on an event log of 10M events, then analyze_experiment on its unit table.

A simulated log: 1M users (two arms), about ten events each in up to three sessions per
user spread over two weeks (40% queries, 45% clicks at positions 1-20, 3% conversions, the
rest other events), integer user and session ids, float timestamps in seconds. Every metric
of :func:`skrank.online.event_metrics` (CTR@10, abandonment, reformulation, time to first
click, dwell and satisfied clicks, conversion, retention) is computed per user; the unit
table then goes through :func:`skrank.online.analyze_experiment` (eight ratio metrics, the
sample ratio check).

Times are the best of ``--repeat`` runs, wall seconds and process CPU seconds (the machine
may be shared: CPU time shows the work, wall time what a user waits).

Run: ``python benchmarks/bench_events.py [--events 10000000] [--repeat 3] [--polars]``.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from _timing import timed

from skrank.online import event_metrics

DAY = 86_400.0


def event_log(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_users = max(n // 10, 2)
    user = rng.integers(0, n_users, n)
    session = rng.integers(0, 3, n)
    # sessions of a user a few days apart, events within an hour of the session's start
    start = rng.uniform(0, 14 * DAY, (n_users, 3))
    timestamp = start[user, session] + rng.exponential(600.0, n)
    kind = rng.choice(np.array(["query", "click", "conversion", "scroll"]), n,
                      p=[0.40, 0.45, 0.03, 0.12])
    position = np.where(kind == "click", rng.integers(1, 21, n), 0)
    arm = np.where(rng.random(n_users) < 0.5, "control", "treatment")[user]
    return pd.DataFrame({"user": user, "session": session, "timestamp": timestamp,
                         "event": pd.Categorical(kind), "position": position, "arm": arm})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--polars", action="store_true", help="also time a polars log")
    args = parser.parse_args()
    log = event_log(args.events)
    frames = {"pandas": log}
    if args.polars:
        import polars as pl

        frames["polars"] = pl.from_pandas(log)
    print(f"{len(log):,} events, {log['user'].nunique():,} users")
    print(f"{'step':<44} {'wall (s)':>9} {'CPU (s)':>9}")
    for kind, frame in frames.items():
        wall, cpu, units = timed(lambda f=frame: event_metrics(f), args.repeat)
        print(f"{'event_metrics, ' + kind + ', 8 metrics per user':<44} {wall:>9.2f} {cpu:>9.2f}")
    wall, cpu, _ = timed(lambda: units.analyze("control"), args.repeat)
    print(f"{'analyze_experiment on the unit table':<44} {wall:>9.2f} {cpu:>9.2f}")
    print(units)


if __name__ == "__main__":
    main()
