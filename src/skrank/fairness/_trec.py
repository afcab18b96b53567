"""Readers of expeval's files: qrels with group labels, and runs with several sampled
rankings per query."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import validate_params
from ..exceptions import InputError

Source = Any  # a path, or a file object opened in text mode


def _read(source: Source) -> tuple[str, str]:
    if hasattr(source, "read"):
        return source.read(), getattr(source, "name", "<file>")
    path = os.fspath(source)
    with open(path, encoding="utf-8") as fh:
        return fh.read(), path


def _bad(name: str, lineno: int, what: str) -> InputError:
    return InputError(f"{name}, line {lineno}: {what}")


def _slow_fields(text: str) -> tuple[list[list[str]], np.ndarray]:
    """Fields line by line (text with bytes outside ASCII or control characters, whose
    whitespace Python's split knows better)."""
    fields = [line.split() for line in text.split("\n")]
    return fields, np.array([len(f) for f in fields], dtype=np.int64)


def _columns(text: str, name: str, allowed: tuple[int, ...],
             what: str) -> tuple[list[np.ndarray], np.ndarray]:
    """The whitespace-separated fields of each non-blank line, one array per column: the
    first ``min(allowed)`` columns, then the optional ones ("" where a line lacks them);
    and the number of fields of every line.

    ASCII text is cut on its bytes, without a loop over lines or fields, into arrays of
    bytes (dtype ``S``); other text line by line into arrays of str.
    """
    raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    control = raw[raw < 32]  # separators are the bytes <= 32 when these are all whitespace
    ascii_only = raw.size == 0 or (int(raw.max()) < 128 and bool(
        ((control >= 9) & (control <= 13)).all()))
    if ascii_only:
        newline = raw == 10
        sep = raw <= 32
        start_mask = ~sep
        start_mask[1:] &= sep[:-1]
        starts = np.flatnonzero(start_mask)
        lines = np.r_[0, np.flatnonzero(newline) + 1]
        lines = lines[lines < raw.size]
        # fields of a line: the token starts between its first byte and the next line's
        per_line = np.diff(np.searchsorted(starts, np.r_[lines, raw.size]))
    else:
        fields, per_line = _slow_fields(text)
    bad = (per_line > 0) & ~np.isin(per_line, allowed)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _bad(name, i + 1, f"expected {' or '.join(map(str, allowed))} fields ({what}), "
                   f"got {int(per_line[i])}: {text.split(chr(10))[i]!r}")
    counts = per_line[per_line > 0]
    if counts.shape[0] == 0:
        raise InputError(f"{name}: no line with data in the file")
    if ascii_only:
        ends = np.flatnonzero(~sep & np.r_[sep[1:], True]) + 1
    else:
        kept = [f for f in fields if f]
    first = np.cumsum(counts) - counts
    out = []
    for k in range(max(allowed)):
        has = counts > k
        if not has.any():
            values = np.zeros(0, dtype="S1" if ascii_only else "U1")
        elif ascii_only:
            s, e = starts[first[has] + k], ends[first[has] + k]
            width = int((e - s).max())
            cut = raw[np.minimum(s[:, None] + np.arange(width), raw.size - 1)]
            cut[np.arange(width)[None, :] >= (e - s)[:, None]] = 0
            values = cut.view(f"S{width}").ravel()
        else:
            values = np.array([f[k] for f, h in zip(kept, has) if h])
        if k < min(allowed):
            out.append(values)
        else:
            col = np.full(counts.shape[0], "", dtype=values.dtype)
            col[has] = values
            out.append(col)
    return out, per_line


def _ids(values: np.ndarray) -> np.ndarray:
    """Ids as an array of str."""
    return values.astype(f"U{values.dtype.itemsize}") if values.dtype.kind == "S" else values


def _numbers(col: np.ndarray, dtype: type, per_line: np.ndarray, name: str,
             what: str) -> np.ndarray:
    try:
        return col.astype(np.int64 if dtype is int else np.float64)
    except ValueError:
        lines = np.flatnonzero(per_line > 0)
        for i, value in enumerate(col.tolist()):
            text = value.decode() if isinstance(value, bytes) else value
            try:
                dtype(text)
            except ValueError:
                raise _bad(name, int(lines[i]) + 1, f"{what}, got {text!r}") from None
        raise  # pragma: no cover


@dataclass(frozen=True)
class ExpevalQrels:
    """Judgments read from expeval's qrels file, as flat arrays.

    Attributes
    ----------
    qid, doc : ndarray of str
        Query and document of each judgment.
    y_true : ndarray of int64
        The grade.
    groups : scipy.sparse.csr_matrix of bool, shape (n_judgments, n_groups)
        Membership of each document in the groups of :attr:`group_labels` (a line with three
        fields puts its document in group ``"-1"``, as expeval does).
    group_labels : ndarray of str
    """

    qid: np.ndarray
    doc: np.ndarray
    y_true: np.ndarray
    groups: Any
    group_labels: np.ndarray


@dataclass(frozen=True)
class ExpevalRun:
    """Sampled rankings read from expeval's run file, as flat arrays.

    Attributes
    ----------
    qid, sample, doc : ndarray of str
        Query, sample (ranking) id and document of each row.
    rank : ndarray of int64
        1-based rank within the sample.
    score : ndarray of float64
        The score column, which expeval ignores.
    tag : str
        The run tag of the last line (expeval keeps that one).
    """

    qid: np.ndarray
    sample: np.ndarray
    doc: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    tag: str


@validate_params({})  # the source is checked when opened
def read_expeval_qrels(source: Source) -> ExpevalQrels:
    """Read an expeval qrels file: ``qid groups docno rel`` or ``qid docno rel`` per line.

    ``groups`` is a ``|``-separated list of group ids (expeval's code splits on ``|``; its
    help text says commas). Blank lines are skipped.

    Parameters
    ----------
    source : str, path or text file object

    Returns
    -------
    ExpevalQrels

    Examples
    --------
    >>> import io
    >>> from skrank.fairness import read_expeval_qrels
    >>> q = read_expeval_qrels(io.StringIO("q1 0|1 d1 2\\nq1 1 d2 0\\n"))
    >>> q.doc.tolist(), q.y_true.tolist(), q.group_labels.tolist()
    (['d1', 'd2'], [2, 0], ['0', '1'])
    >>> q.groups.toarray().astype(int).tolist()
    [[1, 1], [0, 1]]
    """
    from scipy import sparse

    text, name = _read(source)
    (a, b, c, d), per_line = _columns(text, name, (3, 4), "qid [groups] docno rel")
    a, b, c, d = (_ids(x) for x in (a, b, c, d))
    three = d == ""  # qid docno rel: the group field is expeval's -1
    qid = a
    groups = np.where(three, "-1", b)
    doc = np.where(three, b, c)
    grade = _numbers(np.where(three, c, d), int, per_line, name, "the grade must be an "
                     "integer").astype(np.int64)
    # each distinct group field once: "0|2" -> ["0", "2"]
    fields, field_of = np.unique(groups, return_inverse=True)
    split = [[x for x in f.split("|") if x] for f in fields.tolist()]
    empty = [i for i, parts in enumerate(split) if not parts]
    if empty:
        row = int(np.flatnonzero(field_of.ravel() == empty[0])[0])
        raise _bad(name, int(np.flatnonzero(per_line > 0)[row]) + 1,
                   f"no group id in {fields[empty[0]]!r}")
    group_labels = np.unique(np.array([x for parts in split for x in parts]))
    field_rows = np.repeat(np.arange(len(split)), [len(parts) for parts in split])
    field_cols = np.searchsorted(group_labels, [x for parts in split for x in parts])
    field_matrix = sparse.csr_matrix(
        (np.ones(field_rows.shape[0], dtype=bool), (field_rows, field_cols)),
        shape=(len(split), group_labels.shape[0]), dtype=bool)
    member = field_matrix[field_of.ravel()]
    return ExpevalQrels(qid, doc, grade, member, group_labels)


@validate_params({})  # the source is checked when opened
def read_expeval_run(source: Source) -> ExpevalRun:
    """Read an expeval run file: ``qid sample docno rank score [tag]`` per line.

    Several rankings of one query are told apart by the sample column (``Q0`` in a
    trec_eval run). Ranks are 1-based; the score is read but, as in expeval, not used.

    Parameters
    ----------
    source : str, path or text file object

    Returns
    -------
    ExpevalRun

    Examples
    --------
    >>> import io
    >>> from skrank.fairness import read_expeval_run
    >>> r = read_expeval_run(io.StringIO("q1 S0 d1 1 0.9 tag\\nq1 S0 d2 2 0.5 tag\\n"))
    >>> r.sample.tolist(), r.rank.tolist(), r.tag
    (['S0', 'S0'], [1, 2], 'tag')
    """
    text, name = _read(source)
    (qid, sample, doc, rank, score, tags), per_line = _columns(
        text, name, (5, 6), "qid sample docno rank score [tag]")
    qid, sample, doc = (_ids(x) for x in (qid, sample, doc))
    rank = _numbers(rank, int, per_line, name, "the rank must be an integer")
    score = _numbers(score, float, per_line, name, "the score must be a number")
    tag = str(_ids(tags[-1:])[0])
    return ExpevalRun(qid, sample, doc, rank.astype(np.int64), score.astype(np.float64), tag)
