"""``evaluate`` in pieces: whole queries evaluated where the rows live, one result assembled.

The engines (``skrank.dask``, ``skrank.spark``) route every query's rows to one task. Each task
calls :func:`evaluate_piece` on its rows (sorted by query, then by their position in the input)
and returns a small per-query table; the driver gathers the tables and :func:`assemble` builds
the :class:`EvaluationResult` that :func:`evaluate` gives on the collected rows: the same
per-query values (the same kernels on the same rows of each query, in the same order), the
queries in the same order (by first appearance in the input), and the means of the same
sequential sums over the queries in that order (``weighted_mean``), so neither the number of
tasks nor the order in which they finish changes a bit.

What depends on the whole input is resolved before the pieces run: ERR's scale without
``max_label`` (the largest label, one reduction on the engine). A query met in two pieces
(rows routed to two tasks, or a batch boundary that was not carried over) is refused.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import param_error, relabel
from ..conventions import CONVENTION_NAMES, Conventions, resolve_conventions
from ..exceptions import InputError, InvalidParameterError, SkrankError
from ._evaluate import evaluate
from ._finish import metric_result
from ._groups import Grouping, as_qid_array, group_rows
from ._inputs import _weights
from ._kernels._arrays import group_by_table
from ._result import EvaluationResult, MetricResult
from ._spec import Metric, metric_specs
from ._tie_range import _tie_range_needs

__all__ = ["DECIMAL_DIGITS", "Plan", "assemble", "check_frame_params", "decimal_error",
           "evaluate_piece", "fill_parameters_doc", "gather", "locator", "make_plan",
           "piece_columns", "piece_error"]

#: names of the per-query table's fixed columns (the query id column keeps the input's name)
FIRST, SIZE, WEIGHT, ERROR, ERROR_KIND = "_first", "_size", "_weight", "_error", "_error_kind"


@dataclass(frozen=True)
class Plan:
    """What every piece needs, resolved once on the driver (picklable)."""

    specs: tuple[Metric, ...]
    conventions: Conventions  # the caller's, shown on the results
    piece_conventions: Conventions  # the pieces': empty="exclude" (NaN marks empty queries)
    tie_bounds: bool
    weighted: bool
    weight_float32: bool
    caller: str
    needs_max_label: bool  # ERR without max_label: the largest label of the whole input

    def with_max_label(self, top: Any) -> Plan:
        """The plan with ERR's scale fixed to the largest label of the whole input (``top``:
        the engine's maximum of the label column; None where there are no rows)."""
        if not self.needs_max_label:
            return self
        try:
            max_label = float(top)
        except (TypeError, ValueError):  # None, or labels that are not numbers
            return self  # the pieces raise evaluate's error on them
        if not np.isfinite(max_label):
            return self  # bad labels: the pieces raise the precise error
        if max_label != np.floor(max_label) or max_label < 0:
            raise param_error(
                "max_label", "given for ERR when the largest label is not a non-negative "
                "integer (each task sees only its queries, not the largest label of all)",
                None, self.caller)
        conv = self.piece_conventions.replace(max_label=int(max_label))
        return Plan(self.specs, self.conventions, conv, self.tie_bounds, self.weighted,
                    self.weight_float32, self.caller, False)


# the parameters the engines' ``evaluate`` share, for their docstrings: ``{columns}`` (after
# the data frame) and ``{conventions}`` (last)
_PARAMETERS_DOC = {
    "{columns}": """metrics : str, Metric or sequence of them, default=("ndcg@10",)
        As in :func:`skrank.evaluate`.
    qid, y_true, y_score : str, default="qid", "y_true", "y_score"
        Names of the columns of query ids, relevance labels and scores.
    doc_id : str, optional
        Column of document ids: ``ties="docid"`` needs it, and a document repeated within a
        query is then refused (without it, duplicate rows cannot be told from documents).
    sample_weight, retrieved : str, optional
        Columns of row weights and of the retrieved flags, as in :func:`skrank.evaluate`.
    preset, conventions, tie_bounds
        As in :func:`skrank.evaluate`.""",
    "{conventions}": """gain, ties, empty, rel_min, ap_denominator, p_divisor, idcg, ideal_order, \
score_precision, label_precision, weight_precision, default_k, max_label, \
empty_weighted, arithmetic
        Conventions; see :class:`skrank.Conventions`.

    Returns
    -------
    EvaluationResult
        As :func:`skrank.evaluate` returns on the collected rows.""",
}


def fill_parameters_doc(func: Callable) -> None:
    """Write the shared parameters into an engine's ``evaluate`` docstring (``{columns}``,
    ``{conventions}``)."""
    if func.__doc__ is not None:  # None under python -OO
        for key, text in _PARAMETERS_DOC.items():
            func.__doc__ = func.__doc__.replace(key, text)


def check_frame_params(names: Mapping[str, str | None], columns: Sequence[str], frame: str,
                       count: tuple[str, Any], caller: str) -> int | None:
    """Check an engine's column names (``names``: parameter to column name; ``qid``,
    ``y_true`` and ``y_score`` required) against the columns of its data frame (the
    parameter ``frame``), and its partition count ``count`` (name, value: a positive integer,
    NumPy's too, or None); returns the count as an int (or None)."""
    for param, name in names.items():
        if name is None and param in ("qid", "y_true", "y_score"):
            raise param_error(param, f"the name of a column of {frame}", None, caller)
        if name is not None and name not in columns:
            known = ", ".join(map(repr, columns))
            raise param_error(param, f"the name of a column of {frame} ({known})", name,
                              caller)
        times = 0 if name is None else list(columns).count(name)
        if times > 1:
            raise param_error(param, f"the name of one column of {frame} (it names "
                              f"{times}: rename them)", name, caller)
    param, value = count
    if value is None:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, (bool, np.bool_)) \
            or value < 1:
        raise param_error(param, "a positive int or None", value, caller)
    return int(value)


def check_retrieved(name: str, boolean: bool, dtype: Any, frame: str,
                    caller: str) -> None:
    """The ``retrieved`` column must be boolean, as ``evaluate``'s array is: checked on the
    frame's schema before any task runs (a task would name the length of its piece)."""
    if not boolean:
        raise InvalidParameterError(
            f"The 'retrieved' parameter of {caller} must name a boolean column of {frame}. "
            f"Got {name!r}, a column of type {dtype}, instead."
        )


#: decimals of at most this many digits are taken as doubles (:func:`decimal_error`)
DECIMAL_DIGITS = 15


def decimal_error(param: str, name: str, dtype: Any, frame: str,
                  caller: str) -> InvalidParameterError:
    """The error of a decimal column of labels, scores or weights of more than
    :data:`DECIMAL_DIGITS` digits (raised before any task).

    The engines take a decimal of precision ``p <= 15`` as the double nearest to it: it is
    ``m * 10**-s`` with ``|m| < 10**15``, so two distinct values of a column (one scale)
    are at least ``10**-s`` apart, more than four units in the last place of a double of
    their size (a unit is at most ``2**-52`` of it, under ``0.23 * 10**-s``): the doubles
    nearest to them are distinct, and in the same order. From 16 digits two decimals can
    have one nearest double (``2**53`` and ``2**53 + 1``): a tie that the data do not have,
    or a label moved across ``rel_min``, so they are refused rather than evaluated as other
    values."""
    return InvalidParameterError(
        f"The {param!r} parameter of {caller} must name a column of numbers of {frame}; "
        f"a decimal column is taken as doubles where it has at most {DECIMAL_DIGITS} "
        "digits (more, and two decimals can round to one double: a tie, or a label, that "
        f"the data do not have). Got {name!r}, a column of type {dtype}, instead: cast it "
        f"to double where that rounding is acceptable, or to a decimal of at most "
        f"{DECIMAL_DIGITS} digits."
    )


def locator(row_bits: int) -> Callable[[int], str]:
    """How an engine names a row from its position key: the input partition's number above
    ``row_bits`` bits, the row in the partition below."""
    def locate(key: int) -> str:
        return f"row {key & ((1 << row_bits) - 1)} of input partition {key >> row_bits}"

    return locate


def make_plan(metrics, preset, conventions, tie_bounds: bool, weighted: bool,
              weight_float32: bool, caller: str, values: Mapping[str, Any]) -> Plan:
    """Resolve and check the conventions and metrics as :func:`evaluate` does; the
    conventions given one by one are taken from ``values`` (the caller's ``locals()``: the
    entries named as conventions)."""
    overrides = {name: values.get(name) for name in CONVENTION_NAMES}
    conv = resolve_conventions(preset, conventions, **overrides)
    specs = metric_specs(metrics, caller)
    if not isinstance(tie_bounds, bool):
        raise param_error("tie_bounds", "a bool", tie_bounds, caller)
    if tie_bounds:
        # each piece takes the two ordering rules per query; where they are not the ends of
        # the tie range, refused rather than a range narrower than evaluate's
        odd = [s.display for s in specs if _tie_range_needs(conv.for_metric(s.name), [s])]
        if odd:
            raise param_error(
                "tie_bounds",
                f"False for {', '.join(odd)} under these conventions (AP@k over the relevant "
                "found, or DCG/NDCG under a gain table that falls: the pieces take the two "
                "ordering rules, which are not the ends of the tie range there; "
                "skrank.evaluate computes it)", True, caller)
    needs = conv.max_label is None and any(s.name == "err" for s in specs)
    return Plan(tuple(specs), conv, conv.replace(empty="exclude"), tie_bounds, weighted,
                weight_float32 or conv.weight_precision == "float32", caller, needs)


def piece_columns(plan: Plan) -> list[tuple[str, str]]:
    """``(name, kind)`` of the per-query table's columns after the query id: kind is
    ``"int"``, ``"float"`` or ``"str"``."""
    cols = [(FIRST, "int"), (SIZE, "int"), (WEIGHT, "float")]
    for j in range(len(plan.specs)):
        cols += [(f"_v{j}", "float"), (f"_t{j}", "int")]
        if plan.tie_bounds:
            cols += [(f"_lo{j}", "float"), (f"_hi{j}", "float")]
    return [*cols, (ERROR, "str"), (ERROR_KIND, "str")]


_ROW = re.compile(r"at row (\d+)")


def evaluate_piece(plan: Plan, qid: np.ndarray, first: np.ndarray, y_true, y_score, *,
                   doc_id=None, sample_weight=None, retrieved=None,
                   locate: Callable[[int], str] | None = None) -> dict[str, Any]:
    """The per-query table of one piece: rows of whole queries, each query's rows in
    increasing ``first`` (the rows' positions in the input), the queries in any order and
    their rows adjacent or not (Spark's tasks sort by query, Dask's partitions by position).

    Rows of a query that are not adjacent are gathered first (each query's rows in piece
    order, the queries by first appearance: the grouping ``evaluate`` makes), so that
    ``evaluate`` groups adjacent rows, once, and takes its one-pass kernels where the
    conventions allow; the values are those of the rows as given.

    A skrank error in the rows is returned as the table's ``_error`` (its class name in
    ``_error_kind``) of a one-row table, with "at row N" rewritten by ``locate`` (given the
    row's ``first``) to say where the row was in the input, rather than raised: the engines
    pass it to the driver, where :func:`gather` raises it. The error is the one ``evaluate``
    raises on the piece's rows in input order (increasing ``first``), and the table's
    ``_first`` is the named row's (else the piece's first row), so that the driver raises
    the error of the bad row that comes first in the input.
    """
    cols = {"qid": qid, "y_true": y_true, "y_score": y_score, "doc_id": doc_id,
            "sample_weight": sample_weight, "retrieved": retrieved}
    first = np.asarray(first, dtype=np.int64)
    try:
        try:
            rows, grouped_qid = _gathering(qid, int(qid.shape[0]), plan.caller)
        except SkrankError:
            rows = None  # evaluate raises it below, as on the rows as given
        if rows is None:
            out, heads = _piece_table(plan, cols)
        else:
            gathered = {k: None if v is None else _take(v, rows) for k, v in cols.items()
                        if not (k == "qid" and grouped_qid is not None)}
            if grouped_qid is not None:
                gathered["qid"] = grouped_qid
            out, heads = _piece_table(plan, gathered)
            heads = rows[heads]
        out[FIRST] = first[heads]
        return out
    except SkrankError as exc:
        error = exc
    # the error as evaluate names it on the rows in input order (Spark's tasks may hold
    # them in query order)
    order = None if _increasing(first) else np.argsort(first, kind="stable")
    if rows is not None or order is not None:
        if order is not None:
            cols = {k: None if v is None else _take(v, order) for k, v in cols.items()}
            first = first[order]
        try:
            out, heads = _piece_table(plan, cols)
            out[FIRST] = first[heads]
            return out
        except SkrankError as exc:
            error = exc
    message = str(error)
    named = _ROW.search(message)
    at = first[int(named.group(1))] if named is not None else first[0]
    if locate is not None:
        message = _ROW.sub(lambda m: "at " + locate(int(first[int(m.group(1))])), message)
    # one row that carries the error to the driver, at the place of the row it names
    return {"qid": qid[:1], FIRST: np.array([at], dtype=np.int64), ERROR: [message],
            ERROR_KIND: [type(error).__name__]}


def _increasing(first: np.ndarray) -> bool:
    return bool(first.shape[0] < 2 or (first[1:] > first[:-1]).all())


def _gathering(qid, n: int, caller: str) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``group_rows(n, qid).order``: the rows query by query (by first appearance, piece
    order kept inside each query), or None where each query's rows are adjacent; and
    ``qid[rows]`` where it comes at no cost (else None).

    Where the rows of integer ids change query more than once in 16 rows (queries
    interleaved, as an engine's shuffle delivers them) and the ids span about as many
    values as there are rows, one counting sort (the table ``group_rows`` takes there),
    without ``group_rows``'s pass over the runs, which keeps a start, an id and a copy of
    the start for every run: 24 bytes a row where nearly every row starts a run. The ids
    gathered are then each query's id repeated (written in order, where ``qid[rows]``
    would read the ids at random)."""
    arr = as_qid_array(qid, n, caller)
    if arr.dtype.kind in "iu" and n > 1:
        runs = 1 + int(np.count_nonzero(arr[1:] != arr[:-1]))
        if runs > n // 16:
            lo, hi = int(arr.min()), int(arr.max())
            if hi - lo <= n + 1024:
                ids, offsets, rows = group_by_table(arr, arr.dtype.type(lo), hi - lo + 1)
                if ids.shape[0] == runs:
                    return None, None
                same = ids.dtype == np.asarray(qid).dtype
                return rows, np.repeat(ids, np.diff(offsets)) if same else None
    return group_rows(n, arr, caller=caller).order, None


def _take(values, rows: np.ndarray) -> np.ndarray:
    """``values[rows]``; integers within 0..255 (labels) are read from a one-byte copy,
    whose 1 byte a row stays in the caches where 8-byte values read at random would not
    (measured on 5M rows: 4 ms for the copy and its gather against 62), then widened back
    to their dtype."""
    values = np.asarray(values)
    if values.dtype.kind in "iu" and values.dtype.itemsize > 1 and values.shape[0]:
        if values.min() >= 0 and values.max() <= 255:
            return values.astype(np.uint8)[rows].astype(values.dtype)
    return values[rows]


def _piece_table(plan: Plan, cols: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
    """:func:`evaluate_piece`'s table, but ``_first``, on rows in a given order (raises
    skrank's errors), and each query's first row."""
    qid, y_true, y_score = cols["qid"], cols["y_true"], cols["y_score"]
    n = int(qid.shape[0])
    kw = dict(metrics=list(plan.specs), doc_id=cols["doc_id"],
              sample_weight=cols["sample_weight"], retrieved=cols["retrieved"])
    with relabel(plan.caller):
        res = evaluate(y_true, y_score, qid, conventions=plan.piece_conventions, **kw)
    # the queries as evaluate grouped them (by first appearance, rows in piece order)
    grouping = group_rows(n, qid, caller=plan.caller)
    heads = (grouping.offsets[:-1] if grouping.order is None
             else grouping.order[grouping.offsets[:-1]])  # each query's first row
    out: dict[str, Any] = {"qid": res.qids, SIZE: grouping.sizes}
    bounds = None
    if plan.tie_bounds:
        bounds = [evaluate(y_true, y_score, qid,
                           conventions=plan.piece_conventions.replace(ties=rule), **kw)
                  for rule in ("pessimistic", "optimistic")]
    weights = None
    if plan.weighted:
        weights = _weights(cols["sample_weight"], grouping, n,
                           plan.conventions.weight_precision, plan.caller,
                           one_per_query=plan.conventions.arithmetic == "xgboost")
    out[WEIGHT] = (np.asarray(weights, dtype=np.float64) if weights is not None
                   else np.zeros(res.n_queries))
    for j, spec in enumerate(plan.specs):
        r = res[spec]
        out[f"_v{j}"] = r.per_query
        ties = np.zeros(res.n_queries, dtype=np.int64)
        ties[0] = r.n_tie_affected  # the piece's count, carried by its first query
        out[f"_t{j}"] = ties
        if bounds is not None:
            pess, opt = (b[spec].per_query for b in bounds)
            out[f"_lo{j}"] = np.fmin(pess, opt)
            out[f"_hi{j}"] = np.fmax(pess, opt)
    return out, heads


def piece_error(message: str, kind: str) -> SkrankError:
    """The error a piece returned, as the skrank exception it was (to raise)."""
    from .. import exceptions

    cls = getattr(exceptions, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, SkrankError)):
        cls = InputError
    return cls(message)


def gather(plan: Plan, table: Mapping[str, np.ndarray]) -> EvaluationResult:
    """The result of the gathered per-query tables, or the error of the piece whose error row
    comes first in the input (``_error`` holds None or NaN where there is none)."""
    error = np.asarray(table[ERROR], dtype=object)
    bad = np.flatnonzero((error != None) & (error == error))  # noqa: E711 (object array)
    if bad.shape[0]:
        first = bad[np.argmin(np.asarray(table[FIRST])[bad])]
        raise piece_error(error[first], table[ERROR_KIND][first])
    return assemble(plan, {c: v for c, v in table.items() if c not in (ERROR, ERROR_KIND)})


def assemble(plan: Plan, table: Mapping[str, np.ndarray]) -> EvaluationResult:
    """The :class:`EvaluationResult` of the gathered per-query tables (concatenated, in any
    order): the queries ordered by first appearance in the input, the means computed as
    :func:`evaluate` computes them."""
    caller = plan.caller
    first = np.asarray(table[FIRST], dtype=np.int64)
    if first.shape[0] == 0:
        raise InputError(f"The input of {caller} is empty: y_true and y_score have no rows.")
    order = np.argsort(first, kind="stable")
    qids = as_qid_array(np.asarray(table["qid"])[order], first.shape[0], caller)
    _check_whole(qids, caller)
    sizes = np.asarray(table[SIZE], dtype=np.int64)[order]
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    grouping = Grouping(qids, offsets, None)
    weights = None
    if plan.weighted:
        dtype = np.float32 if plan.weight_float32 else np.float64
        weights = np.ascontiguousarray(np.asarray(table[WEIGHT])[order], dtype=dtype)
    conv = plan.conventions
    results = {}
    for j, spec in enumerate(plan.specs):
        col = np.ascontiguousarray(np.asarray(table[f"_v{j}"], dtype=np.float64)[order])
        bounds = None
        if plan.tie_bounds:
            bounds = tuple(np.ascontiguousarray(np.asarray(table[f"_{s}{j}"],
                                                           dtype=np.float64)[order])
                           for s in ("lo", "hi"))
        n_ties = int(np.asarray(table[f"_t{j}"], dtype=np.int64).sum())
        results[spec] = _finish(spec, col, bounds, n_ties, grouping, conv.for_metric(spec.name),
                                weights, caller)
    return EvaluationResult(plan.specs, qids, conv, results)


def _check_whole(qids: np.ndarray, caller: str) -> None:
    """Refuse a query that came in two pieces: its rows were not routed to one task."""
    ordered = np.sort(qids, kind="stable")
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if same.shape[0]:
        raise InputError(
            f"The rows of query {ordered[same[0]].item()!r} reached {caller} in two pieces, "
            "so it cannot be evaluated as one query: every query's rows must be routed to "
            "one task (shuffled on the query id) and arrive there together."
        )


def _finish(spec: Metric, col: np.ndarray, bounds, n_ties: int, grouping: Grouping,
            conv: Conventions, weights, caller: str) -> MetricResult:
    """The result of one metric from assembled per-query values: ``col`` holds NaN where a
    query is empty (the pieces ran under ``empty="exclude"``); ``bounds`` are the per-query
    (smaller, larger) ends of the tie range."""
    emp = np.isnan(col)
    return metric_result(spec, col, emp, bounds, n_ties, grouping, conv, weights, caller,
                         xgboost_col=np.where(emp, 0.0, col))
