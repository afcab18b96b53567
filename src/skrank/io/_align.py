"""Join a TREC run with its qrels into the flat arrays that :func:`skrank.evaluate` takes."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np

from .._validation import check_choice, check_int, param_error
from ..exceptions import InputError
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


def _listing(ids: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(repr(str(x)) for x in ids[:limit])
    more = f" and {ids.shape[0] - limit} more" if ids.shape[0] > limit else ""
    return shown + more


def _report_duplicate(qid: list[str], doc: list[str], what: str, source: str) -> None:
    """Raise the error for the first (qid, doc) pair met twice."""
    seen: set[tuple[str, str]] = set()
    for pair in zip(qid, doc):  # pragma: no branch - a repeat exists
        if pair in seen:
            raise InputError(
                f"{source}: document {pair[1]!r} appears twice for query {pair[0]!r} in the "
                f"{what}."
            )
        seen.add(pair)


def _truncate(run: Run, max_docs: int) -> np.ndarray:
    """Indices of the rows kept when each query keeps only its first ``max_docs`` documents.

    Order is trec_eval's: score descending, ties by docno descending.
    """
    _, qcode = np.unique(run.qid, return_inverse=True)
    _, dcode = np.unique(run.doc_id, return_inverse=True)
    order = np.lexsort((-dcode.ravel(), -run.score, qcode.ravel()))
    q_sorted = qcode.ravel()[order]
    start = np.r_[0, np.flatnonzero(q_sorted[1:] != q_sorted[:-1]) + 1]
    size = np.diff(np.r_[start, q_sorted.shape[0]])
    rank = np.arange(q_sorted.shape[0]) - np.repeat(start, size)
    return np.sort(order[rank < max_docs])


def align_run_qrels(
    qrels: Qrels,
    run: Run,
    *,
    qrels_only: str = "ignore",
    run_only: str = "ignore",
    negative_rel: str = "zero",
    max_docs: int | None = None,
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
    caller = "align_run_qrels"
    if not isinstance(qrels, Qrels):
        raise param_error("qrels", "a Qrels (see skrank.io.read_qrels)", type(qrels), caller)
    if not isinstance(run, Run):
        raise param_error("run", "a Run (see skrank.io.read_run)", type(run), caller)
    qrels_only = check_choice("qrels_only", qrels_only, _ONLY_RULES, caller)
    run_only = check_choice("run_only", run_only, _ONLY_RULES, caller)
    negative_rel = check_choice("negative_rel", negative_rel, _NEGATIVE_RULES, caller)
    max_docs = check_int("max_docs", max_docs, min_value=1, allow_none=True, caller=caller)

    # Work on plain str / float64 arrays whatever the caller built the objects from.
    run = Run(
        np.asarray(run.qid).astype(str), np.asarray(run.doc_id).astype(str),
        np.asarray(run.score, dtype=np.float64), run.name, run.source,
    )
    qrels = Qrels(
        np.asarray(qrels.qid).astype(str), np.asarray(qrels.doc_id).astype(str),
        np.asarray(qrels.rel), qrels.source,
    )
    if max_docs is not None and len(run):
        keep = _truncate(run, max_docs)
        run = Run(run.qid[keep], run.doc_id[keep], run.score[keep], run.name, run.source)

    rq, rd = run.qid.tolist(), run.doc_id.tolist()
    qq, qd = qrels.qid.tolist(), qrels.doc_id.tolist()

    # Hash join on (qid, docno), keyed on the run; building the dict also reveals repeats.
    run_position = dict(zip(zip(rq, rd), range(len(rq))))
    if len(run_position) != len(rq):
        _report_duplicate(rq, rd, "run", run.source)
    if len(set(zip(qq, qd))) != len(qq):
        _report_duplicate(qq, qd, "qrels", qrels.source)
    k = np.fromiter(
        map(run_position.get, zip(qq, qd), repeat(-1)), dtype=np.int64, count=len(qq)
    )
    found = k >= 0  # judged and retrieved
    rel = qrels.rel.astype(np.float64)
    y_true_run = np.zeros(len(rq), dtype=np.float64)
    y_true_run[k[found]] = rel[found]

    topic_list = sorted(set(rq).union(qq))
    topic_code = {t: i for i, t in enumerate(topic_list)}
    topics = np.array(topic_list, dtype=str)
    rcode = np.fromiter(map(topic_code.__getitem__, rq), dtype=np.int64, count=len(rq))
    qcode = np.fromiter(map(topic_code.__getitem__, qq), dtype=np.int64, count=len(qq))
    in_run = np.zeros(topics.shape[0], dtype=bool)
    in_run[rcode] = True
    in_qrels = np.zeros(topics.shape[0], dtype=bool)
    in_qrels[qcode] = True
    run_only_qids = topics[in_run & ~in_qrels]
    qrels_only_qids = topics[in_qrels & ~in_run]
    if run_only == "error" and run_only_qids.size:
        raise InputError(
            f"{run.source}: {run_only_qids.size} queries of the run have no judgement in "
            f"{qrels.source}: {_listing(run_only_qids)} (run_only='error')."
        )
    if qrels_only == "error" and qrels_only_qids.size:
        raise InputError(
            f"{run.source}: {qrels_only_qids.size} judged queries of {qrels.source} have no "
            f"result in the run: {_listing(qrels_only_qids)} (qrels_only='error')."
        )

    keep_run = in_qrels[rcode] | (run_only == "include")
    keep_qrels = ~found & (in_run[qcode] | (qrels_only == "include"))

    code = np.concatenate([rcode[keep_run], qcode[keep_qrels]])
    order = np.argsort(code, kind="stable")
    y_true = np.concatenate([y_true_run[keep_run], rel[keep_qrels]])[order]
    negative = y_true < 0
    n_negative = int(negative.sum())
    if n_negative and negative_rel == "error":
        row = int(np.flatnonzero(negative)[0])
        qid_all = np.concatenate([run.qid[keep_run], qrels.qid[keep_qrels]])[order]
        doc_all = np.concatenate([run.doc_id[keep_run], qrels.doc_id[keep_qrels]])[order]
        raise InputError(
            f"{qrels.source}: {n_negative} judgements have a negative label, e.g. "
            f"{y_true[row]:g} for document {str(doc_all[row])!r} of query {str(qid_all[row])!r} "
            f"(negative_rel='error'; 'zero' reads them as trec_eval does)."
        )
    y_true[negative] = 0.0
    n_kept_run = int(keep_run.sum())
    return AlignedRun(
        qid=np.concatenate([run.qid[keep_run], qrels.qid[keep_qrels]])[order],
        doc_id=np.concatenate([run.doc_id[keep_run], qrels.doc_id[keep_qrels]])[order],
        y_true=y_true,
        y_score=np.concatenate(
            [run.score[keep_run], np.full(int(keep_qrels.sum()), -np.inf)]
        )[order],
        retrieved=(np.arange(code.shape[0]) < n_kept_run)[order],
        run_only_qids=run_only_qids,
        qrels_only_qids=qrels_only_qids,
        n_negative_rel=n_negative,
    )
