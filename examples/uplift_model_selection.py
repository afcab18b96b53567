"""Choosing an uplift model by cross-validated Qini, the treatment flag routed as metadata.

Synthetic campaign data whose individual effect is known: a treatment that helps people with
a high first feature and slightly harms the others. Two classic uplift models on a
scikit-learn logistic regression compete in one ``GridSearchCV``:

* two models: one classifier on the treated rows, one on the control rows; the uplift is the
  difference of their probabilities;
* class transformation: one classifier of ``z = (y == treatment)``; the uplift is
  ``2 P(z) - 1`` (the treatment is assigned at random with probability 1/2).

Scoring is a dict of three skrank uplift scorers (Qini AUC, AUUC, uplift@30%) with
``refit="qini"``; the folds are stratified on outcome and treatment together. The script then
scores the chosen model on held-out rows under three sets of conventions (skrank's defaults,
scikit-uplift's, causalml's) and against the ranking by the true effect, and prints the
uplift by decile. ``--plot FILE`` saves the Qini curves of the chosen model and of the
ranking by the true effect (needs matplotlib).

Runs in a few seconds: ``python examples/uplift_model_selection.py``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures

import skrank.uplift as su

SEED = 0


class TwoModels(BaseEstimator):
    """One classifier on the treated rows, one on the control rows."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, treatment):
        t = np.asarray(treatment).astype(bool)
        self.treated_ = clone(self.estimator).fit(X[t], y[t])
        self.control_ = clone(self.estimator).fit(X[~t], y[~t])
        return self

    def predict(self, X):
        return self.treated_.predict_proba(X)[:, 1] - self.control_.predict_proba(X)[:, 1]


class ClassTransformation(BaseEstimator):
    """One classifier of z = (y == treatment); uplift = 2 P(z) - 1."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, treatment):
        self.estimator_ = clone(self.estimator).fit(X, (y == treatment).astype(int))
        return self

    def predict(self, X):
        return 2 * self.estimator_.predict_proba(X)[:, 1] - 1


def make_data(n: int, seed: int = SEED):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    tau = 0.2 * np.tanh(2 * X[:, 0]) + 0.02  # the true individual effect
    base = 0.3 + 0.15 * np.tanh(X[:, 1] + X[:, 2])
    t = rng.integers(0, 2, n)
    y = (rng.random(n) < np.clip(base + t * tau, 0.01, 0.99)).astype(int)
    return X, y, t, tau


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--plot", metavar="FILE", help="save the Qini curves to FILE")
    args = parser.parse_args(argv)
    start = time.perf_counter()

    X, y, t, tau = make_data(args.rows)
    X_tr, X_te, y_tr, y_te, t_tr, t_te, _, tau_te = train_test_split(
        X, y, t, tau, test_size=0.3, random_state=SEED, stratify=2 * y + t
    )
    print(f"{args.rows:,} rows ({len(y_tr):,} to choose a model, {len(y_te):,} held out); "
          f"average effect {y[t == 1].mean() - y[t == 0].mean():+.4f}")

    scoring = {
        "qini": su.make_uplift_scorer("qini_auc"),
        "auuc": su.make_uplift_scorer("uplift_auc"),
        "uplift@30%": su.make_uplift_scorer("uplift_at_k", strategy="overall", k=0.3),
    }
    classifier = make_pipeline(PolynomialFeatures(2), LogisticRegression(max_iter=500))
    grid = [
        {"model": [TwoModels(classifier)], "model__estimator__logisticregression__C": [0.01, 1]},
        {"model": [ClassTransformation(classifier)],
         "model__estimator__logisticregression__C": [0.01, 1]},
    ]
    folds = list(StratifiedKFold(4, shuffle=True, random_state=SEED).split(X_tr, 2 * y_tr + t_tr))
    with sklearn.config_context(enable_metadata_routing=True):
        # the model receives the treatment flag in fit; the scorers request it by default
        search = GridSearchCV(
            _Holder(TwoModels(classifier)).set_fit_request(treatment=True),
            grid,
            scoring=scoring,
            refit="qini",
            cv=folds,
        ).fit(X_tr, y_tr, treatment=t_tr)

    print("\ncross-validated (4 stratified folds), higher is better:")
    res = search.cv_results_
    print(f"  {'model':<22} {'C':>5} {'Qini AUC':>9} {'AUUC':>7} {'uplift@30%':>11}")
    for i, params in enumerate(res["params"]):
        name = type(params["model"]).__name__
        c = params["model__estimator__logisticregression__C"]
        mark = "  <- chosen" if i == search.best_index_ else ""
        print(f"  {name:<22} {c:>5} {res['mean_test_qini'][i]:9.4f} "
              f"{res['mean_test_auuc'][i]:7.4f} {res['mean_test_uplift@30%'][i]:11.4f}{mark}")

    uplift = search.best_estimator_.predict(X_te)
    print("\nheld out, the chosen model:")
    print(" ", su.qini_auc_score(y_te, uplift, t_te))
    print(" ", su.qini_auc_score(y_te, uplift, t_te, preset="sklift"))
    print(" ", su.qini_auc_score(y_te, uplift, t_te, preset="causalml"))
    print(" ", su.uplift_at_k(y_te, uplift, t_te, "overall", 0.3))
    print("held out, ranked by the true effect (the best any model can do on these rows):")
    print(" ", su.qini_auc_score(y_te, tau_te, t_te))
    print("\nuplift by decile of the chosen model:")
    print(su.uplift_by_percentile(y_te, uplift, t_te, bins=10))

    if args.plot:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6, 4.5))
        ax = fig.subplots()
        su.qini_curve(y_te, uplift, t_te).plot(ax=ax, label="chosen model")
        su.qini_curve(y_te, tau_te, t_te).plot(ax=ax, label="true effect", random=False)
        ax.set_title("Qini curves, held-out rows")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"\nQini curves saved to {args.plot}")
    print(f"\n({time.perf_counter() - start:.1f} s)")
    return 0


class _Holder(BaseEstimator):
    """Holds one uplift model so that the grid can swap the model itself."""

    def __init__(self, model=None):
        self.model = model

    def fit(self, X, y, treatment):
        self.model_ = clone(self.model).fit(X, y, treatment)
        return self

    def predict(self, X):
        return self.model_.predict(X)


if __name__ == "__main__":
    raise SystemExit(main())
