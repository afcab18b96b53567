"""LibSVM input read from a pipe: a LibSVM data file from a pipe is read once, its bytes
kept, so that a label the conventions refuse names the file's line (comments and blank
lines counted, compressed pipes decompressed) as a regular file's does; the reader's own
errors, score files and ``--group`` files from pipes name their lines too."""

from __future__ import annotations

import bz2
import gzip
import lzma

import pytest

from .conftest import run_skrank

# line 7 holds the third row: comments and blank lines before it are counted
DATA = (b"# a LibSVM file\n\n1 qid:1 1:0.5\n0 qid:1 1:0.2 # a comment\n\n# more\n"
        b"-1 qid:2 1:0.1\n0 qid:2 1:0.3\n")
SCORES = b"0.5\n0.2\n0.1\n0.3\n"


def _last_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert lines and lines[-1].startswith("skrank: error: "), err
    return lines[-1][len("skrank: error: "):]


@pytest.mark.parametrize("pack", [None, gzip.compress, bz2.compress, lzma.compress])
def test_a_refused_label_in_a_libsvm_pipe_names_its_line(pipe, tmp_path, pack):
    fifo = pipe(pack(DATA) if pack else DATA, "d.pipe")
    scores = tmp_path / "s.txt"
    scores.write_bytes(SCORES)
    code, _, err = run_skrank("eval", "--input", "libsvm", fifo, scores, timeout=60)
    assert code == 1
    assert _last_error(err) == (
        f"{fifo}, line 7: the first field (the label) must hold non-negative relevance "
        "labels (gain=exp); got -1.")


def test_a_label_over_1000_in_a_libsvm_pipe_names_its_line(pipe, tmp_path):
    text = b"\n# header\n1 qid:1 1:1\r\n\r\n1001 qid:1 1:2\n0 qid:2 1:1\n"  # CR LF too
    fifo = pipe(gzip.compress(text), "d.pipe")
    scores = tmp_path / "s.txt"
    scores.write_bytes(b"0.5\n0.2\n0.1\n")
    code, _, err = run_skrank("eval", "--input", "libsvm", fifo, scores, timeout=60)
    assert code == 1
    assert _last_error(err) == (
        f"{fifo}, line 5: the first field (the label) must hold labels <= 1000 with "
        "gain='exp' (2**label overflows); got 1001.")


def test_a_libsvm_pipe_gives_what_the_file_gives(cli, pipe, tmp_path):
    good = DATA.replace(b"\n-1 ", b"\n2 ")
    plain = tmp_path / "d.svm"
    plain.write_bytes(good)
    scores = tmp_path / "s.txt"
    scores.write_bytes(SCORES)
    code, expected, err = cli("eval", "--quiet", "-m", "ndcg", plain, scores)
    assert code == 0, err
    fifo = pipe(gzip.compress(good), "d.pipe")
    code, out, err = run_skrank("eval", "--quiet", "--input", "libsvm", "-m", "ndcg", fifo,
                                scores, timeout=60)
    assert code == 0, err
    assert out.split("\n\n", 1)[1] == expected.split("\n\n", 1)[1]  # past the input line


def test_a_malformed_line_in_a_libsvm_pipe_names_its_line(pipe, tmp_path):
    # the reader's own errors: it reads the pipe's text once, whole
    scores = tmp_path / "s.txt"
    scores.write_bytes(SCORES)
    fifo = pipe(gzip.compress(b"# c\n1 qid:1 1:0.5\n\n0 qid:1 1:x\n"), "d.pipe")
    code, _, err = run_skrank("eval", "--input", "libsvm", fifo, scores, timeout=60)
    assert code == 1
    assert _last_error(err) == f"{fifo}, line 4: the feature value 'x' is not a number."
    fifo = pipe(b"1 qid:1 1:0.5\n# c\n\n0 qid:1 1:0.2 extra\n", "e.pipe")
    code, _, err = run_skrank("eval", "--input", "libsvm", fifo, scores, timeout=60)
    assert code == 1
    assert _last_error(err).startswith(f"{fifo}, line 4: malformed LibSVM line")


def test_a_score_that_float32_cannot_hold_in_a_score_pipe_names_its_line(pipe):
    # data and scores both from pipes; a score file's line n holds its n-th score
    data = pipe(gzip.compress(DATA.replace(b"\n-1 ", b"\n2 ")), "d.pipe")
    scores = pipe(b"0.5\n0.2\n1e39\n0.3\n", "s.pipe")
    code, _, err = run_skrank("eval", "--input", "libsvm", data, scores,
                              "--score-precision", "float32", timeout=60)
    assert code == 1
    assert _last_error(err) == (
        f"{scores}, line 3: the scores file must hold scores that fit float32 "
        "(score_precision='float32', largest 3.40282e+38); got 1e+39.")


def test_the_earlier_of_a_label_and_a_score_refused_in_pipes(pipe):
    # the label of row 3 (line 7 of the data) comes before the score of row 4
    data = pipe(DATA, "d.pipe")
    scores = pipe(b"0.5\n0.2\n0.1\n1e39\n", "s.pipe")
    code, _, err = run_skrank("eval", "--input", "libsvm", data, scores,
                              "--score-precision", "float32", timeout=60)
    assert code == 1
    assert _last_error(err).startswith(f"{data}, line 7: the first field (the label)")


def test_a_group_file_from_a_pipe(pipe, tmp_path):
    data = tmp_path / "d.svm"
    data.write_bytes(b"1 1:0.5\n0 1:0.2\n# c\n\n-1 1:0.1\n0 1:0.3\n")
    scores = tmp_path / "s.txt"
    scores.write_bytes(SCORES)
    fifo = pipe(b"2\n\n2\n", "g.pipe")
    code, _, err = run_skrank("eval", "--input", "libsvm", pipe(data.read_bytes(), "d.pipe"),
                              scores, "--group", fifo, timeout=60)
    assert code == 1
    assert _last_error(err) == (
        f"{tmp_path / 'd.pipe'}, line 5: the first field (the label) must hold non-negative "
        "relevance labels (gain=exp); got -1.")
    fifo = pipe(gzip.compress(b"2\n\n2x\n"), "h.pipe")
    code, _, err = run_skrank("eval", "--input", "libsvm", data, scores, "--group", fifo,
                              timeout=60)
    assert code == 1
    assert _last_error(err).startswith(f"{fifo}, line 3: the group size '2x' is not an "
                                       "integer")


def test_a_libsvm_pipe_is_not_read_to_guess_the_kind(pipe, tmp_path):
    # the guess reads no pipe: without --input, it is read as a TREC qrels file
    scores = tmp_path / "s.txt"
    scores.write_bytes(SCORES)
    fifo = pipe(b"1 qid:1 1:0.5\n0 qid:1 1:0.2\n", "d.pipe")
    code, _, err = run_skrank("eval", fifo, scores, timeout=60)
    assert code == 1
    assert "use --input table or libsvm" in err
