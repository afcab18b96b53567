"""``skrank eval`` guesses the kind of its input from the first file's name and text,
compressed or not."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest

from .conftest import run_skrank

TREC = Path(__file__).resolve().parents[1] / "data" / "trec_eval"

LIBSVM = b"1 qid:1 1:1\n0 qid:1 1:2\n2 qid:2 1:3\n0 qid:2 1:1\n"
SCORES = b"0.5\n0.2\n0.1\n0.9\n"


@pytest.mark.parametrize("compress", [None, gzip.compress, bz2.compress, lzma.compress])
@pytest.mark.parametrize("text", ["plain", "bom", "cr"])
def test_a_libsvm_file_is_recognised_compressed_or_not(cli, tmp_path, compress, text):
    data = {"plain": LIBSVM, "bom": b"\xef\xbb\xbf" + LIBSVM,
            "cr": LIBSVM.replace(b"\n", b"\r")}[text]
    path = tmp_path / "data.txt"  # no suffix that says what it is
    path.write_bytes(compress(data) if compress else data)
    scores = tmp_path / "s.txt"
    scores.write_bytes(SCORES)
    code, out, err = cli("eval", "-m", "ndcg@2", "--format", "csv", path, scores)
    assert code == 0, err
    _, expected, _ = cli("eval", "--input", "libsvm", "-m", "ndcg@2", "--format", "csv",
                         path, scores)
    assert out == expected and "ndcg@2" in out


def test_qrels_from_a_pipe_are_read_once(cli, pipe):
    # the guess of the input's kind does not read a pipe (its bytes would be gone: the
    # reader would then wait for a second writer)
    fifo = pipe((TREC / "qrels.test").read_bytes(), "qrels.pipe")
    args = ["eval", "--preset", "trec_eval", "-m", "map", "--format", "trec"]
    code, out, err = run_skrank(*args, fifo, TREC / "results.test", timeout=60)
    assert code == 0, err
    _, expected, _ = cli(*args, TREC / "qrels.test", TREC / "results.test")
    assert out == expected
