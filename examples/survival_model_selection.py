"""Choose a Cox model's penalty by cross-validated Uno's C, with each test fold weighted by the
censoring distribution of its training fold (as scikit-survival computes it), next to Harrell's
C and what a scorer that sees only the test fold would report.

Data: the German Breast Cancer Study Group 2 trial (686 women, recurrence-free survival), as
shipped by lifelines (MIT licence) in ``lifelines.datasets.load_gbsg2``. Model:
scikit-survival's ``CoxPHSurvivalAnalysis``. Runs in a few seconds:

    python examples/survival_model_selection.py
"""

from __future__ import annotations

import numpy as np
import sklearn
from lifelines.datasets import load_gbsg2
from sklearn.model_selection import GridSearchCV, KFold
from sksurv.linear_model import CoxPHSurvivalAnalysis

from skrank.survival import concordance_index_ipcw, harrell_c, uno_c


def load() -> tuple[np.ndarray, np.ndarray]:
    df = load_gbsg2()
    X = np.column_stack([
        (df["horTh"] == "yes").astype(float),
        df["age"],
        (df["menostat"] == "Post").astype(float),
        df["tsize"],
        df["tgrade"].map({"I": 1, "II": 2, "III": 3}).astype(float),
        np.log1p(df["pnodes"]),
        np.log1p(df["progrec"]),
        np.log1p(df["estrec"]),
    ])
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = np.array(list(zip(df["cens"] == 1, df["time"].astype(float))),
                 dtype=[("event", bool), ("time", float)])
    return X, y


def main() -> None:
    X, y = load()
    tau = 1825.0  # five years: the censoring estimate stays positive before it in every fold
    scoring = {
        "uno": uno_c(tau=tau, survival=y),  # training folds' censoring, via sample_index
        "uno_test_fold": uno_c(tau=tau, censoring="test"),  # what a plain scorer can do
        "harrell": harrell_c(),
    }
    cv = KFold(5, shuffle=True, random_state=0)
    grid = {"alpha": [0.01, 1.0, 10.0, 100.0, 1000.0]}
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(CoxPHSurvivalAnalysis(), grid, scoring=scoring, refit="uno", cv=cv)
        search.fit(X, y, sample_index=np.arange(len(y)))

    res = search.cv_results_
    print(f"GBSG2: {len(y)} patients, {int(y['event'].sum())} recurrences; 5-fold CV; "
          f"Uno's C truncated at tau={tau:g} days")
    print(f"{'alpha':>8s} {'Uno (train censoring)':>22s} {'Uno (test fold)':>16s} "
          f"{'Harrell':>8s}")
    for i, params in enumerate(res["params"]):
        print(f"{params['alpha']:8g} {res['mean_test_uno'][i]:22.6f} "
              f"{res['mean_test_uno_test_fold'][i]:16.6f} {res['mean_test_harrell'][i]:8.6f}")
    print(f"best alpha by Uno's C: {search.best_params_['alpha']:g}")

    # the refitted model on one held-out split, printed with its conventions
    train, test = next(cv.split(X))
    model = CoxPHSurvivalAnalysis(alpha=search.best_params_["alpha"]).fit(X[train], y[train])
    print(concordance_index_ipcw(y[train], y[test], model.predict(X[test]), tau=tau))


if __name__ == "__main__":
    main()
