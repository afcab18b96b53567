"""Peak extra memory of ``skrank.evaluate`` over its input arrays.

Run it on its own (``python benchmarks/bench_memory.py --rows 10000000``) or let
``bench_metrics.py`` start it in a fresh process. Two measures, both taken around one call:

* RSS: the process's resident set is recorded, its high-water mark is reset (Linux:
  ``/proc/self/clear_refs``; elsewhere a 1 ms sampling thread is used), ``evaluate`` runs, and
  the peak minus the starting RSS is the extra memory of the call. This sees every allocation:
  NumPy arrays and the compiled kernels' own buffers.
* tracemalloc: the peak of the allocations NumPy and Python report to ``tracemalloc``
  (NumPy registers its array buffers there, including the kernels' scratch arrays).

The inputs are the shared benchmark data (``_data.make_data``): int64 labels, float64 scores
and int64 query ids, 24 bytes per row, in four layouts (``LAYOUTS``).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import threading
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _data import make_data

CASES = (
    ("ndcg@10", {"metrics": ["ndcg@10"]}),
    ("ndcg@10+ap@10+rr", {"metrics": ["ndcg@10", "ap@10", "rr"]}),
    ("ndcg@10, ties=average", {"metrics": ["ndcg@10"], "ties": "average"}),
    ("ndcg@10, tie_bounds=True", {"metrics": ["ndcg@10"], "tie_bounds": True}),
    ("ndcg@10+ap (no cutoff)", {"metrics": ["ndcg@10", "ap"]}),
)
# the same rows in other orders: queries dealt out round-robin (each keeping its row order),
# rows shuffled, and every row in one query
LAYOUTS = ("contiguous", "interleaved", "shuffled", "one query")


def layout(data, name: str):
    """``(y_true, y_score, qid)`` of the benchmark rows in the layout ``name``."""
    y, s, q = data.y_true, data.y_score, data.qid
    if name == "contiguous":
        return y, s, q
    if name == "one query":
        return y, s, np.zeros_like(q)
    if name == "interleaved":
        starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
        position = np.arange(q.shape[0]) - np.repeat(starts, np.diff(np.r_[starts, q.shape[0]]))
        perm = np.lexsort((q, position))
    else:
        perm = np.random.default_rng(0).permutation(q.shape[0])
    return y[perm], s[perm], q[perm]


def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


class _Sampler(threading.Thread):
    """Fallback peak-RSS sampler (every millisecond) where the kernel peak cannot be reset."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0
        self._done = threading.Event()

    def run(self) -> None:
        import resource

        while not self._done.is_set():
            rss = _status_kb("VmRSS")
            if rss is None:  # not Linux: ru_maxrss is the best we have
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            self.peak = max(self.peak, rss)
            time.sleep(0.001)

    def stop(self) -> int:
        self._done.set()
        self.join()
        return self.peak


def peak_rss_extra(fn) -> tuple[float, str]:
    """Extra resident memory (bytes) at the peak of ``fn()``, and the method used."""
    gc.collect()
    if _status_kb("VmRSS") is not None and _reset_peak():
        before = _status_kb("VmRSS")
        fn()
        peak = _status_kb("VmHWM")
        return (peak - before) * 1024.0, "VmHWM (clear_refs)"
    sampler = _Sampler()
    base = _status_kb("VmRSS") or 0
    sampler.start()
    fn()
    peak = sampler.stop()
    return max(peak - base, 0) * 1024.0, "sampled RSS (1 ms)"


def peak_traced_extra(fn) -> float:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    start, _ = tracemalloc.get_traced_memory()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return float(peak - start)


def run(n_rows: int, layouts=LAYOUTS) -> dict:
    import skrank

    data = make_data(n_rows)
    # the first calls outside the measured ones (imports, the thread pool, lazy imports)
    for _, kw in CASES:
        skrank.evaluate(data.y_true[:5000], data.y_score[:5000], data.qid[:5000], **kw)
    rows = []
    for lay in layouts:
        y_true, y_score, qid = layout(data, lay)
        for name, kw in CASES:
            def call(kw=kw, arrays=(y_true, y_score, qid)):
                skrank.evaluate(*arrays, **kw)

            call()  # warm at full size
            rss, method = peak_rss_extra(call)
            traced = peak_traced_extra(call)
            rows.append({
                "case": f"{lay}: {name}",
                "rss_extra_bytes": rss,
                "traced_extra_bytes": traced,
                "rss_ratio": rss / data.input_bytes,
                "traced_ratio": traced / data.input_bytes,
                "rss_method": method,
            })
        del y_true, y_score, qid
    return {"n_rows": n_rows, "n_queries": data.n_queries, "input_bytes": data.input_bytes,
            "cases": rows}


def format_report(res: dict) -> str:
    mb = 2.0**20
    lines = [
        f"Peak extra memory of skrank.evaluate, {res['n_rows']:,} rows "
        f"(inputs {res['input_bytes'] / mb:.0f} MiB: int64 labels, float64 scores, int64 qid)",
        f"{'layout: call':<44}{'RSS extra':>12}{'x inputs':>10}{'traced':>12}{'x inputs':>10}",
    ]
    for c in res["cases"]:
        lines.append(
            f"{c['case']:<44}{c['rss_extra_bytes'] / mb:>9.0f} MiB{c['rss_ratio']:>10.2f}"
            f"{c['traced_extra_bytes'] / mb:>9.0f} MiB{c['traced_ratio']:>10.2f}"
        )
    lines.append(f"(RSS peak by {res['cases'][0]['rss_method']})")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--layouts", default=",".join(LAYOUTS),
                        help="comma-separated, from: " + ", ".join(LAYOUTS))
    parser.add_argument("--json", action="store_true", help="print the result as JSON only")
    args = parser.parse_args(argv)
    res = run(args.rows, tuple(args.layouts.split(",")))
    print(json.dumps(res) if args.json else format_report(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
