"""skrank.reports: build_report against skrank.stats called directly, and every renderer.

The comparisons of a report must be exactly what :func:`skrank.stats.paired_comparison`
returns for the same per-query vectors and seed (the report adds no statistics of its own);
the renderers must carry every number and its conventions into their format.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys

import numpy as np
import pytest

import skrank
from skrank.exceptions import InputError, InvalidParameterError
from skrank.reports import (
    Report,
    build_report,
    metric_at_k,
    plot_differences,
    plot_forest,
    plot_metric_at_k,
    plot_segments,
    trec_name,
    write_plots,
)
from skrank.segments import by_candidates, by_column, count_candidates
from skrank.stats import multiple_comparisons, paired_comparison

FAST = dict(n_resamples=500, n_permutations=500)
METRICS = ["ndcg@5", "ap@10", "rr"]


def _systems(n_queries=30, seed=0, drop_last=False):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 15, size=n_queries)
    qid = np.repeat([f"q{i:02d}" for i in range(n_queries)], sizes)
    y = rng.integers(0, 3, size=qid.size)
    y[np.r_[0, np.cumsum(sizes)[:-1]]] = 1  # every query has a relevant document
    out = {}
    for name, noise in (("model", 0.9), ("other", 1.1), ("bm25", 1.4)):
        score = y + rng.normal(0, noise, qid.size)
        keep = qid != qid[-1] if (drop_last and name == "model") else np.ones(qid.size, bool)
        out[name] = skrank.evaluate(y[keep], score[keep], qid[keep], metrics=METRICS)
    return out, qid


@pytest.fixture(scope="module")
def two():
    results, qid = _systems()
    results = {k: results[k] for k in ("model", "bm25")}
    qids, counts = count_candidates(qid)
    segs = [by_candidates(qids, counts, bins=3),
            by_column(qids, np.where(np.arange(qids.size) % 3 == 0, "nav", "info"))]
    report = build_report(results, baseline="bm25", primary="ndcg@5", segmentations=segs,
                          rng=11, **FAST)
    return report, results


# --------------------------------------------------------------------------- build_report


def test_comparisons_are_paired_comparison_with_the_same_seed(two):
    report, results = two
    for m in METRICS:
        ref = paired_comparison(results["model"][m].per_query, results["bm25"][m].per_query,
                                qids_a=results["model"].qids, qids_b=results["bm25"].qids,
                                nan_policy="omit", rng=11, **FAST)
        got = report.comparison("model", m)
        assert got.mean_difference == ref.mean_difference
        assert (got.ci_bca.low, got.ci_bca.high) == (ref.ci_bca.low, ref.ci_bca.high)
        assert got.pvalues == ref.pvalues
        assert got.mdd.value == ref.mdd.value
        assert (got.wins, got.ties, got.losses) == (ref.wins, ref.ties, ref.losses)


def test_primary_is_uncorrected_and_the_others_are_holm_corrected(two):
    report, _ = two
    rows = list(report.comparisons)
    assert [r.name for r in rows] == METRICS
    assert [r.role for r in rows] == ["primary", "secondary", "secondary"]
    assert rows[0].pvalue_adjusted == rows[0].pvalue
    holm = multiple_comparisons([r.pvalue for r in rows[1:]], "holm").pvalues_adjusted
    assert [r.pvalue_adjusted for r in rows[1:]] == holm.tolist()


def test_without_primary_all_comparisons_form_one_family():
    results, _ = _systems()
    report = build_report({k: results[k] for k in ("model", "bm25")}, baseline="bm25",
                          correction="bonferroni", rng=0, **FAST)
    rows = list(report.comparisons)
    assert all(r.role == "secondary" for r in rows)
    assert [r.pvalue_adjusted for r in rows] == [min(1.0, 3 * r.pvalue) for r in rows]


def test_several_systems_name_comparisons_system_colon_metric():
    results, _ = _systems()
    report = build_report(results, baseline="bm25", primary="other:rr", rng=0, **FAST)
    assert report.compared == ["model", "other"]
    assert report.comparisons.names == tuple(
        f"{s}:{m}" for s in ("model", "other") for m in METRICS)
    assert report.comparisons["other:rr"].role == "primary"
    # a family of 5 secondary comparisons
    sec = [r for r in report.comparisons if r.role == "secondary"]
    holm = multiple_comparisons([r.pvalue for r in sec], "holm").pvalues_adjusted
    assert [r.pvalue_adjusted for r in sec] == holm.tolist()
    with pytest.raises(InvalidParameterError, match="'system:metric' when several systems"):
        build_report(results, baseline="bm25", primary="rr", rng=0, **FAST)
    with pytest.raises(InvalidParameterError, match="with a compared system"):
        build_report(results, baseline="bm25", primary="bm25:rr", rng=0, **FAST)


def test_primary_must_be_a_metric_and_needs_a_baseline():
    results, _ = _systems()
    with pytest.raises(InvalidParameterError, match=r"one of the metrics \(ndcg@5, ap@10, rr\)"):
        build_report(results, baseline="bm25", primary="ndcg@10", rng=0, **FAST)
    with pytest.raises(InvalidParameterError, match="None when there is no baseline"):
        build_report(results, primary="rr", rng=0)


def test_baseline_covering_other_queries_is_refused_with_the_queries_named():
    results, _ = _systems(drop_last=True)
    with pytest.raises(InputError, match=r"the baseline 'bm25' has no value for|"
                                         r"'model' has no value for 1 query of the baseline "
                                         r"'bm25': 'q29'"):
        build_report(results, baseline="bm25", rng=0, **FAST)
    # without a baseline the systems may cover different queries
    report = build_report(results, rng=0)
    assert report.comparisons is None and report.n_queries == 30


def test_bad_results_and_baseline():
    results, _ = _systems()
    with pytest.raises(InvalidParameterError, match="'results' parameter of build_report"):
        build_report({})
    with pytest.raises(InvalidParameterError, match="'results' parameter of build_report"):
        build_report({"a": [0.1, 0.2]})
    with pytest.raises(InvalidParameterError, match="'baseline' parameter of build_report"):
        build_report(results, baseline="nope")
    with pytest.raises(InputError, match="only system"):
        build_report({"bm25": results["bm25"]}, baseline="bm25")
    other = skrank.evaluate([1, 0], [0.2, 0.1], [1, 1], metrics=["rr"])
    with pytest.raises(InputError, match="every system needs the same metrics"):
        build_report({"a": results["bm25"], "b": other})


def test_queries_without_a_value_are_left_out_and_noted():
    qid = np.repeat(np.arange(12), 5)
    y = np.tile([1, 0, 0, 2, 0], 12)
    y[:5] = 0  # query 0 has no relevant document: NaN under empty="exclude"
    rng = np.random.default_rng(0)
    res = {n: skrank.evaluate(y, rng.normal(size=y.size), qid, metrics=["ndcg@3"])
           for n in ("a", "b")}
    report = build_report(res, baseline="b", rng=0, **FAST)
    assert report.comparison("a", "ndcg@3").n == 11
    assert any("1 query without a value" in n and "empty=exclude" in n for n in report.notes)


def test_segment_tables_use_the_primary_metric_and_align_the_baseline(two):
    report, results = two
    assert report.segment_metric == skrank.Metric.parse("ndcg@5")
    assert [t.name for t in report.segments] == ["candidates", "type"]
    table = report.segments[1]
    a = results["model"]["ndcg@5"].per_query
    b = results["bm25"]["ndcg@5"].per_query
    labels = report.segmentations[1].labels_for(results["model"].qids)
    for row in table:
        m = labels == row.segment
        assert row.difference == pytest.approx((a[m] - b[m]).mean(), rel=1e-12)


def test_segment_metric_must_be_computed():
    results, qid = _systems()
    seg = by_candidates(*count_candidates(qid))
    with pytest.raises(InvalidParameterError, match="'segment_metric' parameter"):
        build_report(results, baseline="bm25", segmentations=[seg], segment_metric="p@5",
                     rng=0, **FAST)


def test_seed_none_draws_one_seed_and_reports_it():
    results, _ = _systems()
    pair = {k: results[k] for k in ("model", "bm25")}
    r1 = build_report(pair, baseline="bm25", rng=None, **FAST)
    r2 = build_report(pair, baseline="bm25", rng=r1.seed, **FAST)
    assert isinstance(r1.seed, int)
    assert r1.comparison("model", "rr").pvalues == r2.comparison("model", "rr").pvalues


# --------------------------------------------------------------------------- per-query table


def test_per_query_table_holds_every_metric_of_every_system(two, tmp_path):
    report, results = two
    cols = report.per_query_table()
    assert list(cols)[:3] == ["qid", "candidates", "type"]
    qids = results["model"].qids.tolist()
    assert cols["qid"] == qids
    for m in METRICS:
        np.testing.assert_array_equal(cols[f"{m}:model"], results["model"][m].per_query)
        np.testing.assert_array_equal(cols[f"{m}:bm25"], results["bm25"][m].per_query)
        np.testing.assert_allclose(cols[f"{m}:model-bm25"],
                                   results["model"][m].per_query - results["bm25"][m].per_query)
    path = tmp_path / "pq.tsv"
    report.write_per_query(path)
    rows = list(csv.reader(path.open(encoding="utf-8"), delimiter="\t"))
    assert rows[0] == list(cols)
    assert len(rows) == len(qids) + 1
    assert float(rows[1][rows[0].index("rr:model")]) == cols["rr:model"][0]


def test_per_query_table_without_baseline_is_the_union_with_nan():
    results, _ = _systems(drop_last=True)
    cols = build_report(results, rng=0).per_query_table()
    assert len(cols["qid"]) == 30
    assert math.isnan(cols["rr:model"][-1]) and not math.isnan(cols["rr:bm25"][-1])


# --------------------------------------------------------------------------- renderers


def test_text_states_the_conventions_with_every_number(two):
    report, results = two
    text = report.to_text()
    for name in ("model", "bm25"):
        for m in METRICS:
            assert str(results[name][m]) in text  # value with its conventions
    assert "Comparison with the baseline bm25" in text
    assert "ndcg@5 (primary)" in text
    for m in METRICS:
        assert f"{m}: {results['bm25'][m].describe_conventions()}" in text
    assert "minimum detectable difference" in text
    assert "Segments by candidates: model vs bm25 on ndcg@5 (gain=exp" in text
    assert "Per query" not in text
    assert "Per query" in report.to_text(per_query=True)


def test_markdown_tables_are_well_formed(two):
    report, _ = two
    md = report.to_markdown(per_query=True)
    assert md.startswith("### skrank")
    tables = re.findall(r"((?:^\|.*\|\n)+)", md, flags=re.MULTILINE)
    assert len(tables) >= 4  # metrics, comparisons, two segment tables, per query
    for t in tables:
        lines = t.strip("\n").split("\n")
        widths = {line.count(" | ") for line in lines}
        assert len(widths) == 1, t  # the same number of cells on every line
        assert re.fullmatch(r"\| (---:?)( \| ---:?)* \|", lines[1])
    assert "<details>" in md and "gain=exp, ties=pessimistic, empty=exclude" in md


def test_json_is_strict_and_complete(two):
    report, results = two

    def refuse(token):
        raise AssertionError(f"non-standard JSON constant {token}")

    data = json.loads(report.to_json(per_query=True), parse_constant=refuse)
    assert data["baseline"] == "bm25" and data["primary"] == "ndcg@5" and data["seed"] == 11
    m = data["systems"]["model"]["metrics"]["ndcg@5"]
    assert m["value"] == results["model"]["ndcg@5"].value
    assert m["conventions"]["ties"] == "pessimistic"
    assert m["conventions_text"] == "gain=exp, ties=pessimistic, empty=exclude"
    rows = data["comparisons"]["rows"]
    assert [r["name"] for r in rows] == METRICS
    comp = rows[0]["comparison"]
    assert comp["mean_difference"] == report.comparison("model", "ndcg@5").mean_difference
    assert comp["minimum_detectable_difference"]["value"] > 0
    assert len(data["segments"]) == 2
    assert data["per_query"]["qid"] == results["model"].qids.tolist()


def test_json_writes_nan_as_null():
    results, _ = _systems(drop_last=True)
    data = json.loads(build_report(results, rng=0).to_json(per_query=True))
    assert data["per_query"]["rr:model"][-1] is None


def test_csv_rows(two):
    report, results = two
    rows = list(csv.DictReader(io.StringIO(report.to_csv())))
    assert len(rows) == 2 * 3 + 3 + 2  # systems x metrics, then 3 + 2 segments
    first = rows[0]
    assert (first["system"], first["baseline"], first["metric"]) == ("model", "bm25", "ndcg@5")
    assert float(first["value"]) == results["model"]["ndcg@5"].value
    comp = report.comparison("model", "ndcg@5")
    assert float(first["difference"]) == comp.mean_difference
    assert float(first["pvalue"]) == comp.pvalue
    assert first["role"] == "primary" and first["correction"] == "none"
    assert rows[1]["correction"] == "holm"
    assert first["conventions"] == "gain=exp, ties=pessimistic, empty=exclude"
    base = [r for r in rows if r["system"] == "bm25"]
    assert all(r["difference"] == "" for r in base)
    seg = rows[6]
    assert seg["segmentation"] == "candidates" and seg["segment"] == report.segments[0][0].segment
    assert float(seg["difference"]) == report.segments[0][0].difference


def _trec_systems(preset="trec_eval", **conv):
    rng = np.random.default_rng(0)
    qid = np.repeat([f"q{i:02d}" for i in range(5)], 6)
    y = rng.integers(0, 3, qid.size)
    doc = np.array([f"d{i}" for i in range(qid.size)])
    return {name: skrank.evaluate(y, y + rng.normal(0, noise, qid.size), qid, doc_id=doc,
                                  metrics=METRICS, preset=preset, **conv)
            for name, noise in (("model", 0.9), ("bm25", 1.4))}


def test_trec_format():
    results = _trec_systems()
    text = build_report(results, rng=0).to_trec(per_query=True, runids={"bm25": "BM25"})
    lines = text.splitlines()
    assert all(re.fullmatch(r"\S+ *\t\S+\t\S+", line) for line in lines)
    assert lines[0].startswith("ndcg_cut_5            \tq00\t")
    assert "runid                 \tall\tBM25" in lines
    assert f"recip_rank            \tall\t{results['bm25']['rr'].value:.4f}" in lines


@pytest.mark.parametrize(("conv", "named"), [
    ({"preset": None}, "gain=exp (trec_eval: linear)"),
    ({"gain": "exp"}, "gain=exp (trec_eval: linear)"),
    ({"ties": "input"}, "ties=input (trec_eval: docid)"),
])
def test_trec_format_refuses_other_conventions(conv, named):
    """trec_eval's names (ndcg_cut_5) only for numbers under trec_eval's conventions."""
    report = build_report(_trec_systems(**conv), rng=0)
    with pytest.raises(InvalidParameterError, match="ndcg_cut_5") as info:
        report.to_trec()
    assert named in str(info.value) and "preset='trec_eval'" in str(info.value)
    assert build_report(_trec_systems(preset="trec_eval9"), rng=0).to_trec()


def test_trec_names():
    assert [trec_name(m) for m in ["ndcg", "dcg@5", "err@20", "r@5", "hit@5", "p@10"]] == [
        "ndcg", "dcg@5", "err@20", "recall_5", "success_5", "P_10"]


def test_report_repr_and_str(two):
    report, _ = two
    assert isinstance(report, Report)
    assert repr(report) == ("Report(systems=['model', 'bm25'], metrics=['ndcg@5', 'ap@10', "
                            "'rr'], baseline='bm25')")
    assert str(report) == report.to_text()


# --------------------------------------------------------------------------- plots


def test_metric_at_k_equals_evaluate_at_each_k():
    _, qid = _systems(n_queries=10)
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, size=qid.size)
    s = rng.normal(size=qid.size)
    ks, values = metric_at_k(y, s, qid, metric="ndcg", ks=[1, 3, 7], ties="optimistic")
    for k, v in zip(ks, values):
        assert v == skrank.evaluate(y, s, qid, metrics=[f"ndcg@{k}"],
                                    ties="optimistic")[f"ndcg@{k}"].value
    with pytest.raises(InvalidParameterError, match="'ks' parameter of metric_at_k"):
        metric_at_k(y, s, qid, ks=[])
    # the errors of the evaluate call name metric_at_k, the function the user called
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter of metric_at_k must"):
        metric_at_k(y, s, qid, ks=[1], n_jobs=0)


def test_plots_draw_what_they_say(two):
    report, _ = two
    comp = report.comparison("model", "ndcg@5")
    fig = plot_differences(comp)
    ax = fig.axes[0]
    heights = [p.get_height() for p in ax.containers[0]]  # the bar chart
    assert len(heights) == comp.n
    assert heights == sorted(heights)  # sorted per-query differences
    np.testing.assert_allclose(sorted(heights), np.sort(comp.differences))
    fig = plot_segments(report.segments[0])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [
        f"{r.segment} (n = {r.n})" for r in report.segments[0]]
    fig = plot_metric_at_k({"a": ([1, 2, 3], [0.5, 0.6, 0.7]), "b": ([1, 2, 3], [0.4, 0.5, 0.6])},
                           metric="ndcg")
    assert [line.get_label() for line in fig.axes[0].get_lines()] == ["a", "b"]
    with pytest.raises(InvalidParameterError, match="'comparison' parameter"):
        plot_differences(report.segments[0])
    with pytest.raises(InvalidParameterError, match="'comparisons' parameter of plot_forest"):
        plot_forest(comp)


def test_figures_state_conventions_name_losses_and_have_integer_cutoffs(two):
    report, _ = two
    comp = report.comparison("model", "ndcg@5")
    conv = report.conventions("ndcg@5")
    ax = plot_differences(comp, conventions=conv).axes[0]
    assert ax.get_title().splitlines()[1:] == [conv]
    named = [t.get_text() for t in ax.texts]
    assert named == [str(q.qid) for q in comp.largest_losses] and named
    assert ax.get_ylim()[0] < min(comp.differences)  # room for the names under the bars
    # the forest plot: one row per comparison, filled dots for the significant ones
    fig = plot_forest(report.comparisons, conventions="gain=exp")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "ndcg@5 (primary)", "ap@10", "rr"]
    dots = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert [d.get_xdata()[0] for d in dots] == [
        r.comparison.mean_difference for r in report.comparisons]
    assert [d.get_markerfacecolor() != "white" for d in dots] == [
        bool(r.reject) for r in report.comparisons]
    assert "gain=exp" in ax.get_title()
    # metric@k: cutoffs on integer ticks only, even for a short range
    fig = plot_metric_at_k({"a": ([1, 2, 3], [0.5, 0.6, 0.7])}, metric="ndcg",
                           conventions=conv)
    ax = fig.axes[0]
    ticks = [t for t in ax.get_xticks() if 1 <= t <= 3]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert conv in ax.get_title()
    # a "$" in a name is a dollar sign, not the start of mathtext
    fig = plot_metric_at_k({"a$b$": ([1, 2], [0.5, 0.6])})
    fig.savefig(io.BytesIO(), format="svg")
    with pytest.raises(InvalidParameterError, match="'table' parameter"):
        plot_segments(comp)


def test_write_plots_png_and_one_svg(two, tmp_path):
    report, _ = two
    curves = {"ndcg": {"model": ([1, 2], [0.5, 0.6]), "bm25": ([1, 2], [0.4, 0.45])}}
    written = write_plots(report, tmp_path / "png", curves=curves)
    names = sorted(p.name for p in written)
    assert names == sorted(["forest.png", "differences_ndcg_at_5.png", "differences_ap_at_10.png",
                            "differences_rr.png", "segments_candidates_model.png",
                            "segments_type_model.png", "ndcg_at_k.png"])
    for p in written:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "one.svg"
    plot_segments(report.segments[1], svg)  # the format follows the suffix
    assert b"<svg" in svg.read_bytes()[:2000]
    with pytest.raises(InvalidParameterError, match="'format' parameter of write_plots"):
        write_plots(report, tmp_path, format="pdf")


def test_plotting_without_matplotlib_names_the_extra(two, monkeypatch):
    report, _ = two
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import fails
    with pytest.raises(ImportError, match=r"pip install 'skrank\[plot\]'"):
        plot_differences(report.comparison("model", "rr"))


# --------------------------------------------------------------------------- progress


def test_build_report_progress_on_a_terminal_only(capsys, monkeypatch):
    from skrank.stats import _progress

    results, qid = _systems()
    qids, counts = count_candidates(qid)
    segs = [by_candidates(qids, counts, bins=2)]
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)  # a terminal
    build_report(results, baseline="bm25", segmentations=segs, rng=0, **FAST)
    err = capsys.readouterr().err
    # 2 compared systems x 3 metrics + 2 segment tables, one bar, cleared at the end
    assert "comparisons" in err and "0/8" in err
    build_report(results, baseline="bm25", segmentations=segs, rng=0, progress=False, **FAST)
    assert capsys.readouterr().err == ""  # nor a bar of a segment's comparison
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)  # a pipe, a log
    build_report(results, baseline="bm25", segmentations=segs, rng=0, **FAST)
    assert capsys.readouterr().err == ""
    with pytest.raises(InvalidParameterError, match="'progress' parameter of build_report"):
        build_report(results, baseline="bm25", rng=0, progress="auto")
