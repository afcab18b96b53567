"""On data whose individual effect is known, ranking by the true effect has the best Qini."""

from __future__ import annotations

import numpy as np

import skrank.uplift as su

from ._models import synthetic


def test_true_effect_ranks_best():
    X, y, t, tau = synthetic(40_000, 3)
    rng = np.random.default_rng(4)
    rankings = {
        "true effect": tau,
        "noisy effect": tau + rng.normal(scale=0.2, size=tau.shape[0]),
        "baseline risk": X[:, 1],
        "random": rng.random(tau.shape[0]),
        "reversed effect": -tau,
    }
    for score in (su.qini_auc_score, su.uplift_auc_score):
        values = {name: float(score(y, s, t)) for name, s in rankings.items()}
        assert max(values, key=values.get) == "true effect", values
        assert values["true effect"] > values["noisy effect"] > values["random"]
        assert values["reversed effect"] < 0 < values["true effect"]
    # and the true effect's uplift among its top 30% is larger than the average effect
    top = float(su.uplift_at_k(y, tau, t, "overall", 0.3))
    assert top > y[t == 1].mean() - y[t == 0].mean()
