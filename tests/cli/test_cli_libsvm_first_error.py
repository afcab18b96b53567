"""The first bad line of a LibSVM file is named, whichever check refuses it: the reader's
(a label or a query id that is not a number, a malformed line, a stray character, ...) or
the evaluation conventions' (a label the gain cannot take), as for tables and TREC files.
Comments and blank lines are counted; a plain file, a gzipped one and a pipe give the
same. Scores files are separate files: the data file, read first, is checked first."""

from __future__ import annotations

import gzip

import pytest

from .conftest import run_skrank

OVER = ("the first field (the label) must hold labels <= 1000 with gain='exp' "
        "(2**label overflows); got 1001.")
# the label 1001 on line 4 (after a comment and a blank line), refused by gain=exp
HEAD = "# c\n1 qid:1 1:0.5\n\n1001 qid:1 1:0.1\n1 qid:2 1:0.3\n"
SCORES = "0.9\n0.1\n0.8\n0.3\n"


def _last_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert lines and lines[-1].startswith("skrank: error: "), err
    return lines[-1][len("skrank: error: "):]


def _eval(cli, tmp_path, data: str, scores: str = SCORES, how: str = "plain",
          pipe=None) -> tuple[int, str, str]:
    """``skrank eval --input libsvm`` of ``data`` (plain, gzipped or from a pipe) and a
    scores file: (exit status, the name of the data file, the error)."""
    raw = data.encode("utf-8")
    score_file = tmp_path / "s.txt"
    score_file.write_text(scores, encoding="utf-8")
    if how == "pipe":
        path = pipe(gzip.compress(raw), "d.pipe")
        code, _, err = run_skrank("eval", "--input", "libsvm", path, score_file, timeout=60)
    else:
        path = tmp_path / ("d.svm.gz" if how == "gzip" else "d.svm")
        path.write_bytes(gzip.compress(raw) if how == "gzip" else raw)
        code, _, err = cli("eval", "--input", "libsvm", path, score_file)
    return code, str(path), _last_error(err)


HOW = ["plain", "gzip", "pipe"]


@pytest.mark.parametrize("how", HOW)
def test_a_refused_label_before_a_label_that_is_not_a_number(cli, pipe, tmp_path, how):
    code, path, err = _eval(cli, tmp_path, HEAD + "x qid:2 1:0.2\n", how=how, pipe=pipe)
    assert code == 1
    assert err == f"{path}, line 4: {OVER}"


@pytest.mark.parametrize("how", HOW)
def test_a_label_that_is_not_a_number_before_a_refused_label(cli, pipe, tmp_path, how):
    # (a stray character after them, which the reader looks for before it parses)
    data = ("# c\n1 qid:1 1:0.5\n\nx qid:1 1:0.1\n1 qid:2 1:0.3\n1001 qid:2 1:0.2\n"
            "1 qid:2 1:\u0663\n")
    code, path, err = _eval(cli, tmp_path, data, how=how, pipe=pipe)
    assert code == 1
    assert err == f"{path}, line 4: the label 'x' is not a number."


@pytest.mark.parametrize("line", [
    "1 qid:a 1:0.2",  # a query id that is not an integer
    "1 qid:2 a:0.2",  # a feature index that is not an integer
    "1 qid:2 1:abc",  # a feature value that is not a number
    "1 qid:2 1:\u0663",  # an Arabic-Indic digit (a stray byte, found before the parse)
    "1 qid:2 1:1_0",  # Python's float reads 1_0
    "1 qid:2 1:0.2:3",  # a malformed line
    "1 1:0.2",  # a line without a query id while the others have one
    "1 qid:2 0:0.2",  # a feature index out of range
    "1 qid:2 1:0.2 1:0.3",  # a feature index twice on the line
])
@pytest.mark.parametrize("how", HOW)
def test_a_refused_label_before_another_reader_error(cli, pipe, tmp_path, how, line):
    code, path, err = _eval(cli, tmp_path, HEAD + line + "\n", how=how, pipe=pipe)
    assert code == 1
    assert err == f"{path}, line 4: {OVER}"


@pytest.mark.parametrize("how", HOW)
def test_a_reader_error_before_a_refused_label_is_named(cli, pipe, tmp_path, how):
    # a query id that is not an integer on line 3, a label that is not a number on line 6:
    # the reader checks labels before query ids, but line 3 comes first
    data = "1 qid:1 1:0.5\n# c\n1 qid:b 1:0.1\n\n1001 qid:2 1:0.3\nx qid:2 1:0.2\n"
    code, path, err = _eval(cli, tmp_path, data, how=how, pipe=pipe)
    assert code == 1
    assert err == (f"{path}, line 3: the query id 'b' is not an integer (LibSVM query ids "
                   "are integers).")


@pytest.mark.parametrize("how", HOW)
def test_the_first_of_the_reader_errors_is_named(cli, pipe, tmp_path, how):
    # a label that is not a number on line 2, then a stray character, then a malformed
    # line: the reader's first refusal, whichever check makes it
    data = "1 qid:1 1:0.5\ny qid:1 1:0.1\n1 qid:2 1:\u0663\n1 qid:2 1::\n"
    code, path, err = _eval(cli, tmp_path, data, how=how, pipe=pipe)
    assert code == 1
    assert err == f"{path}, line 2: the label 'y' is not a number."


def test_a_refused_label_before_a_scores_file_error(cli, tmp_path):
    # the data file is read (and checked) before its scores file: its line is named before
    # a bad line of the scores file, or a scores file too short
    code, path, err = _eval(cli, tmp_path, HEAD + "0 qid:2 1:0.2\n",
                            scores="0.9\nabc\n0.8\n0.3\n")
    assert code == 1
    assert err == f"{path}, line 4: {OVER}"
    code, path, err = _eval(cli, tmp_path, HEAD + "0 qid:2 1:0.2\n", scores="0.9\n")
    assert code == 1
    assert err == f"{path}, line 4: {OVER}"
    # with good labels, the scores file's error
    code, _, err = _eval(cli, tmp_path, HEAD.replace("1001", "2") + "0 qid:2 1:0.2\n",
                         scores="0.9\nabc\n0.8\n0.3\n")
    assert code == 1
    assert err == f"{tmp_path / 's.txt'}, line 2: the score 'abc' is not a number."
