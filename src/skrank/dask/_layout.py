"""What ``skrank.dask.evaluate`` shuffles: each row's position, query and label packed into one
int64 key where that is lossless, the other columns as they are.

The shuffle's cost grows with the bytes it moves. A row needs its position in the input (to
restore the input order of each query's rows, to order the queries by first appearance and to
name a bad row), its query id, its label and its score: four 8-byte columns. When the query ids
and the labels are integers whose ranges are small enough, one int64 holds, from the high bits
down, the position (its index among all the rows), the query id minus the smallest and the
label minus the smallest; the score travels as it is, and the shuffle hashes the query ids
without carrying them (``shuffle(on=<a Series>)``). Half the bytes move.

The ranges come from one reduction over the input before the shuffle (each partition's length
and the smallest and largest query id and label): the query ids and labels are then computed
twice, so persist a ``ddf`` that is costly to compute (a partition that gives other rows the
second time is refused, not packed wrong). A field is packed only when its dtype is a NumPy integer
(or bool, for labels) and the bits of all fields fit in 63; otherwise it travels as a column.
With nothing to pack there is no reduction, and the position is the partition's number above
:data:`ROW_BITS` bits and the row below them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import input_error
from ..exceptions import InputError
from ..metrics._groups import group_rows
from ..metrics._kernels._arrays import group_by_table
from ._tasks import per_partition

__all__ = ["ROW_BITS", "Field", "Layout", "hash_column", "layout_of", "pack", "plan_layout",
           "unpack"]

#: without the reduction, a row's position is its partition's number above these bits
ROW_BITS = 40
_KEY_BITS = 63  # the key stays non-negative


@dataclass(frozen=True)
class Field:
    """An integer column packed into the key: its values, ``lo`` to ``hi``, less ``lo`` at
    ``shift``, given back in ``dtype``."""

    lo: int
    hi: int
    shift: int
    dtype: np.dtype

    @property
    def bits(self) -> int:
        return (self.hi - self.lo).bit_length()

    def take(self, values: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The field's bits of each row, in place in the key: a new array, or ``out`` (an
        int64 array of the rows' length, free to be overwritten)."""
        # one array, modified in place (each temporary is a pass over fresh memory; in a
        # Dask worker, its pages' faults)
        if out is None:
            v = values.astype(np.int64)
        else:
            v = out
            v[...] = values
        if self.lo:
            v -= np.int64(self.lo)
        if self.shift:
            v <<= np.int64(self.shift)
        return v

    def bits_of(self, key: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The field's bits of the keys, as int64: a new array, or ``out`` (an int64 array
        of the keys' length, free to be overwritten)."""
        if out is None:
            v = key >> np.int64(self.shift) if self.shift else key.copy()
        else:
            v = np.right_shift(key, np.int64(self.shift), out=out)
        v &= np.int64((1 << self.bits) - 1)
        return v

    def give(self, key: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The column, as it was, from the keys (in ``out`` where given and the column is
        int64: see :meth:`bits_of`)."""
        v = self.bits_of(key, out)
        if self.lo:
            v += np.int64(self.lo)
        return v.astype(self.dtype, copy=False)


@dataclass(frozen=True)
class Layout:
    """How the rows travel: the key column (``key``: its name) and the input's columns
    carried as they are (``carried``), for the parameters' columns ``names``."""

    key: str
    names: dict[str, str | None]
    carried: tuple[str, ...]
    qid: Field | None
    label: Field | None
    pos_shift: int
    offsets: tuple[int, ...] | None  # each partition's first position; None: ROW_BITS

    def position(self, number: int, n_rows: int) -> np.ndarray:
        """The positions of the rows of input partition ``number``."""
        start = self.offsets[number] if self.offsets is not None else number << ROW_BITS
        return np.arange(start, start + n_rows, dtype=np.int64)

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


def _key_name(columns) -> str:
    name = "_key"
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
    array of one value per input partition, or None): the label packed where it fits, then
    the query id."""
    key = _key_name(columns)
    if stats is None:
        return Layout(key, names, tuple(columns), None, None, 0, None)
    sizes = stats["n"]
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    used = max(int(offsets[-1]) - 1, 0).bit_length()  # the positions' bits
    nonempty = sizes > 0
    packed: dict[str, tuple[int, int, int]] = {}
    for param in ("y_true", "qid"):  # the label first: fewer bits, and a column saved
        name = names[param]
        if f"lo_{name}" not in stats:
            continue
        lo = int(stats[f"lo_{name}"][nonempty].min(initial=0))
        hi = int(stats[f"hi_{name}"][nonempty].max(initial=0))
        bits = (hi - lo).bit_length()
        if used + bits <= _KEY_BITS:
            packed[param] = (lo, hi, bits)
            used += bits
    fields = {}
    shift = 0
    for param in ("y_true", "qid"):  # the label in the lowest bits
        if param in packed:
            lo, hi, bits = packed[param]
            fields[param] = Field(lo, hi, shift, dtypes[names[param]])
            shift += bits
    needed = {n for p, n in names.items() if n is not None and p not in fields}
    carried = tuple(c for c in columns if c in needed)
    return Layout(key, names, carried, fields.get("qid"), fields.get("y_true"), shift,
                  tuple(int(o) for o in offsets))


def pack(pdf, layout: Layout, partition_info=None):
    """One input partition as it travels: the key, then the carried columns (a fresh frame
    of NumPy arrays, with a RangeIndex)."""
    import pandas as pd

    number = partition_info["number"] if partition_info else 0
    n = pdf.shape[0]
    checked = partition_info is not None  # not for Dask's meta (an empty frame)
    if checked and layout.offsets is not None and \
            n != layout.offsets[number + 1] - layout.offsets[number]:
        raise _changed(number, f"{layout.offsets[number + 1] - layout.offsets[number]} rows "
                               f"then, {n} now")
    key = layout.position(number, n)
    if layout.pos_shift:
        key <<= np.int64(layout.pos_shift)
    spare = None  # the fields' bits, one after the other
    for param, field in (("qid", layout.qid), ("y_true", layout.label)):
        if field is None:
            continue
        values = pdf[layout.names[param]].to_numpy()
        if checked and n and (values.min() < field.lo or values.max() > field.hi):
            raise _changed(number, f"{param} from {field.lo} to {field.hi} then, from "
                                   f"{values.min()} to {values.max()} now")
        if field.bits:  # (out of its range, a field would spill into the others)
            spare = field.take(values, spare)
            key |= spare  # the key's other bits are 0 there
    cols = {layout.key: key}
    cols.update((c, pdf[c].to_numpy()) for c in layout.carried)
    return pd.DataFrame(cols, copy=False)


def _changed(number: int, what: str) -> InputError:
    """The error of a partition that is not the one the reduction saw (its rows, packed with
    the reduction's ranges, would be wrong)."""
    return input_error(
        "ddf", "a DataFrame that gives the same rows each time it is computed (the layout's "
        "reduction and the shuffle compute it twice; persist it: ddf.persist())",
        f"other rows in input partition {number} the second time ({what})",
        "skrank.dask.evaluate")


def hash_column(pdf, name: str):
    """The column the shuffle hashes, with the RangeIndex of :func:`pack`'s frame (the
    shuffle aligns the two)."""
    import pandas as pd

    return pd.Series(pdf[name].to_numpy(), name=name, copy=False)


def _by_query(pdf, layout: Layout, key: np.ndarray, order: np.ndarray | None
              ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The rows (of ``key``, in input order) query by query, each query's rows in that
    order (None where they already are), and an int64 array of the rows' length that is
    free to be reused (or None)."""
    if layout.qid is None:
        ids = pdf[layout.names["qid"]].to_numpy()
        return group_rows(key.shape[0], ids if order is None else ids[order]).order, None
    ids = layout.qid.bits_of(key)  # the query field of the keys: 0 to span - 1
    span = layout.qid.hi - layout.qid.lo + 1
    if span > ids.shape[0] + 1024:  # a table larger than the rows: group_rows decides
        return group_rows(key.shape[0], ids).order, ids
    # the shuffled rows of a query are seldom adjacent: straight to the counting sort over
    # a table of the field's span (group_rows first looks for runs: thrice the time here)
    return group_by_table(ids, np.int64(0), span)[2], ids


def unpack(pdf, layout: Layout, *, by_query: bool = False
           ) -> tuple[np.ndarray, dict[str, np.ndarray | None]]:
    """The positions and the parameters' columns of a shuffled partition, its rows put back
    in input order (the shuffle keeps each input partition's order; a task shuffle also
    keeps the partitions' order, and then no sort is needed).

    ``by_query``: then each query's rows gathered, in that order, the queries by first
    appearance (the grouping ``evaluate`` makes of the rows in input order), from the key
    and the carried columns before the fields are unpacked: the fewest arrays gathered."""
    key = pdf[layout.key].to_numpy()
    order = None
    if (key[1:] < key[:-1]).any():
        order = np.argsort(key, kind="stable")
        key = key[order]
    spare: list[np.ndarray] = []  # int64 arrays of the rows' length, free to be reused
    if by_query:
        rows, free = _by_query(pdf, layout, key, order)
        spare += [free] if free is not None else []
        if rows is not None:
            key = key[rows]
            order = rows if order is None else order[rows]
    fields = {"qid": layout.qid, "y_true": layout.label}
    cols: dict[str, np.ndarray | None] = {}
    for param, name in layout.names.items():
        if fields.get(param) is None:
            values = None if name is None else pdf[name].to_numpy()
            cols[param] = values if values is None or order is None else values[order]
    if order is not None:  # an array made here (a sort or a grouping), no longer needed
        spare.append(order)
    # the fields last, in the spare arrays: in a Dask worker each fresh array of the rows'
    # length costs its pages' faults (Dask sets MALLOC_TRIM_THRESHOLD_: memory goes back
    # to the system), as much again as the pass that fills it
    for param, field in fields.items():
        if field is not None:
            cols[param] = field.give(key, spare.pop() if spare else None)
    cols = {param: cols[param] for param in layout.names}  # the parameters' order
    if not layout.pos_shift:
        return key, cols
    if order is None:  # the partition's own keys: not to be changed
        return key >> np.int64(layout.pos_shift), cols
    key >>= np.int64(layout.pos_shift)  # a gathered copy
    return key, cols
