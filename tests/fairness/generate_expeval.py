"""Generate expeval's outputs on random qrels and runs, for tests/fairness/test_expeval.py.

expeval (https://github.com/diazf/expeval) is the TREC Fair Ranking track's program for
expected exposure (Diaz et al., CIKM 2020). It is a script, not a package, so its outputs are
generated once here and committed with the commit they came from. Run from the repository
root, with a checkout of expeval (plain Python 3, no dependency)::

    python tests/fairness/generate_expeval.py /path/to/expeval [commit]

It writes ``tests/fairness/data/expeval/case*.qrels`` and ``case*.run`` (random data in
expeval's formats: several queries, grades 0-3 with ties, documents in one or several groups,
several sampled rankings per query of varying length, judged queries the run leaves out,
run queries without judgments) and ``outputs.json``: for each case and each combination of
expeval's options (``-u gerr|rbp``, ``-p``, ``-r``, ``-B``, ``-G``, ``-C``, ``-U``), the
per-query values it prints. The values are printed with ``repr`` instead of expeval's
``%f`` (its ``Metric.string`` is replaced before ``main()`` runs; nothing else changes), so
that the test can compare to 1e-12 rather than to 6 decimals.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "data" / "expeval"

# patience and utility of each case (cycled), so that every option meets several values
PARAMS = [(0.5, 0.5), (0.8, 0.3), (0.3, 0.9), (0.95, 0.5), (0.6, 1.0), (0.7, 0.0)]


def _case(rng: np.random.Generator, case: int) -> tuple[str, str]:
    qrels, run = [], []
    n_queries = int(rng.integers(3, 7))
    for qi in range(n_queries):
        qid = f"q{case}{qi}"
        n_docs = int(rng.integers(3, 12))
        docs = [f"{qid}d{i}" for i in range(n_docs)]
        judged = rng.random(n_docs) < 0.8
        n_groups = int(rng.integers(1, 4))
        grades = rng.integers(0, 4, size=n_docs)
        if qi == 0:
            grades[:] = rng.integers(0, 2, size=n_docs)  # binary grades: one level
        for d, j, g in zip(docs, judged, grades):
            if not j:
                continue
            k = 1 + int(rng.random() < 0.3)
            gids = sorted(set(int(x) for x in rng.integers(0, n_groups, size=k)))
            qrels.append(f"{qid}\t{'|'.join(map(str, gids))}\t{d}\t{g}")
        if qi == n_queries - 1 and case % 2 == 0:
            continue  # a judged query the run leaves out
        n_samples = int(rng.integers(1, 6))
        for s in range(n_samples):
            perm = rng.permutation(n_docs)
            length = n_docs if rng.random() < 0.5 else int(rng.integers(1, n_docs + 1))
            for rank, i in enumerate(perm[:length], start=1):
                run.append(f"{qid} S{s} {docs[i]} {rank} {1.0 / rank:.4f} run{case}")
    # queries of the run without judgments, sorting before and after the judged ones
    run.insert(0, f"a{case} S0 q{case}0d0 1 1.0 run{case}")
    run.append(f"x{case} S0 xd 1 1.0 run{case}")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def _expeval(expeval: Path, args: list[str]) -> dict[str, list[float]]:
    sys.path.insert(0, str(expeval))
    try:
        import expeval as program
        import metrics

        metrics.Metric.string = lambda self, normalized=False: repr(self.float(normalized))
        out = io.StringIO()
        sys.argv = ["expeval.py", *args]
        with contextlib.redirect_stdout(out):
            program.main()
    finally:
        sys.path.remove(str(expeval))
    values: dict[str, list[float]] = {}
    names = {"disparity": 0, "relevance": 1, "difference": 2}
    for line in out.getvalue().splitlines():
        name, qid, value = line.split("\t")
        values.setdefault(qid, [0.0, 0.0, 0.0])[names[name]] = float(value)
    return values


def main() -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":
        # expeval sums over sets of string ids: fix their order, so that a rerun gives the
        # same last bits
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  {**os.environ, "PYTHONHASHSEED": "0"})
    expeval = Path(sys.argv[1]).resolve()
    commit = sys.argv[2] if len(sys.argv) > 2 else subprocess.run(
        ["git", "-C", str(expeval), "rev-parse", "HEAD"], capture_output=True, text=True,
        check=True).stdout.strip()
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20201019)
    results = []
    for case, (p, u) in enumerate(PARAMS):
        qrels, run = _case(rng, case)
        (OUT / f"case{case}.qrels").write_text(qrels)
        (OUT / f"case{case}.run").write_text(run)
        for model, flags in itertools.product(
                ("gerr", "rbp"), itertools.product((False, True), repeat=4)):
            b, g, c, unnorm = flags
            args = ["-u", model, "-p", str(p), "-r", str(u)]
            args += [f for f, on in zip(("-B", "-G", "-C", "-U"), flags) if on]
            args += [str(OUT / f"case{case}.qrels"), str(OUT / f"case{case}.run")]
            results.append({
                "case": case, "model": model, "patience": p, "utility": u, "binary": b,
                "groups": g, "complete": c, "unnormalized": unnorm,
                "values": _expeval(expeval, args),
            })
    doc = {
        "generator": "tests/fairness/generate_expeval.py",
        "expeval": f"https://github.com/diazf/expeval commit {commit}",
        "python": sys.version.split()[0],
        "values": "qid -> [disparity, relevance, difference] as expeval prints them",
    }
    head = json.dumps(doc, indent=1)[:-2]  # one run a line
    body = ",\n".join("  " + json.dumps(r) for r in results)
    (OUT / "outputs.json").write_text(f"{head},\n \"runs\": [\n{body}\n ]\n}}\n")
    print(f"{len(results)} expeval runs on {len(PARAMS)} cases written to {OUT}")


if __name__ == "__main__":
    main()
