"""Where the records of a CSV/TSV table's text start, line by line, as pyarrow's reader
finds them: for error messages, which name the file's own line (pyarrow does not tell it),
and for the header's end (a quoted name may hold a line break)."""

from __future__ import annotations

from typing import Any

from ._runreader import count_line_ends

__all__ = ["PIECE", "bad_line", "data_row_line", "records", "scan"]

# Where pyarrow's read_csv (with the ParseOptions of _table._text_table: quote '"', doubled
# quotes, no escape character, empty lines ignored) puts the records of a text table: it
# ends a line at LF, CR LF or a lone CR; it skips an empty line (a line end right after
# another, or at the start), and does not take a line of spaces or tabs for an empty one (a
# record of one field); it opens a quoted value only at the start of a field, a line end
# inside it continuing the record on the next line (to the end of the text where the quote
# is not closed); after the closing quote, the field runs on, quotes included, to the
# separator or the line end; a UTF-8 byte order mark is dropped before (_table._table_bytes)
# and is no line. The line to name is the one where a record starts. The scan (scan) reads
# the bytes (the quote, separators and line ends are ASCII, never part of a UTF-8
# character), with no limit on a field's size: lines before the next quote are split as they
# are, a record holding a quote by a regular expression, field by field. Python loops, on
# the error paths only (and for the header): pyarrow does not tell the line. (1M rows: 0.5
# s.)


def field_pattern(sep: str) -> Any:
    """One field and what ends it (the separator, a line end, the end of the text); ``re``
    keeps the compiled pattern for the next call."""
    import re

    d = re.escape(sep.encode())
    return re.compile(rb'("(?:[^"]+|"")*"?[^' + d + rb'\r\n]*|[^' + d + rb'\r\n]*)('
                      + d + rb'|\r\n|\r|\n|\Z)')


PIECE = 1 << 16  # bytes of plain lines split at a time


def scan(data: bytes, sep: str) -> Any:
    """``(line where it starts, fields, offset after its line end)`` of each non-empty
    record of a table's text (the header first), as pyarrow reads them (see above)."""
    pattern, bsep = field_pattern(sep), sep.encode()
    pos, line, n = 0, 1, len(data)
    fields: list[bytes] = []
    start = 1
    quote = -1  # the next quote at or after pos (n: none)
    while pos < n:
        if not fields:  # a record starts: its lines up to the next quote's are plain
            if quote < pos:
                quote = data.find(b'"', pos)
                quote = n if quote < 0 else quote
            block = n if quote == n else max(data.rfind(b"\n", pos, quote),
                                             data.rfind(b"\r", pos, quote)) + 1
            if block > pos + PIECE:  # in pieces: a caller may stop at the first record
                cut = max(data.rfind(b"\n", pos, pos + PIECE),
                          data.rfind(b"\r", pos, pos + PIECE))
                if cut >= pos:
                    block = cut + (2 if data[cut:cut + 2] == b"\r\n" else 1)
            if block > pos:
                for text in data[pos:block].splitlines(keepends=True):
                    pos += len(text)
                    body = text.rstrip(b"\r\n")
                    if body:
                        yield line, body.split(bsep), pos
                    line += 1
                start = line
                continue
        m = pattern.match(data, pos)
        assert m is not None  # every position starts a field (perhaps empty)
        field, end = m.group(1), m.group(2)
        if field.startswith(b'"'):
            line += count_line_ends(field, 0, len(field))
        pos = m.end()
        if end == bsep:
            fields.append(field)
            continue
        if fields or field:  # else an empty line
            fields.append(field)
            yield start, fields, pos
            fields = []
        if end:
            line += 1
        start = line
    if fields:  # the text ends right after a separator
        fields.append(b"")
        yield start, fields, pos


def records(data: bytes, sep: str) -> Any:
    """``(line where it starts, fields)`` of each non-empty record of a table's text (the
    header first), as pyarrow reads them (see above); the fields as they stand in the text
    (quotes kept)."""
    for line, fields, _ in scan(data, sep):
        yield line, fields


def data_row_line(data: bytes, sep: str, row: int) -> int | None:
    """The line (from 1) of the table's text ``data`` where data row ``row`` (from 0, the
    header not counted) starts; None where the text has fewer rows."""
    for n, (line, _) in enumerate(records(data, sep)):
        if n == row + 1:
            return line
    return None  # pragma: no cover - pyarrow read that row


def bad_line(data: bytes, sep: str, width: int) -> tuple[int, int, int, int]:
    """(line, number of fields, data row from 0, end of the record before) of the first
    record whose number of fields is not ``width``."""
    before = 0
    for n, (line, fields, end) in enumerate(scan(data, sep)):
        if len(fields) != width:
            return line, len(fields), n - 1, before
        before = end
    raise AssertionError("unreachable: pyarrow found such a row")  # pragma: no cover
