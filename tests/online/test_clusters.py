"""Cluster-randomised experiments: variance over cluster totals, the naive one beside it.

References: with one unit per cluster the analysis is Welch's t (scipy); with clusters it
equals tea-tasting's ``RatioOfMeans`` on the table of cluster totals to 1e-10; a simulation
with intra-cluster correlation shows the cluster interval covering at 95% and the naive
unit-level one not.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skrank.exceptions import InputError, InvalidParameterError
from skrank.online import analyze_experiment

TOL = {"rel": 1e-10, "abs": 1e-12}
HAS_TEA = importlib.util.find_spec("tea_tasting") is not None
TEA_REASON = "tea-tasting is not installed (pip install tea-tasting; it pulls in ibis-framework)"


def _clustered(n_clusters=200, mean_size=20, icc=0.2, effect=0.0, rng=0):
    """Units in clusters of Poisson sizes; the outcome shares a cluster effect (ICC ``icc``)."""
    rng = np.random.default_rng(rng)
    sizes = rng.poisson(mean_size - 1, n_clusters) + 1
    treated = rng.integers(0, 2, n_clusters)
    cluster = np.repeat(np.arange(n_clusters), sizes)
    u = np.repeat(rng.normal(0, math.sqrt(icc), n_clusters), sizes)
    arm = treated[cluster]
    y = 5 + u + rng.normal(0, math.sqrt(1 - icc), cluster.size) + effect * arm
    x = 5 + u + rng.normal(0, math.sqrt(1 - icc), cluster.size)
    clicks = rng.poisson(np.exp(0.5 * u) * 2)
    impressions = clicks + rng.poisson(5, cluster.size) + 1
    return pd.DataFrame({"arm": arm, "team": cluster, "y": y, "y_pre": x, "clicks": clicks,
                         "impressions": impressions})


def test_one_unit_per_cluster_is_welch():
    df = _clustered(n_clusters=500, mean_size=1, rng=1)
    assert df.team.is_unique
    res = analyze_experiment(df, arm="arm", control=0, metrics=["y"], cluster="team")
    eff = res["y"]
    ref = stats.ttest_ind(df.y[df.arm == 1], df.y[df.arm == 0], equal_var=False)
    assert eff.p_value == pytest.approx(ref.pvalue, **TOL)
    assert eff.se == pytest.approx(eff.naive_se, **TOL)
    assert eff.design_effect == pytest.approx(1.0, **TOL)


@pytest.mark.skipif(not HAS_TEA, reason=TEA_REASON)
@pytest.mark.parametrize("seed", [0, 1])
def test_equal_to_tea_tasting_on_cluster_totals(seed):
    import tea_tasting as tt

    df = _clustered(rng=seed, effect=0.1)
    res = analyze_experiment(df, arm="arm", control=0, cluster="team",
                             metrics={"y": "y", "ctr": ("clicks", "impressions")},
                             covariates={"y": "y_pre"})
    tot = df.assign(units=1).groupby("team").agg(
        arm=("arm", "first"), y=("y", "sum"), y_pre=("y_pre", "sum"), units=("units", "sum"),
        clicks=("clicks", "sum"), impressions=("impressions", "sum")).reset_index()
    # tea-tasting 1.14 wants distinct columns for the metric's and the covariate's denominators
    tot["units_pre"] = tot.units
    exp = tt.Experiment(variant="arm", y=tt.RatioOfMeans("y", "units", "y_pre", "units_pre"),
                        ctr=tt.RatioOfMeans("clicks", "impressions"))
    ref = exp.analyze(tot, control=0)
    for name in ("y", "ctr"):
        eff, r = res[name], ref[name]
        assert eff.difference == pytest.approx(r.effect_size, **TOL)
        assert eff.ci == pytest.approx((r.effect_size_ci_lower, r.effect_size_ci_upper), **TOL)
        assert eff.p_value == pytest.approx(r.pvalue, **TOL)
        assert eff.relative_ci == pytest.approx(
            (r.rel_effect_size_ci_lower, r.rel_effect_size_ci_upper), **TOL)
    assert res["y"].kind == "mean" and res["y"].cluster == "team"
    # the sample ratio check counts clusters: the randomisation unit
    assert sum(res.srm.counts) == df.team.nunique() == res.n_clusters
    assert res.n_units == len(df)
    assert (res["y"].n_control, res["y"].n_arm) == tuple(
        tot.arm.value_counts().reindex([0, 1]))


def test_naive_variance_under_covers_with_intra_cluster_correlation():
    # 300 replicates of 100 clusters of about 20 users, ICC 0.2 (design effect about 4.8):
    # the cluster interval covers at 95% (binomial 3-sd tolerance, +-0.038), the naive
    # unit-level interval far less
    n_rep, effect = 300, 0.2
    cover, cover_naive, deff = [], [], []
    for r in range(n_rep):
        df = _clustered(n_clusters=100, icc=0.2, effect=effect, rng=100 + r)
        eff = analyze_experiment(df, arm="arm", control=0, metrics=["y"], cluster="team")["y"]
        cover.append(eff.ci[0] <= effect <= eff.ci[1])
        z = stats.t.ppf(0.975, eff.df)
        cover_naive.append(abs(eff.difference - effect) <= z * eff.naive_se)
        deff.append(eff.design_effect)
    tol = 3 * math.sqrt(0.95 * 0.05 / n_rep)
    assert abs(np.mean(cover) - 0.95) < tol
    assert np.mean(cover_naive) < 0.80
    assert 3.0 < np.median(deff) < 7.0


def test_printing_shows_the_naive_se_as_not_used():
    df = _clustered(rng=3)
    res = analyze_experiment(df, arm="arm", control=0, metrics=["y"], cluster="team")
    text = str(res)
    assert "units (200 clusters of team)" in text.splitlines()[0]
    assert "ratios of cluster sums" in text
    assert "naive unit-level se" in text and "not used" in text
    assert res.conventions["variance_unit"] == "clusters of team"
    assert res.to_dict()["n_clusters"] == 200


def test_cluster_errors():
    df = _clustered(n_clusters=20, rng=4)
    with pytest.raises(InvalidParameterError, match=r"'cluster' parameter.*column"):
        analyze_experiment(df, arm="arm", control=0, metrics=["y"], cluster="nope")
    mixed = df.copy()
    mixed.loc[0, "arm"] = 1 - mixed.loc[0, "arm"]
    with pytest.raises(InputError, match=r"'cluster'.*wholly in one arm.*row 0"):
        analyze_experiment(mixed, arm="arm", control=0, metrics=["y"], cluster="team")
    two = df[df.team.isin([0, 1, 2])]
    with pytest.raises(InputError, match="at least 2 clusters in every arm"):
        analyze_experiment(two, arm="arm", control=0, metrics=["y"], cluster="team")
