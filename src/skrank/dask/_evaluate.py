"""``skrank.dask.evaluate``: shuffle on the query id, evaluate each partition, assemble."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import param_error
from ..conventions import Conventions
from ..metrics._pieces import (
    DECIMAL_DIGITS,
    ERROR,
    FIRST,
    Plan,
    assemble,
    check_frame_params,
    check_retrieved,
    decimal_error,
    evaluate_piece,
    fill_parameters_doc,
    gather,
    make_plan,
)
from ..metrics._result import EvaluationResult
from ..metrics._spec import Metric
from ._layout import Layout, pack, plan_layout, unpack
from ._tasks import per_partition

__all__ = ["evaluate"]

_CALLER = "skrank.dask.evaluate"


def _import_dask():
    try:
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - exercised without dask
        raise ImportError(
            "skrank.dask needs dask[dataframe] and distributed: pip install 'skrank[dask]'"
        ) from exc
    return dd


def _evaluate_partition(pdf, plan: Plan, layout: Layout) -> dict[str, np.ndarray]:
    """One partition's per-query table (queries whole: the partition holds all their rows),
    as NumPy arrays (:func:`evaluate_piece`'s columns; none for an empty partition).

    The rows are unpacked and gathered query by query, each query's rows in input order
    (:func:`unpack`), and evaluated; where the rows hold an error, they are evaluated again in
    input order, so that the error named is the one ``evaluate`` raises on them."""
    if pdf.shape[0] == 0:
        return {}
    for by_query in (True, False):
        first, col = unpack(pdf, layout, by_query=by_query)
        out = evaluate_piece(plan, col["qid"], first, col["y_true"], col["y_score"],
                             doc_id=col["doc_id"], sample_weight=col["sample_weight"],
                             retrieved=col["retrieved"], locate=layout.locate)
        if ERROR not in out:
            break
    return {name: np.asarray(values) for name, values in out.items()}


def _joined(tables: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The partitions' tables as one (the tables of errors only, where there are any: the
    driver raises the first of them)."""
    tables = [t for t in tables if t]
    if any(ERROR in t for t in tables):
        tables = [t for t in tables if ERROR in t]
    if not tables:  # no rows: assemble raises the error of an empty input
        return {FIRST: np.zeros(0, dtype=np.int64)}
    return {name: np.concatenate([t[name] for t in tables]) for name in tables[0]}


def evaluate(
    ddf,
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
    npartitions: int | None = None,
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
    """Evaluate the rankings in a Dask DataFrame: :func:`skrank.evaluate` where the rows live.

    The rows are shuffled on the query id (``ddf.shuffle``, the engine's own shuffle), so
    that every query's rows land in one partition; each partition is evaluated by skrank's
    kernels, and only the per-query values (one row per query) come back. Where the query ids
    and the labels are integers, each row's position and label travel packed into one key and
    its query id as its difference from the smallest (each an int32 where the ranges are
    small enough: 16 bytes a row with the score, half of what the four columns take); the
    ranges come from one reduction over ``ddf`` first, so its query ids and labels are
    computed twice: persist a ``ddf`` that is costly to compute (one that gives other rows
    the second time is refused). The result is the one :func:`skrank.evaluate` gives on the collected rows
    (``ddf.compute()``): the same per-query values bit for bit, the queries in the same order
    (first appearance in the input), the same means (the driver sums the per-query values in
    that order, as ``evaluate`` does, so the number of partitions cannot change a digit), the
    same conventions, counts and tie range.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per (query, document), partitioned in any way.
    {columns}
    npartitions : int, optional
        Partitions after the shuffle. By default, under a ``distributed`` client, one per
        thread of its workers (at most as many as ``ddf`` has), or where that makes
        partitions of more than 1,048,576 rows (counted by the reduction of the layout), as
        many per thread as it takes to keep under that; without the reduction, and under a
        local scheduler, as many as ``ddf`` has. Fewer, larger partitions make a cheaper
        shuffle (Dask's costs by the piece, input partitions times output partitions) and a
        larger task each.
    {conventions}

    Raises
    ------
    InputError
        As :func:`skrank.evaluate` raises on the rows (a row named by its partition and its
        row in the input), for a null in a nullable ``retrieved`` column (the first in the
        input named so), when a query's rows reach two partitions, and when a partition of
        ``ddf`` gives the shuffle other rows than it gave the layout's reduction.
    InvalidParameterError
        Before any task, for a decimal column of labels, scores or weights of more than 15
        digits (see the notes).

    Notes
    -----
    A decimal column of labels, scores or weights (a pyarrow decimal,
    ``pd.ArrowDtype(pa.decimal128(p, s))``) of precision ``p <= 15`` is taken as doubles,
    each value the double nearest to it (Python's ``float(Decimal)``; the unscaled integer
    divided by ``10**s``, where pyarrow's cast is not correctly rounded): two distinct
    decimals of so few digits stay distinct and in their order, and the result is
    :func:`skrank.evaluate`'s on those doubles. Of more digits, two decimals can round to
    one double (a tie, or a label, that the data do not have): refused, cast it to double
    where that rounding is acceptable, or to a decimal of at most 15 digits.

    The workers' memory setting weighs on the call's time. ``distributed`` starts its worker
    processes with ``MALLOC_TRIM_THRESHOLD_=65536`` (its configuration key
    ``distributed.nanny.pre-spawn-environ``), which also turns off glibc's dynamic mmap
    threshold: every array of more than 128 KiB that Dask's shuffle or skrank's task
    allocates is then a fresh map, its pages faulted in on first touch, on every call. Where
    page faults are costly (virtual machines), those faults can take more of the workers'
    time than the work (:ref:`dask-worker-memory`). Setting
    that key's ``MALLOC_TRIM_THRESHOLD_`` to None before the cluster starts (``dask.config``)
    leaves glibc's own trimming, at the cost of memory that the workers keep between tasks;
    the choice is the user's, and skrank does not make it.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> import skrank
    >>> import skrank.dask
    >>> df = pd.DataFrame({"qid": [1, 2, 1, 2, 1, 2], "y_true": [2, 0, 1, 1, 0, 0],
    ...                    "y_score": [0.9, 0.8, 0.5, 0.8, 0.5, 0.3]})
    >>> ddf = dd.from_pandas(df, npartitions=3)  # each query's rows in three partitions
    >>> res = skrank.dask.evaluate(ddf, metrics=["ndcg@2", "rr"])
    >>> print(res["rr"])
    RR = 0.7500 (ties=pessimistic, empty=exclude, rel_min=1; 2 queries, 1 with ties that change the value)
    >>> res["rr"].per_query
    array([1. , 0.5])
    >>> float(res["ndcg@2"]) == float(skrank.evaluate(df.y_true, df.y_score, df.qid,
    ...                                               metrics=["ndcg@2"])["ndcg@2"])
    True
    """  # noqa: E501
    values = locals()  # the conventions given one by one, among the parameters
    dd = _import_dask()
    if not isinstance(ddf, dd.DataFrame):
        raise param_error("ddf", "a dask.dataframe.DataFrame", type(ddf).__name__, _CALLER)
    names = {"qid": qid, "y_true": y_true, "y_score": y_score, "doc_id": doc_id,
             "sample_weight": sample_weight, "retrieved": retrieved}
    npartitions = check_frame_params(names, list(ddf.columns), "ddf",
                                     ("npartitions", npartitions), _CALLER)
    if retrieved is not None:
        import pandas as pd

        kind = ddf[retrieved].dtype
        check_retrieved(retrieved, pd.api.types.is_bool_dtype(kind), kind, "ddf", _CALLER)
    decimals = _decimals(ddf, names)
    weight_dtype = (np.dtype(np.float64) if sample_weight in decimals
                    else ddf[sample_weight].dtype if sample_weight is not None else None)
    plan = make_plan(
        metrics, preset, conventions, tie_bounds, sample_weight is not None,
        weight_dtype is not None and weight_dtype.kind == "f" and weight_dtype.itemsize < 8,
        _CALLER, values)
    cols = list(dict.fromkeys(n for n in names.values() if n is not None))
    rows = ddf[cols]
    if decimals:
        rows = rows.map_partitions(_as_floats, decimals, meta=_as_floats(rows._meta, decimals))
    layout = plan_layout(rows, names)
    if plan.needs_max_label:
        # the largest label: from the ranges of the layout, where they were taken
        known = layout.label is not None and layout.offsets[-1] > 0
        plan = plan.with_max_label(float(layout.label.hi) if known
                                   else _max_label(rows[y_true]))
    return _run(rows, plan, layout, npartitions, shuffle=True)


def _decimals(ddf, names: dict[str, str | None]) -> dict[str, int]:
    """The columns of decimal labels, scores and weights (pandas' ``ArrowDtype`` of a
    pyarrow decimal), each with its scale, that :func:`_as_floats` turns into doubles: at
    most :data:`DECIMAL_DIGITS` digits; others refused before any task."""
    import pyarrow as pa

    found = {}
    for param in ("y_true", "y_score", "sample_weight"):
        name = names[param]
        kind = getattr(ddf[name].dtype, "pyarrow_dtype", None) if name is not None else None
        if kind is None or not pa.types.is_decimal(kind):
            continue
        if kind.precision > DECIMAL_DIGITS:
            raise decimal_error(param, name, ddf[name].dtype, "ddf", _CALLER)
        found[name] = kind.scale
    return found


def _as_floats(pdf, decimals: dict[str, int]):
    """The partition with its decimal columns (name: scale) as float64, each value the
    double nearest to the decimal (as Python's ``float(Decimal)``; a null is NaN).

    pyarrow's cast is not correctly rounded (of random decimals of 10 to 15 digits with a
    scale of 4 and more, about a third came a unit off). A decimal of at most 15 digits is
    ``m * 10**-s`` with ``m`` and ``10**s`` exact doubles (``|m| < 10**15``, ``|s| <= 22``):
    one division (or product), correctly rounded, gives the nearest double. (A scale beyond
    22 either way, where the power of ten is no double, takes Python's ``float`` of each
    value.)"""
    import pyarrow as pa

    pdf = pdf.copy(deep=False)
    for name, scale in decimals.items():
        values = pa.array(pdf[name].array)  # one array, or chunks (a shuffled column)
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        kind = values.type
        if abs(scale) > 22:
            pdf[name] = np.array([np.nan if v is None else float(v)
                                  for v in values.to_pylist()], dtype=np.float64)
            continue
        # the unscaled integers, read from the values' buffer: an int32 or int64 each, or
        # the lowest 64 bits (little-endian, first) of 128 or 256, which hold all of them
        # (two's complement, |m| < 10**15)
        step = max(kind.bit_width // 64, 1)
        ints = np.frombuffer(values.buffers()[1],
                             dtype=np.int32 if kind.bit_width == 32 else np.int64)
        out = ints[values.offset * step:(values.offset + len(values)) * step:step].astype(
            np.float64)
        if scale > 0:
            out /= 10.0 ** scale
        elif scale < 0:
            out *= 10.0 ** -scale
        if values.null_count:
            out[values.is_null().to_numpy(zero_copy_only=False)] = np.nan
        pdf[name] = out
    return pdf


def _max_label(labels) -> Any:
    """The largest label (:meth:`Plan.with_max_label` takes what is not a number); of a
    categorical column, the largest of its values (an unordered one has no ``max``)."""
    import pandas as pd

    dtype = labels.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        labels = labels.astype(dtype.categories.dtype)
    return labels.max().compute()


# the largest one-stage task shuffle (input partitions times output partitions) preferred to
# p2p: Dask stages a task shuffle of more partitions, and p2p bounds the workers' memory there
_TASKS_PIECES = 1024


def _shuffle_method(n_in: int, n_out: int) -> str | None:
    """The shuffle's method: ``dataframe.shuffle.method`` where it is set; else ``"tasks"``
    where the engine would take ``"p2p"`` and the task shuffle has one stage of at most
    ``_TASKS_PIECES`` pieces (measured on a LocalCluster of two workers, 10M packed rows in
    16 partitions: the shuffle alone 1.99 CPU seconds against 2.86 with p2p, the whole call
    2.80 against 3.94); else the engine's default (None). The shuffle takes it as
    ``shuffle_method=``."""
    import dask
    from dask.utils import get_default_shuffle_method

    if dask.config.get("dataframe.shuffle.method", None) is not None:
        return None
    if get_default_shuffle_method() == "p2p" and n_in * n_out <= _TASKS_PIECES:
        return "tasks"
    return None


# the most rows of an output partition that the default number of partitions allows: 17 MB
# of packed rows (a key and a score), about 75 MB at the peak of the evaluation's task
_ROWS_PER_PARTITION = 1 << 20


def _cluster_threads() -> int | None:
    """The threads of the workers of the distributed client that runs ``dask.compute`` here,
    or None where no such client runs it (a local scheduler, none connected, or an
    asynchronous client)."""
    import dask

    scheduler = dask.config.get("scheduler", None)
    try:
        from distributed import Client, default_client
    except ImportError:  # pragma: no cover - distributed is part of skrank[dask]
        return None
    if isinstance(scheduler, Client):
        client = scheduler
    elif scheduler is not None and scheduler not in ("dask.distributed", "distributed"):
        return None  # a local scheduler, chosen in the configuration
    else:
        try:
            client = default_client()
        except ValueError:
            return None
    if client.asynchronous:
        return None
    return sum(client.nthreads().values()) or None


def _output_partitions(n_in: int, n_rows: int | None, threads: int | None) -> int:
    """The default number of partitions after the shuffle: under a distributed client
    (``threads``, its workers' threads), one a thread (no more than the input has) where
    that holds at most :data:`_ROWS_PER_PARTITION` rows a partition (``n_rows``, counted by
    the layout's reduction), else as many per thread as it takes; otherwise as many as the
    input has.

    Dask's shuffle costs by the piece (input partitions times output partitions: each a
    task to schedule and, between workers, a message) as much as by the row, and a task of
    millions of rows by its fresh memory: on a LocalCluster of two single-threaded workers,
    10M rows in 16 partitions, the call took a median of 1.9 s wall and 1.8 CPU seconds with
    4 output partitions, 3.5 and 3.0 with 2 (tasks of 5M rows, some taking ten times their
    time) and 2.6 and 2.3 with 16 (interleaved rounds, load average 5 to 6; with a load
    average of 3: 1.5, 1.2 and 1.9 s). On the quiet machine, though, partitions of 2.5M rows
    (4) were the slowest: in three interleaved runs of 8 to 10 rounds, medians of 1.63, 2.34
    and 2.05 s with 4, against 1.27 and 1.48 with 8, 1.38 and 1.31 with 10, 1.21 and 1.38
    with 6, and 1.46, 1.44 and 1.52 with 16, and in a fourth of 12 rounds 2.29 with 4 and
    1.42 with 10; so at most 2**20 rows a partition (10 at 10M rows on two threads)."""
    if threads is None or n_rows is None:
        return n_in
    per_thread = -(-n_rows // (threads * _ROWS_PER_PARTITION))
    return per_thread * threads if per_thread > 1 else min(n_in, threads)


def _shuffled(rows, layout: Layout, npartitions: int | None):
    """The rows packed (:func:`pack`) and shuffled on the query id into ``npartitions``
    partitions (None: :func:`_output_partitions`): what the shuffle moves (the benchmark
    times it alone)."""
    # the packed frames have a RangeIndex: the input's divisions, if known, no longer hold
    keyed = rows.map_partitions(pack, layout, meta=pack(rows._meta, layout),
                                clear_divisions=True)
    if npartitions == 0:  # not shuffled
        return keyed
    n_out = npartitions or _output_partitions(
        rows.npartitions, layout.offsets[-1] if layout.offsets is not None else None,
        _cluster_threads())
    # on a column of the packed frames (the query ids' codes, or the query ids): Dask adds
    # only the rows' partitions to what it moves
    return keyed.shuffle(on=layout.on, npartitions=n_out, ignore_index=True,
                         shuffle_method=_shuffle_method(rows.npartitions, n_out))


def _per_query(rows, plan: Plan, layout: Layout, npartitions, *, shuffle: bool) -> list:
    """The lazy per-query tables, one ``Delayed`` a partition: the rows shuffled
    (``shuffle=False``: only packed, the tests' way of showing that split queries are
    refused), each partition evaluated into NumPy arrays (no pandas frame to build, and each
    table comes to the driver as it is, not concatenated on a worker first)."""
    keyed = _shuffled(rows, layout, npartitions if shuffle else 0)
    return per_partition(keyed, _evaluate_partition, "skrank-evaluate", plan=plan,
                         layout=layout)


def _run(rows, plan: Plan, layout: Layout, npartitions, *, shuffle: bool) -> EvaluationResult:
    """Shuffle, evaluate the partitions, gather and assemble."""
    import dask

    tables = dask.compute(*_per_query(rows, plan, layout, npartitions, shuffle=shuffle))
    table = _joined(tables)
    return gather(plan, table) if ERROR in table else assemble(plan, table)


fill_parameters_doc(evaluate)
