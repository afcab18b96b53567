"""Grouping rows into queries (``skrank.metrics._groups.group_rows``), against a dict oracle."""

from __future__ import annotations

import numpy as np
import pytest

from skrank.metrics import _groups


def _oracle(qid):
    """Queries in order of first appearance, each query's rows in input order."""
    rows: dict = {}
    for i, q in enumerate(qid.tolist()):
        rows.setdefault(q, []).append(i)
    qids = list(rows)
    sizes = [len(rows[q]) for q in qids]
    return qids, np.r_[0, np.cumsum(sizes)], np.array([i for q in qids for i in rows[q]])


@pytest.fixture
def table_calls(monkeypatch):
    """Count the calls of the table route."""
    calls = []
    real = _groups._group_by_table

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(_groups, "_group_by_table", counting)
    return calls


def _check(qid):
    g = _groups.group_rows(qid.shape[0], qid)
    qids, offsets, rows = _oracle(qid)
    assert g.qids.tolist() == qids
    np.testing.assert_array_equal(g.offsets, offsets)
    np.testing.assert_array_equal(g.rows, rows)
    assert g.qids.dtype == qid.dtype
    return g


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.uint64])
@pytest.mark.parametrize("seed", range(4))
def test_shuffled_integer_ids_take_the_table(dtype, seed, table_calls):
    # ids within a span of the order of the rows are grouped with a table (counting sort)
    rng = np.random.default_rng(seed)
    ids = rng.choice(200, size=40, replace=False)
    qid = rng.choice(ids, size=500).astype(dtype)
    if dtype == np.int64:
        qid -= 2**63 - 100  # near the bottom of the range: the difference must not overflow
    elif dtype == np.uint64:
        qid += np.uint64(2**64 - 300)  # beyond float64's exact integers
    elif dtype == np.int32:
        qid -= 50
    g = _check(qid)
    assert not g.contiguous
    assert table_calls


def test_ids_spread_far_apart_take_the_sort(table_calls):
    rng = np.random.default_rng(5)
    qid = rng.choice(np.array([-(2**62), 7, 2**62, 12345678901]), size=300)
    assert not _check(qid).contiguous
    assert not table_calls


@pytest.mark.parametrize("qid", [
    np.array([5, 5, 3, 3, 3, 9]),          # runs not increasing but each id once: contiguous
    np.repeat([9, 2, 5], 20),              # the same with few runs: their ids are sorted
    np.repeat([9, 2, 9], 20),              # few runs, an id comes back
    np.array([1, 1, 2, 2, 3]),             # increasing runs
    np.zeros(7, dtype=np.int64),           # one query
    np.array([4, 2, 4]),                   # an id comes back
    np.array(["b", "a", "b", "c"]),        # strings take the sort
])
def test_layouts(qid):
    g = _check(qid)
    assert g.contiguous == (len(set(qid.tolist())) == 1 + int(np.sum(qid[1:] != qid[:-1])))
