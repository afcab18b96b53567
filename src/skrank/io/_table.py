"""Score tables: query id, label and one or more systems' scores, one row per document.

Two sources: a table file (CSV, TSV, Parquet; read with pyarrow, only the columns asked for:
:func:`read_table`, here), or a LibSVM / SVMlight file with query ids plus one file of
scores per system (one score per line, in row order, as LightGBM's and XGBoost's
``predict`` write them: :func:`~skrank.io._scored.read_scored_libsvm`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._text import clip
from .._validation import (
    Described,
    InstanceOf,
    Options,
    Satisfies,
    param_error,
    public_name,
    validate_params,
)
from ..exceptions import InputError
from ._common import SOURCE, Source, decode, source_name
from ._tablelines import bad_line, data_row_line, scan

__all__ = ["ScoreTable", "read_table"]

_FORMATS = ("csv", "tsv", "parquet")
_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_COMPRESSION = (".gz", ".bz2", ".xz", ".zst", ".zip")


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Labels and the scores of one or more systems, one row per (query, document).

    Attributes
    ----------
    qid : ndarray
        Query id of each row (strings when read from CSV/TSV, as stored for Parquet,
        int64 for LibSVM).
    y_true : ndarray of float64
        Relevance label of each row.
    scores : dict of str to ndarray of float64
        One score array per system, in the order they were asked for.
    doc_id : ndarray or None
        Document id of each row, when a document-id column was named.
    extra : dict of str to ndarray
        Further columns asked for (e.g. a query-type column for segments).
    source : str
        Where the table was read from.
    """

    qid: np.ndarray
    y_true: np.ndarray
    scores: dict[str, np.ndarray]
    doc_id: np.ndarray | None = None
    extra: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = "<table>"

    def __len__(self) -> int:
        return int(self.qid.shape[0])

    @property
    def systems(self) -> list[str]:
        """Names of the score columns (systems)."""
        return list(self.scores)


def _import_pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.csv
        import pyarrow.parquet
    except ImportError as exc:
        raise ImportError(
            f"{public_name('read_table')} needs pyarrow to read CSV, TSV and Parquet tables; "
            "install it with: pip install skrank[pandas] (or pip install pyarrow)"
        ) from exc
    return pyarrow


# what pandas reads as a missing value, so that a table means what it meant before
_NULLS = ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
          "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]
_MAGIC_ZIP = b"PK\x03\x04"
_MAGIC_ZSTD = b"\x28\xb5\x2f\xfd"
#: compressed files by their first bytes (a Parquet file compressed whole cannot be read)
_PACKED = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"),
           (_MAGIC_ZSTD, "zstd"), (_MAGIC_ZIP, "zip"))


def _guess_format(name: str) -> str | None:
    lower = name.lower()
    for comp in _COMPRESSION:
        if lower.endswith(comp):
            lower = lower[: -len(comp)]
            break
    return _SUFFIXES.get(os.path.splitext(lower)[1])


def _is_names(value: Any) -> bool:
    """Whether ``value`` is a column name or a non-empty sequence of them."""
    return isinstance(value, str) or (
        isinstance(value, Sequence) and bool(value) and all(isinstance(v, str) for v in value)
    )


def _names(value: str | Sequence[str] | None) -> list[str] | None:
    """A declared column-name parameter (see ``_COLUMNS``) as a list of names, or None."""
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


_COLUMN = InstanceOf(str, "a column name (str)")
_COLUMNS = [Satisfies(_is_names, "a column name or a non-empty list of column names"), None]


def _row_place(fmt: str, row: int, line: int | None = None) -> str:
    """How to point at data row ``row`` (from 0): ``row N`` of a Parquet file (from 0);
    ``line N`` of a CSV/TSV file, the line where the row starts (see
    :func:`~skrank.io._tablelines.data_row_line`), or ``data row N`` (from 1, the header not
    counted) when that line is not known (the text cannot be read again: a pipe)."""
    if fmt == "parquet":
        return f"row {row}"
    return f"line {line}" if line is not None else f"data row {row + 1}"


def table_row_place(source: str | bytes, fmt: str, row: int) -> str:
    """:func:`_row_place` of data row ``row`` of the table file ``source`` read again, or
    of its bytes (those of a pipe, read once), for a check made after :func:`read_table`
    returned, on its error path only; a file that is not a regular one (it cannot be read
    again), or that no longer reads, is named by ``data row N``."""
    import io
    import lzma
    import zlib

    if fmt == "parquet" or (isinstance(source, str) and not os.path.isfile(source)):
        return _row_place(fmt, row)
    try:
        data = _table_bytes(io.BytesIO(source) if isinstance(source, bytes) else source,
                            "<table>")
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error, InputError):
        return _row_place(fmt, row)
    return _row_place(fmt, row, data_row_line(data, _separator(fmt), row))


@validate_params({
    # its content: opened in the body, whose errors name the file and the line (or row)
    "source": SOURCE,
    "qid": _COLUMN,
    "label": _COLUMN,
    "doc_id": [_COLUMN, None],
    "scores": _COLUMNS,
    "extra": _COLUMNS,
    # None: guessed from the file name in the body, whose message names the file
    "format": Described("one of " + ", ".join(repr(f) for f in _FORMATS), Options(_FORMATS),
                        None),
})
def read_table(
    source: Source,
    *,
    qid: str = "qid",
    label: str = "label",
    scores: str | Sequence[str] | None = None,
    doc_id: str | None = None,
    extra: str | Sequence[str] | None = None,
    format: str | None = None,
) -> ScoreTable:
    """Read a CSV, TSV or Parquet table of labels and scores (needs pyarrow).

    Parameters
    ----------
    source : str, path-like or file object
        The table, with a header row for CSV/TSV. Compressed CSV/TSV (gzip, bz2, xz, zstd,
        or a zip archive of one file) are recognised by their content. A file object is
        binary, or text (CSV/TSV only).
    qid : str, default="qid"
        Column of query ids. Read as strings from CSV/TSV (ids are labels, not numbers:
        ``"007"`` stays ``"007"``); Parquet keeps the stored type.
    label : str, default="label"
        Column of relevance labels (numeric).
    scores : str, list of str or None, default=None
        Score column(s), one per system, compared side by side. None takes every column that
        is not ``qid``, ``label``, ``doc_id`` or in ``extra``; each must be numeric.
    doc_id : str or None, default=None
        Column of document ids (read as strings from CSV/TSV); needed for ``ties="docid"``.
    extra : str, list of str or None, default=None
        Further columns to return unchanged in ``ScoreTable.extra`` (segments, frequencies).
    format : {"csv", "tsv", "parquet"} or None, default=None
        None guesses from the file name (``.csv``, ``.tsv``/``.tab``, ``.parquet``/``.pq``,
        optionally followed by a compression suffix).

    Returns
    -------
    ScoreTable

    Raises
    ------
    InvalidParameterError
        ``source`` is neither a path nor a file object (or is a text stream for Parquet), a
        named column does not exist (the message lists the available ones), or the format
        cannot be guessed.
    InputError
        Missing values in the id, label or score columns (what pandas reads as missing:
        empty, ``NA``, ``nan``, ...), non-numeric labels or scores, infinite labels or scores
        (``inf``, ``-inf``, or a number such as ``1e400`` that overflows to one), a line with
        more or fewer fields than the header, or a document listed twice for a query (the
        message names the column and the line of the first bad value, whichever check
        refuses it; the row, from 0, in Parquet files). A bad value's error has the
        attributes ``parameter`` (``"qid"``, ``"doc_id"``, ``"label"`` or ``"scores"``),
        ``row`` (its data row, from 0) and ``allowed``.
    ImportError
        pyarrow is not installed: ``pip install skrank[pandas]`` (or ``pip install pyarrow``).

    Notes
    -----
    Only the columns asked for are read (Parquet) or converted (CSV/TSV). Line numbers are
    the file's own (decompressed; from 1, the header's line included): blank lines, which
    are skipped, count, and a row whose quoted value holds a line break is named by the line
    where it starts.

    Labels and scores must be finite numbers: NaN is read as a missing value and an infinite
    value is refused, here, with its line, rather than by the evaluation later. An integer
    (or decimal) column is converted to float64 as numpy converts it: a value too large to
    be held exactly (a ``uint64`` above ``2**53``) is rounded, not refused. Whether a
    label suits the conventions (a negative label, or one above 1000 with ``gain="exp"``)
    is for the evaluation to say: the reader does not know them.

    Examples
    --------
    >>> import io
    >>> from skrank.io import read_table
    >>> text = "qid,doc,label,bm25,neural\\n7,d1,2,1.5,0.9\\n7,d2,0,2.5,0.1\\n8,d3,1,0.3,0.7\\n"
    >>> table = read_table(io.StringIO(text), doc_id="doc", format="csv")
    >>> table.systems
    ['bm25', 'neural']
    >>> table.qid, table.y_true
    (array(['7', '7', '8'], dtype='<U1'), array([2., 0., 1.]))
    >>> table.scores["neural"]
    array([0.9, 0.1, 0.7])
    """
    score_names = _names(scores)
    extra_names = _names(extra) or []
    name = source_name(source)
    if isinstance(source, (str, os.PathLike)):  # (before the format its name may not tell)
        if not os.path.exists(source):
            raise InputError(f"{name}: no such file.")
        if os.path.isdir(source):
            raise InputError(f"{name}: is a directory, not a file.")
    fmt = format if format is not None else _guess_format(name)
    if fmt is None:
        raise param_error(
            "format", "one of 'csv', 'tsv', 'parquet' when the file name "
            f"({name!r}) does not tell", format, public_name(),
        )
    if not isinstance(source, (str, os.PathLike)) and (
            fmt == "parquet" and isinstance(source.read(0), str)):
        raise param_error("source", "a path or a binary file object for Parquet",
                          source, public_name())

    pa = _import_pyarrow()
    line: Any = None  # text tables: the line of a data row, on the error path
    if fmt == "parquet":
        columns, read = _parquet(source, name)
    else:
        columns, read, line = _text_table(source, name, fmt)

    def place(row: int) -> str:
        return _row_place(fmt, row, None if line is None else line(row))

    available = ", ".join(repr(c) for c in columns)

    def need(column: str, param: str) -> None:
        if column not in columns:
            raise param_error(
                param, f"a column of {name} (available: {available})", column, public_name()
            )

    need(qid, "qid")
    need(label, "label")
    if doc_id is not None:
        need(doc_id, "doc_id")
    for column in extra_names:
        need(column, "extra")
    if score_names is None:
        used = {qid, label, doc_id, *extra_names}
        score_names = [c for c in columns if c not in used]
        if not score_names:
            raise InputError(
                f"{name}: no score column left after qid={qid!r} and label={label!r} "
                f"(columns: {available})."
            )
    else:
        for column in score_names:
            need(column, "scores")
    id_columns = [c for c in (qid, doc_id) if c is not None]
    numbers = [label, *score_names]
    wanted = list(dict.fromkeys([*id_columns, *numbers, *extra_names]))
    # the first value each check refuses, as (row, message of it, parameter, what is
    # allowed): the earliest row is named, whichever check refuses it (the messages are
    # made for that one only: finding a line scans the text); a text table's first row of
    # another number of fields is one (the rows before it are read and checked)
    table, late = read(wanted, id_columns, numbers)
    refused: list[tuple[int, Any, str | None, str]] = [late] if late is not None else []

    def first_missing(column: str, param: str) -> int:
        """The row of the column's first missing value (its length where none is)."""
        isna = table.column(column).is_null(nan_is_null=True).to_numpy(zero_copy_only=False)
        if not isna.any():
            return len(isna)
        row = int(np.flatnonzero(isna)[0])
        refused.append((row, lambda: f"{name}, {place(row)}: missing value in column "
                        f"{column!r} ({int(isna.sum())} missing in all).", param,
                        "no missing value"))
        return row

    def numeric(column: str, param: str, what: str) -> np.ndarray:
        """The column as float64, up to its first value refused (all of it where none is)."""
        values = table.column(column)
        values = values.slice(0, first_missing(column, param))
        # only a column taken as scores because none were named: perhaps no score at all
        hint = (" Name the score columns with scores=[...]."
                if scores is None and column in score_names else "")
        try:
            out = _float64(values, pa)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            row = _first_not_number(values, pa)
            got = values[row].as_py()
            got = clip(got) if isinstance(got, str) else got
            refused.append((row, lambda: f"{name}, {place(row)}: column {column!r} must hold "
                            f"{what}; got {got!r}." + hint, param, what))
            out = _float64(values.slice(0, row), pa) if row else np.empty(0)
        infinite = np.isinf(out)  # NaN is a missing value: refused above
        if infinite.any():
            row_inf = int(np.flatnonzero(infinite)[0])
            inf = float(out[row_inf])
            refused.append((row_inf, lambda: f"{name}, {place(row_inf)}: column {column!r} "
                            f"must hold finite {what}; got {inf!r}.", param,
                            f"finite {what}"))
            out = out[:row_inf]
        return out

    def ids(column: str) -> np.ndarray:
        values = table.column(column)
        if fmt == "parquet" and (pa.types.is_integer(values.type)
                                 or pa.types.is_floating(values.type)):
            return values.to_numpy()
        return _as_str(values, pa)

    if table.num_rows == 0:
        if refused:
            raise InputError(late[1](), parameter=None, row=0, allowed=late[3])
        where_ = "line 2" if fmt != "parquet" else "row 0"
        raise InputError(f"{name}, {where_}: no data rows (the table has only its header).")
    known = min(first_missing(qid, "qid"),
                first_missing(doc_id, "doc_id") if doc_id is not None else table.num_rows)
    if doc_id is not None:  # over the rows whose ids are there
        qcol, dcol = table.column(qid).slice(0, known), table.column(doc_id).slice(0, known)
        repeat = _repeated_pair(qcol, dcol)
        if repeat is not None:
            first, row = repeat
            refused.append((row, lambda: f"{name}, {place(row)}: document "
                            f"{str(dcol[row].as_py())!r} appears twice for query "
                            f"{str(qcol[row].as_py())!r} (first on {place(first)}).", "doc_id",
                            "one row per (query, document)"))
    y_true = numeric(label, "label", "numeric relevance labels")
    values = {c: numeric(c, "scores", "numeric scores") for c in score_names}
    if refused:
        row, message, param, allowed = min(refused, key=lambda r: r[0])
        exc = InputError(message(), parameter=param, row=row, allowed=allowed)
        # the labels and scores of the rows before (all numbers, finite): a caller checking
        # more (skrank eval: the conventions) names an earlier row it refuses first
        exc._read_before = (y_true[:row], {c: v[:row] for c, v in values.items()})
        raise exc
    return ScoreTable(
        qid=ids(qid),
        y_true=y_true,
        scores=values,
        doc_id=ids(doc_id) if doc_id is not None else None,
        extra={c: table.column(c).to_numpy() for c in extra_names},
        source=name,
    )


def _float64(values: Any, pa: Any) -> np.ndarray:
    """A column of numbers (no missing value) as float64; raises pyarrow's error where a
    value is not a number. An integer or decimal too large for float64 to hold exactly is
    rounded (as numpy and the CSV reader do: 2**63 + 5 is a number), not refused."""
    t = values.type
    exact = not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t))
    return np.asarray(values.cast(pa.float64(), safe=exact).to_numpy(), dtype=np.float64)


def _parquet(source: Source, name: str) -> tuple[list[str], Any]:
    """The column names of a Parquet file and a function reading some of its columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(source)
    except (pa.ArrowException, OSError) as exc:
        hint, head = "", b""
        if isinstance(source, (str, os.PathLike)) and os.path.isfile(source):
            with open(source, "rb") as fh:
                head = fh.read(6)
        elif getattr(source, "seekable", lambda: False)():  # (a pipe's bytes, say)
            source.seek(0)
            head = source.read(6)
        if head:
            packed = [n for m, n in _PACKED if head.startswith(m)]
            if packed:
                hint = (f" It is {packed[0]}-compressed: a Parquet file compresses its "
                        "columns itself; decompress it.")
        raise InputError(f"{name}: cannot be read as PARQUET ({exc}).{hint}") from None
    if hasattr(source, "seek"):
        source.seek(0)

    def read(columns: list[str], ids: list[str], numbers: list[str]) -> Any:
        try:
            return pq.read_table(source, columns=columns), None
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"{name}: cannot be read as PARQUET ({exc}).") from None

    return list(schema.names), read


def _separator(fmt: str) -> str:
    return "," if fmt == "csv" else "\t"


def _text_table(source: Source, name: str, fmt: str) -> tuple[list[str], Any, Any]:
    """The header of a CSV/TSV table, a function parsing some of its columns and one
    giving the line of a data row (:func:`~skrank.io._tablelines.data_row_line`, for error
    messages)."""
    import pyarrow as pa
    import pyarrow.csv as csv

    data = _table_bytes(source, name)
    sep = _separator(fmt)
    parse = csv.ParseOptions(delimiter=sep)
    # the header: its first record (pyarrow skips empty lines before it too), which a quoted
    # name holding a line break continues on the next line
    head = data[:next((end for _, _, end in scan(data, sep)), len(data))]
    try:
        header = csv.read_csv(pa.py_buffer(head), parse_options=parse).column_names
    except UnicodeDecodeError:  # a column name that is not UTF-8: decode names its line
        decode(head, name)
        raise AssertionError("unreachable: the header decodes") from None  # pragma: no cover
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(f"{name}: cannot be read as {fmt.upper()} ({exc}).") from None

    def read(columns: list[str], ids: list[str], numbers: list[str]) -> Any:
        """(the table, None); where a row has another number of fields than the header:
        (the rows before it, its refusal as read_table keeps one)."""
        types = {**{c: pa.string() for c in ids}, **{c: pa.float64() for c in numbers}}
        try:
            return parse(data, columns, types, numbers), None
        except _FieldCount:
            line, got, row, cut = bad_line(data, sep, len(header))
        message = f"{name}, line {line}: {got} fields but the header has {len(header)}."
        return (parse(data[:cut], columns, types, numbers),
                (row, lambda: message, None, f"rows of {len(header)} fields"))

    def parse(text: bytes, columns: list[str], types: dict[str, Any],
              numbers: list[str]) -> Any:
        bad: list[Any] = []

        def invalid(row: Any) -> str:  # a line with another number of fields
            bad.append(row)
            return "error"

        for attempt in (types, {**types, **{c: pa.string() for c in numbers}}):
            convert = csv.ConvertOptions(
                column_types=attempt, include_columns=columns, null_values=_NULLS,
                strings_can_be_null=True, quoted_strings_can_be_null=True,
            )
            try:
                return csv.read_csv(pa.py_buffer(text), parse_options=csv.ParseOptions(
                    delimiter=sep, invalid_row_handler=invalid), convert_options=convert)
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                if bad:
                    raise _FieldCount from None
                if "conversion error" not in str(exc):
                    decode(text, name)  # bytes that are not UTF-8: their line named
                    raise InputError(
                        f"{name}: cannot be read as {fmt.upper()} ({exc}).") from None
        # text columns convert, but for bytes that are not UTF-8 in a column read
        decode(text, name)
        raise AssertionError("unreachable: text columns convert")  # pragma: no cover

    return header, read, lambda row: data_row_line(data, sep, row)


class _FieldCount(Exception):
    """A row of a text table has another number of fields than the header."""


def _table_bytes(source: Source, name: str) -> bytes:
    """The decompressed bytes of a table file: gzip, bz2 and xz by their magic bytes, zip
    (one member) and zstd too; a UTF-8 byte order mark dropped."""
    from ._arrow import open_binary

    stream, owned = open_binary(source)
    try:
        data = stream.read()
    except (OSError, EOFError) as exc:
        raise InputError(f"{name}: corrupt compressed data ({exc}).") from None
    finally:
        if owned:
            stream.close()
    if data.startswith(_MAGIC_ZIP):
        import io
        import zipfile

        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.namelist()
            if len(members) != 1:
                raise InputError(f"{name}: a zip archive of a table holds one file; this one "
                                 f"holds {len(members)}.")
            data = archive.read(members[0])
    elif data.startswith(_MAGIC_ZSTD):
        import pyarrow as pa

        data = pa.input_stream(pa.py_buffer(data), compression="zstd").read()
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _first_not_number(values: Any, pa: Any) -> int:
    """Row of the first value of a column that does not convert to float64 (error path)."""
    step = 1 << 16
    for start in range(0, len(values), step):
        piece = values.slice(start, step)
        try:
            _float64(piece, pa)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            for i in range(len(piece)):
                try:
                    _float64(piece.slice(i, 1), pa)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                    return start + i
    return 0  # pragma: no cover - called only when a value does not convert


def _as_str(values: Any, pa: Any) -> np.ndarray:
    """A column as a numpy str array."""
    from ._columns import to_str_array

    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        try:
            values = values.cast(pa.string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return np.array([str(v) for v in values.to_pylist()], dtype=str)
    return to_str_array(values)


def _repeated_pair(qid: Any, doc: Any) -> tuple[int, int] | None:
    """(first row, repeating row) of the earliest (query, document) pair met twice."""
    from ._columns import encode, first_repeat

    qcode, _ = encode(qid)
    dcode, ddict = encode(doc)
    return first_repeat(qcode * max(len(ddict), 1) + dcode)
