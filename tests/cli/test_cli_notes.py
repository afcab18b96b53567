"""The notes of ``skrank eval`` on TREC input: what they name, and where they go in the
formats that have no place for them; and the readers' check of their ``source``."""

from __future__ import annotations

from pathlib import Path

import pytest

import skrank.cli._trec
from skrank.exceptions import InvalidParameterError
from skrank.io import read_qrels, read_run

from .conftest import run_skrank

TREC = Path(__file__).resolve().parents[1] / "data" / "trec_eval"


def test_negative_labels_are_noted_once_on_the_qrels_with_their_first_line(cli, tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 -1\nq2 0 d1 2\nq2 0 d3 -2\n")
    runs = []
    for name in ("a.run", "b.run"):
        run = tmp_path / name
        run.write_text("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4 t\nq2 Q0 d1 1 1 t\n")
        runs.append(run)
    code, out, err = cli("eval", "-m", "map", "--preset", "trec_eval", qrels, *runs)
    assert code == 0, err
    text = " ".join(out.split())
    assert text.count("with a negative label read as 0") == 1
    assert f"{qrels}: 2 judgements with a negative label read as 0, as trec_eval does " \
           "(the first on line 2)." in text


def test_the_first_topic_that_comes_back_is_named_even_within_a_batch(cli, monkeypatch,
                                                                        tmp_path):
    # topic 'a' comes back on line 3, inside the first batch (whose topics are grouped);
    # the batches' own check fires later, on topic 'b' (line 6)
    rows = ["a d0", "b d0", "a d1", "c d0", "c d1", "b d1", "d d0", "d d1", "e d0", "e d1"]
    run = tmp_path / "r.run"
    run.write_text("".join(f"{t} Q0 {d} 1 {9 - i} t\n"
                           for i, (t, d) in enumerate(r.split() for r in rows)))
    qrels = tmp_path / "q.txt"
    qrels.write_text("a 0 d0 1\nb 0 d1 1\nc 0 d0 1\n")
    monkeypatch.setattr(skrank.cli._trec, "_CHUNK_BYTES", 70)
    code, out, err = cli("eval", "-m", "map", "--preset", "trec_eval", qrels, run)
    assert code == 0, err
    assert "its topics are not in contiguous blocks (topic 'a' first comes back on line 3)" \
        in " ".join(out.split())


@pytest.mark.parametrize("fmt", ["trec", "csv"])
def test_formats_without_notes_print_them_on_stderr(cli, fmt, tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 -1\nq2 0 d1 1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4 t\nq3 Q0 d1 1 1 t\n")
    args = ["eval", "-m", "map", "--preset", "trec_eval", "--format", fmt, qrels, run]
    code, out, err = cli(*args)
    assert code == 0, err
    notes = [line for line in err.splitlines() if line.startswith("skrank: note: ")]
    assert any("with a negative label read as 0" in n for n in notes)
    assert any("1 topic of the run has no judgement ('q3')" in n for n in notes)
    assert "note" not in out
    code, out, err = cli(*args, "--quiet")
    assert code == 0 and err == ""


def test_per_topic_values_in_csv_are_a_usage_error(cli):
    code, _, err = cli("eval", "--format", "csv", "-q", TREC / "qrels.test",
                       TREC / "results.test")
    assert code == 2
    assert "--per-topic with --format csv" in err and "--per-query FILE" in err


def test_a_run_from_a_pipe_is_read_whole_with_a_note(cli, pipe):
    fifo = pipe((TREC / "results.test").read_bytes(), "run.pipe")
    args = ["eval", "--preset", "trec_eval", "-m", "map"]
    code, out, err = run_skrank(*args, TREC / "qrels.test", fifo, timeout=60)
    assert code == 0, err
    _, expected, _ = cli(*args, TREC / "qrels.test", TREC / "results.test")
    text = " ".join(out.split())
    assert f"run.pipe: read whole, not in batches: {fifo} is not a regular file (a pipe or " \
           "a device)" in text
    assert "read whole" not in expected
    # the same values
    assert [line for line in out.splitlines() if "map" in line] == \
        [line for line in expected.splitlines() if "map" in line]


@pytest.mark.parametrize("reader", [read_run, read_qrels])
@pytest.mark.parametrize("source", [123, b"301 0 d 1\n", ["x"]])
def test_a_reader_names_a_source_of_the_wrong_type(reader, source):
    with pytest.raises(InvalidParameterError,
                       match=rf"'source' parameter of {reader.__name__} must be a path "
                             r"\(str or os.PathLike\) or a file object\. Got "):
        reader(source)
