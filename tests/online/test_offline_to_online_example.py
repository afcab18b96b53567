"""examples/offline_to_online.py runs and reaches its decision at every stage."""

from __future__ import annotations

import runpy
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "offline_to_online.py"


def test_the_path_runs_to_a_decision(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "-> not worse offline: go on to interleaving" in out
    assert "-> users prefer the candidate: go on to an A/B test" in out
    assert "sample ratio check passed" in out
    assert "Decision: ship candidate" in out
