"""TREC runs: read in batches of whole topics when they can be, joined with the qrels and
evaluated while reading."""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._text import listing, plural
from ..exceptions import SkrankError
from ._common import (
    DataError,
    RefusedValue,
    _Loaded,
    _Plan,
    _Progress,
    _System,
    _system_files,
)


@dataclass
class _RunState:
    """Counts over one run file, read whole or in batches."""

    n_rows: int = 0
    tag: str = ""
    topics: set = field(default_factory=set)
    batches: int = 0
    #: of a run read whole because its topics are interleaved: the first topic that comes
    #: back after another one, and its line (see :func:`_whole_run`)
    first_return: tuple[str, int] | None = None


def _topic_batches(path: str, state: _RunState, chunk_bytes: int,
                   reading: Any = None) -> Any:
    """``(rows, None, None)`` for each batch of whole topics of a run whose topics come in
    contiguous blocks, read and parsed in a thread (``reading``: one started already, see
    :func:`_read_ahead`); raises :class:`~skrank.io._runfile.Interleaved` when a topic comes
    back after another one."""
    if reading is None:
        reading = _read_ahead(path, state, chunk_bytes)
    try:
        for batch in reading:
            yield batch, None, None
    finally:
        reading.close()


def _read_ahead(path: str, state: _RunState, chunk_bytes: int) -> Any:
    """The reading of a run's batches (see :func:`_topic_batches`), started in a thread:
    a few blocks ahead, so that the reading goes on while the qrels are read (the join
    waits for them)."""
    from ..io._pipeline import Prefetch
    from ..io._runbatches import iter_topic_batches

    return Prefetch(iter_topic_batches(path, chunk_bytes, state.topics, state), ahead=_AHEAD)


@dataclass
class _EarlyRun:
    """A run whose reading started with the qrels' (see :func:`_start_qrels`)."""

    path: str
    state: _RunState
    reading: Any


class _QrelsReader:
    """A qrels file read, and its labels checked, in a thread (started at once) while the
    first batches of the first run are read: :meth:`get` waits for it."""

    def __init__(self, path: str, conv: dict[str, Any], metrics: Any) -> None:
        # imported here, not in the thread: the main thread imports on meanwhile
        from ..conventions import resolve_conventions  # noqa: F401 (for _check_labels)
        from ..io._runfile import read_qrels_file

        self._result: list[tuple[bool, Any]] = []
        self.early: _EarlyRun | None = None  # the first run, when its reading started too
        self._thread = threading.Thread(target=self._read,
                                        args=(read_qrels_file, path, conv, metrics),
                                        name="skrank-qrels", daemon=True)
        self._thread.start()

    def _read(self, read_qrels_file: Any, path: str, conv: dict[str, Any],
              metrics: Any) -> None:
        try:
            try:
                qrels = read_qrels_file(path)
            except SkrankError as exc:  # a label before the bad line (or repeat) first
                _refuse_before(exc, lambda rows: _check_labels(rows, conv, metrics, path))
                raise
            _check_labels(qrels, conv, metrics, path)
            self._result.append((True, qrels))
        except BaseException as exc:  # raised by get, in the thread that asks
            self._result.append((False, exc.with_traceback(None)))

    def take_run(self, path: str) -> _EarlyRun | None:
        """The run of ``path`` whose reading started with the qrels', once (else None)."""
        early = self.early
        if early is None or early.path != path:
            return None
        self.early = None
        return early

    def close(self) -> None:
        """Stop the reading of a run started early and never taken (a usage error)."""
        early, self.early = self.early, None
        if early is not None:
            early.reading.close()

    def get(self) -> Any:
        """The qrels (a :class:`~skrank.io._runfile.QrelsFile`), or their error raised."""
        self._thread.join()
        ok, value = self._result[0]
        if not ok:
            raise value
        return value


def _evaluated_batches(batches: Any, qrels_reader: _QrelsReader, args: argparse.Namespace,
                       plan: _Plan, float32: bool, docid: bool, state: _RunState) -> Any:
    """``(joined, result, rows, batch)`` for each batch of ``batches`` (see
    :func:`_topic_batches` and :func:`_whole_run`): the batch joined with the qrels, its
    evaluation (None when the join has no row), the rows read up to its end and its number.
    Two threads join and evaluate a batch each (in step with the reading thread), the
    results in the order of the batches. The pages of the batch's lines and of the qrels
    are given back after each join, so that memory is bounded by the batches in flight.
    The first batch is read while the qrels are; an error of the qrels is raised before one
    of the run."""
    from ..io._pipeline import ordered_map
    from ..io._runbatches import join_batch
    from ..metrics._evaluate import evaluate

    batches = iter(batches)
    try:
        first = next(batches, None)
    except Exception as exc:
        qrels_reader.get()
        if float32:  # a score before the run's bad line is named first
            _refuse_before(exc, _check_float32_scores)
        raise
    qrels = qrels_reader.get()

    def numbered() -> Any:
        done = 0
        checked = None  # the rows whose scores were checked (a run read whole: once)
        try:
            for rows, grouped, topics in itertools.chain([] if first is None else [first],
                                                         batches):
                if float32 and rows is not checked:
                    _check_float32_scores(rows, grouped or rows.grouping)
                    checked = rows
                if grouped is None:
                    done += len(rows)
                    state.batches += 1
                yield rows, grouped, topics, done, state.batches
                del rows
        except Exception as exc:
            # the rows of the batches before were checked as they came: those of the block
            # whose bad line stopped the reader are left
            if float32:
                _refuse_before(exc, _check_float32_scores)
            raise

    local = threading.local()  # each worker thread's output arrays, kept between batches

    def work(item: tuple) -> tuple:
        rows, grouped, topics, done, batch_no = item
        if plan.keep_rows:  # the rows outlive the batch: arrays of their own
            buffers = None
        elif not hasattr(local, "buffers"):
            buffers = local.buffers = {}
        else:
            buffers = local.buffers
        joined = join_batch(qrels, rows, run_only=args.run_only, max_docs=args.max_docs,
                            float32=float32, in_order=docid, grouped=grouped, topics=topics,
                            doc_rows=False, buffers=buffers)
        qrels.release()
        rows.release()
        rows.recycle()  # its parse arrays, for the reader's next blocks
        del rows, item
        res = None
        if len(joined):
            res = evaluate(joined.y_true, joined.y_score, joined.code, doc_id=joined.tiekey,
                           retrieved=joined.retrieved, metrics=plan.metrics,
                           tie_bounds=plan.tie_bounds, **plan.conv)
        if not plan.keep_rows:  # the rows are not needed any more (their arrays reused)
            empty = np.zeros(0)
            joined = dataclasses.replace(joined, code=empty, tiekey=empty, y_true=empty,
                                         y_score=empty, retrieved=empty)
        return joined, res, done, batch_no

    yield from ordered_map(work, numbered())


def _refuse_before(exc: BaseException, check: Any) -> None:
    """Before a reader's error ``exc`` on a bad line is raised: ``check`` the rows read before
    that line (``exc._read_before``, see :class:`~skrank.io._runerrors.ReadBefore`), so that a
    value there that the conventions refuse, earlier in the file, is named instead. Only on
    the error path: the rows of a file read without error are checked once they are read."""
    before = getattr(exc, "_read_before", None)
    if before is not None and len(before):
        check(before)


def _check_float32_scores(rows: Any, grouped: Any = None) -> None:
    """Name the run line of the first score that float32 cannot hold, when the scores are
    ranked as float32 (``score_precision="float32"``, trec_eval 9): evaluate would name a
    row of the joined arrays. ``grouped``: the ``(order, bounds)`` of ``rows`` (a
    :class:`~skrank.io._runfile.RunRows` the join has not seen): a document repeated for a
    topic on an earlier line, which the join would name after this check, is named
    instead (only then: the check's error path)."""
    from ..io._common import where
    from ..io._runfile import _present

    with np.errstate(over="ignore"):
        lost = ~np.isfinite(rows.score.astype(np.float32))  # the scores are finite
    if lost.any():
        row = int(np.flatnonzero(lost)[0])
        if grouped is not None:
            order, bounds = grouped
            rows.check(order, bounds, _present(bounds), before=row)
        raise RefusedValue(
            f"{where(rows.source, rows.lines(row))}: the score {float(rows.score[row])!r} does "
            f"not fit float32 (largest {float(np.finfo(np.float32).max):g}), in which "
            "score_precision='float32' ranks the scores (trec_eval 9); choose "
            "--score-precision float64."
        )


def _whole_run(path: str, state: _RunState, batch_rows: int | None,
               find_return: bool = False) -> Any:
    """A run read whole: ``(rows, (order, bounds), topics)`` for batches of about
    ``batch_rows`` rows of whole topics (the rows of each topic in file order), or one batch
    when ``batch_rows`` is None. ``find_return``: set ``state.first_return``."""
    from ..io._runfile import read_run_whole

    rows, state.tag, state.n_rows = read_run_whole(path)
    state.batches = 1
    try:
        state.topics = set(rows.topics)
        if not len(rows):
            return
        if find_return:
            # the topics are coded by first appearance: a row whose code is below the
            # largest code so far belongs to a topic met before another one
            back = np.flatnonzero(rows.qcode != np.maximum.accumulate(rows.qcode))
            if back.size:
                row = int(back[0])
                state.first_return = (rows.topics[int(rows.qcode[row])], rows.lines(row))
        order, bounds = rows.grouped()
        rows.qcode = np.zeros(0, dtype=np.int32)  # order and bounds say it now
        n_topics = len(rows.topics)
        if batch_rows is None or len(rows) <= batch_rows:
            yield rows, (order, bounds), None
            return
        ends = bounds[1:]
        targets = np.arange(batch_rows, int(ends[-1]), batch_rows)
        cuts = np.unique(np.searchsorted(ends, targets) + 1)
        edges = np.r_[0, cuts[cuts < n_topics], n_topics]
        for a, b in itertools.pairwise(edges.tolist()):
            yield rows, (order, bounds), np.arange(a, b, dtype=np.int64)
    finally:
        del rows


@dataclass
class _RunResult:
    result: Any
    state: _RunState
    run_only: np.ndarray
    qrels_only: np.ndarray
    candidates: tuple[np.ndarray, np.ndarray]
    kwargs: dict[str, Any] | None
    interleaved: Any = None


def _evaluate_run(path: str, qrels_reader: _QrelsReader, args: argparse.Namespace,
                  plan: _Plan, qrels_only: str, progress: _Progress) -> _RunResult:
    """Read a run (in batches of whole topics when it can), join it with the qrels and
    evaluate it; per-query results only are kept (and the rows, for figures)."""
    from ..io._runbatches import join_batch
    from ..io._runfile import Interleaved
    from ..metrics._evaluate import evaluate

    float32, docid = _score_order(plan.conv)
    stream = _streams(path, plan)
    early = qrels_reader.take_run(path) if stream else None
    interleaved = None
    while True:
        state = _RunState() if early is None else early.state
        parts: list[tuple[np.ndarray, Any]] = []
        candidates: list[tuple[np.ndarray, np.ndarray]] = []
        run_only: list[np.ndarray] = []
        judged: list[np.ndarray] = []
        kwargs = None
        reading, early = (None, None) if early is None else (early.reading, None)
        batches = (_topic_batches(path, state, _CHUNK_BYTES, reading) if stream else
                   _whole_run(path, state, None if plan.keep_rows or plan.tie_bounds
                              else _CHUNK_BYTES // _LINE_BYTES,
                              find_return=interleaved is not None))
        # reading and parsing (of a topic-contiguous run) in a thread, joining and
        # evaluating in two more, a batch each (the compiled parts release the GIL)
        evaluated = _evaluated_batches(batches, qrels_reader, args, plan, float32, docid,
                                       state)
        try:
            for joined, res, n_done, batch_no in evaluated:
                judged.append(joined.judged)
                run_only.append(joined.run_only)
                if res is not None:
                    if batch_no > 1:
                        progress(f"evaluated topics of {path} up to result {n_done:,} "
                                 f"(batch {batch_no})")
                    parts.append((joined.topics, res))
                    candidates.append((joined.topics, joined.candidates))
                    if plan.keep_rows:
                        kwargs = {"y_true": joined.y_true, "y_score": joined.y_score,
                                  "qid": joined.topics[joined.code],
                                  "doc_id": joined.tiekey, "retrieved": joined.retrieved}
                del joined, res
        except Interleaved as exc:
            # its traceback would keep the frames of the batch reader, and their blocks
            interleaved, stream = exc.with_traceback(None), False
            del batches, evaluated
            progress(f"{path}: topic {exc.topic!r} comes back on line {exc.line:,}; reading "
                     "the file whole")
            continue
        break
    qrels = qrels_reader.get()
    seen = np.zeros(qrels.n_topics, dtype=bool)
    for topics in judged:
        seen[topics] = True
    if not state.n_rows:
        raise DataError(f"{path}: no results (the file is empty or only has comments).")
    # sorted(set()) rather than np.unique, which imports numpy.ma (tens of milliseconds)
    run_only_qids = np.array(sorted(set().union(*(r.tolist() for r in run_only))), dtype=str)
    missing = np.flatnonzero(~seen)
    qrels_only_qids = qrels.topic_strings(missing)
    if args.run_only == "error" and run_only_qids.size:
        raise DataError(
            f"{path}: {run_only_qids.size} queries of the run have no judgement in "
            f"{qrels.source}: {listing(run_only_qids)} (run_only='error')."
        )
    if qrels_only == "error" and qrels_only_qids.size:
        raise DataError(
            f"{path}: {qrels_only_qids.size} judged queries of {qrels.source} have no "
            f"result in the run: {listing(qrels_only_qids)} (qrels_only='error')."
        )
    if qrels_only == "include" and missing.size:
        joined = join_batch(qrels, None, extra_topics=missing)
        parts.append((joined.topics, evaluate(
            joined.y_true, joined.y_score, joined.code, doc_id=joined.tiekey,
            retrieved=joined.retrieved, metrics=plan.metrics, tie_bounds=plan.tie_bounds,
            **plan.conv)))
        candidates.append((joined.topics, joined.candidates))
        if kwargs is not None:  # figures: the rows of both parts
            kwargs = {"y_true": np.concatenate([kwargs["y_true"], joined.y_true]),
                      "y_score": np.concatenate([kwargs["y_score"], joined.y_score]),
                      "qid": np.concatenate([kwargs["qid"], joined.topics[joined.code]]),
                      "doc_id": np.concatenate([kwargs["doc_id"], joined.tiekey]),
                      "retrieved": np.concatenate([kwargs["retrieved"], joined.retrieved])}
    if not parts:
        raise DataError(f"{path}: no topic of the run is judged in {qrels.source}.")
    cand_q = np.concatenate([t for t, _ in candidates])
    cand_n = np.concatenate([c for _, c in candidates])
    return _RunResult(_combine(parts), state, run_only_qids, qrels_only_qids,
                      (cand_q, cand_n), kwargs, interleaved)


def _score_order(conv: dict[str, Any]) -> tuple[bool, bool]:
    """Whether the scores are ranked as float32 (trec_eval 9's order compares those), and
    whether ties are broken by docno (the rows can then come in trec_eval's order)."""
    from ..conventions import resolve_conventions

    try:
        resolved = resolve_conventions(**conv)
    except SkrankError:  # pragma: no cover - the evaluation reports it
        return False, False
    return resolved.score_precision == "float32", resolved.ties == "docid"


#: bytes of a run read per batch
_CHUNK_BYTES = 8 << 20
#: batches read ahead of the join at most: enough to keep the reader busy while the qrels
#: are read (the joins wait for them; 3 left it idle for 40 ms on 7M-line runs)
_AHEAD = 5
#: bytes of a line of a typical run: a run read whole is evaluated in batches of about
#: ``_CHUNK_BYTES // _LINE_BYTES`` rows
_LINE_BYTES = 32


def _combine(parts: list[tuple[np.ndarray, Any]]) -> Any:
    """One result from the results of batches of whole topics, queries sorted by id (as
    strings, trec_eval's order) and named by their ids."""
    import dataclasses

    from ..metrics._kernels import _arrays
    from ..metrics._result import EvaluationResult

    first = parts[0][1]
    qids = np.concatenate([topics[np.asarray(res.qids)] for topics, res in parts])
    order = np.argsort(qids, kind="stable")
    qids = qids[order]
    results = {}
    for m in first.metrics:
        pieces = [res[m] for _, res in parts]
        if len(parts) == 1:
            results[m] = dataclasses.replace(pieces[0], qids=qids)
            continue
        per_query = np.concatenate([p.per_query for p in pieces])[order]
        exclude = pieces[0].conventions.empty == "exclude"
        empty = np.isnan(per_query) if exclude else np.zeros(per_query.shape[0], dtype=bool)
        value = _arrays.weighted_mean(np.nan_to_num(per_query), empty, 0, np.zeros(0), False)
        results[m] = dataclasses.replace(
            pieces[0], value=float(value), per_query=per_query, qids=qids,
            n_queries=sum(p.n_queries for p in pieces), n_empty=sum(p.n_empty for p in pieces),
            n_tie_affected=sum(p.n_tie_affected for p in pieces), tie_interval=None,
        )
    return EvaluationResult(first.metrics, qids, first.conventions, results)


def _check_labels(qrels: Any, conv: dict[str, Any], metrics: Any, path: str) -> None:
    """Name the qrels line of a label the gain cannot take, when a metric uses the gain, or
    that ERR cannot (evaluate would name a row)."""
    from ..conventions import resolve_conventions
    from ..metrics._inputs import _MAX_EXP_LABEL, uses_gain

    gain = None
    if uses_gain(metrics):
        try:
            gain = resolve_conventions(conv.get("preset"), gain=conv.get("gain")).gain
        except SkrankError:  # pragma: no cover - the evaluation reports it
            return
    rel = qrels.rel
    if isinstance(gain, tuple):
        bad = np.flatnonzero(rel >= len(gain))
        source = ("--gain" if conv.get("gain") is not None
                  else f"the gains of --preset {conv.get('preset')}; --gain sets others")
        limit = (f"has no gain in the table of {len(gain)} gains (labels 0.."
                 f"{len(gain) - 1}; {source})")
    elif gain == "exp":
        bad = np.flatnonzero(rel > _MAX_EXP_LABEL)
        limit = (f"is above {_MAX_EXP_LABEL}, the largest label gain=exp takes (2**label "
                 "overflows); choose --gain linear or a gain table")
    elif any(m.name == "err" for m in metrics):
        bad = np.flatnonzero(rel > _MAX_EXP_LABEL)
        limit = f"is above {_MAX_EXP_LABEL}, the largest label ERR takes (2**label overflows)"
    else:
        return
    if bad.size:
        row = int(bad[0])
        raise RefusedValue(f"{path}, line {qrels.lines(row)}: the relevance label "
                           f"{int(rel[row])} {limit}.")


def _streams(path: str, plan: _Plan) -> bool:
    """Whether the run of ``path`` is read in batches of whole topics (while they come in
    contiguous blocks): a file whose rows are not needed after evaluation."""
    return not (plan.keep_rows or plan.tie_bounds) and os.path.isfile(path)


def _start_qrels(args: argparse.Namespace, plan: _Plan) -> _QrelsReader | None:
    """Start reading the qrels file of TREC input, and the first run's first batches, in
    threads, so that they are read while the rest of the command is imported and set up;
    None where there is no run. Call the reader's ``close`` at the end (it stops a run's
    reading that a usage error left unused)."""
    if len(args.inputs) < 2:
        return None  # _load_trec says what is missing
    reader = _QrelsReader(args.inputs[0], plan.conv, plan.metrics)
    path = args.inputs[1]  # the first system (see _system_files)
    if _streams(path, plan):
        state = _RunState()
        reader.early = _EarlyRun(path, state, _read_ahead(path, state, _CHUNK_BYTES))
    return reader


def _load_trec(args: argparse.Namespace, progress: _Progress, plan: _Plan,
               qrels_reader: _QrelsReader | None = None) -> _Loaded:
    """Read and evaluate TREC runs; ``qrels_reader``: their qrels already being read (see
    :func:`_start_qrels`), else they are read here."""
    if len(args.inputs) < 2:
        raise DataError("TREC input needs a qrels file and at least one run: QRELS RUN "
                        "[RUN ...].")
    qrels_path = args.inputs[0]
    run_paths, names, base_name = _system_files(args.baseline, list(args.inputs[1:]))
    progress(f"reading {qrels_path}")
    if qrels_reader is None:
        qrels_reader = _QrelsReader(qrels_path, plan.conv, plan.metrics)
    qrels_only = args.qrels_only or ("include" if args.complete else "ignore")
    loaded = _Loaded("trec", [], base_name)
    candidates = {}
    for name, path in zip(names, run_paths):
        progress(f"reading {path}")
        ev = _evaluate_run(path, qrels_reader, args, plan, qrels_only, progress)
        if not loaded.inputs:
            qrels = qrels_reader.get()
            loaded.inputs.append(f"qrels {qrels_path}: {plural(qrels.n_topics, 'topic')}, "
                                 f"{plural(len(qrels), 'judgement')}")
            negative = np.flatnonzero(qrels.rel < 0)
            if negative.size:  # a note on the qrels, once
                loaded.notes.append(
                    f"{qrels_path}: {plural(negative.size, 'judgement')} with a negative "
                    f"label read as 0, as trec_eval does (the first on line "
                    f"{qrels.lines(int(negative[0])):,})."
                )
        read = ""
        if ev.state.batches > 1:
            read = f", read in {ev.state.batches:,} batches of whole topics"
        loaded.inputs.append(f"run {name}: {path} (tag {ev.state.tag}), "
                             f"{plural(len(ev.state.topics), 'topic')}, "
                             f"{plural(ev.state.n_rows, 'result')}{read}")
        if not (plan.keep_rows or plan.tie_bounds or _streams(path, plan)):
            loaded.notes.append(
                f"{name}: read whole, not in batches: {path} is not a regular file (a pipe "
                "or a device), which could not be read again had its topics come back; give "
                "a file to bound the memory."
            )
        if ev.interleaved is not None:
            topic, line = ev.state.first_return or (ev.interleaved.topic,
                                                     ev.interleaved.line)
            loaded.notes.append(
                f"{name}: read whole, not in batches: its topics are not in contiguous "
                f"blocks (topic {topic!r} first comes back on line {line:,}); sort the run "
                "by topic to bound the memory."
            )
        if ev.run_only.size:
            n = ev.run_only.size
            how = {"ignore": "ignored, as trec_eval does",
                   "include": "included with every label 0 (--run-only include)"}[args.run_only]
            loaded.notes.append(
                f"{name}: {plural(n, 'topic')} of the run {'has' if n == 1 else 'have'} no "
                f"judgement ({listing(ev.run_only)}): {how}."
            )
        if ev.qrels_only.size:
            n = ev.qrels_only.size
            how = {"ignore": "ignored (trec_eval's default; -c counts them as 0)",
                   "include": "counted with value 0 (-c)"}[qrels_only]
            loaded.notes.append(
                f"{name}: {plural(n, 'judged topic')} {'has' if n == 1 else 'have'} no "
                f"result in the run ({listing(ev.qrels_only)}): {how}."
            )
        # trec_eval 9 prints no per-topic line for a topic -c counts but the run lacks
        unlisted = (tuple(ev.qrels_only.tolist())
                    if qrels_only == "include" and args.preset == "trec_eval9" else ())
        loaded.systems.append(_System(name, ev.kwargs or {}, ev.state.tag, result=ev.result,
                                      unlisted=unlisted))
        candidates[name] = ev.candidates
    ref = base_name or names[0]
    loaded.candidates = candidates[ref]
    loaded.candidates_note = f"documents retrieved by {ref}"
    return loaded

