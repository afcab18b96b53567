"""Speed of skrank's metrics against its peers, with memory and cold start: ``make bench``.

Every tool gets the same rows (``_data.make_data``: about 100 documents per query, graded
labels 0..4, scores rounded to 3 decimals so that ties occur) at 1M and 10M rows, and computes
NDCG@10, AP@10 and RR. Each number is the median wall time of a few warm calls, more for fast
calls (every tool is first run on small data so that compilation is excluded; fast calls also
get one untimed full-size call first). The ratio columns say how many times longer the peer
took than skrank for the same metric, measured in the same run. What is timed for each peer:

skrank
    ``skrank.evaluate(y_true, y_score, qid, metrics=[m])`` from the flat arrays: validation,
    grouping, the compiled kernel and the result (default ``ties="pessimistic"``); also the
    three metrics in one call, and every tie rule.
LightGBM (C++ metric)
    A ``Dataset`` with one constant feature, ``label``, ``group`` and ``init_score=y_score``
    and a ``Booster(objective="lambdarank", metric="ndcg"|"map", eval_at=[10])`` are built
    outside the timer; timed is ``booster.eval_train()``, which runs LightGBM's own metric on
    the training scores (the init scores, as the booster has no tree). LightGBM computes each
    query's ideal DCG when the booster is built, so its time holds no ideal DCG, grouping or
    input check. No RR in LightGBM. Measured with 2 threads (the targets) and with 1.
XGBoost (C++ metric)
    ``DMatrix(label, qid, base_margin=y_score)`` and a 0-round ``rank:ndcg`` booster are built
    outside the timer; timed is ``booster.eval(dmatrix)`` (prediction of 0 trees = the margins,
    then XGBoost's ndcg@10). XGBoost's map@k refuses graded labels, so NDCG only.
ranx kernel
    ``ranx.metrics.ndcg / average_precision / reciprocal_rank`` on the numba typed lists that
    ``Qrels.to_typed_list()`` / ``Run.to_typed_list()`` return (built outside the timer).
    ranx sorts every query's documents by score when it builds the ``Run``, so its kernel
    does not rank: it reads the first k documents of each pre-sorted list.
ranx from a DataFrame
    ``Qrels.from_df`` + ``Run.from_df`` (string id columns) timed once per repeat, plus
    ``ranx.evaluate(qrels, run, m)`` timed per metric; the column is their sum.
pytrec_eval
    Building its ``{qid: {docid: label}}`` / ``{qid: {docid: score}}`` dicts from the arrays,
    plus ``RelevanceEvaluator(qrels, {measure}).evaluate(run)`` and the mean; the column is
    their sum. Measures ``ndcg_cut.10``, ``map_cut.10``, ``recip_rank``.
scikit-learn ``ndcg_score``
    Padding the queries to a dense (n_queries, max_size) matrix plus ``ndcg_score(k=10)``
    (tie-averaged, its default). NDCG only.

skrank runs on one thread by default (``n_jobs=None``, scikit-learn's convention) and on two
with ``n_jobs=2``; ranx uses numba threads, LightGBM and XGBoost two threads (LightGBM also
one); pytrec_eval and scikit-learn run on one. The LightGBM target is checked like for like:
skrank ``n_jobs=2`` against LightGBM on two threads, skrank's default against LightGBM on one.
Definitions differ between tools (gain, ties, AP denominator): the values are printed to show
that each tool did the work, and LightGBM's equals skrank's ``preset="lightgbm"``. The memory
(``bench_memory.py``, 10M rows) and cold start (``bench_coldstart.py``) measurements run in
fresh processes.

Usage: ``python benchmarks/bench_metrics.py [--quick] [--json PATH] [--profile]``.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _data import (  # noqa: E402
    RankingData,
    describe,
    doc_names,
    make_data,
    query_names,
    to_dense,
    to_frames,
)

METRICS = ("ndcg@10", "ap@10", "rr")
ALL3 = "all3"
TIE_RULES = ("pessimistic", "optimistic", "input", "average")
PACKAGES = ("skrank", "numpy", "numba", "scipy", "scikit-learn", "pandas", "lightgbm", "xgboost",
            "ranx", "pytrec-eval-terrier")
THREADS = 2
FIRST_CALL_KEPT_S = 2.0  # a first full-size call slower than this counts as a sample
FAST_SAMPLES = 21  # most samples of a fast call
FAST_SAMPLING_S = 0.5  # time a fast call's samples may take

# targets of the issue
LIGHTGBM_RATIO = 5.0
RANX_DF_RATIO = 100.0
TIE_RATIO = 1.5
MEMORY_RATIO = 3.0
COLDSTART_S = 1.0


# ----------------------------------------------------------------------------------- timing


def measure(fn: Callable[[], object], repeats: int, budget_s: float):
    """Median wall time of ``fn`` over up to ``repeats`` warm calls.

    No new call starts once ``budget_s`` seconds have passed since the first one (at least
    one sample is always taken).

    Calls faster than ``FAST_SAMPLING_S / repeats`` are sampled more often (up to
    ``FAST_SAMPLES`` times), so that their median resists a passing load.

    The first call is a warm-up and is not counted, unless it took longer than
    ``FIRST_CALL_KEPT_S``: every tool was already compiled on small data, so a slow first call
    is a real sample (this keeps the slow pure-Python peers affordable at 10M rows).
    Returns (median seconds, samples, value of the first call). The process CPU time of
    each sample (all threads) goes to ``CPU_SAMPLES`` so that a loaded machine can be told
    apart from a slow tool.
    """
    start = t0 = time.perf_counter()
    c0 = time.process_time()
    value = fn()
    first, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    # fast calls get more samples (up to FAST_SAMPLES, within about FAST_SAMPLING_S), so that
    # a moment of load from elsewhere does not move their median
    repeats = max(repeats, min(FAST_SAMPLES, int(FAST_SAMPLING_S / max(first, 1e-6))))
    samples = [first] if first > FIRST_CALL_KEPT_S else []
    CPU_SAMPLES[:] = [first_cpu] if samples else []
    while len(samples) < repeats and (not samples or time.perf_counter() - start < budget_s):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        samples.append(time.perf_counter() - t0)
        CPU_SAMPLES.append(time.process_time() - c0)
    return statistics.median(samples), samples, value


CPU_SAMPLES: list[float] = []


class Results:
    """Timings keyed by (n_rows, tool, metric)."""

    def __init__(self) -> None:
        self.rows: list[dict] = []

    def add(self, n_rows, tool, metric, seconds, samples, value=None, note="", cpu_extra=0.0):
        """Record a timing; the CPU time is that of the latest ``measure`` call (+ extra)."""
        cpu = statistics.median(CPU_SAMPLES) + cpu_extra if CPU_SAMPLES else None
        self.rows.append({
            "n_rows": n_rows, "tool": tool, "metric": metric, "seconds": seconds,
            "samples": samples, "min_seconds": min(samples), "cpu_seconds": cpu,
            "value": None if value is None else float(value), "note": note,
        })
        shown = "" if value is None else f"  value={float(value):.6f}"
        cpu_s = "" if cpu is None else f" cpu {cpu:8.4f} s"
        print(f"    {tool:<40} {metric:<8} {seconds:9.4f} s (min {min(samples):.4f}){cpu_s}"
              f"  ({len(samples)} runs){shown}", flush=True)

    def get(self, n_rows, tool, metric):
        for r in self.rows:
            if r["n_rows"] == n_rows and r["tool"] == tool and r["metric"] == metric:
                return r
        return None

    def seconds(self, n_rows, tool, metric):
        return self.value_of(n_rows, tool, metric, "seconds")

    def value_of(self, n_rows, tool, metric, kind):
        """``kind``: "seconds" (median wall), "cpu" (median process CPU) or "min_seconds"."""
        r = self.get(n_rows, tool, metric)
        return None if r is None else r.get("cpu_seconds" if kind == "cpu" else kind)


# ----------------------------------------------------------------------------------- tools


def skrank_eval(d: RankingData, metrics, **kw):
    import skrank

    res = skrank.evaluate(d.y_true, d.y_score, d.qid, metrics=list(metrics), **kw)
    return res[metrics[0]].value


def bench_skrank(d: RankingData, out: Results, repeats: int, budget: float) -> None:
    for ties in TIE_RULES:
        tool = f"skrank ties={ties}"
        for m in METRICS:
            sec, samples, val = measure(lambda m=m, t=ties: skrank_eval(d, [m], ties=t),
                                        repeats, budget)
            out.add(d.n_rows, tool, m, sec, samples, val)
        sec, samples, val = measure(lambda t=ties: skrank_eval(d, METRICS, ties=t),
                                    repeats, budget)
        out.add(d.n_rows, tool, ALL3, sec, samples, val, "3 metrics in one call")
    for m in ("ndcg@10", "ap@10"):
        sec, samples, val = measure(lambda m=m: skrank_eval(d, [m], preset="lightgbm"),
                                    repeats, budget)
        out.add(d.n_rows, "skrank preset=lightgbm", m, sec, samples, val)
    # the kernel releases the GIL: the same call on two threads (identical result)
    for m in METRICS:
        sec, samples, val = measure(lambda m=m: skrank_eval(d, [m], n_jobs=2), repeats, budget)
        out.add(d.n_rows, "skrank n_jobs=2", m, sec, samples, val)


def bench_lightgbm(d: RankingData, out: Results, repeats: int, budget: float) -> None:
    import lightgbm as lgb

    t0 = time.perf_counter()
    x = np.zeros((d.n_rows, 1), dtype=np.float32)
    ds = lgb.Dataset(x, label=d.y_true, group=d.sizes, init_score=d.y_score,
                     params={"verbose": -1, "num_threads": THREADS}, free_raw_data=True)
    ds.construct()
    del x
    setup = time.perf_counter() - t0
    for threads, tool in ((THREADS, "LightGBM own metric (C++)"),
                          (1, "LightGBM own metric (C++), 1 thread")):
        for m, name in (("ndcg@10", "ndcg"), ("ap@10", "map")):
            booster = lgb.Booster(params={"objective": "lambdarank", "metric": name,
                                          "eval_at": [10], "verbose": -1,
                                          "num_threads": threads}, train_set=ds)
            sec, samples, val = measure(lambda b=booster: b.eval_train()[0][2], repeats,
                                        budget)
            out.add(d.n_rows, tool, m, sec, samples, val,
                    f"Dataset built in {setup:.2f} s outside the timer")
            del booster
    del ds
    gc.collect()


def bench_xgboost(d: RankingData, out: Results, repeats: int, budget: float) -> None:
    import xgboost as xgb

    x = np.zeros((d.n_rows, 1), dtype=np.float32)
    dm = xgb.DMatrix(x, label=d.y_true, qid=d.qid, base_margin=d.y_score, nthread=THREADS)
    x = None
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": "ndcg@10",
                         "nthread": THREADS}, dm, num_boost_round=0)

    def run():
        return float(booster.eval(dm).rsplit(":", 1)[1])

    sec, samples, val = measure(run, repeats, budget)
    out.add(d.n_rows, "XGBoost own metric (C++)", "ndcg@10", sec, samples, val)
    booster = dm = None
    gc.collect()


_RANX = {"ndcg@10": ("ndcg", 10), "ap@10": ("average_precision", 10),
         "rr": ("reciprocal_rank", 0)}
_RANX_NAME = {"ndcg@10": "ndcg@10", "ap@10": "map@10", "rr": "mrr"}


def bench_ranx(d: RankingData, out: Results, repeats: int, budget: float) -> None:
    import ranx
    import ranx.metrics as rm

    qdf, rdf = to_frames(d)

    def build():
        return ranx.Qrels.from_df(qdf), ranx.Run.from_df(rdf)

    build_s, build_samples, (qrels, run) = measure(build, repeats, budget)
    build_cpu = statistics.median(CPU_SAMPLES)
    qdf = rdf = None  # free the frames (about 1.5 GB at 10M rows)
    gc.collect()
    out.add(d.n_rows, "ranx Qrels/Run.from_df (build only)", "-", build_s, build_samples)
    for m in METRICS:
        sec, samples, val = measure(lambda m=m: ranx.evaluate(qrels, run, _RANX_NAME[m]),
                                    repeats, budget)
        out.add(d.n_rows, "ranx evaluate (prebuilt Qrels/Run)", m, sec, samples, val)
        out.add(d.n_rows, "ranx from DataFrame", m, build_s + sec,
                [build_s + x for x in samples], val,
                "from_df build + evaluate, timed separately and summed", build_cpu)
    names = [_RANX_NAME[m] for m in METRICS]
    sec, samples, _ = measure(lambda: ranx.evaluate(qrels, run, names), repeats, budget)
    out.add(d.n_rows, "ranx from DataFrame", ALL3, build_s + sec,
            [build_s + x for x in samples], None,
            "from_df build + one evaluate of three metrics", build_cpu)
    qt, rt = qrels.to_typed_list(), run.to_typed_list()
    qrels = run = None
    gc.collect()
    for m in METRICS:
        fname, k = _RANX[m]
        fn = getattr(rm, fname)
        sec, samples, val = measure(lambda fn=fn, k=k: float(np.mean(fn(qt, rt, k))),
                                    repeats, budget)
        out.add(d.n_rows, "ranx kernel (prebuilt typed lists)", m, sec, samples, val)
    qt = rt = None
    gc.collect()


_TREC = {"ndcg@10": "ndcg_cut.10", "ap@10": "map_cut.10", "rr": "recip_rank"}


def trec_dicts(d: RankingData):
    docs = doc_names(int(d.sizes.max())).tolist()
    queries = query_names(d.n_queries).tolist()
    labels = d.y_true.tolist()
    scores = d.y_score.tolist()
    offsets = d.offsets.tolist()
    qrel, run = {}, {}
    for q, name in enumerate(queries):
        lo, hi = offsets[q], offsets[q + 1]
        ids = docs[: hi - lo]
        qrel[name] = dict(zip(ids, labels[lo:hi]))
        run[name] = dict(zip(ids, scores[lo:hi]))
    return qrel, run


def bench_pytrec_eval(d: RankingData, out: Results, repeats: int, budget: float) -> None:
    import pytrec_eval

    build_s, build_samples, (qrel, run) = measure(lambda: trec_dicts(d), repeats, budget)
    build_cpu = statistics.median(CPU_SAMPLES)
    out.add(d.n_rows, "pytrec_eval dict build (only)", "-", build_s, build_samples)

    def evaluate(measures):
        res = pytrec_eval.RelevanceEvaluator(qrel, set(measures)).evaluate(run)
        key = measures[0].replace(".", "_")
        return float(np.mean([v[key] for v in res.values()]))

    for m in METRICS:
        sec, samples, val = measure(lambda m=m: evaluate([_TREC[m]]), repeats, budget)
        out.add(d.n_rows, "pytrec_eval (dicts built + evaluate)", m, build_s + sec,
                [build_s + x for x in samples], val,
                "dict build + evaluate, timed separately and summed", build_cpu)
    sec, samples, _ = measure(lambda: evaluate([_TREC[m] for m in METRICS]), repeats, budget)
    out.add(d.n_rows, "pytrec_eval (dicts built + evaluate)", ALL3, build_s + sec,
            [build_s + x for x in samples], None,
            "dict build + one evaluator of three measures", build_cpu)
    qrel = run = None
    gc.collect()


def bench_sklearn(d: RankingData, out: Results, repeats: int, budget: float) -> None:
    from sklearn.metrics import ndcg_score

    def run():
        y, s = to_dense(d)
        return ndcg_score(y, s, k=10)

    sec, samples, val = measure(run, repeats, budget)
    out.add(d.n_rows, "scikit-learn ndcg_score (dense)", "ndcg@10", sec, samples, val,
            "padding to a dense matrix included")


PEERS = (
    ("LightGBM", bench_lightgbm),
    ("XGBoost", bench_xgboost),
    ("ranx", bench_ranx),
    ("pytrec_eval", bench_pytrec_eval),
    ("scikit-learn", bench_sklearn),
)


def warm_up() -> None:
    """Run every tool once on small data: numba compilation (skrank, ranx) is not timed."""
    d = make_data(20_000)
    scratch = Results()
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        bench_skrank(d, scratch, 1, 0.0)
        for _, fn in PEERS:
            fn(d, scratch, 1, 0.0)


# -------------------------------------------------------------------------------- profile


def profile_skrank(d: RankingData, repeats: int) -> list[tuple[str, float]]:
    """Time the phases of one ``evaluate`` call by wrapping the private helpers it calls.

    Private names may change; missing ones are skipped and their time lands in "other".
    """
    import skrank
    from skrank.metrics import _evaluate as ev
    from skrank.metrics import _fast

    phases = {
        # the one-pass kernel checks scores and labels itself ("kernel")
        "validation": ("_as_1d", "_numeric", "_labels_array", "_check_values"),
        "grouping": ("group_rows",),
        "kernel": ("_run", "_run_fast"),
        "result": ("_finish", "EvaluationResult"),
    }
    acc: dict[str, float] = {}
    originals = {}

    def wrap(phase, fn):
        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                acc[phase] = acc.get(phase, 0.0) + time.perf_counter() - t0
        return timed

    # each name is wrapped where its caller looks it up: evaluate's module, and the one-pass
    # path's module for the runs it makes itself
    for phase, names in phases.items():
        for name in names:
            for mod in (ev, _fast):
                if hasattr(mod, name) and (mod, name) not in originals:
                    originals[mod, name] = getattr(mod, name)
                    setattr(mod, name, wrap(phase, originals[mod, name]))
                    break
    rows = []
    try:
        for metrics in (["ndcg@10"], list(METRICS)):
            totals = []
            per_phase: dict[str, list[float]] = {p: [] for p in phases}
            skrank.evaluate(d.y_true, d.y_score, d.qid, metrics=metrics)
            for _ in range(repeats):
                acc.clear()
                t0 = time.perf_counter()
                skrank.evaluate(d.y_true, d.y_score, d.qid, metrics=metrics)
                totals.append(time.perf_counter() - t0)
                for p in phases:
                    per_phase[p].append(acc.get(p, 0.0))
            label = "+".join(metrics)
            total = statistics.median(totals)
            rows.append((f"{label}: total", total))
            spent = 0.0
            for p in phases:
                v = statistics.median(per_phase[p])
                spent += v
                rows.append((f"{label}: {p}", v))
            rows.append((f"{label}: other", max(total - spent, 0.0)))
    finally:
        for (mod, name), fn in originals.items():
            setattr(mod, name, fn)
    return rows


# ---------------------------------------------------------------------------------- report


def ratio(peer, mine):
    if peer is None or mine is None or mine <= 0:
        return None
    return peer / mine


def fmt_s(x):
    if x is None:
        return "-"
    return f"{x:.3f}" if x >= 0.01 else f"{x:.4f}"


def fmt_x(x):
    if x is None:
        return "-"
    return f"{x:.1f}x" if x < 100 else f"{x:.0f}x"


TABLE_TOOLS = (
    ("skrank ties=pessimistic", "skrank evaluate (default ties)"),
    ("skrank preset=lightgbm", "skrank evaluate, preset=lightgbm"),
    ("skrank n_jobs=2", "skrank evaluate, n_jobs=2 (two threads)"),
    ("LightGBM own metric (C++)", "LightGBM own metric (C++)"),
    ("LightGBM own metric (C++), 1 thread", "LightGBM own metric, 1 thread"),
    ("XGBoost own metric (C++)", "XGBoost own metric (C++)"),
    ("ranx kernel (prebuilt typed lists)", "ranx kernel (prebuilt inputs)"),
    ("ranx evaluate (prebuilt Qrels/Run)", "ranx.evaluate (prebuilt Qrels/Run)"),
    ("ranx from DataFrame", "ranx from a DataFrame (from_df)"),
    ("pytrec_eval (dicts built + evaluate)", "pytrec_eval (with building dicts)"),
    ("scikit-learn ndcg_score (dense)", "scikit-learn ndcg_score (dense)"),
)


def speed_table(res: Results, n_rows: int, kind: str = "seconds") -> list[list[str]]:
    """Rows: tool, then (time, peer time / skrank time) for NDCG@10, AP@10, RR, 3 metrics.

    ``kind``: "seconds" (median wall time) or "cpu" (median process CPU time).
    """
    base = "skrank ties=pessimistic"
    table = []
    for key, label in TABLE_TOOLS:
        row = [label]
        present = False
        for m in (*METRICS, ALL3):
            s = res.value_of(n_rows, key, m, kind)
            present |= s is not None
            mine = res.value_of(n_rows, base, m, kind)
            row += [fmt_s(s), "" if key == base else fmt_x(ratio(s, mine))]
        if present:
            table.append(row)
    return table


def tie_table(res: Results, n_rows: int, kind: str = "seconds") -> list[list[str]]:
    table = []
    for rule in TIE_RULES:
        row = [rule]
        for m in (*METRICS, ALL3):
            s = res.value_of(n_rows, f"skrank ties={rule}", m, kind)
            ref = res.value_of(n_rows, "skrank ties=input", m, kind)
            row += [fmt_s(s), fmt_x(ratio(s, ref))]
        table.append(row)
    return table


SPEED_HEAD = ["tool", "NDCG@10 s", "x", "AP@10 s", "x", "RR s", "x", "all 3 s", "x"]
TIE_HEAD = ["ties", "NDCG@10 s", "/input", "AP@10 s", "/input", "RR s", "/input",
            "all 3 s", "/input"]


def text_table(head, rows) -> str:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    line = lambda r: "  ".join(  # noqa: E731
        str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))
    )
    return "\n".join([line(head), line(["-" * w for w in widths]), *map(line, rows)])


def rst_table(head, rows) -> str:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    sep = "  ".join("=" * w for w in widths)
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([sep, line(head), sep, *map(line, rows), sep])


def md_table(head, rows) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def targets(res: Results, sizes, memory, cold) -> list[list[str]]:
    """One row per target: what, wall-time measure and verdict, CPU-time measure and verdict.

    The issue's targets are on wall time; the CPU-time columns (process CPU seconds, all
    threads) say whether a verdict would change on a machine that other jobs leave alone.
    """
    rows = []
    base = "skrank ties=pessimistic"

    def verdict(ok):
        return "-" if ok is None else ("PASS" if ok else "FAIL")

    def both(get, n, peer, mine, m):
        out = []
        for kind in ("seconds", "cpu"):
            out.append(ratio(get(n, peer, m, kind), get(n, mine, m, kind)))
        return out

    get = res.value_of
    # like for like: LightGBM on two threads against skrank's n_jobs=2, and on one thread
    # against skrank's default (one thread)
    pairs = (("LightGBM own metric (C++)", "skrank n_jobs=2", "both on 2 threads"),
             ("LightGBM own metric (C++), 1 thread", base, "both on 1 thread"))
    for n in sizes:
        for m in ("ndcg@10", "ap@10"):
            for peer, mine, how in pairs:
                rw, rc = both(get, n, peer, mine, m)
                if rw is not None:
                    rows.append([f">= {LIGHTGBM_RATIO:g}x faster than LightGBM's {m}, {n:,} "
                                 f"rows, {how}", fmt_x(rw), verdict(rw >= LIGHTGBM_RATIO),
                                 fmt_x(rc),
                                 verdict(None if rc is None else rc >= LIGHTGBM_RATIO)])
    for n in sizes:
        worst = {}
        for kind in ("seconds", "cpu"):
            for m in (*METRICS, ALL3):
                r = ratio(get(n, "ranx from DataFrame", m, kind), get(n, base, m, kind))
                if r is not None and (kind not in worst or r < worst[kind][0]):
                    worst[kind] = (r, m)
        if "seconds" in worst:
            rw, mw = worst["seconds"]
            rc = worst.get("cpu", (None, ""))[0]
            rows.append([f">= {RANX_DF_RATIO:g}x faster than ranx from a DataFrame, {n:,} rows "
                         f"(slowest metric: {mw})", fmt_x(rw), verdict(rw >= RANX_DF_RATIO),
                         fmt_x(rc), verdict(None if rc is None else rc >= RANX_DF_RATIO)])
    for n in sizes:
        worst = {}
        for kind in ("seconds", "cpu"):
            for rule in TIE_RULES:
                for m in (*METRICS, ALL3):
                    r = ratio(get(n, f"skrank ties={rule}", m, kind),
                              get(n, "skrank ties=input", m, kind))
                    if r is not None and (kind not in worst or r > worst[kind][0]):
                        worst[kind] = (r, rule, m)
        if "seconds" in worst:
            rw, rule, m = worst["seconds"]
            rc = worst.get("cpu", (None,))[0]
            rows.append([f"every tie rule <= {TIE_RATIO:g}x the input-order rule, {n:,} rows "
                         f"(worst: {rule}, {m})", f"{rw:.2f}x", verdict(rw <= TIE_RATIO),
                         "-" if rc is None else f"{rc:.2f}x",
                         verdict(None if rc is None else rc <= TIE_RATIO)])
    if memory is not None:
        worst = max(memory["cases"], key=lambda c: max(c["rss_ratio"], c["traced_ratio"]))
        r = max(worst["rss_ratio"], worst["traced_ratio"])
        rows.append([f"peak extra memory <= {MEMORY_RATIO:g}x the inputs, "
                     f"{memory['n_rows']:,} rows (worst: {worst['case']})",
                     f"{r:.2f}x", verdict(r <= MEMORY_RATIO), "", ""])
    if cold is not None:
        m = cold["worst"]
        rows.append([f"cold start <= {COLDSTART_S:g} s, worst case (import {m['import_s']:.2f} s"
                     f" + NumPy {m['numpy_s']:.2f} s + first call {m['first_call_s']:.2f} s)",
                     f"{m['total_s']:.2f} s",
                     verdict(m["total_s"] <= COLDSTART_S), "", ""])
    return rows


TARGET_HEAD = ["target", "wall", "verdict", "CPU", "verdict (CPU)"]


def environment() -> dict:
    versions = {}
    for p in PACKAGES:
        try:
            versions[p] = importlib.metadata.version(p)
        except importlib.metadata.PackageNotFoundError:
            versions[p] = "missing"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
        if hasattr(os, "sysconf") else None,
        "versions": versions,
    }


def load_avg() -> str:
    try:
        return "/".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


def sub_json(script: str, *args: str) -> dict | None:
    cmd = [sys.executable, str(HERE / script), "--json", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"  {script} failed:\n{proc.stderr}", file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="skrank speed, memory and cold start benchmark")
    parser.add_argument("--quick", action="store_true", help="1M rows only (about a minute)")
    parser.add_argument("--sizes", default=None,
                        help="comma-separated row counts (default 1000000,10000000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls at 1M rows")
    parser.add_argument("--repeats-large", type=int, default=3, help="timed calls at 10M rows")
    parser.add_argument("--skip", default="", help="comma-separated peers to skip, e.g. ranx")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--no-coldstart", action="store_true")
    parser.add_argument("--profile", action="store_true",
                        help="also time the phases of skrank.evaluate")
    parser.add_argument("--json", type=Path, default=None, help="write all results here")
    parser.add_argument("--tables", type=Path, default=None,
                        help="write the tables as reST and Markdown into this folder")
    parser.add_argument("--report", type=Path, default=None,
                        help="print (and --tables) the tables of a saved --json file; no run")
    args = parser.parse_args(argv)

    if args.report is not None:
        tables = render(json.loads(args.report.read_text()))
        if args.tables is not None:
            write_tables(tables, args.tables)
        return 0
    if args.sizes:
        sizes = [int(float(s)) for s in args.sizes.split(",")]
    else:
        sizes = [1_000_000] if args.quick else [1_000_000, 10_000_000]
    skip = {s.strip().lower() for s in args.skip.split(",") if s.strip()}
    env = environment()
    load_start = load_avg()
    started = time.perf_counter()
    print(f"skrank benchmark, {env['date']}, commit {env['commit']}; {env['cores']} cores "
          f"({env['cpu']}), {env['memory_gib']} GiB; Python {env['python']}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in env["versions"].items()))
    print(f"load average at start: {load_start}", flush=True)
    warnings.filterwarnings("ignore", category=UserWarning)

    print("warming up every tool on 20,000 rows (numba compilation is not timed) ...",
          flush=True)
    warm_up()

    res = Results()
    data_info = {}
    profiles = {}
    for n in sizes:
        large = n >= 5_000_000
        repeats = args.repeats_large if large else args.repeats
        budget = 8.0 if large else 10.0
        d = make_data(n)
        info = describe(d)
        info["load_average"] = load_avg()
        data_info[n] = info
        print(f"\n{n:,} rows, {info['queries']:,} queries ({info['size_range'][0]}-"
              f"{info['size_range'][1]} documents each), {info['distinct_scores']} distinct "
              f"scores; ties in {info['queries_with_ties']:.0%} of queries, in the top 10 of "
              f"{info['queries_with_ties_in_top10']:.0%}; load average {load_avg()}", flush=True)
        bench_skrank(d, res, repeats, budget)
        for name, fn in PEERS:
            if name.lower() in skip:
                continue
            fn(d, res, repeats, budget)
        if args.profile:
            profiles[n] = profile_skrank(d, repeats)
        del d
        gc.collect()

    memory = None
    if not args.no_memory:
        print("\nmemory (fresh process, 10,000,000 rows) ...", flush=True)
        memory = sub_json("bench_memory.py", "--rows", "10000000")
    cold = None
    if not args.no_coldstart:
        print("cold start (fresh processes) ...", flush=True)
        cold = sub_json("bench_coldstart.py")

    elapsed = time.perf_counter() - started
    report = {
        "environment": env, "load_average_start": load_start,
        "load_average_end": load_avg(), "elapsed_s": elapsed,
        "data": {str(k): v for k, v in data_info.items()}, "timings": res.rows,
        "memory": memory, "coldstart": cold,
        "profile": {str(k): v for k, v in profiles.items()},
    }
    tables = render(report)
    report["targets"] = tables["targets"][2]
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1))
    if args.tables is not None:
        write_tables(tables, args.tables)
    return 0


def render(report: dict) -> dict:
    """Print every table of a report; return them as {key: (title, head, rows)}."""
    res = Results()
    res.rows = report["timings"]
    sizes = sorted({r["n_rows"] for r in res.rows})
    memory, cold = report.get("memory"), report.get("coldstart")
    env = report["environment"]
    print(f"\n==== Results ({env['date']}, {env['cores']} cores; load average at the end "
          f"{report['load_average_end']}; the benchmark took {report['elapsed_s'] / 60:.1f} "
          "min) ====\ntimes are medians; 'x' = peer time / skrank time")
    tables = {}
    for n in sizes:
        info = report["data"][str(n)]
        title = f"{n:,} rows, {info['queries']:,} queries"
        tables[f"speed_{n}"] = (f"wall seconds, {title}", SPEED_HEAD, speed_table(res, n))
        tables[f"cpu_{n}"] = (f"CPU seconds (all threads), {title}", SPEED_HEAD,
                              speed_table(res, n, "cpu"))
        tables[f"ties_{n}"] = (f"tie rules, wall seconds, {title}", TIE_HEAD,
                               tie_table(res, n))
        tables[f"ties_cpu_{n}"] = (f"tie rules, CPU seconds, {title}", TIE_HEAD,
                                   tie_table(res, n, "cpu"))
    for title, head, rows in tables.values():
        print(f"\n{title}\n{text_table(head, rows)}")
    if memory is not None:
        from bench_memory import format_report as mem_report

        print("\n" + mem_report(memory))
    if cold is not None:
        from bench_coldstart import format_report as cold_report

        print("\n" + cold_report(cold))
    for n, rows in report.get("profile", {}).items():
        print(f"\nphases of skrank.evaluate, {int(n):,} rows (median wall s):")
        for name, v in rows:
            print(f"  {name:<32} {v:.4f}")
    target_rows = targets(res, sizes, memory, cold)
    tables["targets"] = ("targets", TARGET_HEAD, target_rows)
    print("\nTargets\n" + text_table(TARGET_HEAD, target_rows))
    return tables


def write_tables(tables: dict, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for key, (_, head, rows) in tables.items():
        (folder / f"{key}.rst").write_text(rst_table(head, rows) + "\n")
        (folder / f"{key}.md").write_text(md_table(head, rows) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
