"""Tests of skrank.io's table, scores and scored-LibSVM readers."""

from __future__ import annotations

import gzip
import io
import sys
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank import InputError, InvalidParameterError
from skrank.datasets import load_lambdarank_example
from skrank.io import ScoreTable, read_scored_libsvm, read_scores, read_table

CSV = (
    "qid,doc,label,bm25,neural,kind\n"
    "007,d1,2,1.5,0.9,nav\n"
    "007,d2,0,2.5,0.1,nav\n"
    "8,d3,1,0.3,0.7,info\n"
)


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "qid": [7, 7, 8], "doc": ["d1", "d2", "d3"], "label": [2, 0, 1],
        "bm25": [1.5, 2.5, 0.3], "neural": [0.9, 0.1, 0.7], "kind": ["nav", "nav", "info"],
    })


def test_csv_round_trip(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(CSV)
    table = read_table(path, doc_id="doc", scores=["neural", "bm25"], extra="kind")
    assert isinstance(table, ScoreTable)
    assert table.qid.tolist() == ["007", "007", "8"]  # ids stay text: leading zeros kept
    assert table.doc_id.tolist() == ["d1", "d2", "d3"]
    np.testing.assert_array_equal(table.y_true, [2, 0, 1])
    assert table.y_true.dtype == np.float64
    assert table.systems == ["neural", "bm25"]  # the order asked for
    np.testing.assert_array_equal(table.scores["bm25"], [1.5, 2.5, 0.3])
    assert table.extra["kind"].tolist() == ["nav", "nav", "info"]
    assert table.source == str(path) and len(table) == 3


def test_tsv_and_compressed(tmp_path):
    path = tmp_path / "t.tsv.gz"
    path.write_bytes(gzip.compress(CSV.replace(",", "\t").encode()))
    table = read_table(path, scores="bm25")
    np.testing.assert_array_equal(table.scores["bm25"], [1.5, 2.5, 0.3])
    assert table.doc_id is None and table.extra == {}


def test_parquet_round_trip(tmp_path):
    path = tmp_path / "t.parquet"
    _frame().to_parquet(path)
    table = read_table(path, doc_id="doc", scores=["bm25", "neural"])
    assert table.qid.dtype.kind == "i"  # Parquet keeps the stored type
    assert table.qid.tolist() == [7, 7, 8]
    np.testing.assert_array_equal(table.scores["neural"], [0.9, 0.1, 0.7])
    assert table.doc_id.tolist() == ["d1", "d2", "d3"]


def test_scores_none_takes_every_other_column(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(CSV)
    table = read_table(path, doc_id="doc", extra=["kind"])
    assert table.systems == ["bm25", "neural"]


def test_scores_none_with_a_text_column_asks_for_names(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(CSV)
    with pytest.raises(InputError, match=r"t.csv, line 2: column 'doc' must hold numeric "
                                         r"scores; got 'd1'. Name the score columns"):
        read_table(path)


def test_unknown_column_lists_available(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(CSV)
    with pytest.raises(
        InvalidParameterError,
        match=r"The 'scores' parameter of read_table must be a column of .*t.csv \(available: "
              r"'qid', 'doc', 'label', 'bm25', 'neural', 'kind'\). Got 'bm52' instead.",
    ):
        read_table(path, scores=["bm25", "bm52"])
    with pytest.raises(InvalidParameterError, match=r"The 'label' parameter .* Got 'rel'"):
        read_table(path, label="rel", scores="bm25")
    with pytest.raises(InvalidParameterError, match=r"The 'qid' parameter .* Got 'query'"):
        read_table(path, qid="query", scores="bm25")


def test_missing_values_report_the_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("qid,label,s\n1,1,0.5\n1,,0.2\n2,0,\n")
    with pytest.raises(InputError, match=r"t.csv, line 3: missing value in column 'label' "
                                         r"\(1 missing in all\)"):
        read_table(path)
    path.write_text("qid,label,s\n1,1,0.5\n1,0,x\n")
    with pytest.raises(InputError, match=r"line 3: column 's' must hold numeric scores; got 'x'"):
        read_table(path, scores="s")
    path.write_text("qid,label,s\n1,1,0.5\n,0,0.1\n")
    with pytest.raises(InputError, match=r"line 3: missing value in column 'qid'"):
        read_table(path)


def test_parquet_rows_are_counted_from_zero(tmp_path):
    path = tmp_path / "t.parquet"
    frame = _frame()
    frame.loc[2, "neural"] = np.nan
    frame.to_parquet(path)
    with pytest.raises(InputError, match=r"t.parquet, row 2: missing value in column 'neural'"):
        read_table(path, scores="neural")


def test_format_parameter(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(CSV.replace(",", "\t"))
    with pytest.raises(InvalidParameterError, match=r"The 'format' parameter of read_table "
                                                    r"must be one of 'csv', 'tsv', 'parquet'"):
        read_table(path)
    assert read_table(path, format="tsv", scores="bm25").systems == ["bm25"]
    with pytest.raises(InvalidParameterError, match=r"'format' .* Got 'xlsx' instead"):
        read_table(path, format="xlsx")
    table = read_table(io.StringIO(CSV), format="csv", scores="bm25")
    assert table.source == "<stream>"


def test_parameter_types(tmp_path):
    with pytest.raises(InvalidParameterError, match=r"The 'qid' parameter .* column name"):
        read_table(io.StringIO(CSV), qid=3, format="csv")
    with pytest.raises(InvalidParameterError, match=r"The 'scores' parameter .* non-empty list"):
        read_table(io.StringIO(CSV), scores=[], format="csv")
    with pytest.raises(InvalidParameterError, match=r"The 'doc_id' parameter"):
        read_table(io.StringIO(CSV), doc_id=1, format="csv")


def test_unreadable_and_missing_files(tmp_path):
    with pytest.raises(InputError, match=r"absent.csv: no such file"):
        read_table(tmp_path / "absent.csv")
    path = tmp_path / "bad.parquet"
    path.write_text("not parquet")
    with pytest.raises(InputError, match=r"bad.parquet: cannot be read as PARQUET"):
        read_table(path)


def test_tables_need_pyarrow_not_pandas(monkeypatch, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(CSV)
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert read_table(path, scores="bm25").systems == ["bm25"]
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"needs pyarrow .*pip install skrank\[pandas\]"):
        read_table(path)


def test_install_hint_without_pyarrow(monkeypatch, tmp_path):
    path = tmp_path / "t.parquet"
    _frame().to_parquet(path)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "fastparquet", None)
    with pytest.raises(ImportError, match=r"needs pyarrow .*pip install skrank\[pandas\]"):
        read_table(path)


# ---------------------------------------------------------------- scores files


def test_read_scores(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("0.5\n-1e3\r\n 7 \n")
    np.testing.assert_array_equal(read_scores(path), [0.5, -1000.0, 7.0])
    path.write_text("0.5\n0.25")  # no final newline
    np.testing.assert_array_equal(read_scores(path), [0.5, 0.25])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0.5\n\n0.2\n", r"s.txt, line 2: is blank"),
        ("0.5\n0.2 0.3\n", r"s.txt, line 2: is not one number: '0.2 0.3'"),
        ("0.5\n0.2\nnan\n", r"s.txt, line 3: the score is NaN"),
        ("", r"s.txt: no scores"),
    ],
)
def test_read_scores_bad_input(tmp_path, text, message):
    path = tmp_path / "s.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_scores(path)


# ---------------------------------------------------------------- LibSVM with scores


def test_scored_libsvm(tmp_path):
    data = tmp_path / "test.svm"
    data.write_text("2 qid:1 1:0.5\n0 qid:1 1:0.1\n1 qid:2 1:0.7\n")
    (tmp_path / "a.txt").write_text("0.8\n0.3\n0.5\n")
    (tmp_path / "b.txt").write_text("0.1\n0.2\n0.3\n")
    table = read_scored_libsvm(data, [tmp_path / "a.txt", tmp_path / "b.txt"])
    assert table.systems == ["a.txt", "b.txt"]
    np.testing.assert_array_equal(table.qid, [1, 1, 2])
    np.testing.assert_array_equal(table.y_true, [2, 0, 1])
    np.testing.assert_array_equal(table.scores["b.txt"], [0.1, 0.2, 0.3])
    named = read_scored_libsvm(data, {"model": tmp_path / "a.txt"})
    assert named.systems == ["model"]
    single = read_scored_libsvm(data, tmp_path / "a.txt")
    assert single.systems == ["a.txt"]
    streams = read_scored_libsvm(data, [io.StringIO("1\n2\n3\n"), io.StringIO("3\n2\n1\n")])
    assert streams.systems == ["score_1", "score_2"]


def test_scored_libsvm_length_mismatch_names_both_files(tmp_path):
    data = tmp_path / "test.svm"
    data.write_text("2 qid:1 1:0.5\n0 qid:1 1:0.1\n1 qid:2 1:0.7\n")
    (tmp_path / "pred.txt").write_text("0.8\n0.3\n")
    with pytest.raises(InputError, match=r"pred.txt has 2 scores but .*test.svm has 3 rows"):
        read_scored_libsvm(data, tmp_path / "pred.txt")


def test_scored_libsvm_query_ids_needed(tmp_path):
    data = tmp_path / "noqid.svm"
    data.write_text("2 1:0.5\n0 1:0.1\n1 1:0.7\n")
    scores = io.StringIO("1\n2\n3\n")
    with pytest.raises(InputError, match=r"noqid.svm has no 'qid:' fields; give group="):
        read_scored_libsvm(data, scores)
    group = tmp_path / "noqid.svm.query"
    group.write_text("2\n1\n")
    table = read_scored_libsvm(data, io.StringIO("1\n2\n3\n"), group=group)
    np.testing.assert_array_equal(table.qid, [0, 0, 1])
    group.write_text("2\n2\n")
    with pytest.raises(InputError, match=r"group sizes add up to 4 rows but .*noqid.svm has 3"):
        read_scored_libsvm(data, io.StringIO("1\n2\n3\n"), group=group)
    group.write_text("2\nx\n")
    with pytest.raises(InputError, match=r"group sizes must be integers"):
        read_scored_libsvm(data, io.StringIO("1\n2\n3\n"), group=group)
    withqid = tmp_path / "q.svm"
    withqid.write_text("2 qid:4 1:0.5\n")
    with pytest.raises(InputError, match=r"has 'qid:' fields and a group file was given"):
        read_scored_libsvm(withqid, io.StringIO("1\n"), group=group)


def test_scored_libsvm_parameters(tmp_path):
    data = io.StringIO("2 qid:1 1:0.5\n")
    with pytest.raises(InvalidParameterError, match=r"The 'scores' parameter of "
                                                    r"read_scored_libsvm must be a scores file"):
        read_scored_libsvm(data, [])
    with pytest.raises(InvalidParameterError, match=r"at least one scores file"):
        read_scored_libsvm(io.StringIO("2 qid:1 1:0.5\n"), {})
    with pytest.raises(InputError, match=r"both named 'x'"):
        read_scored_libsvm(io.StringIO("2 qid:1 1:0.5\n"),
                           [tmp_path / "a" / "x", tmp_path / "b" / "x"])


def test_scored_libsvm_on_the_bundled_lambdarank_data():
    # The bundled test split (gzip LibSVM without qid + .query group file) read through the
    # public reader gives the same labels and query structure as the dataset loader.
    folder = resources.files("skrank.datasets").joinpath("data")
    data = load_lambdarank_example()
    n = data.y_test.shape[0]
    with folder.joinpath("rank.test.gz").open("rb") as fh, \
            folder.joinpath("rank.test.query.gz").open("rb") as gh:
        table = read_scored_libsvm(fh, {"zeros": io.StringIO("0\n" * n)}, group=gh)
    np.testing.assert_array_equal(table.y_true, data.y_test)
    np.testing.assert_array_equal(table.qid + 1000, data.qid_test)


# ---------------------------------------------------------------- the pyarrow readers (issue 12)


def test_a_line_with_another_number_of_fields_names_the_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("qid,label,s\n1,1,0.5\n1,0,0.2,9\n")
    with pytest.raises(InputError, match=r"t.csv, line 3: 4 fields but the header has 3\."):
        read_table(path)


@pytest.mark.parametrize("packing", ["bz2", "xz", "zip", "zstd", "bom"])
def test_compressed_tables_by_their_content(tmp_path, packing):
    import bz2
    import lzma
    import zipfile

    raw = CSV.encode()
    path = tmp_path / "t.csv"
    if packing == "bz2":
        path.write_bytes(bz2.compress(raw))
    elif packing == "xz":
        path.write_bytes(lzma.compress(raw))
    elif packing == "zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("inner.csv", raw)
    elif packing == "zstd":
        import pyarrow as pa

        sink = pa.BufferOutputStream()
        with pa.CompressedOutputStream(sink, "zstd") as out:
            out.write(raw)
        path.write_bytes(sink.getvalue().to_pybytes())
    else:
        path.write_bytes(b"\xef\xbb\xbf" + raw)
    table = read_table(path, doc_id="doc", scores="bm25")
    assert table.qid.tolist() == ["007", "007", "8"]
    np.testing.assert_array_equal(table.scores["bm25"], [1.5, 2.5, 0.3])


def test_parquet_text_scores_and_unread_columns(tmp_path):
    path = tmp_path / "t.parquet"
    frame = _frame()
    frame["blob"] = [[1, 2], [3], []]  # a column nobody asks for is never converted
    frame["text"] = ["1.5", "x", "2"]
    frame.to_parquet(path)
    table = read_table(path, scores=["bm25"])
    assert table.systems == ["bm25"]
    with pytest.raises(InputError, match=r"t.parquet, row 1: column 'text' must hold numeric "
                                         r"scores; got 'x'\."):
        read_table(path, scores=["text"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "007", "a b", "NA", "", "x,y"]),
                          st.sampled_from(["0", "2", "1.0", "", "nan", "-3", "x"]),
                          st.sampled_from(["0.5", "-1e3", "inf", "", "NULL", "1_0", " 2"])),
                min_size=1, max_size=8))
def test_csv_tables_read_as_pandas_read_them(rows):
    # the pandas reader this one replaced is the oracle: the same arrays, or an error for both
    import csv as csv_module

    buffer = io.StringIO()
    writer = csv_module.writer(buffer, lineterminator="\n")
    writer.writerow(["qid", "label", "s"])
    writer.writerows(rows)
    text = buffer.getvalue()
    frame = pd.read_csv(io.StringIO(text), dtype={"qid": str}, keep_default_na=True)
    label = pd.to_numeric(frame["label"], errors="coerce")
    score = pd.to_numeric(frame["s"], errors="coerce")
    fine = not (frame["qid"].isna().any() or label.isna().any() or score.isna().any()
                or np.isinf(score).any())  # infinite scores are refused, with their line
    try:
        table = read_table(io.StringIO(text), format="csv")
    except InputError:
        assert not fine
        return
    assert fine
    assert table.qid.tolist() == frame["qid"].tolist()
    np.testing.assert_array_equal(table.y_true, label.to_numpy(dtype=float))
    np.testing.assert_array_equal(table.scores["s"], score.to_numpy(dtype=float))


# ---------------------------------------------------------------- infinite values, the source


@pytest.mark.parametrize("text, got", [("inf", "inf"), ("-inf", "-inf"), ("1e400", "inf"),
                                       ("-Infinity", "-inf")])
def test_infinite_scores_name_the_line(tmp_path, text, got):
    path = tmp_path / "t.csv"
    path.write_text(f"qid,label,s\nq0,1,0.5\nq0,0,0.2\nq1,1,0.5\nq1,0,{text}\n")
    with pytest.raises(InputError, match=rf"t.csv, line 5: column 's' must hold finite numeric "
                                         rf"scores; got {got}\.$"):
        read_table(path)
    path = tmp_path / "t.tsv"
    path.write_text(f"qid\tlabel\ts\nq0\t1\t{text}\n")
    with pytest.raises(InputError, match=r"t.tsv, line 2: column 's' must hold finite"):
        read_table(path, scores="s")


def test_infinite_scores_in_parquet_name_the_row(tmp_path):
    path = tmp_path / "t.parquet"
    frame = _frame()
    frame.loc[1, "neural"] = -np.inf
    frame.to_parquet(path)
    with pytest.raises(InputError, match=r"t.parquet, row 1: column 'neural' must hold finite "
                                         r"numeric scores; got -inf\.$"):
        read_table(path, scores=["bm25", "neural"])
    assert read_table(path, scores="bm25").systems == ["bm25"]  # a column not asked for


def test_infinite_labels_name_the_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("qid,label,s\nq0,1,0.5\nq0,inf,0.2\n")
    with pytest.raises(InputError, match=r"t.csv, line 3: column 'label' must hold finite "
                                         r"numeric relevance labels; got inf\.$"):
        read_table(path)


def test_the_score_hint_is_for_score_columns_only(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("qid,label,s\nq1,1,0.5\nq1,x,0.3\n")
    with pytest.raises(InputError, match=r"line 3: column 'label' must hold numeric relevance "
                                         r"labels; got 'x'\.$"):
        read_table(path)
    path.write_text("qid,label,s\nq1,1,0.5\nq1,0,y\n")
    with pytest.raises(InputError, match=r"line 3: column 's' must hold numeric scores; got "
                                         r"'y'\. Name the score columns with "
                                         r"scores=\[\.\.\.\]\.$"):
        read_table(path)
    with pytest.raises(InputError, match=r"got 'y'\.$"):  # named: no hint
        read_table(path, scores="s")


@pytest.mark.parametrize("source", [123, b"t.csv", ["t.csv"], None])
def test_the_source_must_be_a_path_or_a_file_object(source):
    with pytest.raises(InvalidParameterError,
                       match=r"^The 'source' parameter of read_table must be a path \(str or "
                             r"os.PathLike\) or a file object\. Got .* instead\.$"):
        read_table(source, format="csv")
    with pytest.raises(InvalidParameterError, match=r"The 'source' parameter"):
        read_table(source)  # before the format is guessed from its name


def test_parquet_needs_a_binary_file_object(tmp_path):
    path = tmp_path / "t.parquet"
    _frame().to_parquet(path)
    with open(path, "rb") as fh:
        assert read_table(fh, format="parquet", scores="bm25").systems == ["bm25"]
    with pytest.raises(InvalidParameterError, match=r"The 'source' parameter of read_table "
                                                    r"must be a path or a binary file object "
                                                    r"for Parquet"):
        read_table(io.StringIO("qid,label\n"), format="parquet")
