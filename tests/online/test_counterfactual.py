"""Off-policy estimators: hand values, OBP-formula oracles, unbiasedness by simulation.

Formulas are those documented by the Open Bandit Pipeline (obp.ope, st-tech/zr-obp):
``InverseProbabilityWeighting`` (``reward * iw`` with ``iw = min(pi_e / pscore, lambda_)``),
``SelfNormalizedInverseProbabilityWeighting`` (``reward * iw / iw.mean()``), ``DirectMethod``
(``average(q_hat, weights=pi_e)``), ``DoublyRobust`` (the DM term plus
``iw * (reward - q_hat_factual)``), and the slate estimators ``SlateStandardIPS``,
``SlateIndependentIPS``, ``SlateRewardInteractionIPS`` (``sum(reward * iw) / n_slates``).
The oracles below re-implement those formulas as plain loops over rounds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from skrank.exceptions import InputError, InvalidParameterError
from skrank.online import (
    OffPolicyEstimate,
    PositionBasedModel,
    direct_method,
    doubly_robust,
    estimate_propensities_shuffle,
    estimate_propensities_swap,
    independent_ips,
    ips,
    pbm_ips,
    reward_interaction_ips,
    slate_standard_ips,
    snips,
)

# a small logged data set, worked by hand below
REWARD = [1.0, 0.0, 1.0]
ACTION = [0, 1, 0]
PSCORE = [0.5, 0.25, 0.8]
DIST = [[0.9, 0.1], [0.9, 0.1], [0.4, 0.6]]
Q_HAT = [[0.5, 0.2], [0.3, 0.6], [0.7, 0.1]]


# ----------------------------------------------------------------------------- hand values
def test_ips_by_hand():
    # w = pi_e(a_i) / pscore_i = [0.9/0.5, 0.1/0.25, 0.4/0.8] = [1.8, 0.4, 0.5]
    res = ips(REWARD, ACTION, PSCORE, DIST)
    assert res.estimator == "ips"
    assert res.value == pytest.approx((1.8 + 0.0 + 0.5) / 3)
    # per-round values [1.8, 0, 0.5]: sample sd 0.929157 (by hand), se = sd / sqrt(3)
    assert res.se == pytest.approx(np.std([1.8, 0.0, 0.5], ddof=1) / math.sqrt(3))
    assert res.se == pytest.approx(0.536449, abs=1e-6)
    z = stats.norm.ppf(0.975)
    assert res.ci == pytest.approx((res.value - z * res.se, res.value + z * res.se))
    # Kish ESS (sum w)^2 / sum w^2 = 2.7^2 / (3.24 + 0.16 + 0.25) = 7.29 / 3.65
    assert res.ess == pytest.approx(7.29 / 3.65)
    assert res.mean_weight == pytest.approx(0.9)


def test_clipped_ips_by_hand():
    # weights clipped at 1 (OBP lambda_=1): [1, 0.4, 0.5] -> values [1, 0, 0.5]
    res = ips(REWARD, ACTION, PSCORE, DIST, max_weight=1.0)
    assert res.estimator == "clipped_ips"
    assert res.value == pytest.approx(0.5)
    assert res.ess == pytest.approx(1.9**2 / (1 + 0.16 + 0.25))


def test_snips_by_hand():
    # sum(w r) / sum(w) = (1.8 + 0.5) / (1.8 + 0.4 + 0.5)
    res = snips(REWARD, ACTION, PSCORE, DIST)
    v = 2.3 / 2.7
    assert res.value == pytest.approx(v)
    # delta-method se: sd(w (r - v)) / (mean(w) sqrt(n)), ddof=1
    w = np.array([1.8, 0.4, 0.5])
    infl = w * (np.array(REWARD) - v) / w.mean()
    assert res.se == pytest.approx(np.std(infl, ddof=1) / math.sqrt(3))


def test_dm_and_dr_by_hand():
    # DM per round: 0.9*0.5 + 0.1*0.2 = 0.47, 0.9*0.3 + 0.1*0.6 = 0.33, 0.4*0.7 + 0.6*0.1 = 0.34
    dm = direct_method(DIST, Q_HAT)
    assert dm.value == pytest.approx((0.47 + 0.33 + 0.34) / 3)
    assert dm.ess is None and dm.mean_weight is None
    # DR adds w (r - q(a_i)): 1.8 * 0.5 = 0.9, 0.4 * (0 - 0.6) = -0.24, 0.5 * (1 - 0.7) = 0.15
    dr = doubly_robust(REWARD, ACTION, PSCORE, DIST, Q_HAT)
    assert dr.value == pytest.approx((0.47 + 0.9 + 0.33 - 0.24 + 0.34 + 0.15) / 3)
    # clipped at 1: 1 * 0.5 instead of 0.9
    drc = doubly_robust(REWARD, ACTION, PSCORE, DIST, Q_HAT, max_weight=1.0)
    assert drc.value == pytest.approx((0.47 + 0.5 + 0.33 - 0.24 + 0.34 + 0.15) / 3)


# ----------------------------------------------------------------------------- OBP oracles
def _random_logged(seed, n=60, n_actions=4, len_list=3):
    rng = np.random.default_rng(seed)
    dist = rng.dirichlet(np.ones(n_actions), size=(n, len_list)).transpose(0, 2, 1)
    action = rng.integers(0, n_actions, n)
    position = rng.integers(0, len_list, n)
    pscore = rng.uniform(0.05, 1.0, n)
    reward = rng.binomial(1, 0.4, n).astype(float)
    q_hat = rng.uniform(0, 1, (n, n_actions, len_list))
    return reward, action, position, pscore, dist, q_hat


def _obp_round_values(kind, reward, action, position, pscore, dist, q_hat, lam=np.inf):
    """Per-round values of OBP's estimators, one round at a time."""
    out = []
    iws = [min(dist[i, action[i], position[i]] / pscore[i], lam) for i in range(len(reward))]
    mean_iw = sum(iws) / len(iws)
    for i in range(len(reward)):
        pi = dist[i, :, position[i]]
        q = q_hat[i, :, position[i]]
        dm = sum(pi[a] * q[a] for a in range(len(pi))) / sum(pi)
        if kind == "ipw":
            out.append(reward[i] * iws[i])
        elif kind == "snipw":
            out.append(reward[i] * iws[i] / mean_iw)
        elif kind == "dm":
            out.append(dm)
        else:
            out.append(dm + iws[i] * (reward[i] - q[action[i]]))
    return np.array(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bandit_estimators_match_obp_formulas(seed):
    reward, action, position, pscore, dist, q_hat = _random_logged(seed)
    common = {"position": position}
    for lam in (np.inf, 2.0):
        mw = None if lam == np.inf else lam
        want = _obp_round_values("ipw", reward, action, position, pscore, dist, q_hat, lam)
        got = ips(reward, action, pscore, dist, max_weight=mw, **common)
        assert got.value == pytest.approx(want.mean(), rel=1e-12)
        want = _obp_round_values("dr", reward, action, position, pscore, dist, q_hat, lam)
        got = doubly_robust(reward, action, pscore, dist, q_hat, max_weight=mw, **common)
        assert got.value == pytest.approx(want.mean(), rel=1e-12)
    want = _obp_round_values("snipw", reward, action, position, pscore, dist, q_hat)
    assert snips(reward, action, pscore, dist, **common).value == pytest.approx(want.mean())
    want = _obp_round_values("dm", reward, action, position, pscore, dist, q_hat)
    assert direct_method(dist, q_hat, **common).value == pytest.approx(want.mean())


def _obp_slate_value(reward, behavior, evaluation):
    """OBP's slate estimators on the long format: sum(reward * iw) / number of slates."""
    n, L = reward.shape
    slate_id = np.repeat(np.arange(n), L)
    r = reward.ravel()
    pb, pe = behavior.ravel(), evaluation.ravel()
    return float(np.sum(r * (pe / pb)) / np.unique(slate_id).shape[0])


def test_slate_estimators_match_obp_formulas():
    rng = np.random.default_rng(4)
    n, L = 50, 3
    reward = rng.binomial(1, 0.3, (n, L)).astype(float)
    item_b = rng.uniform(0.1, 1, (n, L))
    item_e = rng.uniform(0, 1, (n, L))
    casc_b, casc_e = np.cumprod(item_b, axis=1), np.cumprod(item_e, axis=1)
    joint_b, joint_e = casc_b[:, -1], casc_e[:, -1]
    assert independent_ips(reward, item_b, item_e).value == pytest.approx(
        _obp_slate_value(reward, item_b, item_e)
    )
    assert reward_interaction_ips(reward, casc_b, casc_e).value == pytest.approx(
        _obp_slate_value(reward, casc_b, casc_e)
    )
    # SIPS: OBP repeats the slate's joint pscore on every row of the slate
    rep = np.repeat(joint_b[:, None], L, axis=1), np.repeat(joint_e[:, None], L, axis=1)
    assert slate_standard_ips(reward, joint_b, joint_e).value == pytest.approx(
        _obp_slate_value(reward, *rep)
    )


# ----------------------------------------------------------------------------- simulation
def _bandit_world(seed=0, n_contexts=4, n_actions=5):
    rng = np.random.default_rng(seed)
    q = rng.uniform(0.05, 0.9, (n_contexts, n_actions))
    pi_b = np.exp(rng.normal(0, 1, (n_contexts, n_actions)))
    pi_b /= pi_b.sum(1, keepdims=True)
    pi_e = np.exp(rng.normal(0, 1.5, (n_contexts, n_actions)))
    pi_e /= pi_e.sum(1, keepdims=True)
    truth = float(np.mean(np.sum(pi_e * q, axis=1)))
    return q, pi_b, pi_e, truth


def _bandit_log(rng, q, pi_b, n):
    x = rng.integers(0, q.shape[0], n)
    cum = np.cumsum(pi_b[x], axis=1)
    a = np.minimum((rng.random(n)[:, None] > cum).sum(axis=1), q.shape[1] - 1)
    r = (rng.random(n) < q[x, a]).astype(float)
    return x, a, r


def test_bandit_estimators_unbiasedness_and_calibration():
    q, pi_b, pi_e, truth = _bandit_world()
    q_wrong = 0.5 * q + 0.2     # a misspecified reward model
    rng = np.random.default_rng(123)
    n, n_sims = 400, 300
    est = {k: [] for k in ("ips", "clip", "snips", "dm", "dr", "dr_good")}
    se = {k: [] for k in est}
    covered = 0
    for _ in range(n_sims):
        x, a, r = _bandit_log(rng, q, pi_b, n)
        pscore, dist = pi_b[x, a], pi_e[x]
        runs = {
            "ips": ips(r, a, pscore, dist),
            "clip": ips(r, a, pscore, dist, max_weight=1.0),
            "snips": snips(r, a, pscore, dist),
            "dm": direct_method(dist, q_wrong[x]),
            "dr": doubly_robust(r, a, pscore, dist, q_wrong[x]),
            "dr_good": doubly_robust(r, a, pscore, dist, q[x]),
        }
        for k, res in runs.items():
            est[k].append(res.value)
            se[k].append(res.se)
        covered += runs["ips"].ci[0] <= truth <= runs["ips"].ci[1]
    mean = {k: np.mean(v) for k, v in est.items()}
    mc_se = {k: np.std(v, ddof=1) / math.sqrt(n_sims) for k, v in est.items()}
    # unbiased: IPS, DR with a wrong model (the propensities are right), DR with the right one
    for k in ("ips", "dr", "dr_good"):
        assert abs(mean[k] - truth) < 4 * mc_se[k], (k, mean[k], truth)
    # SNIPS: biased only to O(1/n)
    assert abs(mean["snips"] - truth) < 0.01
    # the direct method inherits the model's error, clipping biases downwards (rewards >= 0)
    assert abs(mean["dm"] - truth) > 10 * mc_se["dm"]
    assert mean["clip"] < truth - 4 * mc_se["clip"]
    # standard errors describe the spread of the estimates; the normal CI covers about 95%
    for k in ("ips", "snips", "dr"):
        ratio = np.mean(se[k]) / np.std(est[k], ddof=1)
        assert 0.85 < ratio < 1.15, (k, ratio)
    assert 0.90 <= covered / n_sims <= 0.99
    # a reward model that is right makes DR far less variable than IPS
    assert np.std(est["dr_good"]) < 0.7 * np.std(est["ips"])


def test_bootstrap_ci_is_seeded_and_close_to_normal():
    q, pi_b, pi_e, _ = _bandit_world(1)
    x, a, r = _bandit_log(np.random.default_rng(5), q, pi_b, 2000)
    normal = ips(r, a, pi_b[x, a], pi_e[x])
    boot = ips(r, a, pi_b[x, a], pi_e[x], ci="bootstrap", n_resamples=1000, rng=3)
    again = ips(r, a, pi_b[x, a], pi_e[x], ci="bootstrap", n_resamples=1000, rng=3)
    assert boot.ci == again.ci
    assert boot.value == normal.value
    width_n, width_b = np.diff(normal.ci)[0], np.diff(boot.ci)[0]
    assert abs(width_b / width_n - 1) < 0.12
    sn = snips(r, a, pi_b[x, a], pi_e[x], ci="bootstrap", n_resamples=1000, rng=3)
    sn_normal = snips(r, a, pi_b[x, a], pi_e[x])
    assert sn.ci[0] < sn.value < sn.ci[1]
    assert abs(np.diff(sn.ci)[0] / np.diff(sn_normal.ci)[0] - 1) < 0.12


def _slate_world(interaction):
    rng = np.random.default_rng(8)
    n_items, L = 3, 2
    pb = rng.dirichlet(np.ones(n_items) * 2, size=L)   # behaviour: independent per position
    pe = rng.dirichlet(np.ones(n_items) * 2, size=L)
    q = rng.uniform(0.1, 0.8, (L, n_items))

    def mean_reward(a0, a1):
        """Click probabilities of both positions; a repeated item is rarely clicked."""
        f = np.where(interaction & (a0 == a1), 0.2, 1.0)
        return np.stack([q[0, a0], q[1, a1] * f], axis=-1)

    # exact value: sum over all n_items**2 slates of pi_e(slate) * expected reward
    truth = sum(
        pe[0, a0] * pe[1, a1] * mean_reward(np.array(a0), np.array(a1)).sum()
        for a0 in range(n_items)
        for a1 in range(n_items)
    )
    return pb, pe, mean_reward, truth


@pytest.mark.parametrize("interaction", [False, True])
def test_slate_estimators_unbiasedness(interaction):
    pb, pe, mean_reward, truth = _slate_world(interaction)
    rng = np.random.default_rng(9)
    n, n_sims = 1000, 150
    vals = {"sips": [], "iips": [], "rips": []}
    for _ in range(n_sims):
        a0 = rng.choice(3, n, p=pb[0])
        a1 = rng.choice(3, n, p=pb[1])
        m = mean_reward(a0, a1)
        reward = (rng.random((n, 2)) < m).astype(float)
        item_b = np.stack([pb[0, a0], pb[1, a1]], axis=1)
        item_e = np.stack([pe[0, a0], pe[1, a1]], axis=1)
        casc_b, casc_e = np.cumprod(item_b, axis=1), np.cumprod(item_e, axis=1)
        vals["sips"].append(slate_standard_ips(reward, casc_b[:, -1], casc_e[:, -1]).value)
        vals["iips"].append(independent_ips(reward, item_b, item_e).value)
        vals["rips"].append(reward_interaction_ips(reward, casc_b, casc_e).value)
    for k, v in vals.items():
        bias = np.mean(v) - truth
        mc = np.std(v, ddof=1) / math.sqrt(n_sims)
        if interaction and k == "iips":
            # the reward at position 2 depends on the item above: IIPS's assumption fails
            assert abs(bias) > 6 * mc, (k, bias, mc)
        else:
            assert abs(bias) < 4 * mc, (k, bias, mc)


# ----------------------------------------------------------------------------- rankings
def test_pbm_ips_by_hand():
    # click on 7 (logged position 0, theta 1) -> target position 1, weight 0.5: 0.5 / 1
    # click on 9 (logged position 2, theta 0.25) -> target position 0, weight 1: 1 / 0.25
    res = pbm_ips([[1, 0, 1]], [[7, 8, 9]], [[9, 7, 8]], [1.0, 0.5, 0.25])
    assert res.value == pytest.approx(0.5 + 4.0)
    assert res.estimator == "pbm_ips" and res.ess is None
    # a clicked document the target does not rank contributes 0; -1 pads
    res = pbm_ips([[1, 0, 1]], [[7, 8, 9]], [[8, -1, -1]], [1.0, 0.5, 0.25])
    assert res.value == 0.0
    # target_weights: e.g. a DCG-like discount instead of the examination probabilities
    res = pbm_ips([[1, 0, 1]], [[7, 8, 9]], [[9, 7, 8]], [1.0, 0.5, 0.25],
                  target_weights=[1.0, 1 / np.log2(3)])
    assert res.value == pytest.approx(1 / np.log2(3) + 4.0)


def _pbm_oracle(clicks, logged, target, theta, tw):
    total = []
    for c_row, l_row, t_row in zip(clicks, logged, target):
        v = 0.0
        for j, (c, d) in enumerate(zip(c_row, l_row)):
            if c and d in list(t_row):
                m = list(t_row).index(d)
                v += (tw[m] if m < len(tw) else 0.0) / theta[j]
        total.append(v)
    return float(np.mean(total))


def test_pbm_ips_matches_oracle_loop():
    rng = np.random.default_rng(10)
    n, L, M = 40, 5, 4
    logged = np.array([rng.permutation(8)[:L] for _ in range(n)])
    target = np.array([rng.permutation(8)[:M] for _ in range(n)])
    clicks = rng.random((n, L)) < 0.3
    theta = np.array([1.0, 0.6, 0.4, 0.3, 0.2])
    want = _pbm_oracle(clicks, logged, target, theta, theta)
    assert pbm_ips(clicks, logged, target, theta).value == pytest.approx(want)


def _ranking_world(n_docs=6):
    labels = np.array([4, 0, 2, 1, 3, 0])[:n_docs]
    pbm = PositionBasedModel(eta=1.0, n_positions=n_docs)
    target = np.argsort(-labels, kind="stable")      # the ideal ranking
    return labels, pbm, target


def test_pbm_ips_unbiased_on_a_fully_shuffled_log():
    labels, pbm, target = _ranking_world()
    truth = pbm.expected_ctr(labels[target], definition="clicks_per_impression")
    rng = np.random.default_rng(11)
    n, n_sims = 500, 200
    est = []
    for _ in range(n_sims):
        logged = np.argsort(rng.random((n, labels.size)), axis=1)   # uniform permutations
        clicks = pbm.simulate(labels[logged], rng=rng)
        est.append(pbm_ips(clicks, logged, np.tile(target, (n, 1)), pbm.examination).value)
    assert abs(np.mean(est) - truth) < 4 * np.std(est, ddof=1) / math.sqrt(n_sims)


def test_pbm_ips_selection_bias_and_policy_aware_propensities():
    """Only 3 of 6 shuffled documents are shown: plain PBM-IPS misses the unshown ones."""
    labels, pbm, target = _ranking_world()
    theta = pbm.examination
    truth = pbm.expected_ctr(labels[target][:3], definition="clicks_per_impression")
    rng = np.random.default_rng(12)
    n, n_sims = 500, 150
    naive, aware = [], []
    rho = np.full((n, 3), theta[:3].sum() / labels.size)   # sum_k P(d at k) theta_k
    for _ in range(n_sims):
        logged = np.argsort(rng.random((n, labels.size)), axis=1)[:, :3]
        clicks = pbm.simulate(labels[logged], rng=rng)
        tgt = np.tile(target[:3], (n, 1))
        naive.append(pbm_ips(clicks, logged, tgt, theta).value)
        aware.append(pbm_ips(clicks, logged, tgt, theta, logged_propensities=rho).value)
    mc = np.std(aware, ddof=1) / math.sqrt(n_sims)
    assert abs(np.mean(aware) - truth) < 4 * mc
    assert np.mean(naive) < truth - 10 * np.std(naive, ddof=1) / math.sqrt(n_sims)


def test_estimate_propensities_shuffle_recovers_theta():
    labels = np.array([4, 3, 2, 2, 1, 1, 0, 0])
    pbm = PositionBasedModel(eta=0.8, n_positions=8)
    rng = np.random.default_rng(13)
    n = 30_000
    shown = labels[np.argsort(rng.random((n, labels.size)), axis=1)]
    clicks = pbm.simulate(shown, rng=rng)
    est = estimate_propensities_shuffle(clicks)
    want = pbm.examination / pbm.examination[0]
    assert est.method == "shuffle" and est.propensities[0] == 1.0
    assert np.all(np.abs(est.propensities - want) <= 4 * est.se + 1e-12)
    assert np.all(est.se[1:] > 0) and np.all(est.se[1:] < 0.05)
    assert np.all(est.ci[0] <= est.propensities) and np.all(est.propensities <= est.ci[1])
    assert "position  2" in str(est)


def test_estimate_propensities_swap_recovers_theta():
    theta = np.array([1.0, 0.6, 0.45, 0.3])
    rng = np.random.default_rng(14)
    n = 40_000
    k = rng.integers(0, 4, n)                       # where the top document was moved
    alpha = rng.choice([0.3, 0.6, 0.9], size=n)     # its attractiveness, unchanged by the swap
    clicked = rng.random(n) < theta[k] * alpha
    est = estimate_propensities_swap(k, clicked)
    assert est.method == "swap" and est.n.tolist() == np.bincount(k).tolist()
    assert np.all(np.abs(est.propensities - theta) <= 4 * est.se + 1e-12)


def test_propensity_estimate_by_hand():
    # shuffle: click rates (3/4, 1/4, 1/4) divided by the largest
    est = estimate_propensities_shuffle([[1, 1, 0], [1, 0, 0], [0, 0, 1], [1, 0, 0]])
    np.testing.assert_allclose(est.propensities, [1, 1 / 3, 1 / 3])
    # swap: control click rate 3/4, position-1 click rate 1/4 -> 1/3
    est = estimate_propensities_swap([0, 0, 0, 0, 1, 1, 1, 1], [1, 1, 0, 1, 1, 0, 0, 0])
    np.testing.assert_allclose(est.propensities, [1, 1 / 3])
    # se of the ratio of independent means by the delta method, by hand:
    # var(m1) = (1/4)(3/4)(4/3)/4 = 1/16, var(m0) = 1/16;
    # var(R) = var(m1)/m0^2 + m1^2 var(m0)/m0^4 = (1/16)/(9/16) + (1/16)(1/16)/(81/256)
    want = math.sqrt(1 / 9 + 1 / 81)
    assert est.se[1] == pytest.approx(want)
    assert est.to_dict()["propensities"] == pytest.approx([1.0, 1 / 3])


# ----------------------------------------------------------------------------- results
def test_off_policy_estimate_str_and_dict():
    res = ips(REWARD, ACTION, PSCORE, DIST)
    assert isinstance(res, OffPolicyEstimate)
    text = str(res)
    assert text.startswith("OffPolicyEstimate(ips): 0.7667 +/- ") and "ESS 2.0" in text
    d = res.to_dict()
    assert d["estimator"] == "ips" and d["n"] == 3 and isinstance(d["ci"], list)
    assert "ESS" not in str(direct_method(DIST, Q_HAT))


# ----------------------------------------------------------------------------- bad input
def test_propensities_zero_or_above_one():
    with pytest.raises(InputError, match=r"The 'pscore' parameter of ips must be "
                       r"probabilities in \(0, 1\]. Got 0.0 at index 1 instead."):
        ips(REWARD, ACTION, [0.5, 0.0, 0.8], DIST)
    with pytest.raises(InputError, match=r"'pscore' parameter of snips.*Got 1.2 at index 0"):
        snips(REWARD, ACTION, [1.2, 0.5, 0.8], DIST)
    with pytest.raises(InputError, match=r"'propensities' parameter of pbm_ips.*Got 0.0"):
        pbm_ips([[1]], [[1]], [[1]], [0.0])
    with pytest.raises(InputError, match=r"'propensities'.*Got 1.5"):
        pbm_ips([[1]], [[1]], [[1]], [1.5])
    with pytest.raises(InputError, match=r"'pscore_item_position'.*\(0, 1\]"):
        independent_ips([[1, 0]], [[0.5, 0.0]], [[0.5, 0.5]])
    with pytest.raises(InputError, match=r"'evaluation_pscore_cascade'.*\[0, 1\]"):
        reward_interaction_ips([[1, 0]], [[0.5, 0.5]], [[0.5, 1.5]])
    with pytest.raises(InputError, match=r"'logged_propensities'.*\(0, 1\]"):
        pbm_ips([[1]], [[1]], [[1]], [1.0], logged_propensities=[[0.0]])


def test_mismatched_lengths_and_shapes():
    with pytest.raises(InputError, match=r"ips: 'action_dist' has 3 rows but 'reward' has 2"):
        ips(REWARD[:2], ACTION[:2], PSCORE[:2], DIST)
    with pytest.raises(InputError, match=r"'estimated_rewards' has shape"):
        doubly_robust(REWARD, ACTION, PSCORE, DIST, [[0.1, 0.2]])
    with pytest.raises(InputError, match=r"'pscore_cascade' has shape"):
        reward_interaction_ips([[1, 0]], [[0.5]], [[0.5]])
    with pytest.raises(InputError, match=r"'clicks' has shape"):
        pbm_ips([[1, 0]], [[1]], [[1]], [1.0])
    with pytest.raises(InputError, match=r"'clicks' has 2 rows but 'logged_rankings' has 1"):
        pbm_ips([[1], [0]], [[1]], [[1]], [1.0])


def test_clicks_outside_the_shown_list_and_duplicates():
    with pytest.raises(InputError, match=r"a click in empty slot 1 of impression 0"):
        pbm_ips([[1, 1]], [[3, -1]], [[3]], [1.0, 0.5])
    with pytest.raises(InputError, match=r"'logged_rankings'.*without duplicate documents. "
                       r"Got document 3 twice in row 0"):
        pbm_ips([[1, 0]], [[3, 3]], [[3]], [1.0, 0.5])
    with pytest.raises(InputError, match=r"'target_rankings'.*duplicate"):
        pbm_ips([[1, 0]], [[3, 4]], [[4, 4]], [1.0, 0.5])
    with pytest.raises(InputError, match=r"'propensities'.*given for every clicked position"):
        pbm_ips([[0, 1]], [[3, 4]], [[4, 3]], [1.0])


def test_other_bad_input():
    with pytest.raises(InputError, match=r"'action_dist'.*summing to 1.*round 0"):
        ips(REWARD, ACTION, PSCORE, [[0.5, 0.4], [0.9, 0.1], [0.4, 0.6]])
    with pytest.raises(InputError, match=r"'action'.*integers in \[0, 2\). Got 2"):
        ips(REWARD, [0, 2, 0], PSCORE, DIST)
    with pytest.raises(InputError, match=r"'position'.*given when action_dist has 3 positions"):
        ips(*_random_logged(0)[:1], *_random_logged(0)[1:2], *_random_logged(0)[3:5])
    with pytest.raises(InputError, match=r"'reward'.*finite. Got nan"):
        ips([1.0, np.nan, 0.0], ACTION, PSCORE, DIST)
    with pytest.raises(InvalidParameterError, match=r"'max_weight'.*> 0. Got 0"):
        ips(REWARD, ACTION, PSCORE, DIST, max_weight=0)
    with pytest.raises(InvalidParameterError, match=r"'ci' parameter of snips.*'normal'"):
        snips(REWARD, ACTION, PSCORE, DIST, ci="wald")
    with pytest.raises(InputError, match=r"every importance weight is 0"):
        snips(REWARD, ACTION, PSCORE, [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(InputError, match=r"no click"):
        estimate_propensities_shuffle([[0, 0], [0, 0]])
    with pytest.raises(InputError, match=r"every position 0..2 at least once"):
        estimate_propensities_swap([0, 2], [1, 1])
    with pytest.raises(InputError, match=r"'clicked'.*0/1"):
        estimate_propensities_swap([0, 1], [1, 3])
