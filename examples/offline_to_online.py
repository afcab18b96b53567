"""From offline evaluation to a launch decision: the path a ranker takes to production.

A candidate ranker (a ridge regression on the first 100 of the 136 features of LightGBM's
LambdaRank example, bundled with skrank) is to replace the production ranker (a ridge
regression on the last 16). The script takes it through the stages a team would, with the
decision at each stage:

1. **Offline evaluation** on the 50 held-out queries: NDCG@10 query by query, the paired
   comparison of :mod:`skrank.stats`. Too few queries to prove a small gain; go on if the
   candidate is not worse by more than 0.02 (the lower bound of the interval).
2. **Interleaving**: team-draft interleaving of the two rankings, shown to simulated users who
   click under a position-based model (examination ``1 / rank``, click probability by label).
   Go on if users prefer the candidate.
3. **A/B test**: 40,000 simulated users over 14 days, half on each ranker. Each user searches
   a few times; clicks follow the same position-based model; the candidate costs a little
   latency. The analysis: the sample ratio check, CTR (clicks / searches, delta method) with
   CUPED on each user's pre-experiment clicks, searches per user and latency as guardrails,
   the always-valid view a team checking daily would have had, and :func:`decide`'s verdict.

Everything is simulated from a fixed seed; runs in a few seconds:
``python examples/offline_to_online.py``.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

import skrank
from skrank.datasets import load_lambdarank_example
from skrank.online import (
    PositionBasedModel,
    always_valid_test,
    analyze_experiment,
    decide,
    interleaving_test,
    simulate_interleaving,
)
from skrank.stats import paired_comparison

SEED = 0
K = 10
N_USERS = 40_000
DAYS = 14


def top_k_labels(labels: list[np.ndarray], rankings: list[np.ndarray]) -> np.ndarray:
    """Per query, the labels of the top K documents in shown order (-1 pads short lists)."""
    out = np.full((len(labels), K), -1, dtype=np.int64)
    for i, (lab, r) in enumerate(zip(labels, rankings)):
        shown = lab[r[:K]]
        out[i, : shown.size] = shown
    return out


def main() -> None:
    start = time.perf_counter()
    rng = np.random.default_rng(SEED)
    data = load_lambdarank_example()
    features = {"production": slice(120, 136), "candidate": slice(0, 100)}
    y, qid = data.y_test, data.qid_test
    scores = {name: Ridge(alpha=1.0).fit(data.X_train[:, f], data.y_train).predict(
        data.X_test[:, f]) for name, f in features.items()}
    queries = np.unique(qid)
    labels = [y[qid == q].astype(np.int64) for q in queries]
    rankings = {name: [np.argsort(-s[qid == q], kind="stable") for q in queries]
                for name, s in scores.items()}

    # -- 1. offline ----------------------------------------------------------------------------
    print("1. Offline evaluation on the held-out queries")
    per_query = {}
    for name, s in scores.items():
        res = skrank.ndcg(y, s, qid, k=K)
        per_query[name] = res.per_query
        print(f"   {name:<10} {res}")
    cmp = paired_comparison(per_query["candidate"], per_query["production"],
                            name_a="candidate", name_b="production", n_resamples=2_000,
                            n_permutations=2_000, rng=SEED)
    lo, hi = cmp.ci_bca
    go = lo > -0.02
    print(f"   candidate - production: {cmp.mean_difference:+.4f}, 95% BCa CI [{lo:+.4f}, "
          f"{hi:+.4f}], randomisation p = {cmp.randomization.pvalue:.4f} over {cmp.n} queries")
    print(f"   -> {'not worse offline: go on to interleaving' if go else 'stop'}")
    if not go:
        return

    # -- 2. interleaving -------------------------------------------------------------------------
    users = PositionBasedModel(eta=1.0, n_positions=K)
    outcomes = simulate_interleaving(rankings["candidate"], rankings["production"], labels,
                                     users, n_impressions=5_000, length=K, rng=rng)
    il = interleaving_test(outcomes, rng=SEED)
    prefer = il.preference > 0 and il.p_value < 0.05
    print("\n2. Team-draft interleaving, 5,000 simulated impressions (A = candidate)")
    print("   " + str(il).replace("\n", "\n   "))
    print(f"   -> {'users prefer the candidate: go on to an A/B test' if prefer else 'stop'}")
    if not prefer:
        return

    # -- 3. the A/B test ---------------------------------------------------------------------------
    shown = {name: top_k_labels(labels, r) for name, r in rankings.items()}
    print(f"\n3. A/B test: {N_USERS:,} users over {DAYS} days, half on each ranker")
    arm = np.where(rng.random(N_USERS) < 0.5, "production", "candidate")
    day = rng.integers(1, DAYS + 1, N_USERS)                 # the day each user arrives
    activity = rng.gamma(1.5, 2.0, N_USERS)                  # searches per user vary a lot
    searches = rng.poisson(activity * (DAYS + 1 - day) / 4) + 1
    searches_pre = rng.poisson(activity * 3.5) + 1           # the month before the test
    user = np.repeat(np.arange(N_USERS), searches)
    user_pre = np.repeat(np.arange(N_USERS), searches_pre)
    query = rng.integers(0, len(queries), user.size)
    query_pre = rng.integers(0, len(queries), user_pre.size)
    # users differ in how much they click: a per-user factor on the click probabilities
    taste = np.clip(rng.gamma(4.0, 0.25, N_USERS), 0.0, 2.5)
    cand = arm[user] == "candidate"
    shown_now = np.where(cand[:, None], shown["candidate"][query], shown["production"][query])
    p_click = users.click_probabilities(shown_now) * taste[user][:, None]
    clicks = (rng.random(p_click.shape) < np.clip(p_click, 0, 1)).sum(axis=1)
    p_pre = users.click_probabilities(shown["production"][query_pre]) * taste[user_pre][:, None]
    clicks_pre = (rng.random(p_pre.shape) < np.clip(p_pre, 0, 1)).sum(axis=1)
    latency = rng.normal(np.where(arm == "candidate", 182.0, 180.0), 25.0)
    units = pd.DataFrame({
        "arm": arm, "day": day, "searches": searches, "searches_pre": searches_pre,
        "clicks": np.bincount(user, weights=clicks, minlength=N_USERS),
        "clicks_pre": np.bincount(user_pre, weights=clicks_pre, minlength=N_USERS),
        "latency_ms": latency,
    })
    res = analyze_experiment(
        units, arm="arm", control="production",
        metrics={"ctr": ("clicks", "searches"), "searches": "searches",
                 "latency_ms": "latency_ms"},
        covariates={"ctr": ("clicks_pre", "searches_pre"), "searches": "searches_pre"})
    print("   " + str(res).replace("\n", "\n   "))
    plain = analyze_experiment(units, arm="arm", control="production",
                               metrics={"ctr": ("clicks", "searches")})
    width = (res["ctr"].ci[1] - res["ctr"].ci[0]) / (plain["ctr"].ci[1] - plain["ctr"].ci[0])
    print(f"   CUPED: the CTR interval is {1 - width:.0%} narrower than without the covariate")

    # the view of a team that looked every day: always-valid, so stopping early is allowed
    units["clicks_per_search"] = units["clicks"] / units["searches"]
    seq = always_valid_test(units, arm="arm", metric="clicks_per_search",
                            control="production", look="day", mixing_variance=0.01**2)
    stop = ("never" if seq.stopped_at is None else
            f"from day {int(seq.looks[seq.stopped_at])}")
    print(f"   daily always-valid view of clicks per search: p <= 0.05 {stop}; day {DAYS}: "
          f"{seq.difference[-1]:+.4f} [{seq.ci[-1, 0]:+.4f}, {seq.ci[-1, 1]:+.4f}]")

    decision = decide(res, primary="ctr", guardrails={"searches": 0.02, "latency_ms": 0.02},
                      direction={"latency_ms": "decrease"})
    print("\n" + str(decision))
    print(f"\ndone in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
