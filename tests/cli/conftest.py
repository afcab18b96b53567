"""Helpers of the command-line tests: run ``skrank`` in-process and capture its streams."""

from __future__ import annotations

from pathlib import Path

import pytest

from skrank.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
TREC = DATA / "trec_eval"
EXPECTED = DATA / "trec_eval_expected"
FIXTURE = DATA / "fixture_seed" / "fixture.csv"
#: fewer resamples where the tests do not look at the resampled numbers
FAST = ["--resamples", "500", "--permutations", "500"]


@pytest.fixture
def cli(capsys):
    """``cli(*args)`` -> (exit status, stdout, stderr) of ``skrank *args``."""

    def run(*args):
        argv = [str(a) for a in args]
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: usage errors, --help, --version
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return run
