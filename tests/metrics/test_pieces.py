"""The pieces' gathering of each query's rows (``_gathering``) is ``group_rows``'s, by every
route: the counting sort it takes for interleaved integer ids, and group_rows elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

from skrank.metrics import _pieces
from skrank.metrics._groups import group_rows


def _cases():
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 40, 200)
    ids = np.repeat(rng.permutation(200) * 3 + 11, sizes)  # contiguous, ids in any order
    mixed = ids[rng.permutation(ids.shape[0])]  # interleaved, as a shuffle delivers them
    return {
        "interleaved": mixed,
        "interleaved int32": mixed.astype(np.int32),
        "interleaved uint64": mixed.astype(np.uint64),
        "interleaved negative": mixed - 400,
        "interleaved wide span": mixed * 10**9,  # no table: group_rows's sort
        "contiguous": ids,
        "contiguous small queries": np.repeat(rng.permutation(3000), 2),  # many runs
        "increasing one row each": np.arange(50, 3050),
        "few runs interleaved": np.repeat([5, 9, 5, 9], 1000),
        "one row": np.array([4]),
        "strings": mixed.astype(str),
    }


@pytest.mark.parametrize("name", list(_cases()))
def test_gathering_is_group_rows_order(name, monkeypatch):
    qid = _cases()[name]
    want = group_rows(qid.shape[0], qid, caller="test").order
    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return group_rows(*args, **kwargs)

    monkeypatch.setattr(_pieces, "group_rows", counted)
    got, grouped_qid = _pieces._gathering(qid, qid.shape[0], "test")
    assert (got is None) == (want is None)
    if want is not None:
        assert got.dtype == np.int64 and np.array_equal(got, want)
    if grouped_qid is not None:  # the ids of the rows gathered, written query by query
        assert grouped_qid.dtype == qid.dtype and np.array_equal(grouped_qid, qid[got])
    # interleaved integer ids within a span of the order of the rows: the counting sort,
    # without group_rows's pass over the runs
    counting_sort = (name.startswith(("interleaved", "contiguous small", "increasing"))
                     and "wide" not in name)
    assert bool(calls) != counting_sort
    assert (grouped_qid is not None) == (counting_sort and got is not None)


@pytest.mark.parametrize("values", [
    np.array([0, 3, 255, 1, 0, 7, 2], dtype=np.int64),  # labels: through one byte
    np.array([0, 3, 255, 1, 0, 7, 2], dtype=np.int32),
    np.array([0, 3, 255, 1, 0, 7, 2], dtype=np.uint16),
    np.array([0, 3, 256, 1, 0, 7, 2], dtype=np.int64),  # too wide for one byte
    np.array([0, 3, -1, 1, 0, 7, 2], dtype=np.int64),
    np.array([0.5, 3, 2, 1, 0, 7, 2]),
    np.array([True, False, True, True, False, False, True]),
])
def test_take_is_fancy_indexing(values):
    rows = np.array([6, 0, 2, 2, 5, 1, 4, 3], dtype=np.int64)
    got = _pieces._take(values, rows)
    assert got.dtype == values.dtype and np.array_equal(got, values[rows])
