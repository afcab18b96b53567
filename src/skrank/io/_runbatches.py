"""A run read in batches of whole topics, and each batch joined with the qrels: the
streaming path of ``skrank eval`` on TREC files.

While a run's topics come in contiguous blocks, :func:`iter_topic_batches` reads it in
batches of whole topics (raising :class:`~skrank.io._runfile.Interleaved` when a topic comes
back; the run is then read whole, :func:`~skrank.io._runfile.read_run_whole`), so that memory
is bounded by a batch. :func:`join_batch` joins a batch with the qrels into the flat arrays
:func:`skrank.evaluate` takes, a :class:`~skrank.io._align.Joined` (``doc_rows``: the run's
row, or ``-1 - j`` for judgement ``j``; no ``doc_source``). The lines are parsed by
:mod:`skrank.io._runfile`.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import _runreader as R
from ._align import Joined
from ._arrow import open_binary
from ._common import BOM, Source, source_name
from ._runerrors import ALL_BITS
from ._runfile import (
    Interleaved,
    QrelsFile,
    RunRows,
    _chunk_end,
    _empty,
    _parse,
    _plain_file,
    _Pool,
    _present,
    _read_stream,
    _rows,
)

__all__ = ["iter_topic_batches", "join_batch"]


def iter_topic_batches(source: Source, chunk_bytes: int, seen: set[str], state: Any, *,
                       hash_mask: int = ALL_BITS) -> Iterator[RunRows]:
    """Batches of whole topics of a run read about ``chunk_bytes`` at a time.

    A plain file is mapped and parsed a window at a time (no copy of its bytes; the caller
    gives the pages of finished batches back with :meth:`RunRows.release`); a compressed
    file or a stream is read in blocks. Each batch is grouped by topic (:func:`join_batch`
    looks for repeated documents). The topics of each batch are added to ``seen``; a topic
    met in an earlier batch raises :class:`Interleaved`. ``state.n_rows`` and ``state.tag``
    follow the reading.
    """
    name = source_name(source)
    fh = _plain_file(source)
    if fh is not None:
        with fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        yield from _mapped_batches(mm, name, chunk_bytes, seen, state, hash_mask)
        return
    stream, owned = open_binary(source)
    try:
        yield from _read_batches(stream, name, chunk_bytes, seen, state, hash_mask)
    finally:
        if owned:
            stream.close()


def _batch(name: str, buf: Any, begin: int, line: int, parsed: Any, eof: bool,
           seen: set[str], state: Any, hash_mask: int) -> RunRows | None:
    """The rows of whole topics of a parsed block (all of them at the end of the file, else
    those before its last topic), grouped by topic; None if there are none."""
    state.tag = parsed.tag.decode("utf-8", "replace")
    stop = parsed.n_rows if eof else parsed.run_row
    batch = _rows(name, buf, begin, line, parsed, stop, hash_mask)
    _check_new_topics(batch, seen)
    state.n_rows += stop
    if not stop:
        return None
    batch.grouping = batch.grouped()  # here, in the reading thread, rather than in the join
    return batch


def _mapped_batches(mm: Any, name: str, chunk_bytes: int, seen: set[str], state: Any,
                    hash_mask: int) -> Iterator[RunRows]:
    size = len(mm)
    pos = len(BOM) if mm[: len(BOM)] == BOM else 0
    line, step = 1, chunk_bytes
    pool = _Pool()
    while pos < size:
        end = _chunk_end(mm, pos, size, step)
        eof = end >= size
        out = pool.take(R.capacity(end - pos, False))
        parsed = _parse(mm, pos, end, name, line, False, out, seen=seen)
        if not eof and not parsed.n_rows:  # comments and blank lines only
            pos, line = end, line + parsed.n_lines
            pool.give(out)
            continue
        if not eof and parsed.run_row == 0:  # one topic so far: a larger window
            step *= 2
            pool.give(out)
            continue
        step = chunk_bytes
        batch = _batch(name, mm, pos, line, parsed, eof, seen, state, hash_mask)
        if not eof:
            line += parsed.run_line - 1
            pos = parsed.run_at
        del parsed
        if batch is not None:
            batch.window = True
            batch.arrays, batch.pool = out, pool
            yield batch
        del batch
        if eof:
            return


def _read_batches(stream: Any, name: str, chunk_bytes: int, seen: set[str], state: Any,
                  hash_mask: int) -> Iterator[RunRows]:
    pending = b""
    line = 1
    first = True
    size = chunk_bytes
    while True:
        chunk = _read_stream(stream, size, name)
        data = pending + chunk if pending else chunk
        eof = not chunk
        if first:  # a BOM is dropped: wait for its three bytes
            if len(data) < len(BOM) and not eof:
                pending = data
                continue
            first = False
            if data.startswith(BOM):
                data = data[len(BOM):]
        if eof:
            end = len(data)
        else:
            # parse up to the last line end (a CR at the very end may start a CRLF)
            stop = len(data) - 1 if data.endswith(b"\r") else len(data)
            end = max(data.rfind(b"\n", 0, stop), data.rfind(b"\r", 0, stop)) + 1
        parsed = _parse(data, 0, end, name, line, False, seen=seen) if end else None
        if parsed is None or (not eof and parsed.run_row == 0):
            # no line end yet, or one topic: read on (in larger steps)
            pending = data
            size = min(2 * size, 1 << 30)
            if eof:
                return
            continue
        size = chunk_bytes
        batch = _batch(name, data, 0, line, parsed, eof, seen, state, hash_mask)
        if not eof:
            pending = data[parsed.run_at:]
            line += parsed.run_line - 1
        del parsed
        if batch is not None:
            yield batch
        del batch
        if eof:
            return


def _check_new_topics(batch: RunRows, seen: set[str]) -> None:
    again = seen.intersection(batch.topics)
    if again:
        topic = min(again)
        row = int(np.flatnonzero(batch.qcode == batch.topics.index(topic))[0])
        raise Interleaved(topic, batch.lines(row))
    seen.update(batch.topics)


# ------------------------------------------------------------------------------ join


def join_batch(qrels: QrelsFile, run: RunRows | None, *, run_only: str = "ignore",
               max_docs: int | None = None, float32: bool = False, in_order: bool = False,
               extra_topics: np.ndarray | None = None,
               grouped: tuple[np.ndarray, np.ndarray] | None = None,
               topics: np.ndarray | None = None, ties_only: bool = True,
               doc_rows: bool = True, buffers: dict | None = None) -> Joined:
    """Join a batch of whole topics of a run with their judgements.

    ``grouped`` is the run's ``(order, bounds)`` (see :meth:`RunRows.grouped`), ``topics``
    the run's topics to take (by default every one with rows); ``extra_topics`` (codes of
    ``qrels``) adds judged topics without rows, as unretrieved rows. ``float32``: trec_eval's
    order compares the scores rounded to float32 (``score_precision="float32"``);
    ``in_order``: each topic's retrieved rows come in that order rather than in file order
    (the kernels find them sorted under ``ties="docid"``). Raises on a document retrieved
    twice for a topic, naming both lines. ``ties_only``: a topic written in score order has
    only its runs of tied scores sorted (False: every topic is merge-sorted; for tests).
    ``doc_rows``: whether the joined rows say their run row (else ``doc_rows`` is empty).
    ``buffers``: a dict (empty at first) whose arrays the rows are written to, kept there
    for the next call (fresh memory costs its pages' zeroing): the rows of a join are then
    valid only until the next join with the same buffers.
    """
    if run is not None and len(run):
        order, bounds = (grouped if grouped is not None else
                         run.grouping if run.grouping is not None else run.grouped())
        present = _present(bounds) if topics is None else np.asarray(topics, dtype=np.int64)
        names = [run.topics[t] for t in present.tolist()]
    else:
        order, bounds = np.zeros(1, dtype=qrels.order.dtype), np.zeros(1, dtype=np.int64)
        present = np.zeros(0, dtype=np.int64)
        names = []
    tq = np.array([qrels.code_of.get(t, -1) for t in names], dtype=np.int64)
    judged = tq >= 0
    run_only_topics = np.sort(np.array([t for t, j in zip(names, judged.tolist()) if not j],
                                       dtype=str))
    keep = judged | (run_only == "include")
    extra = np.zeros(0, dtype=np.int64) if extra_topics is None else extra_topics
    emit_names = [t for t, k in zip(names, keep.tolist()) if k] + \
        qrels.topics[extra].tolist()
    emit_run = np.r_[present[keep], np.full(extra.shape[0], -1)].astype(np.int64)
    emit_qrels = np.r_[tq[keep], extra].astype(np.int64)
    by_name = np.array(sorted(range(len(emit_names)), key=emit_names.__getitem__),
                       dtype=np.int64)
    emit_run, emit_qrels = emit_run[by_name], emit_qrels[by_name]
    topics = np.array(emit_names, dtype=str)[by_name] if emit_names else \
        np.array([], dtype="<U1")
    n_judged = qrels.bounds[emit_qrels + 1] - qrels.bounds[emit_qrels]
    cap = int(np.where(emit_run >= 0, bounds[emit_run + 1] - bounds[emit_run], 0).sum()
              + np.where(emit_qrels >= 0, n_judged, 0).sum())
    cap = max(cap, 1)
    if buffers is not None and buffers and buffers["code"].shape[0] >= cap:
        code, tiekey, y_true, y_score, retrieved = (
            buffers[k] for k in ("code", "tiekey", "y_true", "y_score", "retrieved"))
    else:
        code, tiekey = _empty(cap, np.int64), _empty(cap, np.int64)
        y_true, y_score = _empty(cap, np.float64), _empty(cap, np.float64)
        retrieved = _empty(cap, np.uint8)
        if buffers is not None:
            buffers.update(code=code, tiekey=tiekey, y_true=y_true, y_score=y_score,
                           retrieved=retrieved)
    src = _empty(cap if doc_rows else 0, np.int64)
    candidates = np.zeros(len(emit_names), dtype=np.int64)
    empty8 = np.zeros(0, dtype=np.uint8)
    q_order = qrels.order
    if q_order.dtype != order.dtype:  # one of them holds 2**31 rows or more
        order, q_order = order.astype(np.int64), q_order.astype(np.int64)
    if run is not None and (~keep).any():  # topics not joined: only their repeats
        _, b, _ = R.first_repeat(run.buf, run.dstart, run.dlen, order, bounds,
                                 present[~keep], run.hash_mask)
        if b >= 0:
            run.check(order, bounds, present)
    n, n_negative, _, repeat = R.join_batch(
        run.buf if run is not None and len(run) else empty8,
        run.score if run is not None else np.zeros(0),
        run.dstart if run is not None else np.zeros(0, dtype=np.int64),
        run.dlen if run is not None else np.zeros(0, dtype=np.int32),
        order, bounds, emit_run, emit_qrels,
        qrels.buf, qrels.dstart, qrels.dlen, qrels.rel, q_order, qrels.bounds,
        0 if max_docs is None else int(max_docs), float32, in_order,
        code, tiekey, y_true, y_score, retrieved, src, candidates,
        qrels.hash_mask & (run.hash_mask if run is not None else ALL_BITS), ties_only,
    )
    if repeat >= 0 and run is not None:  # the earliest repeat of the batch, named
        run.check(order, bounds, present)
        raise AssertionError("join_batch: a repeat first_repeat misses")  # pragma: no cover
    return Joined(
        topics=topics, code=code[:n], tiekey=tiekey[:n], y_true=y_true[:n],
        y_score=y_score[:n], retrieved=retrieved[:n].view(bool), doc_source=None,
        doc_rows=src[:n] if doc_rows else src, run_only=run_only_topics, judged=tq[judged],
        n_negative=int(n_negative), candidates=candidates,
    )
