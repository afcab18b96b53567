"""What the parts of ``skrank eval`` share: the data error, progress messages, the loaded
systems and the names of the system files."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from .._text import listing
from ..exceptions import SkrankError
from ..metrics._spec import Metric

_LARGE_INPUT = 20 * 2**20  # bytes: above this, progress is shown on a terminal


class DataError(SkrankError):
    """A problem with the data or the files given on the command line (exit status 1)."""


class RefusedValue(DataError):
    """A label or score that the conventions refuse, named by its line: the line was read,
    so the kind of input was not guessed wrong."""


# --------------------------------------------------------------------------- progress


class _Progress:
    """What ``skrank eval`` is doing, on stderr: a tqdm line on a terminal, lines in a log.

    ``mode`` is ``--progress``: ``never`` (or ``--quiet``) prints nothing; ``always`` prints
    every stage (a line each with the elapsed time when stderr is not a terminal, as in a
    log); ``auto`` shows the stages on a terminal only, at once for inputs over 20 MB and
    otherwise once the run has lasted 2 seconds. :attr:`stats` is the matching ``progress=``
    of the statistics (their own bar of resamples).
    """

    def __init__(self, mode: str, paths: Sequence[str], stream: TextIO) -> None:
        from ..stats._progress import AUTO_DELAY

        self.stream = stream
        tty = bool(getattr(stream, "isatty", lambda: False)())
        self.on = mode == "always" or (mode == "auto" and tty)
        self.lines = mode == "always" and not tty  # a log: one line per stage
        self.stats: bool | None = {"always": True, "never": False}.get(mode)
        if mode == "auto" and tty:
            size = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
            self.delay = 0.0 if size > _LARGE_INPUT else AUTO_DELAY
        else:
            self.delay = 0.0
        self.t0 = time.perf_counter()
        self.bar: Any = None

    def __call__(self, message: str) -> None:
        if not self.on:
            return
        if self.lines:
            print(f"[{time.perf_counter() - self.t0:6.1f}s] {message}", file=self.stream,
                  flush=True)
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=None, desc=message, file=self.stream, leave=False,
                            delay=self.delay, mininterval=0.0,
                            bar_format="skrank: {desc} [{elapsed}]")
        self.bar.set_description_str(message, refresh=False)
        self.bar.update()

    def close(self) -> None:
        """Clear the line (before the report is written)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


# --------------------------------------------------------------------------- input


@dataclass
class _System:
    name: str
    kwargs: dict[str, Any]  # arrays for skrank.evaluate (empty when already evaluated)
    runid: str | None = None  # the run tag of a TREC run
    result: Any = None  # the evaluation, when the loader evaluated while reading
    # topics counted without a per-topic line in trec_eval 9's format (-q -c: judged topics
    # the run has no result for)
    unlisted: tuple[str, ...] = ()


@dataclass
class _Loaded:
    kind: str
    systems: list[_System]
    baseline: str | None = None
    inputs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # per-query information for segments: {column: (qids, values)}
    columns: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    candidates: tuple[np.ndarray, np.ndarray] | None = None
    candidates_note: str = ""


def _names_from_paths(paths: Sequence[str]) -> list[str]:
    names = [os.path.basename(p) or p for p in paths]
    if len(set(names)) != len(names):
        names = list(paths)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise DataError(f"{dup} is given twice.")
    return names


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _resolve_baseline_path(baseline: str | None, names: list[str], paths: list[str]
                           ) -> tuple[str | None, str | None]:
    """(name of an existing system, or path of an extra file) for --baseline."""
    if baseline is None:
        return None, None
    if baseline in names:
        return baseline, None
    for name, path in zip(names, paths):
        if baseline == path or _same_file(baseline, path):
            return name, None
    if os.path.isfile(baseline):
        return None, baseline
    raise DataError(
        f"--baseline: {baseline!r} is neither one of the systems ({listing(names, 10)}) "
        "nor a file."
    )


def _system_files(baseline: str | None, paths: list[str]
                  ) -> tuple[list[str], list[str], str | None]:
    """(paths, names, baseline name) of the system files; a --baseline file that is not one
    of ``paths`` is added as the last system."""
    names = _names_from_paths(paths)
    base_name, base_path = _resolve_baseline_path(baseline, names, paths)
    if base_path is not None:
        paths = [*paths, base_path]
        names = _names_from_paths(paths)
        base_name = names[-1]
    return paths, names, base_name


@dataclass
class _Plan:
    """What the loaders need to evaluate a TREC run while reading it."""

    metrics: list[Metric]
    conv: dict[str, Any]
    tie_bounds: bool
    keep_rows: bool  # the rows are needed after evaluation (figures)

