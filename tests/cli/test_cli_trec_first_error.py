"""``skrank eval`` on TREC files names the first bad line of a file, whichever check refuses
it: a label or score before a line that does not parse, which the conventions refuse (a
label the gain cannot take, a score float32 cannot hold), is named rather than that line."""

from __future__ import annotations

import gzip

import pytest

from .conftest import TREC, run_skrank

LABEL_1001 = ("the relevance label 1001 is above 1000, the largest label gain=exp takes "
              "(2**label overflows); choose --gain linear or a gain table.")
LABEL_ABC = "the relevance label 'abc' is not an integer (of at most 18 digits)."
FLOAT32 = ("the score 1e+39 does not fit float32 (largest 3.40282e+38), in which "
           "score_precision='float32' ranks the scores (trec_eval 9); choose "
           "--score-precision float64.")
INF = "the score 'inf' is not a finite number (skrank ranks by finite scores)."


def edited(path, field: int, values: dict[int, str]) -> list[str]:
    """The lines of ``path``, field ``field`` of line ``n`` (from 1) set to ``values[n]``."""
    lines = path.read_text().splitlines()
    for n, value in values.items():
        fields = lines[n - 1].split()
        fields[field] = value
        lines[n - 1] = " ".join(fields)
    return lines


def text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def error(err: str, path, line: int, message: str) -> bool:
    return err == f"skrank: error: {path}, line {line}: {message}\n"


# ------------------------------------------------------------------------------ qrels


@pytest.mark.parametrize(("values", "line", "message"), [
    ({5: "1001", 10: "abc"}, 5, LABEL_1001),
    ({5: "abc", 10: "1001"}, 5, LABEL_ABC),  # the line that does not parse comes first
    ({3000: "1001", 3010: "abc"}, 3000, LABEL_1001),
])
@pytest.mark.parametrize("gz", [False, True])
def test_a_label_before_a_bad_qrels_line_is_named_first(cli, tmp_path, values, line,
                                                        message, gz):
    data = text(edited(TREC / "qrels.test", 3, values)).encode()
    qrels = tmp_path / ("q.gz" if gz else "q")
    qrels.write_bytes(gzip.compress(data) if gz else data)
    code, out, err = cli("eval", "-m", "ndcg", qrels, TREC / "results.test")
    assert code == 1 and out == ""
    assert error(err, qrels, line, message), err


@pytest.mark.parametrize(("values", "line", "message"), [
    ({5: "1001", 3000: "abc"}, 5, LABEL_1001),  # in the first half, the bad line in the second
    ({2999: "1001", 3000: "abc"}, 3000, LABEL_1001),  # both in the second half
    ({2990: "abc", 3000: "1001"}, 2991, LABEL_ABC),
])
def test_a_qrels_file_read_in_two_halves_names_its_first_bad_line(cli, tmp_path, monkeypatch,
                                                                   values, line, message):
    from skrank.io import _runfile

    # two halves parsed in two threads, in chunks; comment lines leave the second half's
    # rows after a gap (as many rows as the first half has line ends)
    monkeypatch.setattr(_runfile, "_SPLIT_BYTES", 1000)
    monkeypatch.setattr(_runfile, "_WHOLE_CHUNK", 4096)
    lines = edited(TREC / "qrels.test", 3, values)
    lines.insert(100, "# a comment")
    qrels = tmp_path / "q"
    qrels.write_text(text(lines))
    code, out, err = cli("eval", "-m", "ndcg", qrels, TREC / "results.test")
    assert code == 1 and out == ""
    assert error(err, qrels, line, message), err


# ------------------------------------------------------------------------------ runs


RUN_CASES = [
    ({1400: "1e39", 1450: "inf"}, 1400, FLOAT32),
    ({1400: "inf", 1450: "1e39"}, 1400, INF),  # the line that does not parse comes first
]


@pytest.mark.parametrize(("values", "line", "message"), RUN_CASES)
@pytest.mark.parametrize("chunk", [None, 4096])
def test_a_score_before_a_bad_run_line_is_named_first(cli, tmp_path, monkeypatch, values,
                                                      line, message, chunk):
    from skrank.cli import _trec

    if chunk is not None:  # in batches: the bad line's block holds the score
        monkeypatch.setattr(_trec, "_CHUNK_BYTES", chunk)
    run = tmp_path / "r"
    run.write_text(text(edited(TREC / "results.test", 4, values)))
    code, out, err = cli("eval", "--preset", "trec_eval9", "-m", "map", TREC / "qrels.test",
                         run)
    assert code == 1 and out == ""
    assert error(err, run, line, message), err


@pytest.mark.parametrize(("values", "line", "message"), RUN_CASES)
def test_a_run_read_whole_names_its_first_bad_line(cli, tmp_path, monkeypatch, values, line,
                                                   message):
    from skrank.cli import _trec

    monkeypatch.setattr(_trec, "_CHUNK_BYTES", 4096)
    # topic 301's first 20 lines after topic 302's: read in batches, the run comes back
    # to be read whole
    lines = (TREC / "results.test").read_text().splitlines()
    lines = lines[20:1000] + lines[:20] + lines[1000:]
    good = tmp_path / "good"
    good.write_text(text(lines))
    code, out, err = cli("eval", "--preset", "trec_eval9", "-m", "map", TREC / "qrels.test",
                         good)
    assert code == 0, err
    assert "read whole, not in batches: its topics are not in contiguous blocks" in out
    run = tmp_path / "r"
    run.write_text(text(edited(good, 4, values)))
    code, out, err = cli("eval", "--preset", "trec_eval9", "-m", "map", TREC / "qrels.test",
                         run)
    assert code == 1 and out == ""
    assert error(err, run, line, message), err


@pytest.mark.parametrize(("values", "line", "message"), RUN_CASES)
def test_a_run_from_a_pipe_names_its_first_bad_line(tmp_path, pipe, values, line, message):
    run = pipe(text(edited(TREC / "results.test", 4, values)).encode(), "run.pipe")
    code, out, err = run_skrank("eval", "--preset", "trec_eval9", "-m", "map",
                                TREC / "qrels.test", run)
    assert code == 1 and out == ""
    assert error(err, run, line, message), err


def test_float64_scores_name_the_bad_line(cli, tmp_path):
    # 1e39 is a float64 score: the line that does not parse is the first bad one
    run = tmp_path / "r"
    run.write_text(text(edited(TREC / "results.test", 4, {1400: "1e39", 1450: "inf"})))
    code, out, err = cli("eval", "--preset", "trec_eval", "-m", "map", TREC / "qrels.test",
                         run)
    assert code == 1 and out == ""
    assert error(err, run, 1450, INF), err
