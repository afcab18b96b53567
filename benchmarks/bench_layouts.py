"""How the row layout moves the time of ``skrank.evaluate`` (NDCG@10, the benchmark's data).

The same rows in three orders:

* contiguous: each query's rows adjacent, ids increasing (the one-pass kernel);
* interleaved: the queries dealt out round-robin, each keeping its row order (rows must be
  grouped first, then the general kernel gathers each query);
* shuffled: a random permutation of the rows.

Grouping non-adjacent integer ids uses a table (a counting sort) when the ids lie within a
span of the order of the number of rows, and a stable sort otherwise; ``--sparse-ids`` spreads
the ids far apart to time the sort. Prints the median wall seconds and each layout's ratio to
the contiguous one.

    .venv/bin/python benchmarks/bench_layouts.py [--rows 1000000] [--sparse-ids]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import make_data


def _median_seconds(fn, repeats: int) -> float:
    fn()  # compiled and cached before timing
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--sparse-ids", action="store_true",
                        help="multiply the ids by 2**40 (grouping then sorts)")
    args = parser.parse_args(argv)

    import skrank

    d = make_data(args.rows)
    qid = d.qid * (2**40 if args.sparse_ids else 1)
    starts = d.offsets[:-1]
    position = np.arange(d.n_rows) - np.repeat(starts, d.sizes)
    layouts = {
        "contiguous": np.arange(d.n_rows),
        "interleaved": np.lexsort((qid, position)),
        "shuffled": np.random.default_rng(0).permutation(d.n_rows),
    }
    print(f"skrank.evaluate, NDCG@10, {d.n_rows:,} rows, {d.n_queries:,} queries, "
          f"{'sparse' if args.sparse_ids else 'dense'} integer ids")
    base = None
    for name, perm in layouts.items():
        y, s, q = d.y_true[perm], d.y_score[perm], qid[perm]
        sec = _median_seconds(lambda y=y, s=s, q=q: skrank.evaluate(y, s, q), args.repeats)
        base = base or sec
        print(f"  {name:12s} {sec:8.4f} s  {sec / base:5.1f}x contiguous")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
