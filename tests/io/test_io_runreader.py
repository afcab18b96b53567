"""The compiled reader and join of ``skrank eval``'s TREC path (``skrank.io._runfile``,
``skrank.io._runbatches``).

References: the public messages of ``read_run`` and ``read_qrels`` (which read through the
same reader), pinned as exact strings for every way of reading a file; the pyarrow join of
``align_run_qrels``; Python's ``float`` and ``int`` for the numbers; Python's byte-string order
for trec_eval's docno order; and the same reader with every document hash equal
(``hash_mask=0``), where only the byte comparisons can tell ids apart.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import struct
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skrank.io._runfile
from skrank import InputError, evaluate
from skrank.io import _runreader as R
from skrank.io import align_run_qrels, read_qrels, read_run
from skrank.io._pipeline import Prefetch, ordered_map, prefetched
from skrank.io._runbatches import iter_topic_batches, join_batch
from skrank.io._runfile import Interleaved, read_qrels_file, read_run_whole

DATA = Path(__file__).resolve().parent.parent / "data" / "trec_eval"
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"


def _write(tmp_path, data, name="run.txt"):
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _new_run(path, chunk=None, hash_mask=(1 << 64) - 1):
    """The compiled path on a run: rows read whole (or in batches of ``chunk`` bytes), each
    joined with a qrels file so that repeated documents are looked for; a run whose topics
    come back is read whole, as ``skrank eval`` reads it."""
    qrels = read_qrels_file(DATA / "qrels.test")
    if chunk is not None:
        try:
            state = SimpleNamespace(n_rows=0, tag="")
            batches = list(iter_topic_batches(path, chunk, set(), state,
                                              hash_mask=hash_mask))
        except Interleaved:
            chunk = None
        else:
            tag = state.tag
    if chunk is None:
        rows, tag, _ = read_run_whole(path, hash_mask=hash_mask)
        batches = [rows] if len(rows) else []
    for b in batches:
        join_batch(qrels, b)
    return batches, tag


def _message(call):
    with pytest.raises(InputError) as info:
        call()
    return str(info.value)


# ----------------------------------------------------------------- the public messages


_SIX = "malformed line; expected at least 6 fields 'qid Q0 docno rank score tag'"
_INFINITE = "is not a finite number (skrank ranks by finite scores)."
_TWICE = "document 'a' is retrieved twice for query '1' (first on line 1); trec_eval " \
    "refuses duplicate documents too."
BAD_RUNS = [
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5\n",
     f", line 2: {_SIX}, got 5: '1 Q0 b 2 0.5'."),
    ("1 Q0 a 1 1.0 t\n# c\n1 Q0 b 2 high t\n", ", line 3: the score 'high' is not a number."),
    ("1 Q0 a 1 nan t\n", ", line 1: the score is NaN."),
    ("1 Q0 a 1 1 t\n1 Q0 b 1 -NaN t\n", ", line 2: the score is NaN."),
    ("1 Q0 a 1 inf t\n", f", line 1: the score 'inf' {_INFINITE}"),
    ("1 Q0 a 1 -inf t\n", f", line 1: the score '-inf' {_INFINITE}"),
    ("1 Q0 a 1 +Infinity t\n", f", line 1: the score '+Infinity' {_INFINITE}"),
    ("1 Q0 a 1 1e400 t\n", f", line 1: the score '1e400' {_INFINITE}"),
    ("1 Q0 a 1 -1e400 t\n", f", line 1: the score '-1e400' {_INFINITE}"),
    ("1 Q0 a 1 1_5 t\n", ", line 1: the score '1_5' is not a number."),
    ("1 Q0 a 1 \u0661\u0665 t\n", ", line 1: the score '\u0661\u0665' is not a number."),
    ("1 Q0 a 1 0x10 t\n", ", line 1: the score '0x10' is not a number."),
    ("1 Q0 a 1 1e t\n", ", line 1: the score '1e' is not a number."),
    ("1 Q0 a 1 1.5.2 t\n", ", line 1: the score '1.5.2' is not a number."),
    ("1 Q0 a 1 . t\n", ", line 1: the score '.' is not a number."),
    ("1 Q0 a\n", f", line 1: {_SIX}, got 3: '1 Q0 a'."),
    ("1\n", f", line 1: {_SIX}, got 1: '1'."),
    ("1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n\n1 Q0 a 2 0.5 t\n",
     f", line 4: {_TWICE}"),
    ("1 Q0 a 1 2.5 t\r\r1 Q0 b 2 x t\r", ", line 3: the score 'x' is not a number."),
    ("1 Q0 a 1 2.5 t\r\n1 Q0 b 2 1 t\r1 Q0 c 3 x t\n",
     ", line 3: the score 'x' is not a number."),
    ("\ufeff1 Q0 a 1 1 t\n1 Q0 a 2 1 t\n",
     f", line 2: {_TWICE}"),
    ("  1\tQ0 a 1 1 t\n\f\n1 Q0\tb  2 1 t  \n1 Q0 a 3 0 t\n",
     f", line 4: {_TWICE}"),
    (b"1 Q0 a 1 1 t\n1 Q0 caf\xe9 2 0.5 t\n", ", line 2: the file is not valid UTF-8 text."),
    (b"1 Q0 a 1 1 t\n\xff Q0 b 2 0.5 t\n", ", line 2: the file is not valid UTF-8 text."),
    ("# only a comment\n\n", ": no results (the file is empty or only has comments)."),
]


@pytest.mark.parametrize(("text", "message"), BAD_RUNS)
@pytest.mark.parametrize("chunk", [None, 7, 1 << 20])
def test_bad_runs_give_the_public_message(tmp_path, text, message, chunk):
    path = _write(tmp_path, text)
    assert _message(lambda: read_run(path)) == f"{path}{message}"
    if "no results" in message:  # the CLI says so when no row came
        assert _new_run(path, chunk)[0] == []
        return
    assert _message(lambda: _new_run(path, chunk)) == f"{path}{message}"


_LABEL = "is not an integer (of at most 18 digits)."
BAD_QRELS = [
    ("1 0 a 1\n1 0 b\n",
     ", line 2: malformed line; expected 4 fields 'qid iter docno rel', got 3: '1 0 b'."),
    ("# c\n1 0 a 1\n1 0 b 1 extra\n", ", line 3: malformed line; expected 4 fields "
     "'qid iter docno rel', got 5: '1 0 b 1 extra'."),
    ("1 0 a 1\n\n1 0 b x\n", f", line 3: the relevance label 'x' {_LABEL}"),
    ("1 0 a 1.5\n", f", line 1: the relevance label '1.5' {_LABEL}"),
    ("1 0 a 1_0\n", f", line 1: the relevance label '1_0' {_LABEL}"),
    ("1 0 a \u0661\n", f", line 1: the relevance label '\u0661' {_LABEL}"),
    ("1 0 a 99999999999999999999\n",
     f", line 1: the relevance label '99999999999999999999' {_LABEL}"),
    ("1 0 a +\n", f", line 1: the relevance label '+' {_LABEL}"),
    ("1 0 a 1\n2 0 a 0\n1 0 a 0\n", ", line 3: document 'a' is judged twice for query '1' "
     "(first on line 1); trec_eval refuses duplicate judgements too."),
    ("1 0 a 1\r1 0 b 0\r2 0 c 1\r1 0 b 3\r", ", line 4: document 'b' is judged twice for "
     "query '1' (first on line 2); trec_eval refuses duplicate judgements too."),
    (b"1 0 a 1\n1 0 \xc3 1\n", ", line 2: the file is not valid UTF-8 text."),
    ("# only a comment\n", ": no judgements (the file is empty or only has comments)."),
]


@pytest.mark.parametrize(("text", "message"), BAD_QRELS)
def test_bad_qrels_give_the_public_message(tmp_path, text, message):
    path = _write(tmp_path, text, "qrels.txt")
    assert _message(lambda: read_qrels(path)) == f"{path}{message}"
    assert _message(lambda: read_qrels_file(path)) == f"{path}{message}"


# ----------------------------------------------------------------- values


_TOKENS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda v: f"{v:.9g}"),
    st.tuples(st.integers(0, 10**25), st.integers(0, 30), st.integers(-340, 320),
              st.sampled_from(["", "+", "-"])).map(
        lambda t: f"{t[3]}{str(t[0])[:-t[1] or None]}.{str(t[0])[-t[1]:] if t[1] else ''}"
                  f"e{t[2]}"),
    st.integers(0, 24).flatmap(
        lambda p: st.decimals(allow_nan=False, allow_infinity=False, places=p,
                              min_value=-10**30, max_value=10**30)).map(lambda d: format(d, "f")),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, min_size=1, max_size=40))
def test_scores_are_correctly_rounded(tokens):
    tokens = [t for t in tokens if abs(float(t)) != float("inf")]
    text = "".join(f"1 Q0 d{i} {i} {t} tag\n" for i, t in enumerate(tokens)).encode()
    parsed = R.parse(text, 0, len(text), False)
    assert parsed.bad == 0
    got = [struct.pack("<d", v) for v in parsed.score.tolist()]
    assert got == [struct.pack("<d", float(t)) for t in tokens]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-(10**18) + 1, 10**18 - 1), min_size=1, max_size=30),
       st.sampled_from(["", "+", "00"]))
def test_labels_are_read_as_python_ints(labels, prefix):
    tokens = [f"{prefix}{v}" if v >= 0 and len(f"{prefix}{v}") <= 18 else str(v)
              for v in labels]
    text = "".join(f"q 0 d{i} {t}\n" for i, t in enumerate(tokens)).encode()
    parsed = R.parse(text, 0, len(text), True)
    assert parsed.bad == 0
    assert parsed.rel.tolist() == [int(t) for t in tokens]


_FIELD_BYTES = st.lists(st.sampled_from([b"a", b"Z", b"7", b"\x01", b"\x1f", b"\x7f", b"!",
                                         "\u00e9".encode(), b"\xff", b"\xc3"]),
                       min_size=1, max_size=20).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_FIELD_BYTES, _FIELD_BYTES, _FIELD_BYTES,
                          st.sampled_from([b" ", b"\t", b"  \v", b"\f\t"])),
                min_size=1, max_size=12),
       st.booleans())
def test_fields_end_at_blanks_and_line_ends_only(rows, qrels):
    # the fields are scanned eight bytes at a time: control bytes are part of a field,
    # blanks and line ends end it, and a byte >= 0x80 anywhere in an id has it checked as
    # UTF-8 (in the first word, a later one, or the bytes after the last whole word)
    text = b"".join(
        sep.join([q, b"Q0", d] + ([b"1"] if qrels else [b"1", b"2.5", t])) + b"\n"
        for q, d, t, sep in rows)
    parsed = R.parse(text, 0, len(text), qrels)
    valid = []
    for q, d, _, _ in rows:
        try:
            q.decode("utf-8"), d.decode("utf-8")
            valid.append(True)
        except UnicodeDecodeError:
            valid.append(False)
    n = valid.index(False) if False in valid else len(rows)
    assert parsed.n_rows == n
    assert parsed.bad == (0 if n == len(rows) else R.BAD_UTF8)
    docs = [text[s: s + k] for s, k in zip(parsed.dstart.tolist(), parsed.dlen.tolist())]
    assert docs == [d for _, d, _, _ in rows[:n]]
    assert [parsed.topics[c] for c in parsed.qcode.tolist()] == [q for q, *_ in rows[:n]]
    if n == len(rows) and not qrels:
        assert parsed.tag == rows[-1][2]


_PLAIN_PIECES = st.sampled_from([
    b"q1", b"q2", b"Q0", b"d", b"doc-17", b"0", b"12", b"3.5", b"-0.25", b"1e5", b"nan",
    b"inf", b"1.2.3", b"x", b"tag", b"#", "\u00e9".encode(), b"\xc3", b"\x01", b"-3", b"+2",
    b"123456789012345678", b"1234567890123456789",
])
_PLAIN_SEPS = st.sampled_from([b" ", b" ", b" ", b"\t", b"  ", b"\v", b" \t"])
_PLAIN_ENDS = st.sampled_from([b"\n", b"\n", b"\n", b"\r\n", b"\r", b" \n", b"\n\n"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.lists(_PLAIN_PIECES, min_size=4, max_size=8), _PLAIN_SEPS,
                          _PLAIN_ENDS, st.booleans()), min_size=1, max_size=30),
       st.integers(0, 7), st.booleans())
def test_plain_lines_parse_as_the_general_path(lines, cut, qrels):
    # the fast path of plain lines (six ASCII fields in a run, four in qrels, one blank
    # between two, LF) gives what the general path gives, on every line it takes and every
    # line it leaves to it (blank runs, CR, VT, comments, a field too many or too few, bad
    # scores or labels, UTF-8, the last bytes of the buffer); mostly plain lines, so that
    # both paths meet in one buffer
    parts = []
    for fields, sep, end, plain in lines:
        if plain:
            fields = ([fields[0], b"0", fields[1], fields[3]] if qrels else
                      [fields[0], b"Q0", fields[1], b"1", fields[3], fields[2]])
            sep, end = b" ", b"\n"
        parts.append(sep.join(fields) + end)
    text = b"".join(parts)
    text = text[: max(len(text) - cut, 1)]
    got = R.parse(text, 0, len(text), qrels)
    want = R.parse(text, 0, len(text), qrels, plain=False)
    assert want.n_plain == 0
    for key in ("n_rows", "n_lines", "bad", "bad_line", "bad_at", "run_row", "run_at",
                "run_line", "tag", "topics"):
        assert getattr(got, key) == getattr(want, key), key
    for key in ("qcode", "dstart", "dlen"):
        assert getattr(got, key).tolist() == getattr(want, key).tolist(), key
    if qrels:
        assert got.rel.tolist() == want.rel.tolist()
    else:
        assert got.score.view(np.uint64).tolist() == want.score.view(np.uint64).tolist()


_DECIMALS = st.tuples(st.sampled_from(["", "-", "+"]),
                      st.text("0123456789", max_size=17), st.sampled_from(["", "."]),
                      st.text("0123456789", max_size=17)).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(_DECIMALS, min_size=1, max_size=20))
def test_short_decimals_read_as_the_general_score(tokens):
    # the plain path reads -?digits[.digits] of at most 15 digits by one division, other
    # scores by _score: the same bits (and the same errors) as the general path
    text = "".join(f"q Q0 d{i} {i} {t} tag\n" for i, t in enumerate(tokens)).encode()
    got = R.parse(text, 0, len(text), False)
    want = R.parse(text, 0, len(text), False, plain=False)
    assert (got.n_rows, got.bad, got.bad_line) == (want.n_rows, want.bad, want.bad_line)
    assert got.score.view(np.uint64).tolist() == want.score.view(np.uint64).tolist()
    ok = [t for t in tokens[: want.n_rows]]
    assert got.score.view(np.uint64).tolist() == [
        struct.unpack("<Q", struct.pack("<d", float(t)))[0] for t in ok]


def test_plain_lines_take_the_fast_path():
    # a run of plain lines: the fast path reads them (a wrong field there shows), and a
    # line it leaves (a tab run, a CR) is read by the general one
    text = b"q1 Q0 d7 1 2.5 t\nq1\tQ0\td8 2 -1e3 t\r\nq2 Q0 doc9 1 7 tag\n#c\nq2  Q0 x 2 1 t\n"
    got = R.parse(text, 0, len(text), False)
    docs = [text[a: a + n] for a, n in zip(got.dstart.tolist(), got.dlen.tolist())]
    assert got.bad == 0 and docs == [b"d7", b"d8", b"doc9", b"x"]
    assert got.score.tolist() == [2.5, -1000.0, 7.0, 1.0] and got.tag == b"t"
    assert [got.topics[c] for c in got.qcode.tolist()] == [b"q1", b"q1", b"q2", b"q2"]
    assert (got.n_lines, got.run_row, got.run_line, got.n_plain) == (5, 2, 3, 2)
    assert R.parse(text, 0, len(text), False, plain=False).n_plain == 0
    text = b"q1 0 d7 1\nq1\t0\td8 -2\r\nq2 0 doc9 0\n#c\nq2  0 x 3\nq3 0 y 12\n"
    got = R.parse(text, 0, len(text), True)
    docs = [text[a: a + n] for a, n in zip(got.dstart.tolist(), got.dlen.tolist())]
    assert got.bad == 0 and docs == [b"d7", b"d8", b"doc9", b"x", b"y"]
    assert got.rel.tolist() == [1, -2, 0, 3, 12]
    assert [got.topics[c] for c in got.qcode.tolist()] == [b"q1", b"q1", b"q2", b"q2", b"q3"]
    assert got.n_plain == 2  # the last line's LF is not within a whole word of the buffer


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"b c", b"\n", b"\r", b"\r\n", b"\n\n"]),
                max_size=30).map(b"".join), st.integers(0, 40), st.integers(0, 40))
def test_line_ends_are_counted_as_the_parser_counts_lines(text, begin, end):
    # LF, CRLF and a lone CR each end a line (memchr for the LFs where there is no CR)
    begin, end = min(begin, len(text)), min(end, len(text))
    part = text[begin:end]
    expected = part.count(b"\n") + part.count(b"\r") - part.count(b"\r\n")
    assert R.count_line_ends(text, begin, end) == expected


def test_remap_maps_codes_in_place():
    codes = np.array([2, 0, 1, 2], dtype=np.int32)
    R.remap(codes, np.array([7, 5, 9], dtype=np.int32))
    assert codes.tolist() == [9, 7, 5, 9]
    with pytest.raises(IndexError, match="outside the table"):
        R.remap(np.array([3], dtype=np.int32), np.array([7, 5, 9], dtype=np.int32))


# ----------------------------------------------------------------- lines and blocks


def _lines_text(rng, n_topics=12):
    ends = ["\n", "\r\n", "\r"]
    out = ["\ufeff"]
    for t in range(n_topics):
        for i in range(int(rng.integers(1, 40))):
            if rng.random() < 0.05:
                out.append("# a comment Q0 x" + ends[int(rng.integers(3))])
            if rng.random() < 0.05:
                out.append(" \t" + ends[int(rng.integers(3))])
            doc = "doc" * int(rng.integers(0, 4)) + str(int(rng.integers(0, 10**6))) + f"_{i}"
            out.append(f"t{t}\tQ0  {doc} {i} {round(float(rng.normal()), 1)} run{t} x"
                       + ends[int(rng.integers(3))])
    return "".join(out)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("chunk", [1, 13, 200, 4096, 1 << 20])
def test_batches_are_whole_topics_with_the_lines_of_the_file(tmp_path, monkeypatch, seed,
                                                             chunk):
    text = _lines_text(np.random.default_rng(seed))
    path = _write(tmp_path, text)
    ref = read_run(path)
    # read whole, a chunk of about as many bytes at a time
    monkeypatch.setattr(skrank.io._runfile, "_WHOLE_CHUNK", chunk)
    lines, tag, n = read_run_whole(path)
    assert (tag, n) == (ref.name, len(ref))
    np.testing.assert_array_equal(np.array(lines.topics)[lines.qcode], ref.qid)
    assert [lines.doc(i) for i in range(n)] == ref.doc_id.tolist()
    np.testing.assert_array_equal(lines.score, ref.score)
    order, bounds = lines.grouped()
    np.testing.assert_array_equal(order, np.argsort(lines.qcode, kind="stable"))
    np.testing.assert_array_equal(np.diff(bounds), np.bincount(lines.qcode))
    state = SimpleNamespace(n_rows=0, tag="")
    seen: set[str] = set()
    batches = list(iter_topic_batches(path, chunk, seen, state))
    assert state.n_rows == len(ref) and state.tag == ref.name
    qid = np.concatenate([np.array(b.topics)[b.qcode] for b in batches])
    doc = [b.doc(i) for b in batches for i in range(len(b))]
    score = np.concatenate([b.score for b in batches])
    np.testing.assert_array_equal(qid, ref.qid)
    assert doc == ref.doc_id.tolist()
    np.testing.assert_array_equal(score, ref.score)
    assert sorted(seen) == sorted(set(ref.qid.tolist()))
    # each topic in one batch; the line of each row, counted from the file's text
    assert sum(len(b.topics) for b in batches) == len(seen)
    file_lines = [i + 1 for i, line in enumerate(text.lstrip("\ufeff").replace("\r\n", "\n")
                                                 .replace("\r", "\n").split("\n"))
                  if line.strip() and not line.strip().startswith("#")]
    assert [b.lines(i) for b in batches for i in range(len(b))] == file_lines
    assert [lines.lines(i) for i in range(len(lines))] == file_lines


def test_a_topic_that_comes_back_is_named_with_its_line(tmp_path):
    path = _write(tmp_path, "1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n\n1 Q0 b 2 0.5 t\n")
    state = SimpleNamespace(n_rows=0, tag="")
    with pytest.raises(Interleaved) as info:
        list(iter_topic_batches(path, 14, set(), state))
    assert (info.value.topic, info.value.line) == ("1", 4)


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
@pytest.mark.parametrize("chunk", [None, 10])
def test_compressed_runs_and_qrels(tmp_path, compress, chunk):
    text = (DATA / "results.test").read_bytes()
    path = _write(tmp_path, compress(text), "run.any")
    batches, tag = _new_run(path, chunk)
    assert tag == read_run(DATA / "results.test").name
    assert sum(len(b) for b in batches) == len(read_run(DATA / "results.test"))
    qrels = read_qrels_file(_write(tmp_path, compress((DATA / "qrels.test").read_bytes()),
                                   "q.any"))
    assert len(qrels) == len(read_qrels(DATA / "qrels.test"))
    path = _write(tmp_path, compress(text)[:-12], "cut.any")
    assert "corrupt compressed data" in _message(lambda: _new_run(path, chunk))


def test_a_line_longer_than_the_blocks_and_long_ids(tmp_path):
    long_doc = "x" * 100_000
    path = _write(tmp_path, f"1 Q0 {long_doc} 1 1 t\n1 Q0 {long_doc}y 2 1 t\n2 Q0 e 1 0 t\n")
    state = SimpleNamespace(n_rows=0, tag="")
    batches = list(iter_topic_batches(path, 64, set(), state))
    assert [b.doc(i) for b in batches for i in range(len(b))] == [long_doc, long_doc + "y",
                                                                  "e"]


# ----------------------------------------------------------------- the join


def _joined_values(qrels_path, run_path, ties, hash_mask=(1 << 64) - 1, max_docs=None,
                   **conv):
    """Per-query values of the compiled path (in file order and in trec_eval's order) and
    of the pyarrow path."""
    metrics = ["ndcg@10", "ap", "rr", "p@5", "ndcg"]
    qrels = read_qrels_file(qrels_path, hash_mask=hash_mask)
    rows, _, _ = read_run_whole(run_path, hash_mask=hash_mask)
    out = []
    for in_order in (False, True):
        j = join_batch(qrels, rows, max_docs=max_docs, in_order=in_order,
                       float32=conv.get("score_precision") == "float32")
        if not len(j):
            out.append(None)
            continue
        res = evaluate(j.y_true, j.y_score, j.code, doc_id=j.tiekey, retrieved=j.retrieved,
                       metrics=metrics, ties=ties, gain="linear", idcg="pool", **conv)
        out.append({m: res[m].per_query for m in metrics})
        assert j.topics.tolist() == sorted(j.topics.tolist())
    aligned = align_run_qrels(read_qrels(qrels_path), read_run(run_path), max_docs=max_docs,
                              score_precision=conv.get("score_precision", "float64"))
    if not len(aligned):
        return [*out, None]
    res = evaluate(**aligned.as_evaluate_kwargs(), metrics=metrics, ties=ties, gain="linear",
                   idcg="pool", **conv)
    out.append({m: res[m].per_query for m in metrics})
    return out


@pytest.mark.parametrize("hash_mask", [(1 << 64) - 1, 0, 1])
@pytest.mark.parametrize("max_docs", [None, 7])
def test_join_equals_the_pyarrow_join_on_trec_eval_files(hash_mask, max_docs):
    a, b, c = _joined_values(DATA / "qrels.test", DATA / "results.test", "docid",
                             hash_mask=hash_mask, max_docs=max_docs)
    np.testing.assert_equal(a, c)
    np.testing.assert_equal(b, c)


_IDS = st.text(alphabet="ab\u00e9\U0001f600_9", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10", "\u00e9"]), _IDS,
                          st.sampled_from([0.5, 1.0, 1.0000001, 2.0, -3.0])),
                min_size=1, max_size=60, unique_by=lambda r: (r[0], r[1])),
       st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3", "\u00e9"]), _IDS,
                          st.integers(-1, 3)),
                min_size=1, max_size=40, unique_by=lambda r: (r[0], r[1])),
       st.sampled_from([(1 << 64) - 1, 0]),
       st.sampled_from([{"ties": "docid"}, {"ties": "pessimistic"},
                        {"ties": "docid", "score_precision": "float32"}]))
def test_join_equals_the_pyarrow_join(tmp_path_factory, run, judged, hash_mask, conv):
    folder = tmp_path_factory.mktemp("j")
    prefix = "msmarco_doc_"  # a prefix every id shares: the sort keys skip it
    run_path = _write(folder, "".join(f"{q} Q0 {prefix}{d} {i} {s!r} t\n"
                                      for i, (q, d, s) in enumerate(run)))
    qrels_path = _write(folder, "".join(f"{q} 0 {prefix}{d} {r}\n" for q, d, r in judged),
                        "qrels.txt")
    conv = dict(conv)
    a, b, c = _joined_values(qrels_path, run_path, conv.pop("ties"), hash_mask=hash_mask,
                             **conv)
    np.testing.assert_equal(a, c)  # bit for bit, NaN (no relevant document) included
    np.testing.assert_equal(b, c)


def test_colliding_hashes_are_told_apart_by_their_bytes(tmp_path):
    run = _write(tmp_path, "1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n1 Q0 c 3 1 t\n")
    batches, _ = _new_run(run, hash_mask=0)  # every hash equal: no repeat
    assert [b.doc(i) for b in batches for i in range(3)] == ["a", "b", "c"]
    run = _write(tmp_path, "1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n1 Q0 a 3 1 t\n")
    assert "line 3: document 'a' is retrieved twice for query '1' (first on line 1)" in \
        _message(lambda: _new_run(run, hash_mask=0))


def test_trec_order_breaks_ties_by_docno_bytes(tmp_path):
    # ids that share their first 8 bytes after the common prefix, and prefixes of each
    # other: only the whole ids order them
    docs = ["pfx_abcdefghZ", "pfx_abcdefghA", "pfx_abcdefgh", "pfx_abcdefghAA", "pfx_\u00e9",
            "pfx_z", "pfx_", "pfx_abcdefgh\U0001f600", "pfx_ab", "pfx_ab\x01"]
    # (the 8-byte keys are read a word at a time: what follows an id, here a blank, must
    # not order "pfx_ab" after "pfx_ab\x01")
    run = _write(tmp_path, "".join(f"1 Q0 {d} {i} 1.5 t\n" for i, d in enumerate(docs)))
    qrels = read_qrels_file(_write(tmp_path, "1 0 pfx_z 1\n", "q"))
    rows, _, _ = read_run_whole(run)
    j = join_batch(qrels, rows)  # rows in file order, a tie key each
    got = [rows.doc(int(r)) for r in np.argsort(-j.tiekey[j.retrieved])]
    assert got == sorted(docs, key=lambda d: d.encode(), reverse=True)
    j = join_batch(qrels, rows, in_order=True)  # rows in that order
    assert j.tiekey[j.retrieved].tolist() == list(range(len(docs), 0, -1))
    assert j.y_true[j.retrieved].tolist() == [float(d == "pfx_z") for d in got]
    for judged in docs:  # without doc_rows only the judged row's place is counted
        qrels = read_qrels_file(_write(tmp_path, f"1 0 {judged} 1\n", "q"))
        j = join_batch(qrels, rows, in_order=True, doc_rows=False)
        assert j.y_true[j.retrieved].tolist() == [float(d == judged) for d in got]


_JOINED = ("code", "tiekey", "y_true", "y_score", "retrieved", "doc_rows", "candidates")


def _assert_same_join(a, b, names=_JOINED):
    """The outputs of two joins bit for bit (-0.0 is not 0.0)."""
    for name in names:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), name


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), _IDS,
                          st.sampled_from([-1.0, 0.0, -0.0, 0.5, 1.0, 1.00000001, 1.0000001,
                                           2.0])),
                min_size=1, max_size=80, unique_by=lambda r: (r[0], r[1])),
       st.lists(st.integers(0, 79), max_size=2), st.booleans(), st.booleans(),
       st.sampled_from([None, 3]))
def test_a_topic_in_score_order_has_only_its_ties_sorted(tmp_path_factory, rows, swaps,
                                                          f32, in_order, max_docs):
    # runs are usually written in score order: such a topic has only its runs of tied scores
    # sorted by docno; one out of order (a swap) is sorted whole. Both give the rows, tie
    # keys and labels of the merge sort of every topic, and the pyarrow path's values.
    # Without doc_rows, of a run of tied scores only the judged rows are placed: the same
    # outputs (0.0 and -0.0, 1.0 and 1.00000001 as float32: tied scores of other bits)
    rows = sorted(rows, key=lambda r: -r[2])  # score order, the ties in any order
    for i in swaps:
        if i + 1 < len(rows):
            rows[i], rows[i + 1] = rows[i + 1], rows[i]
    folder = tmp_path_factory.mktemp("s")
    prefix = "doc_"
    run_path = _write(folder, "".join(f"{q} Q0 {prefix}{d} {i} {s!r} t\n"
                                      for i, (q, d, s) in enumerate(rows)))
    qrels_path = _write(folder, "".join(f"{q} 0 {prefix}{d} {i % 3}\n" for i, (q, d, _)
                                        in enumerate(rows[::2])) + "q1 0 other 1\n",
                        "qrels.txt")
    qrels = read_qrels_file(qrels_path)
    run, _, _ = read_run_whole(run_path)
    fast, merge = (join_batch(qrels, run, float32=f32, in_order=in_order,
                              max_docs=max_docs, ties_only=ties_only)
                   for ties_only in (True, False))
    _assert_same_join(fast, merge)
    bare = join_batch(qrels, run, float32=f32, in_order=in_order, max_docs=max_docs,
                      doc_rows=False)  # the same rows without their run rows
    _assert_same_join(bare, fast, [n for n in _JOINED if n != "doc_rows"])
    assert not bare.doc_rows.size
    conv = {"score_precision": "float32"} if f32 else {}
    a, b, c = _joined_values(qrels_path, run_path, "docid", max_docs=max_docs, **conv)
    np.testing.assert_equal(a, c)
    np.testing.assert_equal(b, c)


@pytest.mark.parametrize("n_judged", [0, 1, 20, 40, 100])
@pytest.mark.parametrize(("tied", "f32"), [(["2.0"], False), (["0.0", "-0.0"], False),
                                           (["1.0", "1.00000001"], True)])
def test_a_long_run_of_ties_places_its_judged_rows(tmp_path, n_judged, tied, f32):
    # a hundred tied rows in any docno order: few judged rows are placed, many sorted;
    # tied scores of other bits (0.0 and -0.0; 1.0 and 1.00000001 as float32) are sorted
    rng = np.random.default_rng(n_judged)
    docs = [f"d{int(v)}" for v in rng.permutation(100)]
    scores = [tied[i % len(tied)] for i in range(100)] + ["-5"]
    run_path = _write(tmp_path, "".join(f"q Q0 {d} {i} {s} t\n"
                                        for i, (d, s) in enumerate(zip([*docs, "last"],
                                                                       scores))))
    qrels_path = _write(tmp_path, "".join(f"q 0 {d} {1 + i % 3}\n"
                                          for i, d in enumerate(docs[:n_judged]))
                        + "q 0 last 0\n", "qrels.txt")
    qrels = read_qrels_file(qrels_path)
    run, _, _ = read_run_whole(run_path)
    bare = join_batch(qrels, run, in_order=True, doc_rows=False, float32=f32)
    full = join_batch(qrels, run, in_order=True, float32=f32)
    _assert_same_join(bare, full, [n for n in _JOINED if n != "doc_rows"])
    order = sorted(docs, key=str.encode, reverse=True)
    label = {d: float(1 + i % 3) for i, d in enumerate(docs[:n_judged])}
    assert bare.y_true[:100].tolist() == [label.get(d, 0.0) for d in order]


@pytest.mark.parametrize("hash_mask", [(1 << 64) - 1, 0])
@pytest.mark.parametrize("doc", ["a", "z"])  # judged, not judged
@pytest.mark.parametrize("topic", ["1", "9"])  # judged, not judged
@pytest.mark.parametrize("max_docs", [None, 1])
@pytest.mark.parametrize("chunk", [None, 1 << 20])
def test_the_join_finds_a_repeated_document(tmp_path, hash_mask, doc, topic, max_docs,
                                            chunk):
    # the join looks each document up once, in a table of the topic's judgements and its
    # documents met so far: a repeat of a judged document, of another one, in a topic
    # without judgements, after the -M cut, with every hash equal
    qrels = read_qrels_file(_write(tmp_path, "1 0 a 2\n1 0 b 1\n2 0 a 1\n", "q"),
                            hash_mask=hash_mask)
    run = _write(tmp_path, f"0 Q0 {doc} 1 5 t\n{topic} Q0 b 1 3 t\n{topic} Q0 {doc} 2 2 t\n"
                           f"{topic} Q0 c 3 1 t\n{topic} Q0 {doc} 4 0 t\n2 Q0 {doc} 1 1 t\n")
    if chunk is None:
        batches = [read_run_whole(run, hash_mask=hash_mask)[0]]
    else:
        state = SimpleNamespace(n_rows=0, tag="")
        batches = list(iter_topic_batches(run, chunk, set(), state, hash_mask=hash_mask))
    with pytest.raises(InputError, match=f"line 5: document '{doc}' is retrieved twice for "
                                         f"query '{topic}' \\(first on line 3\\)"):
        for b in batches:
            join_batch(qrels, b, max_docs=max_docs, in_order=True)


def _in_anonymous_map(a):
    import mmap

    while a is not None and not isinstance(a, mmap.mmap):
        a = getattr(a, "base", None) if not isinstance(a, memoryview) else a.obj
    return a is not None


def test_large_arrays_live_in_anonymous_maps(tmp_path):
    # the reader's and the join's arrays are not NumPy's (which asks for huge pages)
    a = skrank.io._runfile._empty(5, np.float64)
    assert a.shape == (5,) and a.dtype == np.float64 and a.flags.writeable
    a[:] = 1.5
    assert a.tolist() == [1.5] * 5 and skrank.io._runfile._empty(0, np.int32).shape == (0,)
    qrels = read_qrels_file(DATA / "qrels.test")
    rows, _, _ = read_run_whole(DATA / "results.test")
    state = SimpleNamespace(n_rows=0, tag="")
    batch = next(iter_topic_batches(DATA / "results.test", 4000, set(), state))
    j = join_batch(qrels, rows)
    for arr in (qrels.dstart, qrels.rel, rows.dstart, rows.score, batch.qcode, batch.score,
                j.code, j.y_true, j.y_score, j.tiekey, j.retrieved, j.doc_rows):
        assert _in_anonymous_map(arr)


def test_large_groupings_live_in_anonymous_maps(monkeypatch):
    # the qrels' and a run's grouping: NumPy's arrays below 4 MiB, an anonymous map above
    from skrank.io._runreader import group_rows

    codes = np.array([2, 0, 1, 0, 2, 2], dtype=np.int32)
    order, bounds = group_rows(codes, 3)
    for empty in (skrank.io._runfile._empty, skrank.io._runfile._large):
        o, b = group_rows(codes, 3, empty=empty)
        assert o.dtype == order.dtype and o.tolist() == order.tolist() == [1, 3, 2, 0, 4, 5]
        assert b.tolist() == bounds.tolist() == [0, 2, 3, 6]
    assert _in_anonymous_map(group_rows(codes, 3, empty=skrank.io._runfile._empty)[0])
    with pytest.raises(ValueError, match="another array"):
        group_rows(codes, 3, empty=lambda n, dtype: np.empty(n + 1, dtype=dtype))
    assert not _in_anonymous_map(skrank.io._runfile._large(10, np.int32))
    assert _in_anonymous_map(skrank.io._runfile._large(1 << 20, np.int32))
    monkeypatch.setattr(skrank.io._runfile, "_HUGE_BYTES", 16)
    qrels = read_qrels_file(DATA / "qrels.test")
    rows, _, _ = read_run_whole(DATA / "results.test")
    assert _in_anonymous_map(qrels.order) and _in_anonymous_map(rows.grouped()[0])


def test_parse_arrays_go_back_to_the_reader_once_joined(monkeypatch):
    # the reader parses its next blocks into the arrays of batches already joined
    # (recycle): fewer new arrays, and the batches of reading without it
    made = []
    empty_rows = skrank.io._runfile._empty_rows
    monkeypatch.setattr(skrank.io._runfile, "_empty_rows",
                        lambda *a: made.append(1) or empty_rows(*a))
    qrels = read_qrels_file(DATA / "qrels.test")

    def batches(recycle):
        made.clear()
        out = []
        state = SimpleNamespace(n_rows=0, tag="")
        for b in iter_topic_batches(DATA / "results.test", 1500, set(), state):
            out.append(join_batch(qrels, b))
            if recycle:
                b.recycle()
                assert b.arrays is None and b.pool is None
        return out, len(made)

    plain, n_plain = batches(False)
    got, n_got = batches(True)
    assert len(got) == len(plain) >= 3 and n_got < n_plain
    for a, b in zip(got, plain):
        _assert_same_join(a, b)
    pool = skrank.io._runfile._Pool(most=1)
    small = pool.take(10)
    pool.give(small)
    assert pool.take(5) is small  # large enough: given back
    pool.give(small)
    assert pool.take(100)[0].shape[0] >= 100  # too small: new arrays


def test_join_buffers_are_reused_and_give_the_same_rows():
    qrels = read_qrels_file(DATA / "qrels.test")
    rows, _, _ = read_run_whole(DATA / "results.test")
    order, bounds = rows.grouped()
    buffers = {}
    topics = np.flatnonzero(np.diff(bounds))
    first = join_batch(qrels, rows, grouped=(order, bounds), topics=topics, buffers=buffers)
    kept = {name: getattr(first, name).copy() for name in _JOINED}
    again = join_batch(qrels, rows, grouped=(order, bounds), topics=topics[:3],
                       buffers=buffers)
    assert np.shares_memory(again.y_true, first.y_true)  # the same arrays, written again
    fresh = join_batch(qrels, rows, grouped=(order, bounds), topics=topics[:3])
    _assert_same_join(again, fresh)
    whole = join_batch(qrels, rows, grouped=(order, bounds), topics=topics)
    _assert_same_join(SimpleNamespace(**kept), whole)


def test_extra_topics_and_negative_labels(tmp_path):
    qrels = read_qrels_file(_write(tmp_path, "1 0 a -1\n1 0 b 2\n2 0 c 1\n2 0 d -2\n", "q"))
    j = join_batch(qrels, None, extra_topics=np.array([0, 1]))
    assert j.topics.tolist() == ["1", "2"]
    assert j.y_true.tolist() == [0, 2, 1, 0] and j.n_negative == 2
    assert not j.retrieved.any() and j.candidates.tolist() == [0, 0]


# ----------------------------------------------------------------- the reading thread


def test_prefetched_gives_the_items_and_raises_their_error():
    def items():
        yield 1
        yield 2
        raise InputError("bad line")

    got = []
    with pytest.raises(InputError, match="bad line"):
        for x in prefetched(items()):
            got.append(x)
    assert got == [1, 2]


def _numbers(closed: list[bool]):
    """0 to 999; ``closed`` gets True when the generator is closed."""
    try:
        yield from range(1000)
    finally:
        closed.append(True)


def test_prefetched_stops_when_the_caller_stops():
    closed: list[bool] = []
    for x in prefetched(_numbers(closed)):
        if x == 3:
            break
    assert closed == [True]


def test_prefetched_reads_ahead():
    # with ahead=3 the thread makes the 4th item before the caller takes the first (the
    # reading goes on while the join waits for the qrels)
    import threading

    fourth = threading.Event()

    def items():
        for i in range(6):
            if i == 3:
                fourth.set()
            yield i

    got = prefetched(items(), ahead=3)
    assert next(got) == 0  # starts the thread
    assert fourth.wait(10)
    assert list(got) == [1, 2, 3, 4, 5]
    fourth.clear()
    got = prefetched(items(), ahead=1)
    assert next(got) == 0
    assert not fourth.wait(0.2)  # one item waiting, one being made: not the 4th
    assert list(got) == [1, 2, 3, 4, 5]


def test_prefetch_reads_before_the_first_item_is_asked_for():
    # Prefetch starts its thread at once (the command starts a run's reading with the
    # qrels'); prefetched only at the first item
    import threading

    made = threading.Event()

    def items():
        made.set()
        yield from range(5)

    started = Prefetch(items(), ahead=2)
    try:
        assert made.wait(10)
        assert list(started) == [0, 1, 2, 3, 4]
        assert list(started) == []
    finally:
        started.close()
    made.clear()
    lazy = prefetched(items(), ahead=2)
    assert not made.wait(0.2)
    assert list(lazy) == [0, 1, 2, 3, 4]


def test_prefetch_close_stops_a_reading_never_taken():
    closed: list[bool] = []
    started = Prefetch(_numbers(closed), ahead=1)
    started.close()
    assert closed == [True]
    assert not started._thread.is_alive()
    with pytest.raises(StopIteration):
        next(started)


def test_prefetch_raises_the_error_of_the_items_in_order():
    def items():
        yield 1
        raise InputError("bad line")

    started = Prefetch(items())
    try:
        assert next(started) == 1
        with pytest.raises(InputError, match="bad line"):
            next(started)
        with pytest.raises(StopIteration):
            next(started)
    finally:
        started.close()


def test_ordered_map_gives_the_results_in_the_order_of_the_items():
    # item 0 finishes only after item 1 has: its result still comes first
    import threading

    second_done = threading.Event()

    def work(x):
        if x == 0:
            assert second_done.wait(10)
        if x == 1:
            second_done.set()
        return x * 10

    assert list(ordered_map(work, iter(range(7)))) == [0, 10, 20, 30, 40, 50, 60]


def test_ordered_map_raises_in_the_order_of_the_items():
    def work(x):
        if x in (2, 3):
            raise InputError(f"bad batch {x}")
        return x

    got = []
    with pytest.raises(InputError, match="bad batch 2"):
        for y in ordered_map(work, iter(range(6))):
            got.append(y)
    assert got == [0, 1]

    def items():  # the reader's error comes after the results of the items before it
        yield from range(3)
        raise InputError("bad line")

    got = []
    with pytest.raises(InputError, match="bad line"):
        for y in ordered_map(lambda x: x, items()):
            got.append(y)
    assert got == [0, 1, 2]
    with pytest.raises(InputError, match="bad batch 2"):  # an item's error first
        list(ordered_map(work, iter([0, 1, 2, 4])))


def test_ordered_map_stops_when_the_caller_stops():
    started = []

    def work(x):
        started.append(x)
        return x

    for y in ordered_map(work, iter(range(1000)), workers=2):
        if y == 3:
            break
    assert max(started) <= 6  # at most workers + 1 items in flight


@pytest.mark.parametrize("chunk", [1, 9, 1 << 20])
def test_qrels_read_in_chunks(monkeypatch, tmp_path, chunk):
    text = (DATA / "qrels.test").read_text()
    path = _write(tmp_path, "\ufeff" + text.replace("\n", "\r\n"), "qrels.txt")
    monkeypatch.setattr(skrank.io._runfile, "_WHOLE_CHUNK", chunk)
    qrels = read_qrels_file(path)
    ref = read_qrels(path)
    rows = range(len(qrels))  # file order
    topic_of_row = np.repeat(np.arange(qrels.n_topics), np.diff(qrels.bounds))
    topic = np.empty(len(qrels), dtype=np.int64)
    topic[qrels.order] = topic_of_row
    assert qrels.topics[topic].tolist() == ref.qid.tolist()
    assert [qrels.doc(int(r)) for r in rows] == ref.doc_id.tolist()
    assert qrels.rel.tolist() == ref.rel.tolist()
    assert [qrels.lines(int(r)) for r in (0, len(qrels) - 1)] == [1, len(ref)]


def test_pages_given_back_are_read_again(tmp_path):
    # a mapped file's pages given back (after each batch) are read again where the join
    # needs the ids: the same rows and the same join as before
    qrels = read_qrels_file(DATA / "qrels.test")
    rows, _, n = read_run_whole(DATA / "results.test")
    before = join_batch(qrels, rows)
    docs = [rows.doc(i) for i in range(n)]
    rows.release()
    qrels.release()
    assert [rows.doc(i) for i in range(n)] == docs
    after = join_batch(qrels, rows)
    np.testing.assert_array_equal(after.y_true, before.y_true)
    np.testing.assert_array_equal(after.tiekey, before.tiekey)
    state = SimpleNamespace(n_rows=0, tag="")
    batches = []
    for batch in iter_topic_batches(DATA / "results.test", 4096, set(), state):
        batch.release()  # the pages before this window
        batches.append(batch)
    assert batches[0].window and len(batches) > 1
    assert [b.doc(i) for b in batches for i in range(len(b))] == docs


def _chunk_end_reference(buf, start, size, step):
    """Where a chunk ends, by its definition: after the last line end (LF, CRLF, CR) that
    starts before ``start + step``, else after the first one from there, else at the end;
    a CRLF is never cut."""
    stop = start + step
    if stop >= size:
        return size
    ends = [i for i in range(start, size) if buf[i] == 10 or
            (buf[i] == 13 and not (i + 1 < size and buf[i + 1] == 10))]
    before = [i for i in ends if i < stop or (buf[i] == 10 and i == stop and buf[i - 1] == 13
                                              and i - 1 >= start)]
    if before:
        return before[-1] + 1
    return ends[0] + 1 if ends else size


@given(st.lists(st.sampled_from(["a", "bc", "\r", "\n", "\r\n"]), max_size=16))
def test_chunk_end_is_after_the_last_line_end_before_the_step(pieces):
    # the end of a chunk, found by scanning back from the step for LF and (only after the
    # last LF) for CR, against its definition, from every start and for every step
    buf = "".join(pieces).encode()
    for start in range(len(buf) + 1):
        for step in range(1, len(buf) - start + 2):
            assert skrank.io._runfile._chunk_end(buf, start, len(buf), step) == \
                _chunk_end_reference(buf, start, len(buf), step), (buf, start, step)


_RUN_LINES = ["1 Q0 a 1 1.5 t\n", "1 Q0 caf\u00e9 2 1 t\r\n",
              "\u65e5\u672c Q0 d\u00e9j\u00e0 3 -2 x\r", "2 Q0 b 4 0.25 t2\r\n",
              "# a comment Q0\r\n", "\n", " \t\r\n",
              "3\tQ0\tx\t5\t1e-3\tz\n"]
_QRELS_LINES = ["1 0 a 1\n", "1 0 caf\u00e9 2\r\n", "\u65e5\u672c 0 d\u00e9j\u00e0 -1\r",
                "2 0 b 0\r\n", "# a comment 0\r\n", "\n", " \t\r\n", "3\t0\tx\t3\n"]


@settings(max_examples=300, deadline=None)
@given(qrels=st.booleans(), picks=st.lists(st.integers(0, 7), max_size=40),
       bom=st.booleans(), unterminated=st.booleans(), bad=st.none() | st.integers(0, 40),
       chunk=st.sampled_from([1, 24, 1 << 20]))
def test_two_halves_in_two_threads_parse_as_one_pass(tmp_path_factory, qrels, picks, bom,
                                                     unterminated, bad, chunk):
    # a file read whole is parsed in two halves at once, cut at a line end near its middle
    # (a CRLF kept whole; never in a multi-byte id): the same rows, topic codes, tag and
    # errors (with their line) as one pass, whatever the lines around the cut are (blank
    # and comment lines before it move the second half's rows down)
    from unittest import mock

    pool = _QRELS_LINES if qrels else _RUN_LINES
    lines = [pool[i] for i in picks]
    if bad is not None:
        lines.insert(min(bad, len(lines)), "9 0 z x\n" if qrels else "9 Q0 z 1 x t\n")
    text = ("\ufeff" if bom else "") + "".join(lines)
    if unterminated and text.endswith("\n"):
        text = text[:-1]
    path = _write(tmp_path_factory.mktemp("halves"), text)

    def parse(split):
        with mock.patch.object(skrank.io._runfile, "_SPLIT_BYTES", split), \
                mock.patch.object(skrank.io._runfile, "_WHOLE_CHUNK", chunk):
            try:
                _, arrays, topics, tag, n = skrank.io._runfile._parse_whole(path, qrels)
            except InputError as exc:
                return str(exc)
            return [a.tolist() for a in arrays], topics, tag, n

    assert parse(0) == parse(1 << 40)


def _doc_hash(buf: bytes, start: int, length: int) -> int:
    """The join's hash of the id ``buf[start:start + length]`` (by ``first_repeat``, which
    writes the hashes of a topic without repeats)."""
    out = np.zeros(1, dtype=np.uint64)
    R.first_repeat(np.frombuffer(buf, dtype=np.uint8), np.array([start], dtype=np.int64),
                   np.array([length], dtype=np.int32), np.zeros(1, dtype=np.int64),
                   np.array([0, 1], dtype=np.int64), np.zeros(1, dtype=np.int64),
                   hashes=out)
    return int(out[0])


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=40), st.integers(0, 20))
def test_an_id_has_one_hash_wherever_it_lies_in_its_buffer(doc, before):
    # ids of up to 16 bytes are hashed from two words read at once, or byte by byte within
    # 16 bytes of the buffer's end: a run's id and a qrels' id must hash alike either way
    middle = _doc_hash(b"x" * before + doc + b" " * 32, before, len(doc))
    end = _doc_hash(b"y" * before + doc, before, len(doc))
    assert middle == end
    if len(doc) > 1:  # other bytes, other hashes (here: one byte changed)
        other = doc[:-1] + bytes([doc[-1] ^ 1])
        assert _doc_hash(other + b" " * 32, 0, len(other)) != middle
