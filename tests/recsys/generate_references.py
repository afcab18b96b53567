"""Generate the reference values of tests/recsys/data/references.json with the libraries.

Microsoft Recommenders and RecTools cannot be installed beside skrank's dependencies
(Recommenders 1.2.1 needs pandas < 3, RecTools 0.19 numpy < 2 on Python 3.11), so their values
are computed once, in a separate environment, and committed with the inputs and the versions:

    python3 -m venv /tmp/recsys/refvenv
    /tmp/recsys/refvenv/bin/pip install recommenders==1.2.1 rectools==0.19.0
    /tmp/recsys/refvenv/bin/python tests/recsys/generate_references.py

The inputs (the issue's fixture and random cases) are stored in the JSON beside the values,
so tests/recsys/test_references.py needs neither library nor this script's random generator.
The issue gives no held-out interactions and no item features for its fixture; the ones below
(test pairs (1,3) (2,4) (3,6) (4,1); features "id even", "id > 3", "id divisible by 3") are one
choice that reproduces its RecTools ILD 1.8333 and both serendipities (0.2676, 0.0972).
"""

from __future__ import annotations

import json
import sys
import warnings
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd

warnings.filterwarnings("ignore")

OUT = Path(__file__).resolve().parent / "data" / "references.json"


def fixture() -> dict:
    items = np.arange(1, 7)
    return {
        "name": "issue 18 fixture",
        "train": [[1, 1, 2, 2, 3, 3, 3, 4, 4, 5], [1, 2, 1, 3, 1, 2, 4, 2, 5, 1]],
        "reco": [[1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4], [3, 4, 5, 2, 4, 5, 3, 5, 6, 1, 3, 4],
                 [1, 2, 3] * 4],
        "test": [[1, 2, 3, 4], [3, 4, 6, 1]],
        "catalog": items.tolist(),
        "features_ids": items.tolist(),
        "features": [[int(i % 2 == 0), int(i > 3), int(i % 3 == 0)] for i in items],
        "k": [3],
    }


def random_case(rng: np.random.Generator, i: int) -> dict:
    n_users = int(rng.integers(4, 30))
    n_items = int(rng.integers(6, 40))
    cat = np.arange(100, 100 + n_items)
    train_u, train_i = [], []
    for u in range(n_users):
        n = int(rng.integers(0, min(8, n_items - 3)))
        # popular items more often, so that popularities differ
        p = 1.0 / np.arange(1, n_items + 1)
        items = rng.choice(cat, size=n, replace=False, p=p / p.sum())
        if i % 2 and n:  # repeated interactions in half of the cases
            items = np.concatenate([items, rng.choice(items, size=int(rng.integers(0, 3)))])
        train_u += [u] * len(items)
        train_i += items.tolist()
    reco_u, reco_i, reco_r, test_u, test_i = [], [], [], [], []
    for u in range(n_users - int(rng.integers(0, 2))):
        seen = set(np.array(train_i)[np.array(train_u) == u].tolist()) if train_u else set()
        cand = [c for c in cat.tolist() if c not in seen]
        n = int(rng.integers(1, min(7, len(cand)) + 1))
        items = rng.choice(cand, size=n, replace=False)
        reco_u += [u] * n
        reco_i += items.tolist()
        reco_r += list(range(1, n + 1))
        t = rng.choice(cand, size=int(rng.integers(0, 4)), replace=False)
        test_u += [u] * len(t)
        test_i += t.tolist()
    n_feat = int(rng.integers(1, 4))
    return {
        "name": f"random {i}",
        "train": [train_u, train_i],
        "reco": [reco_u, reco_i, reco_r],
        "test": [test_u, test_i],
        "catalog": cat.tolist(),
        "features_ids": cat.tolist(),
        "features": rng.integers(0, 3, (n_items, n_feat)).tolist(),
        "k": [3, 10],
    }


def recommenders_values(case: dict) -> dict:
    from recommenders.evaluation import python_evaluation as pe

    train = pd.DataFrame({"userID": case["train"][0], "itemID": case["train"][1]})
    reco = pd.DataFrame({"userID": case["reco"][0], "itemID": case["reco"][1]})
    tkeys = set(zip(*case["test"]))
    reco_rel = reco.assign(rel=[float((u, i) in tkeys) for u, i in zip(reco.userID,
                                                                           reco.itemID)])
    feats = pd.DataFrame({"itemID": case["features_ids"],
                          "features": [np.array(f, dtype=float) + 1.0
                                       for f in case["features"]]})
    out = {
        "catalog_coverage": pe.catalog_coverage(train, reco),
        "distributional_coverage": pe.distributional_coverage(train, reco),
        "novelty": pe.novelty(train, reco),
        "diversity": pe.diversity(train, reco),
        "serendipity": pe.serendipity(train, reco),
        "serendipity_relevance": pe.serendipity(train, reco_rel, col_relevance="rel"),
        "diversity_features": pe.diversity(train, reco, item_feature_df=feats,
                                           item_sim_measure="item_feature_vector"),
        "serendipity_features": pe.serendipity(train, reco, item_feature_df=feats,
                                               item_sim_measure="item_feature_vector"),
    }
    return {k: float(v) for k, v in out.items()}


def rectools_values(case: dict) -> dict:
    from rectools import Columns
    from rectools.metrics import (
        AvgRecPopularity,
        CatalogCoverage,
        IntraListDiversity,
        MeanInvUserFreq,
        PairwiseHammingDistanceCalculator,
        Serendipity,
    )

    reco = pd.DataFrame({Columns.User: case["reco"][0], Columns.Item: case["reco"][1],
                         Columns.Rank: case["reco"][2]})
    prev = pd.DataFrame({Columns.User: case["train"][0], Columns.Item: case["train"][1]})
    test = pd.DataFrame({Columns.User: case["test"][0], Columns.Item: case["test"][1]})
    feats = pd.DataFrame(case["features"], index=case["features_ids"])
    cat = case["catalog"]
    out = {}
    for k in case["k"]:
        out[f"coverage_normalized@{k}"] = CatalogCoverage(k, normalize=True).calc(reco, cat)
        out[f"coverage@{k}"] = CatalogCoverage(k).calc(reco, cat)
        out[f"miuf@{k}"] = MeanInvUserFreq(k).calc(reco, prev)
        out[f"arp@{k}"] = AvgRecPopularity(k).calc(reco, prev)
        out[f"arp_normalized@{k}"] = AvgRecPopularity(k, normalize=True).calc(reco, prev)
        out[f"ild@{k}"] = IntraListDiversity(k, PairwiseHammingDistanceCalculator(feats)).calc(
            reco)
        out[f"serendipity@{k}"] = Serendipity(k).calc(reco, test, prev, cat)
    return {k: float(v) for k, v in out.items()}


def main() -> None:
    rng = np.random.default_rng(20261201)
    cases = [fixture()] + [random_case(rng, i) for i in range(12)]
    for case in cases:
        case["recommenders"] = recommenders_values(case)
        case["rectools"] = rectools_values(case)
    meta = {
        "generator": "tests/recsys/generate_references.py",
        "python": sys.version.split()[0],
        "versions": {name: version(name) for name in ("recommenders", "rectools", "pandas",
                                                       "numpy")},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"meta": meta, "cases": cases}, indent=1) + "\n")
    print(f"wrote {OUT}: {len(cases)} cases, {meta['versions']}")


if __name__ == "__main__":
    main()
