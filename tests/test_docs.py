"""The documentation's examples run and print what the pages say they print.

Every ``>>>`` example in ``docs/*.rst`` and in ``README.md`` is executed as a doctest (one
namespace per page, in page order), so the numbers on the conventions page and in the quick
start are computed by skrank, not typed in. Pages without examples are skipped by the
parametrisation, not by a skip marker.

Every ``.. code-block:: python`` block without ``>>>`` runs too, as written: alone, in a fresh
namespace, from a scratch directory where ``tests/`` is the source tree's (so the paths the
pages use resolve, and files an example writes land in the scratch directory). A block that
cannot run here says so, with its reason, in an rst comment on the line before it (the
comment is not rendered)::

    .. example-not-run: needs a CUDA device

it is then only compiled.

The Sphinx build itself (warnings as errors) runs in ``make test`` after pytest; the test
below checks without building that no "NDCG@10" of the prose becomes an e-mail link.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# Markdown code fences end an example's expected output like a blank line does.
_FENCE = re.compile(r"^\s*```.*$", re.MULTILINE)


class LineChecker(doctest.OutputChecker):
    """Runs of blanks are equal, but a line is a line.

    An output printed on one line must be shown on one line (a reader copies what the page
    shows, and a wrapped result looks like two lines of output). Expected outputs with
    ``...`` are compared as by doctest alone.
    """

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if not super().check_output(want, got, optionflags):
            return False
        if "..." in want:
            return True
        return _lines(want) == _lines(got)


def _lines(text: str) -> list[str]:
    text = text.replace(doctest.BLANKLINE_MARKER, "")
    return [" ".join(line.split()) for line in text.strip("\n").splitlines()]


def _pages() -> list[Path]:
    pages = [*sorted(DOCS.glob("*.rst")), ROOT / "README.md"]
    return [p for p in pages if p.is_file() and ">>>" in p.read_text(encoding="utf-8")]


def _run_page(path: Path) -> doctest.TestResults:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        text = _FENCE.sub("", text)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"__name__": path.stem}, path.name, str(path), 0)
    runner = doctest.DocTestRunner(checker=LineChecker(), optionflags=FLAGS)
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


def test_wrapped_output_is_reported(tmp_path: Path) -> None:
    # A one-line result shown over two lines is a failure; spacing within a line is not.
    page = tmp_path / "wrapped.rst"
    page.write_text(">>> print('a b  c')\na  b\n  c\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="doctest failures"):
        _run_page(page)
    page.write_text(">>> print('a b  c')\na  b c\n>>> print('a\\n\\nb')\na\n<BLANKLINE>\nb\n",
                    encoding="utf-8")
    assert _run_page(page).failed == 0


def test_failing_example_is_reported(tmp_path: Path) -> None:
    # The runner above must fail on a wrong number, not only on exceptions.
    page = tmp_path / "wrong.rst"
    page.write_text(">>> 1 + 1\n3\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="doctest failures"):
        _run_page(page)


# -- ``.. code-block:: python`` blocks ---------------------------------------------------------

_NOT_RUN = re.compile(r"^\.\. example-not-run:\s*(?P<reason>\S.*)$")


@dataclass(frozen=True)
class CodeBlock:
    page: Path
    line: int  # 1-based line of the directive
    code: str
    not_run: str | None  # the reason, for a block that is only compiled

    @property
    def id(self) -> str:
        return f"{self.page.name}:{self.line}"


def code_blocks(path: Path) -> list[CodeBlock]:
    """The ``.. code-block:: python`` blocks of a page that are not doctests."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[CodeBlock] = []
    for i, line in enumerate(lines):
        if line.strip() != ".. code-block:: python":
            continue
        indent = len(line) - len(line.lstrip())
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip().startswith(":"):  # options
            j += 1
        while j < len(lines) and (
            not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent
        ):
            body.append(lines[j])
            j += 1
        code = textwrap.dedent("\n".join(body)).strip("\n") + "\n"
        if code.lstrip().startswith(">>>"):
            continue  # a doctest: run by test_page_examples
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = lines[k].strip() if k >= 0 else ""
        not_run = _NOT_RUN.match(marker)
        blocks.append(CodeBlock(path, i + 1, code, not_run and not_run["reason"]))
    return blocks


BLOCKS = [b for page in sorted(DOCS.glob("*.rst")) for b in code_blocks(page)]


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.id)
def test_code_block_runs(block: CodeBlock, tmp_path: Path, monkeypatch) -> None:
    compiled = compile(block.code, f"{block.id} (code-block)", "exec")
    if block.not_run:
        return
    sklearn = pytest.importorskip("sklearn")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    (tmp_path / "tests").symlink_to(ROOT / "tests", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": f"docs_{block.page.stem}"}
    with sklearn.config_context():  # a block that turns metadata routing on leaves it on
        exec(compiled, namespace)


def test_code_blocks_are_found() -> None:
    ids = {b.id.split(":")[0] for b in BLOCKS if not b.not_run}
    assert {"index.rst", "cli.rst", "cross_validation.rst"} <= ids
    # a marked block states why it cannot run
    assert all(b.not_run.strip() for b in BLOCKS if b.not_run is not None)


def test_code_block_markers(tmp_path: Path) -> None:
    page = tmp_path / "page.rst"
    page.write_text(
        "Text.\n\n.. code-block:: python\n\n    x = 1\n\n    y = x\n\n"
        "- item\n\n  .. code-block:: python\n\n      z = 2\n\n"
        ".. example-not-run: needs a GPU\n\n.. code-block:: python\n   :caption: c\n\n"
        "    import cupy\n\n.. code-block:: python\n\n    >>> 1\n    1\n",
        encoding="utf-8",
    )
    blocks = code_blocks(page)
    assert [(b.line, b.code, b.not_run) for b in blocks] == [
        (3, "x = 1\n\ny = x\n", None),
        (11, "z = 2\n", None),
        (17, "import cupy\n", "needs a GPU"),
    ]


# -- No e-mail links ---------------------------------------------------------------------------


def _docs_conf():
    pytest.importorskip("sphinx")
    spec = importlib.util.spec_from_file_location("_skrank_docs_conf", DOCS / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_metric_names_are_not_email_links() -> None:
    # docutils reads "NDCG@10" in running text as an e-mail address; conf.py turns such
    # links back into text. A plain docutils parse of each page (Sphinx's roles and
    # directives unknown, their errors silenced) has the same inline text.
    from docutils import nodes
    from docutils.core import publish_doctree

    unlink = _docs_conf().unlink_standalone_emails
    settings = {"report_level": 5, "halt_level": 5, "warning_stream": False}
    unlinked = 0
    for page in sorted(DOCS.glob("*.rst")):
        doctree = publish_doctree(page.read_text(encoding="utf-8"), source_path=str(page),
                                  settings_overrides=settings)
        unlinked += unlink(doctree)
        left = [r["refuri"] for r in doctree.findall(nodes.reference)
                if r.get("refuri", "").startswith("mailto:")]
        assert left == [], f"{page.name}: e-mail links {left}"
    assert unlinked > 0  # the pages do say "NDCG@10": the check checks something
