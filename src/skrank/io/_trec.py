"""Readers for TREC qrels and run files, following trec_eval 10.

qrels: ``qid iter docno rel`` (exactly four whitespace-separated fields; ``iter`` ignored).
run:   ``qid Q0 docno rank score tag`` (six fields or more; ``Q0``, ``rank`` and anything after
``tag`` are ignored, as trec_eval ignores them).

Comments follow trec_eval 10: a line whose first non-blank character is ``#`` is a comment;
a ``#`` anywhere else is an ordinary character, so ids such as
``msmarco_v2.1_doc_00_880019750#4_1633802806`` are read whole. Blank lines are skipped.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass

import numpy as np

from ..exceptions import InputError
from ._common import Source, read_text, source_name, to_array, where

__all__ = ["Qrels", "Run", "read_qrels", "read_run"]


# A comment line after the first: '#' as its first non-blank character (the pattern starts
# with a literal, which lets the regex engine skip ahead quickly).
_COMMENT = re.compile(r"\n[ \t\r\f\v]*#")


class _NoGC:
    """Pause the cyclic garbage collector while millions of small lists are built.

    The parsers create no reference cycles; without the pause CPython's collector rescans the
    growing lists again and again and parsing a million lines takes several times longer.
    """

    def __enter__(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was_enabled:
            gc.enable()


def _split_lines(text: str) -> tuple[list[list[str]], list[int]]:
    """Split ``text`` into lines of fields, skipping blank and comment lines.

    Returns the kept lines' fields and their 1-based line numbers. Lines end at ``\\n`` only
    (a trailing ``\\r`` is whitespace), as in trec_eval.
    """
    rows = [line.split() for line in text.split("\n")]
    has_comments = "#" in text and (
        text.lstrip(" \t\r\f\v").startswith("#") or _COMMENT.search(text) is not None
    )
    if not has_comments and all(rows[:-1]):  # the common case: no blank line but the last
        if rows and not rows[-1]:
            rows.pop()
        return rows, list(range(1, len(rows) + 1))
    keep = [i for i, r in enumerate(rows) if r and not (has_comments and r[0][0] == "#")]
    return [rows[i] for i in keep], [i + 1 for i in keep]


def _check_not_empty(rows: list[list[str]], name: str, what: str) -> None:
    if not rows:
        raise InputError(f"{name}: no {what} (the file is empty or only has comments).")


def _check_field_counts(
    rows: list[list[str]], linenos: list[int], name: str, *, exact: int | None, at_least: int,
    layout: str,
) -> None:
    lens = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    bad = (lens != exact) if exact is not None else (lens < at_least)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        expected = f"{exact}" if exact is not None else f"at least {at_least}"
        raise InputError(
            f"{where(name, linenos[i])}: malformed line; expected {expected} fields "
            f"'{layout}', got {len(rows[i])}: {' '.join(rows[i])[:100]!r}."
        )


def _check_duplicates(
    qid: list[str], doc: list[str], linenos: list[int], name: str, verb: str, what: str
) -> None:
    """Raise on the first (qid, doc) pair met twice, naming both lines (as trec_eval stops)."""
    pairs = list(zip(qid, doc))
    if len(set(pairs)) == len(pairs):
        return
    seen: dict[tuple[str, str], int] = {}
    for b, p in enumerate(pairs):  # pragma: no branch - a repeat exists
        a = seen.setdefault(p, b)
        if a != b:
            raise InputError(
                f"{where(name, linenos[b])}: document {doc[b]!r} is {verb} twice for query "
                f"{qid[b]!r} (first on line {linenos[a]}); trec_eval refuses duplicate {what} "
                f"too."
            )


def _as_str_array(values: list[str]) -> np.ndarray:
    return np.array(values, dtype=str) if values else np.array([], dtype="<U1")


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgements: one row per judged (query, document) pair.

    Attributes
    ----------
    qid : ndarray of str
        Query (topic) id of each judgement, as written in the file.
    doc_id : ndarray of str
        Document id (``docno``).
    rel : ndarray of int64
        Relevance label. trec_eval reads negative labels as "in the pool but not judged"
        (see ``negative_rel`` in :func:`align_run_qrels`).
    source : str
        Where the judgements were read from.
    """

    qid: np.ndarray
    doc_id: np.ndarray
    rel: np.ndarray
    source: str = "<qrels>"

    def __len__(self) -> int:
        return int(self.qid.shape[0])

    @property
    def topics(self) -> np.ndarray:
        """The distinct query ids, sorted as strings (trec_eval's order)."""
        return np.unique(self.qid)


@dataclass(frozen=True, eq=False)
class Run:
    """A system's ranked results: one row per retrieved (query, document) pair.

    Attributes
    ----------
    qid : ndarray of str
        Query (topic) id of each row.
    doc_id : ndarray of str
        Document id (``docno``).
    score : ndarray of float64
        The system's score (``sim``); higher is retrieved first. The file's rank column is not
        kept: trec_eval ignores it and orders by score, breaking ties by docno descending.
    name : str
        The run tag (``run_id``) of the last line, which is the one trec_eval reports.
    source : str
        Where the run was read from.
    """

    qid: np.ndarray
    doc_id: np.ndarray
    score: np.ndarray
    name: str = ""
    source: str = "<run>"

    def __len__(self) -> int:
        return int(self.qid.shape[0])

    @property
    def topics(self) -> np.ndarray:
        """The distinct query ids, sorted as strings (trec_eval's order)."""
        return np.unique(self.qid)


def read_qrels(source: Source) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``).

    Parameters
    ----------
    source : str, path-like or file object
        The qrels file; gzip-compressed files are recognised by their content.

    Returns
    -------
    Qrels
        The judgements in file order.

    Raises
    ------
    InputError
        On a line without exactly four fields, a relevance label that is not an integer, or a
        document judged twice for the same query (trec_eval stops on these as well). The
        message names the file and the line number(s).

    Notes
    -----
    Lines whose first non-blank character is ``#`` are comments and blank lines are skipped
    (trec_eval 10 takes ``#`` only in the first column and rejects blank qrels lines; skrank
    is lenient there). A ``#`` inside a field is part of the id. trec_eval converts labels
    with C's ``atol`` and so reads ``1.5`` as 1 and ``x`` as 0; skrank refuses both.

    Examples
    --------
    >>> import io
    >>> from skrank.io import read_qrels
    >>> qrels = read_qrels(io.StringIO("# judged by NIST\\n301 0 FT-1 2\\n301 0 doc#7 0\\n"))
    >>> qrels.qid, qrels.doc_id, qrels.rel
    (array(['301', '301'], dtype='<U3'), array(['FT-1', 'doc#7'], dtype='<U5'), array([2, 0]))
    """
    name = source_name(source)
    text = read_text(source)
    with _NoGC():
        rows, linenos = _split_lines(text)
        _check_not_empty(rows, name, "judgements")
        _check_field_counts(rows, linenos, name, exact=4, at_least=4,
                            layout="qid iter docno rel")
        qid = [r[0] for r in rows]
        doc = [r[2] for r in rows]
        rel_tokens = [r[3] for r in rows]
        rel = to_array(rel_tokens, int, np.int64)
        if isinstance(rel, int):
            raise InputError(
                f"{where(name, linenos[rel])}: the relevance label {rel_tokens[rel]!r} is not an "
                f"integer (of at most 18 digits)."
            )
        _check_duplicates(qid, doc, linenos, name, "judged", "judgements")
        return Qrels(qid=_as_str_array(qid), doc_id=_as_str_array(doc), rel=rel, source=name)


def read_run(source: Source) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score tag``).

    Parameters
    ----------
    source : str, path-like or file object
        The run file; gzip-compressed files are recognised by their content.

    Returns
    -------
    Run
        The results in file order.

    Raises
    ------
    InputError
        On a line with fewer than six fields, a score that is not a number (or is NaN), or a
        document retrieved twice for the same query (trec_eval stops with "duplicate docs"
        too). The message names the file and the line number(s).

    Notes
    -----
    As in trec_eval, the ``Q0`` and ``rank`` columns are ignored (documents are ranked by
    score, ties broken by docno descending: ``ties="docid"`` in skrank) and fields after the
    run tag are ignored. Lines whose first non-blank character is ``#`` are comments; blank
    lines are skipped; ``#`` inside a field is part of the id. trec_eval reads scores with C's
    ``atof`` (``x`` becomes 0); skrank refuses them.

    Examples
    --------
    >>> import io
    >>> from skrank.io import read_run
    >>> run = read_run(io.StringIO("301 Q0 FT-1 1 2.5 bm25\\n301 Q0 doc#7 2 1.25 bm25\\n"))
    >>> run.doc_id, run.score, run.name
    (array(['FT-1', 'doc#7'], dtype='<U5'), array([2.5 , 1.25]), 'bm25')
    """
    name = source_name(source)
    text = read_text(source)
    with _NoGC():
        rows, linenos = _split_lines(text)
        _check_not_empty(rows, name, "results")
        _check_field_counts(rows, linenos, name, exact=None, at_least=6,
                            layout="qid Q0 docno rank score tag")
        qid = [r[0] for r in rows]
        doc = [r[2] for r in rows]
        score_tokens = [r[4] for r in rows]
        score = to_array(score_tokens, float, np.float64)
        if isinstance(score, int):
            raise InputError(
                f"{where(name, linenos[score])}: the score {score_tokens[score]!r} is not a "
                f"number."
            )
        if np.isnan(score).any():
            i = int(np.flatnonzero(np.isnan(score))[0])
            raise InputError(f"{where(name, linenos[i])}: the score is NaN.")
        _check_duplicates(qid, doc, linenos, name, "retrieved", "documents")
        tag = rows[-1][5]
        return Run(
            qid=_as_str_array(qid), doc_id=_as_str_array(doc), score=score, name=tag,
            source=name,
        )
