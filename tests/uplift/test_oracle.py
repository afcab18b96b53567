"""skrank.uplift against the loop oracle of ``_oracle.py``, on random data with heavy ties."""

from __future__ import annotations

import numpy as np
import pytest

import skrank.uplift as su

from . import _oracle

TIES = ("group", "input", "reverse")
EMPTY = ("zero", "interpolate")


def _cases(n_cases, n_max, seed, binary=True):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_cases:
        n = int(rng.integers(4, n_max + 1))
        t = rng.integers(0, 2, n)
        if t.min() == t.max():
            continue
        y = rng.integers(0, 2, n) if binary else np.round(rng.normal(size=n), 2)
        if binary and y.min() == y.max():
            continue
        levels = int(rng.integers(1, 5))
        s = rng.integers(0, levels, n) / 2.0 - 0.5
        out.append((y, s, t))
    return out


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("empty_group", EMPTY)
@pytest.mark.parametrize("kind", ["uplift", "qini"])
def test_curves(kind, ties, empty_group):
    fn = su.uplift_curve if kind == "uplift" else su.qini_curve
    for y, s, t in _cases(40, 25, 1, binary=False):
        xs, values = _oracle.curve(y.tolist(), s.tolist(), t.tolist(), kind, ties, empty_group)
        got = fn(y, s, t, ties=ties, empty_group=empty_group)
        np.testing.assert_allclose(got.x, xs, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.y, values, rtol=0, atol=1e-12)


@pytest.mark.parametrize("ties", TIES)
def test_perfect_curves(ties):
    for y, _, t in _cases(30, 25, 2):
        yl, tl = y.tolist(), t.tolist()
        for kind, fn, scores in (
            ("uplift", su.perfect_uplift_curve, _oracle.perfect_uplift_scores(yl, tl)),
            ("qini", su.perfect_qini_curve, _oracle.perfect_qini_scores(yl, tl)),
        ):
            xs, values = _oracle.curve(yl, scores, tl, kind, ties, "zero")
            got = fn(y, t, ties=ties)
            np.testing.assert_allclose(got.x, xs, atol=1e-12)
            np.testing.assert_allclose(got.y, values, atol=1e-12)


@pytest.mark.parametrize("normalize", ["perfect", "last", "none"])
@pytest.mark.parametrize("baseline", ["random", "none"])
@pytest.mark.parametrize("area", ["trapezoid", "points"])
@pytest.mark.parametrize("kind", ["uplift", "qini"])
def test_areas(kind, normalize, baseline, area):
    fn = su.uplift_auc_score if kind == "uplift" else su.qini_auc_score
    checked = 0
    for i, (y, s, t) in enumerate(_cases(40, 20, 3)):
        ties = TIES[i % 3]
        empty_group = EMPTY[i % 2]
        options = dict(ties=ties, empty_group=empty_group, normalize=normalize,
                       baseline=baseline, area=area)
        try:
            got = float(fn(y, s, t, **options))
        except su_input_error():
            continue  # nothing to normalise by (a curve ending at 0): tested elsewhere
        want = _oracle.auc(y.tolist(), s.tolist(), t.tolist(), kind, **options)
        assert got == pytest.approx(want, abs=1e-12)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("strategy", ["overall", "by_group"])
def test_uplift_at_k(strategy, ties):
    checked = 0
    for y, s, t in _cases(60, 8, 4):
        n, n_t = len(y), int(t.sum())
        for k in (0.5, 3, 0.75):
            if strategy == "overall":
                size = int(n * k) if isinstance(k, float) else k
                args = size
            else:
                size_t = int(n_t * k) if isinstance(k, float) else k
                size_c = int((n - n_t) * k) if isinstance(k, float) else k
                if not (1 <= size_t <= n_t and 1 <= size_c <= n - n_t):
                    continue
                args = (size_t, size_c)
            try:
                want = _oracle.uplift_at_k(y.tolist(), s.tolist(), t.tolist(), strategy, args,
                                           ties)
            except ZeroDivisionError:
                with pytest.raises(su_input_error(), match="'k' parameter of uplift_at_k"):
                    su.uplift_at_k(y, s, t, strategy, k, ties=ties)
                continue
            got = su.uplift_at_k(y, s, t, strategy, k, ties=ties)
            assert float(got) == pytest.approx(want, abs=1e-12)
            checked += 1
    assert checked > 30


def su_input_error():
    from skrank.exceptions import InputError

    return InputError


def test_percentiles_sum_to_the_whole():
    for y, s, t in _cases(20, 40, 5):
        for strategy in ("overall", "by_group"):
            table = su.uplift_by_percentile(y, s, t, strategy, bins=3)
            assert table.n_treatment.sum() == pytest.approx(t.sum())
            assert table.n_control.sum() == pytest.approx(len(t) - t.sum())


def test_fast_and_general_paths_agree():
    """Binary outcomes take the packed-key sort; real outcomes the argsort; same knots."""
    rng = np.random.default_rng(6)
    for _ in range(30):
        n = int(rng.integers(5, 400))
        t = rng.integers(0, 2, n)
        t[:2] = [0, 1]
        y = rng.integers(0, 2, n)
        s = rng.choice(np.array([-np.inf, -1.5, -0.0, 0.0, 1e-300, 0.25, 3.0, np.inf]), n)
        fast = su.qini_curve(y, s, t)
        general = su.qini_curve(y.astype(float) + 0.0 * rng.normal(size=n) + 0.5, s, t)
        assert fast.x.tolist() == general.x.tolist()
        # the general path gives outcomes 0.5 and 1.5: responders counted shifted by 0.5
        np.testing.assert_allclose(
            fast.y, su.qini_curve(y, s, t, ties="input").y[np.r_[0, fast.x[1:].astype(int)]]
        )


def test_scores_within_a_few_ulps_are_not_merged():
    """The packed-key sort drops two low bits; scores that differ only there are not tied."""
    base = np.float64(0.3)
    s = np.array([base, np.nextafter(base, 1), np.nextafter(np.nextafter(base, 1), 1), base])
    y = np.array([1, 0, 1, 0])
    t = np.array([1, 0, 0, 1])
    got = su.uplift_curve(y, s, t, preset="sklift")
    xs, values = _oracle.curve(y.tolist(), s.tolist(), t.tolist(), "uplift", "group", "zero")
    assert got.x.tolist() == xs
    np.testing.assert_allclose(got.y, values, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint64, np.float32,
                                   bool])
def test_score_dtypes(dtype):
    rng = np.random.default_rng(7)
    s = rng.integers(0, 2 if dtype is bool else 5, 50).astype(dtype)
    y = rng.integers(0, 2, 50)
    t = np.tile([0, 1], 25)
    want = su.qini_curve(y, s.astype(np.float64), t)
    got = su.qini_curve(y, s, t)
    np.testing.assert_array_equal(got.x, want.x)
    np.testing.assert_allclose(got.y, want.y, atol=1e-12)
