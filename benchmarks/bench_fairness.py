"""Expected exposure: skrank.fairness against expeval (the TREC Fair Ranking program), same run.

Random data shaped like a TREC Fair Ranking run: ``--queries`` queries, each with
``--docs`` candidate documents (graded 0-3, about half judged relevant, in 1-3 of 5 groups)
and ``--samples`` sampled rankings of all of them. Both read the same two files from a
scratch directory and compute the same per-query values (checked equal to 1e-9 before
timing); ``-u gerr``, with and without ``-G``. expeval is a script, not a package: pass a
checkout of https://github.com/diazf/expeval. Prints the median wall and CPU seconds of each
and the ratios expeval / skrank of each, for the whole job (reading the files included) and for
skrank's computation alone from arrays.

    .venv/bin/python benchmarks/bench_fairness.py --expeval /path/to/expeval \\
        [--queries 50] [--docs 200] [--samples 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def _timed(fn, repeats: int) -> tuple[float, float, object]:
    wall, cpu, out = [], [], None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu), out


def _write(tmp: Path, queries: int, docs: int, samples: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    qrels, run = [], []
    for q in range(queries):
        grades = rng.integers(0, 4, size=docs)
        for i, g in enumerate(grades):
            gids = "|".join(map(str, sorted(set(rng.integers(0, 5, size=rng.integers(1, 4))))))
            qrels.append(f"q{q}\t{gids}\tq{q}d{i}\t{g}")
        ranks = np.argsort(rng.random((samples, docs)), axis=1)
        for s in range(samples):
            run.extend(f"q{q} S{s} q{q}d{i} {r} 0 bench" for r, i in
                       enumerate(ranks[s], start=1))
    (tmp / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp / "run").write_text("\n".join(run) + "\n")
    return tmp / "qrels", tmp / "run"


def _expeval(checkout: Path, args: list[str]) -> np.ndarray:
    sys.path.insert(0, str(checkout))
    import expeval as program
    import metrics

    metrics.Metric.string = lambda self, normalized=False: repr(self.float(normalized))
    out = io.StringIO()
    sys.argv = ["expeval.py", *args]
    with contextlib.redirect_stdout(out):
        program.main()
    sys.path.remove(str(checkout))
    rows = {}
    for line in out.getvalue().splitlines():
        name, qid, value = line.split("\t")
        rows.setdefault(qid, {})[name] = float(value)
    return np.array([[rows[q][n] for n in ("disparity", "relevance", "difference")]
                     for q in sorted(rows)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expeval", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    from skrank.fairness import expected_exposure, read_expeval_qrels, read_expeval_run

    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = _write(Path(tmp), args.queries, args.docs, args.samples)
        n_rows = args.queries * args.docs * args.samples
        print(f"{args.queries} queries x {args.samples} rankings x {args.docs} documents = "
              f"{n_rows:,} run rows; median of {args.repeats}; numpy {np.__version__}")
        print(f"{'job':<28} {'expeval s':>10} {'(cpu)':>7} {'skrank s':>9} {'(cpu)':>7} "
              f"{'ratio':>7} {'(cpu)':>7}  max |diff|")
        cached = (read_expeval_qrels(qrels_path), read_expeval_run(run_path))
        for group in (False, True):
            flags = ["-G"] if group else []

            def ours(read=True, group=group):
                qrels = read_expeval_qrels(qrels_path) if read else cached[0]
                run = read_expeval_run(run_path) if read else cached[1]
                res = expected_exposure(qrels.y_true, qrels.qid, qrels.doc, run.qid,
                                        run.sample, run.doc, rank=run.rank,
                                        groups=qrels.groups if group else None,
                                        preset="expeval")
                return np.column_stack([s.per_query for s in res])

            w_ref, c_ref, want = _timed(
                lambda flags=flags: _expeval(args.expeval, [*flags, str(qrels_path),
                                                            str(run_path)]), args.repeats)
            w_all, c_all, got = _timed(ours, args.repeats)
            w_cmp, c_cmp, _ = _timed(lambda: ours(read=False), args.repeats)
            diff = float(np.max(np.abs(np.asarray(want) - np.asarray(got))))
            assert diff < 1e-9, diff
            name = "gerr" + (" -G" if group else "")
            print(f"{name + ', files':<28} {w_ref:>10.3f} {c_ref:>7.3f} {w_all:>9.3f} "
                  f"{c_all:>7.3f} {w_ref / w_all:>6.1f}x {c_ref / c_all:>6.1f}x  {diff:.1e}")
            print(f"{name + ', arrays (compute only)':<28} {'':>10} {'':>7} {w_cmp:>9.3f} "
                  f"{c_cmp:>7.3f} {w_ref / w_cmp:>6.1f}x {c_ref / c_cmp:>6.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
