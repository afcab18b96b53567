"""Part of ``make demo``: cross-validate a LightGBM ranker with scikit-learn, query by query.

The bundled LambdaRank example's training split is split into five folds of whole queries
(``GroupKFold`` over the query ids); each fold's test queries are scored by a skrank scorer
with pessimistic ties. The query ids travel as a ``qid`` column of the DataFrame ``X``: the
ranker drops it before fitting and predicting, the scorer reads it to group the rows.

Run it alone with ``python examples/_cv_demo.py``; ``examples/demo.py`` calls
:func:`run_cross_validation`.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.model_selection import GroupKFold, cross_validate

from skrank import ndcg_at
from skrank.datasets import load_lambdarank_example
from skrank.lightgbm import LGBMRanker


def run_cross_validation() -> dict:
    """Run the five-fold cross-validation, print the fold scores and return the results."""
    t0 = time.perf_counter()
    data = load_lambdarank_example()
    X = pd.DataFrame(data.X_train, columns=data.feature_names)
    X.insert(0, "qid", data.qid_train)  # query ids as a column: not a feature
    y, qid = data.y_train, data.qid_train
    ranker = LGBMRanker(n_estimators=30, num_leaves=15, learning_rate=0.15,
                        min_child_samples=20, n_jobs=1, verbose=-1)

    scores = cross_validate(ranker, X, y, groups=qid, cv=GroupKFold(5), scoring=ndcg_at(5, ties="pessimistic"))  # noqa: E501

    scorer = ndcg_at(5, ties="pessimistic")
    conventions = scorer.conventions.describe(("gain", "ties", "empty"))
    folds = scores["test_score"]
    print(f"  cross_validate(LGBMRanker, X, y, groups=qid, cv=GroupKFold(5), "
          f"scoring={scorer!r})")
    print(f"  NDCG@5 ({conventions}) on each fold's held-out queries:")
    print("    " + "  ".join(f"{v:.4f}" for v in folds))
    print(f"  mean {folds.mean():.4f}, standard deviation {folds.std(ddof=1):.4f} over 5 folds "
          f"of about {len(np.unique(qid)) // 5} queries each "
          f"({time.perf_counter() - t0:.1f} s)")
    return scores


if __name__ == "__main__":
    run_cross_validation()
