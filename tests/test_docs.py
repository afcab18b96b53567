"""The documentation's examples run and print what the pages say they print.

Every ``>>>`` example in ``docs/*.rst`` and in ``README.md`` is executed as a doctest (one
namespace per page, in page order), so the numbers on the conventions page and in the quick
start are computed by skrank, not typed in. Pages without examples are skipped by the
parametrisation, not by a skip marker.

The Sphinx build itself (warnings as errors) runs in ``make test`` after pytest.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# Markdown code fences end an example's expected output like a blank line does.
_FENCE = re.compile(r"^\s*```.*$", re.MULTILINE)


def _pages() -> list[Path]:
    pages = [*sorted(DOCS.glob("*.rst")), ROOT / "README.md"]
    return [p for p in pages if p.is_file() and ">>>" in p.read_text(encoding="utf-8")]


def _run_page(path: Path) -> doctest.TestResults:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        text = _FENCE.sub("", text)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"__name__": path.stem}, path.name, str(path), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    failures: list[str] = []
    runner.run(test, out=failures.append)
    if failures:
        pytest.fail(f"{path.name}: doctest failures\n" + "".join(failures), pytrace=False)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_page_examples(page: Path) -> None:
    results = _run_page(page)
    assert results.attempted > 0
    assert results.failed == 0


def test_required_pages_have_examples() -> None:
    # The quick start, the conventions page and the README carry computed examples; if they
    # lost them, the test above would silently check nothing for them.
    names = {p.name for p in _pages()}
    assert {"quickstart.rst", "conventions.rst", "README.md"} <= names


def test_readme_quick_start_is_two_make_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make demo" in readme
    assert "make test" in readme


def test_conventions_page_covers_every_convention() -> None:
    from skrank.conventions import CONVENTION_NAMES, PRESETS, TIE_RULES

    text = (DOCS / "conventions.rst").read_text(encoding="utf-8")
    for name in (*CONVENTION_NAMES, *PRESETS, *TIE_RULES):
        assert f"``{name}``" in text or f'"{name}"' in text, name


def test_failing_example_is_reported(tmp_path: Path) -> None:
    # The runner above must fail on a wrong number, not only on exceptions.
    page = tmp_path / "wrong.rst"
    page.write_text(">>> 1 + 1\n3\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="doctest failures"):
        _run_page(page)
