"""The lines read_table names in a CSV/TSV table's errors are the file's own: blank lines
(which pyarrow skips) count, a row whose quoted value holds a line break is named by the
line where it starts, and every line end (LF, CR LF, a lone CR) ends one line.

Each table below is written as a list of its lines, so that the expected line is the place
of the bad row in that list (``lines.index(...) + 1``) or is stated in a comment."""

from __future__ import annotations

import bz2
import gzip
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank import InputError
from skrank.io import read_table


def _text(lines: list[str], end: str = "\n") -> str:
    return end.join(lines) + end


BAD = "q2,0,inf"  # the bad row of the tables below: an infinite score
INFINITE = r"column 's' must hold finite numeric scores; got inf\.$"

# header on line 1, two blank lines, the bad row on line 6 (data row 2; the old row + 2
# rule said line 4)
BLANKS = [
    "qid,label,s",
    "q1,1,0.5",
    "",
    "q1,0,0.2",
    "",
    BAD,
]


def test_blank_lines_before_the_bad_row_count(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(_text(BLANKS))
    assert BLANKS.index(BAD) + 1 == 6
    with pytest.raises(InputError, match=rf"t.csv, line 6: {INFINITE}"):
        read_table(path)


def test_blank_lines_at_the_start_and_after_the_header(tmp_path):
    lines = ["", "qid,label,s", "", "", "q1,1,0.5", BAD]  # header on line 2, BAD on line 6
    path = tmp_path / "t.csv"
    path.write_text(_text(lines))
    with pytest.raises(InputError, match=rf"t.csv, line 6: {INFINITE}"):
        read_table(path)


def test_a_quoted_line_break_before_the_bad_row(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(
        "qid,doc,label,s\n"       # line 1
        'q1,"two\n'               # line 2: a document id on two lines,
        'lines",1,0.5\n'          # line 3: one row
        "q1,d2,0,inf\n"           # line 4 (data row 1; the old rule said line 3)
    )
    with pytest.raises(InputError, match=rf"t.csv, line 4: {INFINITE}"):
        read_table(path, doc_id="doc")


def test_a_bad_row_holding_a_quoted_line_break_is_named_by_its_first_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(
        "qid,doc,label,s\n"       # line 1
        "\n"                      # line 2: blank
        'q1,"two\n'               # line 3: the bad row starts here
        'lines",1,inf\n'          # line 4
    )
    with pytest.raises(InputError, match=rf"t.csv, line 3: {INFINITE}"):
        read_table(path, doc_id="doc")


@pytest.mark.parametrize("end", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_crlf_and_cr_line_ends(tmp_path, end):
    # "\r\n" is one line end, as is a lone "\r"; BAD is on line 6 either way
    path = tmp_path / "t.csv"
    path.write_bytes(_text(BLANKS, end).encode())
    with pytest.raises(InputError, match=rf"t.csv, line 6: {INFINITE}"):
        read_table(path)


def test_a_byte_order_mark_is_no_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"\xef\xbb\xbf" + _text(BLANKS).encode())
    with pytest.raises(InputError, match=rf"t.csv, line 6: {INFINITE}"):
        read_table(path)


@pytest.mark.parametrize(("pack", "suffix"), [(gzip.compress, "gz"), (bz2.compress, "bz2")])
def test_a_compressed_table_names_the_line_of_its_text(tmp_path, pack, suffix):
    path = tmp_path / f"t.csv.{suffix}"
    path.write_bytes(pack(_text(BLANKS).encode()))
    with pytest.raises(InputError, match=rf"t.csv.{suffix}, line 6: {INFINITE}"):
        read_table(path)


def test_a_tsv_table(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text(_text([line.replace(",", "\t") for line in BLANKS]))
    with pytest.raises(InputError, match=rf"t.tsv, line 6: {INFINITE}"):
        read_table(path)


def test_a_file_object_names_the_line_too():
    # the reader holds the whole text: a stream's line is known as well as a file's
    with pytest.raises(InputError, match=rf"<stream>, line 6: {INFINITE}"):
        read_table(io.StringIO(_text(BLANKS)), format="csv")
    with pytest.raises(InputError, match=rf"<stream>, line 6: {INFINITE}"):
        read_table(io.BytesIO(gzip.compress(_text(BLANKS).encode())), format="csv")


@pytest.mark.parametrize(("bad", "message"), [
    ("q2,NA,0.1", r"missing value in column 'label' \(1 missing in all\)\.$"),
    ("q2,x,0.1", r"column 'label' must hold numeric relevance labels; got 'x'\.$"),
    ("q2,inf,0.1", r"column 'label' must hold finite numeric relevance labels; got inf\.$"),
    ("q2,1,0.1,9", r"4 fields but the header has 3\.$"),
])
def test_every_kind_of_refused_value(tmp_path, bad, message):
    lines = [*BLANKS[:-1], bad]  # the bad row on line 6
    path = tmp_path / "t.csv"
    path.write_text(_text(lines))
    with pytest.raises(InputError, match=rf"t.csv, line 6: {message}"):
        read_table(path)


def test_a_repeated_document_names_both_lines(tmp_path):
    lines = [
        "qid,doc,label,s",
        "q1,d1,1,0.5",   # line 2: first
        "",
        "q1,d2,0,0.2",
        "",
        "",
        "q1,d1,0,0.1",   # line 7: again (data row 2; the old rule said line 4, first on 2)
    ]
    path = tmp_path / "t.csv"
    path.write_text(_text(lines))
    with pytest.raises(InputError, match=r"t.csv, line 7: document 'd1' appears twice for "
                                         r"query 'q1' \(first on line 2\)\.$"):
        read_table(path, doc_id="doc")


def test_a_row_of_too_many_fields_over_two_lines_is_named_by_its_first(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(
        "qid,label,s\n"           # line 1
        "q1,1,0.5\n"              # line 2
        'q1,0,"0.\n'              # line 3: a row of four fields starts here
        '2",9\n'                  # line 4 (the old scan said line 4, where it ends)
    )
    with pytest.raises(InputError, match=r"t.csv, line 3: 4 fields but the header has 3\."):
        read_table(path)


def test_a_line_of_spaces_is_a_row_not_a_blank_line(tmp_path):
    # pyarrow skips only empty lines: a line of spaces (or tabs) is a row of one field
    path = tmp_path / "t.csv"
    path.write_text(_text(["qid,label,s", "", "q1,1,0.5", "  ", "q1,0,0.2"]))
    with pytest.raises(InputError, match=r"t.csv, line 4: 1 fields but the header has 3\."):
        read_table(path)


def test_parquet_keeps_rows(tmp_path):
    import pandas as pd

    path = tmp_path / "t.parquet"
    pd.DataFrame({"qid": ["a", "a", "b"], "label": [1, 0, 1],
                  "s": [0.5, 0.2, float("inf")]}).to_parquet(path)
    with pytest.raises(InputError, match=rf"t.parquet, row 2: {INFINITE}"):
        read_table(path)


# --------------------------------------------------------- the line, against its own count


_ROW = st.tuples(st.booleans(), st.integers(0, 2))  # (a quoted line break?, blank lines after)


@settings(max_examples=60, deadline=None)
@given(st.lists(_ROW, min_size=1, max_size=6), st.sampled_from(["\n", "\r\n", "\r"]),
       st.integers(0, 2), st.booleans())
def test_the_named_line_is_where_the_bad_row_starts(rows, end, blank_first, tsv):
    # the table is written line by line, counting its lines: the last row is the bad one
    sep = "\t" if tsv else ","
    text = end * blank_first + sep.join(["qid", "doc", "label", "s"]) + end
    line = blank_first + 1  # the header's
    for i, (broken, blanks) in enumerate(rows):
        line += 1
        start = line
        doc = f'"d{i}{end}x"' if broken else f"d{i}"
        line += broken
        score = "inf" if i == len(rows) - 1 else "0.5"
        text += sep.join([f"q{i % 2}", doc, "1", score]) + end + end * blanks
        line += blanks
    with pytest.raises(InputError, match=rf"<stream>, line {start}: {INFINITE}"):
        read_table(io.BytesIO(text.encode()), doc_id="doc", format="tsv" if tsv else "csv")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=["a", ",", '"', " ", "\n", "\r"], max_size=40))
def test_the_records_counted_are_pyarrows(body):
    # the scan that finds the lines sees the records pyarrow sees: as many, and the same
    # numbers of fields
    import pyarrow as pa
    import pyarrow.csv as csv

    from skrank.io._tablelines import records as _records

    data = ("a,b\n" + body).encode()
    rows: list[int] = []

    def invalid(row):
        rows.append(row.actual_columns)
        return "skip"

    try:
        table = csv.read_csv(pa.py_buffer(data), parse_options=csv.ParseOptions(
            invalid_row_handler=invalid), convert_options=csv.ConvertOptions(
            column_types={"a": pa.string(), "b": pa.string()}))
    except pa.ArrowInvalid:
        return  # (pyarrow refuses a few texts outright: nothing to compare)
    records = [len(fields) for _, fields in _records(data, ",")][1:]
    assert len(records) == table.num_rows + len(rows)
    assert sorted(n for n in records if n != 2) == sorted(rows)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", ",", '"', " ", "\n", "\r", "\r\n"]), max_size=60),
       st.integers(1, 6))
def test_plain_lines_split_in_pieces_are_the_same_records(parts, piece):
    # the scan splits plain lines a piece at a time (so that the header costs one piece):
    # pieces of a few bytes give what one piece of the whole text gives, a CR LF never cut
    import skrank.io._tablelines as T

    data = "".join(parts).encode()
    whole = list(T.scan(data, ","))
    saved = T.PIECE
    try:
        T.PIECE = piece
        assert list(T.scan(data, ",")) == whole
    finally:
        T.PIECE = saved
