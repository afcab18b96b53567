"""skrank.dask.evaluate gives the result of skrank.evaluate on the collected rows.

The data are partitioned by row (each query's rows spread over several partitions); the
result must still equal ``skrank.evaluate`` on ``ddf.compute()``: per-query values bit for
bit, the means, counts, tie ranges and conventions, under every family of conventions (one-
pass and general kernel, tie rules, weights, empty-query rules, the pool, ERR's scale).
"""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.dataframe.dask_expr._shuffle import get_default_shuffle_method
from hypothesis import given, settings
from hypothesis import strategies as st

import skrank
import skrank.dask
import skrank.stats
from skrank.dask._evaluate import (
    _ROWS_PER_PARTITION,
    _output_partitions,
    _per_query,
    _run,
    _shuffle_method,
)
from skrank.dask._layout import plan_layout
from skrank.metrics._pieces import make_plan

from .._distributed import CONVENTIONS, assert_same_result, engine_result, random_frame, reference


def _evaluate(ddf, name, weights=True, **kw):
    return engine_result(skrank.dask.evaluate, ddf, name, weights, **kw)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(sorted(CONVENTIONS)),
       npartitions=st.integers(1, 5), str_qid=st.booleans(), weights=st.booleans())
def test_equals_evaluate_on_collected_rows(seed, name, npartitions, str_qid, weights):
    frame = random_frame(seed, n_queries=12, max_size=9, str_qid=str_qid)
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    with dask.config.set(scheduler="sync"):
        got = _evaluate(ddf, name, weights)
    assert_same_result(got, reference(ddf.compute(), name, weights=weights))


@pytest.mark.parametrize("method", ["p2p", "tasks", None])
@pytest.mark.parametrize("name", ["default", "tie_bounds", "trec_eval"])
def test_local_cluster(dask_client, name, method):
    # the distributed scheduler: both shuffles (None: evaluate's choice, tasks for so few
    # partitions), two workers, more partitions than workers
    frame = random_frame(7, n_queries=300, max_size=40)
    ddf = dd.from_pandas(frame, npartitions=6, sort=False)
    with dask_client.as_current(), dask.config.set({"dataframe.shuffle.method": method}):
        assert get_default_shuffle_method() == (method or "p2p")
        got = _evaluate(ddf, name, npartitions=3)
    assert got.n_queries == 300
    assert_same_result(got, reference(frame, name))


def test_shuffle_method(dask_client):
    # the caller's setting; else tasks for a one-stage shuffle where the engine takes p2p
    with dask_client.as_current():
        assert _shuffle_method(16, 16) == "tasks"
        assert _shuffle_method(64, 64) is None  # p2p, the engine's default
        with dask.config.set({"dataframe.shuffle.method": "p2p"}):
            assert _shuffle_method(16, 16) is None
    with dask.config.set(scheduler="sync"):
        assert _shuffle_method(16, 16) is None  # the local scheduler's own default


def _graph_keys(rows, npartitions):
    plan = make_plan(["ndcg@5"], None, None, False, False, False, "skrank.dask.evaluate", {})
    names = {"qid": "qid", "y_true": "y_true", "y_score": "y_score", "doc_id": None,
             "sample_weight": None, "retrieved": None}
    tables = _per_query(rows, plan, plan_layout(rows, names), npartitions, shuffle=True)
    # each partition's task holds the graph of the whole shuffle
    return " ".join(str(k) for k in tables[0].__dask_graph__())


def test_the_chosen_shuffle_method_is_the_one_that_runs(dask_client):
    # the method chosen reaches the shuffle (a keyword the shuffle ignored once left Dask's
    # default, p2p, in place): the lowered graph holds the task shuffle's tasks, not p2p's
    rows = dd.from_pandas(random_frame(2, n_queries=30, max_size=5), npartitions=4,
                          sort=False)[["qid", "y_true", "y_score"]]
    with dask_client.as_current():
        keys = _graph_keys(rows, 4)
        assert "taskshuffle" in keys and "p2p" not in keys
        with dask.config.set({"dataframe.shuffle.method": "p2p"}):
            keys = _graph_keys(rows, 4)
            assert "p2p" in keys and "taskshuffle" not in keys


def test_default_output_partitions():
    # one a thread, no more than the input has, while a partition holds no more rows than
    # the limit; else as many per thread as that takes; no client (threads None) or no
    # count of the rows (None): as many as the input has
    cap = _ROWS_PER_PARTITION
    assert _output_partitions(16, 10_000, 2) == 2
    assert _output_partitions(3, 1_000, 8) == 3
    assert _output_partitions(16, 0, 2) == 2
    assert _output_partitions(16, 2 * cap, 2) == 2
    assert _output_partitions(16, 2 * cap + 1, 2) == 4
    assert _output_partitions(16, 10_000_000, 2) == 10
    assert _output_partitions(16, 6 * cap, 2) == 6
    assert _output_partitions(16, 6 * cap + 1, 2) == 8
    assert _output_partitions(4, 40 * cap, 2) == 40  # more than the input
    assert _output_partitions(3, 40 * cap, 1) == 40
    assert _output_partitions(16, 10_000_000, None) == 16
    assert _output_partitions(16, None, 2) == 16


def test_default_partitions_are_the_clusters_threads(dask_client):
    # under the client (two single-threaded workers) the rows of six input partitions are
    # shuffled into two, one a thread; the result is the same
    frame = random_frame(11, n_queries=200, max_size=30)
    ddf = dd.from_pandas(frame, npartitions=6, sort=False)
    rows = ddf[["qid", "y_true", "y_score"]]
    plan = make_plan(["ndcg@5"], None, None, False, False, False, "skrank.dask.evaluate", {})
    names = {"qid": "qid", "y_true": "y_true", "y_score": "y_score", "doc_id": None,
             "sample_weight": None, "retrieved": None}
    with dask_client.as_current():
        assert len(_per_query(rows, plan, plan_layout(rows, names), None, shuffle=True)) == 2
        assert len(_per_query(rows, plan, plan_layout(rows, names), 5, shuffle=True)) == 5
        got = _evaluate(ddf, "default")
        with dask.config.set(scheduler="sync"):  # a local scheduler: the input's partitions
            assert len(_per_query(rows, plan, plan_layout(rows, names), None,
                                  shuffle=True)) == 6
    assert len(_per_query(rows, plan, plan_layout(rows, names), None, shuffle=True)) == 6
    assert_same_result(got, reference(frame, "default"))


def test_partition_count_changes_nothing():
    frame = random_frame(3, n_queries=60, max_size=20)
    results = []
    with dask.config.set(scheduler="sync"):
        for parts, after in [(1, 1), (4, 2), (7, 7), (3, 11)]:
            ddf = dd.from_pandas(frame, npartitions=parts, sort=False)
            results.append(_evaluate(ddf, "default", npartitions=after))
    for r in results[1:]:
        assert_same_result(r, results[0])


def test_split_queries_are_refused():
    # without the shuffle, partitions made by row cut queries: the driver sees a query twice
    frame = random_frame(5, n_queries=20, max_size=10, weights=False)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    names = {"qid": "qid", "y_true": "y_true", "y_score": "y_score", "doc_id": None,
             "sample_weight": None, "retrieved": None}
    plan = make_plan(["ndcg@5"], None, None, False, False, False, "skrank.dask.evaluate", {})
    with dask.config.set(scheduler="sync"):
        with pytest.raises(skrank.InputError, match=r"reached skrank.dask.evaluate in two "
                                                    r"pieces.*routed to one task"):
            rows = ddf[["qid", "y_true", "y_score"]]
            _run(rows, plan, plan_layout(rows, names), None, shuffle=False)


@pytest.mark.parametrize("strings", [False, True])
def test_duplicate_documents_are_refused(strings):
    frame = random_frame(2, n_queries=10, max_size=5, weights=False)
    frame.loc[1, ["qid", "doc"]] = frame.loc[0, ["qid", "doc"]].to_numpy()
    if strings:  # object ids: Python strings (their message crashed on .item())
        frame["doc"] = frame["doc"].map(lambda d: f"d{d}").astype(object)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    q, d = frame.loc[0, "qid"], frame.loc[0, "doc"]
    d = repr(d) if strings else d
    with dask.config.set(scheduler="sync"):
        with pytest.raises(skrank.InputError, match=rf"'doc_id' parameter of "
                           rf"skrank.dask.evaluate must not repeat a document within a query."
                           rf" Got {d} twice in query {q} \(again at row 1 of input "
                           rf"partition 0\)\."):
            skrank.dask.evaluate(ddf, metrics=["ndcg@5"], doc_id="doc")


def test_bad_row_is_named_by_its_place_in_the_input():
    frame = random_frame(4, n_queries=10, max_size=5, weights=False)
    frame.loc[13, "y_score"] = np.nan
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    sizes = ddf.map_partitions(len).compute().tolist()
    part = int(np.searchsorted(np.cumsum(sizes), 13, side="right"))
    row = 13 - sum(sizes[:part])
    with dask.config.set(scheduler="sync"):
        with pytest.raises(skrank.InputError, match=rf"must hold finite scores\. Got nan at "
                           rf"row {row} of input partition {part} instead\.$"):
            skrank.dask.evaluate(ddf, metrics=["ndcg@5"])


def test_of_two_bad_rows_the_first_in_input_order_is_named():
    # the piece gathers each query's rows before evaluate (query 7 first, it appears first),
    # yet the error is evaluate's on the rows in input order: row 2 (query 5), not row 3
    frame = pd.DataFrame({"qid": [7, 5, 5, 7, 7, 5], "y_true": [1, 0, 1, 0, 1, 1],
                          "y_score": [0.5, 0.1, np.nan, np.nan, 0.4, 0.2]})
    with pytest.raises(skrank.InputError, match=r"Got nan at row 2 instead\.$"):
        skrank.evaluate(frame.y_true, frame.y_score, frame.qid, metrics=["ndcg@5"])
    ddf = dd.from_pandas(frame, npartitions=1, sort=False)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(skrank.InputError, match=r"Got nan at row 2 of input partition 0 "
                                                    r"instead\.$"):
            skrank.dask.evaluate(ddf, metrics=["ndcg@5"], npartitions=1)


@pytest.mark.parametrize("npartitions", [2, 3, 4, 5])
def test_of_bad_rows_in_two_output_partitions_the_first_in_the_input_is_named(npartitions):
    # the two NaN rows land in different shuffled partitions (for some npartitions the later
    # one in the partition that holds the earliest rows): the error names input row 30
    rng = np.random.default_rng(0)
    n = 4000
    frame = pd.DataFrame({"qid": rng.integers(0, 200, n), "y_true": rng.integers(0, 4, n),
                          "y_score": rng.random(n)})
    frame.loc[[30, 3000], "y_score"] = np.nan
    with pytest.raises(skrank.InputError, match=r"Got nan at row 30 instead\.$"):
        skrank.evaluate(frame.y_true, frame.y_score, frame.qid)
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    assert ddf.map_partitions(len).compute().tolist()[0] > 30
    with dask.config.set(scheduler="sync"):
        with pytest.raises(skrank.InputError, match=r"Got nan at row 30 of input partition 0 "
                                                    r"instead\.$"):
            skrank.dask.evaluate(ddf, npartitions=npartitions)


def test_frame_errors_before_any_task():
    frame = random_frame(9, n_queries=6, max_size=5, weights=False)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    with pytest.raises(skrank.InvalidParameterError, match=r"'retrieved' parameter of "
                       r"skrank.dask.evaluate must name a boolean column of ddf\. Got "
                       r"'y_true', a column of type int64, instead\.$"):
        skrank.dask.evaluate(ddf, retrieved="y_true")
    twice = dd.from_pandas(pd.concat([frame, frame[["y_true"]]], axis=1), npartitions=2,
                           sort=False)
    with pytest.raises(skrank.InvalidParameterError, match=r"must be the name of one column "
                                                           r"of ddf \(it names 2"):
        skrank.dask.evaluate(twice)
    text = dd.from_pandas(frame.assign(y_true=frame.y_true.astype(str)), npartitions=2,
                          sort=False)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(skrank.InputError, match=r"'y_true' parameter of "
                                                    r"skrank.dask.evaluate must hold numbers"):
            skrank.dask.evaluate(text, metrics=["err@10"])
        got = skrank.dask.evaluate(ddf, metrics=["rr"], npartitions=np.int64(2))
    assert_same_result(got, reference(frame, "default", metrics=["rr"], weights=False))


def test_err_over_categorical_labels():
    # ERR's scale is the largest label of the whole input, taken on the driver: of a
    # categorical column, the largest of its values (an unordered one has no max)
    frame = random_frame(10, n_queries=8, max_size=6, weights=False)
    labels = frame.assign(y_true=frame.y_true.astype(float).astype("category"))
    want = skrank.evaluate(labels.y_true.to_numpy(dtype=float), labels.y_score, labels.qid,
                           metrics=["err@10"])
    with dask.config.set(scheduler="sync"):
        got = skrank.dask.evaluate(dd.from_pandas(labels, npartitions=3, sort=False),
                                   metrics=["err@10"])
        assert_same_result(got, want)
        text = frame.assign(y_true=frame.y_true.map(dict(enumerate("abcd"))).astype("category"))
        with pytest.raises(skrank.InputError, match=r"must hold numbers"):
            skrank.dask.evaluate(dd.from_pandas(text, npartitions=3, sort=False),
                                 metrics=["err@10"])


def test_empty_error_names_the_first_query_of_the_input():
    frame = random_frame(6, n_queries=15, max_size=6, weights=False)
    want = reference(frame, "default", metrics=["rr"], weights=False)
    first = want.qids[np.isnan(want["rr"].per_query)][0].item()
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(skrank.EmptyQueryError, match=rf"\(first: query {first!r}\)"):
            skrank.dask.evaluate(ddf, metrics=["rr"], empty="error")
        with pytest.raises(skrank.EmptyQueryError) as exc:
            skrank.evaluate(frame.y_true, frame.y_score, frame.qid, metrics=["rr"],
                            empty="error")
        assert f"(first: query {first!r})" in str(exc.value)


def test_err_scale_comes_from_the_whole_input():
    # ERR without max_label takes 2**-max over all rows, not over a partition's rows
    frame = random_frame(8, n_queries=30, max_size=8, weights=False)
    frame.loc[0, "y_true"] = 7
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    with dask.config.set(scheduler="sync"):
        got = skrank.dask.evaluate(ddf, metrics=["err@4", "err"])
        assert_same_result(got, reference(frame, "default", metrics=["err@4", "err"],
                                          weights=False))
        frame["y_true"] = frame["y_true"] + 0.5
        ddf = dd.from_pandas(frame, npartitions=4, sort=False)
        with pytest.raises(skrank.InvalidParameterError, match="'max_label' parameter"):
            skrank.dask.evaluate(ddf, metrics=["err@4"])
        got = skrank.dask.evaluate(ddf, metrics=["err@4"], max_label=8, gain="linear")
        want = skrank.evaluate(frame.y_true, frame.y_score, frame.qid, metrics=["err@4"],
                               max_label=8, gain="linear")
        assert_same_result(got, want)


def test_parameter_errors():
    frame = random_frame(1, n_queries=3, max_size=3)
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(skrank.InvalidParameterError, match=r"'ddf' parameter of "
                       r"skrank.dask.evaluate must be a dask.dataframe.DataFrame\. Got "
                       r"'DataFrame' instead"):
        skrank.dask.evaluate(frame)
    with pytest.raises(skrank.InvalidParameterError, match=r"'y_score' parameter .* must be "
                       r"the name of a column of ddf \('qid', .*\)\. Got 'score' instead"):
        skrank.dask.evaluate(ddf, y_score="score")
    with pytest.raises(skrank.InvalidParameterError, match="'ties' parameter"):
        skrank.dask.evaluate(ddf, ties="random")
    with pytest.raises(skrank.InvalidParameterError, match="'npartitions' parameter"):
        skrank.dask.evaluate(ddf, npartitions=0)


def test_paired_statistics_run_unchanged_on_the_per_query_values():
    frame = random_frame(9, n_queries=80, max_size=15, weights=False)
    rng = np.random.default_rng(9)
    frame["other"] = frame["y_score"] + rng.normal(0, 0.3, frame.shape[0])
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    with dask.config.set(scheduler="sync"):
        a = skrank.dask.evaluate(ddf, metrics=["ndcg@10"])["ndcg@10"]
        b = skrank.dask.evaluate(ddf, metrics=["ndcg@10"], y_score="other")["ndcg@10"]
    ra = skrank.evaluate(frame.y_true, frame.y_score, frame.qid, metrics=["ndcg@10"])
    rb = skrank.evaluate(frame.y_true, frame.other, frame.qid, metrics=["ndcg@10"])
    got = skrank.stats.paired_comparison(a, b, n_resamples=500, n_permutations=500, rng=0)
    want = skrank.stats.paired_comparison(ra["ndcg@10"], rb["ndcg@10"], n_resamples=500,
                                          n_permutations=500, rng=0)
    assert got.to_dict() == want.to_dict()
    many = skrank.stats.compare_many({"a": a, "b": b}, baseline="b", n_resamples=200,
                                     n_permutations=200, rng=0)
    assert str(many) == str(skrank.stats.compare_many(
        {"a": ra["ndcg@10"], "b": rb["ndcg@10"]}, baseline="b", n_resamples=200,
        n_permutations=200, rng=0))


@pytest.mark.parametrize("index", ["shuffled", "sorted", "qid"])
def test_any_index_of_the_input(index):
    # the positions replace the input's index (known divisions included) in the shuffle; under
    # ties="input" a row out of its input order would change the values
    frame = random_frame(10, n_queries=30, max_size=12, weights=False)
    frame.index = np.random.default_rng(10).permutation(frame.shape[0]) * 7
    if index == "sorted":
        frame = frame.sort_index()
    elif index == "qid":
        frame = frame.set_index(frame["qid"].rename("q"))
    ddf = dd.from_pandas(frame, npartitions=4, sort=index != "shuffled")
    assert ddf.known_divisions == (index != "shuffled")
    with dask.config.set(scheduler="sync"):
        got = skrank.dask.evaluate(ddf, metrics=["ndcg@5", "ap", "rr"], ties="input")
    want = skrank.evaluate(*(ddf.compute()[c].to_numpy() for c in ("y_true", "y_score", "qid")),
                           metrics=["ndcg@5", "ap", "rr"], ties="input")
    assert_same_result(got, want)


@pytest.mark.parametrize("dtype", ["boolean", "bool[pyarrow]"])
def test_nullable_retrieved_flags(dtype):
    # a nullable boolean column without nulls is taken as it is; a null is refused at the
    # first such row of the input (not by evaluate's message about the piece's array), even
    # where the shuffle joined it to rows of other partitions (then objects, not booleans)
    frame = random_frame(18, n_queries=20, max_size=8, weights=False)
    kw = dict(metrics=["ndcg@5", "ap"], idcg="pool")
    want = skrank.evaluate(frame.y_true, frame.y_score, frame.qid,
                           retrieved=frame.retrieved.to_numpy(), **kw)
    nullable = frame.astype({"retrieved": dtype})
    with dask.config.set(scheduler="sync"):
        for npartitions in (1, 3):
            got = skrank.dask.evaluate(dd.from_pandas(nullable, npartitions=3, sort=False),
                                       retrieved="retrieved", npartitions=npartitions, **kw)
            assert_same_result(got, want)
    nullable.loc[[len(frame) - 2, 40], "retrieved"] = pd.NA
    ddf = dd.from_pandas(nullable, npartitions=3, sort=False)
    sizes = ddf.map_partitions(len).compute().tolist()
    part = int(np.searchsorted(np.cumsum(sizes), 40, side="right"))
    with pytest.raises(skrank.InputError, match=r"'retrieved' parameter of evaluate must hold "
                       r"booleans without nulls .* Got a null at row 40 instead"):
        skrank.evaluate(frame.y_true, frame.y_score, frame.qid,
                        retrieved=nullable.retrieved.array, **kw)
    with dask.config.set(scheduler="sync"):
        for npartitions in (1, 2, 4):
            with pytest.raises(skrank.InputError, match=(
                    r"^The 'retrieved' parameter of skrank.dask.evaluate must hold booleans "
                    r"without nulls \(a row either was retrieved or was not: drop the "
                    r"row, or fill the null with False or True\)\. Got a null at row "
                    rf"{40 - sum(sizes[:part])} of input partition {part} instead\.$")):
                skrank.dask.evaluate(ddf, retrieved="retrieved", npartitions=npartitions, **kw)


def _decimals(values, precision: int, scale: int) -> pd.Series:
    """Numbers as a pyarrow decimal column (values rounded to ``scale`` places)."""
    import decimal

    import pyarrow as pa

    return pd.Series([None if v is None else decimal.Decimal(f"{v:.{max(scale, 0)}f}")
                      for v in values], dtype=pd.ArrowDtype(pa.decimal128(precision, scale)))


def test_decimal_columns_are_taken_as_the_nearest_doubles():
    # decimals of at most 15 digits: each value the double nearest to it (Python's float of
    # the Decimal; pyarrow's cast is a unit off for many), so the result is evaluate's on
    # those doubles, bit for bit; more digits are refused before any task
    frame = random_frame(19, n_queries=25, max_size=10)
    rng = np.random.default_rng(19)
    frame["y_score"] = rng.integers(-10**9, 10**9, len(frame)) / 10**4  # ties are rare
    frame.loc[frame.index[::7], "y_score"] = 0.1234  # and some are made
    dec = frame.assign(y_true=_decimals(frame.y_true, 3, 0),
                       y_score=_decimals(frame.y_score, 10, 4), w=_decimals(frame.w, 15, 13))
    as_float = {c: np.array([float(v) for v in dec[c]]) for c in ("y_true", "y_score", "w")}
    metrics = ["ndcg@5", "ap", "err", "rr"]
    want = skrank.evaluate(as_float["y_true"], as_float["y_score"], frame.qid,
                           metrics=metrics, sample_weight=as_float["w"])
    with dask.config.set(scheduler="sync"):
        got = skrank.dask.evaluate(dd.from_pandas(dec, npartitions=3, sort=False),
                                   metrics=metrics, sample_weight="w")
    assert_same_result(got, want)
    dec["y_true"] = _decimals([None if i == 50 else v for i, v in enumerate(frame.y_true)],
                              3, 0)
    ddf = dd.from_pandas(dec, npartitions=3, sort=False)
    sizes = ddf.map_partitions(len).compute().tolist()
    assert sizes[0] <= 50 < sizes[0] + sizes[1]
    with dask.config.set(scheduler="sync"):
        with pytest.raises(skrank.InputError, match=rf"finite relevance labels\. Got nan at "
                                                    rf"row {50 - sizes[0]} of input "
                                                    r"partition 1 instead\.$"):
            skrank.dask.evaluate(ddf, metrics=metrics)
    wide = dd.from_pandas(dec.assign(y_score=_decimals(frame.y_score, 16, 4)), npartitions=2)
    with pytest.raises(skrank.InvalidParameterError, match=(
            r"^The 'y_score' parameter of skrank.dask.evaluate must name a column of numbers "
            r"of ddf; a decimal column is taken as doubles where it has at most 15 digits .*"
            r"Got 'y_score', a column of type decimal128\(16, 4\)\[pyarrow\], instead: cast "
            r"it to double")):
        skrank.dask.evaluate(wide, metrics=metrics)


@pytest.mark.parametrize("kind", ["decimal32(7, 2)", "decimal64(15, 6)", "decimal128(15, -3)",
                                  "decimal256(15, 9)", "decimal128(5, 30)"])
def test_decimals_become_the_nearest_doubles(kind):
    # each width's unscaled integers read from its buffer, at an offset and over chunks, a
    # null as NaN; a scale beyond 22 (no power of ten is a double there) by Python's float
    import decimal

    import pyarrow as pa

    from skrank.dask._evaluate import _as_floats

    width, args = kind.split("(")
    precision, scale = (int(a) for a in args.rstrip(")").split(","))
    rng = np.random.default_rng(precision)
    values = [decimal.Decimal(int(m)).scaleb(-scale)
              for m in rng.integers(-10**precision + 1, 10**precision, 500)]
    values[7] = None
    dtype = pd.ArrowDtype(getattr(pa, width)(precision, scale))
    column = pd.concat([pd.Series(values[:200], dtype=dtype),
                        pd.Series(values[200:], dtype=dtype).iloc[30:280]], ignore_index=True)
    want = np.array([np.nan if v is None else float(v) for v in values[:200] + values[230:480]])
    got = _as_floats(pd.DataFrame({"x": column}), {"x": scale})["x"].to_numpy()
    assert got.dtype == np.float64
    assert got.tobytes() == want.tobytes()
    sliced = pd.Series(values, dtype=dtype).iloc[230:480]  # one chunk, at an offset
    got = _as_floats(pd.DataFrame({"x": sliced}), {"x": scale})["x"].to_numpy()
    assert got.tobytes() == want[200:].tobytes()
