"""Join a TREC run with its qrels into the flat arrays that :func:`skrank.evaluate` takes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._text import listing
from .._validation import Interval, Options, param_error, public_name, validate_params
from ..conventions import SCORE_PRECISIONS
from ..exceptions import InputError
from ._arrow import import_pyarrow
from ._columns import encode, first_repeat, string_order, string_ranks, to_str_array
from ._trec import Qrels, Run

__all__ = ["AlignedRun", "align_run_qrels"]

_ONLY_RULES = ("ignore", "include", "error")
_NEGATIVE_RULES = ("zero", "error")


@dataclass(frozen=True, eq=False)
class AlignedRun:
    """A run joined with its qrels: one row per (query, document), grouped by query.

    Rows are ordered by query id (as strings, trec_eval's order); within a query the
    retrieved documents come first in run-file order, then the judged documents the run did
    not retrieve, in qrels-file order.

    Attributes
    ----------
    qid : ndarray of str
        Query id of each row.
    doc_id : ndarray of str
        Document id of each row (give it to ``doc_id=`` for trec_eval's ``ties="docid"``).
    y_true : ndarray of float64
        Relevance label from the qrels; 0 for retrieved documents nobody judged.
    y_score : ndarray of float64
        The run's score; ``-inf`` on rows the run did not retrieve.
    retrieved : ndarray of bool
        False on judged documents the run did not retrieve. Under ``idcg="pool"`` these rows
        feed the ideal DCG and the number of relevant documents (recall, AP, R-precision
        denominators); they are never ranked.
    run_only_qids : ndarray of str
        Queries of the run that have no judgement (sorted).
    qrels_only_qids : ndarray of str
        Judged queries the run has no result for (sorted).
    n_negative_rel : int
        Number of judgements with a negative label among the rows kept.
    """

    qid: np.ndarray
    doc_id: np.ndarray
    y_true: np.ndarray
    y_score: np.ndarray
    retrieved: np.ndarray
    run_only_qids: np.ndarray
    qrels_only_qids: np.ndarray
    n_negative_rel: int = 0

    def __len__(self) -> int:
        return int(self.qid.shape[0])

    @property
    def n_run_only(self) -> int:
        """Number of queries that are in the run but not in the qrels."""
        return int(self.run_only_qids.shape[0])

    @property
    def n_qrels_only(self) -> int:
        """Number of queries that are in the qrels but not in the run."""
        return int(self.qrels_only_qids.shape[0])

    def as_evaluate_kwargs(self) -> dict[str, Any]:
        """Return the arrays as keyword arguments of :func:`skrank.evaluate`.

        ``y_true``, ``y_score``, ``qid``, ``doc_id`` and ``retrieved``.
        """
        return {
            "y_true": self.y_true,
            "y_score": self.y_score,
            "qid": self.qid,
            "doc_id": self.doc_id,
            "retrieved": self.retrieved,
        }


@dataclass
class RunBlock:
    """Rows of a run: pyarrow string columns and float64 scores (built from a :class:`Run`).

    ``codes``, when known, is the topic ids encoded once: ``(codes, dictionary)`` with
    ``dictionary.take(codes)`` equal to ``qid`` (which may then be None).
    """

    qid: Any
    doc: Any
    score: np.ndarray
    tag: str
    codes: tuple[np.ndarray, Any] | None = None

    def __len__(self) -> int:
        return int(self.score.shape[0])


def _chunks(column: Any) -> list[Any]:
    return list(column.chunks) if hasattr(column, "chunks") else [column]


@dataclass
class QrelsIndex:
    """Judgements grouped by topic for joining runs with them, batch after batch.

    ``topics`` holds the distinct topics sorted as strings; the judgements of topic ``t`` are
    rows ``order[start[t]:stop[t]]`` of the file (in file order).
    """

    topics: Any
    start: np.ndarray
    stop: np.ndarray
    order: np.ndarray
    doc: Any
    rel: np.ndarray
    source: str

    @property
    def n_topics(self) -> int:
        return int(self.start.shape[0])

    def topic_strings(self, codes: np.ndarray) -> np.ndarray:
        """Topic ids of the given topic codes, as a numpy str array."""
        return to_str_array(self.topics.take(np.asarray(codes, dtype=np.int64)))


def index_qrels(qid: Any, doc: Any, rel: np.ndarray, source: str) -> QrelsIndex:
    """Group judgements (pyarrow string columns and int labels) by topic.

    The objects may be built by hand: a repeated (query, document) pair is reported without
    line numbers.
    """
    qcode, qdict = encode(qid)
    rank = string_ranks(qdict)
    topic = rank[qcode]
    dcode, ddict = encode(doc)
    repeat = first_repeat(topic * max(len(ddict), 1) + dcode)
    if repeat is not None:
        b = repeat[1]
        raise InputError(
            f"{source}: document {doc[b].as_py()!r} appears twice for query "
            f"{qid[b].as_py()!r} in the qrels."
        )
    order = np.argsort(topic, kind="stable")
    counts = np.bincount(topic, minlength=len(qdict))
    stop = np.cumsum(counts)
    return QrelsIndex(qdict.take(np.argsort(rank)), stop - counts, stop, order, doc,
                      np.asarray(rel), source)


@dataclass
class Joined:
    """One batch of whole topics joined with the judgements, grouped by topic.

    Rows are grouped by ``code`` (ascending: topics sorted as strings); within a topic the
    retrieved documents come first in file order (or in trec_eval's order, from
    ``skrank.io._runbatches.join_batch(in_order=True)``), then the judged documents not
    retrieved, in qrels order. ``tiekey`` is unique within a topic, and among rows of equal
    score the greater key has the greater document id (``ties="docid"`` ranks it first).
    """

    topics: np.ndarray
    code: np.ndarray
    tiekey: np.ndarray
    y_true: np.ndarray
    y_score: np.ndarray
    retrieved: np.ndarray
    doc_source: Any
    doc_rows: np.ndarray
    run_only: np.ndarray
    judged: np.ndarray
    n_negative: int
    candidates: np.ndarray
    first_negative: tuple[int, float] | None = None

    def __len__(self) -> int:
        return int(self.code.shape[0])


def _ranges(start: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(start[i], stop[i])`` over i."""
    lens = stop - start
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(start - (np.cumsum(lens) - lens), lens)
    return np.arange(total, dtype=np.int64) + offsets


def join(index: QrelsIndex, run: RunBlock, *, run_source: str, run_only: str = "ignore",
         max_docs: int | None = None, extra_topics: np.ndarray | None = None,
         float32: bool = False) -> Joined:
    """Join rows of a run (whole topics) with the judgements of their topics.

    ``extra_topics`` (codes of ``index``) adds judged topics without any row in ``run``, as
    unretrieved rows only. ``float32`` orders the scores as float32 for the ``max_docs`` cut
    (trec_eval 9). Raises on a document retrieved twice for a topic.
    """
    pa, _, pc = import_pyarrow("align_run_qrels")
    n = len(run)
    qcode, qdict = run.codes if run.codes is not None else encode(run.qid)
    tq = pc.index_in(qdict, value_set=index.topics).fill_null(-1).to_numpy()
    tq = np.asarray(tq, dtype=np.int64)
    judged = tq >= 0
    run_only_topics = to_str_array(qdict.filter(pa.array(~judged))) if n else \
        np.array([], dtype="<U1")
    keep_topic = judged | (run_only == "include")
    extra = np.zeros(0, dtype=np.int64) if extra_topics is None else extra_topics
    # the topics of the batch, sorted as strings: local codes
    names = pa.concat_arrays([qdict.filter(pa.array(keep_topic)),
                              index.topics.take(pa.array(extra, type=pa.int64()))])
    local_rank = string_ranks(names)
    n_kept_topics = int(keep_topic.sum())
    local_of_run_topic = np.full(len(qdict), -1, dtype=np.int64)
    local_of_run_topic[keep_topic] = local_rank[:n_kept_topics]
    qrels_topic_of_local = np.full(len(names), -1, dtype=np.int64)
    qrels_topic_of_local[local_rank] = np.concatenate([tq[keep_topic], extra])
    has_q = qrels_topic_of_local >= 0
    # the judgements of those topics, in qrels order within each topic
    qt = qrels_topic_of_local[has_q]
    local_of_qrels_topic = np.full(index.n_topics, -1, dtype=np.int64)
    local_of_qrels_topic[qt] = np.flatnonzero(has_q)
    qrows = index.order[_ranges(index.start[qt], index.stop[qt])]
    qlocal = np.repeat(np.flatnonzero(has_q), index.stop[qt] - index.start[qt])

    # one sort of the documents of both by (topic, document id): the tie order, the
    # repeated documents of the run and the join, with no hashing of the ids
    qdocs = index.doc.take(pa.array(qrows, type=pa.int64()))
    docs = pa.chunked_array(_chunks(run.doc) + _chunks(qdocs), type=pa.string())
    rlocal = local_of_run_topic[qcode]
    # rows of topics left out get a group of their own: their repeats are errors too
    rgroup = np.where(rlocal >= 0, rlocal, len(names) + qcode)
    by_doc, same = string_order(np.concatenate([rgroup, qlocal]), docs)
    # the position in that order is a document key: unique within a topic and in docno order
    tie = np.empty(by_doc.shape[0], dtype=np.int64)
    tie[by_doc] = np.arange(by_doc.shape[0], dtype=np.int64)
    pair = np.flatnonzero(same)
    lo, hi = by_doc[pair], by_doc[pair + 1]  # equal rows come in row order: lo < hi

    twice = hi < n
    if twice.any():
        b = int(hi[twice].min())
        doc, topic = run.doc[b].as_py(), qdict[int(qcode[b])].as_py()
        raise InputError(f"{run_source}: document {doc!r} appears twice for query "
                         f"{topic!r} in the run.")

    kept = np.flatnonzero(rlocal >= 0)
    if max_docs is not None and kept.size:
        # trec_eval -M: the first max_docs of each topic by score, ties by docno descending
        score = run.score[kept].astype(np.float32) if float32 else run.score[kept]
        order = np.lexsort((-tie[kept], -score, rlocal[kept]))
        sorted_local = rlocal[kept][order]
        first = np.flatnonzero(np.r_[True, sorted_local[1:] != sorted_local[:-1]])
        size = np.diff(np.r_[first, sorted_local.shape[0]])
        rank = np.arange(sorted_local.shape[0]) - np.repeat(first, size)
        kept = np.sort(kept[order[rank < max_docs]])

    # the retrieved row of each judgement (-1: none), among the rows kept
    matched = hi >= n
    kept_at = np.full(n, -1, dtype=np.int64)
    kept_at[kept] = np.arange(kept.shape[0], dtype=np.int64)
    hit = np.full(qrows.shape[0], -1, dtype=np.int64)
    hit[hi[matched] - n] = kept_at[lo[matched]]
    found = hit >= 0
    rel = index.rel[qrows].astype(np.float64)
    y_run = np.zeros(kept.shape[0], dtype=np.float64)
    y_run[hit[found]] = rel[found]
    missed = ~found

    code = np.concatenate([rlocal[kept], qlocal[missed]])
    order = np.argsort(code, kind="stable")
    y_true = np.concatenate([y_run, rel[missed]])[order]
    negative = y_true < 0
    n_negative = int(np.count_nonzero(negative))
    first_negative = None
    if n_negative:
        row = int(np.flatnonzero(negative)[0])
        first_negative = (row, float(y_true[row]))
        y_true[negative] = 0.0
    n_ret = kept.shape[0]
    retrieved = (np.arange(code.shape[0]) < n_ret)[order]
    code = code[order]
    return Joined(
        topics=to_str_array(names.take(pa.array(np.argsort(local_rank), type=pa.int64()))),
        code=code,
        tiekey=np.concatenate([tie[:n][kept], tie[n:][missed]])[order],
        y_true=y_true,
        y_score=np.concatenate([run.score[kept], np.full(int(missed.sum()), -np.inf)])[order],
        retrieved=retrieved,
        doc_source=docs,
        doc_rows=np.concatenate([kept, n + np.flatnonzero(missed)])[order],
        run_only=np.sort(run_only_topics),
        judged=tq[judged],
        n_negative=n_negative,
        candidates=np.bincount(code[retrieved], minlength=len(names)),
        first_negative=first_negative,
    )


def _negative_error(joined: Joined, source: str) -> InputError:
    row, label = joined.first_negative
    doc = joined.doc_source.take(pa_index(joined.doc_rows[row: row + 1]))[0].as_py()
    return InputError(
        f"{source}: {joined.n_negative} judgements have a negative label, e.g. "
        f"{label:g} for document {doc!r} of query {str(joined.topics[joined.code[row]])!r} "
        f"(negative_rel='error'; 'zero' reads them as trec_eval does)."
    )


def pa_index(values: np.ndarray) -> Any:
    pa, _, _ = import_pyarrow("align_run_qrels")
    return pa.array(np.asarray(values, dtype=np.int64), type=pa.int64())


@validate_params({
    # qrels, run: checked in the body, whose messages show the type given, not its value
    "qrels_only": Options(_ONLY_RULES),
    "run_only": Options(_ONLY_RULES),
    "negative_rel": Options(_NEGATIVE_RULES),
    "max_docs": [Interval(int, 1), None],
    "score_precision": Options(SCORE_PRECISIONS),
})
def align_run_qrels(
    qrels: Qrels,
    run: Run,
    *,
    qrels_only: str = "ignore",
    run_only: str = "ignore",
    negative_rel: str = "zero",
    max_docs: int | None = None,
    score_precision: str = "float64",
) -> AlignedRun:
    """Join a run with its qrels into flat arrays for :func:`skrank.evaluate`.

    Every retrieved document gets its label (0 when unjudged); every judged document the run
    did not retrieve is added as a row with ``retrieved=False`` and score ``-inf``, so that
    the number of relevant documents and the ideal DCG can come from the judgement pool
    (``idcg="pool"``, trec_eval's convention) rather than from the retrieved list only.

    Parameters
    ----------
    qrels : Qrels
        Judgements, e.g. from :func:`read_qrels`.
    run : Run
        Results, e.g. from :func:`read_run`.
    qrels_only : {"ignore", "include", "error"}, default="ignore"
        Judged queries with no result in the run. ``"ignore"`` drops them (trec_eval's
        default); ``"include"`` keeps their judged documents as unretrieved rows, so they
        score 0 on every metric and count in the mean (trec_eval ``-c``); ``"error"`` raises.
    run_only : {"ignore", "include", "error"}, default="ignore"
        Queries of the run without any judgement. ``"ignore"`` drops them (trec_eval always
        does); ``"include"`` keeps them with every label 0, leaving them to the ``empty``
        convention of the metrics; ``"error"`` raises.
    negative_rel : {"zero", "error"}, default="zero"
        Negative labels (trec_eval: "in the pool but not judged") become 0, which is how
        trec_eval's gain-based measures treat them; ``"error"`` raises instead.
    max_docs : int or None, default=None
        Keep only the first ``max_docs`` documents of each query, in trec_eval's order (score
        descending, ties by docno descending), like trec_eval ``-M``. Judged documents cut
        off become unretrieved rows.
    score_precision : {"float64", "float32"}, default="float64"
        The precision in which ``max_docs`` compares scores: ``"float32"`` as trec_eval 9,
        which stores them as float32 (scores equal only as float32 then tie, and are ordered
        by docno), ``"float64"`` as trec_eval 10. Pass the value the metrics use (the
        ``trec_eval`` preset's is ``"float32"``). The scores returned are the run's, unrounded.

    Returns
    -------
    AlignedRun
        Flat arrays (``qid``, ``doc_id``, ``y_true``, ``y_score``, ``retrieved``) and the
        queries found on one side only.

    Raises
    ------
    InputError
        On a document listed twice for one query, or queries on one side only when the
        matching rule is ``"error"``.

    Examples
    --------
    >>> import io
    >>> from skrank.io import align_run_qrels, read_qrels, read_run
    >>> qrels = read_qrels(io.StringIO("1 0 a 2\\n1 0 b 0\\n1 0 c 1\\n2 0 x 1\\n"))
    >>> run = read_run(io.StringIO("1 Q0 b 1 0.9 s\\n1 Q0 a 2 0.5 s\\n1 Q0 z 3 0.1 s\\n"))
    >>> aligned = align_run_qrels(qrels, run)
    >>> aligned.doc_id
    array(['b', 'a', 'z', 'c'], dtype='<U1')
    >>> aligned.y_true
    array([0., 2., 0., 1.])
    >>> aligned.y_score
    array([ 0.9,  0.5,  0.1, -inf])
    >>> aligned.retrieved
    array([ True,  True,  True, False])
    >>> aligned.qrels_only_qids  # query 2 has judgements but no results
    array(['2'], dtype='<U1')
    """
    if not isinstance(qrels, Qrels):
        raise param_error("qrels", "a Qrels (see skrank.io.read_qrels)", type(qrels),
                          public_name())
    if not isinstance(run, Run):
        raise param_error("run", "a Run (see skrank.io.read_run)", type(run), public_name())
    max_docs = None if max_docs is None else int(max_docs)

    pa, _, _ = import_pyarrow()
    # Work on str / float64 columns whatever the caller built the objects from.
    index = index_qrels(
        pa.array(np.asarray(qrels.qid).astype(str), type=pa.string()),
        pa.array(np.asarray(qrels.doc_id).astype(str), type=pa.string()),
        np.asarray(qrels.rel), qrels.source,
    )
    rows = RunBlock(
        pa.array(np.asarray(run.qid).astype(str), type=pa.string()),
        pa.array(np.asarray(run.doc_id).astype(str), type=pa.string()),
        np.asarray(run.score, dtype=np.float64), run.name,
    )
    seen = np.zeros(index.n_topics, dtype=bool)
    tq = encode_topics(index, rows.qid)
    seen[tq[tq >= 0]] = True
    qrels_only_qids = index.topic_strings(np.flatnonzero(~seen))
    extra = np.flatnonzero(~seen) if qrels_only == "include" else None
    joined = join(index, rows, run_source=run.source, run_only=run_only, max_docs=max_docs,
                  extra_topics=extra, float32=score_precision == "float32")
    run_only_qids = joined.run_only
    if run_only == "error" and run_only_qids.size:
        raise InputError(
            f"{run.source}: {run_only_qids.size} queries of the run have no judgement in "
            f"{qrels.source}: {listing(run_only_qids)} (run_only='error')."
        )
    if qrels_only == "error" and qrels_only_qids.size:
        raise InputError(
            f"{run.source}: {qrels_only_qids.size} judged queries of {qrels.source} have no "
            f"result in the run: {listing(qrels_only_qids)} (qrels_only='error')."
        )
    if joined.n_negative and negative_rel == "error":
        raise _negative_error(joined, qrels.source)
    return AlignedRun(
        qid=joined.topics[joined.code],
        doc_id=to_str_array(joined.doc_source.take(pa_index(joined.doc_rows))),
        y_true=joined.y_true,
        y_score=joined.y_score,
        retrieved=joined.retrieved,
        run_only_qids=run_only_qids,
        qrels_only_qids=qrels_only_qids,
        n_negative_rel=joined.n_negative,
    )


def encode_topics(index: QrelsIndex, qid: Any) -> np.ndarray:
    """Code in ``index`` of each row's topic (-1: not judged)."""
    _, _, pc = import_pyarrow("align_run_qrels")
    out = pc.index_in(qid, value_set=index.topics).fill_null(-1).to_numpy()
    return np.asarray(out, dtype=np.int64)
