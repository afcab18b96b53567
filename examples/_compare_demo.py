"""The last part of ``make demo``: is the trained ranker really better than one feature?

A LightGBM ranker trained on the bundled LambdaRank example (train split) is compared, query
by query on the 50 test queries, with a one-feature baseline: the single feature that ranks
the training queries best. The comparison reports the difference with its bootstrap
interval, the randomisation test, the minimum detectable difference for 50 queries, and
the same comparison within groups of queries by number of candidates.

Run it alone with ``python examples/_compare_demo.py``; ``examples/demo.py`` calls
:func:`run_comparison`.
"""

from __future__ import annotations

import time

import numpy as np

import skrank
from skrank.datasets import load_lambdarank_example
from skrank.reports import build_report
from skrank.segments import by_candidates, count_candidates

# The parameters of the reference run published with the data (see skrank.datasets).
PARAMS = dict(
    objective="lambdarank", n_estimators=100, learning_rate=0.1, num_leaves=31,
    min_child_samples=50, min_child_weight=5, deterministic=True, n_jobs=1, random_state=0,
    verbose=-1,
)
METRICS = ["ndcg@10", "ndcg@5"]


def best_single_feature(X, y, qid, metric: str = "ndcg@10") -> tuple[int, float]:
    """The column of ``X`` whose values, used as scores, give the best mean ``metric``."""
    best, best_value = -1, -np.inf
    for j in range(X.shape[1]):
        column = X[:, j]
        if np.ptp(column) == 0:  # a constant feature ranks nothing
            continue
        value = skrank.evaluate(y, column, qid, metrics=[metric])[metric].value
        if value > best_value:
            best, best_value = j, value
    return best, best_value


def run_comparison(seed: int = 0) -> skrank.reports.Report:
    """Train the ranker, compare it with the best single feature on the test split, print it.

    Returns the :class:`skrank.reports.Report` (also printed).
    """
    import lightgbm as lgb

    t0 = time.perf_counter()
    data = load_lambdarank_example()
    ranker = lgb.LGBMRanker(**PARAMS)
    ranker.fit(data.X_train, data.y_train, group=data.group_train)
    model_scores = ranker.predict(data.X_test)

    # The baseline's feature is chosen on the training queries only.
    feature, train_value = best_single_feature(data.X_train, data.y_train, data.qid_train)
    baseline_scores = data.X_test[:, feature]
    print(f"  baseline: feature_{feature + 1} alone (column {feature}), the best single "
          f"feature on the training queries (NDCG@10 {train_value:.4f} there)")

    results = {
        "lightgbm": skrank.evaluate(data.y_test, model_scores, data.qid_test, metrics=METRICS),
        f"feature_{feature + 1}": skrank.evaluate(data.y_test, baseline_scores, data.qid_test,
                                                  metrics=METRICS),
    }
    qids, n_candidates = count_candidates(data.qid_test)
    report = build_report(
        results, baseline=f"feature_{feature + 1}", primary="ndcg@10",
        segmentations=[by_candidates(qids, n_candidates, bins=3)], rng=seed,
        inputs=[f"LambdaRank example, test split: {len(data.y_test)} documents in "
                f"{len(qids)} queries"],
    )
    print("\n".join("  " + line if line else "" for line in report.to_text().splitlines()))
    comp = report.comparison("lightgbm", "ndcg@10")
    print(f"\n  In short: NDCG@10 {comp.mean_difference:+.4f} over the baseline (95% CI "
          f"{comp.ci_bca}, randomisation p = {comp.pvalue:.4f}). With {comp.n} queries, a true "
          f"difference is detected 80% of the time only from {comp.mdd.value:.4f} up "
          f"(the minimum detectable difference).")
    print(f"  ({time.perf_counter() - t0:.1f} s)")
    return report


if __name__ == "__main__":
    run_comparison()
