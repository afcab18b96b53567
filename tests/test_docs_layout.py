"""The documentation's theme at phone width, in headless Chromium.

A two-page Sphinx project with the docs' theme, theme options and ``docs/_static/custom.css``
is built and opened narrow: the page's text must come before the navigation (alabaster puts
the sidebar above the text below 1160 px, a screen of links before any content), and code in
the dark navigation (module names) must be light. Without Chromium the test skips with "not
installed", which fails on CI (``.ci/run`` installs Debian's ``chromium``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

_PROBE = """<script>addEventListener('load',function(){
var body=document.querySelector('div.body').getBoundingClientRect();
var nav=document.querySelector('div.sphinxsidebar').getBoundingClientRect();
var code=getComputedStyle(document.querySelector('div.sphinxsidebar code')).color;
var p=document.createElement('pre');p.id='probe';
p.textContent=JSON.stringify({body:body.top,nav:nav.top,code:code});
document.body.appendChild(p)});</script>"""


def _build(tmp_path: Path) -> Path:
    sphinx = pytest.importorskip("sphinx.cmd.build")
    from tests.test_docs import _docs_conf

    conf = _docs_conf()
    src, out = tmp_path / "src", tmp_path / "html"
    (src / "_static").mkdir(parents=True)
    shutil.copy(DOCS / "_static" / "custom.css", src / "_static")
    (src / "conf.py").write_text(
        f"project = 'skrank'\nhtml_theme = {conf.html_theme!r}\n"
        f"html_theme_options = {conf.html_theme_options!r}\n"
        f"html_static_path = ['_static']\nhtml_css_files = {conf.html_css_files!r}\n",
        encoding="utf-8")
    (src / "index.rst").write_text(
        "Home\n====\n\nWords.\n\n.. toctree::\n\n   cli\n", encoding="utf-8")
    (src / "cli.rst").write_text(
        "The ``skrank eval`` command\n===========================\n\n" + "Text. " * 200
        + "\n\nA section\n---------\n\nMore text.\n", encoding="utf-8")
    assert sphinx.build_main(["-q", "-b", "html", str(src), str(out)]) == 0
    return out / "cli.html"


def test_phone_width_text_first_and_light_code_in_the_navigation(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    page = _build(tmp_path)
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"),
                    encoding="utf-8")
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=390,844",
           "--dump-dom", page.as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    probe = json.loads(re.search(r'id="probe">([^<]*)<', done.stdout)[1])
    assert probe["body"] < probe["nav"], probe  # the text first, then the navigation
    r, g, b = (int(x) for x in re.findall(r"\d+", probe["code"])[:3])
    assert min(r, g, b) >= 200, probe  # light code on the dark navigation
