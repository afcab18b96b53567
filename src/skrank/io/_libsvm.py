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
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .._validation import BOOL, Interval, validate_params
from ..exceptions import InputError
from ._common import Source, decode, read_bytes, source_name, to_array, where

if TYPE_CHECKING:  # scipy.sparse is imported when a file is read (0.2 s)
    import scipy.sparse as sp

__all__ = ["LibSVMData", "read_libsvm"]

# label, optional qid:<id>, then index:value pairs; no token may hold a stray colon.
_LINE = re.compile(r"[^\s:]+(?:\s+qid:[^\s:]+)?(?:\s+[^\s:]+:[^\s:]+)*")


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
    # source: opened in the body, whose errors name the file and the line
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
        The file (gzip-compressed files are recognised by their content).
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
        On a malformed line (the message names the file and line number), a line with a
        ``qid`` when others have none (or the reverse), a repeated feature index on one line,
        an index out of range, or an empty file.

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
    data = read_bytes(source)
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


def _read_checked(text: str, name: str, zero_based: bool, n_features: int | None
                  ) -> LibSVMData:
    """The checked reader: every line against the grammar; errors name the line."""
    linenos: list[int] = []
    labels: list[str] = []
    qids: list[str] = []
    no_qid_line = 0  # first line without a qid and first line with one (mixed-file error)
    qid_line = 0
    pairs: list[str] = []  # index and value tokens, interleaved
    nnz: list[int] = []
    for lineno, raw in enumerate(text.split("\n"), 1):
        hash_at = raw.find("#")
        line = (raw if hash_at < 0 else raw[:hash_at]).strip()
        if not line:
            continue
        if _LINE.fullmatch(line) is None:
            raise InputError(
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
        raise InputError(
            f"{where(name, no_qid_line)}: line without 'qid:' while line {qid_line} "
            f"has one; either every line has a query id or none has."
        )
    row_lines = np.asarray(linenos, dtype=np.int64)

    y = to_array(labels, float, np.float64)
    if isinstance(y, int):
        raise InputError(
            f"{where(name, linenos[y])}: the label {labels[y]!r} is not a number."
        )
    qid: np.ndarray | None = None
    if qids:
        qid_or_bad = to_array(qids, int, np.int64)
        if isinstance(qid_or_bad, int):
            raise InputError(
                f"{where(name, linenos[qid_or_bad])}: the query id {qids[qid_or_bad]!r} is not "
                f"an integer (LibSVM query ids are integers)."
            )
        qid = qid_or_bad

    counts = np.asarray(nnz, dtype=np.int64)
    entry_row = np.repeat(np.arange(n_rows), counts)
    idx_tokens = pairs[0::2]
    val_tokens = pairs[1::2]
    idx = to_array(idx_tokens, int, np.int64)
    if isinstance(idx, int):
        raise InputError(
            f"{where(name, int(row_lines[entry_row[idx]]))}: the feature index "
            f"{idx_tokens[idx]!r} is not an integer."
        )
    val = to_array(val_tokens, float, np.float64)
    if isinstance(val, int):
        raise InputError(
            f"{where(name, int(row_lines[entry_row[val]]))}: the feature value "
            f"{val_tokens[val]!r} is not a number."
        )

    col = idx if zero_based else idx - 1
    if col.size and col.min() < 0:
        bad = int(np.flatnonzero(col < 0)[0])
        hint = "" if zero_based or idx[bad] < 0 else " (pass zero_based=True for 0-based files)"
        raise InputError(
            f"{where(name, int(row_lines[entry_row[bad]]))}: feature index {int(idx[bad])} "
            f"is out of range{hint}."
        )
    width = int(col.max()) + 1 if col.size else 0
    if n_features is None:
        n_features = width
    elif width > n_features:
        bad = int(np.flatnonzero(col >= n_features)[0])
        raise InputError(
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
            raise InputError(
                f"{where(name, int(row_lines[entry_row[bad]]))}: feature index "
                f"{int(idx[bad])} appears twice on the line."
            )

    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    import scipy.sparse as sp

    X = sp.csr_matrix((val, col, indptr), shape=(n_rows, n_features))
    X.sort_indices()
    return LibSVMData(X=X, y=y, qid=qid)
