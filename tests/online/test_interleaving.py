"""Interleaving: builders, credit, aggregation, sensitivity and calibration by simulation."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from skrank.exceptions import InputError, InvalidParameterError
from skrank.online import (
    CascadeModel,
    Interleaving,
    PositionBasedModel,
    balanced_interleave,
    interleaving_test,
    probabilistic_interleave,
    sign_test,
    simulate_interleaving,
    team_draft_interleave,
)

BUILDERS = {
    "team_draft": team_draft_interleave,
    "balanced": balanced_interleave,
    "probabilistic": probabilistic_interleave,
}

rankings = st.lists(st.integers(0, 12), unique=True, min_size=1, max_size=9)
lengths = st.none() | st.integers(1, 12)
seeds = st.integers(0, 2**32 - 1)


def _is_prefix_merge(shown, a, b):
    """True when set(shown) == set(a[:i]) | set(b[:j]) for some i, j."""
    target = set(shown)
    return any(
        set(a[:i]) | set(b[:j]) == target
        for i in range(len(a) + 1)
        for j in range(len(b) + 1)
    )


# ----------------------------------------------------------------------------- properties
@given(rankings, rankings, lengths, st.sampled_from(["stop", "continue"]), seeds)
def test_team_draft_properties(a, b, length, exhausted, seed):
    il = team_draft_interleave(a, b, length=length, exhausted=exhausted, rng=seed)
    shown = il.ranking.tolist()
    teams = il.teams.tolist()
    assert len(shown) == len(set(shown)), "no duplicates"
    assert length is None or len(shown) <= length
    assert _is_prefix_merge(shown, a, b)
    # each pick is the picking team's best document not shown above it (the draft rule)
    for i, (doc, team) in enumerate(zip(shown, teams)):
        own = a if team == 1 else b
        assert doc == next(d for d in own if d not in shown[:i])
    if exhausted == "stop":
        # the team with fewer picks always picks next: balanced after every round of two
        for m in range(0, len(teams) + 1, 2):
            assert teams[:m].count(1) == teams[:m].count(-1)
        assert abs(teams.count(1) - teams.count(-1)) <= 1
    else:
        union = set(a) | set(b)
        assert len(shown) == (len(union) if length is None else min(length, len(union)))


@given(rankings, rankings, lengths, st.sampled_from(["stop", "continue"]), seeds)
def test_balanced_properties(a, b, length, exhausted, seed):
    il = balanced_interleave(a, b, length=length, exhausted=exhausted, rng=seed)
    shown = il.ranking.tolist()
    assert len(shown) == len(set(shown))
    assert length is None or len(shown) <= length
    assert _is_prefix_merge(shown, a, b)
    # the shown list holds the top k_a of A and top k_b of B with |k_a - k_b| <= 1
    ok = any(
        set(a[:i]) | set(b[:j]) == set(shown) and abs(i - j) <= 1
        for i in range(len(a) + 1)
        for j in range(len(b) + 1)
    )
    assert ok or exhausted == "continue" or min(len(a), len(b)) < len(shown)
    assert np.all(il.teams == 0) and np.isnan(il.team_a_probability).all()


@given(rankings, rankings, lengths, st.sampled_from(["stop", "continue"]), seeds)
def test_probabilistic_properties(a, b, length, exhausted, seed):
    il = probabilistic_interleave(a, b, length=length, exhausted=exhausted, rng=seed)
    shown = il.ranking.tolist()
    assert len(shown) == len(set(shown))
    assert set(shown) <= set(a) | set(b)
    assert length is None or len(shown) <= length
    p = il.team_a_probability
    assert np.all((p >= 0) & (p <= 1))
    for doc, pa in zip(shown, p):
        if doc not in b:
            assert pa == 1.0
        if doc not in a:
            assert pa == 0.0


@pytest.mark.parametrize("method", sorted(BUILDERS))
@given(a=rankings, b=rankings, seed=seeds, click_seed=seeds)
def test_swapping_a_and_b_negates_the_outcome(method, a, b, seed, click_seed):
    """The same shown list credited with A and B (and their teams) swapped changes sign.

    The swapped object is what the builder returns for (B, A) when every coin lands the
    other way, so the credit rules must be antisymmetric.
    """
    il = BUILDERS[method](a, b, rng=seed)
    swapped = dataclasses.replace(
        il, ranking_a=il.ranking_b, ranking_b=il.ranking_a, teams=-il.teams,
        team_a_probability=1.0 - il.team_a_probability,
    )
    clicks = np.random.default_rng(click_seed).random(len(il)) < 0.4
    o_ab, o_ba = il.credit(clicks), swapped.credit(clicks)
    if math.isnan(o_ab):
        assert math.isnan(o_ba) and not clicks.any()
    else:
        assert o_ab == pytest.approx(-o_ba, abs=1e-12)
    p_a, p_tie, p_b = il.outcome_probabilities(clicks)
    if clicks.any():
        assert p_a + p_tie + p_b == pytest.approx(1.0)


# ----------------------------------------------------------------------------- hand examples
def test_team_draft_hand_example():
    # A = [1, 2, 3], B = [3, 2, 1], seed 0: the first coin gives B the first pick (3); A then
    # picks its best unshown document (1); the coin of round two gives A the pick (2).
    il = team_draft_interleave([1, 2, 3], [3, 2, 1], rng=0)
    assert il.ranking.tolist() == [3, 1, 2]
    assert il.teams.tolist() == [-1, 1, 1]
    assert il.credit([1, 0, 0]) == -1.0
    assert il.credit([1, 1, 0]) == 0.0        # one click each: a tie
    assert il.credit([1, 1, 1]) == 1.0
    assert math.isnan(il.credit([0, 0, 0]))   # no clicks
    # weights: B's click weighs 3, A's two clicks 1 each -> B wins
    assert il.credit([1, 1, 1], click_weights=[3.0, 1.0, 1.0]) == -1.0
    # a zero weight removes a click
    assert il.credit([1, 1, 0], click_weights=[0.0, 1.0, 1.0]) == 1.0


def test_balanced_hand_example():
    # A = [1, 2, 3, 4], B = [2, 5, 1, 6]; seed 0 makes B go first. By hand (Joachims 2003):
    # B[0]=2, A[0]=1, B[1]=5, A[1]=2 (shown, skipped), B[2]=1 (shown, skipped), A[2]=3.
    il = balanced_interleave([1, 2, 3, 4], [2, 5, 1, 6], length=4, rng=0)
    assert il.ranking.tolist() == [2, 1, 5, 3]
    # click on 3: lowest click 3 has rank 3 in A and none in B -> k = 3;
    # A's top 3 {1, 2, 3} holds 1 click, B's top 3 {2, 5, 1} none -> A wins
    assert il.credit(clicked_docs=[3]) == 1.0
    # clicks on 1 and 5: lowest click 5 has rank 2 in B -> k = 2;
    # A's top 2 {1, 2} holds 1 click, B's top 2 {2, 5} holds 1 -> tie
    assert il.credit(clicked_docs=[1, 5]) == 0.0
    # clicks on 2 and 5: k = 2, A's top 2 holds 1, B's top 2 holds 2 -> B wins
    assert il.credit([1, 0, 1, 0]) == -1.0


def test_identical_rankings_balanced_always_ties():
    il = balanced_interleave([4, 2, 9, 1], [4, 2, 9, 1], rng=3)
    for clicks in itertools.product([0, 1], repeat=4):
        if any(clicks):
            assert il.credit(list(clicks)) == 0.0


def test_common_prefix_ignore():
    # common prefix of A and B is [1]; a click on it alone is no information when ignored
    il = team_draft_interleave([1, 2, 3], [1, 3, 2], rng=0)
    clicked_1 = il.ranking == 1
    assert il.credit(clicked_1) in (1.0, -1.0)
    assert math.isnan(il.credit(clicked_1, common_prefix="ignore"))
    both = clicked_1 | (il.ranking == 2)
    assert il.credit(both, common_prefix="ignore") == 1.0   # 2 is ranked by A only here
    # no common prefix: nothing is ignored; the first two picks are one per team -> a tie
    il = team_draft_interleave([5, 6], [7, 8], rng=0)
    assert il.credit([1, 1, 0], common_prefix="ignore") == 0.0


# ----------------------------------------------------------------------------- probabilistic
def _softmax(ranking, tau):
    return {d: (r + 1.0) ** -tau for r, d in enumerate(ranking)}


def _brute_force_pi(a, b, tau, shown, clicks, weights=None):
    """Expected outcome by enumerating every team assignment of the shown list.

    P(list, assignment) = prod_i P(team_i | above) * P_team_i(doc_i | above), with a fair coin
    unless one team has nothing left; the outcome of an assignment compares the summed click
    weights of the two teams.
    """
    wa, wb = _softmax(a, tau), _softmax(b, tau)
    weights = np.ones(len(shown)) if weights is None else np.asarray(weights, dtype=float)
    joint = {}
    for assign in itertools.product([1, -1], repeat=len(shown)):
        p = 1.0
        for i, (doc, team) in enumerate(zip(shown, assign)):
            rest = set(a + b) - set(shown[:i])
            sa = sum(wa.get(d, 0.0) for d in rest)
            sb = sum(wb.get(d, 0.0) for d in rest)
            coin = 0.5 if (sa > 0 and sb > 0) else (1.0 if (sa > 0) == (team == 1) else 0.0)
            w, s = (wa, sa) if team == 1 else (wb, sb)
            p *= coin * (w.get(doc, 0.0) / s if s > 0 else 0.0)
        joint[assign] = p
    total = sum(joint.values())
    expected = 0.0
    for assign, p in joint.items():
        diff = sum(w * t for w, t, c in zip(weights, assign, clicks) if c)
        expected += p / total * np.sign(diff)
    return expected


@given(
    a=st.lists(st.integers(0, 5), unique=True, min_size=1, max_size=5),
    b=st.lists(st.integers(0, 5), unique=True, min_size=1, max_size=5),
    tau=st.sampled_from([0.5, 1.0, 3.0]),
    seed=seeds,
    click_seed=seeds,
    weighted=st.booleans(),
)
def test_probabilistic_expected_outcome_matches_enumeration(a, b, tau, seed, click_seed, weighted):
    il = probabilistic_interleave(a, b, tau=tau, exhausted="continue", rng=seed)
    crng = np.random.default_rng(click_seed)
    clicks = crng.random(len(il)) < 0.5
    weights = crng.choice([0.5, 1.0, 2.0], size=len(il)) if weighted else None
    got = il.credit(clicks, click_weights=weights)
    if not clicks.any():
        assert math.isnan(got)
        return
    want = _brute_force_pi(a, b, tau, il.ranking.tolist(), clicks, weights)
    assert got == pytest.approx(want, abs=1e-10)


def test_probabilistic_posterior_matches_sampling_frequencies():
    """The closed-form P(team A | shown list) equals the frequency of the sampled teams."""
    a, b = [0, 1, 2], [2, 0, 1]
    rng = np.random.default_rng(7)
    counts: dict[tuple, list] = {}
    for _ in range(3000):
        il = probabilistic_interleave(a, b, tau=1.0, rng=rng)
        key = tuple(il.ranking.tolist())
        entry = counts.setdefault(key, [0, np.zeros(3), il.team_a_probability])
        entry[0] += 1
        entry[1] += il.teams == 1
    for n, n_team_a, p in counts.values():
        if n < 100:
            continue
        se = np.sqrt(p * (1 - p) / n)
        assert np.all(np.abs(n_team_a / n - p) <= 4.5 * se + 1e-12)


# ----------------------------------------------------------------------------- aggregation
@pytest.mark.parametrize("wins, losses", [(0, 0), (1, 0), (9, 1), (5, 5), (30, 12), (3, 40)])
def test_sign_test_matches_scipy_binomtest(wins, losses):
    if wins + losses == 0:
        assert sign_test(0, 0) == 1.0
        return
    want = stats.binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue
    assert sign_test(wins, losses) == pytest.approx(want, rel=1e-12)


@given(st.integers(0, 300), st.integers(0, 300))
def test_sign_test_matches_scipy_binomtest_everywhere(wins, losses):
    if wins + losses:
        want = stats.binomtest(wins, wins + losses, 0.5).pvalue
        assert sign_test(wins, losses) == pytest.approx(want, rel=1e-9, abs=1e-300)


def test_interleaving_test_counts_preference_and_ci():
    outcomes = [1] * 30 + [-1] * 12 + [0] * 8 + [np.nan] * 5
    res = interleaving_test(outcomes, rng=1)
    assert (res.wins, res.losses, res.ties, res.n, res.n_no_click) == (30, 12, 8, 50, 5)
    assert res.preference == pytest.approx((30 + 8 / 2) / 50 - 0.5)   # the formula
    assert res.p_value == pytest.approx(stats.binomtest(30, 42).pvalue)
    assert res.ci[0] < res.preference < res.ci[1]
    assert res.unit == "impression"
    assert res.mean_outcome == pytest.approx(18 / 50)
    # no_click="tie": the 5 impressions without clicks become ties
    tie = interleaving_test(outcomes, no_click="tie", rng=1)
    assert (tie.ties, tie.n) == (13, 55)
    assert tie.preference == pytest.approx((30 + 13 / 2) / 55 - 0.5)
    # the same seed gives the same interval
    assert interleaving_test(outcomes, rng=1).ci == res.ci


def test_interleaving_test_bootstrap_ci_matches_resampling_units():
    """Multinomial draws of the counts are the same as resampling impressions."""
    outcomes = np.array([1] * 40 + [-1] * 25 + [0] * 35, dtype=float)
    res = interleaving_test(outcomes, n_resamples=4000, rng=2)
    rng = np.random.default_rng(3)
    idx = rng.integers(0, outcomes.size, size=(4000, outcomes.size))
    o = outcomes[idx]
    pref = ((o > 0).sum(1) + (o == 0).sum(1) / 2) / outcomes.size - 0.5
    lo, hi = np.quantile(pref, [0.025, 0.975])
    assert res.ci[0] == pytest.approx(lo, abs=0.012)
    assert res.ci[1] == pytest.approx(hi, abs=0.012)


def test_interleaving_test_groups_vote_once():
    outcomes = [1, -1, 1, np.nan, -1, -1, 0.5]
    groups = ["u1", "u1", "u1", "u2", "u3", "u3", "u4"]
    # u1: mean 1/3 -> win; u2: no clicks -> dropped; u3: -1 -> loss; u4: 0.5 -> win
    res = interleaving_test(outcomes, groups=groups, rng=0)
    assert (res.wins, res.losses, res.ties, res.n, res.n_no_click) == (2, 1, 0, 3, 1)
    assert res.unit == "group"


def test_interleaving_test_without_clicks():
    res = interleaving_test([np.nan, np.nan], rng=0)
    assert res.n == 0 and res.p_value == 1.0 and math.isnan(res.preference)
    assert res.n_no_click == 2


def test_result_str_and_dict():
    res = interleaving_test([1, 1, -1, 0], rng=0)
    text = str(res)
    assert "A wins 2" in text and "B wins 1" in text and "sign test p" in text
    d = res.to_dict()
    assert d["wins"] == 2 and isinstance(d["ci"], list) and d["unit"] == "impression"
    with pytest.raises(AttributeError):
        res.wins = 3  # frozen


# ----------------------------------------------------------------------------- simulation
def _synthetic(seed, n_queries=40, n_docs=15):
    rng = np.random.default_rng(seed)
    labels = [rng.integers(0, 5, n_docs) for _ in range(n_queries)]
    ideal = [np.argsort(-lab, kind="stable") for lab in labels]
    noisy = [np.argsort(-(lab + rng.normal(0, 2.5, n_docs))) for lab in labels]
    return labels, ideal, noisy


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_interleaving_detects_the_better_ranker(method):
    labels, ideal, noisy = _synthetic(0)
    out = simulate_interleaving(
        ideal, noisy, labels, PositionBasedModel(), n_impressions=400, method=method, rng=11
    )
    res = interleaving_test(out, rng=0)
    assert res.preference > 0.05 and res.p_value < 1e-3, str(res)
    # and the other way round
    out = simulate_interleaving(
        noisy, ideal, labels, PositionBasedModel(), n_impressions=400, method=method, rng=12
    )
    res = interleaving_test(out, rng=0)
    assert res.preference < -0.05 and res.p_value < 1e-3, str(res)


def test_team_draft_with_cascade_users():
    labels, ideal, noisy = _synthetic(1)
    out = simulate_interleaving(
        ideal, noisy, labels, CascadeModel(), n_impressions=400, rng=5, common_prefix="ignore"
    )
    assert np.nanmax(np.abs(out)) == 1.0
    res = interleaving_test(out, rng=0)
    assert res.preference > 0.05 and res.p_value < 1e-3


def test_identical_rankers_preference_zero_and_nominal_rejection_rate():
    """Under identical rankers the sign test rejects at about (at most) its nominal 5%."""
    labels, ideal, _ = _synthetic(2)
    n_sims, per_sim = 300, 60
    out = simulate_interleaving(
        ideal, ideal, labels, PositionBasedModel(), n_impressions=n_sims * per_sim, rng=21
    )
    results = [
        interleaving_test(chunk, n_resamples=50, rng=0)
        for chunk in out.reshape(n_sims, per_sim)
    ]
    rate = np.mean([r.p_value < 0.05 for r in results])
    prefs = np.array([r.preference for r in results])
    # exact binomial tests are conservative: the size is at most 5%, here about 3%
    assert 0.01 <= rate <= 0.08, rate
    assert abs(prefs.mean()) < 3 * prefs.std() / np.sqrt(n_sims)
    whole = interleaving_test(out, rng=0)
    assert abs(whole.preference) < 0.02 and whole.p_value > 0.01


def test_simulate_interleaving_query_probabilities_and_length():
    labels, ideal, noisy = _synthetic(3, n_queries=2)
    out = simulate_interleaving(
        ideal, noisy, labels, PositionBasedModel(), n_impressions=50, length=3,
        query_probabilities=[1.0, 0.0], rng=0,
    )
    assert out.shape == (50,)
    assert np.all(np.isnan(out) | np.isin(out, [-1.0, 0.0, 1.0]))


# ----------------------------------------------------------------------------- bad input
def test_duplicates_in_a_ranking_are_an_error():
    with pytest.raises(InputError, match=r"'ranking_a' parameter of team_draft_interleave must "
                       r"be a ranking without duplicate documents. Got 2 more than once"):
        team_draft_interleave([1, 2, 2], [1, 2])
    with pytest.raises(InputError, match=r"'ranking_b'.*without duplicate"):
        probabilistic_interleave([1, 2], ["x", "y", "x"])


def test_empty_ranking_is_an_error():
    with pytest.raises(InputError, match=r"non-empty ranking"):
        balanced_interleave([], [1])


def test_clicks_outside_the_shown_list():
    il = team_draft_interleave([1, 2, 3], [3, 2, 1], length=2, rng=0)
    with pytest.raises(InputError, match=r"The 'clicks' parameter of Interleaving.credit must "
                       r"be one 0/1 entry per shown position \(2\). Got 3 entries \(clicks "
                       r"outside the shown list\?\) instead."):
        il.credit([0, 1, 1])
    with pytest.raises(InputError, match=r"'clicks' parameter of "
                       r"Interleaving.outcome_probabilities"):
        il.outcome_probabilities([0, 1, 1])
    with pytest.raises(InputError, match=r"'clicked_docs'.*Got 9, which was not shown"):
        il.credit(clicked_docs=[9])
    with pytest.raises(InputError, match=r"0/1 or bool"):
        il.credit([0, 2])
    with pytest.raises(InvalidParameterError, match=r"exactly one of the two"):
        il.credit()
    with pytest.raises(InvalidParameterError, match=r"exactly one of the two"):
        il.credit([0, 1], clicked_docs=[1])
    with pytest.raises(InputError, match=r"'click_weights'.*one weight per shown position"):
        il.credit([0, 1], click_weights=[1.0])
    with pytest.raises(InputError, match=r"'click_weights'.*non-negative"):
        il.credit([0, 1], click_weights=[1.0, -1.0])


def test_bad_parameters():
    with pytest.raises(InvalidParameterError, match=r"The 'exhausted' parameter of "
                       r"team_draft_interleave must be one of 'stop', 'continue'. Got 'x'"):
        team_draft_interleave([1], [2], exhausted="x")
    with pytest.raises(InvalidParameterError, match=r"'length'.*an int >= 1 or None. Got 0"):
        balanced_interleave([1], [2], length=0)
    with pytest.raises(InvalidParameterError, match=r"'tau'.*> 0. Got -1"):
        probabilistic_interleave([1], [2], tau=-1)
    with pytest.raises(InvalidParameterError, match=r"'rng'.*numpy.random.Generator"):
        team_draft_interleave([1], [2], rng="seed")
    il = team_draft_interleave([1], [2], rng=0)
    with pytest.raises(InvalidParameterError, match=r"'common_prefix'.*'credit', 'ignore'"):
        il.credit([1, 0], common_prefix="skip")
    with pytest.raises(InvalidParameterError, match=r"'no_click'.*'drop', 'tie'"):
        interleaving_test([1.0], no_click="ignore")
    with pytest.raises(InvalidParameterError, match=r"'confidence_level'.*open interval \(0, 1\)"):
        interleaving_test([1.0], confidence_level=95)
    with pytest.raises(InvalidParameterError, match=r"'wins' parameter of sign_test"):
        sign_test(-1, 3)


def test_bad_outcomes_and_groups():
    with pytest.raises(InputError, match=r"'outcomes'.*in \[-1, 1\].*Got 2.0"):
        interleaving_test([1.0, 2.0])
    with pytest.raises(InputError, match=r"'groups'.*one id per outcome \(2\)"):
        interleaving_test([1.0, -1.0], groups=[1, 2, 3])


def test_simulation_bad_input():
    labels, ideal, noisy = _synthetic(0, n_queries=2, n_docs=4)
    with pytest.raises(InputError, match=r"one entry per query"):
        simulate_interleaving(ideal, noisy[:1], labels, PositionBasedModel(), n_impressions=5)
    with pytest.raises(InputError, match=r"'rankings_a\[\d\]'.*indices into the 4 labels"):
        simulate_interleaving([[0, 9], [0, 9]], noisy, labels, PositionBasedModel(),
                              n_impressions=5, rng=0)
    with pytest.raises(InvalidParameterError, match=r"'click_model'"):
        simulate_interleaving(ideal, noisy, labels, "pbm", n_impressions=5)
    with pytest.raises(InvalidParameterError, match=r"'method'.*'team_draft'"):
        simulate_interleaving(ideal, noisy, labels, PositionBasedModel(), n_impressions=5,
                              method="optimized")
    with pytest.raises(InputError, match=r"'query_probabilities'"):
        simulate_interleaving(ideal, noisy, labels, PositionBasedModel(), n_impressions=5,
                              query_probabilities=[0.5, 0.6])


def test_interleaving_str():
    il = team_draft_interleave([1, 2], [2, 1], rng=0)
    assert isinstance(il, Interleaving)
    assert str(il).startswith("Interleaving(team_draft: [")
