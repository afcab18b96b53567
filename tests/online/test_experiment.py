"""analyze_experiment: Welch t, delta-method ratios, CUPED and the sample ratio check.

References: scipy (ttest_ind with equal_var=False, chisquare), skrank's own delta-method
``ratio_ztest`` and, where it installs, tea-tasting (Mean, RatioOfMeans, SampleRatio), all to
1e-10 on random data; simulations for CUPED's bias, coverage and interval width.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skrank.exceptions import InputError, InvalidParameterError
from skrank.online import (
    ExperimentResult,
    MetricEffect,
    SampleRatioCheck,
    analyze_experiment,
    ratio_ztest,
)
from skrank.online._experiment import sample_ratio_check

TOL = {"rel": 1e-10, "abs": 1e-12}
HAS_TEA = importlib.util.find_spec("tea_tasting") is not None
TEA_REASON = "tea-tasting is not installed (pip install tea-tasting; it pulls in ibis-framework)"


def _units(n: int = 2000, arms=("A", "B"), p=None, rng=0, effect: float = 0.1) -> pd.DataFrame:
    """Users with a revenue, clicks and impressions, and their pre-period values."""
    rng = np.random.default_rng(rng)
    arm = rng.choice(np.asarray(arms, dtype=object), size=n, p=p)
    treated = (arm != arms[0]).astype(float)
    skill = rng.gamma(2.0, 1.0, n)
    impressions = rng.poisson(3 + 2 * skill) + 1
    impressions_pre = rng.poisson(3 + 2 * skill) + 1
    ctr = np.clip(0.1 + 0.05 * skill + 0.02 * treated, 0, 1)
    clicks = rng.binomial(impressions, ctr)
    clicks_pre = rng.binomial(impressions_pre, np.clip(0.1 + 0.05 * skill, 0, 1))
    revenue_pre = skill * 5 + rng.normal(0, 2, n)
    revenue = skill * 5 + effect * treated + rng.normal(0, 2, n)
    return pd.DataFrame({
        "arm": arm, "revenue": revenue, "revenue_pre": revenue_pre, "clicks": clicks,
        "impressions": impressions, "clicks_pre": clicks_pre,
        "impressions_pre": impressions_pre,
    })


# -- Welch t against scipy -------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_means_equal_scipy_welch(seed):
    df = _units(rng=seed)
    res = analyze_experiment(df, arm="arm", control="A", metrics=["revenue", "clicks"],
                             confidence_level=0.9)
    for metric in ("revenue", "clicks"):
        a = df.loc[df.arm == "A", metric].to_numpy()
        b = df.loc[df.arm == "B", metric].to_numpy()
        ref = stats.ttest_ind(b, a, equal_var=False)
        eff = res[metric]
        assert eff.statistic == pytest.approx(ref.statistic, **TOL)
        assert eff.p_value == pytest.approx(ref.pvalue, **TOL)
        assert eff.df == pytest.approx(ref.df, **TOL)
        lo, hi = ref.confidence_interval(0.9)
        assert eff.ci == pytest.approx((lo, hi), **TOL)
        assert eff.difference == pytest.approx(b.mean() - a.mean(), **TOL)
        assert eff.relative_difference == pytest.approx(b.mean() / a.mean() - 1, **TOL)
        assert (eff.n_control, eff.n_arm) == (a.size, b.size)
        assert eff.kind == "mean" and eff.covariate is None and eff.theta is None


def test_relative_ci_is_the_log_delta_method():
    df = _units(rng=3)
    eff = analyze_experiment(df, arm="arm", control="A", metrics=["revenue"])["revenue"]
    a = df.loc[df.arm == "A", "revenue"].to_numpy()
    b = df.loc[df.arm == "B", "revenue"].to_numpy()
    va = a.var(ddof=1) / a.size / a.mean() ** 2
    vb = b.var(ddof=1) / b.size / b.mean() ** 2
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    half = stats.t.ppf(0.975, dof) * math.sqrt(va + vb)
    ratio = b.mean() / a.mean()
    assert eff.relative_ci == pytest.approx((ratio * math.exp(-half) - 1,
                                             ratio * math.exp(half) - 1), **TOL)


def test_ratio_metric_equals_delta_method_ratio_ztest():
    df = _units(rng=4)
    eff = analyze_experiment(df, arm="arm", control="A",
                             metrics={"ctr": ("clicks", "impressions")})["ctr"]
    a, b = df[df.arm == "A"], df[df.arm == "B"]
    ref = ratio_ztest(a.clicks, a.impressions, b.clicks, b.impressions)
    assert eff.kind == "ratio"
    assert eff.value_control == pytest.approx(ref.value_a, **TOL)
    assert eff.value_arm == pytest.approx(ref.value_b, **TOL)
    assert eff.se == pytest.approx(ref.se, **TOL)
    assert eff.statistic == pytest.approx(ref.z, **TOL)
    # Welch t with the linearised variances: a little wider than the z interval
    assert eff.ci[0] < ref.ci[0] and eff.ci[1] > ref.ci[1]
    assert eff.p_value == pytest.approx(ref.p_value, rel=1e-2)


def test_polars_pyarrow_and_pandas_give_the_same_numbers():
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    df = _units(rng=5)
    kw = dict(arm="arm", control="A", metrics=["revenue", ("clicks", "impressions")],
              covariates={"revenue": "revenue_pre"})
    want = analyze_experiment(df, **kw).to_dict()
    assert analyze_experiment(pl.from_pandas(df), **kw).to_dict() == want
    assert analyze_experiment(pa.Table.from_pandas(df), **kw).to_dict() == want


def test_several_treatment_arms_each_against_control():
    df = _units(n=3000, arms=("ctl", "t1", "t2"), rng=6)
    res = analyze_experiment(df, arm="arm", control="ctl", metrics=["revenue"])
    assert res.arms == ("ctl", "t1", "t2")
    assert [(e.metric, e.arm) for e in res.effects] == [("revenue", "t1"), ("revenue", "t2")]
    for t in ("t1", "t2"):
        ref = stats.ttest_ind(df.revenue[df.arm == t], df.revenue[df.arm == "ctl"],
                              equal_var=False)
        assert res["revenue", t].p_value == pytest.approx(ref.pvalue, **TOL)
    with pytest.raises(KeyError, match="2 treatment arms"):
        res["revenue"]
    with pytest.raises(KeyError):
        res["revenue", "t3"]


def test_integer_arms():
    df = _units(rng=7)
    df["arm"] = (df.arm == "B").astype(int)
    res = analyze_experiment(df, arm="arm", control=0, metrics=["revenue"])
    assert res.arms == (0, 1) and res["revenue"].arm == 1
    assert isinstance(res.to_dict()["arms"][0], int)


# -- sample ratio mismatch ---------------------------------------------------------------------

def test_srm_equals_scipy_chisquare_with_a_planned_split():
    df = _units(n=5000, arms=("a", "b", "c"), p=[0.5, 0.3, 0.2], rng=8)
    split = {"a": 5, "b": 3, "c": 2}
    res = analyze_experiment(df, arm="arm", control="a", metrics=["revenue"],
                             planned_split=split)
    counts = df.arm.value_counts().reindex(["a", "b", "c"]).to_numpy()
    ref = stats.chisquare(counts, f_exp=counts.sum() * np.array([0.5, 0.3, 0.2]))
    assert res.srm.statistic == pytest.approx(ref.statistic, **TOL)
    assert res.srm.p_value == pytest.approx(ref.pvalue, **TOL)
    assert res.srm.counts == tuple(counts) and res.srm.df == 2
    assert res.srm.planned_split == pytest.approx((0.5, 0.3, 0.2))
    assert not res.srm.mismatch
    # the same data against an equal split is a glaring mismatch
    bad = analyze_experiment(df, arm="arm", control="a", metrics=["revenue"])
    assert bad.srm.mismatch and bad.srm.p_value < 1e-100


def test_planted_mismatch_at_100k_users_is_flagged_and_printed_first():
    # 51,000 / 49,000 users where 50/50 was planned
    arm = np.repeat(["A", "B"], [51_000, 49_000])
    df = pd.DataFrame({"arm": arm, "y": np.random.default_rng(9).normal(size=arm.size)})
    res = analyze_experiment(df, arm="arm", control="A", metrics=["y"])
    assert res.srm.mismatch
    assert res.srm.statistic == pytest.approx(40.0)
    text = str(res)
    assert text.splitlines()[0].startswith("SAMPLE RATIO MISMATCH")
    assert text.index("SAMPLE RATIO MISMATCH") < text.index("y (mean)")
    # 50,500 / 49,500 (a 1% imbalance of the ratio): p = 0.0016, flagged at srm_alpha=0.01
    # and not at the default 0.001, which keeps false alarms rare over many experiments
    counts = (50_500, 49_500)
    check = sample_ratio_check(counts, np.array([0.5, 0.5]), ["A", "B"], 0.001)
    assert check.p_value == pytest.approx(stats.chisquare(counts).pvalue, **TOL)
    assert not check.mismatch
    assert sample_ratio_check(counts, np.array([0.5, 0.5]), ["A", "B"], 0.01).mismatch


def test_srm_false_alarm_rate_under_a_correct_split():
    rng = np.random.default_rng(10)
    n_rep, alpha = 4000, 0.01
    flags = 0
    for _ in range(n_rep):
        counts = rng.multinomial(10_000, [0.6, 0.4])
        flags += sample_ratio_check(counts, np.array([0.6, 0.4]), ["a", "b"], alpha).mismatch
    tol = 3 * math.sqrt(alpha * (1 - alpha) / n_rep)
    assert abs(flags / n_rep - alpha) < tol


def test_passing_check_is_printed_after_the_header():
    res = analyze_experiment(_units(rng=11), arm="arm", control="A", metrics=["revenue"])
    lines = str(res).splitlines()
    assert lines[0].startswith("ExperimentResult: 2,000 units in 2 arms, control A")
    assert "Welch t" in lines[0] and "delta method" in lines[0]
    assert lines[1].strip().startswith("sample ratio check passed")
    assert lines[2].strip().startswith("revenue (mean), B vs A:")


def test_result_types_and_to_dict():
    res = analyze_experiment(_units(rng=12), arm="arm", control="A",
                             metrics=["revenue", ("clicks", "impressions")])
    assert isinstance(res, ExperimentResult)
    assert isinstance(res.srm, SampleRatioCheck)
    assert all(isinstance(e, MetricEffect) for e in res.effects)
    d = res.to_dict()
    assert d["conventions"]["test"] == "Welch t, two-sided"
    assert [e["metric"] for e in d["effects"]] == ["revenue", "clicks/impressions"]
    assert isinstance(d["effects"][0]["ci"], list)
    import json

    json.dumps(d)


# -- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"arm": "group"}, InvalidParameterError, "'arm' parameter of analyze_experiment"),
        ({"control": "Z"}, InvalidParameterError, "'control' parameter.*one of the arms"),
        ({"metrics": "revenue"}, InvalidParameterError, "'metrics' parameter"),
        ({"metrics": []}, InvalidParameterError, "'metrics' parameter.*non-empty"),
        ({"metrics": [("clicks", 3)]}, InvalidParameterError, "'metrics' parameter"),
        ({"metrics": ["revenue", "revenue"]}, InvalidParameterError, "distinct names"),
        ({"metrics": ["nope"]}, InputError, "'metrics' parameter.*column of data"),
        ({"covariates": {"clicks": "revenue_pre"}}, InvalidParameterError,
         "'covariates' parameter.*keyed by metric names"),
        ({"covariates": ["revenue_pre"]}, InvalidParameterError, "'covariates' parameter"),
        ({"covariates": {"revenue": "nope"}}, InputError, "'covariates' parameter.*column"),
        ({"planned_split": {"A": 1}}, InvalidParameterError, "'planned_split' parameter"),
        ({"planned_split": {"A": 1, "B": 0}}, InvalidParameterError, "'planned_split'"),
        ({"confidence_level": 95}, InvalidParameterError, "'confidence_level' parameter"),
        ({"srm_alpha": 0}, InvalidParameterError, "'srm_alpha' parameter"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, exc, match):
    base = dict(arm="arm", control="A", metrics=["revenue"])
    with pytest.raises(exc, match=match):
        analyze_experiment(_units(n=50, rng=13), **{**base, **kwargs})


def test_bad_data():
    df = _units(n=50, rng=14)
    with pytest.raises(InvalidParameterError, match=r"'data' parameter.*DataFrame"):
        analyze_experiment(df.to_dict("list"), arm="arm", control="A", metrics=["revenue"])
    nan = df.copy()
    nan.loc[3, "revenue"] = np.nan
    with pytest.raises(InputError, match=r"finite numbers.*nan in column 'revenue' at row 3"):
        analyze_experiment(nan, arm="arm", control="A", metrics=["revenue"])
    with pytest.raises(InputError, match="at least 2 distinct arms"):
        analyze_experiment(df[df.arm == "A"], arm="arm", control="A", metrics=["revenue"])
    zero = df.assign(impressions=np.where(df.arm == "B", 0, df.impressions))
    with pytest.raises(InputError, match=r"denominator 'impressions' of positive sum.*'B'"):
        analyze_experiment(zero, arm="arm", control="A", metrics=[("clicks", "impressions")])
    zero_pre = df.assign(impressions_pre=0)
    with pytest.raises(InputError, match=r"'covariates'.*'impressions_pre' of positive sum"):
        analyze_experiment(zero_pre, arm="arm", control="A",
                           metrics={"ctr": ("clicks", "impressions")},
                           covariates={"ctr": ("clicks_pre", "impressions_pre")})
    with pytest.raises(InputError, match="at least 2 units in every arm"):
        analyze_experiment(pd.concat([df[df.arm == "A"], df[df.arm == "B"].head(1)]),
                           arm="arm", control="A", metrics=["revenue"])


# -- tea-tasting -------------------------------------------------------------------------------

def _tea(df: pd.DataFrame, metrics: dict, control: str, treatment: str = "B"):
    tt = pytest.importorskip("tea_tasting", reason=TEA_REASON)
    exp = tt.Experiment(variant="arm", **metrics)
    res = exp.analyze(df, control=control, all_variants=True)
    return res[(control, treatment)]


def _assert_same_as_tea(eff: MetricEffect, ref) -> None:
    assert eff.value_control == pytest.approx(ref.control, **TOL)
    assert eff.value_arm == pytest.approx(ref.treatment, **TOL)
    assert eff.difference == pytest.approx(ref.effect_size, **TOL)
    assert eff.ci == pytest.approx((ref.effect_size_ci_lower, ref.effect_size_ci_upper), **TOL)
    assert eff.relative_difference == pytest.approx(ref.rel_effect_size, **TOL)
    assert eff.relative_ci == pytest.approx(
        (ref.rel_effect_size_ci_lower, ref.rel_effect_size_ci_upper), **TOL)
    assert eff.p_value == pytest.approx(ref.pvalue, **TOL)
    assert eff.statistic == pytest.approx(ref.statistic, **TOL)


@pytest.mark.skipif(not HAS_TEA, reason=TEA_REASON)
@pytest.mark.parametrize("seed", [0, 1])
def test_equal_to_tea_tasting(seed):
    import tea_tasting as tt

    df = _units(n=3000, rng=seed, p=[0.55, 0.45])
    res = analyze_experiment(
        df, arm="arm", control="A", metrics={"revenue": "revenue",
                                             "ctr": ("clicks", "impressions")})
    ref = _tea(df, {"revenue": tt.Mean("revenue"), "ctr": tt.RatioOfMeans("clicks", "impressions"),
                    "srm": tt.SampleRatio(method="norm", correction=False)}, "A")
    _assert_same_as_tea(res["revenue"], ref["revenue"])
    _assert_same_as_tea(res["ctr"], ref["ctr"])
    # two arms: the chi-square of the counts is the square of tea-tasting's z
    assert res.srm.p_value == pytest.approx(ref["srm"].pvalue, **TOL)


@pytest.mark.skipif(not HAS_TEA, reason=TEA_REASON)
@pytest.mark.parametrize("seed", [0, 1])
def test_cuped_equal_to_tea_tasting(seed):
    import tea_tasting as tt

    df = _units(n=3000, rng=seed)
    res = analyze_experiment(
        df, arm="arm", control="A",
        metrics={"revenue": "revenue", "ctr": ("clicks", "impressions")},
        covariates={"revenue": "revenue_pre", "ctr": ("clicks_pre", "impressions_pre")})
    ref = _tea(df, {
        "revenue": tt.Mean("revenue", covariate="revenue_pre"),
        "ctr": tt.RatioOfMeans("clicks", "impressions", "clicks_pre", "impressions_pre"),
    }, "A")
    _assert_same_as_tea(res["revenue"], ref["revenue"])
    _assert_same_as_tea(res["ctr"], ref["ctr"])
    assert res["revenue"].covariate == "revenue_pre"
    assert res["ctr"].covariate == "clicks_pre/impressions_pre"


# -- CUPED by simulation -----------------------------------------------------------------------

def _cuped_replicates(n_rep: int, n: int, rng: int, effect: float, ratio: bool):
    """Per replicate: (naive estimate, CUPED estimate, naive CI, CUPED CI)."""
    gen = np.random.default_rng(rng)
    out = []
    for _ in range(n_rep):
        arm = gen.integers(0, 2, n)
        skill = gen.gamma(2.0, 1.0, n)
        if ratio:
            impr = gen.poisson(2 + 3 * skill) + 1
            impr_pre = gen.poisson(2 + 3 * skill) + 1
            p = np.clip(0.05 + 0.1 * skill, 0, 0.9)
            df = pd.DataFrame({"arm": arm, "c": gen.binomial(impr, p), "i": impr,
                               "c0": gen.binomial(impr_pre, p), "i0": impr_pre})
            metric, cov = ("c", "i"), ("c0", "i0")
        else:
            # pre- and in-experiment revenue share the user's skill: correlation about 0.8
            df = pd.DataFrame({"arm": arm, "y": 5 * skill + effect * arm + gen.normal(0, 3, n),
                               "x": 5 * skill + gen.normal(0, 3, n)})
            metric, cov = "y", "x"
        naive = analyze_experiment(df, arm="arm", control=0, metrics={"m": metric})["m"]
        cuped = analyze_experiment(df, arm="arm", control=0, metrics={"m": metric},
                                   covariates={"m": cov})["m"]
        out.append((naive.difference, cuped.difference, naive.ci, cuped.ci))
    return out


@pytest.mark.parametrize("ratio", [False, True], ids=["mean", "ratio"])
def test_cuped_is_unbiased_covers_and_is_narrower(ratio):
    n_rep, effect = 500, 0.0 if ratio else 0.5
    reps = _cuped_replicates(n_rep, 1000, rng=20 + ratio, effect=effect, ratio=ratio)
    naive = np.array([r[0] for r in reps])
    cuped = np.array([r[1] for r in reps])
    width_naive = np.array([r[2][1] - r[2][0] for r in reps])
    width_cuped = np.array([r[3][1] - r[3][0] for r in reps])
    covered = np.array([r[3][0] <= effect <= r[3][1] for r in reps])
    # unbiased: the mean estimate is within 4 standard errors of the truth
    assert abs(cuped.mean() - effect) < 4 * cuped.std(ddof=1) / math.sqrt(n_rep)
    # coverage of the 95% interval within a binomial tolerance (3 sd: +-0.029 at 500)
    tol = 3 * math.sqrt(0.95 * 0.05 / n_rep)
    assert abs(covered.mean() - 0.95) < tol
    # narrower in (nearly) every replicate, and the estimates vary less
    assert np.mean(width_cuped < width_naive) > 0.95
    assert np.median(width_cuped / width_naive) < 0.8
    assert cuped.std() < 0.8 * naive.std()


@pytest.mark.parametrize("values", [
    np.array([True, False]), np.array([-3, 5]), np.array([2.5, -1.0]),
    np.array(["b", "a"], dtype=object),
], ids=["bool", "int", "float", "str"])
def test_arm_codes_of_every_dtype_give_the_same_analysis(values):
    # integer and boolean arms are counted through a table, others by np.unique: the
    # analysis is the same as with string arms
    df = _units(n=500, rng=15)
    want = analyze_experiment(df, arm="arm", control="A", metrics=["revenue"])["revenue"]
    coded = df.assign(arm=np.where(df.arm == "A", values[0], values[1]))
    got = analyze_experiment(coded, arm="arm", control=values[0].item() if hasattr(
        values[0], "item") else values[0], metrics=["revenue"])
    assert got.arms == tuple(sorted(v.item() if hasattr(v, "item") else v for v in values))
    eff = got["revenue"]
    assert eff.arm == (values[1].item() if hasattr(values[1], "item") else values[1])
    assert (eff.difference, eff.p_value, eff.n_control) == (
        want.difference, want.p_value, want.n_control)


def test_string_arms_with_missing_or_mixed_values_are_refused():
    df = _units(n=60, rng=16)
    missing = df.assign(arm=df.arm.where(df.index != 7, None))
    with pytest.raises(InputError, match=r"'arm' parameter.*without missing values"):
        analyze_experiment(missing, arm="arm", control="A", metrics=["revenue"])
    mixed = df.assign(arm=df.arm.where(df.index != 7, 3))
    with pytest.raises(InputError, match=r"'arm' parameter.*of one type"):
        analyze_experiment(mixed, arm="arm", control="A", metrics=["revenue"])
