"""Run files at disk speed: ``skrank eval`` against pytrec_eval and ranx on TREC runs (issue 12).

Generates TREC runs of 2M and 7M lines (2,000 and 7,000 topics x 1,000 documents, scores
with one decimal so that most topics hold ties, or ``--decimals 4``: a few tied pairs a topic,
as in most real runs; document ids that repeat across topics) and
their qrels (200 judgements per topic: 150 retrieved documents and 50 the run missed, labels
0..3), then evaluates NDCG@10, AP and RR with trec_eval's conventions by three tools, each in
a fresh process under ``/usr/bin/time -v``, reporting wall time, CPU time (user + system, all
threads) and peak RSS:

* ``skrank eval --preset trec_eval -m ndcg_cut_10 -m map -m recip_rank QRELS RUN``;
* pytrec_eval: the files parsed into its ``{qid: {docid: value}}`` dicts by a plain loop,
  then ``RelevanceEvaluator(...).evaluate(run)``;
* ranx: ``Qrels.from_file`` + ``Run.from_file`` (kind ``trec``) + ``evaluate`` (numba
  compiles on the first call in a fresh process; that time counts, as a user pays it).
  ranx is skipped at 7M lines when it took over ``--ranx-limit`` seconds at 2M lines scaled
  by 3.5.

More rows put skrank's figures in context: the floors, pyarrow's ``read_csv`` of the run's
three used columns alone in a fresh process (no tool reading the file with pyarrow can be
faster), the start of Python with numpy and that of ``skrank eval --help`` (no run can be
evaluated faster), and with ``--interleaved`` the same run with its topics dealt out
round-robin in blocks of 100 lines, which skrank reads whole. skrank's bytecode is compiled
first, as a wheel's is when installed. The ratios compare each peer with skrank
(above 1: skrank is faster) and skrank with the floor, within the same run: on a shared
machine only figures of one run compare.

``--memory`` adds the bounded-memory check: a topic-contiguous run of about ``--big-gb`` GB
(default 1.5) evaluated by ``skrank eval`` (read in batches of whole topics), and the same
run interleaved, which must be read whole. Files go to ``--dir`` (default: a temporary
directory, removed at the end). ``--skrank`` replaces the command that runs skrank (default:
this Python with ``-m skrank.cli``), to time another build.

``--repeat N`` runs skrank and the floors N times each (the run of median wall time is
shown, with the range of all runs; the peers run once).

    .venv/bin/python benchmarks/bench_runfiles.py [--sizes 2,7] [--interleaved] [--memory]
        [--dir DIR] [--skrank "python other/launcher.py"] [--repeat N] [--decimals 4]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DOCS_PER_TOPIC = 1000

PYTREC = r"""
import sys, time, json
import pytrec_eval
t0 = time.perf_counter()
qrels = {}
with open(sys.argv[1]) as fh:
    for line in fh:
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
run = {}
with open(sys.argv[2]) as fh:
    for line in fh:
        q, _, d, _, s, _ = line.split()[:6]
        run.setdefault(q, {})[d] = float(s)
t1 = time.perf_counter()
ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank"})
res = ev.evaluate(run)
t2 = time.perf_counter()
n = len(res)
print(json.dumps({"parse_s": t1 - t0, "eval_s": t2 - t1,
                  "ndcg_cut_10": sum(v["ndcg_cut_10"] for v in res.values()) / n,
                  "map": sum(v["map"] for v in res.values()) / n,
                  "recip_rank": sum(v["recip_rank"] for v in res.values()) / n}))
"""

RANX = r"""
import sys, time, json
from ranx import Qrels, Run, evaluate
t0 = time.perf_counter()
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
t1 = time.perf_counter()
res = evaluate(qrels, run, ["ndcg@10", "map", "mrr"])
t2 = time.perf_counter()
print(json.dumps({"parse_s": t1 - t0, "eval_s": t2 - t1, **{k: float(v) for k, v in res.items()}}))
"""


FLOOR = r"""
import sys, time, json
import pyarrow as pa, pyarrow.csv as csv
t0 = time.perf_counter()
names = ["qid", "q0", "doc", "rank", "score", "tag"]
types = {"qid": pa.string(), "doc": pa.string(), "score": pa.float64()}
table = csv.read_csv(sys.argv[1], read_options=csv.ReadOptions(column_names=names),
                     parse_options=csv.ParseOptions(delimiter=" ", quote_char=False),
                     convert_options=csv.ConvertOptions(column_types=types,
                                                        include_columns=list(types)))
print(json.dumps({"rows": table.num_rows, "read_s": time.perf_counter() - t0}))
"""


def write_files(folder: Path, n_topics: int, *, seed: int = 12, interleave: bool = False,
                tag: str = "", decimals: int = 1) -> tuple[Path, Path]:
    """Write ``run`` and ``qrels`` files for ``n_topics`` x 1,000 documents, the scores
    rounded to ``decimals`` (1: ties in most topics; 4: a few tied pairs a topic)."""
    import pyarrow as pa
    import pyarrow.csv as csv

    rng = np.random.default_rng(seed)
    run_path = folder / f"run{tag}_{n_topics}.txt"
    qrels_path = folder / f"qrels_{n_topics}.txt"
    options = csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    step = 500  # topics per write
    with open(run_path, "wb") as out:
        rows = []
        for t0 in range(0, n_topics, step):
            t = np.arange(t0, min(t0 + step, n_topics))
            k = DOCS_PER_TOPIC
            doc = rng.integers(0, 20_000, size=(t.size, k)) * k + np.arange(k)
            score = np.round(rng.normal(size=(t.size, k)) * 3, decimals)
            order = np.argsort(-score, axis=1, kind="stable")
            doc = np.take_along_axis(doc, order, axis=1)
            score = np.take_along_axis(score, order, axis=1)
            table = pa.table({
                "qid": pa.array(np.repeat(t + 1001, k).astype(str)),
                "q0": pa.array(np.full(t.size * k, "Q0")),
                "doc": pa.array(np.char.add("D", doc.ravel().astype(str))),
                "rank": pa.array(np.tile(np.arange(1, k + 1), t.size)),
                "score": pa.array(score.ravel()),
                "tag": pa.array(np.full(t.size * k, "bench")),
            })
            if interleave:
                rows.append(table)
            else:
                csv.write_csv(table, out, options)
        if interleave:  # topics dealt out round-robin, 100 lines at a time
            table = pa.concat_tables(rows)
            n = table.num_rows
            block = np.arange(n) // 100
            topic = block // (DOCS_PER_TOPIC // 100)
            within = block % (DOCS_PER_TOPIC // 100)
            order = np.lexsort((np.arange(n), topic, within))
            csv.write_csv(table.take(pa.array(order)), out, options)
    if not qrels_path.exists():
        write_qrels(qrels_path, n_topics, seed)
    return qrels_path, run_path


def write_qrels(path: Path, n_topics: int, seed: int) -> None:
    """The qrels of the run of ``write_files``: for each topic 150 of its retrieved documents
    (those drawn first) and 50 it missed, labels 0..3."""
    import pyarrow as pa
    import pyarrow.csv as csv

    docs = np.random.default_rng(seed)  # the same documents as the run
    labels = np.random.default_rng([seed, 1])  # apart: ``docs`` must stay in step
    options = csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    step = 500
    with open(path, "wb") as out:
        for t0 in range(0, n_topics, step):
            t = np.arange(t0, min(t0 + step, n_topics))
            k = DOCS_PER_TOPIC
            doc = docs.integers(0, 20_000, size=(t.size, k)) * k + np.arange(k)
            docs.normal(size=(t.size, k))  # the scores, to stay in step with the run
            judged = np.concatenate([doc[:, :150], doc[:, :50] + 20_000 * k], axis=1)
            label = labels.choice(4, size=judged.shape, p=[0.6, 0.2, 0.12, 0.08])
            table = pa.table({
                "qid": pa.array(np.repeat(t + 1001, judged.shape[1]).astype(str)),
                "iter": pa.array(np.zeros(judged.size, dtype=np.int64)),
                "doc": pa.array(np.char.add("D", judged.ravel().astype(str))),
                "rel": pa.array(label.ravel()),
            })
            csv.write_csv(table, out, options)


def measure(cmd: list[str], timeout: float | None = None) -> dict:
    """Wall time, peak RSS and output of ``cmd`` in a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"timeout": timeout}
    wall = time.perf_counter() - t0
    # the child has been reaped by communicate(); its rusage is in RUSAGE_CHILDREN only as
    # a maximum over all children, so each tool runs under /usr/bin/time -v instead
    return {"wall_s": wall, "stdout": out, "stderr": err, "rc": proc.returncode}


def timed(cmd: list[str], timeout: float | None = None) -> dict:
    """``measure`` under ``/usr/bin/time -v``: peak RSS and CPU time of the tool's process."""
    if shutil.which("/usr/bin/time"):
        res = measure(["/usr/bin/time", "-v", *cmd], timeout)
        for line in res.get("stderr", "").splitlines():
            key, _, value = line.strip().rpartition(": ")
            if key == "Maximum resident set size (kbytes)":
                res["rss_mb"] = int(value) / 1024
            elif key in ("User time (seconds)", "System time (seconds)"):
                res["cpu_s"] = res.get("cpu_s", 0.0) + float(value)
        return res
    return measure(cmd, timeout)


SKRANK = [PYTHON, "-m", "skrank.cli"]


def skrank_cmd(qrels: Path, run: Path) -> list[str]:
    return [*SKRANK, "eval", "--preset", "trec_eval", "-m", "ndcg_cut_10", "-m", "map", "-m",
            "recip_rank", "--format", "trec", str(qrels), str(run)]


def timed_median(cmd: list[str], repeat: int) -> dict:
    """``timed`` ``repeat`` times: the run of median wall time, with the smallest and largest
    wall and CPU times of all runs (``wall_range``, ``cpu_range``)."""
    runs = [timed(cmd) for _ in range(max(repeat, 1))]
    good = [r for r in runs if "wall_s" in r and not r.get("rc")]
    if len(good) < len(runs):
        return next(r for r in runs if r not in good)
    good.sort(key=lambda r: r["wall_s"])
    res = dict(good[len(good) // 2])
    if len(good) > 1:
        res["wall_range"] = (good[0]["wall_s"], good[-1]["wall_s"])
        cpus = sorted(r.get("cpu_s", float("nan")) for r in good)
        res["cpu_range"] = (cpus[0], cpus[-1])
    return res


def row(tool: str, res: dict, size_mb: float, ref: dict | None = None,
        versus: str = "peer") -> str:
    """A table row; ``ref`` is skrank's result: the ratio is peer / skrank, or for the floor
    (``versus="floor"``) skrank / floor."""
    if "timeout" in res:
        return f"| {tool} | skipped (over {res['timeout']:.0f} s) | | | | | |"
    if res.get("rc"):
        return f"| {tool} | failed: {res['stderr'].strip().splitlines()[-1][:80]} | | | | | |"
    rss = res.get("rss_mb", float("nan"))
    cpu = res.get("cpu_s", float("nan"))
    ratios = ["", ""]
    if ref is not None and "wall_s" in ref:
        pairs = ((ref["wall_s"], res["wall_s"]), (ref.get("cpu_s", float("nan")), cpu))
        ratios = [f"{(b / a if versus == 'peer' else a / b):.1f}x" for a, b in pairs]
    spread = ""
    if "wall_range" in res:
        spread = (f" ({res['wall_range'][0]:.2f}-{res['wall_range'][1]:.2f} s wall, "
                  f"{res['cpu_range'][0]:.2f}-{res['cpu_range'][1]:.2f} s CPU)")
    return (f"| {tool}{spread} | {res['wall_s']:.2f} s | {cpu:.2f} s | {rss:,.0f} MB | "
            f"{rss / size_mb:.1f}x | {ratios[0]} | {ratios[1]} |")


HEADER = ("| tool | wall | CPU | peak RSS | RSS / run size | wall ratio | CPU ratio |\n"
          "|---|---|---|---|---|---|---|")


def main() -> None:
    global SKRANK
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2,7", help="millions of lines (2 and/or 7)")
    parser.add_argument("--dir", help="where to write the files (kept)")
    parser.add_argument("--ranx-limit", type=float, default=300.0)
    parser.add_argument("--no-ranx", action="store_true")
    parser.add_argument("--no-pytrec", action="store_true")
    parser.add_argument("--interleaved", action="store_true",
                        help="also the run with its topics dealt out (read whole)")
    parser.add_argument("--memory", action="store_true", help="the bounded-memory check")
    parser.add_argument("--big-gb", type=float, default=1.5)
    parser.add_argument("--skrank", help="command that runs skrank (default: python -m "
                                         "skrank.cli)")
    parser.add_argument("--decimals", type=int, default=1,
                        help="decimals of the scores: 1 (default) puts ties in most topics, "
                             "4 leaves a few tied pairs a topic, as in most real runs")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of skrank and of the floors (the median is shown, with the "
                             "range); the peers run once")
    args = parser.parse_args()
    if args.skrank:
        SKRANK = args.skrank.split()
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="skrank_runs_"))
    folder.mkdir(parents=True, exist_ok=True)
    ranx_2m = None
    subprocess.run([*SKRANK, "--version"], check=True)  # an editable build rebuilds
    if not args.skrank:
        # the bytecode an installed wheel has (pip compiles it; peers' was): an environment
        # with PYTHONDONTWRITEBYTECODE would compile skrank's sources on every run
        subprocess.run([PYTHON, "-c", "import compileall, os, skrank; compileall.compile_dir("
                        "os.path.dirname(skrank.__file__), quiet=1)"], check=True)
    try:
        for millions in [int(x) for x in args.sizes.split(",")]:
            n_topics = millions * 1000
            qrels, run = write_files(folder, n_topics, decimals=args.decimals,
                                     tag="" if args.decimals == 1 else f"_d{args.decimals}")
            size_mb = run.stat().st_size / 2**20
            print(f"\n{millions}M lines: {run} ({size_mb:.0f} MB), {qrels} "
                  f"({qrels.stat().st_size / 2**20:.0f} MB)", flush=True)
            print(HEADER)
            sk = timed_median(skrank_cmd(qrels, run), args.repeat)
            print(row("`skrank eval --preset trec_eval`", sk, size_mb), flush=True)
            floor = timed_median([PYTHON, "-c", FLOOR, str(run)], args.repeat)
            print(row("floor: pyarrow `read_csv` of the 3 used columns (ratio: skrank / floor)",
                      floor, size_mb, sk, versus="floor"), flush=True)
            for what, cmd in (("Python and numpy", [PYTHON, "-c", "import numpy"]),
                              ("`skrank eval --help`", [*SKRANK, "eval", "--help"])):
                start = timed_median(cmd, args.repeat)
                print(row(f"floor: the start of {what} (ratio: skrank / floor)", start,
                          size_mb, sk, versus="floor"), flush=True)
            pt = rx = None
            if not args.no_pytrec:
                pt = timed([PYTHON, "-c", PYTREC, str(qrels), str(run)])
                print(row("pytrec_eval (parsing into dicts included)", pt, size_mb, sk),
                      flush=True)
            if not args.no_ranx:
                if ranx_2m is not None and ranx_2m * millions / 2 > args.ranx_limit:
                    rx = {"timeout": ranx_2m * millions / 2}
                else:
                    rx = timed([PYTHON, "-c", RANX, str(qrels), str(run)])
                    if millions == 2 and "wall_s" in rx:
                        ranx_2m = rx["wall_s"]
                print(row("ranx `from_file` + `evaluate`", rx, size_mb, sk), flush=True)
            if args.interleaved:
                run.unlink()
                _, run = write_files(folder, n_topics, interleave=True, tag="_interleaved",
                                     decimals=args.decimals)
                il = timed_median(skrank_cmd(qrels, run), args.repeat)
                print(row("`skrank eval`, the run interleaved (read whole)", il, size_mb, sk),
                      flush=True)
            print("values:")
            print("  skrank:", " ".join(line.split("\t")[0].strip() + "=" +
                                          line.split("\t")[2] for line in
                                          sk.get("stdout", "").splitlines()[1:]))
            for name, res in (("floor", floor), ("pytrec_eval", pt), ("ranx", rx)):
                if res and res.get("stdout"):
                    print(f"  {name}:", res["stdout"].strip())
            run.unlink()
        if args.memory:
            n_topics = int(args.big_gb * 1e9 / 27.5 / DOCS_PER_TOPIC)
            for interleave in (False, True):
                qrels, run = write_files(folder, n_topics, seed=5, interleave=interleave,
                                         tag="_interleaved" if interleave else "")
                size_mb = run.stat().st_size / 2**20
                res = timed([*skrank_cmd(qrels, run), "--progress", "never"])
                how = "interleaved (read whole)" if interleave else "topic-contiguous (batches)"
                print(f"\n{how}: {run.stat().st_size / 1e9:.2f} GB, {n_topics:,} topics")
                print(HEADER)
                print(row(f"`skrank eval`, {how}", res, size_mb), flush=True)
                if res.get("rc"):
                    print(res.get("stderr"))
                run.unlink()
    finally:
        if not args.dir:
            shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps({"python": sys.version.split()[0], "cpus": os.cpu_count(),
                      "load": os.getloadavg()}))


if __name__ == "__main__":
    main()
