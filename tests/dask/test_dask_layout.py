"""What skrank.dask.evaluate shuffles: the position and label packed into one integer key, and
the query id as a code, where that is lossless, and the columns carried as they are where it is
not.

Each path is checked twice: the layout chosen (so that a packing silently dropped, or taken
where it cannot be lossless, fails here) and the result of ``skrank.dask.evaluate`` on such
data against ``skrank.evaluate`` on the collected rows (per-query values bit for bit).
"""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import skrank
import skrank.dask
from skrank.dask._layout import layout_of, pack, plan_layout, unpack

from .._distributed import assert_same_result, random_frame

NAMES = {"qid": "qid", "y_true": "y_true", "y_score": "y_score", "doc_id": None,
         "sample_weight": None, "retrieved": None}


def _frame(qid, y_true, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"qid": qid, "y_true": y_true,
                         "y_score": rng.integers(0, 5, len(qid)) / 4})


def _cases():
    rng = np.random.default_rng(1)
    n = 400
    q = rng.integers(0, 30, n)
    y = rng.integers(0, 4, n)
    return {
        # name: (frame, what is packed (the label) or coded (the query id), the key's dtype)
        "int64 ids and labels": (_frame(q, y), {"qid", "y_true"}, np.int32),
        "negative int32 ids, int8 labels": (
            _frame((q - 15).astype(np.int32), y.astype(np.int8)), {"qid", "y_true"},
            np.int32),
        "uint16 ids, bool labels": (_frame(q.astype(np.uint16), y > 1), {"qid", "y_true"},
                                    np.int32),
        # 400 rows: 9 bits of positions, 2 of labels, 31 of codes: int32 (one block)
        "ids filling 31 bits": (_frame(q * 2**26, y), {"qid", "y_true"}, np.int32),
        "ids of 32 bits": (_frame(q * 2**27, y), {"qid", "y_true"}, np.int64),
        "ids 2**61 apart": (_frame(q * 2**56 - 2**60, y), {"qid", "y_true"}, np.int64),
        # codes of 64 bits, wrapped in the int64 codes and back
        "ids across the int64 range": (
            _frame(np.where(q % 2 == 0, -2**63 + q, 2**63 - 1 - q), y), {"qid", "y_true"},
            np.int64),
        # 9 bits of positions and 22 of labels fill an int32 key; one more bit: int64
        "labels filling 31 bits": (_frame(q, y * (2**22 - 1) // 3), {"qid", "y_true"},
                                   np.int32),
        "labels of 23 bits": (_frame(q, y * 2**21), {"qid", "y_true"}, np.int64),
        "labels 2**61 apart": (_frame(q, y * 2**61), {"qid"}, np.int32),  # 63 bits of labels
        "float labels": (_frame(q, y + 0.5), {"qid"}, np.int32),
        "string ids": (_frame(q.astype(str), y), {"y_true"}, np.int32),
        "uint64 ids": (_frame(q.astype(np.uint64), y), {"y_true"}, np.int32),
        "nullable Int64 labels": (_frame(q, pd.array(y, dtype="Int64")), {"qid"}, np.int32),
        "string ids, float labels": (_frame(q.astype(str), y / 2), set(), np.int64),
    }


CASES = _cases()


def _layout(case):
    """A case's rows in three partitions (each as a pandas frame) and their layout."""
    ddf = dd.from_pandas(CASES[case][0], npartitions=3, sort=False)
    with dask.config.set(scheduler="sync"):
        return [p.compute() for p in ddf.partitions], plan_layout(ddf, NAMES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_what_is_packed(case):
    _, packed, key_dtype = CASES[case]
    parts, layout = _layout(case)
    assert {p for p, f in (("qid", layout.qid), ("y_true", layout.label))
            if f is not None} == packed
    assert set(layout.carried) == {"qid", "y_true", "y_score"} - packed
    assert (layout.offsets is None) == (not packed)  # the reduction only where it packs
    assert layout.key_dtype == key_dtype
    assert layout.on == ("_qid" if "qid" in packed else "qid")  # what the shuffle hashes
    frame = pack(parts[1], layout, {"number": 1})
    assert list(frame.columns) == ["_key", *(["_qid"] if "qid" in packed else []),
                                   *layout.carried]
    assert frame["_key"].dtype == key_dtype
    if "qid" in packed:
        # the key and the codes: rows of one array (one block, taken and concatenated as
        # one array by the shuffle), side by side (a slice of rows is one range of memory)
        key, code = frame["_key"].to_numpy(), frame["_qid"].to_numpy()
        assert code.dtype == key_dtype
        assert code.ctypes.data - key.ctypes.data == key.itemsize
        assert key.strides == code.strides == (2 * key.itemsize,)
    # the carried columns of NumPy dtypes are the partition's own arrays, not copies
    for c in layout.carried:
        if isinstance(parts[1][c].dtype, np.dtype):
            assert np.shares_memory(frame[c].to_numpy(), parts[1][c].to_numpy()), c


@pytest.mark.parametrize("case", sorted(CASES))
def test_pack_and_unpack_give_the_rows_back(case):
    # round trip of every partition, shuffled as the task shuffle and p2p may hand it over
    frame = CASES[case][0]
    parts, layout = _layout(case)
    packed = pd.concat([pack(p, layout, {"number": i}) for i, p in enumerate(parts)],
                       ignore_index=True)
    scrambled = packed.iloc[np.random.default_rng(0).permutation(packed.shape[0])]
    kept = scrambled.copy()
    for rows in (packed, scrambled):  # unpacking leaves the partition as it was
        unpack(rows.copy(), layout)
        unpack(rows, layout, by_query=True)
        unpack(rows, layout)
    assert scrambled.equals(kept)
    position, cols = unpack(scrambled, layout)
    assert np.array_equal(position, np.sort(position))  # back in input order
    in_order = position
    for param in ("qid", "y_true", "y_score"):
        want = frame[param].to_numpy()
        assert cols[param].dtype == want.dtype, param
        assert np.array_equal(cols[param], want), param
    assert [layout.locate(int(p)) for p in position[[0, -1]]] == \
        ["row 0 of input partition 0", f"row {parts[-1].shape[0] - 1} of input partition 2"]
    # by query: each query's rows in input order, the queries by first appearance
    position, cols = unpack(scrambled, layout, by_query=True)
    qid = frame["qid"].to_numpy()
    _, first_rows = np.unique(qid, return_index=True)
    by_first = qid[np.sort(first_rows)]
    want_rows = np.concatenate([np.flatnonzero(qid == q) for q in by_first])
    assert np.array_equal(position, in_order[want_rows])
    for param in ("qid", "y_true", "y_score"):
        assert np.array_equal(cols[param], frame[param].to_numpy()[want_rows]), param


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_layout_gives_the_result_of_evaluate(case):
    frame = CASES[case][0]
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    metrics = ["ndcg@5", "ap", "rr"]
    if "float" in case:
        metrics, kw = [*metrics, "err@3"], dict(gain="linear", max_label=4)
    elif "apart" in case or ("labels" in case and "bits" in case):
        kw = dict(gain="linear")
    else:
        metrics, kw = [*metrics, "err@3"], {}  # ERR's scale from the labels' range
    with dask.config.set(scheduler="sync"):
        got = skrank.dask.evaluate(ddf, metrics=metrics, ties="input", **kw)
    collected = ddf.compute()
    want = skrank.evaluate(*(collected[c].to_numpy() for c in ("y_true", "y_score", "qid")),
                           metrics=metrics, ties="input", **kw)
    assert_same_result(got, want)


def test_the_optional_columns_travel_as_they_are():
    frame = random_frame(11, n_queries=40, max_size=10)
    names = dict(NAMES, doc_id="doc", sample_weight="w", retrieved="retrieved")
    cols = ["qid", "y_true", "y_score", "doc", "w", "retrieved"]
    ddf = dd.from_pandas(frame[cols], npartitions=3, sort=False)
    with dask.config.set(scheduler="sync"):
        layout = plan_layout(ddf, names)
        assert layout.carried == ("y_score", "doc", "w", "retrieved")
        got = skrank.dask.evaluate(ddf, metrics=["ndcg@5", "ap"], doc_id="doc",
                                   sample_weight="w", retrieved="retrieved",
                                   preset="trec_eval")
    want = skrank.evaluate(frame.y_true, frame.y_score, frame.qid, metrics=["ndcg@5", "ap"],
                           doc_id=frame.doc, sample_weight=frame.w,
                           retrieved=frame.retrieved, preset="trec_eval")
    assert_same_result(got, want)


def test_the_key_takes_a_name_the_columns_do_not_have():
    frame = _frame(np.arange(6) % 2, np.arange(6) % 3).rename(columns={"y_score": "_key"})
    layout = layout_of(dict(NAMES, y_score="_key"), list(frame.columns), frame.dtypes, None)
    assert layout.key not in frame.columns
    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    with dask.config.set(scheduler="sync"):
        got = skrank.dask.evaluate(ddf, metrics=["ndcg@3"], y_score="_key")
    assert_same_result(got, skrank.evaluate(frame.y_true, frame._key, frame.qid,
                                            metrics=["ndcg@3"]))


@pytest.mark.parametrize("qid_kind", ["int", "str"])
def test_empty_partitions_and_bad_rows_are_placed(qid_kind):
    # an empty input partition shifts no position; a bad row is named by its partition and
    # row with the offsets of the reduction (int ids) and without them (string ids)
    frame = random_frame(12, n_queries=20, max_size=6, str_qid=qid_kind == "str",
                         weights=False)[["qid", "y_true", "y_score"]]
    if qid_kind == "str":
        frame["y_true"] = frame["y_true"] / 2  # nothing packed
    frame.loc[9, "y_score"] = np.nan
    parts = [frame.iloc[:0], frame.iloc[:5], frame.iloc[:0], frame.iloc[5:]]
    ddf = dd.concat([dd.from_pandas(p, npartitions=1, sort=False) for p in parts])
    with dask.config.set(scheduler="sync"):
        assert (plan_layout(ddf, NAMES).offsets is None) == (qid_kind == "str")
        with pytest.raises(skrank.InputError, match=r"Got nan at row 4 of input partition "
                                                    r"3 instead\.$"):
            skrank.dask.evaluate(ddf, metrics=["ndcg@5"])
        frame.loc[9, "y_score"] = 0.5
        ddf = dd.concat([dd.from_pandas(p, npartitions=1, sort=False)
                         for p in (frame.iloc[:0], frame.iloc[:5], frame.iloc[:0],
                                   frame.iloc[5:])])
        got = skrank.dask.evaluate(ddf, metrics=["ndcg@5", "rr"])
    assert_same_result(got, skrank.evaluate(frame.y_true, frame.y_score, frame.qid,
                                            metrics=["ndcg@5", "rr"]))


class _Drifting:
    """A partition function whose rows change after the first ``calls`` calls (a model that
    scores, a source that moves): the layout's reduction sees the first rows, the shuffle the
    others."""

    def __init__(self, calls, change):
        self.calls, self.change = calls, change

    def __call__(self, pdf):
        self.calls -= 1
        return pdf if self.calls >= 0 else self.change(pdf)


@pytest.mark.parametrize("change, what", [
    (lambda p: pd.concat([p, p.iloc[:1]]), r"\(\d+ rows then, \d+ now\)"),
    (lambda p: p.assign(y_true=p.y_true + 9), r"\(y_true from 0 to 3 then, from 9 to 12 now\)"),
    (lambda p: p.assign(qid=p.qid - 1000), r"\(qid from \d+ to \d+ then, from -\d+ to -\d+ "
                                           r"now\)"),
])
def test_rows_that_change_between_the_two_passes_are_refused(change, what):
    # packed with the ranges of other rows, a key would mix its fields: refused instead
    frame = random_frame(13, n_queries=30, max_size=8, weights=False)[["qid", "y_true",
                                                                        "y_score"]]
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    drifting = ddf.map_partitions(_Drifting(3, change), meta=ddf._meta)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(skrank.InputError, match=r"'ddf' parameter of skrank.dask.evaluate "
                           r"must be a DataFrame that gives the same rows each time it is "
                           r"computed .*Got other rows in input partition \d the second time "
                           + what + r" instead\.$"):
            skrank.dask.evaluate(drifting, metrics=["ndcg@5"])
