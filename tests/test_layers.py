"""Imports point down the layers of ``docs/architecture.rst``.

Each top-level unit of the package (a subpackage or a module of ``skrank``) has a level; a
module may import units of lower levels only, never one of its own level sideways or one
above. ``LEVELS`` is the table of the architecture page; a new unit must be placed in it, and
an import that breaks the order fails here with the edge named.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "skrank"

LEVELS = {
    # leaves used by all: the exceptions, the words of messages, the one error format, the
    # conventions; the facades' names imported on first use
    "exceptions": 0, "_numbers": 0, "_text": 0, "_version": 0, "_lazy": 0,
    "_validation": 1, "conventions": 2, "_routing": 2,
    # the ranking metrics, with their kernels, grouping and threads
    "metrics": 3,
    # statistics over per-query values; the file readers beside them (segments' query logs,
    # cli and datasets read through them)
    "stats": 4, "io": 4,
    # families and consumers of the metrics, side by side
    "scorers": 5, "survival": 5, "uplift": 5, "online": 5, "segments": 5,
    "recsys": 5, "fairness": 5,
    # what builds on a scorer or a reader
    "integrations": 6, "pipeline": 6, "datasets": 6,
    # the same evaluation where the data lives
    "dask": 6, "spark": 6,
    "lightgbm": 7, "xgboost": 7,
    "reports": 8,
    "cli": 9,
    "__init__": 10,  # the facade
}
# known exceptions to the order (none today); each would be a debt of issue 15
ALLOWED: set[tuple[str, str]] = set()


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _edges(src: Path = SRC):
    for path in src.rglob("*.py"):
        parts = path.relative_to(src.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = module if parts[-1] == "__init__" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target == "skrank":  # from skrank import x / from . import x at the top
                    names = [f"skrank.{a.name}" for a in node.names]
                    targets = [n if _unit(n) in LEVELS else "skrank" for n in names]
                else:
                    targets = [target]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                if target.split(".")[0] == "skrank" and _unit(target) != _unit(module):
                    yield path.relative_to(src.parent), _unit(module), _unit(target)


def test_every_unit_has_a_level():
    units = {p.stem if p.is_file() else p.name for p in SRC.iterdir()
             if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))}
    assert units <= set(LEVELS), f"place these in LEVELS and the architecture page: " \
        f"{sorted(units - set(LEVELS))}"


def _upward(src: Path = SRC):
    return sorted({(str(path), a, b) for path, a, b in _edges(src)
                   if (a, b) not in ALLOWED and LEVELS[b] >= LEVELS[a]})


def test_the_check_sees_relative_and_absolute_imports(tmp_path):
    pkg = tmp_path / "skrank"
    (pkg / "metrics").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .metrics import evaluate\n")
    (pkg / "metrics" / "__init__.py").write_text("")
    (pkg / "metrics" / "_a.py").write_text("from ..reports import _plots\n")
    (pkg / "metrics" / "_b.py").write_text("import skrank.cli\nfrom skrank import stats\n")
    assert _upward(pkg) == [("skrank/metrics/_a.py", "metrics", "reports"),
                            ("skrank/metrics/_b.py", "metrics", "cli"),
                            ("skrank/metrics/_b.py", "metrics", "stats")]


def test_imports_point_down():
    wrong = _upward()
    assert not wrong, "imports that do not point down (file, unit, imported unit): " + str(wrong)


def _documented_levels(page: Path = SRC.parents[1] / "docs" / "architecture.rst"):
    """The level of each unit in the table of the architecture page (the units column spans
    the characters under its ``=====`` rule; a row may continue on the next lines)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("=====  ====")]
    start, stop = lines[rules[0]].split("  ")[1], rules[2]
    units_at = slice(len("=====  "), len("=====  ") + len(start))
    levels, level = {}, None
    for line in lines[rules[1] + 1:stop]:
        if line[:5].strip():
            level = int(line[:5])
        for name in line[units_at].split("``")[1::2]:
            levels[name] = level
    return levels


def test_the_architecture_page_has_the_same_table():
    assert _documented_levels() == LEVELS


def test_the_source_explains_code_not_its_history():
    """Comments and docstrings say what the code does, not which issue or step produced it."""
    history = re.compile(r"\bissue\s*#?\d+|names are added below this line", re.IGNORECASE)
    hits = [f"{path.relative_to(SRC.parent)}:{i}: {line.strip()}"
            for path in sorted(SRC.rglob("*")) if path.suffix in (".py", ".pyx", ".pxi")
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if history.search(line)]
    assert not hits, "\n".join(hits)
