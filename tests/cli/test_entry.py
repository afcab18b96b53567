"""The program's entry point asks for one OpenBLAS thread before NumPy is imported, unless
the user chose a number; ``import skrank.cli`` imports neither NumPy nor the command.

What a fresh interpreter has imported is checked in a subprocess (the test process imported
NumPy long ago)."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skrank.cli import _entry

# in a fresh interpreter: the variable and whether NumPy was imported when the command
# would start (``_entry._run`` replaced)
_PROBE = """
import os, sys
import skrank.cli._entry as entry
entry._run = lambda: print(repr(os.environ.get("OPENBLAS_NUM_THREADS")), "numpy" in sys.modules)
entry.command()
"""


def _probe(env: dict[str, str]) -> str:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip()


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != _entry.BLAS_THREADS}
    env.update(values)
    return env


def test_the_command_asks_for_one_blas_thread_before_numpy_is_imported():
    assert _probe(_env()) == "'1' False"


def test_the_users_choice_of_blas_threads_is_kept():
    assert _probe(_env(OPENBLAS_NUM_THREADS="3")) == "'3' False"


@pytest.mark.parametrize(("before", "after"), [(None, "1"), ("4", "4"), ("", "")])
def test_limit_blas_threads_sets_only_an_absent_variable(before, after):
    env = {} if before is None else {_entry.BLAS_THREADS: before}
    _entry.limit_blas_threads(env)
    assert env == {_entry.BLAS_THREADS: after}


def test_importing_the_cli_package_imports_neither_numpy_nor_the_command():
    code = ("import sys, skrank.cli; print(sorted(m for m in ('numpy', 'skrank.cli._eval', "
            "'skrank.cli._args') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_python_m_and_the_console_scripts_start_at_the_entry_point():
    source = (Path(_entry.__file__).parent / "__main__.py").read_text()
    assert "from ._entry import command" in source
    scripts = {e.name: e.value for e in importlib.metadata.entry_points(group="console_scripts")
               if e.name in ("skrank", "rank-eval")}
    assert scripts == {"skrank": "skrank.cli._entry:command",
                       "rank-eval": "skrank.cli._entry:command"}
