"""Cold start: ``import skrank`` plus the first ``skrank.evaluate`` call in a fresh process.

Every measurement is a new interpreter (``python -c ...``). The kernels are compiled when the
package is built, so there is no kernel cache to fill or to find empty: a fresh Docker image,
a CI run, a Dask or Spark worker or a read-only site-packages start as any process does.
Python's bytecode is read from the ``.pyc`` files that pip writes at install time; with
``--empty-pyc`` every run gets a new empty bytecode cache (``PYTHONPYCACHEPREFIX``), so that
every module of skrank, NumPy, SciPy and scikit-learn is compiled from source first (the
case of an installation made with ``--no-compile`` on a read-only file system).

Cases: NDCG@10 and AP@10 + RR, every tie rule (``docid`` with document ids), and the label
dtypes a caller may hold (int8 to int64, uint8, float32, float64, bool), each on 10,000 rows
in 100 queries. Reported per case: the time of ``import skrank``, of ``import numpy`` after
it (``import skrank`` is lazy and loads no NumPy; the child needs NumPy for its arrays, as a
caller does), of the first ``evaluate`` call and of the second, and the wall time of the
whole process; the total is the three first (what a caller pays before the first result);
targets: import <= 0.3 s, total <= 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import skrank
t1 = time.perf_counter()
import numpy as np
t1n = time.perf_counter()
metrics, ties, dtype = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
rng = np.random.default_rng(0)
y_true = rng.integers(0, 5, 10_000).astype(dtype)
y_score = np.round(rng.random(10_000), 3)
qid = np.repeat(np.arange(100), 100)
kw = {"doc_id": np.arange(10_000)} if ties == "docid" else {}
t2 = time.perf_counter()
res = skrank.evaluate(y_true, y_score, qid, metrics=metrics, ties=ties, **kw)
t3 = time.perf_counter()
res = skrank.evaluate(y_true, y_score, qid, metrics=metrics, ties=ties, **kw)
t4 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "numpy_s": t1n - t1, "first_call_s": t3 - t2,
                  "second_call_s": t4 - t3}))
"""

CASES = (
    [("ndcg@10", "pessimistic", "int64"), ("ap@10,rr", "pessimistic", "int64")]
    + [("ndcg@10,ap@10,rr", ties, "int64")
       for ties in ("pessimistic", "optimistic", "input", "average", "docid")]
    + [("ndcg@10,ap@10,rr", "pessimistic", dt)
       for dt in ("int8", "int16", "int32", "uint8", "float32", "float64", "bool")]
)
IMPORT_S = 0.3
TOTAL_S = 1.0


def one_run(python: str, case: tuple[str, str, str], empty_pyc: bool) -> dict:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as empty:
        if empty_pyc:
            env["PYTHONPYCACHEPREFIX"] = empty
        start = time.perf_counter()
        proc = subprocess.run([python, "-c", CHILD, *case], capture_output=True, text=True,
                              check=True, env=env)
        wall = time.perf_counter() - start
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_wall_s"] = wall
    out["total_s"] = out["import_s"] + out["numpy_s"] + out["first_call_s"]
    return out


def run(repeats: int = 3, python: str | None = None, empty_pyc: bool = False) -> dict:
    python = python or sys.executable
    cases = []
    for case in CASES:
        runs = [one_run(python, case, empty_pyc) for _ in range(repeats)]
        med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        cases.append({"metrics": case[0], "ties": case[1], "dtype": case[2], **med})
    worst = max(cases, key=lambda c: c["total_s"])
    median = {key: statistics.median(c[key] for c in cases)
              for key in ("import_s", "numpy_s", "first_call_s", "second_call_s",
                          "total_s", "process_wall_s")}
    return {"cases": cases, "median": median, "worst": worst, "repeats": repeats,
            "empty_pyc": empty_pyc}


def format_report(res: dict) -> str:
    cache = "empty" if res.get("empty_pyc") else "as installed"
    lines = [
        f"Cold start, a fresh process per run (bytecode cache {cache}), median of "
        f"{res['repeats']} runs per case, 10,000 rows:",
        f"  {'metrics':<18} {'ties':<12} {'labels':<8} {'import':>7} {'numpy':>7} "
        f"{'1st call':>9} {'total':>7} {'2nd call':>9} {'process':>8}",
    ]
    for c in res["cases"]:
        lines.append(
            f"  {c['metrics']:<18} {c['ties']:<12} {c['dtype']:<8} {c['import_s']:>6.3f}s "
            f"{c['numpy_s']:>6.3f}s {c['first_call_s']:>8.4f}s {c['total_s']:>6.3f}s "
            f"{c['second_call_s'] * 1000:>7.2f}ms {c['process_wall_s']:>7.3f}s"
        )
    w = res["worst"]
    lines.append(f"  worst import + NumPy + first call: {w['total_s']:.3f} s ({w['metrics']}, "
                 f"{w['ties']}, {w['dtype']}); targets: import <= {IMPORT_S:g} s, "
                 f"the three <= {TOTAL_S:g} s")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--empty-pyc", action="store_true",
                        help="a new empty bytecode cache for every run")
    parser.add_argument("--python", default=None,
                        help="the interpreter to measure (default: this one), e.g. that of a "
                        "clean environment where the wheel is installed")
    parser.add_argument("--json", action="store_true", help="print the result as JSON only")
    args = parser.parse_args(argv)
    res = run(args.repeats, python=args.python, empty_pyc=args.empty_pyc)
    print(json.dumps(res) if args.json else format_report(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
