"""Errors in the values of a table input (CSV, TSV, Parquet) name the file and the line (the
row of a Parquet file), and say what is allowed and what was given: infinite scores, labels
the conventions refuse, non-numeric columns."""

from __future__ import annotations

import pandas as pd
import pytest

from .conftest import run_skrank


def _error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one line, no traceback
    assert lines[0].startswith("skrank: error: ")
    return lines[0][len("skrank: error: "):]


def _table(tmp_path, labels, scores, name="t.csv"):
    """A table of one query per two rows: ``qid,label,s``."""
    path = tmp_path / name
    rows = [f"q{i // 2},{label},{score}" for i, (label, score) in enumerate(zip(labels, scores))]
    path.write_text("qid,label,s\n" + "\n".join(rows) + "\n")
    return path


# ------------------------------------------------------------------------ infinite scores


@pytest.mark.parametrize(("text", "got"), [("inf", "inf"), ("-inf", "-inf"), ("1e400", "inf")])
def test_an_infinite_score_names_the_line(cli, tmp_path, text, got):
    path = _table(tmp_path, [1, 0, 1, 0], [0.5, 0.2, 0.5, text])
    code, _, err = cli("eval", path)
    assert code == 1
    assert _error_line(err) == (f"{path}, line 5: column 's' must hold finite numeric scores; "
                                f"got {got}.")


def test_an_infinite_score_in_parquet_names_the_row(cli, tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"qid": ["q0", "q0", "q1"], "label": [1, 0, 1],
                  "s": [0.5, float("inf"), 0.1]}).to_parquet(path)
    code, _, err = cli("eval", path)
    assert code == 1
    assert _error_line(err) == (f"{path}, row 1: column 's' must hold finite numeric scores; "
                                "got inf.")


# ------------------------------------------------------------- labels the conventions refuse


def test_a_negative_label_names_the_line(cli, tmp_path):
    path = _table(tmp_path, [1, -1], [0.5, 0.3])
    code, _, err = cli("eval", path)
    assert code == 1
    assert _error_line(err) == (f"{path}, line 3: column 'label' must hold non-negative "
                                "relevance labels (gain=exp); got -1.")
    # linear gain: NDCG still refuses them, the binary metrics take them (as evaluate does)
    code, _, err = cli("eval", path, "--gain", "linear", "-m", "ndcg@10")
    assert code == 1
    line = _error_line(err)
    assert line.startswith(f"{path}, line 3: column 'label' must hold non-negative relevance "
                           "labels (for NDCG;") and line.endswith("; got -1.")
    code, _, err = cli("eval", path, "--gain", "linear", "-m", "ap")
    assert code == 0, err


def test_a_negative_label_in_parquet_names_the_row(cli, tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"qid": ["q0", "q0", "q1"], "label": [1, 0, -2],
                  "s": [0.5, 0.2, 0.1]}).to_parquet(path)
    code, _, err = cli("eval", path)
    assert code == 1
    assert _error_line(err).startswith(f"{path}, row 2: column 'label' must hold non-negative")


@pytest.mark.parametrize("label", ["1001", "1000.5"])
def test_a_label_above_what_gain_exp_takes_names_the_line(cli, tmp_path, label):
    path = _table(tmp_path, [1, label], [0.5, 0.3])
    code, _, err = cli("eval", path)
    assert code == 1
    assert _error_line(err) == (f"{path}, line 3: column 'label' must hold labels <= 1000 with "
                                f"gain='exp' (2**label overflows); got {label}.")
    code, _, err = cli("eval", path, "--gain", "linear")
    assert code == 0, err


def test_a_label_outside_the_gain_table_names_the_line(cli, tmp_path):
    path = _table(tmp_path, [1, 0, 2, 1], [0.5, 0.3, 0.2, 0.1])
    code, _, err = cli("eval", path, "--gain", "0,1")
    assert code == 1
    assert _error_line(err) == (f"{path}, line 4: column 'label' must hold labels 0..1 (the "
                                "gain table has 2 entries); got 2.")


@pytest.mark.parametrize("options", [[], ["--gain", "linear"], ["--gain", "0,1,3"],
                                     ["--preset", "trec_eval"]])
def test_tables_and_qrels_refuse_the_same_large_labels(cli, tmp_path, options):
    # the same judgements as a TREC qrels file and as a table: refused by both or by neither
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b 1001\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    table = tmp_path / "t.csv"
    table.write_text("qid,doc,label,s\n1,a,1,2\n1,b,1001,1\n")
    trec_code, _, trec_err = cli("eval", "-m", "ndcg@10", *options, qrels, run)
    table_code, _, table_err = cli("eval", "-m", "ndcg@10", "--doc-id", "doc", *options, table)
    assert trec_code == table_code, (trec_err, table_err)
    if table_code:
        assert "qrels.txt, line 2:" in _error_line(trec_err)
        assert _error_line(table_err).startswith(f"{table}, line 3: column 'label' must hold")


def test_the_first_refused_label_is_named(cli, tmp_path):
    labels = [1, 0] * 600
    labels[777], labels[901] = 1001, -1  # the label above 1000 comes first
    path = _table(tmp_path, labels, [0.5, 0.1] * 600)
    code, _, err = cli("eval", path)
    assert code == 1
    assert _error_line(err).startswith(f"{path}, line 779: column 'label' must hold labels "
                                       "<= 1000")
    labels[777] = 1
    path = _table(tmp_path, labels, [0.5, 0.1] * 600)
    code, _, err = cli("eval", path)
    assert _error_line(err) == (f"{path}, line 903: column 'label' must hold non-negative "
                                "relevance labels (gain=exp); got -1.")


@pytest.mark.parametrize("gain", [[], ["--gain", "0,1,3"]])
def test_the_first_row_is_named_before_a_fault_checked_earlier(cli, tmp_path, gain):
    # evaluate checks for negative labels before large ones: the large label on the first
    # data row is still the one named
    labels = [5000, 0, 1, -1, 2, 0]
    path = _table(tmp_path, labels, [0.5, 0.1] * 3)
    code, _, err = cli("eval", *gain, path)
    assert code == 1
    assert _error_line(err).startswith(f"{path}, line 2: column 'label' must hold labels ")
    assert _error_line(err).endswith("; got 5000.")


# --------------------------------------- the file's own lines: blank lines, quoted breaks


# a table whose refused label (-1: NDCG under gain=exp takes none) is on line 7, data row 3;
# the old rule (data row + 1) said line 4
_NEGATIVE = (
    "qid,doc,label,s\n"         # line 1
    "\n"                        # line 2: blank
    "q1,d1,1,0.5\n"             # line 3
    'q1,"a document\n'          # line 4: a quoted id over two lines,
    'id",0,0.2\n'               # line 5: one row
    "\n"                        # line 6: blank
    "q1,d3,-1,0.1\n"            # line 7: the refused label
)
_REFUSED = ("column 'label' must hold non-negative relevance labels (gain=exp); got -1.")


def test_a_refused_label_is_named_by_its_line_in_the_file(cli, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(_NEGATIVE)
    code, _, err = cli("eval", "--doc-id", "doc", "-m", "ndcg@10", path)
    assert code == 1
    assert _error_line(err) == f"{path}, line 7: {_REFUSED}"


@pytest.mark.parametrize("compress", ["gzip", "bz2", "xz"])
def test_a_compressed_table_names_the_line_of_its_text(cli, tmp_path, compress):
    import bz2
    import gzip
    import lzma

    pack = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[compress]
    path = tmp_path / "scored"  # named otherwise: the format is told by the text
    path.write_bytes(pack(_NEGATIVE.encode()))
    code, _, err = cli("eval", "--input", "table", "--doc-id", "doc", path)
    assert code == 1
    assert _error_line(err) == f"{path}, line 7: {_REFUSED}"


def test_a_tsv_table_with_crlf_line_ends(cli, tmp_path):
    path = tmp_path / "t.tsv"
    path.write_bytes(_NEGATIVE.replace(",", "\t").replace("\n", "\r\n").encode())
    code, _, err = cli("eval", "--doc-id", "doc", path)
    assert code == 1
    assert _error_line(err) == f"{path}, line 7: {_REFUSED}"


def test_a_score_float32_cannot_hold_after_blank_lines(cli, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("qid,label,s\n\n\nq1,1,0.5\n\nq1,0,1e39\n")  # 1e39 on line 6
    code, _, err = cli("eval", path, "--score-precision", "float32")
    assert code == 1
    assert _error_line(err).startswith(f"{path}, line 6: column 's' must hold scores that fit "
                                       "float32")


def test_a_table_from_a_pipe_names_the_line(pipe):
    # a pipe is read once, its bytes kept: its lines are counted in them
    fifo = pipe(_NEGATIVE.encode(), "t.csv")
    code, _, err = run_skrank("eval", "--doc-id", "doc", fifo, timeout=60)
    assert code == 1
    assert err.strip().splitlines()[-1] == f"skrank: error: {fifo}, line 7: {_REFUSED}"


def test_a_score_float32_cannot_hold_names_the_line(cli, tmp_path):
    path = _table(tmp_path, [1, 0], [0.5, "1e39"])
    code, _, err = cli("eval", path, "--score-precision", "float32")
    assert code == 1
    line = _error_line(err)
    assert line.startswith(f"{path}, line 3: column 's' must hold scores that fit float32")
    assert line.endswith("; got 1e+39.")
    code, _, err = cli("eval", path)
    assert code == 0, err


def test_a_label_float32_cannot_hold_names_the_line(cli, tmp_path):
    path = _table(tmp_path, [1, "1e39"], [0.5, 0.3])
    code, _, err = cli("eval", path, "--gain", "linear", "--label-precision", "float32")
    assert code == 1
    assert _error_line(err) == (f"{path}, line 3: column 'label' must hold labels that fit "
                                "float32 (label_precision='float32', largest 3.40282e+38); "
                                "got 1e+39.")


def test_qrels_keep_their_own_rule_for_negative_labels(cli, tmp_path):
    # TREC input is not checked as a table: a negative label is read as 0, as trec_eval does
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b -1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    code, _, err = cli("eval", qrels, run)
    assert code == 0, err


# ------------------------------------------------------------------- non-numeric columns


def test_the_score_hint_follows_a_score_column_only(cli, tmp_path):
    path = _table(tmp_path, [1, "x"], [0.5, 0.3])
    code, _, err = cli("eval", path)
    assert code == 1
    assert _error_line(err) == (f"{path}, line 3: column 'label' must hold numeric relevance "
                                "labels; got 'x'.")
    path = _table(tmp_path, [1, 0], [0.5, "y"])
    code, _, err = cli("eval", path)
    assert _error_line(err) == (f"{path}, line 3: column 's' must hold numeric scores; got "
                                "'y'. Name the score columns with --score.")
    code, _, err = cli("eval", path, "--score", "s")
    assert _error_line(err) == f"{path}, line 3: column 's' must hold numeric scores; got 'y'."


# ------------------------------------------------------------------ names that say nothing


@pytest.mark.parametrize("sep", [",", "\t"])
@pytest.mark.parametrize("compress", ["gzip", "bz2", "xz", None])
def test_a_table_named_otherwise_is_read_by_its_text(cli, tmp_path, sep, compress):
    import bz2
    import gzip
    import lzma

    text = sep.join(["qid", "doc_id", "label", "s"]) + "\n" + "\n".join(
        sep.join(row) for row in [["q1", "d1", "1", "0.5"], ["q1", "d2", "0", "0.7"],
                                  ["q2", "d1", "2", "0.1"], ["q2", "d3", "0", "0.2"]]) + "\n"
    data = text.encode()
    pack = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}.get(compress)
    path = tmp_path / "scored"  # no suffix
    path.write_bytes(pack(data) if pack else data)
    code, out, err = cli("eval", "--input", "table", "--doc-id", "doc_id", "-m", "rr",
                         "--format", "json", path)
    assert code == 0, err
    assert '"value": 0.5' in out  # q1: RR 1/2, q2: RR 1/2


def test_a_compressed_parquet_file_is_refused_with_a_hint(cli, tmp_path):
    import gzip

    plain = tmp_path / "t.parquet"
    pd.DataFrame({"qid": ["a", "a"], "label": [1, 0], "s": [0.5, 0.2]}).to_parquet(plain)
    packed = tmp_path / "t.parquet.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    code, _, err = cli("eval", packed)
    assert code == 1
    assert _error_line(err).endswith("It is gzip-compressed: a Parquet file compresses its "
                                     "columns itself; decompress it.")


# ---------------------------------------------------------------- LibSVM and scores files


def test_libsvm_labels_and_scores_the_conventions_refuse_name_their_line(cli, tmp_path):
    data = tmp_path / "d.libsvm"
    data.write_text("1 qid:1 1:1\n# a comment\n\n-1 qid:1 1:2\n0 qid:2 1:1\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.5\n0.2\n0.1\n")
    code, _, err = cli("eval", data, scores)
    assert code == 1
    assert _error_line(err) == (f"{data}, line 4: the first field (the label) must hold "
                                "non-negative relevance labels (gain=exp); got -1.")
    code, _, err = cli("eval", data, scores, "--gain", "linear", "-m", "ap")
    assert code == 0, err  # AP under linear gain takes a negative label as not relevant
    data.write_text("1 qid:1 1:1\n1001 qid:1 1:2\n0 qid:2 1:1\n")
    code, _, err = cli("eval", data, scores)
    assert _error_line(err) == (f"{data}, line 2: the first field (the label) must hold "
                                "labels <= 1000 with gain='exp' (2**label overflows); got "
                                "1001.")
    data.write_text("1 qid:1 1:1\n0 qid:1 1:2\n0 qid:2 1:1\n")
    scores.write_text("0.5\n0.2\n1e39\n")
    code, _, err = cli("eval", data, scores, "--score-precision", "float32")
    assert _error_line(err) == (f"{scores}, line 3: the scores file must hold scores that fit "
                                "float32 (score_precision='float32', largest 3.40282e+38); "
                                "got 1e+39.")


def test_a_libsvm_file_from_a_pipe_names_the_line_of_a_refused_label(pipe, tmp_path):
    # read once, its bytes kept (more in test_cli_libsvm_pipes.py)
    fifo = pipe(b"1 qid:1 1:0.5\n\n0 qid:1 1:0.2\n-1 qid:2 1:0.1\n0 qid:2 1:0.3\n", "d.pipe")
    scores = tmp_path / "s.txt"
    scores.write_text("0.5\n0.2\n0.1\n0.3\n")
    code, _, err = run_skrank("eval", "--input", "libsvm", fifo, scores, timeout=60)
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        f"skrank: error: {fifo}, line 4: the first field (the label) must hold "
        "non-negative relevance labels (gain=exp); got -1.")


def test_a_table_whose_format_its_name_does_not_tell(pipe, tmp_path):
    import gzip

    fifo = pipe(b"qid,label,s\nq1,1,0.5\nq1,0,0.2\n", "t.pipe")
    code, _, err = run_skrank("eval", "--input", "table", fifo, timeout=60)
    assert code == 0, err  # a pipe is read once, and told by its content as a file is
    plain = tmp_path / "t.parquet"
    pd.DataFrame({"qid": ["a", "a"], "label": [1, 0], "s": [0.5, 0.2]}).to_parquet(plain)
    packed = tmp_path / "scored"  # a gzipped Parquet file named otherwise
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    code, _, err = run_skrank("eval", "--input", "table", packed, timeout=60)
    assert code == 1
    assert err.strip().endswith("It is gzip-compressed: a Parquet file compresses its "
                                "columns itself; decompress it.")
