"""Table input read from a pipe, the first bad value of a table named whichever check
refuses it, a header holding a line break, a field larger than the csv module's limit, a
Parquet uint64 label, and the guessed-kind hint kept for lines that do not parse."""

from __future__ import annotations

import bz2
import gzip
import lzma

import numpy as np
import pandas as pd
import pytest

from .conftest import run_skrank

CSV = "qid,label,s\nq1,1,0.5\nq1,0,0.2\nq2,2,0.4\nq2,0,0.9\n"


def _error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one line, no traceback
    assert lines[0].startswith("skrank: error: ")
    return lines[0][len("skrank: error: "):]


def _ndcg(out: str) -> float:
    import re

    return float(re.search(r"NDCG = ([0-9.]+)", out).group(1))


# ------------------------------------------------------------------------------ pipes


@pytest.mark.parametrize("pack", [None, gzip.compress, bz2.compress, lzma.compress])
@pytest.mark.parametrize("sep", [",", "\t"])
def test_a_table_from_a_pipe_is_read_by_its_content(cli, pipe, tmp_path, pack, sep):
    text = CSV.replace(",", sep).encode()
    plain = tmp_path / "t.csv"
    plain.write_text(CSV)
    code, expected, err = cli("eval", "--quiet", "-m", "ndcg", plain)
    assert code == 0, err
    fifo = pipe(pack(text) if pack else text, "t.pipe")
    code, out, err = run_skrank("eval", "--quiet", "--input", "table", "-m", "ndcg", fifo,
                                timeout=60)
    assert code == 0, err
    assert _ndcg(out) == pytest.approx(_ndcg(expected))


def test_a_parquet_table_from_a_pipe(cli, pipe, tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"qid": ["a", "a", "b", "b"], "label": [1, 0, 2, 0],
                  "s": [0.5, 0.2, 0.4, 0.9]}).to_parquet(path)
    code, expected, err = cli("eval", "--quiet", "-m", "ndcg", path)
    assert code == 0, err
    fifo = pipe(path.read_bytes(), "p.pipe")
    code, out, err = run_skrank("eval", "--quiet", "--input", "table", "-m", "ndcg", fifo,
                                timeout=60)
    assert code == 0, err
    assert _ndcg(out) == pytest.approx(_ndcg(expected))


def test_a_compressed_parquet_file_from_a_pipe_is_refused_with_a_hint(pipe, tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"qid": ["a", "a"], "label": [1, 0], "s": [0.5, 0.2]}).to_parquet(path)
    fifo = pipe(gzip.compress(path.read_bytes()), "p.pipe")
    code, _, err = run_skrank("eval", "--input", "table", fifo, timeout=60)
    assert code == 1
    assert err.strip().endswith("It is gzip-compressed: a Parquet file compresses its "
                                "columns itself; decompress it.")


def test_errors_in_a_table_from_a_pipe_name_the_line(pipe):
    text = "qid,label,s\n\nq1,1,0.5\nq1,0,inf\n"  # inf on line 4 (line 2 is blank)
    fifo = pipe(gzip.compress(text.encode()), "t.pipe")
    code, _, err = run_skrank("eval", "--input", "table", fifo, timeout=60)
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        f"skrank: error: {fifo}, line 4: column 's' must hold finite numeric scores; got inf.")
    fifo = pipe(b"qid,label,s\n\nq1,1,0.5\nq1,-1,0.2\n", "u.pipe")
    code, _, err = run_skrank("eval", "--input", "table", fifo, timeout=60)
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        f"skrank: error: {fifo}, line 4: column 'label' must hold non-negative relevance "
        "labels (gain=exp); got -1.")


def test_a_missing_table_or_a_directory_is_named_as_such(cli, tmp_path):
    code, _, err = cli("eval", "--input", "table", tmp_path / "nosuch")
    assert code == 1
    assert _error_line(err) == f"{tmp_path / 'nosuch'}: no such file."
    code, _, err = cli("eval", "--input", "table", tmp_path)
    assert _error_line(err) == f"{tmp_path}: is a directory, not a file."


# ------------------------------------------------------- the first bad value is named


@pytest.mark.parametrize("later", ["inf", "", "x", "NA"])
def test_a_label_the_conventions_refuse_before_one_the_reader_refuses(cli, tmp_path, later):
    path = tmp_path / "first.csv"
    path.write_text(f"qid,label,sys\n1,0,0.1\n1,-1,0.2\n1,1,0.3\n2,{later},0.4\n2,1,0.5\n")
    code, _, err = cli("eval", "-m", "ndcg", path)
    assert code == 1
    assert _error_line(err) == (f"{path}, line 3: column 'label' must hold non-negative "
                                "relevance labels (gain=exp); got -1.")


def test_a_score_the_conventions_refuse_before_one_the_reader_refuses(cli, tmp_path):
    path = tmp_path / "first.csv"
    path.write_text("qid,label,sys\n1,0,0.1\n1,1,1e39\n1,1,0.3\n2,0,inf\n2,1,0.5\n")
    code, _, err = cli("eval", "-m", "ndcg", "--score-precision", "float32", path)
    assert code == 1
    assert _error_line(err).startswith(f"{path}, line 3: column 'sys' must hold scores that "
                                       "fit float32")


def test_the_earliest_row_is_named_across_columns(cli, tmp_path):
    path = tmp_path / "t.csv"
    # the conventions refuse a label on line 5 and a score on line 3
    path.write_text("qid,label,s\nq1,1,0.5\nq1,0,1e39\nq2,1,0.3\nq2,-1,0.2\n")
    code, _, err = cli("eval", "--score-precision", "float32", path)
    assert code == 1
    assert _error_line(err).startswith(f"{path}, line 3: column 's' must hold scores that "
                                       "fit float32")
    # the reader refuses a score on line 3, the conventions a label on line 5
    path.write_text("qid,label,s\nq1,1,0.5\nq1,0,inf\nq2,1,0.3\nq2,-1,0.2\n")
    code, _, err = cli("eval", path)
    assert _error_line(err) == (f"{path}, line 3: column 's' must hold finite numeric "
                                "scores; got inf.")


def test_a_label_the_conventions_refuse_before_a_row_of_more_fields(cli, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("qid,label,s\nq1,1,0.5\nq1,-1,0.2\nq2,1,0.4\nq2,0,0.3,9\n")
    code, _, err = cli("eval", path)
    assert code == 1
    assert _error_line(err) == (f"{path}, line 3: column 'label' must hold non-negative "
                                "relevance labels (gain=exp); got -1.")
    code, _, err = cli("eval", "--gain", "linear", "-m", "ap", path)
    assert _error_line(err) == f"{path}, line 5: 4 fields but the header has 3."


def test_a_parquet_row_the_conventions_refuse_before_a_missing_one(cli, tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"qid": ["a", "a", "b", "b"], "label": [1.0, -1.0, 1.0, np.nan],
                  "s": [0.5, 0.2, 0.4, 0.9]}).to_parquet(path)
    code, _, err = cli("eval", "-m", "ndcg", path)
    assert code == 1
    assert _error_line(err) == (f"{path}, row 1: column 'label' must hold non-negative "
                                "relevance labels (gain=exp); got -1.")


# ------------------------------------------------------------- headers, long fields


def test_a_quoted_header_holding_a_line_break(cli, tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes(b'"q\nid",label,sys\n1,1,0.5\n1,0,0.2\n1,-1,0.1\n')
    code, _, err = cli("eval", "--qid", "q\nid", "-m", "ap", path)
    assert code == 0, err
    code, _, err = cli("eval", "--qid", "q\nid", "-m", "ndcg", path)
    assert code == 1
    assert _error_line(err).startswith(f"{path}, line 5: column 'label'")


@pytest.mark.parametrize("field", ["x" * 131_073, "\r\n" * 100_000])
def test_a_field_over_the_csv_modules_limit(cli, tmp_path, field):
    path = tmp_path / "big_field.csv"
    path.write_text(f'qid,doc,label,s\nq1,"{field}",1,0.5\nq1,d2,-1,0.2\n', newline="")
    line = 3 + field.count("\n")
    code, _, err = cli("eval", "--doc-id", "doc", path)
    assert code == 1
    assert _error_line(err) == (f"{path}, line {line}: column 'label' must hold non-negative "
                                "relevance labels (gain=exp); got -1.")


# ----------------------------------------------------------------------- Parquet uint64


def test_a_parquet_uint64_label_too_large_for_float64_to_hold_exactly(cli, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "p.parquet"
    big = 2**63 + 5
    pq.write_table(pa.table({"qid": ["a", "a", "b", "b"],
                             "label": pa.array([1, 0, 0, big], pa.uint64()),
                             "s": [0.5, 0.2, 0.4, 0.9]}), path)
    text = tmp_path / "p.csv"
    text.write_text(f"qid,label,s\na,1,0.5\na,0,0.2\nb,0,0.4\nb,{big},0.9\n")
    code, out, err = cli("eval", "--quiet", "-m", "ap", path)
    assert code == 0, err
    code, expected, err = cli("eval", "--quiet", "-m", "ap", text)
    assert code == 0, err
    assert out.replace(str(path), "") == expected.replace(str(text), "")
    code, _, err = cli("eval", "-m", "ndcg", path)  # gain=exp refuses it, as a number
    assert code == 1
    assert _error_line(err) == (f"{path}, row 3: column 'label' must hold labels <= 1000 "
                                "with gain='exp' (2**label overflows); got "
                                "9.223372036854776e+18.")


# ------------------------------------------- the hint that the kind was guessed wrong


@pytest.mark.parametrize(("label", "options", "says"), [
    (1001, [], "is above 1000"), (5, ["--gain", "0,1"], "has no gain in the table")])
def test_a_qrels_label_refused_on_line_1_has_no_guess_hint(cli, tmp_path, label, options,
                                                           says):
    qrels = tmp_path / "q"
    qrels.write_text(f"1 0 d1 {label}\n1 0 d2 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 0.5 r\n1 Q0 d2 2 0.2 r\n")
    code, _, err = cli("eval", "-m", "ndcg", *options, qrels, run)
    assert code == 1
    line = _error_line(err)
    assert line.startswith(f"{qrels}, line 1: the relevance label {label} {says}")
    assert "guessed" not in line


def test_a_libsvm_label_refused_on_line_1_has_no_guess_hint(cli, tmp_path):
    data = tmp_path / "d.libsvm"
    data.write_text("5 qid:1 1:1\n0 qid:1 1:2\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.5\n0.2\n")
    code, _, err = cli("eval", "--gain", "0,1", data, scores)
    assert code == 1
    line = _error_line(err)
    assert line.startswith(f"{data}, line 1: the first field (the label) must hold")
    assert "guessed" not in line


def test_a_line_1_that_does_not_parse_keeps_the_hint(cli, tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 d1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 0.5 r\n")
    code, _, err = cli("eval", qrels, run)
    assert code == 1
    assert "(read as trec input, guessed from the files" in _error_line(err)
