"""Early stopping on pessimistic NDCG@5 with LightGBM and XGBoost.

GBDT rankers give many documents exactly the same score. LightGBM and XGBoost then keep the
input order (a stable sort), so their internal NDCG@5 rewards whatever order the rows happened
to be in. skrank's pessimistic NDCG@5 puts the least relevant of tied documents first: it is
the value the model guarantees whatever the order of the rows.

For each library this script trains a small ranker on the bundled LambdaRank example data and
prints, per iteration, on the validation split:

- the library's own ndcg@5,
- skrank's ndcg@5 with the library's preset (input order; equal to the first column),
- skrank's pessimistic ndcg@5,
- how many validation queries have ties that change NDCG@5,

then the iteration that early stopping (patience ``PATIENCE``) picks under each criterion,
and checks the pick of the pessimistic criterion against a real early-stopping run with
``skrank.lightgbm.early_stopping`` / ``skrank.xgboost.metric_callback``.

Run: ``python examples/early_stopping_pessimistic.py`` (about 10 s).
"""

from __future__ import annotations

import lightgbm as lgb
import numpy as np
import xgboost as xgb

import skrank
import skrank.lightgbm
import skrank.xgboost
from skrank.datasets import load_lambdarank_example

ROUNDS = 60
PATIENCE = 10


def early_stopping_pick(history: list[float], patience: int) -> int:
    """0-based iteration that early stopping with this patience keeps (strict improvement)."""
    best = 0
    for i, value in enumerate(history):
        if value > history[best]:
            best = i
        if i - best >= patience:
            break
    return best


def print_table(title, internal, input_order, pessimistic, tied) -> None:
    print(f"\n{title}")
    print(f"{'iter':>4}  {'internal':>10}  {'skrank input':>12}  {'equal':>5}  "
          f"{'pessimistic':>11}  {'tied queries':>12}")
    for i, (a, b, c, t) in enumerate(zip(internal, input_order, pessimistic, tied)):
        print(f"{i + 1:>4}  {a:>10.6f}  {b:>12.6f}  {'yes' if a == b else 'NO':>5}  "
              f"{c:>11.6f}  {t:>12}")


def report(internal, pessimistic, stopped_at) -> None:
    by_internal = early_stopping_pick(internal, PATIENCE)
    by_pess = early_stopping_pick(pessimistic, PATIENCE)
    print(f"early stopping (patience {PATIENCE}) picks iteration {by_internal + 1} on the "
          f"library's ndcg@5 ({internal[by_internal]:.6f}; pessimistic there "
          f"{pessimistic[by_internal]:.6f})")
    print(f"early stopping (patience {PATIENCE}) picks iteration {by_pess + 1} on pessimistic "
          f"ndcg@5 ({pessimistic[by_pess]:.6f})")
    print(f"a real run stopping on pessimistic ndcg@5 kept iteration {stopped_at + 1}"
          f" ({'same' if stopped_at == by_pess else 'DIFFERENT'})")


def tied_queries(y, pred, group, preset) -> int:
    res = skrank.evaluate(y, pred, group=group, metrics=["ndcg@5"], preset=preset)
    return res["ndcg@5"].n_tie_affected


def run_lightgbm(d) -> None:
    params = dict(objective="lambdarank", metric="ndcg", eval_at=[5], num_leaves=4,
                  min_data_in_leaf=50, learning_rate=0.1, num_threads=1, deterministic=True,
                  force_row_wise=True, seed=0, verbose=-1)
    train = lgb.Dataset(d.X_train, d.y_train, group=d.group_train, free_raw_data=False)
    valid = lgb.Dataset(d.X_test, d.y_test, group=d.group_test, reference=train,
                        free_raw_data=False)
    input_order = skrank.lightgbm.feval("ndcg@5", preset="lightgbm", prefix="input_")
    pessimistic = skrank.lightgbm.feval("ndcg@5", preset="lightgbm", ties="pessimistic",
                                        prefix="pess_")
    preds: list[np.ndarray] = []

    def keep_predictions(p, data):
        preds.append(p.copy())
        return []

    log: dict = {}
    lgb.train(params, train, ROUNDS, valid_sets=[valid],
              feval=[input_order, pessimistic, keep_predictions],
              callbacks=[lgb.record_evaluation(log)])
    v = log["valid_0"]
    tied = [tied_queries(d.y_test, p, d.group_test, "lightgbm") for p in preds]
    print_table("LightGBM lambdarank: validation ndcg@5", v["ndcg@5"], v["input_ndcg@5"],
                v["pess_ndcg@5"], tied)

    stop = skrank.lightgbm.early_stopping("pess_ndcg@5", PATIENCE, verbose=False)
    booster = lgb.train({**params, "metric": "None"}, train, ROUNDS, valid_sets=[valid],
                        feval=pessimistic, callbacks=[stop])
    report(v["ndcg@5"], v["pess_ndcg@5"], booster.best_iteration - 1)


def run_xgboost(d) -> None:
    params = dict(objective="rank:ndcg", eval_metric="ndcg@5", max_depth=2, eta=0.1,
                  tree_method="hist", max_bin=16, nthread=1, seed=0)
    dtrain = xgb.DMatrix(d.X_train, d.y_train, qid=d.qid_train)
    dvalid = xgb.DMatrix(d.X_test, d.y_test, qid=d.qid_test)
    evals = [(dvalid, "valid")]
    input_order = skrank.xgboost.metric_callback("ndcg@5", preset="xgboost", prefix="input_",
                                                 evals=evals)
    pessimistic = skrank.xgboost.metric_callback("ndcg@5", preset="xgboost",
                                                 ties="pessimistic", prefix="pess_",
                                                 evals=evals)
    log: dict = {}
    booster = xgb.train(params, dtrain, ROUNDS, evals=evals, evals_result=log,
                        verbose_eval=False, callbacks=[input_order, pessimistic])
    v = log["valid"]
    tied = [tied_queries(d.y_test, booster.predict(dvalid, iteration_range=(0, i + 1)),
                         d.group_test, "xgboost") for i in range(ROUNDS)]
    print_table("XGBoost rank:ndcg: validation ndcg@5", v["ndcg@5"], v["input_ndcg@5"],
                v["pess_ndcg@5"], tied)

    stop = skrank.xgboost.metric_callback("ndcg@5", preset="xgboost", ties="pessimistic",
                                          prefix="pess_", evals=evals,
                                          early_stopping_rounds=PATIENCE)
    booster = xgb.train({**params, "disable_default_eval_metric": 1}, dtrain, ROUNDS,
                        callbacks=[stop], verbose_eval=False)
    report(v["ndcg@5"], v["pess_ndcg@5"], booster.best_iteration)


def main() -> None:
    d = load_lambdarank_example()
    run_lightgbm(d)
    run_xgboost(d)


if __name__ == "__main__":
    main()
