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

from _tuning import tune  # examples/_tuning.py: the part both tuning examples share
from sklearn.model_selection import GridSearchCV

from skrank.lightgbm import LGBMRanker


def main() -> GridSearchCV:
    return tune(
        LGBMRanker(min_child_samples=20, n_jobs=1, verbose=-1, random_state=0),
        param_grid={
            "num_leaves": [7, 31],
            "n_estimators": [50, 100],
            "learning_rate": [0.05, 0.1],
        },
        preset="lightgbm",
        library="LightGBM",
    )


if __name__ == "__main__":
    main()
