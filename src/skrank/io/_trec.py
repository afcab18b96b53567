"""Readers for TREC qrels and run files, following trec_eval 10.

qrels: ``qid iter docno rel`` (exactly four whitespace-separated fields; ``iter`` ignored).
run:   ``qid Q0 docno rank score tag`` (six fields or more; ``Q0``, ``rank`` and anything after
``tag`` are ignored, as trec_eval ignores them).

Comments follow trec_eval 10: a line whose first non-blank character is ``#`` is a comment;
a ``#`` anywhere else is an ordinary character, so ids such as
``msmarco_v2.1_doc_00_880019750#4_1633802806`` are read whole. Blank lines are skipped.

The text is parsed by the compiled reader of ``skrank eval`` (``_runfile.py``, over
``_runreader.pyx``): the parsing rules and their messages live there only. Here the parsed
ids become NumPy ``str`` arrays, decoded in compiled code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import validate_params
from ..exceptions import InputError
from . import _runreader as R
from ._common import SOURCE, Source, source_name
from ._runfile import _HUGE_BYTES, _empty, _release, read_qrels_file, read_run_whole

__all__ = ["Qrels", "Run", "read_qrels", "read_run"]


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


#: ids are decoded this many rows at a time, the pages of a mapped file given back behind
_DECODE_ROWS = 1 << 20


def id_strings(buf: Any, dstart: np.ndarray, dlen: np.ndarray) -> np.ndarray:
    """The ids ``buf[dstart[i]: dstart[i] + dlen[i]]`` (UTF-8 the parser checked), in row
    order, as a NumPy ``str`` array as wide as the longest id (what ``np.array(ids,
    dtype=str)`` gives), decoded by the compiled reader with no Python per row. The rows
    follow the buffer: the pages of a mapped file are given back behind the decoding."""
    n = int(dstart.shape[0])
    if not n:
        return np.array([], dtype="<U1")
    bound = max(int(dlen.max()), 1)  # code points: at most one per byte
    size = n * bound
    # an anonymous map is zeroed by the system (see :func:`~skrank.io._runfile._empty`)
    units = _empty(size, np.uint32) if 4 * size >= _HUGE_BYTES else np.zeros(size, np.uint32)
    units = units.reshape(n, bound)
    most = 0
    for lo in range(0, n, _DECODE_ROWS):
        hi = min(lo + _DECODE_ROWS, n)
        most = max(most, R.ucs4_ids(buf, dstart[lo:hi], dlen[lo:hi], units, lo))
        _release(buf, int(dstart[hi]) if hi < n else None)
    out = units.view(np.dtype((np.str_, bound))).reshape(n)
    return out if most == bound else out.astype(np.dtype((np.str_, max(most, 1))))


def read_run_arrays(source: Source) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """A whole run for :func:`skrank.io.read_run`: ``(qid, doc_id, score, tag of the last
    line)``, in file order, the ids as NumPy ``str`` arrays.

    Raises :class:`InputError` naming the file and line of a malformed line, a score that
    is not a finite number, or a document retrieved twice for a topic; or on a file with no
    results.
    """
    rows, tag, n = read_run_whole(source)
    if not n:
        raise InputError(f"{rows.source}: no results (the file is empty or only has "
                         "comments).")
    order, bounds = rows.grouped()
    rows.check(order, bounds, np.arange(len(rows.topics), dtype=np.int64))
    del order, bounds
    topics = np.array(rows.topics, dtype=str)
    qid = topics[rows.qcode]
    doc = id_strings(rows.buf, rows.dstart, rows.dlen)
    return qid, doc, rows.score, tag


def read_qrels_arrays(source: Source) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """A whole qrels file for :func:`skrank.io.read_qrels`: ``(qid, doc_id, rel, name of
    the source)``, in file order (the errors: see
    :func:`~skrank.io._runfile.read_qrels_file`)."""
    qrels = read_qrels_file(source)
    codes = np.empty(len(qrels), dtype=np.int64)
    codes[qrels.order] = np.repeat(np.arange(qrels.n_topics, dtype=np.int64),
                                   np.diff(qrels.bounds))
    qid = qrels.topics[codes]
    del codes
    doc = id_strings(qrels.buf, qrels.dstart, qrels.dlen)
    return qid, doc, qrels.rel, qrels.source


@validate_params({"source": SOURCE})  # its content: errors name the file and the line
def read_qrels(source: Source) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``).

    Parameters
    ----------
    source : str, path-like or file object
        The qrels file; gzip, bz2 and xz files are recognised by their content.

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
    qid, doc_id, rel, name = read_qrels_arrays(source)
    return Qrels(qid=qid, doc_id=doc_id, rel=rel, source=name)


@validate_params({"source": SOURCE})  # its content: errors name the file and the line
def read_run(source: Source) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score tag``).

    Parameters
    ----------
    source : str, path-like or file object
        The run file; gzip, bz2 and xz files are recognised by their content.

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
    qid, doc_id, score, tag = read_run_arrays(source)
    return Run(qid=qid, doc_id=doc_id, score=score, name=tag, source=source_name(source))
