"""paired_comparison: alignment, NaN policy, agreement with scipy, edge cases, reproducibility.

References: scipy.stats.ttest_rel and scipy.stats.wilcoxon (called on a and b, not on the
differences), skrank.stats.bootstrap_ci / randomization_test (same seed -> same streams), and
obviously-correct loops written here for wins/ties/losses and the largest losses.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from skrank import InputError, InvalidParameterError
from skrank.stats import (
    PairedComparison,
    bootstrap_ci,
    minimum_detectable_difference,
    paired_comparison,
    randomization_test,
)

FAST = {"n_resamples": 500, "n_permutations": 500}


def _pair(n=40, shift=0.02, seed=0):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.2, 0.9, size=n)
    a = np.clip(b + rng.normal(shift, 0.1, size=n), 0.0, 1.0)
    return a, b


# --------------------------------------------------------------------------- agreement with scipy


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_t_test_matches_scipy_ttest_rel(alternative):
    a, b = _pair(seed=1)
    res = paired_comparison(a, b, alternative=alternative, rng=0, **FAST)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert res.t_test.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.t_test.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.t_test.df == ref.df == 39


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_matches_scipy(alternative):
    a, b = _pair(seed=2)
    res = paired_comparison(a, b, alternative=alternative, rng=0, **FAST)
    ref = stats.wilcoxon(a, b, alternative=alternative)
    assert res.wilcoxon.statistic == pytest.approx(ref.statistic)
    assert res.wilcoxon.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_wilcoxon_drops_zero_differences_like_scipy():
    a, b = _pair(n=30, seed=3)
    b[:6] = a[:6]  # six exact ties
    res = paired_comparison(a, b, rng=0, **FAST)
    ref = stats.wilcoxon(a, b)  # zero_method="wilcox": zeros dropped
    assert res.wilcoxon.n_zero == 6
    assert res.wilcoxon.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_small_samples_with_ties_match_scipy_permutation(alternative):
    # With ties or zeros and at most 13 queries, scipy's method="auto" runs a permutation test
    # over all 2**n sign patterns; skrank enumerates the signed ranks itself: same p-values.
    rng = np.random.default_rng(17)
    for _ in range(5):
        n = int(rng.integers(3, 8))
        d = rng.choice([-0.5, -0.25, 0.0, 0.25, 0.5, 1.0], size=n)
        if not d.any():
            continue
        res = paired_comparison(d, np.zeros(n), alternative=alternative, rng=0, **FAST)
        ref = stats.wilcoxon(d, alternative=alternative)
        assert res.wilcoxon.exact
        assert res.wilcoxon.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        assert res.wilcoxon.statistic == pytest.approx(ref.statistic)


def test_wilcoxon_large_samples_with_ties_use_the_normal_approximation():
    d = np.tile([0.25, -0.25, 0.5, 0.0, 0.5], 6)  # 30 queries with ties and zeros
    res = paired_comparison(d, np.zeros(30), rng=0, **FAST)
    ref = stats.wilcoxon(d)
    assert not res.wilcoxon.exact
    assert res.wilcoxon.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("n", [50, 51, 400])
def test_wilcoxon_method_switch_matches_scipy_auto(n):
    # No ties: exact distribution up to 50 queries, normal approximation above (scipy "auto").
    d = np.random.default_rng(n).normal(0.02, 0.1, size=n)
    res = paired_comparison(d, np.zeros(n), rng=0, **FAST)
    assert res.wilcoxon.exact == (n <= 50)
    assert res.wilcoxon.pvalue == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-12)


def test_t_interval_matches_scipy():
    a, b = _pair(seed=4)
    res = paired_comparison(a, b, confidence_level=0.9, rng=0, **FAST)
    ci = stats.ttest_rel(a, b).confidence_interval(confidence_level=0.9)
    assert (res.ci_t.low, res.ci_t.high) == pytest.approx((ci.low, ci.high), rel=1e-12)


def test_summary_numbers_against_direct_computation():
    a, b = _pair(seed=5)
    res = paired_comparison(a, b, rng=0, **FAST)
    d = a - b
    assert res.n == 40
    assert res.mean_a == pytest.approx(a.mean())
    assert res.mean_b == pytest.approx(b.mean())
    assert res.mean_difference == pytest.approx(d.mean())
    assert res.sd_difference == pytest.approx(d.std(ddof=1))
    # Cohen's d_z is the mean difference over the SD of the differences.
    assert res.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
    assert res.effect_size_name == "cohen_dz"
    assert res.mdd.value == pytest.approx(minimum_detectable_difference(40, d.std(ddof=1)))


def test_same_seed_streams_as_the_standalone_functions():
    # The bootstrap uses the first child stream of the seed, the sign flips the second one.
    a, b = _pair(seed=6)
    res = paired_comparison(a, b, rng=11, n_resamples=800, n_permutations=700)
    bca = bootstrap_ci(a - b, rng=11, n_resamples=800)
    pct = bootstrap_ci(a - b, rng=11, n_resamples=800, method="percentile")
    rt = randomization_test(a - b, rng=11, n_permutations=700)
    assert (res.ci_bca.low, res.ci_bca.high) == (bca.low, bca.high)
    assert (res.ci_percentile.low, res.ci_percentile.high) == (pct.low, pct.high)
    assert res.randomization.pvalue == rt.pvalue


# --------------------------------------------------------------------------- wins, ties, losses


def test_wins_ties_losses_and_largest_losses_against_a_loop():
    rng = np.random.default_rng(7)
    b = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=50)
    a = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=50)
    qids = np.array([f"q{i:02d}" for i in range(50)])
    res = paired_comparison(a, b, qids_a=qids, top_losses=4, rng=0, **FAST)
    wins = ties = losses = 0
    rows = []
    for q, x, y in zip(qids, a, b):
        if x > y:
            wins += 1
        elif x < y:
            losses += 1
            rows.append((x - y, q, x, y))
        else:
            ties += 1
    assert (res.wins, res.ties, res.losses) == (wins, ties, losses)
    rows.sort(key=lambda r: r[0])  # stable: input order among equal losses
    expected = [(q, x, y, dd) for dd, q, x, y in rows[:4]]
    got = [(q.qid, q.a, q.b, q.difference) for q in res.largest_losses]
    assert got == expected


def test_tie_tolerance_turns_rounding_noise_into_ties():
    a = np.array([0.1 + 0.2, 0.5, 0.7, 0.2])
    b = np.array([0.3, 0.5, 0.6, 0.25])  # 0.1 + 0.2 - 0.3 = 5.6e-17
    res = paired_comparison(a, b, rng=0, **FAST)
    assert (res.wins, res.ties, res.losses) == (1, 2, 1)
    exact = paired_comparison(a, b, tie_tol=0.0, rng=0, **FAST)
    assert (exact.wins, exact.ties, exact.losses) == (2, 1, 1)


def test_top_losses_zero_and_no_losses():
    a, b = _pair(seed=8)
    assert paired_comparison(a, b, top_losses=0, rng=0, **FAST).largest_losses == ()
    res = paired_comparison(b + 0.1, b, rng=0, **FAST)
    assert res.losses == 0 and res.largest_losses == ()


# --------------------------------------------------------------------------- alignment by query id


def test_alignment_by_qid_ignores_order():
    a, b = _pair(n=30, seed=9)
    qids = np.arange(100, 130)
    perm = np.random.default_rng(0).permutation(30)
    aligned = paired_comparison(a, b, qids_a=qids, qids_b=qids, rng=3, **FAST)
    shuffled = paired_comparison(a, b[perm], qids_a=qids, qids_b=qids[perm], rng=3, **FAST)
    assert aligned.to_dict() == shuffled.to_dict()
    np.testing.assert_array_equal(shuffled.b, b)


def test_alignment_with_string_qids():
    a = [0.5, 0.7, 0.2]
    b = [0.6, 0.1, 0.4]
    res = paired_comparison(a, b, qids_a=["x", "y", "z"], qids_b=["z", "x", "y"], rng=0, **FAST)
    # b is realigned to x, y, z: 0.1, 0.4, 0.6.
    np.testing.assert_allclose(res.differences, [0.4, 0.3, -0.4])


def test_different_query_sets_name_the_missing_queries():
    with pytest.raises(InputError, match=r"1 query id\(s\) only in qids_a: 'q3'.*"
                                         r"1 query id\(s\) only in qids_b: 'q9'.*same queries"):
        paired_comparison([1, 2, 3], [1, 2, 3], qids_a=["q1", "q2", "q3"],
                          qids_b=["q1", "q2", "q9"])


def test_baseline_with_fewer_queries_is_reported():
    with pytest.raises(InputError, match=r"1 query id\(s\) only in qids_a: 4"):
        paired_comparison([1.0, 2, 3, 4], [1.0, 2, 3], qids_a=[1, 2, 3, 4], qids_b=[1, 2, 3])


def test_mixed_qid_types_are_refused():
    with pytest.raises(InputError, match="qids_a holds numbers but qids_b holds strings"):
        paired_comparison([1.0, 2], [1.0, 2], qids_a=[1, 2], qids_b=["1", "2"])


def test_duplicate_qids_are_refused():
    with pytest.raises(InputError, match=r"qids_b repeats 1 query id\(s\) \('a'\)"):
        paired_comparison([1.0, 2, 3], [1.0, 2, 3], qids_a=["a", "b", "c"],
                          qids_b=["a", "a", "c"])


def test_qid_length_mismatch():
    with pytest.raises(InputError, match="qids_a has 2 ids but a has 3 values"):
        paired_comparison([1.0, 2, 3], [1.0, 2, 3], qids_a=[1, 2], qids_b=[1, 2, 3])


def test_single_qids_labels_both_vectors():
    res = paired_comparison([0.3, 0.9, 0.5], [0.5, 0.2, 0.5], qids_a=["a", "b", "c"], rng=0,
                            **FAST)
    assert [q.qid for q in res.largest_losses] == ["a"]
    assert list(res.qids) == ["a", "b", "c"]


# --------------------------------------------------------------------------- NaN policy


def test_nan_raises_by_default_and_names_the_queries():
    a = [0.5, np.nan, 0.3, 0.4]
    b = [0.4, 0.2, np.nan, 0.1]
    with pytest.raises(InputError, match=r"NaN values in a \(1\) or b \(1\), for 2 queries "
                                         r"\('q2', 'q3'\).*nan_policy='omit'"):
        paired_comparison(a, b, qids_a=["q1", "q2", "q3", "q4"])


def test_nan_omit_drops_pairs_and_reports_them():
    a = np.array([0.5, np.nan, 0.3, 0.4, 0.9])
    b = np.array([0.4, 0.2, np.nan, 0.1, 0.7])
    res = paired_comparison(a, b, qids_a=["q1", "q2", "q3", "q4", "q5"], nan_policy="omit",
                            rng=0, **FAST)
    assert res.n == 3 and res.n_omitted == 2 and res.omitted_qids == ("q2", "q3")
    assert list(res.qids) == ["q1", "q4", "q5"]
    assert res.mean_a == pytest.approx((0.5 + 0.4 + 0.9) / 3)
    ref = stats.ttest_rel(a, b, nan_policy="omit")
    assert res.t_test.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert "2 omitted (NaN)" in str(res)


def test_nan_omit_leaving_too_few_queries():
    with pytest.raises(InputError, match="at least 2 queries; got 1 after omitting 2 with NaN"):
        paired_comparison([0.5, np.nan, 0.3], [0.4, 0.2, np.nan], nan_policy="omit")


# --------------------------------------------------------------------------- degenerate data


def test_all_zero_differences_do_not_crash():
    a = np.array([0.5, 0.2, 0.9, 0.0, 1.0])
    res = paired_comparison(a, a.copy(), rng=0)
    assert res.mean_difference == 0.0 and res.ties == 5
    assert res.pvalues == {"randomization": 1.0, "t": 1.0, "wilcoxon": 1.0}
    assert (res.ci_bca.low, res.ci_bca.high) == (0.0, 0.0)
    assert math.isnan(res.effect_size)
    assert res.mdd.value == 0.0
    assert any("every difference is zero" in note for note in res.notes)


def test_constant_nonzero_difference():
    b = np.arange(8) * 0.125  # dyadic values: a - b is exactly 0.25 on every query
    a = b + 0.25
    res = paired_comparison(a, b, rng=0)
    assert res.t_test.statistic == math.inf and res.t_test.pvalue == 0.0
    assert res.ci_bca.low == res.ci_bca.high == res.mean_difference == 0.25
    assert math.isnan(res.effect_size) and res.mdd.value == 0.0
    # Exact sign-flip: 2 of the 2**8 patterns reach |sum| = 8 * 0.25.
    assert res.randomization.exact and res.randomization.pvalue == pytest.approx(2 / 256)
    assert res.wins == 8
    assert any("infinite" in note for note in res.notes)


def test_undefined_bca_is_reported_not_invented():
    # With a single resample the bootstrap mean lies on one side of the observed mean: the
    # bias correction is infinite and BCa is undefined; the percentile interval still exists.
    a, b = _pair(seed=16)
    res = paired_comparison(a, b, n_resamples=1, n_permutations=100, rng=0)
    assert math.isnan(res.ci_bca.low) and math.isnan(res.ci_bca.high)
    assert not math.isnan(res.ci_percentile.low)
    assert any("BCa interval is undefined" in note for note in res.notes)


@given(
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=30),
    st.integers(0, 1000),
)
def test_swapping_the_systems_mirrors_the_comparison(pairs, seed):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    ab = paired_comparison(a, b, rng=seed, n_resamples=200, n_permutations=200)
    ba = paired_comparison(b, a, rng=seed, n_resamples=200, n_permutations=200)
    assert ba.mean_difference == pytest.approx(-ab.mean_difference, abs=1e-12)
    assert (ba.wins, ba.ties, ba.losses) == (ab.losses, ab.ties, ab.wins)
    # Same seed, same sign patterns and resamples: two-sided p-values are identical and the
    # percentile interval is mirrored.
    assert ba.randomization.pvalue == ab.randomization.pvalue
    assert ba.t_test.pvalue == pytest.approx(ab.t_test.pvalue, rel=1e-9, abs=1e-15)
    assert ba.wilcoxon.pvalue == pytest.approx(ab.wilcoxon.pvalue, rel=1e-9, abs=1e-15)
    assert ba.ci_percentile.low == pytest.approx(-ab.ci_percentile.high, abs=1e-12)
    assert ba.ci_percentile.high == pytest.approx(-ab.ci_percentile.low, abs=1e-12)
    assert ab.wins + ab.ties + ab.losses == ab.n == len(pairs)


def test_two_queries_is_enough():
    res = paired_comparison([0.5, 0.7], [0.4, 0.3], rng=0, **FAST)
    assert res.n == 2
    # Two positive differences: 2 of 4 sign patterns reach |sum| = 0.5.
    assert res.randomization.pvalue == pytest.approx(0.5)


# --------------------------------------------------------------------------- reproducibility


def test_same_seed_same_everything():
    a, b = _pair(seed=10)
    r1 = paired_comparison(a, b, rng=123, **FAST)
    r2 = paired_comparison(a, b, rng=123, **FAST)
    assert r1.to_dict(per_query=True) == r2.to_dict(per_query=True)
    assert str(r1) == str(r2)


def test_different_seed_changes_the_resampling():
    a, b = _pair(n=200, seed=10)
    r1 = paired_comparison(a, b, rng=1, **FAST)
    r2 = paired_comparison(a, b, rng=2, **FAST)
    assert r1.ci_percentile.low != r2.ci_percentile.low


def test_seed_none_is_reported_and_reproduces():
    a, b = _pair(seed=12)
    r1 = paired_comparison(a, b, **FAST)
    assert isinstance(r1.seed, int)
    r2 = paired_comparison(a, b, rng=r1.seed, **FAST)
    assert r1.to_dict() == r2.to_dict()


def test_generator_seed_is_accepted():
    a, b = _pair(seed=13)
    r1 = paired_comparison(a, b, rng=np.random.default_rng(5), **FAST)
    r2 = paired_comparison(a, b, rng=np.random.default_rng(5), **FAST)
    assert r1.seed is None and r1.to_dict() == r2.to_dict()


# --------------------------------------------------------------------------- result object


def test_to_dict_is_json_ready_and_complete():
    a, b = _pair(seed=14)
    res = paired_comparison(a, b, qids_a=np.arange(40), metric="ndcg@10", rng=0, **FAST)
    d = res.to_dict(per_query=True)
    text = json.dumps(d)  # numpy scalars would fail here
    back = json.loads(text)
    assert back["metric"] == "ndcg@10"
    assert set(back["ci"]) == {"percentile", "bca", "t"}
    assert set(back["tests"]) == {"randomization", "t", "wilcoxon"}
    assert back["per_query"]["qid"] == list(range(40))
    assert back["minimum_detectable_difference"]["power"] == 0.8
    assert back["effect_size"]["name"] == "cohen_dz"
    rec = res.to_record()
    assert rec["pvalue"] == res.randomization.pvalue and rec["ci_low"] == res.ci_bca.low
    assert res.to_record("t")["pvalue"] == res.t_test.pvalue


def test_str_states_every_number_and_convention():
    a, b = _pair(seed=15)
    res = paired_comparison(a, b, metric="ndcg@5", name_a="lgbm", name_b="bm25", rng=4, **FAST)
    text = str(res)
    for fragment in ("lgbm vs bm25 on ndcg@5", "n = 40 queries", "95% CI", "BCa", "percentile",
                     "randomisation test", "paired t-test", "Wilcoxon", "Cohen's d_z",
                     "wins / ties / losses", "minimum detectable difference", "seed: 4",
                     "alternative: two-sided"):
        assert fragment in text
    assert repr(res).startswith("PairedComparison(metric='ndcg@5', n=40")
    assert isinstance(res, PairedComparison)
    assert res.ci is res.ci_bca and res.pvalue == res.randomization.pvalue


# --------------------------------------------------------------------------- bad input


def test_unequal_lengths():
    with pytest.raises(InputError, match=r"got 3 and 2 values\. Pass qids_a and qids_b"):
        paired_comparison([1.0, 2, 3], [1.0, 2])


def test_fewer_than_two_queries():
    with pytest.raises(InputError, match="at least 2 queries; got 1"):
        paired_comparison([0.5], [0.4])


def test_not_one_dimensional():
    with pytest.raises(InputError, match=r"a must be a 1-D array.*shape \(2, 2\)"):
        paired_comparison([[1.0, 2], [3, 4]], [1.0, 2, 3, 4])


def test_non_numeric_values():
    with pytest.raises(InputError, match="b must be a 1-D array of numbers"):
        paired_comparison([1.0, 2], ["x", "y"])


def test_infinite_values():
    with pytest.raises(InputError, match=r"a has 1 infinite value\(s\) \(first at position 1\)"):
        paired_comparison([1.0, np.inf], [1.0, 2.0])


@pytest.mark.parametrize("confidence", [0, 1, 1.5, -0.1, "0.95", True])
def test_confidence_outside_unit_interval(confidence):
    with pytest.raises(InvalidParameterError,
                       match=r"The 'confidence_level' parameter of paired_comparison must be a "
                             r"float in the open interval \(0, 1\)"):
        paired_comparison([1.0, 2], [1.0, 3], confidence_level=confidence)


@pytest.mark.parametrize(
    ("param", "value", "allowed"),
    [
        ("alternative", "bigger", "one of 'two-sided', 'greater', 'less'"),
        ("nan_policy", "propagate", "one of 'raise', 'omit'"),
        ("n_resamples", 0, "an int >= 1"),
        ("n_permutations", 2.5, "an int >= 1"),
        ("top_losses", -1, "an int >= 0"),
        ("tie_tol", -1e-9, "a finite real number >= 0"),
        ("rng", -3, r"None, an int >= 0 or a numpy.random.Generator"),
        ("rng", "abc", r"None, an int >= 0 or a numpy.random.Generator"),
        ("power", 0.04, r"a float in the open interval \(1 - confidence, 1\) = \(0.05, 1\)"),
        ("name_a", 3, "a str"),
    ],
)
def test_bad_parameters_use_the_standard_message(param, value, allowed):
    with pytest.raises(InvalidParameterError,
                       match=rf"The '{param}' parameter of paired_comparison must be {allowed}\. "
                             rf"Got .* instead\."):
        paired_comparison([1.0, 2, 3], [1.0, 3, 2], **{param: value})



@pytest.mark.parametrize(("old", "new", "value"),
                         [("seed", "rng", 0), ("confidence", "confidence_level", 0.9)])
def test_scipy_names_and_the_old_ones(old, new, value):
    # one vocabulary with scipy and skrank.online: rng, confidence_level, n_resamples; the
    # old keywords still work, with a DeprecationWarning
    a, b = [0.1, 0.5, 0.3, 0.7], [0.2, 0.1, 0.3, 0.4]
    fixed = {} if old == "seed" else {"rng": 0}
    with pytest.warns(DeprecationWarning, match=rf"The '{old}' parameter of paired_comparison "
                                                rf"is deprecated.*use '{new}'"):
        before = paired_comparison(a, b, **{old: value}, **fixed)
    assert before.to_dict() == paired_comparison(a, b, **{new: value}, **fixed).to_dict()
    with pytest.raises(InvalidParameterError, match=rf"'{old}' parameter of paired_comparison "
                                                    rf"must be not passed together with '{new}'"):
        paired_comparison(a, b, **{old: value, new: value})


def test_the_same_words_in_online_and_segments():
    import inspect

    from skrank import online, segments
    from skrank.stats import bootstrap_ci, compare_many, randomization_test

    for f in (paired_comparison, compare_many, bootstrap_ci, randomization_test,
              segments.segment_table, online.ips, online.interleaving_test):
        params = inspect.signature(f).parameters
        assert not {"seed", "confidence", "n_bootstrap"} & set(params), f.__name__
        assert "rng" in params, f.__name__
    assert inspect.signature(segments.segment_table).parameters["rng"].default is None
    with pytest.warns(DeprecationWarning, match=r"'n_bootstrap' parameter of interleaving_test"):
        old = online.interleaving_test([1, 1, -1, 0, 1, 1, -1, 1], n_bootstrap=200, rng=0)
    new = online.interleaving_test([1, 1, -1, 0, 1, 1, -1, 1], n_resamples=200, rng=0)
    assert old.ci == new.ci
