"""Report.to_html: one self-contained page, escaped, and checked in headless Chromium.

The browser test renders the report of the seed fixture (``tests/data/fixture_seed``, the
data of ``docs/cli.rst``) at phone and desktop width: the page must load without console
messages (errors, blocked resources, Content-Security-Policy violations), must not scroll
sideways at phone width, the screenshots must show something, and the numbers the text report
prints must be in the rendered text. Chromium is Debian's ``chromium`` package (``.ci/run``
installs it); without it the browser tests skip with "not installed", which fails on CI.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import skrank
from skrank.io import read_table
from skrank.reports import build_report, metric_at_k
from skrank.segments import by_candidates, by_column, count_candidates
from skrank.segments._text import _fmt_ci, _fmt_num
from skrank.stats._results import format_p

FIXTURE = Path(__file__).resolve().parent.parent / "data" / "fixture_seed" / "fixture.csv"
FAST = dict(n_resamples=2000, n_permutations=2000)


@pytest.fixture(scope="module")
def fixture_report():
    table = read_table(str(FIXTURE), scores=["model", "bm25"])
    results = {name: skrank.evaluate(table.y_true, scores, table.qid,
                                     metrics=["ndcg@5", "ap@10", "rr"], tie_bounds=True)
               for name, scores in table.scores.items()}
    qids, n_candidates = count_candidates(table.qid)
    report = build_report(
        results, baseline="bm25", primary="ndcg@5", rng=0,
        segmentations=[by_candidates(qids, n_candidates)],
        inputs=[f"table {FIXTURE.name}: 666 rows, 40 queries"],
        notes=["bm25: 2 judged topics have no result in the run ('q41', 'q42'): ignored."],
        **FAST)
    curves = {"ndcg": {name: metric_at_k(table.y_true, scores, table.qid, metric="ndcg",
                                         ks=range(1, 11))
                       for name, scores in table.scores.items()}}
    return report, curves, report.to_html(curves=curves)


def _key_numbers(report) -> list[str]:
    """The numbers of the report as the text report prints them (checked to be there)."""
    numbers = []
    for res in report.systems.values():
        numbers += [_fmt_num(res[m].value) for m in report.metrics]
    for row in report.comparisons:
        c = row.comparison
        numbers += [_fmt_num(c.mean_a), _fmt_num(c.mean_b),
                    _fmt_num(c.mean_difference, signed=True), _fmt_ci(c.ci_bca),
                    format_p(row.pvalue), format_p(row.pvalue_adjusted)]
    for table in report.segments:
        for r in table:
            numbers += [_fmt_num(r.difference, signed=True), format_p(r.pvalue_adjusted)]
    text = report.to_text()
    missing = [n for n in numbers if n not in text]
    assert missing == [], f"not in the text report: {missing}"
    return numbers


def _visible_text(page: str) -> str:
    page = re.sub(r"(?s)<(style|script)\b.*?</\1>", " ", page)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


# --------------------------------------------------------------------------- the page


def test_page_holds_every_part_of_the_report(fixture_report):
    report, _, page = fixture_report
    text = _visible_text(page)
    for number in _key_numbers(report):
        assert number in text, number
    # the inputs, conventions, sections, corrections, largest losses, flags and notes
    for part in ("table fixture.csv: 666 rows, 40 queries", "gain=exp, ties=pessimistic",
                 "Forest plot", "holm-corrected", "uncorrected (primary)",
                 "largest losses of model", "Segments by candidates", "flags",
                 "Notes on the data", "have no result in the run ('q41', 'q42')",
                 "40 of 40 queries have documents with equal scores",
                 "[0.8080, 0.9791]", "NDCG@k", "k=10"):
        assert part in text, part
    # one figure per comparison, the forest plot, the cutoff chart and the segment chart
    assert page.count("<svg") == 3 + 1 + 1 + 1
    # the largest losses are named on the per-query chart (SVG text is text)
    ndcg = report.comparison("model", "ndcg@5")
    svg = page.split("<svg")[2]
    assert all(f">{q.qid}<" in svg for q in ndcg.largest_losses)


def test_page_is_self_contained(fixture_report):
    report, curves, page = fixture_report
    # nothing to fetch: every src/href is a fragment of the page itself
    refs = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', page)
    assert refs and all(r.startswith("#") for r in refs), set(refs)
    assert "<link" not in page and "@import" not in page and "url(http" not in page
    assert "default-src 'none'" in page
    # figure ids are unique in the page (one figure's clip paths must not be another's)
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    # the same report renders the same page (no dates, stable ids)
    assert report.to_html(curves=curves) == page


def test_script_hash_in_the_policy_is_the_script():
    from skrank.reports import _html

    digest = base64.b64encode(hashlib.sha256(_html._SCRIPT.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in _html._CSP


def test_names_are_escaped_everywhere():
    rng = np.random.default_rng(1)
    evil = "<script>alert(1)</script>"
    qids = np.repeat([f"<img src=x onerror=alert({i})>" if i == 0 else f"q{i}$x$"
                      for i in range(12)], 6)
    y = rng.integers(0, 3, qids.size)
    y[::6] = 1
    results = {evil: skrank.evaluate(y, y + rng.normal(0, 1, qids.size), qids,
                                     metrics=["ndcg@5"]),
               "base$1$": skrank.evaluate(y, rng.normal(0, 1, qids.size), qids,
                                          metrics=["ndcg@5"])}
    seg = by_column(np.unique(qids), np.array([evil, "a&b"] * 6, dtype=object), name=evil)
    report = build_report(results, baseline="base$1$", rng=0, segmentations=[seg],
                          inputs=[evil], notes=[evil], top_losses=12, **FAST)
    page = report.to_html(title=evil, figures=True, per_query=True)
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # the page's own line of script
    # matplotlib's mathtext is not triggered by "$" in names: the name is drawn as written
    assert ">base$1$<" in page or "base$1$" in _visible_text(page)


def test_without_matplotlib(monkeypatch, fixture_report):
    report, _, _ = fixture_report
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    page = report.to_html()
    assert "<svg" not in page
    assert "pip install &#x27;skrank[plot]&#x27;" in page
    with pytest.raises(ImportError, match=r"pip install 'skrank\[plot\]'"):
        report.to_html(figures=True)
    assert "<svg" not in report.to_html(figures=False)
    assert "skrank[plot]" not in report.to_html(figures=False)


def test_report_without_baseline_or_tie_ranges():
    rng = np.random.default_rng(2)
    qid = np.repeat(np.arange(8), 5)
    y = rng.integers(0, 2, qid.size)
    y[:5], y[5:10], y[5] = 0, 0, 1  # query 0 has no relevant document, query 1 one
    report = build_report({"only": skrank.evaluate(y, rng.random(qid.size), qid,
                                                    metrics=["p@3"], empty="zero")})
    text = _visible_text(report.to_html(figures=False))
    assert "Comparison with the baseline" not in text
    assert "evaluate with tie_bounds=True" in text
    assert "1 of 8 query has no relevant document (counted as 0; empty=zero)" in text


def test_many_queries_keep_the_page_light():
    # 3,000 queries: the per-query chart is two filled areas, not 3,000 bars
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(3000), 4)
    y = rng.integers(0, 2, qid.size)
    y[::4] = 1
    results = {name: skrank.evaluate(y, y + rng.normal(0, noise, qid.size), qid,
                                     metrics=["rr"])
               for name, noise in (("new", 1.0), ("old", 1.2))}
    report = build_report(results, baseline="old", rng=0, n_resamples=500, n_permutations=500)
    page = report.to_html()
    assert len(page) < 400_000, len(page)
    loss = report.comparison("new", "rr").largest_losses[0]
    assert f">{loss.qid}<" in page  # still named on the chart


# --------------------------------------------------------------------------- in Chromium


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    return path


# Headless Chromium lays a page out at least 500 px wide whatever --window-size says (the
# screenshot is cropped to the window), so the probe narrows the body to the width asked for
# and records whether anything sticks out of it.
_PROBE = ("addEventListener('load',function(){var b=document.body;b.style.width=WIDTH+'px';"
          "var p=document.createElement('pre');p.id='skrank-probe';p.textContent="
          "JSON.stringify({sw:b.scrollWidth,cw:b.clientWidth});b.appendChild(p)});")


def _with_probe(page: str, width: int) -> str:
    """The page plus a script that writes the page width into the DOM (allowed by hash)."""
    probe = _PROBE.replace("WIDTH", str(width))
    digest = base64.b64encode(hashlib.sha256(probe.encode()).digest()).decode()
    page = page.replace("script-src ", f"script-src 'sha256-{digest}' ", 1)
    return page.replace("</head>", f"<script>{probe}</script></head>", 1)


def _browse(chromium: str, path: Path, tmp: Path, width: int, height: int,
            mode: str) -> tuple[str, str]:
    """(stdout, console lines) of one headless run; mode is --dump-dom or --screenshot=F."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--hide-scrollbars", "--no-first-run", "--disable-extensions",
           f"--user-data-dir={tmp / 'profile'}",
           f"--window-size={width},{height}", "--enable-logging=stderr", "--v=0", mode,
           path.as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done.stdout, "\n".join(console)


def _png_is_drawn(path: Path, width: int) -> None:
    from matplotlib.image import imread

    img = imread(str(path))
    assert img.shape[1] == width
    rgb = img[..., :3].reshape(-1, 3)
    ink = np.any(rgb < 0.9, axis=1).mean()  # share of pixels that are not (near) white
    colors = np.unique((rgb * 255).astype(np.uint8), axis=0).shape[0]
    assert 0.01 < ink < 0.9 and colors > 20, (ink, colors)


def test_console_scan_sees_errors(tmp_path):
    # the check below must fail on a page with an error: a broken page logs to the console
    chromium = _chromium()
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
                   "content=\"default-src 'none'\"></head><body><p>x</p>"
                   "<img src=\"https://example.invalid/x.png\"></body></html>",
                   encoding="utf-8")
    _, console = _browse(chromium, bad, tmp_path, 800, 600, "--dump-dom")
    assert "example.invalid" in console


@pytest.mark.parametrize("width,height", [(390, 844), (1280, 900)], ids=["phone", "desktop"])
def test_report_in_chromium(fixture_report, tmp_path, width, height):
    chromium = _chromium()
    report, _, html_page = fixture_report
    page = tmp_path / "report.html"
    page.write_text(_with_probe(html_page, width), encoding="utf-8")

    dom, console = _browse(chromium, page, tmp_path, width, height, "--dump-dom")
    assert console == "", console  # no error, no blocked resource, no policy violation
    probe = json.loads(html.unescape(re.search(r'id="skrank-probe">([^<]*)<', dom)[1]))
    assert probe["cw"] == width
    assert probe["sw"] <= probe["cw"], probe  # wide tables scroll in their box, not the page
    text = _visible_text(dom)
    for number in _key_numbers(report):
        assert number in text, number
    assert "Comparison with the baseline bm25" in text

    shot = tmp_path / "shot.png"
    _, console = _browse(chromium, page, tmp_path, width, height, f"--screenshot={shot}")
    assert console == "", console
    _png_is_drawn(shot, width)
