"""pyarrow string columns in bulk: dictionary codes, string ranks, the (group, string) order
behind the join of in-memory runs and qrels (:func:`skrank.io.align_run_qrels`), the first
repeated key, and the conversion to the NumPy ``str`` arrays the readers return.

No parsing here: TREC text is read by the compiled reader (``_runfile.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arrow import import_pyarrow

__all__ = ["encode", "first_repeat", "string_order", "string_ranks", "to_str_array"]


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
