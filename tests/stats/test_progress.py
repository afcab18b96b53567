"""progress=: a tqdm bar on standard error on a terminal (or when asked), never otherwise.

A terminal is faked by making capsys's stderr answer ``isatty()`` with True (patched in the
test body: during fixture set-up sys.stderr is another stream); the automatic bar's delay is
set to 0 so that quick test calls show it.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from skrank.exceptions import InvalidParameterError
from skrank.stats import _progress, compare_many, paired_comparison

FAST = dict(n_resamples=3000, n_permutations=3000, rng=0)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    b = rng.random(80)
    return b + rng.normal(0.02, 0.1, 80), b


def _terminal(monkeypatch, tty: bool = True) -> None:
    """Standard error is (or is not) a terminal, and the automatic bar shows at once."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: tty, raising=False)
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)


class _Recorder:
    """A bar that records what it is told."""

    def __init__(self, total, progress, desc, unit="it"):
        self.total, self.progress, self.desc, self.n, self.closed = total, progress, desc, 0, False
        _Recorder.made.append(self)

    def update(self, n=1):
        self.n += n

    def close(self):
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def test_auto_bar_on_a_terminal(data, capsys, monkeypatch):
    _terminal(monkeypatch)
    a, b = data
    paired_comparison(a, b, name_a="new", name_b="old", **FAST)
    err = capsys.readouterr().err
    assert "new vs old" in err and "resample" in err


def test_auto_is_silent_off_a_terminal(data, capsys, monkeypatch):
    _terminal(monkeypatch, tty=False)
    a, b = data
    paired_comparison(a, b, **FAST)
    compare_many({"a": a, "b": b, "c": b + 0.01}, "b", **FAST)
    assert capsys.readouterr().err == ""


def test_false_is_silent_on_a_terminal(data, capsys, monkeypatch):
    _terminal(monkeypatch)
    a, b = data
    paired_comparison(a, b, progress=False, **FAST)
    compare_many({"a": a, "b": b}, "b", progress=False, **FAST)
    assert capsys.readouterr().err == ""


def test_true_shows_the_bar_anywhere(data, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    a, b = data
    compare_many({"a": a, "b": b, "c": b + 0.01}, "b", progress=True, **FAST)
    err = capsys.readouterr().err
    assert "comparisons with b" in err and "0/2" in err


def test_bars_count_every_resample_and_comparison(data, monkeypatch):
    import skrank.stats._paired as paired

    _Recorder.made = []
    monkeypatch.setattr(paired, "progress_bar", _Recorder)
    a, b = data
    # random sign patterns (80 differences: not enumerated) and resamples, all counted
    paired_comparison(a, b, progress=True, **FAST)
    bar, = _Recorder.made
    assert (bar.total, bar.n, bar.closed, bar.progress) == (6000, 6000, True, True)
    _Recorder.made = []
    compare_many({"a": a, "b": b, "c": b + 0.01}, "b", **FAST)
    outer, *inner = _Recorder.made
    assert (outer.total, outer.n, outer.closed, outer.progress) == (2, 2, True, None)
    assert [bar.progress for bar in inner] == [False, False]  # no bars inside the bar


def test_progress_changes_no_number(data, capsys, monkeypatch):
    _terminal(monkeypatch)
    a, b = data
    quiet = paired_comparison(a, b, progress=False, **FAST)
    shown = paired_comparison(a, b, progress=True, **FAST)
    assert (shown.ci_bca.low, shown.ci_bca.high, shown.pvalues) == (
        quiet.ci_bca.low, quiet.ci_bca.high, quiet.pvalues)


def test_bad_progress_is_named(data):
    a, b = data
    with pytest.raises(InvalidParameterError, match=r"'progress' parameter of paired_comparison"
                                                      r".*a bool.*Got 'yes'"):
        paired_comparison(a, b, progress="yes")
    with pytest.raises(InvalidParameterError, match="'progress' parameter of compare_many"):
        compare_many({"a": a, "b": b}, "b", progress=1)


def test_bootstrap_ci_and_randomization_test_take_progress(data, capsys, monkeypatch):
    import skrank.stats._bootstrap as boot
    import skrank.stats._permutation as perm
    from skrank.stats import bootstrap_ci, randomization_test

    a, b = data
    _terminal(monkeypatch)
    ci = bootstrap_ci(a - b, n_resamples=3000, rng=0)
    test = randomization_test(a - b, n_permutations=3000, rng=0)
    err = capsys.readouterr().err
    assert "bootstrap" in err and "sign flips" in err
    assert bootstrap_ci(a - b, n_resamples=3000, rng=0, progress=False) == ci
    assert randomization_test(a - b, n_permutations=3000, rng=0, progress=False) == test
    assert capsys.readouterr().err == ""
    _Recorder.made = []
    monkeypatch.setattr(boot, "progress_bar", _Recorder)
    monkeypatch.setattr(perm, "progress_bar", _Recorder)
    bootstrap_ci(a - b, n_resamples=3000, rng=0)
    randomization_test(a - b, n_permutations=3000, rng=0)
    assert [(r.total, r.n, r.closed) for r in _Recorder.made] == [(3000, 3000, True)] * 2
    with pytest.raises(InvalidParameterError, match="'progress' parameter of bootstrap_ci"):
        bootstrap_ci(a - b, progress="no")
    with pytest.raises(InvalidParameterError, match="'progress' parameter of randomization_t"):
        randomization_test(a - b, progress=0)
