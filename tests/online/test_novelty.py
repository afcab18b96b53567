"""novelty_test: the effect by day and its trend.

References: scipy's Welch ``ttest_ind`` per day, statsmodels' ``WLS`` with the variances taken
as known (``cov_type="fixed scale"``) for the slope, both to 1e-10; an A/A simulation of the
trend test's level and a planted fading effect.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skrank.exceptions import InputError, InvalidParameterError
from skrank.online import NoveltyResult, novelty_test

TOL = {"rel": 1e-10, "abs": 1e-12}
sm = pytest.importorskip("statsmodels.api", reason="statsmodels is not installed (test extra)")


def _days(n_days=10, per_day=600, lift=lambda d: 0.0, rng=0):
    rng = np.random.default_rng(rng)
    day = np.repeat(np.arange(1, n_days + 1), per_day)
    arm = rng.choice(["A", "B"], day.size)
    y = rng.gamma(2.0, 1.0, day.size) + (arm == "B") * lift(day)
    return pd.DataFrame({"arm": arm, "day": day, "y": y})


def test_daily_effects_and_slope_equal_scipy_and_statsmodels():
    df = _days(per_day=4000, lift=lambda d: 0.4 * np.exp(-d / 3), rng=1)
    res = novelty_test(df, arm="arm", metric="y", control="A", day="day", early_days=2,
                       confidence_level=0.9)
    assert isinstance(res, NoveltyResult) and res.days.tolist() == list(range(1, 11))
    for j, d in enumerate(res.days):
        a = df.y[(df.day == d) & (df.arm == "A")]
        b = df.y[(df.day == d) & (df.arm == "B")]
        ref = stats.ttest_ind(b, a, equal_var=False)
        assert res.effect[j] == pytest.approx(b.mean() - a.mean(), **TOL)
        assert res.effect[j] / res.se[j] == pytest.approx(ref.statistic, **TOL)
        assert res.ci[j] == pytest.approx(ref.confidence_interval(0.9), **TOL)
    fit = sm.WLS(res.effect, sm.add_constant(res.days.astype(float)),
                 weights=1 / res.se**2).fit(cov_type="fixed scale")
    assert res.slope == pytest.approx(fit.params[1], **TOL)
    assert res.slope_se == pytest.approx(fit.bse[1], **TOL)
    assert res.slope_p_value == pytest.approx(fit.pvalues[1], **TOL)
    # early vs late: inverse-variance weighted means (statsmodels WLS on a constant)
    early = res.days <= 2
    for mask, value in ((early, res.early_effect), (~early, res.late_effect)):
        m = sm.WLS(res.effect[mask], np.ones(mask.sum()), weights=1 / res.se[mask] ** 2).fit()
        assert value == pytest.approx(m.params[0], **TOL)
    assert res.slope < 0 and res.slope_p_value < 0.01
    assert res.early_effect > res.late_effect and res.early_late_p_value < 0.01


def test_trend_test_keeps_its_level_under_a_constant_effect():
    # a constant effect of 0.1 over 10 cohort days: the slope test rejects at 5% in 5% of
    # 600 replicates (3 binomial standard errors: +-0.027)
    rejects = [novelty_test(_days(per_day=200, lift=lambda d: 0.1, rng=100 + r), arm="arm",
                            metric="y", control="A", day="day").slope_p_value < 0.05
               for r in range(600)]
    assert abs(np.mean(rejects) - 0.05) < 3 * math.sqrt(0.05 * 0.95 / 600)


def test_printing_plot_and_to_dict():
    res = novelty_test(_days(n_days=3, rng=2), arm="arm", metric="y", control="A", day="day",
                       early_days=1)
    text = str(res)
    assert text.startswith("NoveltyResult: y, B vs A, 3 days")
    assert "first 1 days" in text and "day 3:" in text
    json.dumps(res.to_dict())
    mpl = pytest.importorskip("matplotlib", reason="matplotlib is not installed (plot extra)")
    mpl.use("Agg")
    ax = res.plot()
    assert ax.get_xlabel() == "day" and len(ax.get_lines()) >= 2
    import matplotlib.pyplot as plt

    plt.close("all")


def test_one_day_has_no_trend():
    res = novelty_test(_days(n_days=1, rng=3), arm="arm", metric="y", control="A", day="day")
    assert math.isnan(res.slope) and math.isnan(res.early_late_p_value)


def test_bad_input():
    df = _days(n_days=3, per_day=50, rng=4)
    kw = dict(arm="arm", metric="y", control="A", day="day")
    for bad, match in [({"day": "week"}, "'day' parameter"),
                       ({"control": "Z"}, "'control' parameter"),
                       ({"early_days": 0}, "'early_days' parameter"),
                       ({"confidence_level": 2}, "'confidence_level' parameter")]:
        with pytest.raises(InvalidParameterError, match=match):
            novelty_test(df, **{**kw, **bad})
    with pytest.raises(InputError, match=r"at least 2 units of each arm on every day.*day 4"):
        novelty_test(pd.concat([df, pd.DataFrame({"arm": ["A"], "day": [4], "y": [1.0]})]),
                     **kw)
    with pytest.raises(InputError, match="exactly 2 arms"):
        novelty_test(df.assign(arm=np.resize(["A", "B", "C"], len(df))), **kw)
