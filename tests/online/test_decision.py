"""One-sided tests, non-inferiority, corrections and the decision rules of ``decide``.

References: scipy's ``ttest_ind(equal_var=False, alternative=...)`` for one-sided Welch tests
and intervals, statsmodels' ``ttest_ind(usevar="unequal", value=...)`` for non-inferiority
with a margin and ``multipletests`` for Holm and Benjamini-Hochberg, all to 1e-10 on random
data; planted cases for each rule of the decision.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skrank.exceptions import InvalidParameterError
from skrank.online import Decision, DecisionTest, analyze_experiment, decide

TOL = {"rel": 1e-10, "abs": 1e-12}
sm_weightstats = pytest.importorskip("statsmodels.stats.weightstats",
                                     reason="statsmodels is not installed (test extra)")
sm_multitest = pytest.importorskip("statsmodels.stats.multitest",
                                   reason="statsmodels is not installed (test extra)")


def _units(n=4000, arms=("A", "B"), rng=0, lift=None, latency=None, p=None):
    """Users with clicks (primary) and latency (guardrail, lower is better)."""
    rng = np.random.default_rng(rng)
    arm = rng.choice(np.asarray(arms, dtype=object), size=n, p=p)
    lift = lift or {}
    latency = latency or {}
    mu = np.array([2.0 + lift.get(a, 0.0) for a in arm])
    lat = np.array([200.0 + latency.get(a, 0.0) for a in arm])
    return pd.DataFrame({"arm": arm, "clicks": rng.poisson(mu).astype(float),
                         "latency": rng.normal(lat, 30.0),
                         "revenue": rng.gamma(2.0, 1.0 + 0.5 * (arm != arms[0]))})


# -- one-sided tests ---------------------------------------------------------------------------

@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("seed", [0, 1])
def test_one_sided_equals_scipy(alternative, seed):
    df = _units(rng=seed, lift={"B": 0.03})
    eff = analyze_experiment(df, arm="arm", control="A", metrics=["clicks"],
                             alternative=alternative, confidence_level=0.9)["clicks"]
    a, b = df.clicks[df.arm == "A"], df.clicks[df.arm == "B"]
    ref = stats.ttest_ind(b, a, equal_var=False, alternative=alternative)
    assert eff.alternative == alternative
    assert eff.p_value == pytest.approx(ref.pvalue, **TOL)
    assert eff.statistic == pytest.approx(ref.statistic, **TOL)
    lo, hi = ref.confidence_interval(0.9)
    assert eff.ci == pytest.approx((lo, hi), **TOL)
    # the relative interval is one-sided too
    assert (eff.relative_ci[1] == np.inf) == (alternative == "greater")
    assert (eff.relative_ci[0] == -np.inf) == (alternative == "less")


def test_one_sided_is_half_the_two_sided_p_in_the_right_direction():
    df = _units(rng=2, lift={"B": 0.05})
    kw = dict(arm="arm", control="A", metrics=["clicks"])
    two = analyze_experiment(df, **kw)["clicks"]
    greater = analyze_experiment(df, alternative="greater", **kw)
    assert two.difference > 0
    assert greater["clicks"].p_value == pytest.approx(two.p_value / 2, **TOL)
    assert "greater" in str(greater["clicks"])
    assert greater.conventions["test"] == "Welch t, greater"


# -- non-inferiority with margins --------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_guardrail_non_inferiority_equals_statsmodels(seed):
    df = _units(rng=seed, lift={"B": 0.1}, latency={"B": 2.0})
    res = analyze_experiment(df, arm="arm", control="A", metrics=["clicks", "latency"])
    a, b = df[df.arm == "A"], df[df.arm == "B"]
    # absolute margin of 5 ms on latency (lower is better): H0 diff >= 5
    d = decide(res, primary="clicks", guardrails={"latency": 5.0},
               direction={"latency": "decrease"}, margin_scale="absolute",
               correction="none")
    guard = next(t for t in d.tests if t.metric == "latency")
    t_ref, p_ref, _ = sm_weightstats.ttest_ind(b.latency, a.latency, alternative="smaller",
                                               usevar="unequal", value=5.0)
    assert guard.statistic == pytest.approx(t_ref, **TOL)
    assert guard.p_value == pytest.approx(p_ref, **TOL)
    assert guard.p_adjusted == guard.p_value and guard.margin == 5.0
    _, p_harm, _ = sm_weightstats.ttest_ind(b.latency, a.latency, alternative="larger",
                                            usevar="unequal", value=5.0)
    assert guard.p_harm == pytest.approx(p_harm, **TOL)
    # primary: one-sided superiority, statsmodels with value 0
    prim = next(t for t in d.tests if t.role == "primary")
    _, p_prim, _ = sm_weightstats.ttest_ind(b.clicks, a.clicks, alternative="larger",
                                            usevar="unequal")
    assert prim.p_value == pytest.approx(p_prim, **TOL)
    # a relative margin of 2% is 2% of the control's mean latency
    rel = decide(res, primary="clicks", guardrails={"latency": 0.02},
                 direction={"latency": "decrease"}, correction="none")
    guard = next(t for t in rel.tests if t.metric == "latency")
    m = 0.02 * a.latency.mean()
    assert guard.margin == pytest.approx(m, **TOL)
    _, p_ref, _ = sm_weightstats.ttest_ind(b.latency, a.latency, alternative="smaller",
                                           usevar="unequal", value=m)
    assert guard.p_value == pytest.approx(p_ref, **TOL)


@pytest.mark.parametrize("correction", ["holm", "bh", "bonferroni"])
def test_corrections_over_arms_and_metrics_equal_statsmodels(correction):
    arms = ("A", "B", "C", "D")
    df = _units(n=6000, arms=arms, rng=5, lift={"B": 0.08, "C": 0.02},
                latency={"B": 1.0, "C": 3.0, "D": -1.0})
    res = analyze_experiment(df, arm="arm", control="A", metrics=["clicks", "latency",
                                                                  "revenue"])
    d = decide(res, primary="clicks", guardrails={"latency": 0.01, "revenue": 0.05},
               direction={"latency": "decrease"}, correction=correction)
    assert len(d.tests) == 3 * 3
    raw = np.array([t.p_value for t in d.tests])
    method = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni"}[correction]
    ref = sm_multitest.multipletests(raw, alpha=0.05, method=method)[1]
    np.testing.assert_allclose([t.p_adjusted for t in d.tests], ref, rtol=1e-12)
    assert [t.passed for t in d.tests] == [bool(p <= 0.05) for p in ref]


# -- the decision rules ------------------------------------------------------------------------

def _decide(df, **kw):
    res = analyze_experiment(df, arm="arm", control="A", metrics=["clicks", "latency"])
    return decide(res, primary="clicks", guardrails={"latency": 0.01},
                  direction={"latency": "decrease"}, **kw)


def test_ship_when_primary_better_and_guardrails_hold():
    d = _decide(_units(n=20_000, rng=6, lift={"B": 0.1}))
    assert isinstance(d, Decision) and all(isinstance(t, DecisionTest) for t in d.tests)
    assert (d.decision, d.arm) == ("ship", "B")
    assert d.arms["B"][0] == "ship"
    assert str(d).startswith("Decision: ship B\n")


def test_do_not_ship_when_a_guardrail_is_worse_than_its_margin():
    # latency +5% (10 ms) with a 1% margin: harm, whatever the primary says
    d = _decide(_units(n=20_000, rng=7, lift={"B": 0.1}, latency={"B": 10.0}))
    assert d.decision == "do not ship" and d.arm is None
    verdict, reasons = d.arms["B"]
    assert verdict == "do not ship"
    assert any("latency worse than the margin 1%" in r for r in reasons)
    assert any("clicks better" in r for r in reasons)


def test_do_not_ship_when_the_primary_is_worse():
    d = _decide(_units(n=20_000, rng=8, lift={"B": -0.1}))
    assert d.decision == "do not ship"
    assert any(r.startswith("clicks worse") for r in d.arms["B"][1])


def test_inconclusive_when_nothing_is_shown():
    d = _decide(_units(n=400, rng=9))
    assert d.decision == "inconclusive" and d.arm is None
    reasons = d.arms["B"][1]
    assert any("clicks not shown better" in r for r in reasons)
    assert any("latency not shown non-inferior" in r for r in reasons)


def test_sample_ratio_mismatch_makes_it_inconclusive():
    d = _decide(_units(n=40_000, rng=10, lift={"B": 0.1}, p=[0.52, 0.48]))
    assert d.srm_mismatch and d.decision == "inconclusive"
    assert d.arms["B"][1][0].startswith("sample ratio mismatch")


def test_several_arms_ship_the_best_and_keep_the_others_verdicts():
    df = _units(n=30_000, arms=("A", "B", "C", "D"), rng=11,
                lift={"B": 0.08, "C": 0.15, "D": 0.15}, latency={"D": 15.0})
    d = _decide(df)
    assert d.arms["B"][0] == "ship" and d.arms["C"][0] == "ship"
    assert d.arms["D"][0] == "do not ship"
    assert (d.decision, d.arm) == ("ship", "C")
    out = d.to_dict()
    assert out["arm"] == "C" and out["arms"]["D"]["decision"] == "do not ship"
    assert len(out["rules"]) == 5
    import json

    json.dumps(out)


def test_decrease_direction_for_the_primary():
    df = _units(n=20_000, rng=12, latency={"B": -5.0})
    res = analyze_experiment(df, arm="arm", control="A", metrics=["latency"])
    d = decide(res, primary="latency", direction={"latency": "decrease"})
    assert d.decision == "ship"
    assert decide(res, primary="latency").decision == "do not ship"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"primary": "nope"}, "'primary' parameter of decide.*analysed metric"),
        ({"guardrails": {"nope": 0.1}}, "'guardrails' parameter.*keyed by analysed"),
        ({"guardrails": {"latency": -0.1}}, "'guardrails' parameter.*non-negative margin"),
        ({"guardrails": {"clicks": 0.1}}, "'guardrails' parameter.*other than the primary"),
        ({"direction": {"latency": "down"}}, "'direction' parameter.*'increase', 'decrease'"),
        ({"direction": {"nope": "increase"}}, "'direction' parameter.*keyed"),
        ({"margin_scale": "percent"}, "'margin_scale' parameter.*'absolute', 'relative'"),
        ({"alpha": 0}, "'alpha' parameter"),
        ({"correction": "sidak"}, "'correction' parameter.*'holm'"),
    ],
)
def test_bad_parameters(kwargs, match):
    res = analyze_experiment(_units(n=200, rng=13), arm="arm", control="A",
                             metrics=["clicks", "latency"])
    with pytest.raises(InvalidParameterError, match=match):
        decide(res, **{"primary": "clicks", **kwargs})
    with pytest.raises(InvalidParameterError, match="'result' parameter"):
        decide({"effects": []}, primary="clicks")
    with pytest.raises(InvalidParameterError, match="'alternative' parameter"):
        analyze_experiment(_units(n=50), arm="arm", control="A", metrics=["clicks"],
                           alternative="larger")
