"""skrank.spark.evaluate gives the result of skrank.evaluate on the collected rows.

Both ways of putting a partition in order are checked: the task's own sort (``sort="task"``)
and Spark's (``sort="spark"``). The session's Arrow batches hold 7 rows, so batch boundaries
cut most queries: under ``sort="spark"`` the carry-over is what keeps them whole, and turning
it off is refused. The input is partitioned by row. The tasks' functions are also run here
in-process on Arrow batches, in an order of arrival the tests choose.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import skrank
import skrank.spark
import skrank.stats
from skrank.spark import _evaluate as S

from .._distributed import METRICS, assert_same_result, engine_result, random_frame, reference


def _frame(spark, frame):
    """The rows in 4 partitions by position (``spark.default.parallelism``): the order of
    the rows is fixed, and every query has rows in several partitions. (Not a round-robin
    ``repartition(4)``: which rows it sends where depends on the columns selected after it,
    so such a DataFrame has no fixed order of rows to compare with.)"""
    with warnings.catch_warnings():  # pyspark 4.3 warns about pandas 3
        warnings.simplefilter("ignore", FutureWarning)
        sdf = spark.createDataFrame(frame)
    assert sdf.rdd.getNumPartitions() == 4
    return sdf


def _collected(sdf):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return sdf.toPandas()


# the conventions are the engine-neutral part (tests/dask draws every set); here the sets
# that take each route: both kernels, weights, the pool, tie bounds, string query ids
@pytest.mark.parametrize("sort", ["task", "spark"])
@pytest.mark.parametrize("name,seed,str_qid", [
    ("tie_bounds", 1, True), ("xgboost", 3, False), ("trec_eval", 5, False),
    ("one", 7, True),
])
def test_equals_evaluate_on_collected_rows(spark, monkeypatch, name, seed, str_qid, sort):
    monkeypatch.setattr(S, "_CHUNK_ROWS", 1)  # evaluate every batch, carrying its last query
    sdf = _frame(spark, random_frame(seed, n_queries=25, max_size=20, str_qid=str_qid))
    got = engine_result(skrank.spark.evaluate, sdf, name, sort=sort)
    assert_same_result(got, reference(_collected(sdf), name))


@pytest.mark.parametrize("sort", ["task", "spark"])
def test_default_gathering_equals_too(spark, sort):
    sdf = _frame(spark, random_frame(11, n_queries=60, max_size=30))
    got = skrank.spark.evaluate(sdf, metrics=METRICS, num_partitions=2, tie_bounds=True,
                                sample_weight="w", sort=sort)
    assert_same_result(got, skrank.evaluate(*_arrays(_collected(sdf)), metrics=METRICS,
                                            tie_bounds=True,
                                            sample_weight=_collected(sdf)["w"].to_numpy()))


def _arrays(frame):
    return (frame["y_true"].to_numpy(), frame["y_score"].to_numpy(), frame["qid"].to_numpy())


def test_batches_split_queries_and_a_split_query_is_refused(spark, monkeypatch):
    monkeypatch.setattr(S, "_CHUNK_ROWS", 1)
    monkeypatch.setattr(S, "_CARRY", False)  # each 7-row batch alone: queries come in pieces
    sdf = _frame(spark, random_frame(12, n_queries=10, max_size=20))
    with pytest.raises(skrank.InputError, match=r"reached skrank.spark.evaluate in two "
                                                r"pieces"):
        skrank.spark.evaluate(sdf, metrics=["ndcg@10"], sort="spark")


def test_a_query_whose_rows_reach_two_tasks_is_refused(spark, monkeypatch):
    monkeypatch.setattr(S, "_SHUFFLE", False)  # the 4 input partitions, each query in several
    sdf = _frame(spark, random_frame(12, n_queries=10, max_size=20))
    with pytest.raises(skrank.InputError, match=r"reached skrank.spark.evaluate in two "
                                                r"pieces"):
        skrank.spark.evaluate(sdf, metrics=["ndcg@10"])


# the tasks' functions in-process: the columns as evaluate selects them, positions as
# monotonically_increasing_id makes them (partition 0 holds the first rows)
_NAMES = {"qid": "qid", "y_true": "y_true", "y_score": "y_score", "doc_id": "doc",
          "sample_weight": None, "retrieved": None}


def _task_rows(frame, packed=None):
    """The frame as the tasks' columns, with the rows' positions (3 input partitions); the
    labels in the positions' low bits where ``packed``."""
    import pyarrow as pa

    n = len(frame)
    part = np.arange(n) * 3 // n
    first = (part << S._ROW_BITS) + np.arange(n) - np.searchsorted(part, part)
    if packed:
        first = (first << S._LABEL_BITS) | frame["y_true"].to_numpy()
    return pa.table({S._COLS[p]: frame[c].to_numpy() for p, c in _NAMES.items()
                     if c is not None and not (packed and p == "y_true")} | {S.FIRST: first})


def _run_task(fn, table, batch_rows=7):
    """The per-query table ``fn`` makes of ``table`` sent as Arrow batches, as the driver
    gathers it."""
    import pyarrow as pa

    out = pa.Table.from_batches(list(fn(iter(table.to_batches(max_chunksize=batch_rows)))))
    return {c: out.column(c).to_numpy() for c in out.column_names}


def _plan(ties, frame):
    """The driver's plan: ERR's scale is the largest label of all rows."""
    from skrank.metrics._pieces import make_plan

    plan = make_plan(METRICS, None, None, False, False, False, S._CALLER, {"ties": ties})
    return plan.with_max_label(float(frame["y_true"].max()))


@pytest.mark.parametrize("packed", [None, "int64"])
@pytest.mark.parametrize("runs", ["reversed", "in order"])
@pytest.mark.parametrize("ties", ["input", "docid"])
def test_task_sort_puts_rows_back_in_input_order(ties, runs, packed):
    """The shuffle delivers each input partition's rows as a run, the runs in any order:
    here the last partition's first (the task sorts), or in the input's order (the task
    finds the positions increasing and moves nothing), the rows of every query spread over
    the runs."""
    from skrank.metrics._pieces import gather

    frame = random_frame(21, n_queries=30, max_size=25, weights=False)
    table = _task_rows(frame, packed)
    part = table.column(S.FIRST).to_numpy() >> (S._ROW_BITS + (S._LABEL_BITS if packed else 0))
    arrival = table.take(np.argsort(-part if runs == "reversed" else part,
                                    kind="stable"))  # runs 2, 1, 0 or 0, 1, 2
    plan = _plan(ties, frame)
    got = gather(plan, _run_task(S._Partition(plan, _NAMES, packed), arrival))
    assert_same_result(got, skrank.evaluate(*_arrays(frame), metrics=METRICS, ties=ties,
                                            doc_id=frame["doc"].to_numpy()))


def test_task_columns_are_views_of_the_joined_batches():
    """Integers and floats without nulls become NumPy views of one array joined in Arrow's
    memory pool (read-only); other columns (nulls, booleans, strings) as pyarrow converts
    them. Either way the values and dtype of ``ChunkedArray.to_numpy``."""
    import pyarrow as pa

    columns = {
        "int": pa.chunked_array([[3, 1], [2], [7, 7, 0]], pa.int64()),
        "int32": pa.chunked_array([[3, 1], [2]], pa.int32()),
        "float": pa.chunked_array([[0.5, np.nan], [2.0]], pa.float64()),
        "one chunk": pa.chunked_array([[1.5, 2.5, 0.0]], pa.float64()),
        "nulls": pa.chunked_array([[3, None], [2]], pa.int64()),
        "bool": pa.chunked_array([[True, False], [True]]),
        "str": pa.chunked_array([["a", "b"], ["a"]]),
    }
    for name, column in columns.items():
        got, want = S._numpy(column), column.to_numpy()
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), name
        assert got.flags.writeable == (name in ("nulls", "bool", "str")), name


@pytest.mark.parametrize("packed", [None, "int64"])
def test_carry_over_keeps_queries_that_batches_split_whole(packed):
    """Spark's sort delivers the rows by query, then position, in 7-row batches: the
    carry-over keeps every query whole, and each batch alone splits them."""
    from skrank.metrics._pieces import gather

    frame = random_frame(22, n_queries=30, max_size=25, weights=False)
    table = _task_rows(frame, packed)
    ordered = table.take(np.lexsort((table.column(S.FIRST).to_numpy(),
                                     table.column(S._COLS["qid"]).to_numpy())))
    plan = _plan("input", frame)
    want = skrank.evaluate(*_arrays(frame), metrics=METRICS, ties="input",
                           doc_id=frame["doc"].to_numpy())
    for chunk_rows in (1, 50, S._CHUNK_ROWS):
        got = gather(plan, _run_task(S._Pieces(plan, _NAMES, True, chunk_rows, packed),
                                     ordered))
        assert_same_result(got, want)
    with pytest.raises(skrank.InputError, match="in two pieces"):
        gather(plan, _run_task(S._Pieces(plan, _NAMES, False, 1, packed), ordered))


@pytest.mark.parametrize("sort", ["task", "spark"])
def test_a_label_that_was_not_packed_asks_for_a_second_run(sort):
    """A null packed position (a label that did not fit) makes the task answer one row
    that the driver takes as the request to run again with the labels in their column."""
    import pyarrow as pa

    frame = random_frame(23, n_queries=30, max_size=25, weights=False)
    table = _task_rows(frame, "int64")
    key = table.column(S.FIRST).to_numpy().astype(object)
    key[len(key) // 2] = None
    table = table.set_column(table.schema.get_field_index(S.FIRST), S.FIRST,
                             pa.array(key, pa.int64()))
    qid = table.column(S._COLS["qid"]).to_numpy().astype(object)
    qid[len(qid) // 2] = None  # a null query id too, in the row without its position
    table = table.set_column(table.schema.get_field_index(S._COLS["qid"]), S._COLS["qid"],
                             pa.array(qid, pa.int64()))
    plan = _plan("input", frame)
    fn = (S._Partition(plan, _NAMES, "int64") if sort == "task"
          else S._Pieces(plan, _NAMES, True, 50, "int64"))
    got = _run_task(fn, table)
    assert S._UNPACKED in list(got[S.ERROR_KIND])


@pytest.mark.parametrize("sort", ["task", "spark"])
def test_a_null_query_id_in_a_pieces_first_row_is_refused_as_skrank_does(sort):
    """The error row of a piece names its first row's query id: null there (NaN in NumPy)
    still makes a batch, and the driver raises skrank's error."""
    import pyarrow as pa

    from skrank.metrics._pieces import gather

    frame = random_frame(24, n_queries=10, max_size=8, weights=False)
    table = _task_rows(frame)
    qid = table.column(S._COLS["qid"]).to_numpy().astype(object)
    qid[0] = None
    table = table.set_column(table.schema.get_field_index(S._COLS["qid"]), S._COLS["qid"],
                             pa.array(qid, pa.int64()))
    plan = _plan("input", frame)
    fn = (S._Partition(plan, _NAMES) if sort == "task"
          else S._Pieces(plan, _NAMES, True, 50))
    with pytest.raises(skrank.InputError, match="'qid' parameter contains missing"):
        gather(plan, _run_task(fn, table))


# labels of every kind: integers that fit travel packed, others in their column (a second
# run where an integer does not fit), with the result and errors of the unpacked run
_LABELS = {"long": (["int64"], {}), "byte": (["int8"], {}), "int": (["int32"], {}),
           "300": (["int64", None], {}), "negative": (["int64", None], {"gain": "linear"}),
           "double": ([None], {})}


@pytest.mark.parametrize("sort", ["task", "spark"])
@pytest.mark.parametrize("labels", list(_LABELS))
def test_labels_travel_packed_where_they_fit(spark, monkeypatch, sort, labels):
    import pyspark.sql.functions as F

    frame = random_frame(16, n_queries=30, max_size=20, weights=False)
    if labels in ("300", "negative"):
        frame.loc[frame.index[5], "y_true"] = 300 if labels == "300" else -1
    sdf = _frame(spark, frame)
    if labels in ("byte", "int", "double"):
        sdf = sdf.withColumn("y_true", F.col("y_true").cast(labels))
    runs, run = [], S._run
    monkeypatch.setattr(S, "_run", lambda *a: runs.append(a[-1]) or run(*a))
    metrics = ["dcg@5", "ap", "rr", "p@3"]  # DCG: negative labels under gain="linear"
    packed, kw = _LABELS[labels]
    got = skrank.spark.evaluate(sdf, metrics=metrics, sort=sort, **kw)
    assert runs == packed
    assert_same_result(got, skrank.evaluate(*_arrays(_collected(sdf)), metrics=metrics, **kw))


def test_a_null_label_gives_the_error_of_the_unpacked_run(spark, monkeypatch):
    frame = random_frame(17, n_queries=8, max_size=6, weights=False).astype({"y_true": float})
    frame.loc[3, "y_true"] = np.nan
    sdf = _frame(spark, frame).selectExpr("qid", "cast(y_true as long) as y_true", "y_score")
    with pytest.raises(skrank.InputError) as packed_first:
        skrank.spark.evaluate(sdf, metrics=["ndcg@5"])
    monkeypatch.setattr(S, "_packed", lambda sdf, names: None)
    with pytest.raises(skrank.InputError) as unpacked:
        skrank.spark.evaluate(sdf, metrics=["ndcg@5"])
    assert str(packed_first.value) == str(unpacked.value)


def test_duplicate_documents_are_refused_as_one_line(spark):
    frame = random_frame(13, n_queries=8, max_size=6, weights=False)
    frame.loc[1, ["qid", "doc"]] = frame.loc[0, ["qid", "doc"]].to_numpy()
    q, d = frame.loc[0, "qid"], frame.loc[0, "doc"]
    with pytest.raises(skrank.InputError) as exc:
        skrank.spark.evaluate(_frame(spark, frame), metrics=["ndcg@5"], doc_id="doc",
                              preset="spark")
    assert str(exc.value) == (
        "The 'doc_id' parameter of skrank.spark.evaluate must not repeat a document within a "
        f"query. Got {d} twice in query {q} (again at row 1 of input partition 0).")
    assert exc.value.__cause__ is None and exc.value.__context__ is None  # no Java trace


def test_bad_row_is_named_by_its_place_in_the_input(spark):
    frame = random_frame(14, n_queries=8, max_size=6, weights=False)
    frame.loc[5, "y_score"] = np.nan
    sdf = _frame(spark, frame)
    bad = sdf.rdd.glom().map(lambda rows: [i for i, r in enumerate(rows)
                                           if r.y_score is None or r.y_score != r.y_score]
                             ).collect()
    part = next(p for p, rows in enumerate(bad) if rows)
    with pytest.raises(skrank.InputError, match=rf"must hold finite scores\. Got nan at row "
                                                rf"{bad[part][0]} of input partition {part} "
                                                r"instead\.$"):
        skrank.spark.evaluate(sdf, metrics=["ndcg@5"])


@pytest.mark.parametrize("sort", ["spark", "task"])
def test_of_two_bad_rows_the_first_in_the_input_is_named(spark, sort):
    # under sort="spark" a task holds its rows in query order: the error is evaluate's on
    # them in input order, and of two tasks' errors the one of the earlier row is raised
    rng = np.random.default_rng(3)
    n = 600
    frame = pd.DataFrame({"qid": rng.integers(0, 40, n), "y_true": rng.integers(0, 4, n),
                          "y_score": rng.random(n)})
    frame.loc[[20, 500], "y_score"] = np.nan
    with pytest.raises(skrank.InputError, match=r"Got nan at row 20 instead\.$"):
        skrank.evaluate(frame.y_true, frame.y_score, frame.qid)
    sdf = _frame(spark, frame)
    bad = sdf.rdd.glom().map(lambda rows: [i for i, r in enumerate(rows)
                                           if r.y_score is None or r.y_score != r.y_score]
                             ).collect()
    part = next(p for p, rows in enumerate(bad) if rows)
    for num_partitions in (1, 2, 3):
        with pytest.raises(skrank.InputError, match=rf"Got nan at row {bad[part][0]} of "
                                                    rf"input partition {part} instead\.$"):
            skrank.spark.evaluate(sdf, sort=sort, num_partitions=num_partitions)


def test_column_names_are_taken_as_written(spark):
    # a dot would be a struct's field and a backtick quoting to Spark's column parser
    frame = random_frame(8, n_queries=6, max_size=5, weights=False)
    want = reference(frame, "default", metrics=["rr", "ndcg@3"], weights=False)
    odd = frame.rename(columns={"y_score": "model.score", "y_true": "label`s"})
    got = skrank.spark.evaluate(_frame(spark, odd), metrics=["rr", "ndcg@3"],
                                y_score="model.score", y_true="label`s")
    assert_same_result(got, want)


def test_frame_errors_before_any_task(spark):
    frame = random_frame(9, n_queries=4, max_size=4, weights=False)
    sdf = _frame(spark, frame)
    twice = sdf.select("qid", "y_true", "y_score", sdf["y_score"].alias("y_true"))
    with pytest.raises(skrank.InvalidParameterError, match=r"'y_true' parameter of "
                       r"skrank.spark.evaluate must be the name of one column of sdf \(it "
                       r"names 2: rename them\)\. Got 'y_true' instead\.$"):
        skrank.spark.evaluate(twice)
    with pytest.raises(skrank.InvalidParameterError, match=r"'retrieved' parameter of "
                       r"skrank.spark.evaluate must name a boolean column of sdf\. Got "
                       r"'y_true', a column of type long, instead\.$"):
        skrank.spark.evaluate(sdf, retrieved="y_true")
    # ERR's largest label is taken on the driver: labels that are not numbers are refused
    # as evaluate refuses them, not by float()
    text = _frame(spark, frame.assign(y_true=frame.y_true.map({0: "a", 1: "b", 2: "c",
                                                               3: "d"})))
    with pytest.raises(skrank.InputError, match=r"'y_true' parameter of "
                                                r"skrank.spark.evaluate must hold numbers"):
        skrank.spark.evaluate(text, metrics=["err@10"])
    got = skrank.spark.evaluate(sdf, metrics=["rr"], num_partitions=np.int64(2))
    assert_same_result(got, reference(frame, "default", metrics=["rr"], weights=False))


def test_task_failure_is_unwrapped_to_one_line():
    from pyspark.errors import PythonException

    trace = ("An exception was thrown from the Python worker.\nTraceback (most recent call "
             "last):\n  File \"x.py\", line 1, in <module>\nModuleNotFoundError: No module "
             "named 'skrank'\n\n\tat org.apache.spark.api.python.BasePythonRunner...")
    with pytest.raises(RuntimeError, match=r"^A Spark task of skrank.spark.evaluate failed "
                                           r"with ModuleNotFoundError: No module named "
                                           r"'skrank' \(is skrank"):
        S._unwrap(PythonException(message=trace))
    with pytest.raises(RuntimeError, match=r"failed with MemoryError: out of memory$"):
        S._unwrap(PythonException(message="Traceback:\nMemoryError: out of memory\n"))
    trace = "Traceback:\nskrank.exceptions.InputError: The 'y_score' parameter ...\n"
    with pytest.raises(skrank.InputError, match=r"^The 'y_score' parameter \.\.\.$"):
        S._unwrap(PythonException(message=trace))
    S._unwrap(ValueError("not from a task"))  # returns: the caller re-raises


def test_parameter_errors(spark):
    sdf = _frame(spark, random_frame(1, n_queries=3, max_size=3))
    with pytest.raises(skrank.InvalidParameterError, match=r"'sdf' parameter of "
                       r"skrank.spark.evaluate must be a pyspark.sql.DataFrame"):
        skrank.spark.evaluate(_collected(sdf))
    with pytest.raises(skrank.InvalidParameterError, match=r"'qid' parameter .* must be "
                       r"the name of a column of sdf .*Got 'query' instead"):
        skrank.spark.evaluate(sdf, qid="query")
    with pytest.raises(skrank.InvalidParameterError, match="'preset' parameter"):
        skrank.spark.evaluate(sdf, preset="pyspark")
    with pytest.raises(skrank.InvalidParameterError, match=r"^The 'sort' parameter of "
                       r"skrank.spark.evaluate must be one of 'task', 'spark'\. Got 'numpy' "
                       r"instead\.$"):
        skrank.spark.evaluate(sdf, sort="numpy")


def test_paired_statistics_run_unchanged_on_the_per_query_values(spark):
    frame = random_frame(15, n_queries=50, max_size=12, weights=False)
    frame["other"] = frame["y_score"] + np.random.default_rng(15).normal(0, 0.3, len(frame))
    sdf = _frame(spark, frame)
    pdf = _collected(sdf)
    a = skrank.spark.evaluate(sdf, metrics=["ap@10"])["ap@10"]
    b = skrank.spark.evaluate(sdf, metrics=["ap@10"], y_score="other")["ap@10"]
    ra = skrank.evaluate(*_arrays(pdf), metrics=["ap@10"])["ap@10"]
    rb = skrank.evaluate(pdf.y_true, pdf.other, pdf.qid, metrics=["ap@10"])["ap@10"]
    got = skrank.stats.paired_comparison(a, b, n_resamples=500, n_permutations=500, rng=0)
    want = skrank.stats.paired_comparison(ra, rb, n_resamples=500, n_permutations=500, rng=0)
    assert got.to_dict() == want.to_dict()


@pytest.mark.parametrize("sort", ["task", "spark"])
def test_a_null_retrieved_flag_is_named_by_its_place_in_the_input(sort):
    """A BooleanType column with nulls arrives as objects (True, False, None): a null is
    refused at the first such row of the input, the rows without one evaluated as booleans
    (here in-process: the tasks' functions on Arrow batches)."""
    import pyarrow as pa

    from skrank.metrics._pieces import gather, make_plan

    frame = random_frame(25, n_queries=20, max_size=8, weights=False)
    names = {**_NAMES, "retrieved": "retrieved"}
    n = len(frame)
    part = np.arange(n) * 3 // n
    first = (part << S._ROW_BITS) + np.arange(n) - np.searchsorted(part, part)
    flags = frame["retrieved"].to_numpy().astype(object)
    columns = {S._COLS[p]: frame[c].to_numpy() for p, c in names.items() if c is not None}
    plan = make_plan(["ndcg@5", "ap"], None, None, False, False, False, S._CALLER,
                     {"idcg": "pool", "ties": "input"})
    want = skrank.evaluate(*_arrays(frame), metrics=["ndcg@5", "ap"], idcg="pool",
                           ties="input", doc_id=frame["doc"].to_numpy(),
                           retrieved=frame["retrieved"].to_numpy())

    def run(flags):
        table = pa.table(columns | {S._COLS["retrieved"]: pa.array(flags, pa.bool_()),
                                    S.FIRST: first})
        arrival = table.take(np.argsort(-part, kind="stable"))  # the last partition first
        if sort == "spark":
            arrival = table.take(np.lexsort((first, frame["qid"].to_numpy())))
        fn = (S._Partition(plan, names) if sort == "task"
              else S._Pieces(plan, names, True, 20))
        return gather(plan, _run_task(fn, arrival))

    flags[-1] = None  # a batch with a null, the others without: all evaluated as flags
    with pytest.raises(skrank.InputError, match=rf"Got a null at row "
                                                rf"{n - 1 - np.searchsorted(part, 2)} of "
                                                r"input partition 2 instead\.$"):
        run(flags)
    flags[-1] = frame["retrieved"].to_numpy()[-1]
    assert_same_result(run(flags), want)
    flags[[n - 3, n // 2]] = None
    bad = n // 2
    with pytest.raises(skrank.InputError, match=(
            r"^The 'retrieved' parameter of skrank.spark.evaluate must hold booleans "
            r"without nulls \(a row either was retrieved or was not: drop the row, or fill "
            rf"the null with False or True\)\. Got a null at row "
            rf"{bad - np.searchsorted(part, part[bad])} of input partition {part[bad]} "
            r"instead\.$")):
        run(flags)


def test_decimal_columns_and_nullable_flags(spark):
    """Decimal labels and scores of at most 15 digits are cast to double in the plan (the
    result is evaluate's on Python's float of each Decimal, bit for bit); of more digits,
    refused before any task; a BooleanType ``retrieved`` with nulls is refused at the first
    null, and without nulls is taken as it is."""
    frame = random_frame(26, n_queries=15, max_size=8, weights=False)
    rng = np.random.default_rng(26)
    frame["y_score"] = rng.integers(-10**9, 10**9, len(frame)) / 10**4
    frame.loc[frame.index[::5], "y_score"] = 0.5  # ties
    sdf = _frame(spark, frame).selectExpr(
        "qid", "cast(y_true as decimal(3,0)) as y_true",
        "cast(y_score as decimal(10,4)) as y_score", "doc",
        "if(doc = 7, null, retrieved) as retrieved")
    pdf = _collected(sdf)
    metrics = ["ndcg@5", "ap", "err", "rr"]
    want = skrank.evaluate(pdf["y_true"].map(float).to_numpy(),
                           pdf["y_score"].map(float).to_numpy(), pdf["qid"].to_numpy(),
                           metrics=metrics)
    got = skrank.spark.evaluate(sdf, metrics=metrics, sort="spark")
    assert_same_result(got, want)
    with pytest.raises(skrank.InvalidParameterError, match=(
            r"^The 'y_score' parameter of skrank.spark.evaluate must name a column of numbers "
            r"of sdf; a decimal column is taken as doubles where it has at most 15 digits .*"
            r"Got 'y_score', a column of type decimal\(16,4\), instead: cast it to double")):
        skrank.spark.evaluate(sdf.selectExpr("qid", "y_true",
                                             "cast(y_score as decimal(16,4)) as y_score"))
    bad = sdf.rdd.glom().map(lambda rows: [i for i, r in enumerate(rows)
                                           if r.retrieved is None]).collect()
    part = next(p for p, rows in enumerate(bad) if rows)
    with pytest.raises(skrank.InputError, match=rf"must hold booleans without nulls .*"
                                                rf"Got a null at row {bad[part][0]} of input "
                                                rf"partition {part} instead\.$"):
        skrank.spark.evaluate(sdf, metrics=metrics, retrieved="retrieved")
    flags = sdf.where("retrieved is not null")  # nullable, without nulls
    pdf = _collected(flags)
    want = skrank.evaluate(pdf["y_true"].map(float).to_numpy(),
                           pdf["y_score"].map(float).to_numpy(), pdf["qid"].to_numpy(),
                           metrics=metrics, retrieved=pdf["retrieved"].to_numpy(dtype=bool))
    assert_same_result(skrank.spark.evaluate(flags, metrics=metrics, retrieved="retrieved"),
                       want)
