"""Odd bytes and huge fields in ``skrank eval``'s inputs give a one-line error naming the
file and the line, never a traceback and never a megabyte of message (a third user
review's findings)."""

from __future__ import annotations

import io

import pytest

from skrank import InputError
from skrank.io import read_table

from .conftest import run_skrank


def _error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:2000]  # one line, no traceback
    assert lines[0].startswith("skrank: error: ")
    return lines[0][len("skrank: error: "):]


@pytest.mark.parametrize(("text", "line"), [
    (b"\xe9qid,label,s\n1,1,0.5\n1,0,0.2\n", 1),  # a column name
    (b"qid,label,s\n1,1,0.5\n\xe9,0,0.2\n", 3),  # a query id
    (b"qid,label,s\n1,1,0.5\n\n2,\xe9,0.2\n", 4),  # a label, after a blank line
    (b"qid,label,s\r\n1,1,0.5\r\n2,0,0.\xe92\r\n", 3),  # a score, CR LF
])
@pytest.mark.parametrize("sep", [",", "\t"])
def test_bytes_that_are_not_utf8_name_their_line(cli, tmp_path, text, line, sep):
    # pyarrow raised UnicodeDecodeError from a column name, or the reader reached its
    # "unreachable" assertion
    text = text.replace(b",", sep.encode())
    path = tmp_path / ("t.csv" if sep == "," else "t.tsv")
    path.write_bytes(text)
    code, _, err = cli("eval", path)
    assert code == 1
    assert _error_line(err) == f"{path}, line {line}: the file is not valid UTF-8 text."
    with pytest.raises(InputError, match=rf"^<stream>, line {line}: the file is not valid"):
        read_table(io.BytesIO(text), format="csv" if sep == "," else "tsv")


def test_bytes_that_are_not_utf8_from_a_pipe(tmp_path, pipe):
    fifo = pipe(b"qid,label,s\n1,1,0.5\n\xe9,0,0.2\n")
    code, _, err = run_skrank("eval", "--input", "table", fifo)
    assert code == 1
    assert _error_line(err) == f"{fifo}, line 3: the file is not valid UTF-8 text."


def test_a_huge_field_is_clipped_in_messages(cli, tmp_path):
    big = "1" + "x" * 2_000_000
    table = tmp_path / "t.csv"
    table.write_text(f"qid,label,s\n1,1,{big}\n")
    run = tmp_path / "run.txt"
    run.write_text(f"1 Q0 d1 1 {big} t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"1 0 d1 {big}\n")
    good_qrels = tmp_path / "good.txt"
    good_qrels.write_text("1 0 d1 1\n")
    clipped = repr("1" + "x" * 59 + "…")
    for args, message in (
            ((table,), f"{table}, line 2: column 's' must hold numeric scores; got {clipped}."),
            ((good_qrels, run), f"{run}, line 1: the score {clipped} is not a number."),
            ((qrels, run), f"{qrels}, line 1: the relevance label {clipped} is not an integer "
                           "(of at most 18 digits)."),
    ):
        code, _, err = cli("eval", *args)
        assert code == 1
        assert _error_line(err).startswith(message.split(" Name the score")[0]), err[:300]
        assert len(err) < 1000


def test_libsvm_messages_clip_a_huge_field_and_write_plain_line_numbers(cli, tmp_path):
    big = "1" + "x" * 2_000_000
    data = tmp_path / "d.svm"
    data.write_text("1 qid:1 1:0.5\n" * 3000 + f"{big} qid:1 1:0.5\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.5\n" * 3001)
    code, _, err = cli("eval", "--input", "libsvm", data, scores)
    assert code == 1
    clipped = repr("1" + "x" * 59 + "…")
    assert _error_line(err) == f"{data}, line 3001: the label {clipped} is not a number."
    # a label the conventions refuse: "line 3001", as sed -n 3001p reads it (not 3,001)
    data.write_text("1 qid:1 1:0.5\n" * 3000 + "1001 qid:1 1:0.5\n")
    code, _, err = cli("eval", "--input", "libsvm", data, scores)
    assert code == 1
    assert _error_line(err).startswith(f"{data}, line 3001: the first field (the label) must "
                                       "hold labels <= 1000")
