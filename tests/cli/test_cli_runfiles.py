"""``skrank eval`` on TREC runs read in batches of whole topics (issue 12).

A run whose topics come in contiguous blocks is evaluated batch by batch; the batches are made
small here (a few hundred bytes) so that trec_eval's test files span many of them. The output
must equal the one-pass output, the input line says how many batches were read, and a run whose
topics come back later is read whole, with a note saying so.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

import skrank.cli._trec

from .conftest import TREC

MEASURES = ["--preset", "trec_eval", "-m", "map,recip_rank,ndcg", "-m", "P.5,10",
            "-m", "ndcg_cut.10", "--format", "trec", "-q"]


def _error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("options", [[], ["-c"], ["-c", "-M", "100"]])
def test_batches_give_the_one_pass_output(cli, monkeypatch, options):
    run = "results.trunc" if "-c" in options else "results.test"
    code, whole, err = cli("eval", *MEASURES, *options, TREC / "qrels.test", TREC / run)
    assert code == 0, err
    monkeypatch.setattr(skrank.cli._trec, "_CHUNK_BYTES", 2000)
    code, batched, err = cli("eval", *MEASURES, *options, TREC / "qrels.test", TREC / run)
    assert code == 0, err
    assert batched == whole
    code, text, _ = cli("eval", "--preset", "trec_eval", "-m", "map", TREC / "qrels.test",
                        TREC / run)
    if run == "results.test":
        assert "batches of whole topics" in text
    else:  # results.trunc deals its topics 301 and 303 out in turn
        assert "results.trunc: read whole, not in batches" in text


def test_a_batch_goes_back_to_the_reader_only_once_joined(cli, monkeypatch):
    # a joined batch's parse arrays go back to the reader's pool, where its next blocks are
    # parsed into them: a pool that spoils every array at once (as a block parsed into it
    # would) must leave the output unchanged, so the join is done with them by then
    import numpy as np

    import skrank.io._runfile

    args = ["eval", *MEASURES, TREC / "qrels.test", TREC / "results.test"]
    _, whole, _ = cli(*args)
    give = skrank.io._runfile._Pool.give
    spoiled = []

    def spoil(self, out):
        for array in out:
            array[...] = np.nan if array.dtype.kind == "f" else 0
        spoiled.append(len(out))
        give(self, out)

    monkeypatch.setattr(skrank.io._runfile._Pool, "give", spoil)
    monkeypatch.setattr(skrank.cli._trec, "_CHUNK_BYTES", 2000)
    code, batched, err = cli(*args)
    assert code == 0, err
    assert len(spoiled) >= 3 and batched == whole


def test_text_output_names_the_batches_and_equals_one_pass(cli, monkeypatch):
    args = ["eval", "--preset", "trec_eval", "-m", "ndcg_cut.10,map", TREC / "qrels.test",
            TREC / "results.test"]
    _, whole, _ = cli(*args)
    monkeypatch.setattr(skrank.cli._trec, "_CHUNK_BYTES", 4000)
    _, batched, _ = cli(*args)
    assert "1,500 results, read in " in batched and " batches of whole topics" in batched

    def others(text):
        return [line for line in text.splitlines() if not line.startswith("input: run")]

    assert others(batched) == others(whole)


def test_interleaved_topics_are_read_whole_with_a_note(cli, monkeypatch, tmp_path):
    lines = (TREC / "results.test").read_text().splitlines()
    by_topic: dict[str, list[str]] = {}
    for line in lines:
        by_topic.setdefault(line.split()[0], []).append(line)
    topics = list(by_topic.values())
    dealt = [line for j in range(0, 500, 50) for t in topics for line in t[j:j + 50]]
    run = tmp_path / "dealt.run"
    run.write_text("\n".join(dealt) + "\n")
    args = ["eval", *MEASURES, TREC / "qrels.test", run]
    _, expected, _ = cli("eval", *MEASURES, TREC / "qrels.test", TREC / "results.test")
    monkeypatch.setattr(skrank.cli._trec, "_CHUNK_BYTES", 3000)
    code, out, err = cli(*args)
    assert code == 0, err
    assert out == expected
    code, text, _ = cli("eval", "--preset", "trec_eval", "-m", "map", TREC / "qrels.test", run)
    # the first topic that comes back: the first topic, after the first 50 lines of each
    first = dealt[0].split()[0]
    back = 1 + next(i for i, line in enumerate(dealt) if i and line.split()[0] == first
                    and dealt[i - 1].split()[0] != first)
    assert back == 1 + sum(min(50, len(t)) for t in topics)
    assert "dealt.run: read whole, not in batches: its topics are not in contiguous blocks " \
           f"(topic {first!r} first comes back on line {back:,});" in " ".join(text.split())


def _dealt():
    """results.test with its topics dealt out 50 lines at a time: read whole."""
    by_topic: dict[str, list[str]] = {}
    for line in (TREC / "results.test").read_text().splitlines():
        by_topic.setdefault(line.split()[0], []).append(line)
    return [line for j in range(0, 500, 50) for t in by_topic.values() for line in t[j:j + 50]]


@pytest.mark.parametrize("chunk", [3000, 1 << 20])
def test_a_repeat_in_a_run_read_whole_names_both_lines(cli, tmp_path, monkeypatch, chunk):
    # read whole, the run is evaluated in batches of whole topics (small ones here): a
    # repeated document still names its two lines of the file
    lines = _dealt()
    topic = lines[1200].split()[0]
    first = next(i for i, line in enumerate(lines) if line.split()[0] == topic)
    lines.insert(1300, lines[first])
    run = tmp_path / "dealt.run"
    run.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(skrank.cli._trec, "_CHUNK_BYTES", chunk)
    code, _, err = cli("eval", TREC / "qrels.test", run)
    assert code == 1
    doc = lines[first].split()[2]
    assert (f"dealt.run, line 1301: document {doc!r} is retrieved twice for query "
            f"{topic!r} (first on line {first + 1})") in _error_line(err)


def test_label_the_gain_cannot_take_names_the_qrels_line(cli, tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b 1001\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    code, _, err = cli("eval", "-m", "ndcg@10", qrels, run)
    assert code == 1
    assert "qrels.txt, line 2: the relevance label 1001 is above 1000, the largest label " \
           "gain=exp takes" in _error_line(err)
    code, _, err = cli("eval", "--preset", "trec_eval", "-m", "ndcg@10", qrels, run)
    assert code == 0, err  # linear gain: any label
    code, _, err = cli("eval", "--gain", "0,1,3", "-m", "ndcg@10", qrels, run)
    assert "qrels.txt, line 2: the relevance label 1001 has no gain in the table of 3 gains" \
        in _error_line(err)


@pytest.mark.parametrize(("score", "message"), [
    ("inf", "run.txt, line 2: the score 'inf' is not a finite number"),
    ("1e400", "run.txt, line 2: the score '1e400' is not a finite number"),
    ("1_5", "run.txt, line 2: the score '1_5' is not a number"),
])
def test_bad_scores_are_one_line_naming_the_line(cli, tmp_path, score, message):
    run = tmp_path / "run.txt"
    run.write_text(f"301 Q0 a 1 2 t\n301 Q0 b 2 {score} t\n")
    code, _, err = cli("eval", TREC / "qrels.test", run)
    assert code == 1
    assert message in _error_line(err)


@pytest.mark.parametrize(("qrels_text", "options", "message"), [
    ("1 0 a 1\n1 0 b\n", [], "qrels.txt, line 2: malformed line"),
    ("1 0 a 1\n1 0 b 7\n", ["--gain", "0,1,3"], "qrels.txt, line 2: the relevance label 7"),
])
@pytest.mark.parametrize("interleaved", [False, True])
def test_an_error_of_the_qrels_comes_before_one_of_the_run(cli, tmp_path, qrels_text,
                                                          options, message, interleaved):
    # the qrels are read in a thread while the run's first batch is: their error is still
    # the one reported, as when they were read first
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(qrels_text)
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2 t\n" + ("2 Q0 a 1 2 t\n1 Q0 b 1 2 t\n" if interleaved else "")
                   + "1 Q0 c 2 x t\n")
    code, _, err = cli("eval", "--input", "trec", *options, qrels, run)
    assert code == 1
    assert message in _error_line(err)
    qrels.write_text("1 0 a 1\n")
    code, _, err = cli("eval", "--input", "trec", *options, qrels, run)
    assert code == 1
    assert "run.txt, line " in _error_line(err)


def _reports_imported_at(spied: str, owner: str = "T") -> list[bool]:
    """Whether ``skrank.reports`` was imported at each call of ``owner.spied`` (in
    ``skrank.cli._trec``, as ``T``) during one ``skrank eval`` of a TREC run, in a fresh
    process (the imports already made here do not count)."""
    code = (
        "import sys\n"
        "import skrank.cli._trec as T\n"
        "seen = []\n"
        f"real = {owner}.{spied}\n"
        "def spy(*a, **k):\n"
        "    seen.append('skrank.reports' in sys.modules)\n"
        "    return real(*a, **k)\n"
        f"{owner}.{spied} = spy\n"
        "from skrank.cli import main\n"
        f"main(['eval', '--preset', 'trec_eval', '-m', 'map', {str(TREC / 'qrels.test')!r}, "
        f"{str(TREC / 'results.test')!r}])\n"
        "print(seen)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return ast.literal_eval(out.strip().splitlines()[-1])


def test_the_qrels_are_read_while_the_report_modules_are_imported():
    # the qrels reader starts before skrank.reports (and the statistics) are imported, and
    # it is the one the run is joined with: one reader
    assert _reports_imported_at("__init__", "T._QrelsReader") == [False]


def test_the_first_run_is_read_while_the_report_modules_are_imported():
    # the first run's reading starts with the qrels', before skrank.reports is imported,
    # and it is the one evaluated: one reading of the run
    assert _reports_imported_at("_read_ahead") == [False]


def test_a_usage_error_stops_the_reading_of_the_first_run(cli, tmp_path, monkeypatch):
    # the run's reading started with the qrels' is stopped: no reading thread is left
    # waiting (the run spans more batches than the reader keeps ahead)
    import threading

    monkeypatch.setattr(skrank.cli._trec, "_CHUNK_BYTES", 500)
    before = set(threading.enumerate())
    code, _, err = cli("eval", "--ties", "pessimistic", "--format", "trec",
                       TREC / "qrels.test", TREC / "results.test")
    assert code == 2 and "--format trec" in err
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not [t for t in left if t.name == "skrank-reader"]


def test_the_command_ends_without_the_teardown_its_output_whole(cli, tmp_path):
    # python -m skrank.cli ends the process once main returns (os._exit, its output
    # flushed): no atexit handler runs, the output and the exit status are main's
    args = ["eval", "--preset", "trec_eval", "-m", "map,ndcg_cut.10", "--format", "trec",
            "-q", str(TREC / "qrels.test"), str(TREC / "results.test")]
    _, expected, _ = cli(*args)
    code = ("import atexit, runpy, sys\n"
            "atexit.register(lambda: sys.stderr.write('teardown\\n'))\n"
            "runpy.run_module('skrank.cli', run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          check=False)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, expected, "")
    out = tmp_path / "out.txt"
    proc = subprocess.run([sys.executable, "-m", "skrank.cli", *args, "-o", str(out)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and out.read_text() == expected
    proc = subprocess.run([sys.executable, "-m", "skrank.cli", "eval", str(tmp_path / "no"),
                           str(TREC / "results.test")], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 1 and "no such file" in proc.stderr


def test_a_usage_error_comes_before_an_error_of_the_qrels(cli, tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b\n")  # read from the start, in a thread
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2 t\n")
    code, _, err = cli("eval", "--input", "trec", "--ties", "pessimistic", "--format", "trec",
                       qrels, run)
    assert code == 2 and "--format trec" in err and "malformed" not in err


def test_repeated_document_in_a_batch_names_both_lines(cli, tmp_path, monkeypatch):
    lines = (TREC / "results.test").read_text().splitlines()
    lines.insert(800, lines[700])
    run = tmp_path / "dup.run"
    run.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(skrank.cli._trec, "_CHUNK_BYTES", 5000)
    code, _, err = cli("eval", TREC / "qrels.test", run)
    assert code == 1
    assert "dup.run, line 801: document " in err and "(first on line 701)" in err


@pytest.mark.parametrize(("options", "modules"), [
    # no comparison: no statistics, no figures; no segments: none of their modules
    (["-m", "map"], ["scipy.stats", "matplotlib", "scipy.optimize", "skrank.reports._plots",
                     "skrank.segments._table", "skrank.segments._segmentation",
                     "skrank.segments._columns", "skrank.stats._paired",
                     "skrank.stats._bootstrap", "skrank.stats._permutation",
                     "skrank.stats._power"]),
    # the TREC path reads with skrank's compiled reader; off a terminal there is no bar to
    # draw; np.unique (which imports numpy.ma) is not on the path
    (["--preset", "trec_eval", "-m", "map", "-m", "ndcg_cut.10"],
     ["pyarrow", "pandas", "tqdm", "numpy.ma"]),
])
def test_eval_imports_only_what_it_uses(options, modules):
    code = (
        "import sys\n"
        "from skrank.cli import main\n"
        f"main(['eval', *{options!r}, {str(TREC / 'qrels.test')!r}, "
        f"{str(TREC / 'results.test')!r}])\n"
        f"print(sorted(m for m in {modules!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
