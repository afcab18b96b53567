"""Top-k lists and beyond-accuracy metrics: skrank.recsys against Microsoft Recommenders and
RecTools, in one run.

The data: ``--users`` x ``--items`` sparse score matrix (``--nnz`` candidate scores per user,
items drawn with popularity ~ 1/rank^0.8), ``--train`` training interactions per user (seen
items, excluded from the lists), one held-out item per user, three categorical features and
a 4-dimensional vector per item. skrank takes the top ``--k`` of every user with the seen items
excluded, then every beyond-accuracy metric, the co-occurrence ones (Recommenders' diversity
and serendipity) included; ``--cooc-users N`` runs those two on the first N users only.

The libraries need pandas < 3 / numpy < 2, so they run in another environment
(``--ref-python``, see tests/recsys/generate_references.py) on the first ``--peer-users`` users,
timed inside that process (data loading and imports excluded); skrank does the same work on
the same users in this process, and the values are checked equal. The work: top-k with the
seen items excluded (Recommenders' ``get_top_k_items`` after an anti-join, as its notebooks
do), then each metric by the fastest library that defines it.

    .venv/bin/python benchmarks/bench_recsys.py [--users 100000] [--peer-users 2000]
        [--ref-python /tmp/recsys/refvenv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def make_data(users: int, items: int, nnz: int, train: int, seed: int = 20261201) -> dict:
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, items + 1) ** 0.8
    p /= p.sum()
    cand = rng.choice(items, size=(users, nnz), p=p)
    s = sp.csr_matrix((rng.random(users * nnz),
                       (np.repeat(np.arange(users), nnz), cand.ravel())), shape=(users, items))
    s.sum_duplicates()
    tr = rng.choice(items, size=(users, train), p=p)
    tu = np.repeat(np.arange(users), train)
    key = np.unique(tu * items + tr.ravel())  # distinct training pairs
    return {
        "scores": s,
        "train": (key // items, key % items),
        "test": (np.arange(users), rng.choice(items, size=users, p=p)),
        "features": rng.integers(0, 4, (items, 3)),
        "vectors": rng.random((items, 4)) + 0.1,
        "catalog": np.arange(items),
    }


def subset(data: dict, n: int) -> dict:
    import scipy.sparse as sp

    keep_t = data["train"][0] < n
    keep_e = data["test"][0] < n
    return {**data, "scores": sp.csr_matrix(data["scores"][:n]),
            "train": (data["train"][0][keep_t], data["train"][1][keep_t]),
            "test": (data["test"][0][keep_e], data["test"][1][keep_e])}


def _clock(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def skrank_work(data: dict, k: int, cooc: bool, rectools_metrics: bool = True) -> dict:
    """Every step, its value, wall and CPU seconds."""
    import skrank.recsys as rs

    out = {}
    top, w, c = _clock(lambda: rs.top_k(data["scores"], k, exclude=data["train"]))
    out["top-k"] = (None, w, c)
    train, test, cat = data["train"], data["test"], data["catalog"]
    feats = (cat, data["features"])
    steps = {
        "catalog coverage (recommenders)": lambda: rs.catalog_coverage(top, train,
                                                                       preset="recommenders"),
        "catalog coverage (rectools)": lambda: rs.catalog_coverage(top, catalog=cat,
                                                                   preset="rectools"),
        "distributional coverage": lambda: rs.distributional_coverage(top),
        "gini index": lambda: rs.gini_index(top, catalog=cat),
        "average popularity (rectools)": lambda: rs.average_popularity(top, train,
                                                                       preset="rectools"),
        "novelty (recommenders)": lambda: rs.novelty(top, train, preset="recommenders"),
        "novelty MIUF (rectools)": lambda: rs.novelty(top, train, preset="rectools"),
        "ILD hamming (rectools)": lambda: rs.intra_list_diversity(top, item_features=feats,
                                                                  preset="rectools"),
        "serendipity (rectools)": lambda: rs.serendipity(top, train, test, catalog=cat,
                                                         preset="rectools"),
    }
    if cooc:
        steps["diversity co-occurrence (recommenders)"] = lambda: rs.intra_list_diversity(
            top, train, preset="recommenders")
        steps["serendipity co-occurrence (recommenders)"] = lambda: rs.serendipity(
            top, train, preset="recommenders")
    for name, fn in steps.items():
        v, w, c = _clock(fn)
        out[name] = (float(v), w, c)
    out["_lists"] = top
    return out


# --------------------------------------------------------------------------- the peers


def peer_worker(path: str, k: int) -> None:
    """Runs in the libraries' environment: times each library step on the saved data."""
    import warnings

    import pandas as pd

    warnings.filterwarnings("ignore")
    from importlib.metadata import version

    from recommenders.evaluation import python_evaluation as pe
    from rectools import Columns
    from rectools.metrics import (
        AvgRecPopularity,
        CatalogCoverage,
        IntraListDiversity,
        MeanInvUserFreq,
        PairwiseHammingDistanceCalculator,
        Serendipity,
    )

    z = np.load(path)
    scores = pd.DataFrame({"userID": z["su"], "itemID": z["si"], "prediction": z["sv"]})
    train = pd.DataFrame({"userID": z["tu"], "itemID": z["ti"]})
    cat = z["catalog"]
    res = {"versions": {n: version(n) for n in ("recommenders", "rectools", "pandas")}}

    def clock(name, fn):
        w, c = time.perf_counter(), time.process_time()
        v = fn()
        res[name] = (None if isinstance(v, pd.DataFrame) else float(v),
                     time.perf_counter() - w, time.process_time() - c)
        return v

    def topk():
        m = scores.merge(train, on=["userID", "itemID"], how="left", indicator=True)
        unseen = m[m["_merge"] == "left_only"].drop(columns="_merge")
        return pe.get_top_k_items(unseen, col_user="userID", col_rating="prediction", k=k)

    reco = clock("top-k", topk)
    reco = reco[["userID", "itemID", "rank"]] if "rank" in reco else reco
    rt_reco = pd.DataFrame({Columns.User: reco["userID"], Columns.Item: reco["itemID"],
                            Columns.Rank: reco["rank"].astype(int)})
    rt_prev = pd.DataFrame({Columns.User: train["userID"], Columns.Item: train["itemID"]})
    rt_test = pd.DataFrame({Columns.User: z["eu"], Columns.Item: z["ei"]})
    feats = pd.DataFrame(z["features"], index=cat)
    rr = reco[["userID", "itemID"]]
    clock("catalog coverage (recommenders)", lambda: pe.catalog_coverage(train, rr))
    clock("catalog coverage (rectools)",
          lambda: CatalogCoverage(k, normalize=True).calc(rt_reco, cat))
    clock("distributional coverage", lambda: pe.distributional_coverage(train, rr))
    clock("average popularity (rectools)", lambda: AvgRecPopularity(k).calc(rt_reco, rt_prev))
    clock("novelty (recommenders)", lambda: pe.novelty(train, rr))
    clock("novelty MIUF (rectools)", lambda: MeanInvUserFreq(k).calc(rt_reco, rt_prev))
    clock("ILD hamming (rectools)", lambda: IntraListDiversity(
        k, PairwiseHammingDistanceCalculator(feats)).calc(rt_reco))
    clock("serendipity (rectools)", lambda: Serendipity(k).calc(rt_reco, rt_test, rt_prev, cat))
    clock("diversity co-occurrence (recommenders)", lambda: pe.diversity(train, rr))
    clock("serendipity co-occurrence (recommenders)", lambda: pe.serendipity(train, rr))
    print(json.dumps(res))


def run_peers(data: dict, k: int, python: str) -> dict:
    s = data["scores"].tocoo()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.npz")
        np.savez(path, su=s.row, si=s.col, sv=s.data, tu=data["train"][0],
                 ti=data["train"][1], eu=data["test"][0], ei=data["test"][1],
                 catalog=data["catalog"], features=data["features"])
        proc = subprocess.run([python, __file__, "--peer-worker", path, "--k", str(k)],
                              capture_output=True, text=True, check=False)
    if proc.returncode:
        raise SystemExit(f"the peers failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--nnz", type=int, default=200)
    parser.add_argument("--train", type=int, default=20)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--cooc-users", type=int, default=0, help="0: all users")
    parser.add_argument("--peer-users", type=int, default=2_000)
    parser.add_argument("--ref-python", default="/tmp/recsys/refvenv/bin/python")
    parser.add_argument("--peer-worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.peer_worker:
        peer_worker(args.peer_worker, args.k)
        return 0

    data = make_data(args.users, args.items, args.nnz, args.train)
    print(f"{args.users:,} users x {args.items:,} items, {data['scores'].nnz:,} scores, "
          f"{data['train'][0].size:,} training pairs, top-{args.k}")

    every = args.cooc_users in (0, args.users)
    full = skrank_work(data, args.k, cooc=every)
    cooc = full if every else skrank_work(subset(data, args.cooc_users), args.k, cooc=True)
    print(f"\nskrank, all {args.users:,} users" + ("" if every else
          f" (co-occurrence metrics: first {args.cooc_users:,} users)"))
    print(f"{'step':<42} {'wall s':>8} {'cpu s':>8}  value")
    total_w = total_c = 0.0
    rows = [(n, x) for n, x in full.items() if not n.startswith("_") and "co-occurrence" not in n]
    rows += [(n, x) for n, x in cooc.items() if "co-occurrence" in n]
    for name, (v, w, c) in rows:
        total_w, total_c = total_w + w, total_c + c
        print(f"{name:<42} {w:8.2f} {c:8.2f}  {'' if v is None else f'{v:.6g}'}")
    print(f"{'total':<42} {total_w:8.2f} {total_c:8.2f}")

    small = subset(data, args.peer_users)
    ours = skrank_work(small, args.k, cooc=True)
    peers = run_peers(small, args.k, args.ref_python)
    print(f"\nsame work on the first {args.peer_users:,} users: skrank against the fastest "
          f"library ({', '.join(f'{n} {v}' for n, v in peers['versions'].items())})")
    print(f"{'step':<42} {'peer wall':>9} {'skrank wall':>11} {'peer cpu':>9} "
          f"{'skrank cpu':>10} {'ratio':>7}  equal")
    tw_p = tw_s = tc_p = tc_s = 0.0
    for name, (v, w, c) in ((n, x) for n, x in ours.items() if n in peers):
        pv, pw, pc = peers[name]
        same = "" if v is None else ("yes" if abs(pv - v) <= 1e-9 * max(1, abs(pv)) else
                                     f"NO ({pv:.6g})")
        tw_p, tw_s, tc_p, tc_s = tw_p + pw, tw_s + w, tc_p + pc, tc_s + c
        print(f"{name:<42} {pw:9.2f} {w:11.3f} {pc:9.2f} {c:10.3f} {pw / w:6.0f}x  {same}")
    print(f"{'total':<42} {tw_p:9.2f} {tw_s:11.3f} {tc_p:9.2f} {tc_s:10.3f} "
          f"{tw_p / tw_s:6.0f}x")
    print(f"CPU ratio {tc_p / tc_s:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
