"""The readers of TREC files (issue 12): trec_eval's parsing rules, and every data error
named by its file and line.

trec_eval reads scores with C's ``atof`` and labels with ``atol``: both take the longest prefix
that is a number (``1_5`` is 1, ``x`` is 0), and ``atof`` reads ``inf`` and ``1e400`` (infinity).
skrank refuses what trec_eval would read as a silently different number, and refuses infinite
scores (it ranks by finite scores), each time naming the line. Labels are integers of any
sign: -1 is trec_eval's "in the pool, not judged" (read as 0 by the gain-based measures), and
1001 is a label like any other (the gain decides whether it is usable).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma

import numpy as np
import pandas as pd
import pytest

import skrank.io._runfile
from skrank import InputError
from skrank.io import align_run_qrels, read_qrels, read_run, read_table

RUN = "1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5 t\n2 Q0 c 1 0.5 t\n"


def _write(tmp_path, text, name="run.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


# ---------------------------------------------------------------- scores


@pytest.mark.parametrize(("token", "message"), [
    ("inf", r"the score 'inf' is not a finite number"),
    ("-inf", r"the score '-inf' is not a finite number"),
    ("1e400", r"the score '1e400' is not a finite number"),
    ("Infinity", r"the score 'Infinity' is not a finite number"),
    ("nan", r"the score is NaN"),
    ("1_5", r"the score '1_5' is not a number"),  # Python's float() would read 15
    ("\u0661\u0665", r"the score '\u0661\u0665' is not a number"),  # Arabic-Indic 15
    ("0x10", r"the score '0x10' is not a number"),
    ("1e", r"the score '1e' is not a number"),
])
def test_bad_scores_name_the_line(tmp_path, token, message):
    path = _write(tmp_path, f"1 Q0 a 1 2.5 t\n# c\n1 Q0 b 2 {token} t\n")
    with pytest.raises(InputError, match=rf"run.txt, line 3: {message}"):
        read_run(path)


def test_scores_trec_eval_reads_the_same_way():
    run = read_run(io.StringIO("1 Q0 a 1 +1.5 t\n1 Q0 b 2 .5 t\n1 Q0 c 3 1. t\n"
                               "1 Q0 d 4 -2e-3 t\n1 Q0 e 5 1.5e-400 t\n"))
    np.testing.assert_array_equal(run.score, [1.5, 0.5, 1.0, -2e-3, 0.0])


# ---------------------------------------------------------------- labels


def test_negative_and_large_labels_are_read(tmp_path):
    qrels = read_qrels(_write(tmp_path, "1 0 a -1\n1 0 b 1001\n1 0 c +2\n1 0 d 007\n", "q"))
    assert qrels.rel.tolist() == [-1, 1001, 2, 7]
    aligned = align_run_qrels(qrels, read_run(io.StringIO(RUN)))
    assert aligned.n_negative_rel == 1  # -1 is read as 0 (trec_eval's unjudged-in-pool)


@pytest.mark.parametrize("token", ["1.5", "x", "1_0", "\u0661", "99999999999999999999"])
def test_bad_labels_name_the_line(tmp_path, token):
    path = _write(tmp_path, f"1 0 a 1\n\n1 0 b {token}\n", "qrels.txt")
    with pytest.raises(InputError, match=rf"qrels.txt, line 3: the relevance label "
                                         rf"'{token}' is not an integer"):
        read_qrels(path)


# ---------------------------------------------------------------- lines


def test_utf8_bom_is_not_part_of_the_first_topic(tmp_path):
    path = _write(tmp_path, b"\xef\xbb\xbf" + RUN.encode())
    assert read_run(path).qid.tolist() == ["1", "1", "2"]
    qrels = _write(tmp_path, b"\xef\xbb\xbf301 0 d 1\n", "q")
    assert read_qrels(qrels).qid.tolist() == ["301"]


def test_cr_only_line_endings_are_lines(tmp_path):
    path = _write(tmp_path, RUN.replace("\n", "\r"))
    run = read_run(path)
    assert run.doc_id.tolist() == ["a", "b", "c"] and run.name == "t"
    path = _write(tmp_path, "1 Q0 a 1 2.5 t\r\r1 Q0 b 2 x t\r")
    with pytest.raises(InputError, match=r"run.txt, line 3: the score 'x'"):
        read_run(path)
    mixed = _write(tmp_path, "1 Q0 a 1 2.5 t\r\n1 Q0 b 2 1 t\r1 Q0 c 3 x t\n")
    with pytest.raises(InputError, match=r"run.txt, line 3: "):
        read_run(mixed)


def test_tabs_and_runs_of_blanks_separate_fields(tmp_path):
    path = _write(tmp_path, "1\tQ0  a 1 2.5   t\n  1 Q0 b\t2 1.5 t  \n\f\n")
    run = read_run(path)
    assert run.doc_id.tolist() == ["a", "b"] and run.name == "t"


def test_repeated_document_names_both_lines(tmp_path):
    path = _write(tmp_path, "1 Q0 a 1 2 t\n\n# c\n1 Q0 b 2 1 t\n1 Q0 a 3 0.5 t\n")
    with pytest.raises(InputError, match=r"run.txt, line 5: document 'a' is retrieved twice "
                                         r"for query '1' \(first on line 1\)"):
        read_run(path)


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_files(tmp_path, compress):
    path = _write(tmp_path, compress(RUN.encode()), "run.any")
    assert read_run(path).doc_id.tolist() == ["a", "b", "c"]
    assert read_run(io.BytesIO(compress(RUN.encode()))).name == "t"


def test_corrupt_compressed_data(tmp_path):
    path = _write(tmp_path, gzip.compress(RUN.encode())[:-12], "run.gz")
    with pytest.raises(InputError, match=r"run.gz: corrupt compressed data"):
        read_run(path)


def test_chunks_keep_line_numbers_across_the_file(tmp_path, monkeypatch):
    # small chunks: every error must still name the right line of the file
    monkeypatch.setattr(skrank.io._runfile, "_WHOLE_CHUNK", 256)
    lines = [f"{q} Q0 d{i} {i} {i / 10} t" for q in range(5) for i in range(30)]
    lines.insert(70, "# a comment")
    lines.insert(100, "")
    lines[130] = "3 Q0 dx 1 bad t"
    path = _write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"run.txt, line 131: the score 'bad'"):
        read_run(path)
    lines[130] = "3 Q0 dx 1 0.5 t"
    lines[151] = "4 Q0 d3 0 0 t"  # the last line repeats line 126
    path = _write(tmp_path, "\r\n".join(lines) + "\r\n")
    with pytest.raises(InputError, match=r"run.txt, line 152: document 'd3' is retrieved "
                                         r"twice for query '4' \(first on line 126\)"):
        read_run(path)


def test_a_line_longer_than_a_chunk(tmp_path, monkeypatch):
    monkeypatch.setattr(skrank.io._runfile, "_WHOLE_CHUNK", 64)
    doc = "d" * 1000
    path = _write(tmp_path, f"1 Q0 {doc} 1 1 t\n1 Q0 e 2 0.5 t\n")
    run = read_run(path)
    assert run.doc_id.tolist() == [doc, "e"] and run.doc_id.dtype == "<U1000"


# ---------------------------------------------------------------- tables


def test_csv_with_only_a_header(tmp_path):
    path = _write(tmp_path, "qid,label,s\n", "t.csv")
    with pytest.raises(InputError, match=r"t.csv, line 2: no data rows \(the table has only "
                                         r"its header\)"):
        read_table(path)


def test_table_repeated_document_names_the_line(tmp_path):
    path = _write(tmp_path, "qid,doc,label,s\n1,a,1,0.5\n1,b,0,0.2\n2,a,0,0.1\n1,a,0,0.3\n",
                  "t.csv")
    with pytest.raises(InputError, match=r"t.csv, line 5: document 'a' appears twice for "
                                         r"query '1' \(first on line 2\)"):
        read_table(path, doc_id="doc")


def test_parquet_column_of_the_wrong_type_is_one_error(tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"qid": [1, 1], "label": [1, 0], "s": [[1.0, 2.0], [3.0]]}).to_parquet(path)
    with pytest.raises(InputError, match=r"t.parquet, row 0: column 's' must hold numeric "
                                         r"scores"):
        read_table(path, scores="s")
