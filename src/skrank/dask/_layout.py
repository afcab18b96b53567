"""What ``skrank.dask.evaluate`` shuffles: each row's position and label packed into one
integer key, its query id as a small code, where that is lossless; the other columns as they
are.

The shuffle's cost grows with the bytes it moves (each step of Dask's task shuffle copies
every column: the split of each input partition, the concatenation of the pieces, and the
concatenation of input partitions where there are fewer output partitions). A row needs its
position in the input (to restore the input order of each query's rows, to order the queries
by first appearance and to name a bad row), its query id, its label and its score: four
8-byte columns. When the labels are integers of a small enough range, the key holds the
position above the label less the smallest label, in an int32 where both fit in 31 bits
(2**31 rows with one bit of labels, 2**28 with eight labels), else an int64. When the query
ids are integers, they travel as their difference from the smallest, in the smallest unsigned
dtype that holds it (four bytes for up to 2**32 ids): the column the shuffle hashes, so that
no other column is added to carry the hash. The score travels as it is. At 10M rows of 100k
queries, 16 bytes a row instead of 32 (Dask adds one byte, the row's partition).

The ranges come from one reduction over the input before the shuffle (each partition's length
and the smallest and largest query id and label): the query ids and labels are then computed
twice, so persist a ``ddf`` that is costly to compute (a partition that gives other rows the
second time is refused, not packed wrong). A field is packed only when its dtype is a NumPy
integer (or bool, for labels) that fits an int64, and the label only where the key's bits
hold it; otherwise it travels as a column. With neither field packable there is no
reduction, and the position is the partition's number above :data:`ROW_BITS` bits and the row
below them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import input_error
from ..exceptions import InputError
from ..metrics._groups import group_rows
from ..metrics._kernels._arrays import group_by_table
from ._tasks import per_partition

__all__ = ["ROW_BITS", "Field", "Layout", "layout_of", "pack", "plan_layout", "unpack"]

#: without the reduction, a row's position is its partition's number above these bits
ROW_BITS = 40
_KEY_BITS = 63  # the key stays non-negative
_SMALL_KEY_BITS = 31  # an int32 key


@dataclass(frozen=True)
class Field:
    """An integer column that travels as its values (``lo`` to ``hi``) less ``lo``: the
    label in the key's lowest bits, the query id as a code of its own (``code``: the
    dtype it travels in); given back in ``dtype``."""

    lo: int
    hi: int
    dtype: np.dtype
    code: np.dtype

    @property
    def bits(self) -> int:
        return (self.hi - self.lo).bit_length()

    @property
    def span(self) -> int:
        return self.hi - self.lo + 1

    def encode(self, values: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The values less ``lo``, in ``out`` or a new array of dtype ``code`` (one pass:
        in a Dask worker each fresh array costs its pages' faults)."""
        if values.dtype.kind == "b":
            values = values.view(np.uint8)
        if out is None:
            out = np.empty(values.shape[0], dtype=self.code)
        # computed in int64 (wrapping, as the cast to an unsigned code does: exact modulo
        # 2**64), then cast
        return np.subtract(values, np.int64(self.lo), out=out, casting="unsafe")

    def decode(self, codes: np.ndarray, *, key: bool = False,
               spare: np.ndarray | None = None) -> np.ndarray:
        """The column, as it was, from its codes (``key``: from the keys, whose lowest
        :attr:`bits` bits are the codes), in ``spare`` where that is an array of the column's
        dtype and the codes' length, free to be overwritten, else in a new array."""
        kind = np.dtype(np.uint8) if self.dtype.kind == "b" else self.dtype
        if spare is not None and spare.dtype == kind and spare.shape == codes.shape:
            out = spare
        else:
            out = np.empty(codes.shape[0], dtype=kind)
        if key:
            np.bitwise_and(codes, codes.dtype.type((1 << self.bits) - 1), out=out,
                           casting="unsafe")
        else:
            np.copyto(out, codes, casting="unsafe")
        if self.lo:
            out += kind.type(self.lo)  # wrapping back, as encode wrapped
        return out.view(self.dtype) if self.dtype.kind == "b" else out


@dataclass(frozen=True)
class Layout:
    """How the rows travel: the key column (``key``: its name, ``key_dtype``), the query
    ids' codes (column ``code``, where ``qid`` is given) and the input's columns carried as
    they are (``carried``), for the parameters' columns ``names``; the label in the key
    below ``pos_shift`` bits where ``label`` is given."""

    key: str
    key_dtype: np.dtype
    code: str
    names: dict[str, str | None]
    carried: tuple[str, ...]
    qid: Field | None
    label: Field | None
    pos_shift: int
    offsets: tuple[int, ...] | None  # each partition's first position; None: ROW_BITS

    @property
    def on(self) -> str:
        """The column the shuffle hashes: the query ids' codes, or the query ids."""
        return self.code if self.qid is not None else self.names["qid"]

    def position(self, number: int, n_rows: int) -> np.ndarray:
        """The positions of the rows of input partition ``number``, in the key's dtype."""
        start = self.offsets[number] if self.offsets is not None else number << ROW_BITS
        return np.arange(start, start + n_rows, dtype=self.key_dtype)

    def locate(self, position: int) -> str:
        """A row named by its place in the input."""
        if self.offsets is None:
            part, row = position >> ROW_BITS, position & ((1 << ROW_BITS) - 1)
        else:
            part = int(np.searchsorted(self.offsets, position, side="right")) - 1
            row = position - self.offsets[part]
        return f"row {row} of input partition {part}"


def _packable(dtype, *, labels: bool) -> bool:
    """An integer dtype whose values fit an int64 (bool too, for labels)."""
    if not isinstance(dtype, np.dtype):
        return False  # pandas' nullable and string dtypes travel as they are
    return dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8) or \
        (labels and dtype.kind == "b")


def _fresh_name(name: str, columns) -> str:
    while name in columns:
        name = "_" + name
    return name


def _ranges(pdf, fields: tuple[str, ...]) -> dict[str, int]:
    """One partition's length and each field's smallest and largest value (0 when empty)."""
    out = {"n": int(pdf.shape[0])}
    for name in fields:
        v = pdf[name].to_numpy()
        empty = v.shape[0] == 0
        out[f"lo_{name}"] = 0 if empty else int(v.min())
        out[f"hi_{name}"] = 0 if empty else int(v.max())
    return out


def plan_layout(rows, names: dict[str, str | None]) -> Layout:
    """The layout of ``rows`` (the columns named in ``names``, a Dask DataFrame): the
    reduction of their ranges, where a field may be packed, then :func:`layout_of`."""
    import dask

    dtypes = rows._meta.dtypes
    fields = tuple(dict.fromkeys(
        names[p] for p in ("qid", "y_true") if _packable(dtypes[names[p]],
                                                         labels=p == "y_true")))
    if not fields:
        return layout_of(names, list(rows.columns), dtypes, None)
    # one small dict a partition, straight to the driver (no frames to build and concatenate)
    found = dask.compute(*per_partition(rows[list(fields)], _ranges, "skrank-ranges",
                                        fields=fields))
    stats = {name: np.array([f[name] for f in found], dtype=np.int64) for name in found[0]}
    return layout_of(names, list(rows.columns), dtypes, stats)


def layout_of(names: dict[str, str | None], columns: list[str], dtypes, stats) -> Layout:
    """The layout given the partitions' ranges (``stats``: :func:`_ranges`'s entries, each an
    array of one value per input partition, or None): the query id coded where it is an
    integer, the label packed where it fits the key."""
    key = _fresh_name("_key", columns)
    code = _fresh_name("_qid", [*columns, key])
    if stats is None:
        return Layout(key, np.dtype(np.int64), code, names, tuple(columns), None, None, 0,
                      None)
    sizes = stats["n"]
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    used = max(int(offsets[-1]) - 1, 0).bit_length()  # the positions' bits
    nonempty = sizes > 0
    ranges: dict[str, tuple[int, int]] = {}
    for param in ("qid", "y_true"):
        name = names[param]
        if f"lo_{name}" in stats:
            ranges[param] = (int(stats[f"lo_{name}"][nonempty].min(initial=0)),
                             int(stats[f"hi_{name}"][nonempty].max(initial=0)))
    if "y_true" in ranges and used + (ranges["y_true"][1] - ranges["y_true"][0]).bit_length() \
            > _KEY_BITS:
        del ranges["y_true"]  # carried
    if "y_true" in ranges:
        used += (ranges["y_true"][1] - ranges["y_true"][0]).bit_length()
    # the key and the codes: one dtype, int32 where both fit (one block of the frame)
    widest = max(used, (ranges["qid"][1] - ranges["qid"][0]).bit_length() if "qid" in ranges
                 else 0)
    key_dtype = np.dtype(np.int32 if widest <= _SMALL_KEY_BITS else np.int64)
    fields = {param: Field(lo, hi, dtypes[names[param]], key_dtype)
              for param, (lo, hi) in ranges.items()}
    label = fields.get("y_true")
    needed = {n for p, n in names.items() if n is not None and p not in fields}
    carried = tuple(c for c in columns if c in needed)
    return Layout(key, key_dtype, code, names, carried, fields.get("qid"), label,
                  label.bits if label is not None else 0, tuple(int(o) for o in offsets))


def pack(pdf, layout: Layout, partition_info=None):
    """One input partition as it travels: the key, the query ids' codes (where the layout
    codes them), then the carried columns (a fresh frame of NumPy arrays, with a
    RangeIndex)."""
    import pandas as pd

    number = partition_info["number"] if partition_info else 0
    n = pdf.shape[0]
    checked = partition_info is not None  # not for Dask's meta (an empty frame)
    if checked and layout.offsets is not None and \
            n != layout.offsets[number + 1] - layout.offsets[number]:
        raise _changed(number, f"{layout.offsets[number + 1] - layout.offsets[number]} rows "
                               f"then, {n} now")
    values = {}
    for param, field in (("qid", layout.qid), ("y_true", layout.label)):
        if field is not None:
            v = values[param] = pdf[layout.names[param]].to_numpy()
            if checked and n and (v.min() < field.lo or v.max() > field.hi):
                raise _changed(number, f"{param} from {field.lo} to {field.hi} then, from "
                                       f"{v.min()} to {v.max()} now")
    # the key and the codes, rows of one array: one block of the frame, that Dask's shuffle
    # takes and concatenates as one array (fewer, larger arrays: in a Dask worker, where
    # each fresh array costs its pages' faults, arrays of 4 MB and more take huge pages);
    # in Fortran order (each row's key and code side by side), which pandas' take keeps, so
    # that a piece of rows is one contiguous range, pickled without a copy when it moves
    block = np.empty((1 if layout.qid is None else 2, n), dtype=layout.key_dtype, order="F")
    key = block[0]
    if layout.label is not None and layout.label.bits:
        # (out of its range, the label would spill into the position)
        layout.label.encode(values["y_true"], out=key)
        key |= layout.position(number, n) << key.dtype.type(layout.pos_shift)
    else:
        key[...] = layout.position(number, n)
    if layout.qid is not None:
        layout.qid.encode(values["qid"], out=block[1])
    frame = pd.DataFrame(block.T, columns=[layout.key] if layout.qid is None else
                         [layout.key, layout.code], copy=False)
    if not layout.carried:
        return frame
    # side by side, not copied (setting a column would copy it)
    return pd.concat([frame, pd.DataFrame({c: pdf[c].to_numpy() for c in layout.carried},
                                          copy=False)], axis=1)


def _changed(number: int, what: str) -> InputError:
    """The error of a partition that is not the one the reduction saw (its rows, packed with
    the reduction's ranges, would be wrong)."""
    return input_error(
        "ddf", "a DataFrame that gives the same rows each time it is computed (the layout's "
        "reduction and the shuffle compute it twice; persist it: ddf.persist())",
        f"other rows in input partition {number} the second time ({what})",
        "skrank.dask.evaluate")


def _by_query(layout: Layout, ids: np.ndarray
              ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The rows (``ids``: their query ids or codes, in input order) query by query, each
    query's rows in that order (None where they already are), and, where the grouping gives
    them, the query ids of the rows so gathered (else None)."""
    if layout.qid is None or layout.qid.span > ids.shape[0] + 1024:
        # no codes, or a table larger than the rows: group_rows decides
        return group_rows(ids.shape[0], ids).order, None
    # the shuffled rows of a query are seldom adjacent: straight to the counting sort over
    # a table of the codes' span (group_rows first looks for runs: thrice the time here);
    # its queries (by first appearance) and their offsets give the ids of the gathered rows
    codes, offsets, rows = group_by_table(np.ascontiguousarray(ids), ids.dtype.type(0),
                                          layout.qid.span)
    return rows, np.repeat(layout.qid.decode(codes), np.diff(offsets))


def unpack(pdf, layout: Layout, *, by_query: bool = False
           ) -> tuple[np.ndarray, dict[str, np.ndarray | None]]:
    """The positions (int64) and the parameters' columns of a shuffled partition, its rows
    put back in input order (the shuffle keeps each input partition's order; a task shuffle
    also keeps the partitions' order, and then no sort is needed).

    ``by_query``: then each query's rows gathered, in that order, the queries by first
    appearance (the grouping ``evaluate`` makes of the rows in input order), from the key
    and the carried columns before the fields are unpacked: the fewest arrays gathered.
    The partition is left as it was."""
    key = pdf[layout.key].to_numpy()
    ids = pdf[layout.on].to_numpy()
    order = None
    if (key[1:] < key[:-1]).any():
        order = np.argsort(key, kind="stable")
        key = key[order]
        ids = ids[order]
    qid = None
    if by_query:
        rows, qid = _by_query(layout, ids)
        if rows is not None:
            key = key[rows]
            order = rows if order is None else order[rows]
            if qid is None:
                ids = ids[rows]
    if qid is None:
        qid = ids if layout.qid is None else layout.qid.decode(ids)
    cols: dict[str, np.ndarray | None] = {"qid": qid}
    for param, name in layout.names.items():
        if param not in cols and not (param == "y_true" and layout.label is not None):
            values = None if name is None else pdf[name].to_numpy()
            cols[param] = values if values is None or order is None else values[order]
    if layout.label is not None:
        # in the order made here (a sort or a grouping), no longer needed: in a Dask worker
        # each fresh array of the rows' length costs its pages' faults
        cols["y_true"] = layout.label.decode(key, key=True, spare=order)
    cols = {param: cols[param] for param in layout.names}  # the parameters' order
    if layout.pos_shift:
        position = np.right_shift(key, key.dtype.type(layout.pos_shift),
                                  out=np.empty(key.shape[0], dtype=np.int64))
    else:  # (the partition's own keys are not changed by the caller)
        position = key.astype(np.int64, copy=False)
    return position, cols
