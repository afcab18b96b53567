"""skrank.uplift's presets against scikit-uplift 0.5.1 and causalml, to 1e-12.

The references are test dependencies; these tests skip, with the reason shown, only when a
reference cannot be imported.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import skrank.uplift as su
from skrank.exceptions import InputError

sm = pytest.importorskip("sklift.metrics", reason="scikit-uplift is not installed")
pd = pytest.importorskip("pandas", reason="pandas is not installed")
mpl = pytest.importorskip("matplotlib", reason="matplotlib (needed by causalml) is not installed")
# causalml's import calls plt.style.use("fivethirtyeight") and seaborn.set_palette: keep that
# process-wide change out of the other tests
with mpl.rc_context():
    cml = pytest.importorskip(
        "causalml.metrics",
        reason="causalml is not installed (or one of its runtime dependencies is missing)",
    )

# scikit-uplift calls sklearn.utils.extmath.stable_cumsum, deprecated in scikit-learn 1.8
pytestmark = pytest.mark.filterwarnings(
    "ignore::FutureWarning", "ignore::RuntimeWarning", "ignore:The inplace keyword:Warning"
)

TOL = 1e-12


def test_causalml_import_left_matplotlib_alone():
    assert mpl.rcParams["axes.facecolor"] == mpl.rcParamsDefault["axes.facecolor"]


def test_reference_versions():
    from importlib.metadata import version

    assert version("scikit-uplift") == "0.5.1"
    major, minor = (int(v) for v in version("causalml").split(".")[:2])
    assert (major, minor) >= (0, 15)


def _random_cases(seed, sizes):
    rng = np.random.default_rng(seed)
    for i, n in enumerate(sizes):
        t = rng.integers(0, 2, n)
        y = rng.integers(0, 2, n)
        if i % 3 == 0:
            s = rng.random(n)  # no ties
        else:
            s = rng.integers(0, int(rng.integers(1, 8)), n) / 4.0  # heavy ties
        t[:2], y[:2] = (0, 1), (0, 1)
        yield y, s, t


SIZES = [6, 9, 12, 17, 30, 64, 100, 257, 1000, 5003]


def _curve_equal(ref, got):
    rx, ry = ref
    np.testing.assert_allclose(got.x, rx, rtol=0, atol=TOL)
    np.testing.assert_allclose(got.y, ry, rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sklift_curves_and_areas(seed):
    for y, s, t in _random_cases(seed, SIZES):
        _curve_equal(sm.uplift_curve(y, s, t), su.uplift_curve(y, s, t, preset="sklift"))
        _curve_equal(sm.qini_curve(y, s, t), su.qini_curve(y, s, t, preset="sklift"))
        _curve_equal(sm.perfect_uplift_curve(y, t), su.perfect_uplift_curve(y, t, preset="sklift"))
        for neg in (True, False):
            try:
                ref = sm.perfect_qini_curve(y, t, negative_effect=neg)
            except ValueError:
                continue
            if ref[0][1] >= 0:
                _curve_equal(ref, su.perfect_qini_curve(y, t, neg, preset="sklift"))
        assert float(su.uplift_auc_score(y, s, t, preset="sklift")) == pytest.approx(
            sm.uplift_auc_score(y, s, t), abs=TOL
        )
        assert float(su.qini_auc_score(y, s, t, preset="sklift")) == pytest.approx(
            sm.qini_auc_score(y, s, t), abs=TOL
        )


def test_sklift_defaults_are_skranks_for_curves_and_areas():
    for y, s, t in _random_cases(3, SIZES[:8]):
        assert float(su.qini_auc_score(y, s, t)) == pytest.approx(
            sm.qini_auc_score(y, s, t), abs=TOL
        )
        _curve_equal(sm.uplift_curve(y, s, t), su.uplift_curve(y, s, t))


@pytest.mark.parametrize("strategy", ["overall", "by_group"])
def test_sklift_uplift_at_k_and_percentiles(strategy):
    checked = 0
    for y, s, t in _random_cases(4, SIZES):
        for k in (0.1, 0.3, 0.5, 0.9, 5, 11):
            try:
                ref = sm.uplift_at_k(y, s, t, strategy, k)
            except ValueError:
                continue
            if np.isnan(ref):  # an empty group in the top k: skrank raises
                with pytest.raises(InputError, match="'k' parameter"):
                    su.uplift_at_k(y, s, t, strategy, k, preset="sklift")
                continue
            assert float(su.uplift_at_k(y, s, t, strategy, k, preset="sklift")) == (
                pytest.approx(ref, abs=TOL)
            )
            checked += 1
        if len(y) > 10:
            ref = sm.uplift_by_percentile(y, s, t, strategy=strategy, bins=5, std=True,
                                          total=True)
            got = su.uplift_by_percentile(y, s, t, strategy, 5, preset="sklift")
            frame = got.to_frame(std=True, total=True)
            assert list(frame.index) == list(ref.index)
            cols = ["n_treatment", "n_control", "response_rate_treatment",
                    "response_rate_control", "uplift"]
            np.testing.assert_allclose(frame[cols].to_numpy(), ref[cols].to_numpy(dtype=float),
                                       atol=TOL)
            std = ["std_treatment", "std_control", "std_uplift"]
            # bins only: scikit-uplift's total row sums the bins' standard errors
            np.testing.assert_allclose(frame[std].to_numpy()[:-1],
                                       ref[std].to_numpy(dtype=float)[:-1], atol=TOL)
    assert checked > 20


def _frame(y, s, t):
    return pd.DataFrame({"y": y, "w": t, "model": s})


def test_causalml_curves_and_scores():
    for y, s, t in _random_cases(5, SIZES):
        df = _frame(y, s, t)
        gain = cml.get_cumgain(df)["model"].to_numpy()
        qini = cml.get_qini(df)["model"].to_numpy()
        _curve_equal((np.arange(len(y) + 1), gain), su.uplift_curve(y, s, t, preset="causalml"))
        _curve_equal((np.arange(len(y) + 1), qini), su.qini_curve(y, s, t, preset="causalml"))
        for normalize in (True, False):
            how = "last" if normalize else "none"
            if normalize and (gain[-1] == 0 or qini[-1] == 0):
                continue
            auuc = cml.auuc_score(df, normalize=normalize)["model"]
            qs = cml.qini_score(df, normalize=normalize)["model"]
            assert float(
                su.uplift_auc_score(y, s, t, preset="causalml", normalize=how)
            ) == pytest.approx(auuc, abs=TOL)
            assert float(
                su.qini_auc_score(y, s, t, preset="causalml", normalize=how)
            ) == pytest.approx(qs, abs=TOL)


# -- the cases ----------------------------------------------------------------------

# 12 rows in three tie groups; causalml: AUUC 0.0156 / 0.2774, Qini 0.5981 / 0.9346 (reversed)
Y12 = np.array([1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1])
T12 = np.array([0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1, 0])
S12 = np.array([0.9, 0.9, 0.9, 0.9, 0.5, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1, 0.1])


def test_reversed_tied_rows_move_causalml_not_sklift():
    rev = slice(None, None, -1)
    a, b = _frame(Y12, S12, T12), _frame(Y12[rev], S12[rev], T12[rev])
    auuc = (cml.auuc_score(a)["model"], cml.auuc_score(b)["model"])
    qini = (cml.qini_score(a)["model"], cml.qini_score(b)["model"])
    assert auuc[0] != pytest.approx(auuc[1], abs=1e-3)
    assert qini[0] != pytest.approx(qini[1], abs=1e-3)
    # the causalml preset reproduces both orders, value for value
    for (yy, ss, tt), want_auuc, want_qini in zip(
        ((Y12, S12, T12), (Y12[rev], S12[rev], T12[rev])), auuc, qini
    ):
        assert float(su.uplift_auc_score(yy, ss, tt, preset="causalml")) == pytest.approx(
            want_auuc, abs=TOL
        )
        assert float(su.qini_auc_score(yy, ss, tt, preset="causalml")) == pytest.approx(
            want_qini, abs=TOL
        )
    # scikit-uplift groups the tied rows: the order does not matter, nor does it to skrank
    assert sm.qini_auc_score(Y12, S12, T12) == sm.qini_auc_score(Y12[rev], S12[rev], T12[rev])
    for preset in ("sklift", None):
        assert float(su.qini_auc_score(Y12, S12, T12, preset=preset)) == float(
            su.qini_auc_score(Y12[rev], S12[rev], T12[rev], preset=preset)
        )
    # skrank with causalml's conventions but grouped ties: the order no longer matters
    grouped = [
        float(su.uplift_auc_score(yy, ss, tt, preset="causalml", ties="group"))
        for yy, ss, tt in ((Y12, S12, T12), (Y12[rev], S12[rev], T12[rev]))
    ]
    assert grouped[0] == grouped[1]


def test_negative_average_effect_without_negative_effect():
    # treated respond less than control: the average effect is negative
    y = np.array([0, 0, 1, 0, 1, 1, 1, 0])
    t = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    s = np.array([0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1])
    with pytest.raises(ValueError, match="neither increasing nor decreasing"):
        sm.qini_auc_score(y, s, t, negative_effect=False)
    with pytest.raises(InputError, match="'negative_effect' parameter of qini_auc_score must be "
                                         "True when the treatment's average effect is negative"):
        su.qini_auc_score(y, s, t, negative_effect=False)
    # with negative effects allowed both agree
    assert float(su.qini_auc_score(y, s, t)) == pytest.approx(sm.qini_auc_score(y, s, t),
                                                              abs=TOL)


def test_unstable_ties_are_pandas_descending_sort():
    rng = np.random.default_rng(8)
    for n in (12, 40, 1000, 20000):
        s = rng.integers(0, 4, n).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = pd.DataFrame({"s": s}).sort_values("s", ascending=False).index.to_numpy()
        from skrank.uplift._ranking import row_order

        np.testing.assert_array_equal(row_order(s, "unstable"), want)
