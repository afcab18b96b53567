"""Readers for TREC qrels and run files, following trec_eval 10.

qrels: ``qid iter docno rel`` (exactly four whitespace-separated fields; ``iter`` ignored).
run:   ``qid Q0 docno rank score tag`` (six fields or more; ``Q0``, ``rank`` and anything after
``tag`` are ignored, as trec_eval ignores them).

Comments follow trec_eval 10: a line whose first non-blank character is ``#`` is a comment;
a ``#`` anywhere else is an ordinary character, so ids such as
``msmarco_v2.1_doc_00_880019750#4_1633802806`` are read whole. Blank lines are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import validate_params
from ..exceptions import InputError
from ._arrow import CHUNK_BYTES, Block, bad_value, import_pyarrow, iter_blocks
from ._common import Source, source_name, where

__all__ = ["Qrels", "Run", "read_qrels", "read_run"]

_QRELS_NAMES = ["qid", "iter", "doc", "rel"]
_RUN_NAMES = ["qid", "q0", "doc", "rank", "score", "tag"]


class LineMap:
    """Where the rows of a column come from: row -> line of the file.

    Built from the pieces (blocks, or parts of blocks) the rows were taken from; lines are
    only looked up to write an error message.
    """

    def __init__(self) -> None:
        self._pieces: list[tuple[int, int, np.ndarray | None, int]] = []
        self.n_rows = 0

    def add(self, block: Block, start: int = 0, stop: int | None = None) -> None:
        """Append rows ``start:stop`` of ``block``."""
        stop = len(block) if stop is None else stop
        if stop > start:
            self._pieces.append((self.n_rows, block.first_line, block.offsets, start))
            self.n_rows += stop - start

    def extend(self, other: LineMap, start: int = 0, stop: int | None = None) -> None:
        """Append rows ``start:stop`` of another map."""
        stop = other.n_rows if stop is None else stop
        for i, (begin, first, offsets, skip) in enumerate(other._pieces):
            end = other._pieces[i + 1][0] if i + 1 < len(other._pieces) else other.n_rows
            lo, hi = max(begin, start), min(end, stop)
            if hi > lo:
                self._pieces.append((self.n_rows, first, offsets, skip + lo - begin))
                self.n_rows += hi - lo

    def __call__(self, row: int) -> int:
        starts = [p[0] for p in self._pieces]
        i = int(np.searchsorted(starts, row, side="right")) - 1
        begin, first, offsets, skip = self._pieces[i]
        idx = row - begin + skip
        return first + int(idx if offsets is None else offsets[idx])


def encode(column: Any) -> tuple[np.ndarray, Any]:
    """Dictionary-encode a pyarrow string column: (int64 codes, dictionary of distinct values
    in order of first appearance)."""
    pa, _, pc = import_pyarrow("encode")
    enc = pc.dictionary_encode(column)
    if isinstance(enc, pa.ChunkedArray):
        if enc.num_chunks == 0:
            return np.zeros(0, dtype=np.int64), pa.array([], type=pa.string())
        codes = np.concatenate([c.indices.to_numpy() for c in enc.chunks])
        return codes.astype(np.int64), enc.chunk(0).dictionary
    return enc.indices.to_numpy().astype(np.int64), enc.dictionary


def string_ranks(values: Any) -> np.ndarray:
    """Rank of each string of a pyarrow array in byte (= code point) order, as int64."""
    _, _, pc = import_pyarrow("string_ranks")
    order = pc.array_sort_indices(values).to_numpy()
    ranks = np.empty(order.shape[0], dtype=np.int64)
    ranks[order] = np.arange(order.shape[0], dtype=np.int64)
    return ranks


def _string_bytes(column: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bytes of a pyarrow string column: (data padded with 8 zero bytes, start and
    length of each value), without copying the values one by one."""
    pa, _, _ = import_pyarrow("string_order")
    parts, starts, lengths = [], [], []
    base = 0
    for chunk in (column.chunks if isinstance(column, pa.ChunkedArray) else [column]):
        if not len(chunk):
            continue
        if chunk.type not in (pa.string(), pa.large_string()):
            chunk = chunk.cast(pa.large_string())
        _, off_buf, data_buf = chunk.buffers()[:3]
        width = np.int32 if chunk.type == pa.string() else np.int64
        off = np.frombuffer(off_buf, dtype=width)[chunk.offset: chunk.offset + len(chunk) + 1]
        off = off.astype(np.int64)
        data = (np.frombuffer(data_buf, dtype=np.uint8)[off[0]: off[-1]]
                if data_buf is not None else np.zeros(0, dtype=np.uint8))
        starts.append(off[:-1] - off[0] + base)
        lengths.append(np.diff(off))
        parts.append(data)
        base += data.shape[0]
    parts.append(np.zeros(8, dtype=np.uint8))
    empty = np.zeros(0, dtype=np.int64)
    return (np.concatenate(parts), np.concatenate(starts) if starts else empty,
            np.concatenate(lengths) if lengths else empty)


class _Words:
    """Big-endian 8-byte words of strings: word ``j`` of a string holds its bytes
    ``8j .. 8j+7``, zero-padded, so that comparing words in turn, then lengths, is comparing
    the strings byte by byte (code point order for UTF-8)."""

    def __init__(self, column: Any) -> None:
        self.buf, self.starts, self.lengths = _string_bytes(column)
        self._view = np.ndarray(shape=(self.buf.shape[0] - 7,), dtype=">u8", buffer=self.buf,
                                strides=(1,))
        # bytes every string starts with (``msmarco_doc_``) order nothing: the words begin
        # after them, so that the first word tells most strings apart
        skip = self._common_prefix()
        self.starts += skip
        self.lengths -= skip

    def _common_prefix(self) -> int:
        """Length of the prefix all the strings share (at most the shortest length)."""
        if self.starts.shape[0] < 2:
            return 0
        shortest = int(self.lengths.min())
        skip = 0
        while skip < shortest:
            word = self._view[np.minimum(self.starts + skip, self._view.shape[0] - 1)]
            differ = int(np.bitwise_or.reduce(word ^ word[0]))
            same = min((64 - differ.bit_length()) // 8, shortest - skip)
            skip += same
            if same < 8:
                return skip
        return skip

    def __call__(self, rows: np.ndarray, j: int) -> np.ndarray:
        at = np.minimum(self.starts[rows] + 8 * j, self._view.shape[0] - 1)
        word = self._view[at].astype(np.uint64)
        rest = self.lengths[rows] - 8 * j
        short = np.flatnonzero(rest < 8)
        if short.size:
            keep = np.clip(rest[short], 0, 8)
            mask = np.where(keep > 0, np.left_shift(np.uint64(0xFFFFFFFFFFFFFFFF),
                                                     (64 - 8 * np.maximum(keep, 1))
                                                     .astype(np.uint64)), np.uint64(0))
            word[short] &= mask
        return word


def string_order(group: np.ndarray, column: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rows sorted by (group, string): ``(order, same)``.

    ``group`` holds non-negative ints; strings compare byte by byte (code point order) and
    rows of equal group and string keep their row order. ``same[i]`` tells whether sorted
    rows ``i`` and ``i + 1`` have the same group and string. One sort of 64-bit keys (the
    group and the first bytes) does most of the work; rows whose keys tie are settled by
    comparing their next bytes, pairwise where two rows tie (the usual case).
    """
    group = np.asarray(group, dtype=np.int64)
    n = group.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    words = _Words(column)
    rows = np.arange(n, dtype=np.int64)
    w0 = words(rows, 0)
    gbits = int(group.max()).bit_length()
    if gbits == 0:
        key = w0
    elif gbits >= 64:  # pragma: no cover - far more groups than rows
        raise ValueError("too many groups")
    else:
        key = (group.astype(np.uint64) << np.uint64(64 - gbits)) | (w0 >> np.uint64(gbits))
    order = np.argsort(key)
    sorted_key = key[order]
    same = sorted_key[1:] == sorted_key[:-1]
    if not same.any():
        return order, same
    first = np.flatnonzero(np.r_[True, ~same])
    size = np.diff(np.r_[first, n])
    _settle_pairs(order, same, first[size == 2], group, words)
    big = size > 2
    if big.any():
        _settle_groups(order, same, first[big], size[big], group, words)
    return order, same


def _settle_pairs(order: np.ndarray, same: np.ndarray, at: np.ndarray, group: np.ndarray,
                  words: _Words) -> None:
    """Order the pairs of rows at sorted positions ``at``, ``at + 1`` (equal keys)."""
    a, b = order[at], order[at + 1]
    la, lb = words.lengths[a], words.lengths[b]
    swap = group[a] > group[b]
    open_ = group[a] == group[b]
    j = 0
    while True:
        u = np.flatnonzero(open_ & ((la > 8 * j) | (lb > 8 * j)))
        if not u.size:
            break
        wa, wb = words(a[u], j), words(b[u], j)
        d = wa != wb
        swap[u[d]] = wa[d] > wb[d]
        open_[u[d]] = False
        j += 1
    u = np.flatnonzero(open_)
    d = la[u] != lb[u]
    swap[u[d]] = la[u[d]] > lb[u[d]]
    equal = u[~d]
    swap[equal] = a[equal] > b[equal]
    same[at] = False
    same[at[equal]] = True
    order[at[swap]], order[at[swap] + 1] = b[swap], a[swap]


def _settle_groups(order: np.ndarray, same: np.ndarray, first: np.ndarray, size: np.ndarray,
                   group: np.ndarray, words: _Words) -> None:
    """Order the runs of more than two rows with equal keys (rare): a full sort of each."""
    offsets = np.repeat(first - (np.cumsum(size) - size), size)
    at = np.arange(int(size.sum()), dtype=np.int64) + offsets
    rows = order[at]
    run = np.repeat(np.arange(size.shape[0]), size)
    lengths = words.lengths[rows]
    n_words = max(int(-(-int(lengths.max()) // 8)), 1)
    keys = [rows, lengths] + [words(rows, j) for j in range(n_words - 1, -1, -1)] + \
        [group[rows], run]
    sub = np.lexsort(keys)
    order[at] = rows[sub]
    equal = np.ones(at.shape[0] - 1, dtype=bool)
    for k in keys[1:]:
        ks = k[sub]
        equal &= ks[1:] == ks[:-1]
    same[at[:-1]] = equal


def first_repeat(key: np.ndarray) -> tuple[int, int] | None:
    """(first row, repeating row) of the earliest row whose key an earlier row has, or None.

    A stable sort: fast on the nearly sorted keys of a run whose topics are contiguous.
    """
    if key.shape[0] < 2:
        return None
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    repeat = np.flatnonzero(sorted_key[1:] == sorted_key[:-1])
    if not repeat.size:
        return None
    b = int(order[repeat + 1].min())
    a = int(order[np.searchsorted(sorted_key, key[b])])
    return a, b


def to_str_array(column: Any) -> np.ndarray:
    """A pyarrow string column as a numpy ``str`` array (the readers' public type)."""
    values = column.to_numpy(zero_copy_only=False) if len(column) else []
    return np.array(values, dtype=str) if len(values) else np.array([], dtype="<U1")


def _refuse_label(column: str, tokens: list[str]) -> tuple[int, str]:
    i = bad_value(tokens, "int")
    return i, f"the relevance label {tokens[i]!r} is not an integer (of at most 18 digits)."


def _refuse_score(column: str, tokens: list[str]) -> tuple[int, str]:
    i = bad_value(tokens, "float")
    return i, f"the score {tokens[i]!r} is not a number."


@dataclass
class QrelsColumns:
    """A qrels file as pyarrow columns (``qid``, ``doc``: strings) and int64 labels."""

    qid: Any
    doc: Any
    rel: np.ndarray
    lines: LineMap
    source: str

    def __len__(self) -> int:
        return int(self.rel.shape[0])


def read_qrels_columns(source: Source) -> QrelsColumns:
    """Read a qrels file into columns, checking every line (see :func:`read_qrels`)."""
    pa, _, pc = import_pyarrow("read_qrels")
    name = source_name(source)
    lines = LineMap()
    qid, doc, rel = [], [], []
    for block in iter_blocks(source, names=_QRELS_NAMES,
                             keep={"qid": pa.string(), "doc": pa.string(), "rel": pa.string()},
                             exact=4, at_least=4, layout="qid iter docno rel",
                             refuse=_refuse_label):
        labels = block.table.column("rel")
        try:
            values = pc.cast(labels, pa.int64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            tokens = labels.to_pylist()  # the error path: e.g. '+1' (atol reads it) or '1.5'
            i = bad_value(tokens, "int")
            if i >= 0:
                raise InputError(f"{where(name, block.line(i))}: {_refuse_label('', tokens)[1]}")\
                    from None
            values = pa.array([int(t) for t in tokens], type=pa.int64())
        lines.add(block)
        qid.append(block.table.column("qid"))
        doc.append(block.table.column("doc"))
        rel.append(np.asarray(values))
    if not rel:
        raise InputError(f"{name}: no judgements (the file is empty or only has comments).")
    qids = pa.chunked_array([c for part in qid for c in part.chunks], type=pa.string())
    docs = pa.chunked_array([c for part in doc for c in part.chunks], type=pa.string())
    out = QrelsColumns(qids, docs, np.concatenate(rel).astype(np.int64), lines, name)
    check_pairs(out.qid, out.doc, lines, name, "judged", "judgements")
    return out


def sorted_repeat(order: np.ndarray, same: np.ndarray) -> tuple[int, int] | None:
    """(first row, repeating row) of the earliest row equal to an earlier one, or None, from
    :func:`string_order`'s ``order`` and ``same`` (equal rows sorted in row order)."""
    pair = np.flatnonzero(same)
    if not pair.size:
        return None
    later = order[pair + 1]
    at = int(pair[np.argmin(later)]) + 1  # sorted position of the earliest repeating row
    starts = np.flatnonzero(np.r_[True, ~same])
    first = int(starts[np.searchsorted(starts, at, side="right") - 1])
    return int(order[first]), int(order[at])


def check_pairs(qid: Any, doc: Any, lines: LineMap, name: str, verb: str, what: str) -> None:
    """Raise on the first (qid, doc) pair met twice, naming both lines (as trec_eval stops).

    The pairs are sorted by (topic code, document id bytes): no hashing of the documents.
    """
    qcode, _ = encode(qid)
    repeat = sorted_repeat(*string_order(qcode, doc))
    if repeat is None:
        return
    a, b = repeat
    raise InputError(
        f"{where(name, lines(b))}: document {doc[b].as_py()!r} is {verb} twice for query "
        f"{qid[b].as_py()!r} (first on line {lines(a)}); trec_eval refuses duplicate {what} too."
    )


@dataclass
class RunBlock:
    """Rows of a run: pyarrow string columns, float64 scores and where they come from.

    ``codes``, when known, is the topic ids encoded once: ``(codes, dictionary)`` with
    ``dictionary.take(codes)`` equal to ``qid`` (which may then be None).
    """

    qid: Any
    doc: Any
    score: np.ndarray
    lines: LineMap
    tag: str
    codes: tuple[np.ndarray, Any] | None = None

    def __len__(self) -> int:
        return int(self.score.shape[0])


def iter_run_blocks(source: Source, *, chunk_bytes: int = CHUNK_BYTES) -> Any:
    """Yield the rows of a run file block by block, each value checked (see
    :func:`read_run`); the blocks follow the file, so a topic may span two of them."""
    pa, _, _ = import_pyarrow("read_run")
    name = source_name(source)
    for block in iter_blocks(source, names=_RUN_NAMES,
                             keep={"qid": pa.string(), "doc": pa.string(),
                                   "score": pa.float64()},
                             exact=None, at_least=6, layout="qid Q0 docno rank score tag",
                             refuse=_refuse_score, chunk_bytes=chunk_bytes):
        score = block.table.column("score").to_numpy()
        if not np.isfinite(score).all():
            i = int(np.flatnonzero(~np.isfinite(score))[0])
            if np.isnan(score[i]):
                raise InputError(f"{where(name, block.line(i))}: the score is NaN.")
            token = block.fields(i)[4]
            raise InputError(
                f"{where(name, block.line(i))}: the score {token!r} is not a finite number "
                "(skrank ranks by finite scores)."
            )
        lines = LineMap()
        lines.add(block)
        yield RunBlock(block.table.column("qid"), block.table.column("doc"), score, lines,
                       block.last_fields()[5])


def concat_run_blocks(blocks: list[RunBlock]) -> RunBlock:
    """One block of all the rows of ``blocks``."""
    pa, _, _ = import_pyarrow("concat_run_blocks")
    lines = LineMap()
    for b in blocks:
        lines.extend(b.lines)
    return RunBlock(
        pa.chunked_array([c for b in blocks for c in _chunks(b.qid)], type=pa.string()),
        pa.chunked_array([c for b in blocks for c in _chunks(b.doc)], type=pa.string()),
        np.concatenate([b.score for b in blocks]) if blocks else np.zeros(0),
        lines, blocks[-1].tag if blocks else "",
    )


def _chunks(column: Any) -> list[Any]:
    return list(column.chunks) if hasattr(column, "chunks") else [column]


def read_run_columns(source: Source) -> RunBlock:
    """Read a whole run into columns, every line and pair checked (see :func:`read_run`)."""
    name = source_name(source)
    run = concat_run_blocks(list(iter_run_blocks(source)))
    if not len(run):
        raise InputError(f"{name}: no results (the file is empty or only has comments).")
    check_pairs(run.qid, run.doc, run.lines, name, "retrieved", "documents")
    return run


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
    cols = read_qrels_columns(source)
    return Qrels(qid=to_str_array(cols.qid), doc_id=to_str_array(cols.doc), rel=cols.rel,
                 source=cols.source)


@validate_params({})  # source: opened in the body, whose errors name the file and the line
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
    run = read_run_columns(source)
    return Run(qid=to_str_array(run.qid), doc_id=to_str_array(run.doc), score=run.score,
               name=run.tag, source=source_name(source))
