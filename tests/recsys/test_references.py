"""skrank.recsys against Microsoft Recommenders 1.2.1 and RecTools 0.19.0, every metric each
library defines, on the issue's fixture and random cases. The values were computed by the
libraries themselves (``generate_references.py``, run once in a separate environment because
neither installs beside skrank's pandas 3 / numpy 2; versions in the JSON's ``meta``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import skrank.recsys as rs

DATA = json.loads((Path(__file__).parent / "data" / "references.json").read_text())
CASES = DATA["cases"]
IDS = [c["name"] for c in CASES]


def test_versions_recorded():
    assert DATA["meta"]["versions"]["recommenders"] == "1.2.1"
    assert DATA["meta"]["versions"]["rectools"] == "0.19.0"


def _args(case):
    train = tuple(np.asarray(a) for a in case["train"])
    reco = tuple(np.asarray(a) for a in case["reco"])
    test = tuple(np.asarray(a) for a in case["test"])
    feats = (np.asarray(case["features_ids"]), np.asarray(case["features"], dtype=float))
    return train, reco, test, feats, np.asarray(case["catalog"])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_recommenders(case):
    train, reco, test, feats, _ = _args(case)
    want = case["recommenders"]
    p = "recommenders"
    reco2 = reco[:2]  # Recommenders has no ranks: every row counts
    got = {
        "catalog_coverage": rs.catalog_coverage(reco2, train, preset=p),
        "distributional_coverage": rs.distributional_coverage(reco2, preset=p),
        "novelty": rs.novelty(reco2, train, preset=p),
        "diversity": rs.intra_list_diversity(reco2, train, preset=p),
        "serendipity": rs.serendipity(reco2, train, preset=p),
        "serendipity_relevance": rs.serendipity(reco2, train, test, preset=p),
        # the generator shifts the features by 1 so that no vector is all zeros
        "diversity_features": rs.intra_list_diversity(
            reco2, item_features=(feats[0], feats[1] + 1.0), similarity="cosine", preset=p),
        "serendipity_features": rs.serendipity(
            reco2, train, item_features=(feats[0], feats[1] + 1.0), similarity="cosine",
            preset=p),
    }
    for name, value in want.items():
        assert float(got[name]) == pytest.approx(value, rel=1e-12, abs=1e-12), name


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rectools(case):
    train, reco, test, feats, cat = _args(case)
    want = case["rectools"]
    p = "rectools"
    for k in case["k"]:
        got = {
            f"coverage_normalized@{k}": rs.catalog_coverage(reco, catalog=cat, k=k, preset=p),
            f"coverage@{k}": rs.catalog_coverage(reco, k=k, denominator="none"),
            f"miuf@{k}": rs.novelty(reco, train, k=k, preset=p),
            f"arp@{k}": rs.average_popularity(reco, train, k=k, preset=p),
            f"arp_normalized@{k}": rs.average_popularity(reco, train, k=k, preset=p,
                                                         normalizer="interactions"),
            f"ild@{k}": rs.intra_list_diversity(reco, item_features=feats, k=k, preset=p),
            f"serendipity@{k}": rs.serendipity(reco, train, test, catalog=cat, k=k, preset=p),
        }
        for name, value in got.items():
            assert float(value) == pytest.approx(want[name], rel=1e-12, abs=1e-12), name


def test_issue_table():
    """The issue's table, to its four decimals."""
    train, reco, test, feats, cat = _args(CASES[0])
    r = "recommenders"
    assert round(float(rs.catalog_coverage(reco, train, preset=r)), 4) == 1.2
    assert round(float(rs.novelty(reco, train, preset=r)), 4) == 2.7464
    assert round(float(rs.intra_list_diversity(reco, train, preset=r)), 4) == 0.8204
    assert round(float(rs.serendipity(reco, train, test, preset=r)), 4) == 0.2676
    t = "rectools"
    assert round(float(rs.catalog_coverage(reco, catalog=cat, preset=t)), 4) == 1.0
    assert round(float(rs.novelty(reco, train, k=3, preset=t)), 4) == 2.0232
    assert round(float(rs.intra_list_diversity(reco, item_features=feats, k=3, preset=t)),
                 4) == 1.8333
    assert round(float(rs.serendipity(reco, train, test, catalog=cat, k=3, preset=t)),
                 4) == 0.0972


def test_topk_input_equals_flat_input():
    """A TopK goes through its own path (no sort of its rows): same values as flat arrays."""
    rng = np.random.default_rng(2)
    s = rng.random((40, 30))
    train = (rng.integers(0, 40, 200), rng.integers(0, 30, 200))
    top = rs.top_k(s, 6, exclude=train)
    u, i, r, _ = top.to_flat()
    feats = (np.arange(30), rng.integers(0, 3, (30, 2)))
    test = (np.arange(40), rng.integers(0, 30, 40))
    cat = np.arange(30)
    for reco in (top, (u, i, r)):
        got = [rs.catalog_coverage(reco, catalog=cat, k=4),
               rs.distributional_coverage(reco, k=4),
               rs.gini_index(reco, catalog=cat),
               rs.average_popularity(reco, train, k=5),
               rs.novelty(reco, train, preset="recommenders"),
               rs.intra_list_diversity(reco, train, k=5),
               rs.intra_list_diversity(reco, item_features=feats, preset="rectools"),
               rs.serendipity(reco, train, test, k=5),
               rs.serendipity(reco, train, test, catalog=cat, preset="rectools")]
        if reco is top:
            first = [float(g) for g in got]
        else:
            assert [float(g) for g in got] == pytest.approx(first, rel=1e-12, abs=1e-15)


def test_blocks_equal_one_block(monkeypatch):
    import skrank.recsys._diversity as diversity

    case = CASES[5]
    train, reco, test, _, _ = _args(case)
    whole = [rs.intra_list_diversity(reco, train), rs.serendipity(reco, train, test)]
    monkeypatch.setattr(diversity, "_BLOCK_ENTRIES", 5)
    small = [rs.intra_list_diversity(reco, train), rs.serendipity(reco, train, test)]
    assert [float(x) for x in small] == pytest.approx([float(x) for x in whole], rel=1e-12)
