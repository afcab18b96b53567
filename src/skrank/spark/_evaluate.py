"""``skrank.spark.evaluate``: repartition on the query id, put each partition in order (in the
Python task, or with Spark's sort and the last query of a batch carried over), evaluate,
assemble on the driver."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from .._validation import param_error
from ..conventions import Conventions
from ..metrics._pieces import (
    DECIMAL_DIGITS,
    ERROR,
    ERROR_KIND,
    FIRST,
    Plan,
    check_frame_params,
    check_retrieved,
    decimal_error,
    evaluate_piece,
    fill_parameters_doc,
    gather,
    locator,
    make_plan,
    piece_columns,
    piece_error,
)
from ..metrics._result import EvaluationResult
from ..metrics._spec import Metric

__all__ = ["evaluate"]

_CALLER = "skrank.spark.evaluate"
# monotonically_increasing_id(): the partition id in the upper 31 bits, the row in the lower 33
_ROW_BITS = 33
# integer labels 0..255 travel in the low bits of the position (one column less to shuffle
# and to send to Python), where the input has fewer than 2**22 partitions: the position then
# fits in the 63 bits above them
_LABEL_BITS = 8
_PACKED_PARTITIONS = 1 << (63 - _ROW_BITS - _LABEL_BITS)
# the NumPy dtype of each Spark integer type of labels (which pyarrow gives them)
_LABEL_DTYPES = {"byte": "int8", "short": "int16", "integer": "int32", "long": "int64"}
# a task's error kind that asks the driver to run again with the labels in their own column
# (a label outside 0..255 or null, or a partition number too large, where they were packed)
_UNPACKED = "_Unpacked"
# the columns the tasks receive, under names that cannot clash with the caller's
_COLS = {"qid": "_q", "y_true": "_y", "y_score": "_s", "doc_id": "_d",
         "sample_weight": "_w", "retrieved": "_r"}
# rows gathered from Arrow batches before evaluating their complete queries (the tests set 1:
# every batch is then carried over)
_CHUNK_ROWS = 200_000
# where each partition's rows are put in order (the ``sort`` parameter)
_SORTS = ("task", "spark")
# whether the rows are repartitioned on the query id (the tests set False to show that a query
# whose rows reach two tasks is refused)
_SHUFFLE = True
# whether the last query of a batch is carried over (the tests set False to show that a query
# split by a batch boundary is refused)
_CARRY = True


def _import_spark():
    try:
        import pyarrow  # noqa: F401
        import pyspark.sql.functions as F
        from pyspark.sql import DataFrame
    except ImportError as exc:  # pragma: no cover - exercised without pyspark
        raise ImportError(
            "skrank.spark needs pyspark, pandas and pyarrow: pip install 'skrank[spark]'"
        ) from exc
    return DataFrame, F


_locate = locator(_ROW_BITS)


def _locate_packed(key: int) -> str:
    """Where a row was in the input, from its position with its label packed below."""
    return _locate(key >> _LABEL_BITS)


def _out_schema(plan: Plan, qid_type):
    from pyspark.sql import types as T

    kinds = {"int": T.LongType(), "float": T.DoubleType(), "str": T.StringType()}
    fields = [T.StructField("qid", qid_type)]
    fields += [T.StructField(name, kinds[kind]) for name, kind in piece_columns(plan)]
    return T.StructType(fields)


def _arrow_types(plan: Plan):
    import pyarrow as pa

    kinds = {"int": pa.int64(), "float": pa.float64(), "str": pa.string()}
    return [(name, kinds[kind]) for name, kind in piece_columns(plan)]


def _joined(column):
    """A chunked Arrow column as one Arrow array, joined in Arrow's memory pool (which the
    Python worker keeps from task to task) where it has several chunks."""
    import pyarrow as pa

    return column.chunk(0) if column.num_chunks == 1 else pa.concat_arrays(column.chunks)


def _numpy(column) -> np.ndarray:
    """One column of an Arrow table as one NumPy array. Integers and floats without nulls
    are joined (:func:`_joined`) and viewed without a copy (read-only); other columns as
    pyarrow converts them."""
    import pyarrow as pa

    kind = column.type
    if (column.null_count == 0 and column.num_chunks
            and (pa.types.is_integer(kind) or kind in (pa.float32(), pa.float64()))):
        return _joined(column).to_numpy(zero_copy_only=True)
    return column.to_numpy()


def _columns(table, names: dict[str, str | None],
             packed: str | None = None) -> dict[str, np.ndarray | None]:
    """The task's columns of an Arrow table as NumPy arrays, by parameter (None where the
    caller gave no such column), and the input positions under ``FIRST``; where ``packed``
    (the labels' NumPy dtype), the labels are taken from the low bits of the positions,
    which stay packed (in the same order; :func:`_locate_packed` names a row from them;
    the table's ``FIRST`` holds no null: see :func:`_unpackable`)."""
    cols = {p: (_numpy(table.column(_COLS[p]))
                if names[p] is not None and not (packed and p == "y_true") else None)
            for p in names}
    if packed is None:
        cols[FIRST] = _numpy(table.column(FIRST))
    else:
        import pyarrow as pa
        import pyarrow.compute as pc

        key = _joined(table.column(FIRST))
        cols[FIRST] = key.to_numpy(zero_copy_only=True)
        label = pc.bit_wise_and(key, (1 << _LABEL_BITS) - 1)  # in Arrow's memory pool
        cols["y_true"] = label.cast(pa.from_numpy_dtype(np.dtype(packed))).to_numpy(
            zero_copy_only=True)
    return cols


def _unpackable(table, packed: str | None) -> bool:
    """Whether the labels were to be packed with the positions but some row's could not be
    (its packed position is null)."""
    return packed is not None and table.column(FIRST).null_count > 0


def _piece_batch(plan: Plan, cols, qid_type, packed: str | None):
    """Evaluate the rows of whole queries (``cols`` from :func:`_columns`, each query's rows
    in input order) into the per-query Arrow batch of :func:`_out_schema`."""
    out = evaluate_piece(plan, cols["qid"], cols[FIRST], cols["y_true"], cols["y_score"],
                         doc_id=cols["doc_id"], sample_weight=cols["sample_weight"],
                         retrieved=cols["retrieved"],
                         locate=_locate if packed is None else _locate_packed)
    return _batch(plan, out, qid_type)


def _unpacked_batch(plan: Plan, table):
    """The one-row batch that asks the driver to run again with the labels unpacked (its
    query id null: the driver reads no more than its kind)."""
    return _batch(plan, {"qid": [None], FIRST: np.zeros(1, dtype=np.int64),
                         ERROR: ["labels not packed"], ERROR_KIND: [_UNPACKED]},
                  table.schema.field(_COLS["qid"]).type)


def _batch(plan: Plan, out, qid_type):
    """The per-query Arrow batch of :func:`_out_schema` of a per-query table."""
    import pyarrow as pa

    n_q = len(out["qid"])
    # from_pandas: a NaN id (a null in the input, where a piece's error row names it) is null
    arrays = [pa.array(out["qid"], type=qid_type, from_pandas=True)]
    names = ["qid"]
    for name, kind in _arrow_types(plan):
        value = out.get(name)
        arrays.append(pa.nulls(n_q, type=kind) if value is None
                      else pa.array(value, type=kind))
        names.append(name)
    return pa.RecordBatch.from_arrays(arrays, names=names)


class _Partition:
    """The task's function for ``mapInArrow`` under ``sort="task"``: takes every Arrow batch
    of its partition (the rows of its queries, in the order the shuffle delivers them), puts
    the rows in input order with one NumPy sort of their positions and evaluates them at
    once. The task holds its whole partition."""

    def __init__(self, plan: Plan, names: dict[str, str | None], packed: str | None = None):
        self.plan, self.names, self.packed = plan, names, packed

    def __call__(self, batches):
        import pyarrow as pa

        got = [batch for batch in batches if batch.num_rows]
        if not got:
            return
        qid_type = got[0].schema.field(_COLS["qid"]).type
        table = pa.Table.from_batches(got)
        del got
        if _unpackable(table, self.packed):
            yield _unpacked_batch(self.plan, table)
            return
        cols = _columns(table, self.names, self.packed)
        del table  # the batches as received, now joined
        first = cols[FIRST]
        # the shuffle delivers one run of increasing positions per input partition, in
        # the order of the input partitions where it can (then nothing is moved), or else
        # in any order, which a stable sort (timsort) merges at a few ns a row
        if first.shape[0] > 1 and not (first[1:] > first[:-1]).all():
            order = np.argsort(first, kind="stable")
            for param, col in cols.items():  # one column at a time: one more in memory
                if col is not None:
                    cols[param] = col[order]
            del col, order
        del first
        yield _piece_batch(self.plan, cols, qid_type, self.packed)


class _Pieces:
    """The task's function for ``mapInArrow`` under ``sort="spark"``: gathers the Arrow
    batches of one partition (sorted by Spark by query, then by input position), evaluates
    the complete queries and carries the last query, which may go on in the next batch, over
    to the next round.

    ``carry=False`` evaluates every batch alone (only to show in the tests that a query split
    by a batch boundary is refused)."""

    def __init__(self, plan: Plan, names: dict[str, str | None], carry: bool = True,
                 chunk_rows: int = _CHUNK_ROWS, packed: str | None = None):
        self.plan, self.names, self.carry, self.chunk_rows = plan, names, carry, chunk_rows
        self.packed = packed

    def __call__(self, batches):
        import pyarrow as pa

        pending: list = []
        rows = 0
        for batch in batches:
            if batch.num_rows == 0:
                continue
            pending.append(batch)
            rows += batch.num_rows
            if self.carry and rows < self.chunk_rows:
                continue
            table = pa.Table.from_batches(pending).combine_chunks()
            if _unpackable(table, self.packed):
                yield _unpacked_batch(self.plan, table)
                return
            qid = table.column(_COLS["qid"]).to_numpy()
            cut = qid.shape[0]
            if self.carry:  # the last query may go on in the next batch
                other = np.flatnonzero(qid != qid[-1])
                cut = int(other[-1]) + 1 if other.shape[0] else 0
            if cut:
                yield self._evaluate(table.slice(0, cut))
            pending = [table.slice(cut).to_batches()[0]] if cut < table.num_rows else []
            rows = table.num_rows - cut
        if pending:
            table = pa.Table.from_batches(pending).combine_chunks()
            yield (_unpacked_batch(self.plan, table) if _unpackable(table, self.packed)
                   else self._evaluate(table))

    def _evaluate(self, table):
        return _piece_batch(self.plan, _columns(table, self.names, self.packed),
                            table.schema.field(_COLS["qid"]).type, self.packed)


def evaluate(
    sdf,
    metrics: Sequence[str | Metric] | str | Metric = ("ndcg@10",),
    *,
    qid: str = "qid",
    y_true: str = "y_true",
    y_score: str = "y_score",
    doc_id: str | None = None,
    sample_weight: str | None = None,
    retrieved: str | None = None,
    preset: str | None = None,
    conventions: Conventions | None = None,
    tie_bounds: bool = False,
    num_partitions: int | None = None,
    sort: str = "task",
    gain=None,
    ties: str | None = None,
    empty: str | None = None,
    rel_min: float | None = None,
    ap_denominator: str | None = None,
    p_divisor: str | None = None,
    idcg: str | None = None,
    ideal_order: str | None = None,
    score_precision: str | None = None,
    label_precision: str | None = None,
    weight_precision: str | None = None,
    default_k: int | None = None,
    max_label: int | None = None,
    empty_weighted: bool | None = None,
    arithmetic: str | None = None,
) -> EvaluationResult:
    """Evaluate the rankings in a Spark DataFrame: :func:`skrank.evaluate` where the rows live.

    The rows are repartitioned on the query id (``repartition(qid)``, Spark's own shuffle)
    and each task reads its partition as Arrow batches (``mapInArrow``). By default the task
    takes all its batches and puts the rows in input order with one NumPy sort; with
    ``sort="spark"`` Spark sorts each partition by query and input position
    (``sortWithinPartitions``) and the task evaluates the queries of each batch that are
    complete, carrying the last one, which may go on in the next batch, over to it. Integer
    labels travel in the low 8 bits of the rows' positions (one column less to shuffle);
    where a label is null or outside 0..255, the call runs a second time with the labels in
    their own column (about twice the time: such labels are better cast or rescaled). Only
    the per-query values (one row per query) come back to the driver, which builds the result
    that :func:`skrank.evaluate` gives on the collected rows (``sdf.toPandas()``): the same
    per-query values bit for bit, the queries in the same order (first appearance in the
    input), the same means, conventions, counts and tie range.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per (query, document), partitioned in any way.
    {columns}
    num_partitions : int, optional
        Partitions of the shuffle; default: ``spark.sql.shuffle.partitions``. The shuffle's
        CPU time grows with them (see the scaling guide): take about one per core, or more
        where a partition would not fit in a Python worker's memory under ``sort="task"``.
    sort : {"task", "spark"}, default="task"
        Where each partition's rows are put in order. ``"task"``: in the Python task, which
        then holds its whole partition in memory (measured with three columns: about 100
        bytes a row at the peak, for the Arrow batches, the columns joined, the grouping and
        the rows gathered by query), so
        choose ``num_partitions`` for a partition to fit in a Python worker. ``"spark"``:
        by Spark's ``sortWithinPartitions``, which spills to disk where it must, the task
        then holding about 200,000 rows at a time plus the longest query; it costs more
        CPU time (see the scaling guide).
    {conventions}

    Raises
    ------
    InputError
        As :func:`skrank.evaluate` raises on the rows (a row named by its input partition and
        its row there), for a null in the ``retrieved`` column (the first in the input
        named so), and when a query's rows reach the tasks in two pieces. Errors in the
        data travel back as data, so the driver raises skrank's one-line error rather than a
        Java stack trace, and Spark does not retry a task for them.
    InvalidParameterError
        Before any task, for a ``DecimalType`` column of labels, scores or weights of more
        than 15 digits (see the notes).

    Notes
    -----
    A ``DecimalType`` column of labels, scores or weights (``DECIMAL(3,0)`` labels,
    ``DECIMAL(10,4)`` scores) of precision at most 15 is cast to double in the plan: Spark's
    cast gives the double nearest to each value, as Python's ``float(Decimal)`` does, and two
    distinct decimals of so few digits stay distinct and in their order, so the result is
    :func:`skrank.evaluate`'s on those doubles. Of more digits (``DECIMAL(38,18)``), two
    decimals can round to one double (a tie, or a label, that the data do not have):
    refused, cast it to double where that rounding is acceptable, or to a decimal of at most
    15 digits.

    NumPy asks for transparent huge pages on its arrays of 4 MB and more; beside the JVM,
    where memory is fragmented, the kernel may compact memory before it hands them out, and
    the tasks' system time then varies from call to call. ``NUMPY_MADVISE_HUGEPAGE=0`` in
    the Python workers' environment (``spark.executorEnv.NUMPY_MADVISE_HUGEPAGE``) took a
    third of their CPU time away in the benchmark (:ref:`spark-worker-memory`); the choice
    is the user's, and skrank does not make it.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import skrank.spark
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> sdf = spark.createDataFrame(  # doctest: +SKIP
    ...     [(1, 2, 0.9), (2, 0, 0.8), (1, 1, 0.5), (2, 1, 0.8), (1, 0, 0.5), (2, 0, 0.3)],
    ...     "qid long, y_true long, y_score double")
    >>> print(skrank.spark.evaluate(sdf, metrics=["rr"]))  # doctest: +SKIP
    RR = 0.7500 (ties=pessimistic, empty=exclude, rel_min=1; 2 queries, 1 with ties that change the value)
    """  # noqa: E501
    values = locals()  # the conventions given one by one, among the parameters
    DataFrame, F = _import_spark()
    if not isinstance(sdf, DataFrame):
        raise param_error("sdf", "a pyspark.sql.DataFrame", type(sdf).__name__, _CALLER)
    names = {"qid": qid, "y_true": y_true, "y_score": y_score, "doc_id": doc_id,
             "sample_weight": sample_weight, "retrieved": retrieved}
    num_partitions = check_frame_params(names, sdf.columns, "sdf",
                                        ("num_partitions", num_partitions), _CALLER)
    if retrieved is not None:
        kind = sdf.schema[retrieved].dataType.typeName()
        check_retrieved(retrieved, kind == "boolean", kind, "sdf", _CALLER)
    if sort not in _SORTS:
        raise param_error("sort", f"one of {', '.join(map(repr, _SORTS))}", sort, _CALLER)
    sdf = _decimals_as_doubles(sdf, names, F)
    weight_type = (sdf.schema[sample_weight].dataType.typeName()
                   if sample_weight is not None else None)
    plan = make_plan(metrics, preset, conventions, tie_bounds, sample_weight is not None,
                     weight_type in ("float", "half"), _CALLER, values)
    if plan.needs_max_label:
        top = sdf.agg(F.max(_col(F, y_true))).first()[0]
        plan = plan.with_max_label(top)
    packed = _packed(sdf, names)
    result = _run(_shuffled(sdf, names, num_partitions, packed), plan, names, sort, packed)
    if result is None:  # a label could not be packed: each in its own column
        result = _run(_shuffled(sdf, names, num_partitions, None), plan, names, sort, None)
    return result


def _decimals_as_doubles(sdf, names: dict[str, str | None], F):
    """``sdf`` with its decimal labels, scores and weights cast to double in the plan
    (:data:`DECIMAL_DIGITS` digits at most: Spark's cast, Java's ``BigDecimal.doubleValue``,
    is correctly rounded, as Python's ``float(Decimal)`` is, and keeps such decimals
    distinct and in order), other decimals refused before any task: Python's workers would
    receive them as ``decimal.Decimal`` objects, which evaluate refuses as not numbers. The
    columns named are then selected alone (a projection in the plan)."""
    casts = set()
    for param in ("y_true", "y_score", "sample_weight"):
        name = names[param]
        kind = sdf.schema[name].dataType if name is not None else None
        if kind is None or kind.typeName() != "decimal":
            continue
        if kind.precision > DECIMAL_DIGITS:
            raise decimal_error(param, name, kind.simpleString(), "sdf", _CALLER)
        casts.add(name)
    if not casts:
        return sdf
    cols = dict.fromkeys(n for n in names.values() if n is not None)
    return sdf.select(*(_col(F, c).cast("double").alias(c) if c in casts else _col(F, c)
                        for c in cols))


def _packed(sdf, names: dict[str, str | None]) -> str | None:
    """The NumPy dtype of the labels where they are integers, which the shuffle then carries
    in the low bits of the positions (wherever they are within 0..255), else None."""
    return _LABEL_DTYPES.get(sdf.schema[names["y_true"]].dataType.typeName())


def _shuffled(sdf, names: dict[str, str | None], num_partitions: int | None,
              packed: str | None):
    """The columns named (renamed to ``_COLS``) and the rows' positions (``FIRST``),
    repartitioned on the query id: what the tasks read (``benchmarks/bench_distributed.py``
    times it alone, Spark's floor under the evaluation). Where ``packed`` (see
    :func:`_packed`), the labels travel in the low bits of the positions, and a row whose
    label is null or outside 0..255 (or whose input partition's number is too large) has a
    null there, which asks the driver to run again with ``packed=None``."""
    _, F = _import_spark()
    position = F.monotonically_increasing_id()
    cols = [_col(F, n).alias(_COLS[p]) for p, n in names.items()
            if n is not None and not (packed and p == "y_true")]
    if packed:
        label = _col(F, names["y_true"])
        fits = (label.isNotNull() & (label >= 0) & (label < (1 << _LABEL_BITS))
                & (F.spark_partition_id() < _PACKED_PARTITIONS))
        position = F.when(fits, F.shiftleft(position, _LABEL_BITS)
                          .bitwiseOR(label.cast("long")))
    rows = sdf.select(*cols, position.alias(FIRST))
    if not _SHUFFLE:
        return rows
    if num_partitions:
        return rows.repartition(num_partitions, _COLS["qid"])
    return rows.repartition(_COLS["qid"])


def _col(F, name: str):
    """The column of that name as it is written (``F.col`` reads a dot as a struct's field
    and a backtick as quoting)."""
    return F.col("`" + name.replace("`", "``") + "`")


def _run(parts, plan: Plan, names, sort: str, packed: str | None) -> EvaluationResult | None:
    """Put each partition in order, evaluate it, gather and assemble; None where the labels
    were to be packed and a task could not unpack them."""
    schema = _out_schema(plan, parts.schema[_COLS["qid"]].dataType)
    if sort == "task":
        per_query = parts.mapInArrow(_Partition(plan, names, packed), schema)
    else:
        ordered = parts.sortWithinPartitions(_COLS["qid"], FIRST)
        per_query = ordered.mapInArrow(_Pieces(plan, names, _CARRY, _CHUNK_ROWS, packed),
                                       schema)
    try:
        table = per_query.toArrow() if hasattr(per_query, "toArrow") else None
        columns = ({c: table.column(c).to_numpy() for c in table.column_names}
                   if table is not None else
                   {c: s.to_numpy() for c, s in per_query.toPandas().items()})
    except Exception as exc:
        _unwrap(exc)
        raise
    if packed is not None and (np.asarray(columns[ERROR_KIND], dtype=object)
                               == _UNPACKED).any():
        return None
    return gather(plan, columns)


fill_parameters_doc(evaluate)

_LAST_PYTHON_ERROR = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception)): (.*)$", re.MULTILINE)


def _unwrap(exc: BaseException) -> None:
    """Raise a Python exception of a Spark task as one line rather than Spark's stack trace
    (a skrank error as itself); return when ``exc`` is no such exception."""
    if type(exc).__name__ != "PythonException":
        return
    found = _LAST_PYTHON_ERROR.findall(str(exc))
    if not found:
        return
    kind, message = found[-1]
    if kind.rsplit(".", 1)[-1] in ("InputError", "EmptyQueryError", "InvalidParameterError"):
        raise piece_error(message, kind.rsplit(".", 1)[-1]) from None
    hint = ""
    if kind.rsplit(".", 1)[-1] in ("ModuleNotFoundError", "ImportError"):
        hint = " (is skrank, with its 'spark' extra, installed where the executors run?)"
    raise RuntimeError(f"A Spark task of {_CALLER} failed with {kind}: {message}{hint}") from None
