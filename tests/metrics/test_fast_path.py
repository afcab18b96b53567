"""The one-pass kernel (``evaluate_contiguous``) gives the general kernel's numbers, bit for bit.

``evaluate`` takes the one-pass kernel when queries are contiguous, labels are small integers,
the tie rule is not "docid" and every cutoff is at most 32; anything else goes to the general
kernel. The same rows with the queries interleaved (each query keeping its
own row order) are not contiguous, so they take the general kernel: both routes must agree
exactly, per query, with the same empty and tie counts.
"""

from __future__ import annotations

import numpy as np
import pytest

import skrank
from skrank import InputError
from skrank.metrics import _evaluate, _fast

METRICS = ["ndcg@1", "ndcg@10", "ndcg@32", "dcg@5", "p@5", "r@10", "hit@3", "ap@10", "rr",
           "rr@3"]


def _data(seed: int, n_queries: int = 60, max_size: int = 70, n_labels: int = 5):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size, size=n_queries)
    qid = np.repeat(np.arange(n_queries) * 7 + 3, sizes)
    y = rng.integers(0, n_labels, size=qid.shape[0])
    y[qid == qid[0]] = 0  # one query without a relevant document
    s = np.round(rng.random(qid.shape[0]) + 0.3 * y, 1)  # coarse: many ties
    return y, s, qid


def _interleaved(qid: np.ndarray) -> np.ndarray:
    """A row order that deals the queries out round-robin, keeping each query's row order."""
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    position = np.arange(qid.shape[0]) - np.repeat(starts, np.diff(np.r_[starts, qid.shape[0]]))
    return np.lexsort((qid, position))


@pytest.fixture
def fast_calls(monkeypatch):
    """Count the calls of the one-pass kernel, to know which route a call took."""
    calls = []
    real = _fast.K.evaluate_contiguous

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(_fast.K, "evaluate_contiguous", counting)
    return calls


def _assert_same(a, b):
    """Two results over the same queries, whatever the order of their qids."""
    order_b = {q: i for i, q in enumerate(b.qids.tolist())}
    idx = np.array([order_b[q] for q in a.qids.tolist()])
    for name in a:
        ra, rb = a[name], b[name]
        np.testing.assert_array_equal(ra.per_query, rb.per_query[idx], err_msg=name)
        assert ra.value == rb.value or (np.isnan(ra.value) and np.isnan(rb.value)), name
        assert (ra.n_empty, ra.n_tie_affected) == (rb.n_empty, rb.n_tie_affected), name


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic", "input", "average"])
@pytest.mark.parametrize("gain", ["exp", "linear", (0.0, 1.0, 7.0, 3.0, 15.0)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_pass_equals_general_kernel(ties, gain, seed, fast_calls):
    y, s, qid = _data(seed)
    fast = skrank.evaluate(y, s, qid, metrics=METRICS, ties=ties, gain=gain, tie_bounds=True)
    assert fast_calls, "the contiguous call should take the one-pass kernel"
    fast_calls.clear()
    perm = _interleaved(qid)
    general = skrank.evaluate(y[perm], s[perm], qid[perm], metrics=METRICS, ties=ties,
                              gain=gain, tie_bounds=True)
    assert not fast_calls, "interleaved queries should take the general kernel"
    _assert_same(fast, general)
    for name in METRICS:
        assert fast[name].tie_interval == general[name].tie_interval


@pytest.mark.parametrize("ties", ["pessimistic", "input", "average"])
def test_ideal_order_by_label_equal_general_kernel(ties, fast_calls):
    # a gain table that falls with the label: the ideal ranking by label (LightGBM's) is not
    # the one by gain, and both kernels build it alike
    gain = (0.0, 5.0, 1.0, 7.25, 7.0)
    y, s, qid = _data(11)
    kw = dict(metrics=METRICS, ties=ties, gain=gain, ideal_order="label", tie_bounds=True)
    fast = skrank.evaluate(y, s, qid, **kw)
    assert fast_calls
    fast_calls.clear()
    perm = _interleaved(qid)
    general = skrank.evaluate(y[perm], s[perm], qid[perm], **kw)
    assert not fast_calls
    _assert_same(fast, general)
    by_gain = skrank.evaluate(y, s, qid, metrics=["ndcg@10"], ties=ties, gain=gain)
    assert fast["ndcg@10"].value > by_gain["ndcg@10"].value  # a smaller (wrong) ideal DCG
    assert np.nanmax(fast["ndcg@10"].per_query) > 1.0


@pytest.mark.parametrize("preset", ["lightgbm", "xgboost"])
def test_presets_agree_across_kernels(preset):
    y, s, qid = _data(7)
    metrics = ["ndcg@5", "ndcg@10", "ap@10", "p@10"]
    w = np.random.default_rng(7).random(y.shape[0]).astype(np.float32)
    if preset == "xgboost":  # one weight per query, as XGBoost takes them
        w = w[np.unique(qid, return_inverse=True)[1]]
    kw = {"sample_weight": w}
    a = skrank.evaluate(y, s, qid, metrics=metrics, preset=preset, **kw)
    perm = _interleaved(qid)
    kw = {k: v[perm] for k, v in kw.items()}
    b = skrank.evaluate(y[perm], s[perm], qid[perm], metrics=metrics, preset=preset, **kw)
    _assert_same(a, b)


def test_large_queries_and_n_jobs(fast_calls):
    # queries longer than 255 rows flush the packed label counts more than once; labels 8+
    # are counted in memory
    y, s, qid = _data(3, n_queries=12, max_size=900, n_labels=12)
    metrics = ["ndcg@10", "ap@20", "rr", "err@5"]
    a = skrank.evaluate(y, s, qid, metrics=metrics, max_label=11)
    b = skrank.evaluate(y, s, qid, metrics=metrics, max_label=11, n_jobs=3)
    assert fast_calls
    perm = _interleaved(qid)
    c = skrank.evaluate(y[perm], s[perm], qid[perm], metrics=metrics, max_label=11)
    _assert_same(a, b)
    _assert_same(a, c)


def test_float_labels_take_the_same_route(fast_calls):
    y, s, qid = _data(4)
    a = skrank.evaluate(y, s, qid, metrics=METRICS)
    b = skrank.evaluate(y.astype(np.float64), s, qid, metrics=METRICS)
    assert len(fast_calls) == 2
    _assert_same(a, b)


@pytest.mark.parametrize("change", ["fractional", "large"])
def test_labels_the_one_pass_kernel_cannot_take(change, fast_calls):
    # valid labels outside the small-integer table: the kernel stops, the general one answers
    y, s, qid = _data(5)
    y = y.astype(np.float64)
    y[5] = 0.5 if change == "fractional" else 100.0
    gain = "linear"
    a = skrank.evaluate(y, s, qid, metrics=METRICS, gain=gain)
    assert fast_calls
    perm = _interleaved(qid)
    b = skrank.evaluate(y[perm], s[perm], qid[perm], metrics=METRICS, gain=gain)
    _assert_same(a, b)


def test_routes_not_taken_by_the_one_pass_kernel(fast_calls):
    y, s, qid = _data(6)
    for kw in ({"ties": "docid", "doc_id": np.arange(y.shape[0])}, {"metrics": ["ndcg@50"]},
               {"metrics": ["ndcg"]}, {"metrics": ["err@10"]},
               {"retrieved": np.ones(y.shape[0], bool)}, {"doc_id": np.arange(y.shape[0])}):
        skrank.evaluate(y, s, qid, **kw)
    assert not fast_calls


def _first_bad_row(y, s, offsets, gain="exp"):
    """What the one-pass kernel reports: -1, or the first row it cannot take."""
    conv = skrank.Conventions(gain=gain)
    spec = [skrank.Metric.parse("ndcg@10")]
    table, order, err_scale, kinds, ks = _fast._fast_setup(conv, conv, spec, spec)
    out = _fast._fast_outputs(offsets.shape[0] - 1, 1)
    return _fast._kernel(y, s, offsets, conv, "pessimistic", table, order, err_scale,
                             kinds, ks, *out)


_BAD_LABELS = {"negative label": -1, "label past the table": 63, "fractional label": 0.5,
               "nan label": np.nan}
_BAD_CASES = [
    (dtype, bad)
    for dtype in (np.int64, np.int32, np.uint8, np.float64)
    for bad in ("nan score", "inf score", "-inf score", *_BAD_LABELS)
    # only what the dtype can hold: no negative uint8, no fractional or NaN integers
    if not (dtype == np.uint8 and bad == "negative label")
    and not (dtype != np.float64 and bad in ("fractional label", "nan label"))
]


@pytest.mark.parametrize(("dtype", "bad"), _BAD_CASES)
def test_the_kernel_reports_the_first_bad_row(dtype, bad):
    # rows are checked 255 at a time without branching on each; the first bad row of the
    # first bad block is found afterwards: try rows in the first block, deep in a second
    # block of a long query, and last, each with a later bad row too
    sizes = [3, 600, 40]
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    n = int(offsets[-1])
    rng = np.random.default_rng(7)
    for row in (0, 2, 3 + 255 + 17, n - 1):
        y = rng.integers(0, 5, n).astype(dtype)
        s = rng.random(n)
        assert _first_bad_row(y, s, offsets) == -1
        for r in (row, min(row + 1, n - 1), n - 1):
            if bad.endswith("score"):
                s[r] = {"nan score": np.nan, "inf score": np.inf, "-inf score": -np.inf}[bad]
            else:
                y[r] = _BAD_LABELS[bad]
        assert _first_bad_row(y, s, offsets) == row, (bad, row)


def test_value_errors_come_before_grouping_errors():
    # a NaN score and a misaligned qid: the score is reported first on either route
    with pytest.raises(InputError, match="'y_score'"):
        skrank.evaluate([1, 0, 1], [0.1, np.nan, 0.3], [1, 1])
    with pytest.raises(InputError, match="'y_true'"):
        skrank.evaluate([1, -1, 1], [0.1, 0.2, 0.3], [1, 1], group=None)
    with pytest.raises(InputError, match="'y_true'"):
        skrank.evaluate([1, np.nan, 1], [0.1, 0.2, 0.3], [1, 2, 1],
                        sample_weight=[1.0, -1.0, 1.0])


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic", "input", "average"])
def test_heavy_ties_equal_general_kernel(ties):
    # three distinct scores in queries of 100..300 rows: more than 64 rows reach any threshold
    # that 10 rows reach, so the one-pass kernel ranks them with its insertion buffer
    rng = np.random.default_rng(11)
    sizes = rng.integers(100, 300, size=15)
    qid = np.repeat(np.arange(15), sizes)
    y = rng.integers(0, 4, size=qid.shape[0])
    s = rng.integers(0, 3, size=qid.shape[0]).astype(float)
    metrics = ["ndcg@10", "ap@10", "p@10", "rr", "hit@5"]
    a = skrank.evaluate(y, s, qid, metrics=metrics, ties=ties)
    perm = _interleaved(qid)
    b = skrank.evaluate(y[perm], s[perm], qid[perm], metrics=metrics, ties=ties)
    _assert_same(a, b)
    assert a["ndcg@10"].n_tie_affected > 0


@pytest.mark.parametrize("ties", ["pessimistic", "average"])
def test_err_with_max_label_equal_general_kernel(ties, fast_calls):
    y, s, qid = _data(12)
    metrics = ["err@5", "err@20", "ndcg@5"]
    a = skrank.evaluate(y, s, qid, metrics=metrics, ties=ties, max_label=4)
    assert fast_calls
    perm = _interleaved(qid)
    b = skrank.evaluate(y[perm], s[perm], qid[perm], metrics=metrics, ties=ties, max_label=4)
    _assert_same(a, b)


@pytest.mark.parametrize("layout", ["increasing", "decreasing", "interleaved", "one_query"])
@pytest.mark.parametrize("n_jobs", [2, 3])
def test_threads_group_their_own_slices(layout, n_jobs, monkeypatch):
    # from 200,000 rows, with n_jobs > 1, each thread groups and evaluates a slice of rows
    # cut at query boundaries; lower the threshold to test it on small inputs
    monkeypatch.setattr(_evaluate, "_SPLIT_ROWS", 0)
    y, s, qid = _data(21, n_queries=40)
    if layout == "decreasing":
        qid = -qid
    elif layout == "interleaved":
        perm = _interleaved(qid)
        y, s, qid = y[perm], s[perm], qid[perm]
    elif layout == "one_query":
        qid = np.zeros_like(qid)
    metrics = ["ndcg@10", "ap@10", "rr"]
    a = skrank.evaluate(y, s, qid, metrics=metrics, n_jobs=n_jobs, tie_bounds=True)
    b = skrank.evaluate(y, s, qid, metrics=metrics, tie_bounds=True)
    np.testing.assert_array_equal(a.qids, b.qids)
    _assert_same(a, b)


@pytest.mark.parametrize("n_threads", [2, 3, 8])
def test_slices_shrink_towards_the_end(n_threads):
    n = 1_000_000
    cuts = [0, *_fast._shrinking_cuts(n, n_threads), n]
    sizes = np.diff(cuts)
    assert (sizes > 0).all() and len(sizes) == 2 * n_threads
    # one large slice per thread, then small ones that let the threads end together
    assert sizes[:n_threads].min() > 3 * sizes[n_threads:].max()


def test_threads_report_the_first_bad_row(monkeypatch):
    monkeypatch.setattr(_evaluate, "_SPLIT_ROWS", 0)
    y, s, qid = _data(22, n_queries=40)
    s = s.copy()
    s[-3] = np.inf
    s[len(s) // 2 + 1] = np.nan
    with pytest.raises(InputError, match=rf"Got nan at row {len(s) // 2 + 1} instead"):
        skrank.evaluate(y, s, qid, n_jobs=2)


def test_unsigned_labels(fast_calls):
    y, s, qid = _data(23)
    a = skrank.evaluate(y.astype(np.uint8), s, qid, metrics=METRICS)
    assert fast_calls
    _assert_same(a, skrank.evaluate(y, s, qid, metrics=METRICS))
    # uint64 beyond int64's range is read as float64, so the error shows the value given
    with pytest.raises(InputError, match=r"labels <= 1000 with gain='exp'.* Got 9\.2"):
        skrank.evaluate(np.array([1, 2**63 + 5], dtype=np.uint64), [0.1, 0.2], [1, 1])


@pytest.mark.parametrize("ties", ["pessimistic", "input", "average"])
def test_heavy_ties_with_a_tie_group_ending_at_the_cutoff(ties):
    # 8 rows score 3, a mixed pair scores 2 (ranks 9 and 10), 70 rows score 1: the threshold
    # search cannot isolate 10 rows, so the insertion buffer ranks them; at k=10 the pair is
    # not split (no tie flag for P@10), at k=9 it is; any order of the ties gives the same
    # top 10 set: P@10 = 9/10, hit@10 = 1
    y = np.r_[np.ones(8, int), [0, 1], np.zeros(70, int) + np.arange(70) % 2]
    s = np.r_[np.full(8, 3.0), [2.0, 2.0], np.full(70, 1.0)]
    qid = np.zeros(80, int)
    metrics = ["p@10", "p@9", "ndcg@10", "hit@10"]
    a = skrank.evaluate(y, s, qid, metrics=metrics, ties=ties)
    b = skrank.evaluate(y[::-1], s[::-1], qid, metrics=metrics, ties=ties)  # same top 10 set
    assert a["p@10"].n_tie_affected == 0
    assert a["p@9"].n_tie_affected == 1
    assert a["p@10"].per_query[0] == b["p@10"].per_query[0] == 0.9
    assert a["hit@10"].per_query[0] == b["hit@10"].per_query[0] == 1.0


def test_a_metric_without_cutoff_leaves_the_others_on_the_one_pass_kernel(fast_calls):
    # AP (no cutoff) beside NDCG@10: NDCG@10 still takes the one-pass kernel, AP the general
    # one; each number equals the metric computed alone
    y, s, qid = _data(31)
    both = skrank.evaluate(y, s, qid, metrics=["ndcg@10", "ap", "rr"], tie_bounds=True)
    assert fast_calls
    for name in ("ndcg@10", "ap", "rr"):
        alone = skrank.evaluate(y, s, qid, metrics=[name], tie_bounds=True)
        np.testing.assert_array_equal(both[name].per_query, alone[name].per_query)
        assert both[name].value == alone[name].value
        assert both[name].tie_interval == alone[name].tie_interval
        assert both[name].n_tie_affected == alone[name].n_tie_affected
    assert list(both) == ["ndcg@10", "ap", "rr"]
