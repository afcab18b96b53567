"""``read_run`` and ``read_qrels`` against a slow, plain Python reading of the same text (issue
12: one set of TREC parse rules, in the compiled reader).

The oracle splits the text into lines (CRLF, lone CR and LF each end one; a UTF-8 BOM at the
start dropped) and each line with ``bytes.split()``; a line without fields, or whose first
field starts with ``#``, holds no row. Hypothesis draws files with blank and comment lines,
runs of blanks of every kind, mixed line ends, a BOM, non-ASCII ids and ids holding ``#``,
extra fields after a run's tag, given as paths, path-likes, binary and text file objects, or
compressed; read whole or in small chunks (and halves, in two threads), the rows, their dtypes
and the run tag must be the oracle's. A bad value or a repeated pair put on a drawn row must
be refused with the message naming that row's line (and the first line of the pair).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skrank.io._runfile
import skrank.io._trec
from skrank import InputError
from skrank.io import Qrels, Run, read_qrels, read_run

BLANKS = st.sampled_from([" ", " ", "  ", "\t", " \t ", "\v", "\f"])
ENDS = st.sampled_from(["\n", "\n", "\r\n", "\r"])
# ids: ASCII, multi-byte UTF-8 (two, three and four bytes) and '#' inside, never first
IDS = st.builds(lambda a, b: a + b,
                st.text(alphabet="abq0179-_.\u00e9\u4e2d\U0001f600", min_size=1, max_size=3),
                st.text(alphabet="ab0#\u00e9\U0001f600", max_size=6))
SCORES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-10**6, 10**6).map(str),
    st.sampled_from(["+1.5", ".5", "1.", "-2e-3", "1.5e-400", "0", "-0.0", "1E5", "007.50"]),
)
LABELS = st.one_of(st.integers(-(10**18) + 1, 10**18 - 1).map(str),
                   st.sampled_from(["+2", "007", "-0", "0"]))
COMPRESS = {"none": None, "gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


def oracle(data: bytes, qrels: bool) -> tuple[list[tuple[str, str, object, int]], str]:
    """The rows ``(qid, doc, value, line)`` of a file's bytes and the tag of its last row."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    rows, tag = [], ""
    for number, line in enumerate(lines, 1):
        fields = [f.decode("utf-8") for f in line.split()]
        if not fields or fields[0].startswith("#"):
            continue
        if qrels:
            assert len(fields) == 4
            rows.append((fields[0], fields[2], int(fields[3]), number))
        else:
            assert len(fields) >= 6
            rows.append((fields[0], fields[2], float(fields[4]), number))
            tag = fields[5]
    return rows, tag


@st.composite
def trec_files(draw, qrels: bool):
    """The text of a valid qrels or run file: ``(text, row lines)``, the rows' fields drawn
    unique by (qid, doc)."""
    pairs = draw(st.lists(st.tuples(st.sampled_from(["1", "2", "301", "q\u00e9", "10"]), IDS),
                          min_size=1, max_size=25, unique=True))
    parts = ["\ufeff"] if draw(st.booleans()) else []
    for i, (qid, doc) in enumerate(pairs):
        for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 3)) == 0 else 0):
            parts.append(draw(st.sampled_from(["", " ", "\t\f", "#", "# c 1 2 3", "  # x",
                                               "#1 0 a 1"])) + draw(ENDS))
        if qrels:
            fields = [qid, draw(st.sampled_from(["0", "Q0", "iter"])), doc, draw(LABELS)]
        else:
            fields = [qid, "Q0", doc, str(i + 1), draw(SCORES),
                      draw(st.sampled_from(["tag", "run\u00e9", "b#m25"]))]
            fields += draw(st.lists(st.sampled_from(["x", "1", "#"]), max_size=2))
        line = draw(BLANKS) if draw(st.integers(0, 4)) == 0 else ""
        for k, field in enumerate(fields):
            line += (draw(BLANKS) if k else "") + field
        if draw(st.integers(0, 4)) == 0:
            line += draw(BLANKS)
        last = i == len(pairs) - 1 and draw(st.booleans())  # a last line with no line end
        parts.append(line + ("" if last else draw(ENDS)))
    return "".join(parts)


def _source(text: str, kind: str, compress: str, tmp: Path):
    """``text`` as the reader's ``source``, and the name its messages give."""
    data = text.encode("utf-8")
    if COMPRESS[compress] is not None:
        data = COMPRESS[compress](data)
    if kind == "text":
        if compress != "none":
            kind = "binary"  # compressed data is binary
        else:
            return io.StringIO(text), "<stream>"
    if kind == "binary":
        return io.BytesIO(data), "<stream>"
    path = tmp / f"file-{compress}.txt"
    path.write_bytes(data)
    return (path if kind == "pathlike" else str(path)), str(path)


@contextlib.contextmanager
def _chunks(chunk: int | None, split: int | None, decode: int | None = None):
    """The reader's chunk and split sizes, made small to cut the text in many places, and the
    rows of ids decoded at a time (the pages of a mapped file given back behind them)."""
    with contextlib.ExitStack() as stack:
        if decode is not None:
            stack.enter_context(mock.patch.object(skrank.io._trec, "_DECODE_ROWS", decode))
        if chunk is not None:
            stack.enter_context(mock.patch.object(skrank.io._runfile, "_WHOLE_CHUNK", chunk))
        if split is not None:
            stack.enter_context(mock.patch.object(skrank.io._runfile, "_SPLIT_BYTES", split))
        yield


READING = st.tuples(st.sampled_from(["path", "pathlike", "binary", "text"]),
                    st.sampled_from(list(COMPRESS)), st.sampled_from([None, 1, 7, 64]),
                    st.sampled_from([None, 40]), st.sampled_from([None, 1, 3]))


def _read(text, qrels, reading, tmp):
    """``(read, name)``: a call reading ``text`` as ``reading`` says, and the file's name."""
    kind, compress, chunk, split, decode = reading
    source, name = _source(text, kind, compress, tmp)

    def read():
        with _chunks(chunk, split, decode):
            return (read_qrels if qrels else read_run)(source)

    return read, name


@settings(max_examples=150, deadline=None)
@given(st.booleans().flatmap(lambda q: st.tuples(st.just(q), trec_files(q))), READING)
def test_rows_are_the_oracles(tmp_path_factory, case, reading):
    qrels, text = case
    read, name = _read(text, qrels, reading, tmp_path_factory.mktemp("o"))
    got = read()
    rows, tag = oracle(text.encode("utf-8"), qrels)
    qid, doc, values, _ = zip(*rows)
    assert type(got) is (Qrels if qrels else Run)
    assert got.source == name
    np.testing.assert_array_equal(got.qid, np.array(qid, dtype=str))
    assert got.qid.dtype == np.array(qid, dtype=str).dtype
    np.testing.assert_array_equal(got.doc_id, np.array(doc, dtype=str))
    assert got.doc_id.dtype == np.array(doc, dtype=str).dtype
    if qrels:
        assert got.rel.dtype == np.int64 and got.rel.tolist() == list(values)
    else:
        assert got.score.dtype == np.float64
        # bit for bit: correctly rounded, and -0.0 kept
        assert got.score.tobytes() == np.array(values, dtype=np.float64).tobytes()
        assert got.name == tag


BAD_SCORES = {"x": "the score 'x' is not a number.", "1_5": "the score '1_5' is not a number.",
              "\u0661": "the score '\u0661' is not a number.",
              "0x1": "the score '0x1' is not a number.", "nan": "the score is NaN.",
              "-inf": "the score '-inf' is not a finite number (skrank ranks by finite "
                      "scores).",
              "1e400": "the score '1e400' is not a finite number (skrank ranks by finite "
                       "scores)."}
BAD_LABELS = {"1.5": "the relevance label '1.5' is not an integer (of at most 18 digits).",
              "x": "the relevance label 'x' is not an integer (of at most 18 digits).",
              "1" * 19: f"the relevance label '{'1' * 19}' is not an integer (of at most 18 "
                        "digits)."}


def _replace_field(text: str, line: int, index: int, value: str) -> str:
    """``text`` with field ``index`` of line ``line`` (numbered as the oracle numbers them)
    replaced, its blanks and line ends kept."""
    import re

    pieces = re.split(r"(\r\n|\r|\n)", text)  # lines and their ends, in turn
    k = 2 * (line - 1)
    fields = re.split(r"([ \t\v\f]+)", pieces[k])
    words = [i for i, f in enumerate(fields) if f and not f.isspace()]
    fields[words[index]] = value
    pieces[k] = "".join(fields)
    return "".join(pieces)


@settings(max_examples=150, deadline=None)
@given(st.booleans().flatmap(lambda q: st.tuples(st.just(q), trec_files(q))), READING,
       st.data())
def test_a_bad_row_is_named_by_its_line(tmp_path_factory, case, reading, data):
    qrels, text = case
    rows, _ = oracle(text.encode("utf-8"), qrels)
    at = data.draw(st.integers(0, len(rows) - 1))
    line = rows[at][3]
    # the BOM is not a character of the first line's first field
    body = text[1:] if text.startswith("\ufeff") else text
    bom = text[: len(text) - len(body)]
    if at > 0 and data.draw(st.booleans()):  # a repeated pair: the row takes an earlier one's
        first = data.draw(st.integers(0, at - 1))
        qid, doc = rows[first][:2]
        body = _replace_field(_replace_field(body, line, 0, qid), line, 2, doc)
        verb, what = ("judged", "judgements") if qrels else ("retrieved", "documents")
        message = (f"line {line}: document {doc!r} is {verb} twice for query {qid!r} "
                   f"(first on line {rows[first][3]}); trec_eval refuses duplicate {what} "
                   "too.")
    else:
        token, what = data.draw(st.sampled_from(sorted((BAD_LABELS if qrels else
                                                        BAD_SCORES).items())))
        body = _replace_field(body, line, 3 if qrels else 4, token)
        message = f"line {line}: {what}"
    read, name = _read(bom + body, qrels, reading, tmp_path_factory.mktemp("b"))
    with pytest.raises(InputError) as info:
        read()
    assert str(info.value) == f"{name}, {message}"


# ------------------------------------------------------------------ exact messages


@pytest.mark.parametrize(("call", "text", "message"), [
    (read_run, "", "<stream>: no results (the file is empty or only has comments)."),
    (read_run, "\ufeff  \r\n# c\r\n", "<stream>: no results (the file is empty or only has "
                                      "comments)."),
    (read_qrels, "\n\n", "<stream>: no judgements (the file is empty or only has comments)."),
    (read_run, "\ufeff1 Q0 a 1 1 t\r\n\r\n1 Q0 b 2 inf t\r\n",
     "<stream>, line 3: the score 'inf' is not a finite number (skrank ranks by finite "
     "scores)."),
    (read_run, "1 Q0 a 1 1 t\r1 Q0 b 2 1 t\r1 Q0 a\t3  0 t\r",
     "<stream>, line 3: document 'a' is retrieved twice for query '1' (first on line 1); "
     "trec_eval refuses duplicate documents too."),
    (read_run, "1 Q0 a 1 1 t\n  # 1 Q0 a 1 1 t\n1 Q0 b 2\n", "<stream>, line 3: malformed "
     "line; expected at least 6 fields 'qid Q0 docno rank score tag', got 4: '1 Q0 b 2'."),
    (read_qrels, "1 0 a 1\n1 0 b 2 x\n", "<stream>, line 2: malformed line; expected 4 "
     "fields 'qid iter docno rel', got 5: '1 0 b 2 x'."),
    (read_qrels, "1 0 a 1\n1\t0 a 2\n", "<stream>, line 2: document 'a' is judged twice for "
     "query '1' (first on line 1); trec_eval refuses duplicate judgements too."),
    (read_qrels, "1 0 a 1\n1 0 b 1e3\n", "<stream>, line 2: the relevance label '1e3' is not "
     "an integer (of at most 18 digits)."),
])
@pytest.mark.parametrize("kind", ["text", "binary", "gzip"])
def test_exact_messages_of_streams(call, text, message, kind):
    data = text.encode("utf-8")
    source = (io.StringIO(text) if kind == "text" else
              io.BytesIO(gzip.compress(data) if kind == "gzip" else data))
    with pytest.raises(InputError) as info:
        call(source)
    assert str(info.value) == message


def test_exact_messages_of_paths(tmp_path):
    with pytest.raises(InputError) as info:
        read_run(tmp_path / "absent")
    assert str(info.value) == f"{tmp_path / 'absent'}: no such file."
    with pytest.raises(InputError) as info:
        read_qrels(tmp_path)
    assert str(info.value) == f"{tmp_path}: is a directory, not a file."
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(b"1 Q0 a 1 1 t\n")[:-6])
    with pytest.raises(InputError) as info:
        read_run(path)
    assert str(info.value).startswith(f"{path}: corrupt compressed data (")
    path = tmp_path / "named"
    path.write_bytes(b"1 0 a 1\n1 0 b\xff 1\n")
    with open(path, "rb") as fh, pytest.raises(InputError) as info:
        read_qrels(fh)
    assert str(info.value) == f"{path}, line 2: the file is not valid UTF-8 text."


def test_ids_wider_than_their_bytes_keep_numpys_width(tmp_path):
    # the widest id by bytes is not the widest by code points: the str width is the latter
    run = read_run(io.BytesIO("1 Q0 \U0001f600\U0001f600 1 1 t\n1 Q0 abc 2 1 t\n"
                              .encode("utf-8")))
    assert run.doc_id.dtype == np.dtype("<U3") and run.doc_id.tolist() == ["\U0001f600" * 2,
                                                                           "abc"]
    assert run.doc_id.flags.writeable and run.qid.dtype == np.dtype("<U1")
