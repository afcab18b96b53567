"""skrank.dask.evaluate and skrank.spark.evaluate against single-process skrank.evaluate.

The rows of ``make_data(n_rows)`` (about 100 documents per query, tied scores) are shuffled,
so that every partition holds pieces of every query, and handed to each engine where the rows
then live: a Dask DataFrame persisted on a ``distributed.LocalCluster`` of two single-threaded
worker processes, and a Spark DataFrame cached in ``local[2]``. Each distributed call
includes the engine's shuffle on the query id, the per-partition evaluation and the gathering
of the per-query values; the single-process call is ``skrank.evaluate`` on the same rows as
NumPy arrays (its grouping of the interleaved rows included). Each result is checked equal to
the single-process one (per-query values bit for bit, means equal) before it is timed.

For Dask, two further lines time the parts of its call that are not evaluation: the layout's
reduction (the partitions' lengths and the ranges of the query ids and labels, from which it
packs each row's position and label into one key and codes its query id) and its shuffle
alone (the packed frame, the key and the codes in one block and the score, shuffled the
same way, and nothing else): the floor of any
evaluation built on that shuffle. Spark is timed with one shuffle partition per core
(``num_partitions``, ``--spark-partitions``) and then: its shuffle alone (the same columns
repartitioned the same way and written to Spark's ``noop`` sink), that shuffle with the
transfer of the rows to Python (a ``mapInArrow`` that reads them and returns nothing), the
evaluation with Spark's sort (``sort="spark"``) and with the session's default shuffle
partitions (``--partitions``), after two untimed rounds of the evaluation and of the shuffle
with the transfer (the JVM compiles its code over the first few runs). A Spark line ends
with the CPU seconds of Spark's Python workers, the mean over its runs: what skrank's tasks
take, the rest being Spark's JVM.

Times are the best of ``--repeat`` runs: wall seconds and CPU seconds of every process
involved (this one, the Dask workers, Spark's JVM and its Python workers; the machine may be
shared, so CPU time shows the work and wall time what a user waits), the ratio to the
single-process call, and the cost per row.

With ``--median``, each Dask line (and the single-process line) also gives the median of its
runs (and its ratio to the median single-process run), the range of their wall times and the
load average at its end: the machine may be shared, and the best of a few runs hides how far
the others spread.

With ``--idle SECONDS``, every timed call (of every line) follows that many seconds of
sleep, as a call that does not follow another one: on a machine where memory freed a second
or two before costs the next call its pages' faults again, back-to-back calls (the default)
are the best case of each line, and of the single process most of all.

With ``--worker-trim glibc``, the Dask workers start without the ``MALLOC_TRIM_THRESHOLD_``
that distributed sets for them by default (``distributed.nanny.pre-spawn-environ``: 65536
bytes). Setting it also turns off glibc's dynamic mmap threshold, so that every array of more
than 128 KiB a worker allocates is a fresh map whose pages fault in on first touch; where
page faults are costly (as on a virtual machine) those faults, not the work, take most of a
worker's time. ``default`` (the default) keeps distributed's setting.

With ``--spark-hugepage off``, Spark's Python workers start with ``NUMPY_MADVISE_HUGEPAGE=0``
(``spark.executorEnv``): NumPy then stops asking for transparent huge pages on its arrays of
4 MB and more, which a kernel whose memory is fragmented (the JVM's heap beside) may compact
memory for before it hands them out. ``on`` (the default) keeps NumPy's own choice.

Run: ``python benchmarks/bench_distributed.py [--rows 1000000,10000000] [--repeat 2]
[--partitions 16] [--spark-partitions 2] [--dask-partitions N] [--no-spark] [--no-dask]
[--median] [--idle SECONDS] [--worker-trim default|glibc] [--spark-hugepage on|off]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd
import psutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _data import make_data

import skrank
import skrank.dask
import skrank.spark

METRICS = ["ndcg@10", "ap@10", "rr"]


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and every process below it."""
    me = psutil.Process()
    total = 0.0
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:  # a process that ended meanwhile
            pass
    return total


def spark_python_seconds() -> float:
    """CPU seconds of the processes below this one that are neither Java nor this process:
    Spark's Python workers (its JVM is a Java process)."""
    me = psutil.Process()
    total = 0.0
    for p in me.children(recursive=True):
        try:
            if "java" not in p.name():
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.Error:
            pass
    return total


def timed(fn, repeat: int, runs: list | None = None, idle: float = 0.0):
    """(best wall seconds, CPU seconds of that run, result); each run's (wall, CPU) is
    appended to ``runs`` where given; ``idle`` seconds of sleep before each run."""
    best = None
    for _ in range(repeat):
        time.sleep(idle)
        c0, t0 = cpu_seconds(), time.perf_counter()
        out = fn()
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        if runs is not None:
            runs.append((wall, cpu))
        if best is None or wall < best[0]:
            best = (wall, cpu, out)
    return best


def spread(runs: list, base: tuple[float, float], base_runs: list) -> str:
    """A Dask line's note: the median run's wall seconds, ratio and CPU seconds, the range of
    the wall times, and the load average (``--median``); the ratio is to the median of the
    single-process runs."""
    walls, cpus = sorted(r[0] for r in runs), sorted(r[1] for r in runs)
    mid = len(runs) // 2
    base_wall = sorted(r[0] for r in base_runs)[len(base_runs) // 2]
    return (f"  (median {walls[mid]:.2f} s, {walls[mid] / base_wall:.2f}x, {cpus[mid]:.2f} "
            f"cpu s; wall {walls[0]:.2f} to {walls[-1]:.2f}; load "
            f"{os.getloadavg()[0]:.1f})")


def frame_of(n_rows: int) -> pd.DataFrame:
    data = make_data(n_rows)
    order = np.random.default_rng(1).permutation(n_rows)
    return pd.DataFrame({"qid": data.qid[order], "y_true": data.y_true[order],
                         "y_score": data.y_score[order]})


def check(got, want, label: str) -> None:
    for m in METRICS:
        assert np.array_equal(got.qids, want.qids), label
        assert got[m].per_query.tobytes() == want[m].per_query.tobytes(), (label, m)
        assert got[m].value == want[m].value, (label, m)


def row(label: str, n: int, wall: float, cpu: float, base: tuple[float, float] | None,
        note: str = ""):
    ratio = "" if base is None else f"{wall / base[0]:6.2f}x {cpu / base[1]:6.2f}x"
    print(f"{label:<36} {n:>11,} {wall:8.2f} {cpu:8.2f} {ratio:>15} "
          f"{1e9 * wall / n:9.0f} {1e9 * cpu / n:9.0f}{note}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default="1000000,10000000")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--partitions", type=int, default=16)
    ap.add_argument("--spark-partitions", type=int, default=os.cpu_count(),
                    help="shuffle partitions of skrank.spark.evaluate (default: the cores)")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--dask-partitions", type=int, default=None,
                    help="output partitions of skrank.dask.evaluate's shuffle (default: its "
                         "own, one per worker thread up to 2**20 rows a partition)")
    ap.add_argument("--median", action="store_true",
                    help="Dask's lines also give the median run and the range of the runs")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--idle", type=float, default=0.0,
                    help="seconds of sleep before each timed call (default 0: back to back)")
    ap.add_argument("--worker-trim", choices=("default", "glibc"), default="default",
                    help="the Dask workers' MALLOC_TRIM_THRESHOLD_: distributed's (default) or "
                         "none set, glibc's own trimming (glibc)")
    ap.add_argument("--spark-hugepage", choices=("on", "off"), default="on",
                    help="NumPy's huge pages in Spark's Python workers: its own choice (on) or "
                         "NUMPY_MADVISE_HUGEPAGE=0 (off)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.rows.split(",")]
    print(f"cores: {os.cpu_count()}; metrics {', '.join(METRICS)}; input partitions "
          f"{args.partitions}; best of {args.repeat}"
          + (f"; {args.idle:g} s idle before each call" if args.idle else "")
          + ("; Dask workers without MALLOC_TRIM_THRESHOLD_" if args.worker_trim == "glibc"
             else "")
          + ("; Spark's Python workers with NUMPY_MADVISE_HUGEPAGE=0"
             if args.spark_hugepage == "off" and not args.no_spark else ""))
    print(f"{'':<36} {'rows':>11} {'wall s':>8} {'cpu s':>8} {'wall/cpu ratio':>15} "
          f"{'ns/row':>9} {'cpu ns/row':>9}")

    client = spark = None
    if not args.no_dask:
        import dask
        from distributed import Client, LocalCluster

        environ = {}
        if args.worker_trim == "glibc":  # None unsets a variable of distributed's config
            environ["distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"] = None
            os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)  # as inherited from a shell
        with dask.config.set(environ):
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   dashboard_address=None, memory_limit="6GiB")
        client = Client(cluster)
        trim = set(client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values())
        print(f"Dask workers' MALLOC_TRIM_THRESHOLD_: {', '.join(map(str, sorted(trim, key=str)))}")
    if not args.no_spark:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        from pyspark.sql import SparkSession

        builder = SparkSession.builder
        if args.spark_hugepage == "off":
            builder = builder.config("spark.executorEnv.NUMPY_MADVISE_HUGEPAGE", "0")
        spark = (builder.master("local[2]")
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.driver.memory", "6g")
                 .config("spark.sql.shuffle.partitions", str(args.partitions))
                 .config("spark.default.parallelism", str(args.partitions))
                 .config("spark.sql.execution.arrow.pyspark.enabled", "true")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        seen = spark.sparkContext.parallelize([0], 1).map(
            lambda _: os.environ.get("NUMPY_MADVISE_HUGEPAGE")).collect()
        print(f"Spark's Python workers' NUMPY_MADVISE_HUGEPAGE: {seen[0]}")

    for n in sizes:
        run_size(n, args, client, spark)


def dask_shuffle_alone(ddf, layout, npartitions: int | None) -> list[int]:
    """What ``skrank.dask.evaluate`` shuffles, shuffled as it does, and nothing else: the
    rows packed by ``layout`` (the one evaluate takes, planned beforehand), on the query id,
    into ``npartitions`` (None: evaluate's default); the partitions' lengths come back."""
    from skrank.dask._evaluate import _shuffled

    return _shuffled(ddf, layout, npartitions).map_partitions(len).compute().tolist()


def run_size(n: int, args, client, spark) -> None:
    """Time the three calls on ``n`` rows and print their lines."""
    frame = frame_of(n)
    y, s, q = (frame[c].to_numpy() for c in ("y_true", "y_score", "qid"))
    base_runs: list = []
    # at least 5 runs: a call takes 0.4 s, and this machine's first touch of fresh memory
    # costs from 0.04 to 1.8 s per 600 MB, from one call to the next
    wall, cpu, want = timed(lambda: skrank.evaluate(y, s, q, metrics=METRICS),
                            max(5, args.repeat), base_runs, args.idle)
    base = (wall, cpu)
    row("skrank.evaluate (1 process)", n, wall, cpu, None,
        spread(base_runs, base, base_runs) if args.median and client is not None else "")
    if client is not None:
        import dask.dataframe as dd
        from distributed import wait

        from skrank.dask._layout import plan_layout

        ddf = client.persist(dd.from_pandas(frame, npartitions=args.partitions, sort=False))
        wait(ddf)
        names = {"qid": "qid", "y_true": "y_true", "y_score": "y_score", "doc_id": None,
                 "sample_weight": None, "retrieved": None}
        layout = plan_layout(ddf, names)
        for label, call in [
                ("skrank.dask, LocalCluster(2)",
                 lambda: skrank.dask.evaluate(ddf, metrics=METRICS,
                                              npartitions=args.dask_partitions)),
                ("  its layout reduction", lambda: plan_layout(ddf, names)),
                ("  its shuffle alone (the floor)",
                 lambda: dask_shuffle_alone(ddf, layout, args.dask_partitions))]:
            runs: list = []
            wall, cpu, got = timed(call, args.repeat, runs, args.idle)
            if label.startswith("skrank"):
                check(got, want, "dask")
            row(label, n, wall, cpu, base,
                spread(runs, base, base_runs) if args.median else "")
        client.cancel(ddf)
    if spark is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # pyspark cuts a pandas frame into one partition per Arrow batch (1,000 at 10M
            # rows); coalesce joins neighbours, keeping the rows' order, into --partitions
            sdf = spark.createDataFrame(frame).coalesce(args.partitions).cache()
        sdf.count()
        assert sdf.rdd.getNumPartitions() == args.partitions
        parts = args.spark_partitions
        # untimed: the JVM compiles its code over the first few runs (measured: the first
        # two cost up to twice the later ones), which would count against the first lines
        for _ in range(2):
            skrank.spark.evaluate(sdf, metrics=METRICS, num_partitions=parts)
            spark_shuffle_alone(sdf, parts, "transfer")
        # the cached rows are read in the order of the pandas frame: the same result
        for label, kw in [(f"skrank.spark, local[2], {parts} parts", {}),
                          ("  its shuffle alone (the floor)", None),
                          ("  the shuffle and transfer to Python", "transfer"),
                          ("  sort='spark'", {"sort": "spark"}),
                          (f"  {args.partitions} partitions (the session's)",
                           {"num_partitions": None})]:
            py0 = spark_python_seconds()
            if isinstance(kw, dict):
                call = {"num_partitions": parts, **kw}
                wall, cpu, got = timed(
                    lambda call=call: skrank.spark.evaluate(sdf, metrics=METRICS, **call),
                    args.repeat, idle=args.idle)
                check(got, want, "spark")
            else:
                wall, cpu, _ = timed(lambda kw=kw: spark_shuffle_alone(sdf, parts, kw),
                                     args.repeat, idle=args.idle)
            py = (spark_python_seconds() - py0) / args.repeat
            row(label, n, wall, cpu, base, f"  (Python tasks {py:.2f} cpu s a run)")
        sdf.unpersist()


def _read_batches(batches):
    """Read every Arrow batch, return none (``mapInArrow``)."""
    for _ in batches:
        pass
    return iter(())


def spark_shuffle_alone(sdf, partitions: int, then: str | None) -> None:
    """What ``skrank.spark.evaluate`` shuffles, shuffled as it does, written to Spark's
    ``noop`` sink; with ``then="transfer"``, read by Python tasks as Arrow batches instead
    (``mapInArrow`` over them, nothing returned)."""
    from skrank.spark._evaluate import _packed, _shuffled

    names = {"qid": "qid", "y_true": "y_true", "y_score": "y_score"}
    rows = _shuffled(sdf, names, partitions, _packed(sdf, names))
    if then == "transfer":
        rows.mapInArrow(_read_batches, "x long").collect()
    else:
        rows.write.format("noop").mode("overwrite").save()

if __name__ == "__main__":
    main()
