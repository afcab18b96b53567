"""skrank eval: --format html, --quiet and progress on a terminal, --ideal-order and
--label-precision."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

import skrank
from skrank.io import read_table
from skrank.stats import _progress

from .conftest import FAST, FIXTURE

COMPARE = [FIXTURE, "--score", "model", "--baseline", "bm25", "-m", "ndcg@5,rr", "--segment",
           "candidates", *FAST]


def _numbers(text: str) -> set[str]:
    """The signed and unsigned 4-decimal numbers and p-values of a text report."""
    return set(re.findall(r"[+-]?\d\.\d{4}\b", text))


def test_html_report_has_the_numbers_of_the_text_report(cli, tmp_path):
    code, text, err = cli("eval", *COMPARE)
    assert code == 0, err
    page = tmp_path / "report.html"
    code, out, err = cli("eval", *COMPARE, "--format", "html", "-o", page)
    assert code == 0, err
    assert out == "" and err == ""
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    # every number of the text report's comparison and segment tables is on the page
    table = text[text.index("comparison "):text.index("conventions:")]
    segments = text[text.index("Segments by candidates"):]
    wanted = _numbers(table) | _numbers(segments)
    assert len(wanted) > 20
    assert sorted(n for n in wanted if n not in html) == []
    # the figures: forest plot, two per-query charts, NDCG@k by cutoff, the segments
    assert html.count("<svg") == 5
    assert "NDCG@k by cutoff" in html or "ndcg@k by cutoff" in html


def test_html_to_stdout(cli):
    code, out, err = cli("eval", FIXTURE, "--score", "model", "-m", "rr", "--format", "html")
    assert code == 0, err
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")


def _terminal(monkeypatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)


def test_progress_on_a_terminal_and_quiet(cli, monkeypatch):
    _terminal(monkeypatch)  # capsys's stderr is a terminal now
    code, out, err = cli("eval", *COMPARE)
    assert code == 0
    assert "skrank: " in err and "comparisons" in err  # the stages and the resampling's bar
    assert "skrank: " not in out
    code, out2, err = cli("eval", *COMPARE, "--quiet")
    assert code == 0 and err == "" and out2 == out


def test_progress_off_a_terminal_and_in_a_log(cli, monkeypatch):
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)
    code, _, err = cli("eval", *COMPARE)
    assert code == 0 and err == ""  # auto: stderr is not a terminal
    code, _, err = cli("eval", *COMPARE, "--progress", "always")
    # a log: one line per stage with the elapsed time; the bar of the resamples too
    assert code == 0
    assert re.search(r"^\[ *\d+\.\ds\] reading .*fixture\.csv$", err, re.MULTILINE)
    assert "comparisons" in err


def test_quiet_contradicts_progress_always(cli):
    code, _, err = cli("eval", FIXTURE, "--quiet", "--progress", "always")
    assert code == 2 and "--quiet contradicts --progress always" in err


@pytest.mark.parametrize("order", ["gain", "label"])
def test_ideal_order_flag(cli, order):
    # a gain table that does not increase with the label: the two ideal orders differ
    code, out, err = cli("eval", FIXTURE, "--score", "model", "-m", "ndcg@5", "--gain",
                         "0,1,3,2", "--ideal-order", order)
    assert code == 0, err
    table = read_table(str(FIXTURE), scores=["model"])
    want = skrank.ndcg(table.y_true, table.scores["model"], table.qid, k=5,
                       gain=(0, 1, 3, 2), ideal_order=order)
    other = skrank.ndcg(table.y_true, table.scores["model"], table.qid, k=5,
                        gain=(0, 1, 3, 2), ideal_order="gain" if order == "label" else "label")
    assert f"NDCG@5 = {want.value:.4f}" in out
    assert f"{want.value:.4f}" != f"{other.value:.4f}"
    assert ("ideal_order=label" in out) == (order == "label")


def test_label_precision_flag(cli, tmp_path):
    # non-integer labels under linear gain: float32 labels give other values
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(6), 5)
    y = rng.random(qid.size) * 3 + 1e-4
    score = rng.random(qid.size)
    path = tmp_path / "t.csv"
    path.write_text("qid,label,s\n" + "".join(f"{q},{a!r},{b!r}\n" for q, a, b in
                                              zip(qid.tolist(), y.tolist(), score.tolist())),
                    encoding="utf-8")
    values = {}
    for precision in ("float64", "float32"):
        code, out, err = cli("eval", path, "--score", "s", "-m", "ndcg@3", "--gain", "linear",
                             "--label-precision", precision)
        assert code == 0, err
        want = skrank.ndcg(y, score, qid, k=3, gain="linear", label_precision=precision)
        assert f"NDCG@3 = {want.value:.4f}" in out
        values[precision] = want.value
    assert values["float32"] != values["float64"]
    code, _, err = cli("eval", path, "--label-precision", "float16")
    assert code == 2 and "--label-precision" in err and "float16" in err


def test_html_notes_topics_missing_from_a_run(cli, tmp_path):
    from .conftest import TREC

    run = tmp_path / "short.run"
    lines = (TREC / "results.test").read_text(encoding="utf-8").splitlines(keepends=True)
    run.write_text("".join(line for line in lines if not line.startswith("303")),
                   encoding="utf-8")
    page = tmp_path / "r.html"
    code, _, err = cli("eval", TREC / "qrels.test", run, "-m", "ndcg@10", "--format", "html",
                       "-o", page)
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert "Notes on the data" in html
    assert "1 judged topic has no result in the run (&#x27;303&#x27;)" in html
