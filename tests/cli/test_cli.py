"""``skrank eval`` in-process: inputs, options, outputs, and bad input with Unix exit codes.

Each number the command prints is checked against the library computing it directly
(``skrank.evaluate`` / ``skrank.reports.build_report`` with the same data and seed); the
fixture values themselves are pinned by tests/test_segments.py with an independent loop.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import skrank
from skrank.cli import main
from skrank.io import read_table
from skrank.reports import build_report

from .conftest import FAST, FIXTURE, TREC

MODEL_BM25 = ["--score", "model", "--baseline", "bm25"]


def _fixture_results(metrics, **conv):
    t = read_table(FIXTURE, scores=["model", "bm25"], doc_id="doc_id")
    return {n: skrank.evaluate(t.y_true, t.scores[n], t.qid, metrics=metrics, **conv)
            for n in ("model", "bm25")}


def _error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one line, no traceback
    assert lines[0].startswith("skrank: error: ")
    return lines[0]


# --------------------------------------------------------------------------- tables


def test_table_comparison_text_matches_the_library(cli):
    code, out, err = cli("eval", FIXTURE, *MODEL_BM25, "-m", "ndcg@5,ap@10", "--seed", "3",
                         *FAST)
    assert code == 0 and err == ""
    results = _fixture_results(["ndcg@5", "ap@10"])
    input_line = out.splitlines()[1]
    assert input_line.startswith(f"input: table {FIXTURE}: 666 rows, 40 queries")
    # the command's report is the library's report, with the command's description of input
    report = build_report(results, baseline="bm25", rng=3, n_resamples=500,
                          n_permutations=500, inputs=[input_line.removeprefix("input: ")])
    assert out == report.to_text()
    assert "NDCG@5 = 0.8080 (gain=exp, ties=pessimistic, empty=exclude; 40 queries, 40 with " \
           "ties that change the value)" in out
    assert "NDCG@5 = 0.7847 (gain=exp, ties=pessimistic, empty=exclude; 40 queries)" in out


@pytest.mark.parametrize(("ties", "value"), [
    # NDCG@5 of the coarse model, pinned by tests/test_segments.py with a plain loop
    ("pessimistic", "0.8080"), ("input", "0.8821"), ("optimistic", "0.9791"),
])
def test_tie_rules_on_the_fixture(cli, ties, value):
    code, out, _ = cli("eval", FIXTURE, "--score", "model", "-m", "ndcg@5", "--ties", ties)
    assert code == 0
    assert f"NDCG@5 = {value} (gain=exp, ties={ties}, empty=exclude;" in out


def test_tie_bounds_and_conventions_options(cli):
    code, out, _ = cli("eval", FIXTURE, "--score", "model", "-m", "ndcg@5", "--tie-bounds",
                       "--gain", "linear", "--empty", "zero")
    assert code == 0
    res = _fixture_results(["ndcg@5"], gain="linear", empty="zero", tie_bounds=True)
    assert str(res["model"]["ndcg@5"]) in out
    assert "[tie range " in out and "gain=linear" in out
    code, out, _ = cli("eval", FIXTURE, "--score", "model", "-m", "ndcg@5", "--gain", "0,1,3,7",
                       "--rel-min", "2", "-m", "p@5")
    assert "gain=table[0, 1, 3, 7]" in out and "rel_min=2" in out


def test_preset_lightgbm_on_a_table(cli):
    code, out, _ = cli("eval", FIXTURE, "--score", "model", "-m", "ndcg@5", "--preset",
                       "lightgbm")
    res = _fixture_results(["ndcg@5"], preset="lightgbm")
    assert code == 0 and str(res["model"]["ndcg@5"]) in out
    assert "ties=input" in out


def test_every_score_column_is_a_system_by_default(cli, tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("qid,label,a,b,c\n1,1,0.5,0.1,3\n1,0,0.1,0.2,2\n2,1,0.3,0.3,1\n")
    code, out, _ = cli("eval", table, "-m", "rr")
    assert code == 0
    assert "3 systems" in out and "\na\n" in out and "\nb\n" in out and "\nc\n" in out
    # the fixture has text columns: they must be named (or left out with --score)
    code, _, err = cli("eval", FIXTURE, "-m", "rr")
    assert code == 1
    assert "column 'doc_id' must hold numeric scores; got 'q01-d02'. Name the score columns " \
           "with --score" in _error_line(err)


def test_tsv_and_parquet_tables_give_the_same_numbers(cli, tmp_path):
    pd = pytest.importorskip("pandas")  # part of the test extra; always installed there
    frame = pd.read_csv(FIXTURE, dtype={"qid": str, "doc_id": str})
    frame.to_csv(tmp_path / "f.tsv", sep="\t", index=False)
    frame.to_parquet(tmp_path / "f.parquet")
    outs = []
    for path in (FIXTURE, tmp_path / "f.tsv", tmp_path / "f.parquet"):
        code, out, err = cli("eval", path, *MODEL_BM25, "-m", "ndcg@5", "--format", "json",
                             *FAST)
        assert code == 0, err
        data = json.loads(out)
        outs.append((data["systems"]["model"]["metrics"]["ndcg@5"]["value"],
                     data["comparisons"]["rows"][0]["pvalue"]))
    assert outs[0] == outs[1] == outs[2]


def test_json_csv_markdown_formats(cli):
    results = _fixture_results(["ndcg@5"])
    code, out, _ = cli("eval", FIXTURE, *MODEL_BM25, "-m", "ndcg@5", "--format", "json", *FAST)
    data = json.loads(out)
    assert code == 0
    assert data["systems"]["bm25"]["metrics"]["ndcg@5"]["value"] == results["bm25"]["ndcg@5"].value
    assert data["settings"]["n_resamples"] == 500 and data["seed"] == 0
    assert data["inputs"][0].startswith(f"table {FIXTURE}: 666 rows, 40 queries")
    code, out, _ = cli("eval", FIXTURE, *MODEL_BM25, "-m", "ndcg@5", "--format", "csv", *FAST)
    rows = list(csv.DictReader(out.splitlines()))
    assert [r["system"] for r in rows] == ["model", "bm25"]
    assert float(rows[0]["value"]) == results["model"]["ndcg@5"].value
    code, out, _ = cli("eval", FIXTURE, *MODEL_BM25, "-m", "ndcg@5", "--format", "markdown",
                       *FAST)
    assert out.startswith("### skrank") and "| ndcg@5 | 40 |" in out


def test_per_query_file_and_per_topic_output(cli, tmp_path):
    pq = tmp_path / "per_query.csv"
    code, out, _ = cli("eval", FIXTURE, *MODEL_BM25, "-m", "ndcg@5", "-m", "rr", "--per-query",
                       pq, "-q", "--segment", "candidates", *FAST)
    assert code == 0
    rows = list(csv.DictReader(pq.open(encoding="utf-8")))
    assert len(rows) == 40
    assert list(rows[0]) == ["qid", "candidates", "ndcg@5:model", "ndcg@5:bm25",
                             "ndcg@5:model-bm25", "rr:model", "rr:bm25", "rr:model-bm25"]
    results = _fixture_results(["ndcg@5", "rr"])
    np.testing.assert_array_equal([float(r["ndcg@5:model"]) for r in rows],
                                  results["model"]["ndcg@5"].per_query)
    np.testing.assert_allclose([float(r["rr:model-bm25"]) for r in rows],
                               results["model"]["rr"].per_query - results["bm25"]["rr"].per_query)
    assert "Per query" in out and "\nq01 " in out


def test_segments_from_columns_and_a_query_log(cli, tmp_path):
    log = tmp_path / "queries.log"
    log.write_text("q01\nq01\nq01\nq02\n# a comment\nq03\n", encoding="utf-8")
    code, out, err = cli("eval", FIXTURE, *MODEL_BM25, "-m", "ndcg@5", "--segment",
                         "candidates=10,20", "--segment", "type=query_type", "--segment",
                         "frequency=frequency", "--segment", f"frequency-log={log}", *FAST)
    assert code == 0, err
    assert "Segments by candidates: model vs bm25 on ndcg@5 (gain=exp, ties=pessimistic, " \
           "empty=exclude)" in out
    assert "6-9" in out and "10-19" in out and "20+" in out
    assert "Segments by query_type" in out and "navigational" in out
    assert out.count("Segments by frequency") == 2
    assert f"counts from {log}" in out


def test_segment_metric_and_primary(cli):
    code, out, _ = cli("eval", FIXTURE, *MODEL_BM25, "-m", "ndcg@5,rr", "--primary", "rr",
                       "--segment", "type=query_type", *FAST)
    assert code == 0
    assert "rr (primary)" in out and "Segments by query_type: model vs bm25 on rr" in out
    code, out, _ = cli("eval", FIXTURE, *MODEL_BM25, "-m", "ndcg@5,rr", "--segment-metric",
                       "ndcg@5", "--segment", "type=query_type", *FAST)
    assert "on ndcg@5" in out


def test_output_file_and_plots(cli, tmp_path):
    report = tmp_path / "report.md"
    plots = tmp_path / "plots"
    code, out, err = cli("eval", FIXTURE, *MODEL_BM25, "-m", "ndcg@5", "--format", "markdown",
                         "-o", report, "--plot", plots, "--plot-k", "5", "--segment",
                         "candidates", *FAST)
    assert code == 0, err
    assert out == "" and report.read_text(encoding="utf-8").startswith("### skrank")
    assert sorted(p.name for p in plots.iterdir()) == [
        "differences_ndcg_at_5.png", "forest.png", "ndcg_at_k.png",
        "segments_candidates_model.png"]


def test_progress_goes_to_stderr_only_when_asked(cli):
    code, out, err = cli("eval", FIXTURE, "--score", "model", "-m", "rr", "--progress",
                         "always")
    assert code == 0 and "reading" in err and "evaluating model" in err
    assert "reading" not in out
    code, _, err = cli("eval", FIXTURE, "--score", "model", "-m", "rr")
    assert err == ""  # auto: not a terminal


# --------------------------------------------------------------------------- TREC and LibSVM


def test_trec_runs_with_a_baseline_run_file(cli, tmp_path):
    run_b = tmp_path / "other.run"
    lines = (TREC / "results.test").read_text().splitlines()
    # a second system: the same documents with the scores reversed within each topic
    run_b.write_text("\n".join(
        " ".join([*f[:4], str(-float(f[4])), "REV"]) for f in (line.split() for line in lines)
    ) + "\n")
    code, out, err = cli("eval", "-m", "ndcg@10", "--baseline", run_b, TREC / "qrels.test",
                         TREC / "results.test", *FAST)
    assert code == 0, err
    assert "baseline: other.run" in out
    assert "idcg=pool" in out  # TREC runs: the ideal DCG comes from the qrels
    assert "run results.test" in out and "(tag STANDARD)" in out


def test_trec_topics_on_one_side_only_are_counted(cli, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("301 Q0 FBIS3-10937 1 3.0 r\n999 Q0 X 1 1.0 r\n")
    code, out, _ = cli("eval", "-m", "p@5", TREC / "qrels.test", run)
    assert code == 0
    assert "1 topic of the run has no judgement ('999'): ignored, as trec_eval does" in out
    assert "2 judged topics have no result in the run ('302', '303'): ignored" in out
    code, out, _ = cli("eval", "-m", "p@5", "-c", TREC / "qrels.test", run)
    assert "counted with value 0 (-c)" in out and "3 queries" in out


def test_trec_run_only_error_stops(cli, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("301 Q0 FBIS3-10937 1 3.0 r\n999 Q0 X 1 1.0 r\n")
    code, _, err = cli("eval", "--run-only", "error", TREC / "qrels.test", run)
    assert code == 1
    assert "'999'" in _error_line(err)


def test_libsvm_with_score_files(cli, tmp_path):
    rng = np.random.default_rng(0)
    qid = np.repeat([3, 8, 5, 9], 6)
    y = rng.integers(0, 3, qid.size)
    data = tmp_path / "test.svm"
    data.write_text("".join(f"{lab} qid:{q} 1:{rng.random():.3f}\n" for lab, q in zip(y, qid)))
    a, b = rng.normal(size=qid.size), rng.normal(size=qid.size)
    (tmp_path / "model.txt").write_text("".join(f"{float(v)!r}\n" for v in a))
    (tmp_path / "base.txt").write_text("".join(f"{float(v)!r}\n" for v in b))
    code, out, err = cli("eval", data, tmp_path / "model.txt", "--baseline",
                         tmp_path / "base.txt", "-m", "ndcg@3", "--format", "json", *FAST)
    assert code == 0, err
    got = json.loads(out)
    assert got["baseline"] == "base.txt"
    for name, s in (("model.txt", a), ("base.txt", b)):
        expected = skrank.evaluate(y, s, qid, metrics=["ndcg@3"])["ndcg@3"].value
        assert got["systems"][name]["metrics"]["ndcg@3"]["value"] == expected


def test_libsvm_is_recognised_and_segments_need_a_query_table(cli, tmp_path):
    data = tmp_path / "d.txt"
    data.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n2 qid:2 1:0.3\n0 qid:2 1:0.2\n")
    (tmp_path / "s.txt").write_text("0.3\n0.2\n0.1\n0.4\n")
    code, _, err = cli("eval", data, tmp_path / "s.txt", "--segment", "type=kind")
    assert code == 1
    assert "needs the column 'kind' in a --query-table FILE" in _error_line(err)
    table = tmp_path / "queries.csv"
    table.write_text("qid,kind\n1,nav\n2,info\n")
    code, out, err = cli("eval", data, tmp_path / "s.txt", "--query-table", table,
                         "--segment", "type=kind", "-m", "rr")
    assert code == 0, err
    assert "Segments by kind: s.txt on rr" in out


def test_gzip_run_and_qrels(cli, tmp_path):
    for name in ("qrels.test", "results.test"):
        (tmp_path / f"{name}.gz").write_bytes(gzip.compress((TREC / name).read_bytes()))
    code, out, _ = cli("eval", "-m", "map", "--preset", "trec_eval", "--format", "trec",
                       tmp_path / "qrels.test.gz", tmp_path / "results.test.gz")
    assert code == 0 and "map                   \tall\t0.1785" in out  # out.test.a: 0.1785


# --------------------------------------------------------------------------- bad data: exit 1


def test_malformed_qrels_line_names_file_and_line(cli, tmp_path):
    qrels = tmp_path / "bad.qrels"
    qrels.write_text("301 0 d1 1\n301 0 d2\n")
    code, out, err = cli("eval", qrels, TREC / "results.test")
    assert code == 1 and out == ""
    assert f"{qrels}, line 2: malformed line" in _error_line(err)


def test_duplicate_document_in_a_run(cli, tmp_path):
    run = tmp_path / "dup.run"
    run.write_text("301 Q0 d1 1 2.0 r\n301 Q0 d2 2 1.0 r\n301 Q0 d1 3 0.5 r\n")
    code, _, err = cli("eval", TREC / "qrels.test", run)
    assert code == 1
    line = _error_line(err)
    assert f"{run}, line 3: document 'd1' is retrieved twice for query '301'" in line


def test_nan_score_in_a_run_and_in_a_table(cli, tmp_path):
    run = tmp_path / "nan.run"
    run.write_text("301 Q0 d1 1 nan r\n")
    code, _, err = cli("eval", TREC / "qrels.test", run)
    assert code == 1 and f"{run}, line 1: the score is NaN" in _error_line(err)
    table = tmp_path / "t.csv"
    table.write_text("qid,label,s\n1,1,0.5\n1,0,\n")
    code, _, err = cli("eval", table)
    assert code == 1 and "line 3: missing value in column 's'" in _error_line(err)


def test_unknown_column_names_the_option_and_the_columns(cli):
    code, _, err = cli("eval", FIXTURE, "--score", "modle")
    assert code == 1
    line = _error_line(err)
    assert "--score: no column 'modle'" in line and "'model'" in line and "'bm25'" in line
    code, _, err = cli("eval", FIXTURE, "--score", "model", "--baseline", "bm26")
    assert "--baseline: no column 'bm26'" in _error_line(err)
    code, _, err = cli("eval", FIXTURE, "--qid", "query")
    assert "--qid: no column 'query'" in _error_line(err)
    code, _, err = cli("eval", FIXTURE, "--segment", "type=kind")
    assert "--segment: no column 'kind'" in _error_line(err)


def test_baseline_covering_other_queries_names_the_missing_ones(cli, tmp_path):
    lines = (TREC / "results.test").read_text().splitlines()
    partial = tmp_path / "partial.run"
    partial.write_text("\n".join(line for line in lines if not line.startswith("303")) + "\n")
    code, _, err = cli("eval", "--baseline", partial, TREC / "qrels.test",
                       TREC / "results.test", *FAST)
    assert code == 1
    line = _error_line(err)
    assert "the baseline 'partial.run' has no value for 1 query of 'results.test': '303'" in line
    # -c counts the topic as 0 in both runs, and the comparison goes through
    code, _, err = cli("eval", "-c", "--baseline", partial, TREC / "qrels.test",
                       TREC / "results.test", *FAST)
    assert code == 0, err


def test_baseline_that_is_neither_a_system_nor_a_file(cli):
    code, _, err = cli("eval", TREC / "qrels.test", TREC / "results.test", "--baseline", "bm25")
    assert code == 1
    assert "--baseline: 'bm25' is neither one of the systems ('results.test') nor a file" \
        in _error_line(err)


def test_a_table_without_a_table_suffix_gets_a_hint(cli, tmp_path):
    table = tmp_path / "scores.txt"
    table.write_text("qid,label,s\n1,1,0.5\n")
    hint = "(read as trec input, guessed from the files; use --input table or libsvm"
    code, _, err = cli("eval", table)
    assert code == 1
    line = _error_line(err)
    assert "TREC input needs a qrels file and at least one run" in line and hint in line
    code, _, err = cli("eval", table, TREC / "results.test")
    line = _error_line(err)
    assert f"{table}, line 1: malformed line" in line and hint in line
    code, _, err = cli("eval", "--input", "table", table)
    assert code == 0, err


def test_complete_contradicting_qrels_only_is_a_usage_error(cli):
    code, _, err = cli("eval", "-c", "--qrels-only", "error", TREC / "qrels.test",
                       TREC / "results.test")
    assert code == 2 and "-c/--complete contradicts --qrels-only error" in err


def test_missing_file(cli, tmp_path):
    code, _, err = cli("eval", tmp_path / "nope.qrels", TREC / "results.test")
    assert code == 1 and "nope.qrels: no such file" in _error_line(err)


def test_run_without_any_judged_topic(cli, tmp_path):
    run = tmp_path / "r.run"
    run.write_text("999 Q0 d 1 1.0 r\n")
    code, _, err = cli("eval", TREC / "qrels.test", run)
    assert code == 1 and "no topic of the run is judged" in _error_line(err)


def test_all_queries_without_relevant_documents(cli, tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("qid,label,a,b\n1,0,0.5,0.1\n1,0,0.1,0.2\n2,0,0.3,0.3\n")
    code, _, err = cli("eval", table, "--baseline", "b", "-m", "ndcg@5")
    assert code == 1 and "at least 2 queries" in _error_line(err)


# --------------------------------------------------------------------------- usage: exit 2


@pytest.mark.parametrize(("args", "message"), [
    (["-m", "ndgc@5"], "unknown metric 'ndgc@5'"),
    (["-m", "ndcg@0"], "-m/--metric"),
    (["--gain", "expo"], "expected 'exp', 'linear' or gains by label"),
    (["--ties", "random"], "invalid choice: 'random'"),
    (["--rel-min", "0"], "expected a number > 0"),
    (["--alpha", "1.5"], "between 0 and 1"),
    (["--segment", "length"], "expected candidates[=BINS]"),
    (["--segment", "candidates=10,5"], "increasing lower bounds"),
    (["--frequency-cuts", "0.8,0.2"], "two increasing shares"),
    (["--format", "pdf"], "invalid choice: 'pdf'"),
    (["--primary", "ap@10", "--baseline", "bm25"], "--primary ap@10: not one of the metrics"),
    (["--primary", "ndcg@10"], "--primary needs --baseline"),
    (["--segment-metric", "rr"], "--segment-metric rr: not one of the metrics"),
    (["--ties", "docid"], "--ties docid breaks ties by document id"),
    (["--group", "sizes.txt"], "--group applies to libsvm input, but the input is table "
                               "(guessed; set it with --input)"),
    (["-c"], "-c/--complete applies to trec input"),
    (["--run-only", "error"], "--run-only applies to trec input"),
])
def test_usage_errors_exit_2(cli, args, message):
    code, out, err = cli("eval", FIXTURE, "--score", "model", *args)
    assert code == 2 and out == ""
    assert err.startswith("usage: ") and message in err


def test_no_command_and_version(cli):
    code, _, err = cli()
    assert code == 2 and "required: COMMAND" in err
    code, out, _ = cli("--version")
    assert code == 0 and out.strip() == f"skrank {skrank.__version__}"


def test_trec_eval_metric_names_are_accepted(cli):
    code, out, _ = cli("eval", "-m", "map,recip_rank", "-m", "P.5,10", "-m", "success_1",
                       TREC / "qrels.test", TREC / "results.test")
    assert code == 0
    for name in ("AP = ", "RR = ", "P@5 = ", "P@10 = ", "Hit@1 = "):
        assert name in out


def test_rank_eval_alias(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["/usr/bin/rank-eval", str(FIXTURE), "--score", "model",
                                      "-m", "rr"])
    assert main() == 0
    out = capsys.readouterr().out
    assert "RR = " in out
    monkeypatch.setattr(sys, "argv", ["rank-eval", "--version"])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"rank-eval {skrank.__version__}"


# --------------------------------------------------------------------------- the installed script


def test_installed_console_script(tmp_path):
    script = Path(sys.executable).with_name("skrank")
    assert script.is_file(), "skrank is installed (pip install -e .) with its console script"
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run(
        [str(script), "eval", str(FIXTURE), *MODEL_BM25, "-m", "ndcg@5", "--format", "json",
         *FAST, "--per-query", str(tmp_path / "pq.csv")],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["comparisons"]["rows"][0]["comparison"]["n"] == 40
    assert (tmp_path / "pq.csv").read_text().startswith("qid,ndcg@5:model")
    assert proc.stderr == ""
