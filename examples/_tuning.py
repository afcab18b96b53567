"""The part of the tuning examples that does not depend on the library.

``tune_lightgbm_ranker.py`` and ``tune_xgboost_ranker.py`` each pass their ranker and
parameter grid to :func:`tune`; this module is not an example by itself.
"""

from __future__ import annotations

import time

import pandas as pd
from sklearn.model_selection import GridSearchCV, GroupKFold

import skrank
from skrank import average_precision_at, ndcg_at
from skrank.datasets import load_lambdarank_example


def with_qid(X, qid, names) -> pd.DataFrame:
    frame = pd.DataFrame(X, columns=names)
    frame.insert(0, "qid", qid)
    return frame


def tune(ranker, param_grid: dict[str, list], preset: str, library: str) -> GridSearchCV:
    """Grid-search ``ranker`` by GroupKFold over the training queries; print and test the best.

    The table has a column per entry of ``param_grid``, in its order; the best model's test
    predictions are also evaluated as ``library`` counts them (``preset``).
    """
    t0 = time.perf_counter()
    data = load_lambdarank_example()
    X_train = with_qid(data.X_train, data.qid_train, data.feature_names)
    X_test = with_qid(data.X_test, data.qid_test, data.feature_names)

    scoring = {
        "ndcg@5": ndcg_at(5, ties="pessimistic"),
        "map@10": average_precision_at(10, ties="pessimistic"),
    }
    search = GridSearchCV(
        ranker,
        param_grid=param_grid,
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
        **{name: results[f"param_{name}"] for name in param_grid},
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
    library_way = skrank.evaluate(data.y_test, scores, data.qid_test, metrics=["ndcg@5"],
                                  preset=preset)
    print(f"The same predictions as {library} counts them:")
    print(library_way)
    print(f"\nDone in {time.perf_counter() - t0:.1f} s.")
    return search
