"""The errors of the TREC readers (:mod:`skrank.io._runfile`): the message for the line the
parser stopped at, a document repeated for a topic, and which of a file's errors comes
first (its rows before the bad line attached, for ``skrank eval`` to check with its
conventions). The error paths only."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._text import clip
from ..exceptions import InputError
from . import _runreader as R
from ._common import where

__all__ = ["ALL_BITS", "Located", "ReadBefore", "first_error", "parse_error", "repeated"]

#: all the bits of the document hashes (tests keep fewer, to force collisions)
ALL_BITS = (1 << 64) - 1
_BLANKS = re.compile(rb"[ \t\v\f]+")
_RUN_LAYOUT = ("at least 6", "qid Q0 docno rank score tag")
_QRELS_LAYOUT = ("4", "qid iter docno rel")


def _line_text(buf: Any, at: int) -> str:
    """The line of ``buf`` starting at ``at``, its blanks made single spaces."""
    end = at
    size = len(buf)
    while end < size and buf[end] not in (10, 13):
        end += 1
    fields = _BLANKS.split(bytes(buf[at:end]).strip(b" \t\v\f"))
    return b" ".join(fields).decode("utf-8", "replace")


def parse_error(parsed: Any, buf: Any, name: str, first_line: int, qrels: bool) -> InputError:
    """The message for the line the parser stopped at."""
    head = where(name, first_line + parsed.bad_line - 1)
    if parsed.bad == R.BAD_UTF8:
        return InputError(f"{head}: the file is not valid UTF-8 text.")
    text = _line_text(buf, parsed.bad_at)
    fields = text.split(" ")
    if parsed.bad == R.BAD_FIELDS:
        expected, layout = _QRELS_LAYOUT if qrels else _RUN_LAYOUT
        return InputError(f"{head}: malformed line; expected {expected} fields '{layout}', "
                          f"got {len(fields)}: {clip(text, 100)!r}.")
    if qrels:
        return InputError(f"{head}: the relevance label {clip(fields[3])!r} is not an integer (of "
                          "at most 18 digits).")
    if parsed.bad == R.BAD_NAN:
        return InputError(f"{head}: the score is NaN.")
    if parsed.bad == R.BAD_INFINITE:
        return InputError(f"{head}: the score {clip(fields[4])!r} is not a finite number (skrank "
                          "ranks by finite scores).")
    return InputError(f"{head}: the score {clip(fields[4])!r} is not a number.")


class Located:
    """Rows whose document ids lie in ``buf`` (``dstart``, ``dlen``), the text from
    ``begin`` starting on line ``first_line``: the line and the document of a row, counted
    on demand (for error messages)."""

    def lines(self, row: int) -> int:
        """The file line of row ``row`` (counted: for error messages)."""
        return self.first_line + R.count_line_ends(  # type: ignore[attr-defined]
            self.buf, self.begin, int(self.dstart[row]))  # type: ignore[attr-defined]

    def doc(self, row: int) -> str:
        start = int(self.dstart[row])  # type: ignore[attr-defined]
        end = start + int(self.dlen[row])  # type: ignore[attr-defined]
        return bytes(self.buf[start:end]).decode("utf-8")  # type: ignore[attr-defined]


@dataclass
class ReadBefore(Located):
    """The rows of a file parsed before the bad line a parse error names, attached to that
    error as ``_read_before`` (on the error path only): where their document ids start in
    ``buf`` (from ``begin``, line ``first_line``), and their labels (``rel``) or scores
    (``score``). ``skrank eval`` checks them with the conventions before it raises the
    error: a value they refuse comes first in the file. ``qcode`` (into ``topics``) and
    ``dlen``: for the repeat check of :func:`first_error` (None once it is done)."""

    source: str
    buf: Any
    begin: int
    first_line: int
    dstart: np.ndarray
    values: np.ndarray
    qcode: np.ndarray | None = None
    dlen: np.ndarray | None = None
    topics: list[bytes] = field(default_factory=list)

    @property
    def rel(self) -> np.ndarray:
        return self.values

    @property
    def score(self) -> np.ndarray:
        return self.values

    def __len__(self) -> int:
        return int(self.values.shape[0])


def repeated(source: str, rows: Any, a: int, b: int, topic: str, qrels: bool) -> InputError:
    """The error of document row ``b`` of ``rows`` repeating row ``a``'s for ``topic``."""
    done, what = ("judged", "judgements") if qrels else ("retrieved", "documents")
    return InputError(
        f"{where(source, rows.lines(b))}: document {rows.doc(b)!r} is {done} twice for "
        f"query {topic!r} (first on line {rows.lines(a)}); trec_eval refuses duplicate "
        f"{what} too."
    )


def first_error(exc: InputError, before: ReadBefore, qrels: bool,
                hash_mask: int = ALL_BITS) -> InputError:
    """The error to raise for the parse error ``exc`` on the line after the rows ``before``:
    that of a document repeated for a topic among them, if one is (every reader of TREC
    files refuses it: the qrels', the join of a run's batches, ``read_run``; its line comes
    first), else ``exc``; the rows before its line attached (on the error path only)."""
    n = len(before)
    a = b = t = -1
    if n > 1 and before.qcode is not None:
        n_topics = int(before.qcode.max()) + 1
        order, bounds = R.group_rows(np.ascontiguousarray(before.qcode), n_topics)
        a, b, t = R.first_repeat(before.buf, np.ascontiguousarray(before.dstart),
                                 np.ascontiguousarray(before.dlen), order, bounds,
                                 np.arange(n_topics, dtype=np.int64), hash_mask)
    if b >= 0:
        exc = repeated(before.source, before, a, b,
                        before.topics[t].decode("utf-8", "replace"), qrels)
        n = b
    exc._read_before = ReadBefore(before.source, before.buf, before.begin, before.first_line,
                                  before.dstart[:n], before.values[:n])
    return exc
