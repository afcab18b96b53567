"""Two small uplift models on a scikit-learn classifier, for the scorer tests."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone


class TwoModels(BaseEstimator):
    """One classifier on the treated rows, one on the control rows; uplift = difference."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, treatment):
        t = np.asarray(treatment).astype(bool)
        X, y = np.asarray(X), np.asarray(y)
        self.treated_ = clone(self.estimator).fit(X[t], y[t])
        self.control_ = clone(self.estimator).fit(X[~t], y[~t])
        return self

    def predict(self, X):
        return self.treated_.predict_proba(X)[:, 1] - self.control_.predict_proba(X)[:, 1]


class ClassTransformation(BaseEstimator):
    """One classifier of z = (y == treatment); uplift = 2 P(z) - 1 (balanced treatment)."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, treatment):
        z = (np.asarray(y) == np.asarray(treatment)).astype(int)
        self.estimator_ = clone(self.estimator).fit(X, z)
        return self

    def predict(self, X):
        return 2 * self.estimator_.predict_proba(X)[:, 1] - 1


def synthetic(n, seed):
    """Rows with a known individual effect ``tau``: X, y, treatment, tau."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    tau = 0.25 * np.tanh(X[:, 0]) - 0.05  # helps some, harms others
    base = 0.35 + 0.1 * np.tanh(X[:, 1])
    t = rng.integers(0, 2, n)
    p = np.clip(base + t * tau, 0.01, 0.99)
    y = (rng.random(n) < p).astype(int)
    return X, y, t, tau
