"""The facades import their names on first use, and ``skrank eval`` starts reading TREC files
before it imports the metrics, the scorers, the statistics or the reports.

What a fresh interpreter has imported is checked in a subprocess: the test process itself
has imported everything long ago.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"

LAZY_FACADES = ["skrank", "skrank.io", "skrank.stats", "skrank.segments", "skrank.reports",
                "skrank.cli"]

# never imported by `import skrank`
HEAVY = ["numpy", "sklearn", "scipy", "pandas", "pyarrow", "skrank.conventions",
         "skrank.metrics._evaluate", "skrank.metrics._functions", "skrank.metrics._result",
         "skrank.scorers", "skrank.io", "skrank.stats", "skrank.reports"]

# never imported by `skrank eval` on TREC files before their reading has started
HEAVY_FOR_THE_CLI = ["sklearn", "scipy", "pandas", "pyarrow", "skrank.metrics._evaluate",
                     "skrank.metrics._functions", "skrank.metrics._result", "skrank.scorers",
                     "skrank.reports", "skrank.segments", "skrank.stats._paired",
                     "skrank.stats._bootstrap", "skrank.io._table", "skrank.io._libsvm",
                     "skrank.io._scored"]


def _run(code: str, *args: str) -> str:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()[-1]


def test_import_skrank_imports_none_of_the_heavy_modules():
    code = ("import sys, skrank\n"
            "print(sorted(set(sys.argv[1:]) & set(sys.modules)))\n")
    assert ast.literal_eval(_run(code, *HEAVY)) == []


@pytest.mark.parametrize("facade", LAZY_FACADES)
def test_a_star_import_in_a_fresh_interpreter_binds_every_public_name(facade):
    code = (f"from {facade} import *\n"
            f"import {facade} as m\n"
            "print(sorted(n for n in m.__all__ if n not in globals()))\n")
    assert ast.literal_eval(_run(code)) == []


@pytest.mark.parametrize("facade", LAZY_FACADES)
def test_every_public_name_is_the_object_of_its_module(facade):
    module = importlib.import_module(facade)
    assert set(module.__all__) <= set(module._LAZY) | set(vars(module))
    for name, where in module._LAZY.items():
        origin = importlib.import_module(where)
        expected = origin if where == f"{facade}.{name}" else getattr(origin, name)
        assert getattr(module, name) is expected, name
    assert set(module.__all__) <= set(dir(module))
    assert set(module._LAZY) <= set(dir(module))


def test_the_top_level_facade_keeps_its_eager_names_and_former_attributes():
    import skrank
    import skrank.exceptions
    from skrank._version import __version__

    assert skrank.__version__ == __version__
    assert skrank.SkrankError is skrank.exceptions.SkrankError
    # the deprecated scorer aliases and the submodules the facade used to import
    for name in ("get_scorer", "get_scorer_names", "map_at", "mrr_at"):
        assert name not in skrank.__all__
        assert getattr(skrank, name) is getattr(importlib.import_module("skrank.scorers"), name)
    for name in ("conventions", "metrics", "scorers"):
        assert getattr(skrank, name) is importlib.import_module(f"skrank.{name}")


@pytest.mark.parametrize("facade", LAZY_FACADES)
def test_an_unknown_name_raises_the_usual_attribute_error(facade):
    module = importlib.import_module(facade)
    with pytest.raises(AttributeError, match=rf"^module '{facade}' has no attribute 'nope'$"):
        module.nope  # noqa: B018
    assert not hasattr(module, "nope")
    with pytest.raises(ImportError, match="cannot import name 'nope'"):
        exec(f"from {facade} import nope", {})


def test_the_cli_starts_reading_before_the_heavy_modules_are_imported():
    # the modules imported (in either thread) once the qrels' and the first run's reading
    # has started: the library facades are lazy, so that only the parser, the conventions
    # and the readers stand between the start of the process and the reading
    code = (
        "import sys\n"
        "import skrank.cli._eval as E\n"
        "seen = []\n"
        "real = E._start_qrels\n"
        "def spy(*a, **k):\n"
        "    reader = real(*a, **k)\n"
        "    seen.append(sorted(set(sys.argv[1:]) & set(sys.modules)))\n"
        "    return reader\n"
        "E._start_qrels = spy\n"
        f"E.main(['eval', '--preset', 'trec_eval', '-m', 'ndcg_cut_10', '-m', 'map', "
        f"'--format', 'trec', {str(TREC / 'qrels.test')!r}, {str(TREC / 'results.test')!r}])\n"
        "assert 'skrank.metrics._evaluate' in sys.modules\n"
        "print(seen)\n"
    )
    assert ast.literal_eval(_run(code, *HEAVY_FOR_THE_CLI)) == [[]]
