"""Inputs of any byte order and width give the numbers of their native int64/float64 twins.

The compiled kernels read native, contiguous arrays of a few dtypes; ``evaluate`` converts
what they do not read (big-endian arrays, float16 weights, strided views) and passes the
rest through. Each case here is compared with the same values in int64/float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import skrank

METRICS = ["ndcg@10", "ap@10", "rr", "p@5", "ndcg"]


def _data(seed: int = 0, n_queries: int = 30):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, size=n_queries)
    qid = np.repeat(np.arange(n_queries) * 3 + 1, sizes)
    y = rng.integers(0, 4, size=qid.shape[0])
    s = np.round(rng.random(qid.shape[0]) + 0.2 * y, 1)
    w = rng.random(qid.shape[0]).astype(np.float32) + 0.5
    return y, s, qid, w


def _same(a, b):
    np.testing.assert_array_equal(a.qids, b.qids)
    for name in a:
        np.testing.assert_array_equal(a[name].per_query, b[name].per_query, err_msg=name)
        assert a[name].value == b[name].value, name
        assert a[name].n_tie_affected == b[name].n_tie_affected, name


@pytest.mark.parametrize("interleave", [False, True])
def test_big_endian_arrays_are_read_as_their_values(interleave):
    y, s, qid, w = _data()
    if interleave:  # the general kernel, grouping by a table
        perm = np.argsort(np.arange(qid.shape[0]) % 7, kind="stable")
        y, s, qid, w = y[perm], s[perm], qid[perm], w[perm]
    native = skrank.evaluate(y, s, qid, metrics=METRICS, sample_weight=w.astype(np.float64))
    big = skrank.evaluate(y.astype(">i4"), s.astype(">f8"), qid.astype(">i8"),
                          metrics=METRICS, sample_weight=w.astype(">f8"))
    _same(native, big)


def test_float16_weights_are_summed_as_float32():
    y, s, qid, w = _data(1)
    w16 = w.astype(np.float16)
    a = skrank.evaluate(y, s, qid, metrics=METRICS, sample_weight=w16)
    b = skrank.evaluate(y, s, qid, metrics=METRICS, sample_weight=w16.astype(np.float32))
    _same(a, b)
    assert a["ndcg@10"].weighted


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "uint16", "uint32",
                                   "uint64", "float32", "float64", "bool"])
def test_every_label_dtype_gives_the_int64_numbers(dtype):
    y, s, qid, _ = _data(2)
    if dtype == "bool":
        y = y > 1
    expected = skrank.evaluate(y.astype(np.int64), s, qid, metrics=METRICS)
    _same(skrank.evaluate(y.astype(dtype), s, qid, metrics=METRICS), expected)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "uint64"])
@pytest.mark.parametrize("layout", ["contiguous", "interleaved"])
def test_every_qid_dtype_groups_alike(dtype, layout):
    y, s, qid, _ = _data(3, n_queries=20)
    qid = qid + (100 if dtype.startswith("u") else -30)  # negative ids for signed types
    if layout == "interleaved":
        perm = np.argsort(np.arange(qid.shape[0]) % 5, kind="stable")
        y, s, qid = y[perm], s[perm], qid[perm]
    expected = skrank.evaluate(y, s, qid.astype(np.int64), metrics=METRICS)
    got = skrank.evaluate(y, s, qid.astype(dtype), metrics=METRICS)
    np.testing.assert_array_equal(got.qids.astype(np.int64), expected.qids)
    for name in got:
        np.testing.assert_array_equal(got[name].per_query, expected[name].per_query)


def test_strided_views_are_read_as_their_values():
    y, s, qid, _ = _data(4)
    y2, s2, q2 = (np.repeat(a, 2)[::2] for a in (y, s, qid))
    assert not y2.flags.c_contiguous
    _same(skrank.evaluate(y2, s2, q2, metrics=METRICS), skrank.evaluate(y, s, qid,
                                                                        metrics=METRICS))


@pytest.mark.parametrize("spread", [1, 10**12])  # dense ids (a table pass), sparse (a sort)
def test_integer_doc_ids_order_ties_as_their_zero_padded_strings(spread):
    # ties="docid" with integer ids uses the ids themselves as tie keys (no sort); the same
    # ids as zero-padded strings sort alike, so every value and flag must be equal
    y, s, qid, _ = _data(5)
    ids = np.random.default_rng(5).permutation(y.shape[0]).astype(np.int64) * spread
    as_str = np.char.zfill(ids.astype(str), 16)
    kw = {"metrics": METRICS, "ties": "docid"}
    _same(skrank.evaluate(y, s, qid, doc_id=ids, **kw),
          skrank.evaluate(y, s, qid, doc_id=as_str, **kw))


@pytest.mark.parametrize("spread", [1, 10**12])
@pytest.mark.parametrize("interleave", [False, True])
def test_an_integer_doc_id_repeated_in_a_query_is_named(spread, interleave):
    y, s, qid, _ = _data(6)
    ids = np.arange(y.shape[0], dtype=np.int64) * spread
    second = int(np.flatnonzero(qid == qid[-1])[0])  # a row of the last query
    ids[-1] = ids[second]
    if interleave:
        perm = np.argsort(np.arange(qid.shape[0]) % 3, kind="stable")
        y, s, qid, ids = y[perm], s[perm], qid[perm], ids[perm]
    with pytest.raises(skrank.InputError,
                       match=rf"Got {second * spread} twice in query {qid.max()}"):
        skrank.evaluate(y, s, qid, doc_id=ids, ties="docid")
