"""Popularity segments against a loop, shares of the lists, and the per-user labels as a
segmentation that skrank.segments takes."""

from __future__ import annotations

import numpy as np
import pytest

from skrank.exceptions import InputError, InvalidParameterError
from skrank.recsys import evaluate_top_k, popularity_segments, top_k
from skrank.segments import by_column, segment_table


def _loop(items, head, tail, split, catalog=()):
    counts = {i: 0 for i in list(items) + list(catalog)}
    for i in items:
        counts[i] += 1
    ranked = sorted(counts, key=lambda i: (-counts[i], i))
    total = sum(counts.values())
    out, acc = {}, 0
    for pos, i in enumerate(ranked):
        share = acc / total if split == "interactions" else pos / len(ranked)
        out[i] = ("tail" if counts[i] == 0 else "head" if share < head
                  else "torso" if share < tail else "tail")
        acc += counts[i]
    return out


@pytest.mark.parametrize("split", ["interactions", "items"])
def test_against_loop(split):
    rng = np.random.default_rng(4)
    for _ in range(25):
        n = int(rng.integers(1, 60))
        items = rng.zipf(1.6, n) % 23
        catalog = np.arange(25)
        head = float(rng.uniform(0, 0.6))
        tail = float(rng.uniform(head, 1))
        seg = popularity_segments((np.zeros(n), items), catalog=catalog, head=head, tail=tail,
                                  split=split)
        want = _loop(items.tolist(), head, tail, split, catalog.tolist())
        assert seg.label_of(catalog).tolist() == [want[i] for i in catalog.tolist()]


def test_shares_and_user_labels():
    seg = popularity_segments(([0] * 6, [1, 1, 1, 2, 2, 3]), catalog=[1, 2, 3, 4], head=0.4,
                              tail=0.8)
    assert seg.label_of([1, 2, 3, 4]).tolist() == ["head", "torso", "tail", "tail"]
    sh = seg.shares(([7, 7, 7, 8], [1, 3, 4, 2]))
    np.testing.assert_allclose(sh["head"], [1 / 3, 0])
    np.testing.assert_allclose(sh["tail"], [2 / 3, 0])
    np.testing.assert_allclose(sh["torso"], [0, 1])
    q, lab = seg.user_labels([5, 5, 6, 6, 6], [1, 3, 1, 1, 2])
    assert q.tolist() == [5, 6] and lab.tolist() == ["tail", "head"]


def test_segmentation_for_segment_table():
    rng = np.random.default_rng(0)
    s = rng.random((60, 20))
    train = (np.repeat(np.arange(60), 3), rng.zipf(1.5, 180) % 20)
    test_u = np.arange(60)
    test_i = rng.integers(0, 20, 60)
    seg = popularity_segments(train, catalog=np.arange(20))
    qids, labels = seg.user_labels(test_u, test_i)
    segmentation = by_column(qids, labels, name="popularity", order=seg.order)
    res = evaluate_top_k(top_k(s, 5), test_u, test_i, metrics="hit@5")
    m = res["hit@5"]
    table = segment_table(m.per_query, None, segmentation, qids=res.qids, metric="hit@5")
    assert sum(r.n for r in table.rows) == 60


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="'split' parameter"):
        popularity_segments(([1], [2]), split="users")
    with pytest.raises(InvalidParameterError, match="'tail' parameter"):
        popularity_segments(([1], [2]), head=0.5, tail=0.2)
    seg = popularity_segments(([1], [2]))
    with pytest.raises(InputError, match="no popularity segment"):
        seg.label_of([3])
