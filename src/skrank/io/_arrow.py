"""Whitespace-separated text files (TREC runs and qrels) read in blocks by pyarrow's CSV parser.

The file is read in blocks of ``chunk_bytes`` cut at line ends. Each block is normalised with
a few bytes-level operations that run in C and only when the block needs them (CR and CRLF
line ends become LF, tabs and other ASCII blanks become spaces, runs of spaces one space,
comment lines empty), then parsed by ``pyarrow.csv.read_csv`` (multithreaded) with a space as
the delimiter and no quoting. No Python code runs per line. Line numbers are kept per block:
the first line's number, and, for blocks with blank or comment lines, the offset of each data
line, so that an error can name the line it comes from. When pyarrow refuses a block, the
block is examined again (in Python, on the error path only) to name the first bad line.

Gzip, bz2 and xz files are recognised by their first bytes and decompressed as a stream.
A UTF-8 byte order mark at the start of the file is dropped.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import public_name
from ..exceptions import InputError
from ._common import Source, source_name, where

__all__ = ["Block", "import_pyarrow", "iter_blocks", "open_binary"]

#: bytes read per block (before normalisation); the streaming batch is about this big
CHUNK_BYTES = 8 << 20
#: pyarrow's own block size inside one of our blocks: its unit of parallel parsing
_ARROW_BLOCK = 1 << 20

_BOM = b"\xef\xbb\xbf"
_BLANKS = bytes.maketrans(b"\t\v\f", b"   ")
_SPACES = re.compile(rb" {2,}")
_EDGES = re.compile(rb"(?m)^ | $")
_COMMENTS = re.compile(rb"(?m)^#[^\n]*")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INT = re.compile(r"[+-]?[0-9]{1,18}")
_MAGIC = ((b"\x1f\x8b", lambda f: gzip.GzipFile(fileobj=f)), (b"BZh", bz2.BZ2File),
          (b"\xfd7zXZ\x00", lzma.LZMAFile))


def import_pyarrow(default: str = "skrank.io") -> tuple[Any, Any, Any]:
    """Return ``(pyarrow, pyarrow.csv, pyarrow.compute)`` or raise an install hint.

    The hint names the public function running (:func:`~skrank._validation.public_name`),
    else ``default``.
    """
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.csv
    except ImportError as exc:
        raise ImportError(
            f"{public_name(default)} needs pyarrow to read files; install it with: pip install "
            "'skrank[pandas]' (or pip install pyarrow)"
        ) from exc
    return pyarrow, pyarrow.csv, pyarrow.compute


class _Prefixed(io.RawIOBase):
    """A binary stream that first returns ``head`` (bytes already read), then the rest."""

    def __init__(self, head: bytes, rest: Any) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(view))
        view[: len(data)] = data
        return len(data)


def open_binary(source: Source) -> tuple[Any, bool]:
    """Open ``source`` as a binary stream of its decompressed bytes.

    Returns the stream and whether the caller must close it. Text streams are encoded as
    UTF-8; gzip, bz2 and xz data are recognised by their magic bytes.
    """
    name = source_name(source)
    if isinstance(source, (str, os.PathLike)):
        try:
            fh: Any = open(source, "rb")  # closed by the caller
        except FileNotFoundError:
            raise InputError(f"{name}: no such file.") from None
        except IsADirectoryError:
            raise InputError(f"{name}: is a directory, not a file.") from None
        owned = True
    else:
        fh, owned = source, False
        if isinstance(fh, io.TextIOBase) or isinstance(fh.read(0), str):
            fh = io.BytesIO(fh.read().encode("utf-8"))
    head = fh.read(6)
    raw: Any = _Prefixed(head, fh)
    for magic, opener in _MAGIC:
        if head.startswith(magic):
            raw = opener(io.BufferedReader(raw, 1 << 20))
            break
    if owned:
        return _Closing(raw, fh), True
    return raw, False


class _Closing:
    """Read from ``stream``; closing closes the underlying file too."""

    def __init__(self, stream: Any, fh: Any) -> None:
        self._stream, self._fh = stream, fh

    def read(self, size: int = -1) -> bytes:
        return self._stream.read(size)

    def close(self) -> None:
        self._fh.close()


@dataclass
class Block:
    """One block of normalised text: the parsed columns and where its lines came from.

    ``table`` is the pyarrow table of the block; ``first_line`` the number of its first line;
    ``offsets`` (None when every line of the block holds data) the line offset of each row
    from ``first_line``; ``last`` the fields of the block's last data line.
    """

    table: Any
    first_line: int
    offsets: np.ndarray | None
    text: bytes

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def line(self, row: int) -> int:
        """The file line of row ``row`` of this block."""
        return self.first_line + int(row if self.offsets is None else self.offsets[row])

    def fields(self, row: int) -> list[str]:
        """The fields of row ``row`` of this block (for error messages)."""
        lines = self.text.split(b"\n")
        if self.offsets is not None:
            lines = [lines[int(i)] for i in self.offsets[row: row + 1]]
            row = 0
        return lines[row].decode("utf-8", "replace").split(" ")

    def last_fields(self) -> list[str]:
        """The fields of the block's last data line."""
        end = len(self.text)
        while end and self.text[end - 1] == 10:  # 10: LF
            end -= 1
        start = self.text.rfind(b"\n", 0, end) + 1
        return self.text[start:end].decode("utf-8", "replace").split(" ")


# byte pairs that need normalising, as little-endian 16-bit words: two spaces, a space before
# or after a line end, a comment mark at the start of a line
_PAIRS = (0x2020, 0x0A20, 0x200A)
_COMMENT_PAIR = 0x230A


def _is_normal(data: bytes) -> bool:
    """Whether ``_normalise`` would leave ``data`` as it is (the usual case).

    Single bytes are found with ``in`` (memchr); the byte pairs with 16-bit comparisons of
    the data at both alignments, a few vectorised passes and no index arrays.
    """
    if b"\r" in data or b"\t" in data or b"\v" in data or b"\f" in data:
        return False
    if data[:1] in (b" ", b"#") or data[-1:] == b" ":
        return False
    pairs = _PAIRS + ((_COMMENT_PAIR,) if b"#" in data else ())
    for start in (0, 1)[: len(data)]:
        words = np.frombuffer(data, dtype="<u2", offset=start, count=(len(data) - start) // 2)
        for pair in pairs:
            if (words == pair).any():
                return False
    return True


def _normalise(data: bytes) -> bytes:
    if _is_normal(data):
        return data
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"\t" in data or b"\v" in data or b"\f" in data:
        data = data.translate(_BLANKS)
    if b"  " in data:
        data = _SPACES.sub(b" ", data)
    if data[:1] == b" " or b"\n " in data or b" \n" in data or data[-1:] == b" ":
        data = _EDGES.sub(b"", data)
    if data[:1] == b"#" or b"\n#" in data:
        data = _COMMENTS.sub(b"", data)
    return data


def _count_lines(raw: bytes) -> int:
    """Lines of a block: LF, CRLF and a lone CR each end one; a last line without an end
    counts."""
    if b"\r" in raw:  # CRLF is one line end, a lone CR another
        n = raw.count(b"\n") + raw.count(b"\r") - raw.count(b"\r\n")
    else:
        n = int(np.count_nonzero(np.frombuffer(raw, dtype=np.uint8) == 10))
    return n + (bool(raw) and not raw.endswith((b"\n", b"\r")))


def _line_bounds(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of each line of ``data`` (the empty tail after a final LF
    excluded)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    nl = np.flatnonzero(arr == 10)
    starts = np.concatenate([[0], nl + 1])
    ends = np.concatenate([nl, [arr.shape[0]]])
    if starts[-1] == arr.shape[0]:
        starts, ends = starts[:-1], ends[:-1]
    return starts, ends


def _row_lines(data: bytes, n_rows: int, n_lines: int) -> np.ndarray | None:
    """The line offset of each row of a parsed block, or None when every line is a row."""
    if n_rows == n_lines:
        return None
    starts, ends = _line_bounds(data)  # blank or comment lines: where each row is
    return np.flatnonzero(ends > starts)


def _split(reader: Any, size: int, name: str) -> Iterator[bytes]:
    """Blocks of about ``size`` bytes cut after a line end (a BOM at the start dropped)."""
    carry = b""
    first = True
    while True:
        try:
            block = reader.read(size)
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise InputError(f"{name}: corrupt compressed data ({exc}).") from None
        data = carry + block if carry else block
        if first:
            first = False
            if data.startswith(_BOM):
                data = data[len(_BOM):]
        if not block:
            if data:
                yield data
            return
        # a CR at the very end may be the first half of CRLF: keep it for the next block
        end = len(data) - 1 if data.endswith(b"\r") else len(data)
        cut = max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end))
        if cut < 0:
            carry = data
            continue
        carry = data[cut + 1:]
        yield data[: cut + 1]


def iter_blocks(
    source: Source, *, names: list[str], keep: dict[str, Any], exact: int | None,
    at_least: int, layout: str, refuse: Any, chunk_bytes: int = CHUNK_BYTES,
) -> Iterator[Block]:
    """Parse ``source`` block by block into pyarrow tables of the columns in ``keep``.

    ``names`` are the names of the leading fields of a line; ``keep`` maps the kept ones to
    their pyarrow types. A line must have exactly ``exact`` fields, or at least ``at_least``
    (fields beyond ``len(names)`` are ignored). When a value does not convert to its type,
    ``refuse(column, tokens)`` returns the position of the first bad token and the message.
    Raises :class:`InputError` naming the file and line of the first malformed line, value or
    non-UTF-8 byte.
    """
    pa, csv, _ = import_pyarrow()
    name = source_name(source)
    stream, owned = open_binary(source)
    read_options = csv.ReadOptions(column_names=names, use_threads=True,
                                   block_size=_ARROW_BLOCK)
    parse_options = csv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False,
                                     double_quote=False, ignore_empty_lines=True)

    def parse(data: bytes, types: dict[str, Any]) -> Any:
        convert = csv.ConvertOptions(
            column_types=types, include_columns=list(types), null_values=[],
            strings_can_be_null=False, quoted_strings_can_be_null=False, check_utf8=True,
        )
        return csv.read_csv(pa.py_buffer(data), read_options=read_options,
                            parse_options=parse_options, convert_options=convert)

    line = 1
    try:
        for raw in _split(stream, chunk_bytes, name):
            n_lines = _count_lines(raw)
            data = _normalise(raw)
            try:
                table = parse(data, keep)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                data = _check_lines(data, line, name, names, exact, at_least, layout)
                try:
                    table = parse(data, keep)
                except (pa.ArrowInvalid, pa.ArrowTypeError):
                    text = parse(data, dict.fromkeys(keep, pa.string()))
                    block = Block(text, line, _row_lines(data, text.num_rows, n_lines), data)
                    for column, kind in keep.items():
                        if kind == pa.string():
                            continue
                        row, message = refuse(column, text[column].to_pylist())
                        if row >= 0:
                            raise InputError(f"{where(name, block.line(row))}: {message}") \
                                from None
                    raise  # pragma: no cover - every refused value is found above
            if table.num_rows:
                yield Block(table, line, _row_lines(data, table.num_rows, n_lines), data)
            line += n_lines
    finally:
        if owned:
            stream.close()


def _check_lines(data: bytes, first_line: int, name: str, names: list[str],
                 exact: int | None, at_least: int, layout: str) -> bytes:
    """Raise on the first non-UTF-8 byte or line with a wrong number of fields; else return
    ``data`` with the fields after the last named one cut (a run's text after the tag).

    Only called on the error path; a Python loop over lines is fine here.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        lineno = first_line + data[: exc.start].count(b"\n")
        raise InputError(f"{where(name, lineno)}: the file is not valid UTF-8 text.") from None
    lines = text.split("\n")
    surplus = False
    for i, line in enumerate(lines):
        if not line:
            continue
        fields = line.split(" ")
        bad = len(fields) != exact if exact is not None else len(fields) < at_least
        if bad:
            expected = f"{exact}" if exact is not None else f"at least {at_least}"
            raise InputError(
                f"{where(name, first_line + i)}: malformed line; expected {expected} fields "
                f"'{layout}', got {len(fields)}: {line[:100]!r}."
            )
        surplus |= len(fields) > len(names)
    if not surplus:
        return data
    width = len(names)
    return "\n".join(" ".join(line.split(" ")[:width]) for line in lines).encode("utf-8")


def bad_value(tokens: list[str], kind: str) -> int:
    """Position of the first token that is not a number of ``kind`` ("float" or "int")."""
    pattern = _FLOAT if kind == "float" else _INT
    special = ("inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan", "+nan",
               "-nan")
    for i, tok in enumerate(tokens):
        if pattern.fullmatch(tok) is None and not (kind == "float" and tok.lower() in special):
            return i
    return -1
