"""Scores behave as floats and print their conventions; curves unpack and plot."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import skrank.uplift as su

Y = np.array([1, 1, 0, 1, 0, 0, 1, 0])
T = np.array([1, 1, 0, 1, 0, 1, 0, 0])
S = np.array([0.9, 0.8, 0.8, 0.5, 0.5, 0.3, 0.2, 0.2])


def test_score_is_float_like():
    score = su.qini_auc_score(Y, S, T)
    v = score.value
    assert float(score) == v
    assert score == v and v == score and score != v + 1
    assert score + 1 == v + 1 and 1 + score == 1 + v and score - 1 == v - 1 and 1 - score == 1 - v
    assert score * 2 == 2 * v and 2 * score == 2 * v and score / 2 == v / 2 and 1 / score == 1 / v
    assert score < 1 and score > 0 and score <= v and score >= v
    assert -score == -v and abs(score) == abs(v) and score**2 == v**2
    assert round(score, 2) == round(v, 2) and f"{score:.3f}" == f"{v:.3f}"
    assert math.isclose(score, v) and np.isclose(score, v)
    assert sorted([score, 0.0, 1.0])[1] is score
    assert hash(score) == hash(v)
    assert score == su.qini_auc_score(Y, S, T)
    assert pickle.loads(pickle.dumps(score)) == score
    assert score.to_dict()["conventions"]["ties"] == "group"


def test_score_prints_its_conventions():
    text = str(su.qini_auc_score(Y, S, T, ties="input"))
    assert text.startswith("Qini AUC = 0.")
    assert "(ties=input, empty_group=zero, normalize=perfect, baseline=random, " in text
    assert "negative_effect=True" in text
    assert "8 rows: 4 treated, 4 control; 6 rows share a score (their order counts)" in text
    assert f"{su.qini_auc_score(Y, S, T)}" == str(su.qini_auc_score(Y, S, T))
    assert repr(su.qini_auc_score(Y, S, T)).startswith("<UpliftScore Qini AUC = ")


def test_negative_effect_shown_only_when_it_counts():
    assert "negative_effect" not in str(su.qini_auc_score(Y, S, T, normalize="none"))
    assert "negative_effect" not in str(su.uplift_auc_score(Y, S, T))


def test_curve_unpacks_and_indexes():
    curve = su.qini_curve(Y, S, T)
    x, y = curve
    assert x is curve.x and y is curve.y and curve[0] is x and len(curve) == 2
    assert x.dtype == np.float64 and y.dtype == np.float64
    assert x[0] == 0 and x[-1] == len(Y) and np.all(np.diff(x) > 0)
    assert "qini curve: 6 points ending at 2.0000 (ties=group" in str(curve)


def test_normalised_curve_ends_at_plus_or_minus_one():
    assert su.uplift_curve(Y, S, T, normalize="last").y[-1] == 1.0


def test_group_ties_do_not_depend_on_row_order():
    rng = np.random.default_rng(0)
    for _ in range(10):
        p = rng.permutation(len(Y))
        assert float(su.qini_auc_score(Y[p], S[p], T[p])) == pytest.approx(
            float(su.qini_auc_score(Y, S, T)), abs=1e-15
        )
        assert float(su.uplift_at_k(Y[p], S[p], T[p], "overall", 0.5)) == pytest.approx(
            float(su.uplift_at_k(Y, S, T, "overall", 0.5)), abs=1e-15
        )


def test_plot():
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    out = su.qini_curve(Y, S, T).plot(ax=ax, label="model")
    su.perfect_qini_curve(Y, T).plot(ax=ax, random=False)
    assert out is ax
    assert [line.get_label() for line in ax.get_lines()] == ["model", "random", "perfect qini"]
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), su.qini_curve(Y, S, T).x)


def test_table_by_percentile():
    table = su.uplift_by_percentile(Y, S, T, bins=2)
    assert table.percentiles == ["0-50", "50-100"]
    assert "uplift by percentile (2 bins, strategy=overall, ties=group)" in str(table)
    pytest.importorskip("pandas", reason="pandas is not installed")
    frame = table.to_frame(std=True, total=True)
    assert list(frame.index) == ["0-50", "50-100", "total"]
    assert frame.loc["total", "uplift"] == pytest.approx(0.75 - 0.25)


def test_conventions_object():
    c = su.UpliftConventions()
    assert c.to_dict() == {"ties": "group", "empty_group": "zero", "normalize": "perfect",
                           "baseline": "random", "area": "trapezoid", "negative_effect": True}
    assert su.qini_auc_score(Y, S, T, preset="causalml").conventions == su.UpliftConventions(
        ties="unstable", empty_group="interpolate", normalize="last", area="points"
    )


def test_facade():
    import skrank.uplift

    assert sorted(skrank.uplift.__all__) == skrank.uplift.__all__
    for name in skrank.uplift.__all__:
        obj = getattr(skrank.uplift, name)
        assert isinstance(obj, tuple) or obj.__module__.startswith("skrank.uplift._")
