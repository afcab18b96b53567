"""Tune a LightGBM ranker with scikit-learn's GridSearchCV, scored query by query.

The bundled LambdaRank example (LightGBM's, 300 features, labels 0..4) is used as is: the
training split is cut into five folds of whole queries (``GroupKFold`` over the query ids),
every candidate is scored on each fold's held-out queries by NDCG@5 with pessimistic ties
(documents with equal scores are ranked worst label first, so a model cannot gain from
ties), and the refitted best model is evaluated once on the test split, each number printed
with the conventions that produced it.

The query ids travel as a ``qid`` column of the DataFrame ``X``: ``skrank.lightgbm.LGBMRanker``
drops it before fitting and predicting, and the scorers read it. The other way, metadata
routing, needs no column::

    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X_numpy, y, qid=qid, groups=qid)

Run: ``python examples/tune_lightgbm_ranker.py`` (about half a minute on two cores).
"""

from __future__ import annotations

import time

import pandas as pd
from sklearn.model_selection import GridSearchCV, GroupKFold

import skrank
from skrank import map_at, ndcg_at
from skrank.datasets import load_lambdarank_example
from skrank.lightgbm import LGBMRanker


def with_qid(X, qid, names) -> pd.DataFrame:
    frame = pd.DataFrame(X, columns=names)
    frame.insert(0, "qid", qid)
    return frame


def main() -> GridSearchCV:
    t0 = time.perf_counter()
    data = load_lambdarank_example()
    X_train = with_qid(data.X_train, data.qid_train, data.feature_names)
    X_test = with_qid(data.X_test, data.qid_test, data.feature_names)

    scoring = {
        "ndcg@5": ndcg_at(5, ties="pessimistic"),
        "map@10": map_at(10, ties="pessimistic"),
    }
    search = GridSearchCV(
        LGBMRanker(min_child_samples=20, n_jobs=1, verbose=-1, random_state=0),
        param_grid={
            "num_leaves": [7, 31],
            "n_estimators": [50, 100],
            "learning_rate": [0.05, 0.1],
        },
        cv=GroupKFold(5),
        scoring=scoring,
        refit="ndcg@5",
    )
    search.fit(X_train, data.y_train, groups=data.qid_train)

    print("GridSearchCV, GroupKFold(5) over 201 training queries")
    print(f"  refit scorer: {scoring['ndcg@5']!r}")
    print(f"  conventions : {scoring['ndcg@5'].conventions.describe(('gain', 'ties', 'empty'))}")
    results = pd.DataFrame(search.cv_results_)
    table = pd.DataFrame({
        "rank": results["rank_test_ndcg@5"],
        "num_leaves": results["param_num_leaves"],
        "n_estimators": results["param_n_estimators"],
        "learning_rate": results["param_learning_rate"],
        "NDCG@5": results["mean_test_ndcg@5"].map("{:.4f}".format)
        + " ± " + results["std_test_ndcg@5"].map("{:.4f}".format),
        "MAP@10": results["mean_test_map@10"].map("{:.4f}".format),
    }).sort_values("rank")
    print(table.to_string(index=False))
    print(f"best: {search.best_params_} (mean NDCG@5 {search.best_score_:.4f})")

    print("\nHeld-out test split (50 queries), the refitted best model:")
    scores = search.predict(X_test)
    result = skrank.evaluate(data.y_test, scores, data.qid_test,
                             metrics=["ndcg@5", "ndcg@10", "ap@10", "rr"],
                             ties="pessimistic", tie_bounds=True)
    print(result)
    lightgbm_way = skrank.evaluate(data.y_test, scores, data.qid_test, metrics=["ndcg@5"],
                                   preset="lightgbm")
    print("The same predictions as LightGBM counts them:")
    print(lightgbm_way)
    print(f"\nDone in {time.perf_counter() - t0:.1f} s.")
    return search


if __name__ == "__main__":
    main()
