"""Readers for TREC qrels and run files, following trec_eval 10.

qrels: ``qid iter docno rel`` (exactly four whitespace-separated fields; ``iter`` ignored).
run:   ``qid Q0 docno rank score tag`` (six fields or more; ``Q0``, ``rank`` and anything after
``tag`` are ignored, as trec_eval ignores them).

Comments follow trec_eval 10: a line whose first non-blank character is ``#`` is a comment;
a ``#`` anywhere else is an ordinary character, so ids such as
``msmarco_v2.1_doc_00_880019750#4_1633802806`` are read whole. Blank lines are skipped.

The text is parsed by the compiled reader of ``skrank eval`` (``_runfile.py``, over
``_runreader.pyx``): the parsing rules and their messages live there only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import validate_params
from ._common import Source, source_name

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


@validate_params({})  # source: opened in the body, whose errors name the file and the line
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
    from ._runfile import read_qrels_arrays  # (which imports the join, which imports this)

    qid, doc_id, rel, name = read_qrels_arrays(source)
    return Qrels(qid=qid, doc_id=doc_id, rel=rel, source=name)


@validate_params({})  # source: opened in the body, whose errors name the file and the line
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
    from ._runfile import read_run_arrays  # (which imports the join, which imports this)

    qid, doc_id, score, tag = read_run_arrays(source)
    return Run(qid=qid, doc_id=doc_id, score=score, name=tag, source=source_name(source))
