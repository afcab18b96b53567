"""Test helpers: a ranker whose predictions are known, and a slow NDCG oracle."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin


class FirstColumn(BaseEstimator, RegressorMixin):
    """Predicts the first column of X: the ranking is known without fitting anything."""

    def fit(self, X, y, qid=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        if isinstance(X, pd.DataFrame):
            X = X.drop(columns="qid", errors="ignore")
        return np.asarray(X, dtype=float)[:, 0].copy()


def oracle_ndcg_pessimistic(y, s, qid, k):
    """NDCG@k, gain 2**l - 1, ties worst label first, empty queries left out (a slow loop)."""
    values = []
    for q in dict.fromkeys(qid.tolist()):
        rows = [i for i in range(len(qid)) if qid[i] == q]
        order = sorted(rows, key=lambda i: (-s[i], y[i]))
        ideal = sorted((y[i] for i in rows), reverse=True)
        dcg = sum((2.0 ** y[i] - 1) / math.log2(r + 2) for r, i in enumerate(order[:k]))
        idcg = sum((2.0**lab - 1) / math.log2(r + 2) for r, lab in enumerate(ideal[:k]))
        if idcg > 0:
            values.append(dcg / idcg)
    return sum(values) / len(values)
