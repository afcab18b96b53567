"""docs/cli.rst tells the truth: its console examples print what the command prints, and it
documents every option of ``skrank eval``.

Each ``$ skrank ...`` line of a ``.. code-block:: console`` block is run in-process from the
root of the source tree; the lines after it (until the next ``$`` or the end of the block)
are its expected standard output and error, compared like a doctest (``...`` matches
anything, runs of whitespace are equal). An empty line of the block is an empty line of the
output: the page shows no doctest ``<BLANKLINE>`` markers.
"""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest

from skrank.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "cli.rst"


def console_examples() -> list[tuple[str, str]]:
    """(command, expected output) of every ``$ skrank`` line of the page's console blocks."""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    examples: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() != ".. code-block:: console":
            i += 1
            continue
        i += 1
        block = []
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith("    ")):
            block.append(lines[i][4:])
            i += 1
        command, expected = None, []
        for line in [*block, "$ "]:
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "\n".join(expected).strip("\n") + "\n"))
                command, expected = line[2:], []
            else:
                expected.append(line)
    return [(c, e) for c, e in examples if c.startswith("skrank ")]


EXAMPLES = console_examples()


def test_the_page_has_examples():
    assert len(EXAMPLES) >= 5


def test_the_page_shows_no_doctest_markers():
    # blank lines are written as blank lines; a marker would be rendered literally
    assert "<BLANKLINE>" not in PAGE.read_text(encoding="utf-8")


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c[:60] for c, _ in EXAMPLES])
def test_console_example(cli, monkeypatch, command, expected):
    monkeypatch.chdir(ROOT)
    args = shlex.split(command)[1:]
    _, out, err = cli(*args)
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    got = out + err
    assert checker.check_output(expected, got, flags), (
        f"docs/cli.rst: `{command}` printed\n{got}\nbut the page says\n{expected}"
    )


def test_every_option_is_documented():
    text = PAGE.read_text(encoding="utf-8")
    parser = build_parser()
    eval_parser = next(a for a in parser._actions if a.dest == "command").choices["eval"]
    missing = [opt for action in eval_parser._actions for opt in action.option_strings
               if opt not in ("-h", "--help") and not re.search(rf"``{re.escape(opt)}[ `]", text)]
    assert missing == []
