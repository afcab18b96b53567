"""scikit-learn's private hooks that skrank's scorers answer, pinned.

Without metadata routing, scikit-learn asks each scorer of a dict (``_MultimetricScorer``)
and the scorer of a search whether it takes ``sample_weight`` through the private method
``_accept_sample_weight`` (marked ``TODO(slep006)`` there). skrank's scorers define it. If
scikit-learn renames or drops the hook, these tests fail loudly, so that the method is
renamed or removed with it instead of silently answering nobody.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.metrics import _scorer as sk_scorer
from sklearn.model_selection import GridSearchCV, GroupKFold, _search

from skrank import make_ranking_scorer, ndcg_at


def test_sklearn_still_asks_scorers_accept_sample_weight():
    assert "_accept_sample_weight()" in inspect.getsource(sk_scorer._MultimetricScorer)
    assert "_accept_sample_weight" in inspect.getsource(_search.BaseSearchCV)
    assert ndcg_at(5)._accept_sample_weight() is True
    assert make_ranking_scorer(["ndcg@5", "rr"])._accept_sample_weight() is True


@pytest.mark.parametrize(
    ("scoring", "refit"),
    [({"ndcg@5": ndcg_at(5), "rr": make_ranking_scorer("rr")}, "ndcg@5"), (ndcg_at(5), True),
     (make_ranking_scorer(["ndcg@5", "rr"]), "ndcg@5")],
    ids=["dict", "one", "multi"],
)
def test_search_with_sample_weight_without_routing(scoring, refit):
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(12), 6)
    X = pd.DataFrame({"qid": qid, "a": rng.normal(size=qid.size)})
    y = (X["a"] > 0).astype(int).to_numpy()
    w = np.where(qid < 6, 2.0, 1.0)
    search = GridSearchCV(LinearRegression(), {"fit_intercept": [True, False]},
                          cv=GroupKFold(3), scoring=scoring, refit=refit)
    search.fit(X, y, groups=qid, sample_weight=w)
    assert np.isfinite(search.best_score_)
