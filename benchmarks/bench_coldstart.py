"""Cold start: ``import skrank`` plus the first ``skrank.evaluate`` call in a fresh process.

Each measurement is a new interpreter (``python -c ...``). The first run may compile the numba
kernels and write them to the on-disk cache; it is reported separately and not counted. The
following runs load the cached kernels, which is what a user sees from the second run on.

Reported (medians over the runs): the time of ``import skrank`` (which imports NumPy, SciPy
and numba), the time of the first ``evaluate`` call (three metrics on 10,000 rows; mostly the
loading of the compiled kernels), their sum (the target: under 2 s), and the wall time of the
whole process including interpreter start-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

CHILD = r"""
import json, time
t0 = time.perf_counter()
import skrank
t1 = time.perf_counter()
import numpy as np
rng = np.random.default_rng(0)
y_true = rng.integers(0, 5, 10_000)
y_score = np.round(rng.random(10_000), 3)
qid = np.repeat(np.arange(100), 100)
t2 = time.perf_counter()
res = skrank.evaluate(y_true, y_score, qid, metrics=["ndcg@10", "ap@10", "rr"])
t3 = time.perf_counter()
res = skrank.evaluate(y_true, y_score, qid, metrics=["ndcg@10", "ap@10", "rr"])
t4 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_call_s": t3 - t2, "second_call_s": t4 - t3}))
"""


def one_run(python: str) -> dict:
    start = time.perf_counter()
    proc = subprocess.run([python, "-c", CHILD], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_wall_s"] = wall
    out["total_s"] = out["import_s"] + out["first_call_s"]
    return out


def run(repeats: int = 5, python: str | None = None) -> dict:
    python = python or sys.executable
    priming = one_run(python)  # fills the numba cache if it is cold
    runs = [one_run(python) for _ in range(repeats)]
    med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    return {"priming_run": priming, "runs": runs, "median": med, "repeats": repeats}


def format_report(res: dict) -> str:
    m = res["median"]
    p = res["priming_run"]
    return "\n".join([
        f"Cold start, fresh process, median of {res['repeats']} runs after a priming run:",
        f"  import skrank          {m['import_s']:.2f} s",
        f"  first evaluate call    {m['first_call_s']:.2f} s   (second call "
        f"{m['second_call_s'] * 1000:.1f} ms)",
        f"  import + first call    {m['total_s']:.2f} s   (target < 2 s)",
        f"  whole process          {m['process_wall_s']:.2f} s   (with interpreter start-up)",
        f"  priming run            {p['total_s']:.2f} s   (import + first call; compiles the "
        "kernels if the cache was empty)",
    ])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the result as JSON only")
    args = parser.parse_args(argv)
    res = run(args.repeats)
    print(json.dumps(res) if args.json else format_report(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
