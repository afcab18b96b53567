"""A LibSVM / SVMlight reader with query ids.

The format, one document per line::

    <label> [qid:<int>] <index>:<value> <index>:<value> ... [# comment]

Files are parsed by scikit-learn's ``load_svmlight_file(query_id=True)`` (compiled code).
scikit-learn's errors do not name the line, and it accepts a file where only some lines have
a ``qid:`` (it drops those query ids), so whenever it refuses a file or that happens, the file
is read again by a checked reader: each line matched against the grammar with one compiled
regular expression, so that the error names the file and the line (the numbers of all lines
are then converted in bulk and assembled into a CSR matrix without a per-entry Python loop).
The checked reader also accepts the feature indices of a line in any order, which
scikit-learn refuses.

Before either parse, the bytes are made plain (:func:`read_plain`: gzip, bz2 and xz
decompressed, a UTF-8 byte order mark dropped, CR and CR LF line ends made LF) and searched,
with NumPy, for a byte that Python's ``float`` and ``int`` would accept but a strict reader
must not: ``_`` (``1_0`` is 10 to Python) or a byte of a non-ASCII character (Python reads
Arabic-Indic digits). Such a byte outside a ``#`` comment is an error naming its line.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .._text import clip
from .._validation import BOOL, Interval, validate_params
from ..exceptions import InputError
from ._common import BOM, SOURCE, Source, decode, source_name, to_array, where

if TYPE_CHECKING:  # scipy.sparse is imported when a file is read (0.2 s)
    import scipy.sparse as sp

__all__ = ["LibSVMData", "read_libsvm"]

# label, optional qid:<id>, then index:value pairs; no token may hold a stray colon.
_LINE = re.compile(r"[^\s:]+(?:\s+qid:[^\s:]+)?(?:\s+[^\s:]+:[^\s:]+)*")

#: the stray-byte search looks at this many bytes at a time (its masks are this large)
_SCAN_CHUNK = 8 << 20


def read_plain(source: Source, name: str) -> bytes:
    """The bytes of ``source`` made plain for the line readers of this module and
    :mod:`skrank.io._scored`.

    Gzip, bz2 and xz data are decompressed (recognised by their magic bytes, by
    :func:`skrank.io._arrow.open_binary`), a text stream is encoded as UTF-8, a UTF-8 byte
    order mark at the start is dropped, and every line end (LF, CR LF or a lone CR) becomes
    one LF, so that line ``n`` of the result is the ``n``-th line of the file.
    """
    import io
    import lzma
    import zlib

    from ._arrow import open_binary

    if not isinstance(source, (str, os.PathLike)):
        # a file object whose read() may take no size (the bundled data sets' is such)
        raw = source.read()
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        elif not isinstance(raw, (bytes, bytearray, memoryview)):
            raise InputError(f"{name}: reading the file object gave a "
                             f"{type(raw).__name__}, not text or bytes.")
        source = io.BytesIO(raw)
    stream, owned = open_binary(source)
    try:
        data = stream.read()
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        raise InputError(f"{name}: corrupt compressed data ({exc}).") from None
    finally:
        if owned:
            stream.close()
    data = bytes(data)
    if data.startswith(BOM):
        data = data[len(BOM):]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def stray_byte(data: bytes, comments: bool) -> int:
    """The offset of the first ``_`` or non-ASCII byte of ``data``, or -1 when none.

    With ``comments``, bytes after a ``#`` on their line are skipped (a comment may hold any
    text). ``data`` has LF line ends (:func:`read_plain`). The common case, no such byte at
    all, costs two scans in C; otherwise NumPy looks at ``_SCAN_CHUNK`` bytes at a time.
    """
    if data.isascii() and b"_" not in data:
        return -1
    arr = np.frombuffer(data, dtype=np.uint8)
    for c0 in range(0, arr.size, _SCAN_CHUNK):
        chunk = arr[c0:c0 + _SCAN_CHUNK]
        mask = chunk >= 0x80
        mask |= chunk == ord("_")
        bad = np.flatnonzero(mask)
        if not bad.size:
            continue
        if not comments:
            return c0 + int(bad[0])
        newlines = np.flatnonzero(chunk == ord("\n"))
        hashes = np.flatnonzero(chunk == ord("#"))
        # the line running into this chunk from the one before, and whether it has a '#'
        carried = data.rfind(b"\n", 0, c0) + 1 - c0  # <= 0
        carried_hash = data.find(b"#", c0 + carried, c0) >= 0
        before = np.searchsorted(newlines, bad)  # the newlines of the chunk before each byte
        start = np.concatenate(([carried], newlines + 1))[before]  # each byte's line start
        first_hash = np.searchsorted(hashes, start)
        if hashes.size:  # a '#' of the byte's line, in this chunk, before the byte
            hash_at = hashes[np.minimum(first_hash, hashes.size - 1)]
            in_comment = (first_hash < hashes.size) & (hash_at < bad)
        else:
            in_comment = np.zeros(bad.size, dtype=bool)
        if carried_hash:
            in_comment |= before == 0
        outside = np.flatnonzero(~in_comment)
        if outside.size:
            return c0 + int(bad[outside[0]])
    return -1


def line_of(data: bytes, at: int) -> tuple[int, bytes]:
    """The number of the line of ``data`` holding offset ``at`` and that line's bytes."""
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    return data.count(b"\n", 0, at) + 1, data[start:len(data) if end < 0 else end]



def row_lines(source: Source, name: str) -> np.ndarray:
    """The line numbers (from 1) of the rows of a LibSVM file: its lines that hold more
    than a comment, as :func:`read_libsvm` reads them."""
    lines = read_plain(source, name).split(b"\n")
    return np.array([i for i, line in enumerate(lines, 1) if line.split(b"#", 1)[0].strip()],
                    dtype=np.int64)

def _strict(tokens: list[str], convert: type, dtype: type) -> np.ndarray | int:
    """:func:`~skrank.io._common.to_array`, with a token holding ``_`` or a non-ASCII
    character refused too (Python's ``float`` and ``int`` accept both)."""
    out = to_array(tokens, convert, dtype)
    joined = "".join(tokens)
    if joined.isascii() and "_" not in joined:
        return out
    first = next(i for i, t in enumerate(tokens) if not t.isascii() or "_" in t)
    return first if not isinstance(out, int) else min(first, out)


class LibSVMData(NamedTuple):
    """What :func:`read_libsvm` returns.

    Attributes
    ----------
    X : scipy.sparse.csr_matrix of shape (n_rows, n_features), float64
        The features; entries absent from the file are zeros.
    y : ndarray of shape (n_rows,), float64
        The label (target) of each line.
    qid : ndarray of shape (n_rows,), int64, or None
        The query id of each line, or None when the file has no ``qid:`` fields.
    """

    X: sp.csr_matrix
    y: np.ndarray
    qid: np.ndarray | None


@validate_params({
    "source": SOURCE,  # opened in the body, whose errors name the file and the line
    "zero_based": BOOL,
    "n_features": [Interval(int, 1), None],
})
def read_libsvm(
    source: Source,
    *,
    zero_based: bool = False,
    n_features: int | None = None,
) -> LibSVMData:
    """Read a LibSVM / SVMlight file, with optional ``qid:`` fields.

    Parameters
    ----------
    source : str, path-like or file object
        The file; gzip, bz2 and xz files are recognised by their content. A UTF-8 byte
        order mark at the start is dropped; lines end at LF, CR LF or a lone CR.
    zero_based : bool, default=False
        Whether feature indices start at 0. SVMlight numbers features from 1 (the default):
        index ``j`` becomes column ``j - 1``. With ``zero_based=True`` index ``j`` is column ``j``.
        A file containing index 0 read with ``zero_based=False`` is an error rather than a
        silent shift.
    n_features : int or None, default=None
        Number of columns of ``X``. None uses the largest index found in the file.

    Returns
    -------
    LibSVMData
        Named tuple ``(X, y, qid)``: CSR float64 features, float64 labels and int64 query ids
        (None when the file has no ``qid:`` field).

    Raises
    ------
    InputError
        On a malformed line (the message names the file and line number), a number that is
        not plain ASCII (``1_0``, non-ASCII digits), a line with a ``qid`` when others have
        none (or the reverse), a repeated feature index on one line, an index out of range,
        corrupt compressed data, or an empty file.
    InvalidParameterError
        When ``source`` is not a path or a file object.

    Notes
    -----
    Everything after ``#`` on a line is a comment; blank lines are skipped. Line numbers in
    messages count every physical line, comments and blank lines included.

    Examples
    --------
    >>> import io
    >>> from skrank.io import read_libsvm
    >>> data = read_libsvm(io.StringIO("2 qid:1 1:0.5 3:1\\n0 qid:1 2:0.25\\n1 qid:7 1:1\\n"))
    >>> data.X.toarray()
    array([[0.5 , 0.  , 1.  ],
           [0.  , 0.25, 0.  ],
           [1.  , 0.  , 0.  ]])
    >>> data.y
    array([2., 0., 1.])
    >>> data.qid
    array([1, 1, 7])
    """
    n_features = None if n_features is None else int(n_features)
    name = source_name(source)
    data = read_plain(source, name)
    at = stray_byte(data, comments=True)
    if at >= 0:
        try:
            _refuse_stray(data, at, name, zero_based)
        except InputError as exc:  # a line before it that the checked reader refuses first
            exc._line = data.count(b"\n", 0, at) + 1  # type: ignore[attr-defined]
            before = data[:data.rfind(b"\n", 0, at) + 1].decode("utf-8", "replace")
            raise _refuse_first(exc, before, name, zero_based, n_features, 1) from None
    parsed = _load_svmlight(data, zero_based, n_features)
    if parsed is not None:
        return parsed
    return _read_checked(decode(data, name), name, zero_based, n_features)


def _load_svmlight(data: bytes, zero_based: bool, n_features: int | None
                   ) -> LibSVMData | None:
    """scikit-learn's parse of ``data``, or None when it refuses the file, finds no data
    line, or drops query ids (the checked reader then names the line)."""
    import io

    from sklearn.datasets import load_svmlight_file

    try:
        X, y, qid = load_svmlight_file(io.BytesIO(data), n_features=n_features,
                                       zero_based=bool(zero_based), query_id=True)
    except (ValueError, OverflowError, UnicodeDecodeError):
        return None
    n_rows = y.shape[0]
    if n_rows == 0 or qid.shape[0] not in (0, n_rows):
        return None
    X = X.tocsr()
    if n_features is None and not X.nnz:  # no feature at all: no column (scikit-learn: one)
        import scipy.sparse as sp

        X = sp.csr_matrix((n_rows, 0), dtype=np.float64)
    return LibSVMData(X=X, y=np.asarray(y, dtype=np.float64),
                      qid=np.asarray(qid, dtype=np.int64) if qid.shape[0] else None)


def _refuse_stray(data: bytes, at: int, name: str, zero_based: bool) -> None:
    """Raise the error for the stray byte at ``at`` (see :func:`stray_byte`): the checked
    reader's message for its line (whose tokens it reads strictly), or one that names the
    character where the line would otherwise parse (a non-ASCII blank)."""
    lineno, raw = line_of(data, at)
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{where(name, lineno)}: the file is not valid UTF-8 text.") from None
    # the bytes of the line before ``at`` are ASCII, so ``at`` starts a character
    char = line[at - (data.rfind(b"\n", 0, at) + 1)]
    if not char.isspace():
        _read_checked(line, name, zero_based, None, first_line=lineno)
    # (the checked reader refuses every line holding another stray character)
    raise InputError(
        f"{where(name, lineno)}: the character {char!r} is not allowed outside a comment "
        f"(LibSVM fields are ASCII, separated by spaces or tabs; '#' starts a comment)."
    )


class LabelsBefore(NamedTuple):
    """The rows of a LibSVM file read before the bad line a reader's error names, attached
    to that error as ``_read_before`` (on the error path only): their labels ``y`` and the
    numbers of their lines (``lines``, comments and blank lines counted; None where every
    row was read: :func:`row_lines` finds them). ``scores``: the scores files read whole
    before a scores file's error (None: a data file's error). ``skrank eval`` checks them
    with the conventions before it raises the error: a label they refuse comes first in the
    file."""

    y: np.ndarray
    lines: np.ndarray | None = None
    scores: dict[str, np.ndarray] | None = None


def _at(lineno: int, message: str) -> InputError:
    """An error of the checked reader, which keeps the number of the line it names."""
    exc = InputError(message)
    exc._line = lineno  # type: ignore[attr-defined]
    return exc


def _read_checked(text: str, name: str, zero_based: bool, n_features: int | None,
                  first_line: int = 1) -> LibSVMData:
    """The checked reader: every line against the grammar; errors name the line (lines are
    numbered from ``first_line``). Numbers holding ``_`` or non-ASCII characters are
    refused. Of the lines that its checks refuse, the first is named (see
    :func:`_refuse_first`)."""
    try:
        return _parse_checked(text, name, zero_based, n_features, first_line)[0]
    except InputError as exc:
        raise _refuse_first(exc, text, name, zero_based, n_features, first_line) from None


def _refuse_first(exc: InputError, text: str, name: str, zero_based: bool,
                  n_features: int | None, first_line: int) -> InputError:
    """The error of the first line of ``text`` (numbered from ``first_line``) that the
    checked reader refuses, given ``exc``, one it raised, with the rows read before that
    line attached (:class:`LabelsBefore`).

    The checks run one kind after the other (the grammar, then labels, query ids, ...), so
    the lines before the one ``exc`` names are read again, until they pass: each round finds
    an earlier line of a kind checked later. On the error path only."""
    line = getattr(exc, "_line", None)
    if line is None:
        return exc  # (no data lines)
    starts = [0]  # where each line of ``text`` starts (its last line needs none)
    at = text.find("\n")
    while at >= 0 and len(starts) <= line - first_line:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    while True:
        cut = starts[line - first_line] if line - first_line < len(starts) else len(text)
        try:
            before, lines = _parse_checked(text[:cut], name, zero_based, n_features,
                                           first_line)
        except InputError as earlier:
            if getattr(earlier, "_line", None) is None:  # no row before the line
                before, lines = None, np.zeros(0, dtype=np.int64)
            else:
                exc, line = earlier, earlier._line  # type: ignore[attr-defined]
                continue
        exc._read_before = LabelsBefore(  # type: ignore[attr-defined]
            np.zeros(0) if before is None else before.y, lines)
        return exc


def _parse_checked(text: str, name: str, zero_based: bool, n_features: int | None,
                   first_line: int = 1) -> tuple[LibSVMData, np.ndarray]:
    """:func:`_read_checked`'s parse, and the line numbers of the rows; its errors name the
    line that the first check to refuse the file refuses first (:func:`_at`)."""
    linenos: list[int] = []
    labels: list[str] = []
    qids: list[str] = []
    no_qid_line = 0  # first line without a qid and first line with one (mixed-file error)
    qid_line = 0
    pairs: list[str] = []  # index and value tokens, interleaved
    nnz: list[int] = []
    for lineno, raw in enumerate(text.split("\n"), first_line):
        hash_at = raw.find("#")
        line = (raw if hash_at < 0 else raw[:hash_at]).strip()
        if not line:
            continue
        if _LINE.fullmatch(line) is None:
            raise _at(
                lineno,
                f"{where(name, lineno)}: malformed LibSVM line; expected "
                f"'<label> [qid:<id>] <index>:<value> ...', got {line[:80]!r}."
            )
        # The regex guarantees the shape, so splitting on colons too is unambiguous.
        parts = line.replace(":", " ").split()
        linenos.append(lineno)
        labels.append(parts[0])
        if len(parts) > 1 and parts[1] == "qid":
            qids.append(parts[2])
            start = 3
            if not qid_line:
                qid_line = lineno
        else:
            start = 1
            if not no_qid_line:
                no_qid_line = lineno
        nnz.append((len(parts) - start) // 2)
        pairs.extend(parts[start:])

    n_rows = len(labels)
    if n_rows == 0:
        raise InputError(f"{name}: no data lines (the file is empty or only has comments).")
    if qids and no_qid_line:
        raise _at(
            no_qid_line,
            f"{where(name, no_qid_line)}: line without 'qid:' while line {qid_line} "
            f"has one; either every line has a query id or none has."
        )
    row_lines = np.asarray(linenos, dtype=np.int64)

    y = _strict(labels, float, np.float64)
    if isinstance(y, int):
        raise _at(
            linenos[y],
            f"{where(name, linenos[y])}: the label {clip(labels[y])!r} is not a number."
        )
    qid: np.ndarray | None = None
    if qids:
        qid_or_bad = _strict(qids, int, np.int64)
        if isinstance(qid_or_bad, int):
            raise _at(
                linenos[qid_or_bad],
                f"{where(name, linenos[qid_or_bad])}: the query id "
                f"{clip(qids[qid_or_bad])!r} is not an integer (LibSVM query ids are integers)."
            )
        qid = qid_or_bad

    counts = np.asarray(nnz, dtype=np.int64)
    entry_row = np.repeat(np.arange(n_rows), counts)
    idx_tokens = pairs[0::2]
    val_tokens = pairs[1::2]
    idx = _strict(idx_tokens, int, np.int64)
    if isinstance(idx, int):
        raise _at(
            int(row_lines[entry_row[idx]]),
            f"{where(name, int(row_lines[entry_row[idx]]))}: the feature index "
            f"{clip(idx_tokens[idx])!r} is not an integer."
        )
    val = _strict(val_tokens, float, np.float64)
    if isinstance(val, int):
        raise _at(
            int(row_lines[entry_row[val]]),
            f"{where(name, int(row_lines[entry_row[val]]))}: the feature value "
            f"{clip(val_tokens[val])!r} is not a number."
        )

    col = idx if zero_based else idx - 1
    if col.size and col.min() < 0:
        bad = int(np.flatnonzero(col < 0)[0])
        hint = "" if zero_based or idx[bad] < 0 else " (pass zero_based=True for 0-based files)"
        raise _at(
            int(row_lines[entry_row[bad]]),
            f"{where(name, int(row_lines[entry_row[bad]]))}: feature index {int(idx[bad])} "
            f"is out of range{hint}."
        )
    width = int(col.max()) + 1 if col.size else 0
    if n_features is None:
        n_features = width
    elif width > n_features:
        bad = int(np.flatnonzero(col >= n_features)[0])
        raise _at(
            int(row_lines[entry_row[bad]]),
            f"{where(name, int(row_lines[entry_row[bad]]))}: feature index {int(idx[bad])} "
            f"exceeds n_features={n_features}."
        )

    # A repeated index on one line is ambiguous (sum? last?): refuse it.
    if col.size:
        key = entry_row * np.int64(n_features) + col
        order = np.argsort(key, kind="stable")
        dup = np.flatnonzero(key[order][1:] == key[order][:-1])
        if dup.size:
            bad = int(order[dup[0] + 1])
            raise _at(
                int(row_lines[entry_row[bad]]),
                f"{where(name, int(row_lines[entry_row[bad]]))}: feature index "
                f"{int(idx[bad])} appears twice on the line."
            )

    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    import scipy.sparse as sp

    X = sp.csr_matrix((val, col, indptr), shape=(n_rows, n_features))
    X.sort_indices()
    return LibSVMData(X=X, y=y, qid=qid), row_lines
