"""Score tables: query id, label and one or more systems' scores, one row per document.

Two sources: a table file (CSV, TSV, Parquet; read with pandas), or a LibSVM / SVMlight file
with query ids plus one file of scores per system (one score per line, in row order, as
LightGBM's and XGBoost's ``predict`` write them).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_choice, param_error
from ..exceptions import InputError
from ._common import Source, read_text, source_name, where
from ._libsvm import read_libsvm

__all__ = ["ScoreTable", "read_scored_libsvm", "read_scores", "read_table"]

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


def _import_pandas(caller: str) -> Any:
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - exercised with a patched import
        raise ImportError(
            f"{caller} needs pandas to read CSV, TSV and Parquet tables; install it with: "
            "pip install skrank[pandas]"
        ) from exc
    return pd


def _guess_format(name: str) -> str | None:
    lower = name.lower()
    for comp in _COMPRESSION:
        if lower.endswith(comp):
            lower = lower[: -len(comp)]
            break
    return _SUFFIXES.get(os.path.splitext(lower)[1])


def _names(value: Any, param: str, caller: str, *, allow_none: bool) -> list[str] | None:
    """Normalise a column-name parameter to a list of names."""
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
        return list(value)
    allowed = "a column name or a non-empty list of column names"
    raise param_error(param, allowed + (" or None" if allow_none else ""), value, caller)


def _row_place(fmt: str, row: int) -> str:
    """How to point at a data row: file line for text tables (header is line 1)."""
    return f"line {row + 2}" if fmt != "parquet" else f"row {row}"


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
    """Read a CSV, TSV or Parquet table of labels and scores (needs pandas).

    Parameters
    ----------
    source : str, path-like or file object
        The table, with a header row for CSV/TSV. Compressed CSV/TSV (``.gz``, ``.bz2``,
        ``.xz``, ``.zip``) are read as pandas reads them.
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
        A named column does not exist (the message lists the available ones), or the format
        cannot be guessed.
    InputError
        Missing values in the id, label or score columns, or non-numeric labels or scores
        (the message names the column and the line of the first bad value).
    ImportError
        pandas (or, for Parquet, pyarrow) is not installed: ``pip install skrank[pandas]``.

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
    caller = "read_table"
    for param, value in (("qid", qid), ("label", label)):
        if not isinstance(value, str):
            raise param_error(param, "a column name (str)", value, caller)
    if doc_id is not None and not isinstance(doc_id, str):
        raise param_error("doc_id", "a column name (str) or None", doc_id, caller)
    score_names = _names(scores, "scores", caller, allow_none=True)
    extra_names = _names(extra, "extra", caller, allow_none=True) or []
    name = source_name(source)
    if format is None:
        guessed = _guess_format(name)
        if guessed is None:
            raise param_error(
                "format", "one of 'csv', 'tsv', 'parquet' when the file name "
                f"({name!r}) does not tell", format, caller,
            )
        fmt = guessed
    else:
        fmt = check_choice("format", format, _FORMATS, caller)
    if isinstance(source, (str, os.PathLike)) and not os.path.exists(source):
        raise InputError(f"{name}: no such file.")

    pd = _import_pandas(caller)
    id_columns = [c for c in (qid, doc_id) if c is not None]
    try:
        if fmt == "parquet":
            frame = pd.read_parquet(source)
        else:
            frame = pd.read_csv(
                source, sep="," if fmt == "csv" else "\t",
                dtype={c: str for c in id_columns}, keep_default_na=True,
            )
    except ImportError as exc:
        raise ImportError(
            f"{caller} needs pyarrow to read Parquet files; install it with: "
            "pip install skrank[pandas]"
        ) from exc
    except (ValueError, OSError) as exc:
        if isinstance(exc, InputError):  # pragma: no cover - not raised by pandas
            raise
        raise InputError(f"{name}: cannot be read as {fmt.upper()} ({exc}).") from exc

    columns = [str(c) for c in frame.columns]
    available = ", ".join(repr(c) for c in columns)

    def need(column: str, param: str) -> None:
        if column not in columns:
            raise param_error(
                param, f"a column of {name} (available: {available})", column, caller
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

    def missing(column: str) -> None:
        isna = frame[column].isna().to_numpy()
        if isna.any():
            row = int(np.flatnonzero(isna)[0])
            raise InputError(
                f"{name}, {_row_place(fmt, row)}: missing value in column {column!r} "
                f"({int(isna.sum())} missing in all)."
            )

    def numeric(column: str, what: str) -> np.ndarray:
        missing(column)
        try:
            values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
        except (TypeError, ValueError):  # e.g. a Parquet column of lists
            values = np.array([_number(v) for v in frame[column].tolist()], dtype=np.float64)
        bad = np.isnan(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{name}, {_row_place(fmt, row)}: column {column!r} must hold {what}; got "
                f"{frame[column].iloc[row]!r}."
                + (" Name the score columns with scores=[...]." if scores is None else "")
            )
        return values

    def ids(column: str) -> np.ndarray:
        missing(column)
        values = frame[column]
        if fmt != "parquet" or not pd.api.types.is_numeric_dtype(values):
            return values.to_numpy(dtype=str)
        return values.to_numpy()

    if len(frame) == 0:
        where_ = "line 2" if fmt != "parquet" else "row 0"
        raise InputError(f"{name}, {where_}: no data rows (the table has only its header).")
    qids = ids(qid)
    docs = ids(doc_id) if doc_id is not None else None
    if docs is not None:
        repeated = frame.duplicated([qid, doc_id]).to_numpy()
        if repeated.any():
            row = int(np.flatnonzero(repeated)[0])
            same = (qids == qids[row]) & (docs == docs[row])
            first = int(np.flatnonzero(same)[0])
            raise InputError(
                f"{name}, {_row_place(fmt, row)}: document {str(docs[row])!r} appears twice "
                f"for query {str(qids[row])!r} (first on {_row_place(fmt, first)})."
            )
    return ScoreTable(
        qid=qids,
        y_true=numeric(label, "numeric relevance labels"),
        scores={c: numeric(c, "numeric scores") for c in score_names},
        doc_id=docs,
        extra={c: frame[c].to_numpy() for c in extra_names},
        source=name,
    )


def _number(value: Any) -> float:
    """``value`` as a float, NaN when it is not one number (lists, text, ...)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def read_scores(source: Source) -> np.ndarray:
    """Read a file of scores, one number per line (as ``predict`` output is saved).

    Parameters
    ----------
    source : str, path-like or file object
        The scores file; gzip-compressed files are recognised by their content.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    InputError
        On a blank line, a line with more than one field, or a value that is not a number or
        is NaN; the message names the file and the line.

    Examples
    --------
    >>> import io
    >>> from skrank.io import read_scores
    >>> read_scores(io.StringIO("0.5\\n-1.25\\n3\\n"))
    array([ 0.5 , -1.25,  3.  ])
    """
    name = source_name(source)
    lines = read_text(source).split("\n")
    if lines and lines[-1].strip() == "":
        lines.pop()  # the newline that ends the last line
    if not lines:
        raise InputError(f"{name}: no scores (the file is empty).")
    tokens = [line.strip() for line in lines]
    try:
        values = np.array(list(map(float, tokens)), dtype=np.float64)
    except ValueError:
        for i, tok in enumerate(tokens):  # pragma: no branch - one token is bad
            try:
                float(tok)
            except ValueError:
                what = "is blank" if not tok else f"is not one number: {tok[:60]!r}"
                raise InputError(
                    f"{where(name, i + 1)}: {what} (a scores file has one score per line)."
                ) from None
    if np.isnan(values).any():
        i = int(np.flatnonzero(np.isnan(values))[0])
        raise InputError(f"{where(name, i + 1)}: the score is NaN.")
    return values


def _read_groups(source: Source) -> np.ndarray:
    name = source_name(source)
    tokens = read_text(source).split()
    try:
        sizes = np.array(list(map(int, tokens)), dtype=np.int64)
    except ValueError:
        raise InputError(f"{name}: group sizes must be integers, one per line.") from None
    if sizes.size == 0 or (sizes < 1).any():
        raise InputError(f"{name}: group sizes must be integers >= 1, one per line.")
    return sizes


def read_scored_libsvm(
    data: Source,
    scores: Source | Sequence[Source] | Mapping[str, Source],
    *,
    group: Source | None = None,
    zero_based: bool = False,
) -> ScoreTable:
    """Read a LibSVM / SVMlight file with query ids and the scores of one or more systems.

    Parameters
    ----------
    data : str, path-like or file object
        LibSVM file with ``qid:`` fields (``label qid:ID idx:val ...``); only labels and query
        ids are used.
    scores : source, list of sources, or dict of name to source
        Score file(s), one score per line in the row order of ``data``. Systems are named
        after the file names, or by the dict keys.
    group : str, path-like, file object or None, default=None
        For LibSVM files without ``qid:``: a file of query sizes, one per line, rows of a
        query contiguous (LightGBM's ``.query`` files). Query ``i`` gets id ``i``.
    zero_based : bool, default=False
        Passed to :func:`read_libsvm`.

    Returns
    -------
    ScoreTable
        With int64 ``qid``, float64 ``y_true`` and one score array per system.

    Raises
    ------
    InputError
        A scores file with a different number of lines than ``data`` has rows, a LibSVM file
        without query ids and no ``group``, or both, group sizes that do not add up, and
        every error of :func:`read_libsvm` and :func:`read_scores`.

    Examples
    --------
    >>> import io
    >>> from skrank.io import read_scored_libsvm
    >>> data = io.StringIO("2 qid:1 1:0.5\\n0 qid:1 1:0.1\\n1 qid:2 1:0.7\\n")
    >>> table = read_scored_libsvm(data, {"model": io.StringIO("0.8\\n0.3\\n0.5\\n")})
    >>> table.qid, table.y_true, table.scores["model"]
    (array([1, 1, 2]), array([2., 0., 1.]), array([0.8, 0.3, 0.5]))
    """
    caller = "read_scored_libsvm"
    data_name = source_name(data)
    parsed = read_libsvm(data, zero_based=zero_based)
    n = parsed.y.shape[0]
    if parsed.qid is not None and group is not None:
        raise InputError(
            f"{data_name} has 'qid:' fields and a group file was given too; use one of them."
        )
    if parsed.qid is not None:
        qid = parsed.qid
    elif group is not None:
        sizes = _read_groups(group)
        if int(sizes.sum()) != n:
            raise InputError(
                f"{source_name(group)}: group sizes add up to {int(sizes.sum())} rows but "
                f"{data_name} has {n}."
            )
        qid = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    else:
        raise InputError(
            f"{data_name} has no 'qid:' fields; give group= (a file of query sizes, one per "
            f"line, like LightGBM's .query files)."
        )

    if isinstance(scores, Mapping):
        named = list(scores.items())
        for key, _ in named:
            if not isinstance(key, str):
                raise param_error("scores", "a dict with str keys (system names)", key, caller)
    elif isinstance(scores, (str, os.PathLike)) or hasattr(scores, "read"):
        named = [(None, scores)]
    elif isinstance(scores, Sequence) and len(scores) > 0:
        named = [(None, s) for s in scores]
    else:
        raise param_error(
            "scores", "a scores file, a list of them or a dict of name to file", scores, caller
        )
    if not named:
        raise param_error("scores", "at least one scores file", scores, caller)

    labels: list[str] = []
    for i, (key, src) in enumerate(named):
        label = key if key is not None else os.path.basename(source_name(src))
        if label in ("", "<stream>"):
            label = f"score_{i + 1}"
        if label in labels:
            raise InputError(
                f"Two score files are both named {label!r}; pass a dict to name the systems."
            )
        labels.append(label)
    table: dict[str, np.ndarray] = {}
    for label, (_, src) in zip(labels, named):
        values = read_scores(src)
        if values.shape[0] != n:
            raise InputError(
                f"{source_name(src)} has {values.shape[0]} scores but {data_name} has {n} "
                f"rows; a scores file needs one score per line, in the order of the data."
            )
        table[label] = values
    return ScoreTable(qid=qid, y_true=parsed.y, scores=table, source=data_name)
