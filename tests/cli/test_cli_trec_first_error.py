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


def assert_run_refused(cli, run, line: int, message: str) -> None:
    """``skrank eval --preset trec_eval9 -m map`` of ``run`` stops on ``line``, saying
    ``message``."""
    code, out, err = cli("eval", "--preset", "trec_eval9", "-m", "map", TREC / "qrels.test",
                         run)
    assert code == 1 and out == ""
    assert error(err, run, line, message), err


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
    assert_run_refused(cli, run, line, message)


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
    assert_run_refused(cli, run, line, message)


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


# ------------------------------------------------------------------------------ repeats


def repeated(path, values: dict[int, tuple[int, str]], repeats: dict[int, int]) -> list[str]:
    """The lines of ``path``, field ``f`` of line ``n`` set to ``v`` for ``values[n] = (f,
    v)``, and the document of line ``b`` made that of line ``repeats[b]`` (of its topic)."""
    original = path.read_text().splitlines()
    lines = list(original)
    for n, (f, value) in values.items():
        fields = lines[n - 1].split()
        fields[f] = value
        lines[n - 1] = " ".join(fields)
    for b, a in repeats.items():
        fields = lines[b - 1].split()
        fields[2] = original[a - 1].split()[2]
        lines[b - 1] = " ".join(fields)
    return lines


def twice(path, a: int, first: int | None = None) -> str:
    """The message of a repeat of line ``a``'s document of ``path`` (named on line ``first``
    when lines were inserted before it)."""
    fields = path.read_text().splitlines()[a - 1].split()
    if path.name.startswith("qrels"):
        verb, what = "judged", "judgements"
    else:
        verb, what = "retrieved", "documents"
    return (f"document {fields[2]!r} is {verb} twice for query {fields[0]!r} (first on line "
            f"{a if first is None else first}); trec_eval refuses duplicate {what} too.")


JUDGED_2 = twice(TREC / "qrels.test", 2)  # (topic 301)

QRELS_REPEAT_CASES = [
    # a repeat before a line that does not parse (checked only after a clean parse)
    ({11: (3, "abc")}, {5: 2}, 5, JUDGED_2),
    ({5: (3, "abc")}, {11: 2}, 5, LABEL_ABC),
    # a label the conventions refuse before a repeat (checked before the labels)
    ({5: (3, "1001")}, {10: 2}, 5, LABEL_1001),
    ({10: (3, "1001")}, {5: 2}, 5, JUDGED_2),
    # all three
    ({5: (3, "1001"), 11: (3, "abc")}, {8: 2}, 5, LABEL_1001),
    ({8: (3, "1001"), 11: (3, "abc")}, {5: 2}, 5, JUDGED_2),
    ({5: (3, "abc"), 11: (3, "1001")}, {8: 2}, 5, LABEL_ABC),
]


@pytest.mark.parametrize(("values", "repeats", "line", "message"), QRELS_REPEAT_CASES)
@pytest.mark.parametrize("gz", [False, True])
def test_a_repeated_judgement_is_named_in_line_order(cli, tmp_path, values, repeats, line,
                                                     message, gz):
    data = text(repeated(TREC / "qrels.test", values, repeats)).encode()
    qrels = tmp_path / ("q.gz" if gz else "q")
    qrels.write_bytes(gzip.compress(data) if gz else data)
    code, out, err = cli("eval", "-m", "ndcg", qrels, TREC / "results.test")
    assert code == 1 and out == ""
    assert error(err, qrels, line, message), err


@pytest.mark.parametrize(("values", "repeats", "line", "message"), [
    # a repeat in the first half, the bad line in the second
    ({3000: (3, "abc")}, {5: 2}, 5, JUDGED_2),
    # both in the second half (topic 303; the lines after the comment one further)
    ({2995: (3, "abc")}, {2990: 2980}, 2991, twice(TREC / "qrels.test", 2980, 2981)),
    ({2990: (3, "abc")}, {2995: 2980}, 2991, LABEL_ABC),
    # topic 302 across the halves: its first judgement in the first, the repeat in the second
    ({3000: (3, "1001")}, {2500: 1710}, 2501, twice(TREC / "qrels.test", 1710, 1711)),
    ({2400: (3, "1001"), 3000: (3, "abc")}, {2500: 1710}, 2401, LABEL_1001),
    ({2600: (3, "1001"), 3000: (3, "abc")}, {2500: 1710}, 2501,
     twice(TREC / "qrels.test", 1710, 1711)),
])
def test_a_qrels_file_read_in_two_halves_names_its_first_repeat(cli, tmp_path, monkeypatch,
                                                                values, repeats, line,
                                                                message):
    from skrank.io import _runfile

    monkeypatch.setattr(_runfile, "_SPLIT_BYTES", 1000)
    monkeypatch.setattr(_runfile, "_WHOLE_CHUNK", 4096)
    lines = repeated(TREC / "qrels.test", values, repeats)
    lines.insert(100, "# a comment")
    qrels = tmp_path / "q"
    qrels.write_text(text(lines))
    code, out, err = cli("eval", "-m", "ndcg", qrels, TREC / "results.test")
    assert code == 1 and out == ""
    assert error(err, qrels, line, message), err


RESULTS = TREC / "results.test"
RETRIEVED_1410 = twice(RESULTS, 1410)  # (topic 303)

# lines 1001-1500: topic 303, one batch; a repeat on line 1420 (of line 1410)
RUN_REPEAT_CASES = [
    # a score float32 cannot hold after the repeat (checked before the join finds it)
    ({1430: "1e39"}, 1420, RETRIEVED_1410),
    ({1415: "1e39"}, 1415, FLOAT32),
    # a line that does not parse after the repeat (in the block the join never saw)
    ({1450: "inf"}, 1420, RETRIEVED_1410),
    ({1415: "inf"}, 1415, INF),
    # all three
    ({1430: "1e39", 1450: "inf"}, 1420, RETRIEVED_1410),
    ({1415: "1e39", 1450: "inf"}, 1415, FLOAT32),
    ({1415: "inf", 1430: "1e39"}, 1415, INF),
]


def run_text(path, values: dict[int, str], repeats: dict[int, int]) -> str:
    return text(repeated(path, {n: (4, v) for n, v in values.items()}, repeats))


@pytest.mark.parametrize(("values", "line", "message"), RUN_REPEAT_CASES)
@pytest.mark.parametrize("chunk", [None, 4096])
def test_a_repeated_document_is_named_in_line_order(cli, tmp_path, monkeypatch, values, line,
                                                    message, chunk):
    from skrank.cli import _trec

    if chunk is not None:
        monkeypatch.setattr(_trec, "_CHUNK_BYTES", chunk)
    run = tmp_path / "r"
    run.write_text(run_text(RESULTS, values, {1420: 1410}))
    assert_run_refused(cli, run, line, message)


@pytest.mark.parametrize(("values", "repeats", "line", "message"), [
    # in batches of 4096 bytes: topic 302 (lines 501-1000) in a batch before topic 303's
    ({1400: "1e39"}, {700: 600}, 700, twice(RESULTS, 600)),
    ({700: "1e39"}, {1420: 1410}, 700, FLOAT32),
    ({1450: "inf"}, {700: 600}, 700, twice(RESULTS, 600)),
    ({700: "inf"}, {1420: 1410}, 700, INF),
])
def test_a_repeat_in_an_earlier_batch_is_named_first(cli, tmp_path, monkeypatch, values,
                                                     repeats, line, message):
    from skrank.cli import _trec

    monkeypatch.setattr(_trec, "_CHUNK_BYTES", 4096)
    run = tmp_path / "r"
    run.write_text(run_text(RESULTS, values, repeats))
    assert_run_refused(cli, run, line, message)


@pytest.mark.parametrize(("values", "line", "message"), RUN_REPEAT_CASES)
def test_a_run_read_whole_names_its_first_repeat(cli, tmp_path, monkeypatch, values, line,
                                                 message):
    from skrank.cli import _trec

    monkeypatch.setattr(_trec, "_CHUNK_BYTES", 4096)
    # topic 301's first 20 lines after topic 302's: the run is read whole (the lines from
    # 1001 on in their places)
    lines = RESULTS.read_text().splitlines()
    good = tmp_path / "good"
    good.write_text(text(lines[20:1000] + lines[:20] + lines[1000:]))
    run = tmp_path / "r"
    run.write_text(run_text(good, values, {1420: 1410}))
    assert_run_refused(cli, run, line, message)


@pytest.mark.parametrize(("values", "line", "message"), RUN_REPEAT_CASES)
def test_a_run_from_a_pipe_names_its_first_repeat(tmp_path, pipe, values, line, message):
    run = pipe(run_text(RESULTS, values, {1420: 1410}).encode(), "run.pipe")
    code, out, err = run_skrank("eval", "--preset", "trec_eval9", "-m", "map",
                                TREC / "qrels.test", run)
    assert code == 1 and out == ""
    assert error(err, run, line, message), err


@pytest.mark.parametrize("preset", ["trec_eval", "trec_eval9"])
def test_a_repeat_before_a_bad_run_line_is_named_first(cli, tmp_path, preset):
    run = tmp_path / "r"
    run.write_text(run_text(RESULTS, {1450: "inf"}, {1420: 1410}))
    code, out, err = cli("eval", "--preset", preset, "-m", "map", TREC / "qrels.test", run)
    assert code == 1 and out == ""
    assert error(err, run, 1420, RETRIEVED_1410), err


@pytest.mark.parametrize(("values", "line", "message"), [
    ({1450: "inf"}, 1420, twice(RESULTS, 20)),
    ({1410: "inf"}, 1410, INF),
])
def test_a_topic_back_before_a_bad_run_line_is_read_whole(cli, tmp_path, monkeypatch, values,
                                                          line, message):
    from skrank.cli import _trec

    monkeypatch.setattr(_trec, "_CHUNK_BYTES", 4096)
    # topic 301 back on line 1401 (before the bad line, in its block), line 1420 repeating
    # its document of line 20 (an earlier batch's): read whole, the repeat comes first
    lines = RESULTS.read_text().splitlines()
    lines[1400] = " ".join([*lines[0].split()[:2], "NEW-1", *lines[0].split()[3:]])
    lines[1419] = " ".join(lines[0].split()[:2] + lines[19].split()[2:])
    good = tmp_path / "good"
    good.write_text(text(lines))
    run = tmp_path / "r"
    run.write_text(text(edited(good, 4, values)))
    assert_run_refused(cli, run, line, message)
