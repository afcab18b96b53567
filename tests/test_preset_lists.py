"""Where the documentation lists the ranking presets, it lists every one of ``PRESETS``, in
its order: the lists are written by hand (numpydoc types, the CLI page), so a preset added to
``PRESETS`` fails here until each list names it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skrank.conventions import PRESETS

ROOT = Path(__file__).resolve().parents[1]
# a numpydoc type such as {"lightgbm", "xgboost"} on a ``preset :`` line, and the CLI option
_DOCSTRING = re.compile(r"^\s*preset : \{(?P<names>[^}]*)\}")
_CLI = re.compile(r"``--preset \{(?P<names>[^}]*)\}``")


def _lists(path: Path, pattern: re.Pattern) -> list[tuple[int, list[str]]]:
    """(line number, names) of each ranking preset list in ``path``: the lists that name
    "lightgbm" (the survival, uplift and recsys presets are other families)."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = pattern.search(line)
        if match:
            names = [n.strip().strip('"') for n in match["names"].split(",")]
            if "lightgbm" in names:
                found.append((number, names))
    return found


def _places() -> list:
    places = []
    for path in sorted((ROOT / "src" / "skrank").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if _lists(path, _DOCSTRING):
            places.append(pytest.param(rel, _DOCSTRING, id=rel))
    places.append(pytest.param("docs/cli.rst", _CLI, id="docs/cli.rst"))
    return places


def test_the_places_are_found():
    rels = {p.values[0] for p in _places()}
    assert {"docs/cli.rst", "src/skrank/conventions.py", "src/skrank/scorers/_scorer.py",
            "src/skrank/integrations/_common.py", "src/skrank/metrics/_evaluate.py"} <= rels


@pytest.mark.parametrize("rel,pattern", _places())
def test_preset_lists_name_every_preset(rel, pattern):
    lists = _lists(ROOT / rel, pattern)
    assert lists
    for number, names in lists:
        assert names == list(PRESETS), f"{rel}:{number}"
