"""TREC runs and qrels read by the compiled reader: the one place of skrank's TREC parsing
rules, where every data error names the file and the line.

A qrels file is read whole into a :class:`QrelsFile` (its bytes and its rows, grouped by
topic); a run whole by :func:`read_run_whole` (then :meth:`RunRows.topic_batches`), or in
batches of whole topics by :mod:`skrank.io._runbatches`, which also joins each batch with the
qrels (the path of ``skrank eval``). :func:`skrank.io.read_run` and
:func:`skrank.io.read_qrels` read whole files through this module too. No pyarrow, no pandas.
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import InputError
from . import _runreader as R
from ._arrow import open_binary
from ._common import BOM, Source, source_name
from ._runerrors import ALL_BITS, Located, ReadBefore, first_error, parse_error, repeated

__all__ = ["Interleaved", "QrelsFile", "RunRows", "read_qrels_file", "read_run_whole"]

#: the first bytes of gzip, bz2 and xz data (open_binary decompresses them)
_MAGIC = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")
#: a file read whole is parsed this many bytes at a time, its pages given back behind
#: (where the system has madvise: not on Windows, whose mapped pages stay)
_WHOLE_CHUNK = 32 << 20
#: a file read whole whose text is longer is parsed in two halves, in two threads
_SPLIT_BYTES = 16 << 20
_CAN_RELEASE = hasattr(mmap, "MADV_DONTNEED")
#: arrays this large get NumPy's huge pages (:func:`_large` maps them itself)
_HUGE_BYTES = 4 << 20
#: an anonymous map private to the process (POSIX; Windows has no flags)
_PRIVATE = {"flags": mmap.MAP_PRIVATE} if hasattr(mmap, "MAP_PRIVATE") else {}


def _empty(n: int, dtype: Any) -> np.ndarray:
    """An uninitialised array of ``n`` items in memory of its own (an anonymous map), for
    the large arrays of the reader and the join. NumPy asks for transparent huge pages on
    large arrays: each first touch of 2 MB is then zeroed at once, and where memory is
    fragmented the kernel compacts it first (measured: hundreds of milliseconds of system
    time for a 26 MB qrels file on a busy machine). The rows fill these arrays a page at a
    time, and untouched capacity costs nothing."""
    dtype = np.dtype(dtype)
    size = max(n * dtype.itemsize, 1)
    memory = mmap.mmap(-1, size, **_PRIVATE)
    return np.frombuffer(memory, dtype=dtype, count=size // dtype.itemsize)[:n]


def _large(n: int, dtype: Any) -> np.ndarray:
    """An uninitialised array: in an anonymous map (see :func:`_empty`) from the size at
    which NumPy asks for huge pages (4 MiB), else NumPy's (whose allocator reuses the
    memory of the arrays it freed)."""
    if n * np.dtype(dtype).itemsize >= _HUGE_BYTES:
        return _empty(n, dtype)
    return np.empty(n, dtype=dtype)


def _empty_rows(cap: int, qrels: bool) -> tuple[np.ndarray, ...]:
    """The arrays :func:`~skrank.io._runreader.parse` writes ``cap`` rows to."""
    return (_empty(cap, np.int32), _empty(cap, np.int64), _empty(cap, np.int32),
            _empty(cap, np.int64 if qrels else np.float64))


class _Pool:
    """Parse arrays (see :func:`_empty_rows`) the join gives back once it is done with a
    batch (:meth:`RunRows.recycle`), for the reader's next blocks: their pages are in memory
    already, where fresh arrays cost a page fault and the zeroing of each page."""

    def __init__(self, most: int = 8) -> None:
        import threading

        self._free: list[tuple[np.ndarray, ...]] = []
        self._lock = threading.Lock()
        self._most = most

    def take(self, cap: int) -> tuple[np.ndarray, ...]:
        """Arrays for ``cap`` rows: given back ones if they hold as many, else new ones."""
        with self._lock:
            while self._free:
                out = self._free.pop()
                if out[0].shape[0] >= cap:
                    return out
        return _empty_rows(cap, False)

    def give(self, out: tuple[np.ndarray, ...]) -> None:
        with self._lock:
            if len(self._free) < self._most:
                self._free.append(out)


class Interleaved(Exception):
    """A topic of a run comes back after other topics: the file cannot be read in batches."""

    def __init__(self, topic: str, line: int) -> None:
        super().__init__(topic)
        self.topic, self.line = topic, line


def _parse(buf: Any, begin: int, end: int, name: str, first_line: int, qrels: bool,
           out: Any = None, row0: int = 0, seen: set[str] | None = None) -> Any:
    """Parse ``buf[begin:end]`` (see :func:`~skrank.io._runreader.parse`); a bad line raises
    its error, the rows before it attached (:class:`~skrank.io._runerrors.ReadBefore`), or
    that of a repeat among them (:func:`~skrank.io._runerrors.first_error`). ``seen``: the
    topics of a run's earlier batches; one of them back before the bad line raises
    :class:`Interleaved` (the run read whole then finds a repeat of a document of those
    batches before the bad line)."""
    if out is None:
        out, row0 = _empty_rows(R.capacity(end - begin, qrels), qrels), 0
    parsed = R.parse(buf, begin, end, qrels, out, row0)
    if parsed.bad:
        exc = parse_error(parsed, buf, name, first_line, qrels)
        n = parsed.n_rows
        if seen and n:
            rows = _rows(name, buf, begin, first_line, parsed, n, ALL_BITS)
            again = seen.intersection(rows.topics)
            if again:
                topic = min(again)
                row = int(np.flatnonzero(rows.qcode == rows.topics.index(topic))[0])
                raise Interleaved(topic, rows.lines(row))
        raise first_error(exc, ReadBefore(name, buf, begin, first_line, parsed.dstart[:n],
                                           (parsed.rel if qrels else parsed.score)[:n],
                                           parsed.qcode[:n], parsed.dlen[:n],
                                           parsed.topics), qrels)
    return parsed


@dataclass
class _Source:
    """A file's bytes: a buffer and where its text begins (after a BOM)."""

    buf: Any
    begin: int


def _plain_file(source: Source) -> Any:
    """``source`` opened (binary, unbuffered) when it is a plain file that is not compressed,
    else None."""
    if not (isinstance(source, (str, os.PathLike)) and os.path.isfile(source)):
        return None
    fh = open(source, "rb", buffering=0)  # closed by the caller
    head = fh.read(6)
    if not head or head.startswith(_MAGIC):
        fh.close()
        return None
    fh.seek(0)
    return fh


def _read_all(source: Source) -> _Source:
    """The whole decompressed content of ``source``: an mmap of a plain file, else bytes."""
    name = source_name(source)
    fh = _plain_file(source)
    if fh is not None:
        with fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        if hasattr(mmap, "MADV_SEQUENTIAL"):
            mm.madvise(mmap.MADV_SEQUENTIAL)
        return _Source(mm, 3 if mm[:3] == BOM else 0)
    stream, owned = open_binary(source)
    try:
        data = _read_stream(stream, -1, name)
    finally:
        if owned:
            stream.close()
    return _Source(data, 3 if data.startswith(BOM) else 0)


def _read_stream(stream: Any, size: int, name: str) -> bytes:
    import lzma

    try:
        return stream.read(size)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise InputError(f"{name}: corrupt compressed data ({exc}).") from None


# ------------------------------------------------------------------------------ qrels


@dataclass
class QrelsFile(Located):
    """A qrels file read for joining: its bytes, its rows, grouped by topic, and a table.

    ``topics`` are the distinct topic ids sorted as strings (trec_eval's order); the
    judgements of topic ``t`` are rows ``order[bounds[t]:bounds[t + 1]]`` (in file order).
    The pages of a mapped file are given back after reading and after each batch
    (:meth:`release`): the join reads those of the topics it meets again.
    """

    source: str
    buf: Any
    begin: int
    topics: np.ndarray
    code_of: dict[str, int]
    dstart: np.ndarray
    dlen: np.ndarray
    rel: np.ndarray
    order: np.ndarray
    bounds: np.ndarray
    hash_mask: int = ALL_BITS

    def __len__(self) -> int:
        return int(self.rel.shape[0])

    @property
    def n_topics(self) -> int:
        return int(self.topics.shape[0])

    @property
    def first_line(self) -> int:
        """A qrels file is read from its first line."""
        return 1

    def topic_strings(self, codes: np.ndarray) -> np.ndarray:
        """Topic ids of the given topic codes, as a numpy str array."""
        return self.topics[np.asarray(codes, dtype=np.int64)]

    def release(self) -> None:
        _release(self.buf)


def _release(buf: Any, upto: int | None = None) -> None:
    """Give the pages of a mapped file (before ``upto``) back: they are read again where
    needed."""
    if not (isinstance(buf, mmap.mmap) and _CAN_RELEASE):
        return
    if upto is None:
        buf.madvise(mmap.MADV_DONTNEED)
    elif upto >= mmap.PAGESIZE:
        buf.madvise(mmap.MADV_DONTNEED, 0, (upto // mmap.PAGESIZE) * mmap.PAGESIZE)


def _sorted_topics(names: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """The topic ids as sorted strings, and the rank of each (in first-appearance order)."""
    strings = [t.decode("utf-8") for t in names]
    ranks = np.empty(len(strings), dtype=np.int64)
    ranks[sorted(range(len(strings)), key=strings.__getitem__)] = np.arange(len(strings))
    return np.array(sorted(strings), dtype=str), ranks


def read_qrels_file(source: Source, *, hash_mask: int = ALL_BITS) -> QrelsFile:
    """Read a qrels file (``qid iter docno rel``) for :func:`join_batch`.

    Raises :class:`InputError` naming the file and line of a malformed line, a label that is
    not an integer, or a document judged twice for a topic: the first of them in the file
    (a repeat before a line that does not parse is named, see
    :func:`~skrank.io._runerrors.first_error`). The error carries the rows before its line
    (:class:`~skrank.io._runerrors.ReadBefore`).
    """
    name = source_name(source)
    src, (qcode, dstart, dlen, rel), names, _, n = _parse_whole(source, True)
    buf = src.buf
    if not n:
        raise InputError(f"{name}: no judgements (the file is empty or only has comments).")
    topics, ranks = _sorted_topics(names)
    R.remap(qcode, ranks.astype(np.int32))
    order, bounds = R.group_rows(qcode, len(topics), empty=_large)
    del qcode
    out = QrelsFile(name, buf, src.begin, topics,
                    {t: i for i, t in enumerate(topics.tolist())}, dstart, dlen, rel, order,
                    bounds, hash_mask)
    a, b, t = R.first_repeat(buf, out.dstart, out.dlen, order, bounds,
                             np.arange(len(topics), dtype=np.int64), hash_mask)
    if b >= 0:
        exc = repeated(name, out, a, b, str(topics[t]), True)
        # the rows before its line (in file order): a label there that skrank eval's
        # conventions refuse comes first
        exc._read_before = ReadBefore(name, buf, src.begin, 1, dstart[:b], rel[:b])
        raise exc
    out.release()
    return out


# ------------------------------------------------------------------------------ runs


@dataclass
class RunRows(Located):
    """Rows of a run read from ``buf`` (from ``begin``, line ``first_line``): topic codes
    (into ``topics``, first appearance order), the offsets and lengths of the document ids,
    scores. ``hash_mask``: the bits of the document hashes the join keeps (all but in tests).
    ``grouping``: :meth:`grouped`'s result, computed already (by the reading thread), or
    None; :func:`join_batch` looks for repeated documents as it joins.
    ``window``: ``buf`` maps the whole file and the rows are a window of it, the batches
    before it finished. ``arrays`` and ``pool``: the parse arrays the rows are views of, and
    the pool they go back to (:meth:`recycle`).
    """

    source: str
    buf: Any
    begin: int
    first_line: int
    qcode: np.ndarray
    dstart: np.ndarray
    dlen: np.ndarray
    score: np.ndarray
    topics: list[str]
    hash_mask: int = ALL_BITS
    grouping: tuple[np.ndarray, np.ndarray] | None = None
    window: bool = False
    arrays: Any = None
    pool: Any = None

    def __len__(self) -> int:
        return int(self.score.shape[0])

    def grouped(self) -> tuple[np.ndarray, np.ndarray]:
        """``(order, bounds)``: the rows of topic ``t`` are ``order[bounds[t]:bounds[t +
        1]]``, in file order."""
        return R.group_rows(self.qcode, len(self.topics), empty=_large)

    def release(self) -> None:
        """Give back the pages of a mapped file: all of them, or those before the window."""
        _release(self.buf, self.begin if self.window else None)

    def recycle(self) -> None:
        """Give the parse arrays back to the reader's pool: the rows are not read after
        this (the join copied what it needs)."""
        if self.pool is not None:
            self.pool.give(self.arrays)
        self.pool = self.arrays = None

    def check(self, order: np.ndarray, bounds: np.ndarray, topics: np.ndarray,
              before: int | None = None) -> None:
        """Raise on the earliest document repeated within one of ``topics``, naming both
        lines (``order`` and ``bounds``: see :meth:`grouped`); ``before``: only if it is on
        a row before that one."""
        a, b, t = R.first_repeat(self.buf, self.dstart, self.dlen, order, bounds,
                                 np.asarray(topics, dtype=np.int64), self.hash_mask)
        if b >= 0 and (before is None or b < before):
            raise repeated(self.source, self, a, b, self.topics[t], False)


def _present(bounds: np.ndarray) -> np.ndarray:
    """The topics with rows."""
    return np.flatnonzero(bounds[1:] > bounds[:-1])


def _rows(name: str, buf: Any, begin: int, first_line: int, parsed: Any, stop: int,
          hash_mask: int) -> RunRows:
    codes = parsed.qcode[:stop]
    n_topics = int(codes.max()) + 1 if stop else 0
    return RunRows(name, buf, begin, first_line, codes, parsed.dstart[:stop],
                   parsed.dlen[:stop], parsed.score[:stop],
                   [t.decode("utf-8") for t in parsed.topics[:n_topics]], hash_mask)


def _chunk_end(buf: Any, start: int, size: int, step: int | None = None) -> int:
    """Where to end a chunk of a buffer: after the last line end before ``start + step``
    (``_WHOLE_CHUNK`` by default; or the next one, for a longer line), CRLF kept whole."""
    stop = start + (_WHOLE_CHUNK if step is None else step)
    if stop >= size:
        return size
    cut = buf.rfind(b"\n", start, stop)
    # a CR only after the last LF (a file without CR is not scanned through for one)
    cut = max(cut, buf.rfind(b"\r", max(cut, start), stop))
    if cut < 0:
        cut = buf.find(b"\n", stop)
        cr = buf.find(b"\r", stop, size if cut < 0 else cut)  # a CR only before that LF
        if cr >= 0:
            cut = cr
        if cut < 0:
            return size
    if buf[cut] == 13 and cut + 1 < size and buf[cut + 1] == 10:
        cut += 1
    return cut + 1


@dataclass
class _Span:
    """What parsing a span of a buffer a chunk at a time gave: its rows and lines, the
    ``(first row, rows, topic ids)`` of each chunk with rows, the last row's tag, and the
    first bad line (``(parsed, its chunk's first line)``) or an exception. ``row0``: the
    first row of the span in the arrays; after a bad line, ``rows`` counts the rows before
    it."""

    row0: int = 0
    rows: int = 0
    lines: int = 0
    chunks: list[tuple[int, int, list[bytes]]] = field(default_factory=list)
    tag: bytes = b""
    bad: Any = None
    exc: BaseException | None = None


def _parse_span(buf: Any, begin: int, end: int, qrels: bool, out: Any, row0: int,
                span: _Span) -> None:
    """Parse ``buf[begin:end]`` (whole lines) a chunk at a time into ``out`` from row
    ``row0``, giving back the pages of a mapped file behind; stop at a bad line."""
    span.row0 = row0
    try:
        row, line, pos = row0, 1, begin
        while pos < end:
            stop = _chunk_end(buf, pos, end)
            parsed = R.parse(buf, pos, stop, qrels, out, row)
            if parsed.bad:
                span.bad = (parsed, line)
                span.rows = row - row0 + parsed.n_rows
                return
            if parsed.n_rows:
                span.chunks.append((row, parsed.n_rows, parsed.topics))
                span.tag = parsed.tag
            row += parsed.n_rows
            line += parsed.n_lines
            if isinstance(buf, mmap.mmap) and _CAN_RELEASE:
                page = (pos // mmap.PAGESIZE) * mmap.PAGESIZE
                buf.madvise(mmap.MADV_DONTNEED, page, stop - page)
            pos = stop
        span.rows, span.lines = row - row0, line - 1
    except BaseException as exc:  # (of the second thread) raised by the caller
        span.exc = exc


def _parse_whole(source: Source, qrels: bool) -> tuple[Any, Any, list[bytes], bytes, int]:
    """Parse a whole file: ``(buffer, arrays, topics, tag of the last row, rows)``.

    The buffer is parsed a chunk at a time into one set of arrays (``qcode``, ``dstart``,
    ``dlen``, scores or labels), the topic codes of each chunk then mapped to the file's
    (first appearance order); the pages of a mapped file are given back behind the parser,
    so that the file's text need not stay in memory with its rows. A text longer than
    ``_SPLIT_BYTES`` is parsed in two halves in two threads, the second half's rows written
    after as many rows as the first half has line ends (moved down if it has blank or
    comment lines).
    """
    import threading

    name = source_name(source)
    src = _read_all(source)
    buf, size = src.buf, len(src.buf)
    cut = size
    if size - src.begin > _SPLIT_BYTES:
        cut = _chunk_end(buf, src.begin, size, (size - src.begin) // 2)
    slack = 2 * (size // _WHOLE_CHUNK + 2)
    first_cap = R.capacity(cut - src.begin, qrels) + slack
    cap = first_cap + R.capacity(size - cut, qrels) + slack
    out = _empty_rows(cap, qrels)
    first, second = _Span(), _Span()
    thread = None
    if cut < size:
        row0 = min(R.count_line_ends(buf, src.begin, cut), first_cap)
        thread = threading.Thread(target=_parse_span, name="skrank-parse", daemon=True,
                                  args=(buf, cut, size, qrels, out, row0, second))
        thread.start()
    _parse_span(buf, src.begin, cut, qrels, out, 0, first)
    if thread is not None:
        thread.join()
    line = 1
    for span in (first, second):
        if span.exc is not None:
            raise span.exc
        if span.bad is not None:
            parsed, chunk_line = span.bad
            exc = parse_error(parsed, buf, name, line + chunk_line - 1, qrels)
            raise first_error(exc, _rows_before(name, src, out, first, span, parsed), qrels)
        line += span.lines
    if second.rows and second.chunks[0][0] > first.rows:  # blank or comment lines
        gap = second.chunks[0][0] - first.rows
        for a in out:
            a[first.rows: first.rows + second.rows] = a[first.rows + gap:
                                                        first.rows + gap + second.rows]
        second.chunks = [(r - gap, n, t) for r, n, t in second.chunks]
    codes: dict[bytes, int] = {}
    for row, n, topics in first.chunks + second.chunks:
        local = out[0][row: row + n]
        to_file = np.array([codes.setdefault(t, len(codes)) for t in topics], dtype=np.int32)
        R.remap(local, to_file)
    n_rows = first.rows + second.rows
    tag = second.tag if second.chunks else first.tag
    return src, tuple(a[:n_rows] for a in out), list(codes), tag, n_rows


def _rows_before(name: str, src: _Source, out: Any, first: _Span, bad: _Span,
                 parsed: Any) -> ReadBefore:
    """The rows before the bad line of span ``bad`` (``first``, or the second span, whose
    rows follow all of the first span's; ``parsed``: its bad chunk's), their topics coded
    for the file."""
    chunks = first.chunks + (bad.chunks if bad is not first else [])
    chunks.append((bad.row0 + bad.rows - parsed.n_rows, parsed.n_rows, parsed.topics))
    codes: dict[bytes, int] = {}
    pieces: list[list[np.ndarray]] = [[], [], [], []]
    for row, n, topics in chunks:
        to_file = np.array([codes.setdefault(t, len(codes)) for t in topics], dtype=np.int32)
        for piece, a in zip(pieces, out):
            piece.append(a[row: row + n])
        pieces[0][-1] = to_file[pieces[0][-1]]
    qcode, dstart, dlen, values = (np.concatenate(p) for p in pieces)
    return ReadBefore(name, src.buf, src.begin, 1, dstart, values, qcode, dlen, list(codes))


def read_run_whole(source: Source, *, hash_mask: int = ALL_BITS) -> tuple[RunRows, str, int]:
    """Read a whole run: ``(rows, tag of the last line, number of rows)`` (see
    :func:`_parse_whole`)."""
    src, (qcode, dstart, dlen, score), topics, tag, n = _parse_whole(source, False)
    rows = RunRows(source_name(source), src.buf, src.begin, 1, qcode, dstart, dlen, score,
                   [t.decode("utf-8") for t in topics], hash_mask)
    return rows, tag.decode("utf-8", "replace"), n
