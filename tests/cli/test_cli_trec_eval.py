"""``skrank eval --preset trec_eval --format trec`` reproduces trec_eval v10, line for line.

The qrels and runs are trec_eval's own test files (tests/data/trec_eval); the expected
outputs are trec_eval v10.0's (tests/data/trec_eval_expected, see its README for the
commands). Every line skrank prints for a measure it offers must be in trec_eval's output,
with the same 4-decimal value, and every such measure of trec_eval's output must be printed.
"""

from __future__ import annotations

import pytest

from .conftest import EXPECTED, TREC

# the measures skrank offers, in trec_eval's -m syntax (families take trec_eval's cutoffs)
MEASURES = ["-m", "map,recip_rank,ndcg", "-m", "P", "-m", "ndcg_cut", "-m", "recall",
            "-m", "map_cut", "-m", "success"]
OFFERED = ("map", "recip_rank", "ndcg", "P_", "ndcg_cut_", "recall_", "map_cut_", "success_")


def read_trec(text: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in text.splitlines():
        measure, topic, value = line.split("\t")
        key = (measure.strip(), topic)
        assert key not in out, f"{key} printed twice"
        out[key] = value
    return out


def offered(key) -> bool:
    m = key[0]
    return m in ("map", "recip_rank", "ndcg", "runid", "num_q") or (
        m.startswith(OFFERED[3:]) and m.split("_")[-1].isdigit())


@pytest.mark.parametrize(("expected", "qrels", "run", "options"), [
    ("out.test.a", "qrels.test", "results.test", []),
    ("out.test.aq", "qrels.test", "results.test", ["-q"]),
    ("out.test.aqc", "qrels.test", "results.trunc", ["-q", "-c"]),
])
def test_trec_format_reproduces_trec_eval(cli, expected, qrels, run, options):
    code, out, err = cli("eval", "--preset", "trec_eval", *MEASURES, *options,
                         "--format", "trec", TREC / qrels, TREC / run)
    assert code == 0, err
    ours = read_trec(out)
    theirs = {k: v for k, v in read_trec((EXPECTED / expected).read_text()).items()
              if offered(k)}
    assert ours == theirs
    topics = {t for _, t in ours}
    assert topics == ({"all"} if "-q" not in options else {"301", "302", "303", "all"})


@pytest.mark.parametrize("preset", ["trec_eval9", "trec_eval"])
def test_trec_eval9_lists_no_topic_that_c_counts_but_the_run_lacks(cli, preset):
    # trec_eval 9 -q -c: topic 302 counts in the means (num_q 3) but has no per-topic
    # line; trec_eval 10 prints its lines (as 0)
    code, out, err = cli("eval", "--preset", preset, *MEASURES, "-q", "-c", "--format",
                         "trec", TREC / "qrels.test", TREC / "results.trunc")
    assert code == 0, err
    ours = read_trec(out)
    expected = EXPECTED / ("v9.0.8/out.test.aqc" if preset == "trec_eval9" else "out.test.aqc")
    theirs = {k: v for k, v in read_trec(expected.read_text()).items() if offered(k)}
    assert ours == theirs
    assert ("302" in {t for _, t in ours}) == (preset == "trec_eval")
    assert ours["num_q", "all"] == "3"


@pytest.mark.parametrize("options", [["--preset", "trec_eval9", "--format", "trec"],
                                     ["--preset", "trec_eval", "--score-precision", "float32"]])
@pytest.mark.parametrize(("line", "score"), [(1, "1e39"), (5, "1e39"), (700, "-1e39")])
def test_a_score_float32_cannot_hold_names_the_run_line(cli, tmp_path, options, line, score):
    # evaluate named "row 0" or "row 2148" of the joined arrays
    lines = (TREC / "results.test").read_text().splitlines()
    fields = lines[line - 1].split()
    fields[4] = score
    lines[line - 1] = " ".join(fields)
    run = tmp_path / "big.run"
    run.write_text("\n".join(lines) + "\n")
    code, out, err = cli("eval", *options, "-m", "map", TREC / "qrels.test", run)
    assert code == 1 and out == ""
    assert err == (f"skrank: error: {run}, line {line}: the score {float(score)!r} does not "
                   "fit float32 (largest 3.40282e+38), in which score_precision='float32' "
                   "ranks the scores (trec_eval 9); choose --score-precision float64.\n")
    code, out, err = cli("eval", "--preset", "trec_eval", "-m", "map", TREC / "qrels.test", run)
    assert code == 0, err  # float64 scores hold it


def test_without_c_a_topic_missing_from_the_run_is_ignored_and_counted(cli):
    # results.trunc has no result for topic 302: trec_eval drops it unless -c
    code, out, err = cli("eval", "--preset", "trec_eval", "-m", "map",
                         TREC / "qrels.test", TREC / "results.trunc")
    assert code == 0, err
    assert "1 judged topic has no result in the run ('302'): ignored" in out
    assert "2 queries" in out


def test_text_output_with_the_trec_eval_preset_states_its_conventions(cli):
    code, out, _ = cli("eval", "--preset", "trec_eval", "-m", "ndcg_cut.10", "-m", "P.5",
                       TREC / "qrels.test", TREC / "results.test")
    assert code == 0
    expected = read_trec((EXPECTED / "out.test.a").read_text())
    ndcg, p5 = expected["ndcg_cut_10", "all"], expected["P_5", "all"]  # 0.3016, 0.2667
    assert f"NDCG@10 = {ndcg} (gain=linear, ties=docid, empty=zero, idcg=pool; 3 queries)" in out
    assert f"P@5 = {p5} (ties=docid, empty=zero, rel_min=1, p_divisor=k; 3 queries)" in out


@pytest.mark.parametrize(("options", "expected"), [
    (["--preset", "trec_eval"], "0.5000"),  # trec_eval 10: doubles, "a" ranks first
    (["--preset", "trec_eval9"], "1.0000"),  # trec_eval 9 / pytrec_eval: a float32 tie
    (["--preset", "trec_eval", "--score-precision", "float32"], "1.0000"),
    (["--preset", "trec_eval9", "--score-precision", "float64"], "0.5000"),
])
def test_score_precision_separates_trec_eval_9_from_10(cli, tmp_path, options, expected):
    """Scores 0.30000001 and 0.3 tie only in float32 (issue 13). pytrec_eval (trec_eval 9.0.8
    inside) gives RR 1.0 (the tie goes to docno "c" first); trec_eval 10 gives 0.5."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ref = pytrec_eval.RelevanceEvaluator({"q": {"a": 0, "c": 1}}, {"recip_rank"}).evaluate(
        {"q": {"a": 0.30000001, "c": 0.3}})
    assert ref["q"]["recip_rank"] == 1.0
    (tmp_path / "qrels").write_text("q 0 c 1\nq 0 a 0\n")
    (tmp_path / "run").write_text("q Q0 a 1 0.30000001 r\nq Q0 c 2 0.3 r\n")
    code, out, err = cli("eval", *options, "-m", "recip_rank", "--format", "trec",
                         tmp_path / "qrels", tmp_path / "run")
    assert code == 0, err
    assert read_trec(out)["recip_rank", "all"] == expected


def test_trec_format_refuses_values_under_other_conventions(cli, tmp_path):
    """trec_eval's names only for trec_eval's numbers (issue 13). Graded qrels: pytrec_eval's
    ndcg_cut_10 is 0.6199 (linear gain); under --gain exp the value is 0.5869, which
    ``--format trec`` used to print as ndcg_cut_10."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ref = pytrec_eval.RelevanceEvaluator({"q": {"a": 2, "b": 1, "c": 0}}, {"ndcg_cut.10"})
    expected = ref.evaluate({"q": {"c": 3.0, "b": 2.0, "a": 1.0}})["q"]["ndcg_cut_10"]
    (tmp_path / "qrels").write_text("q 0 a 2\nq 0 b 1\nq 0 c 0\n")
    (tmp_path / "run").write_text("q Q0 c 1 3 r\nq Q0 b 2 2 r\nq Q0 a 3 1 r\n")
    files = (tmp_path / "qrels", tmp_path / "run")
    code, out, err = cli("eval", "--preset", "trec_eval", "-m", "ndcg_cut.10",
                         "--format", "trec", *files)
    assert code == 0, err
    assert read_trec(out)["ndcg_cut_10", "all"] == f"{expected:.4f}" == "0.6199"
    code, out, err = cli("eval", "--preset", "trec_eval", "--gain", "exp", "-m", "ndcg_cut.10",
                         "--format", "trec", *files)
    assert code == 2 and out == ""
    assert "ndcg_cut_10" in err and "gain=exp (trec_eval: linear)" in err
    assert "--preset trec_eval" in err and "another --format" in err
    # the same numbers in skrank's own formats are fine: they state their conventions
    code, out, err = cli("eval", "--preset", "trec_eval", "--gain", "exp", "-m", "ndcg_cut.10",
                         *files)
    assert code == 0 and "NDCG@10 = 0.5869 (gain=exp" in out


@pytest.mark.parametrize(("options", "named"), [
    ([], "ties=pessimistic (trec_eval: docid)"),  # skrank's defaults
    (["--preset", "trec_eval", "--idcg", "ranked"], "idcg=ranked (trec_eval: pool)"),
    (["--preset", "trec_eval", "--empty", "exclude"], "empty=exclude (trec_eval: zero)"),
    (["--preset", "sklearn"], "ties=average (trec_eval: docid)"),
])
def test_trec_format_names_the_conventions_that_differ(cli, options, named):
    # --idcg ranked gives map 0.3150 on this collection, where trec_eval prints 0.1785
    code, out, err = cli("eval", *options, "-m", "map", "--format", "trec",
                         TREC / "qrels.test", TREC / "results.test")
    assert code == 2 and out == ""
    assert named in err


@pytest.mark.parametrize(("options", "named"), [
    (["--preset", "trec_eval", "--gain", "exp"], "gain=exp (trec_eval: linear)"),
    (["--preset", "trec_eval", "--idcg", "ranked"], "idcg=ranked (trec_eval: pool)"),
    (["--preset", "lightgbm"], "ties=input (trec_eval: docid)"),
])
def test_trec_format_checks_ndcg_whose_name_is_trec_evals_too(cli, options, named):
    # trec_eval's ndcg has skrank's name: under --gain exp it printed 0.3781 where
    # trec_eval's ndcg is 0.3894 on these files
    code, out, err = cli("eval", *options, "-m", "ndcg", "--format", "trec",
                         TREC / "qrels.rel_level", TREC / "results.test")
    assert code == 2 and out == ""
    assert "NDCG would be printed as ndcg" in err and named in err
    code, out, err = cli("eval", "--preset", "trec_eval", "-m", "ndcg", "--format", "trec",
                         TREC / "qrels.rel_level", TREC / "results.test")
    assert code == 0 and read_trec(out)["ndcg", "all"] == "0.3894"


def test_trec_format_keeps_rel_min_and_score_precision(cli):
    """trec_eval's -l is rel_min, and float32 scores are trec_eval 9: both are trec_eval's."""
    code, out, err = cli("eval", "--preset", "trec_eval9", "--rel-min", "2", "-m", "map",
                         "--format", "trec", TREC / "qrels.test", TREC / "results.test")
    assert code == 0, err
    assert float(read_trec(out)["map", "all"]) >= 0  # printed, not refused
