"""Tune an XGBoost ranker with scikit-learn's GridSearchCV, scored query by query.

The bundled LambdaRank example (300 features, labels 0..4) is used as is: the training split
is cut into five folds of whole queries (``GroupKFold`` over the query ids), every candidate
is scored on each fold's held-out queries by NDCG@5 with pessimistic ties (documents with
equal scores are ranked worst label first; XGBoost ranks float32 predictions, so ties are
common), and the refitted best model is evaluated once on the test split, each number
printed with the conventions that produced it.

The query ids travel as a ``qid`` column of the DataFrame ``X`` (XGBoost's own convention).
``skrank.xgboost.XGBRanker`` is XGBoost's ranker that also accepts rows of a query that are
not sorted by id (``xgboost.XGBRanker`` refuses them, which a fold of shuffled data easily
is); on this sorted data both give the same models. The other way, metadata routing, needs
no column::

    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X_numpy, y, qid=qid, groups=qid)

Run: ``python examples/tune_xgboost_ranker.py`` (about half a minute on two cores).
"""

from __future__ import annotations

from _tuning import tune  # examples/_tuning.py: the part both tuning examples share
from sklearn.model_selection import GridSearchCV

from skrank.xgboost import XGBRanker


def main() -> GridSearchCV:
    return tune(
        XGBRanker(tree_method="hist", n_jobs=1, random_state=0),
        param_grid={
            "max_depth": [3, 6],
            "n_estimators": [30, 60],
            "learning_rate": [0.1, 0.3],
        },
        preset="xgboost",
        library="XGBoost",
    )


if __name__ == "__main__":
    main()
