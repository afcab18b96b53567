"""read_table's value errors: the first bad value of the table named whichever check refuses
it, with the row and what is allowed as attributes; a header holding a quoted line break; a
field over the csv module's size limit; integers too large for float64 to hold exactly."""

from __future__ import annotations

import io

import numpy as np
import pytest

from skrank import InputError
from skrank.io import read_table


def _refused(text: str, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        read_table(io.BytesIO(text.encode()), format="csv", **kwargs)
    return info.value


@pytest.mark.parametrize(("later", "earlier", "message"), [
    ("", "x", "column 'label' must hold numeric relevance labels; got 'x'."),
    ("x", "inf", "column 'label' must hold finite numeric relevance labels; got inf."),
    ("inf", "NA", "missing value in column 'label' (1 missing in all)."),
])
def test_the_first_bad_value_of_a_column_is_named_whichever_check_refuses_it(
        later, earlier, message):
    exc = _refused(f"qid,label,s\nq1,1,0.5\nq1,{earlier},0.2\nq2,{later},0.4\n")
    assert str(exc) == f"<stream>, line 3: {message}"
    assert (exc.parameter, exc.row) == ("label", 1)


def test_the_first_bad_value_of_the_table_is_named_across_columns():
    exc = _refused("qid,label,s\nq1,1,0.5\nq1,0,inf\nq2,x,0.4\n")
    assert str(exc) == "<stream>, line 3: column 's' must hold finite numeric scores; got inf."
    assert (exc.parameter, exc.row, exc.allowed) == ("scores", 1, "finite numeric scores")
    exc = _refused("qid,doc,label,s\nq1,d1,1,0.5\nq1,d1,0,0.2\nq2,d2,x,0.4\n", doc_id="doc")
    assert str(exc).startswith("<stream>, line 3: document 'd1' appears twice for query 'q1'")
    assert (exc.parameter, exc.row) == ("doc_id", 1)
    exc = _refused("qid,label,s\nq1,1,0.5\n,0,0.2\nq2,x,0.4\n")
    assert (exc.parameter, exc.row, exc.allowed) == ("qid", 1, "no missing value")


def test_the_values_before_the_refused_row_come_with_the_error():
    # (for skrank eval, which checks the conventions on them first)
    exc = _refused("qid,label,s\nq1,1,0.5\nq1,-1,0.2\nq2,x,0.4\n")
    labels, scores = exc._read_before
    np.testing.assert_array_equal(labels, [1.0, -1.0])
    np.testing.assert_array_equal(scores["s"], [0.5, 0.2])


def test_a_quoted_header_name_holding_a_line_break(tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes(b'\n"q\nid",label,sys\r\n1,1,0.5\n1,0,inf\n')
    with pytest.raises(InputError, match=r"h\.csv, line 5: column 'sys' must hold finite"):
        read_table(path, qid="q\nid")
    path.write_bytes(b'"q\nid",label,sys\n1,1,0.5\n')
    table = read_table(path, qid="q\nid")
    assert table.systems == ["sys"]


@pytest.mark.parametrize("field", ["x" * 131_073, "\r\n" * 100_000, "\n" * 1000])
def test_a_field_over_the_csv_modules_size_limit_keeps_the_lines(tmp_path, field):
    path = tmp_path / "big_field.csv"
    path.write_text(f'qid,doc,label,s\nq1,"{field}",1,0.5\nq1,d2,1,inf\n', newline="")
    line = 3 + field.count("\n")
    with pytest.raises(InputError, match=rf"big_field\.csv, line {line}: column 's'"):
        read_table(path, doc_id="doc")


def test_a_parquet_uint64_label_is_a_number(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "p.parquet"
    big = 2**63 + 5
    pq.write_table(pa.table({"qid": [1, 1], "label": pa.array([0, big], pa.uint64()),
                             "s": pa.array([2**62 + 1, 3], pa.int64())}), path)
    table = read_table(path)
    np.testing.assert_array_equal(table.y_true, np.array([0, big], dtype=np.uint64)
                                  .astype(np.float64))
    np.testing.assert_array_equal(table.scores["s"], [float(2**62), 3.0])


def test_a_parquet_column_of_no_numbers_is_still_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"qid": [1, 1], "label": ["1", "a"], "s": [0.5, 0.2]}), path)
    with pytest.raises(InputError, match=r"row 1: column 'label' must hold numeric relevance "
                                         r"labels; got 'a'\."):
        read_table(path)


def test_a_row_of_another_number_of_fields_is_named_in_its_turn():
    exc = _refused("qid,label,s\nq1,1,0.5\nq1,0,inf\nq2,1,0.4,9\n")
    assert str(exc) == "<stream>, line 3: column 's' must hold finite numeric scores; got inf."
    exc = _refused("qid,label,s\nq1,1,0.5\nq1,0,0.2,9\nq2,1,inf\n")
    assert str(exc) == "<stream>, line 3: 4 fields but the header has 3."
    assert (exc.parameter, exc.row) == (None, 1)
    labels, scores = exc._read_before
    np.testing.assert_array_equal(labels, [1.0])
    np.testing.assert_array_equal(scores["s"], [0.5])
    exc = _refused("qid,label,s\n\nq1,1\nq2,1,0.4\n")  # the first data row
    assert str(exc) == "<stream>, line 3: 2 fields but the header has 3."
