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



class _Feeder:
    """Writes ``data`` once into a named pipe, when a reader opens it."""

    def __init__(self, path: Path, data: bytes) -> None:
        import threading

        self.path, self.data = path, data
        self.thread = threading.Thread(target=self._feed, daemon=True)
        self.thread.start()

    def _feed(self) -> None:
        try:
            with open(self.path, "wb") as fh:  # waits for a reader
                fh.write(self.data)
        except BrokenPipeError:  # the reader read a part only
            pass

    def close(self) -> None:
        import os

        if self.thread.is_alive():  # no reader came: let the waiting open return
            os.close(os.open(self.path, os.O_RDONLY | os.O_NONBLOCK))
        self.thread.join(timeout=10)


@pytest.fixture
def pipe(tmp_path):
    """``pipe(data, name)`` -> a named pipe that gives ``data`` to its first reader (a
    second reader would wait for ever: run the command in a process with a timeout)."""
    import os

    if not hasattr(os, "mkfifo"):
        pytest.skip("named pipes need os.mkfifo (POSIX)")
    feeders = []

    def make(data: bytes, name: str = "input.pipe") -> Path:
        path = tmp_path / name
        os.mkfifo(path)
        feeders.append(_Feeder(path, data))
        return path

    yield make
    for feeder in feeders:
        feeder.close()


def run_skrank(*args, timeout: float = 120) -> tuple[int, str, str]:
    """``skrank *args`` in a fresh process (for inputs that may block, such as pipes)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "skrank.cli", *map(str, args)],
                         capture_output=True, text=True, timeout=timeout, check=False)
    return out.returncode, out.stdout, out.stderr
