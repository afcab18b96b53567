"""skrank's main job on the bundled real data (``make demo``).

1. Train a LightGBM ranker on the LambdaRank example's train split, score its test split.
2. Show that LightGBM's own ndcg@k equals skrank's ``preset="lightgbm"``.
3. Print NDCG@1/5/10, AP@10 and RR under every tie rule, and how far pessimistic and
   optimistic lie apart: the part of "NDCG@10" that is a convention, not the model.
4. Cross-validate the ranker with scikit-learn (GroupKFold), and compare it with a
   one-feature baseline with paired statistics (when those parts of skrank are present).
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

import skrank
from skrank.datasets import load_lambdarank_example

HERE = Path(__file__).resolve().parent
METRICS = ["ndcg@1", "ndcg@5", "ndcg@10", "ap@10", "rr"]
RULES = ["pessimistic", "input", "average", "optimistic"]
# The parameters of the published reference run (see skrank.datasets' DESCR): LightGBM
# 4.7.0 reports test ndcg@10 = 0.7477712744462751 with them.
REFERENCE = dict(
    objective="lambdarank", learning_rate=0.1, num_leaves=31, min_data_in_leaf=50,
    min_sum_hessian_in_leaf=5, deterministic=True, num_threads=1, seed=0, verbose=-1,
)
# A coarse model (few leaves, few rounds), the kind whose scores tie constantly.
COARSE = dict(REFERENCE, num_leaves=3, min_data_in_leaf=100, learning_rate=0.3)


def _section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 74 - len(title)))


def train_and_score(data, params, rounds):
    """Train with lgb.train; return test scores and LightGBM's own last-round ndcg@k."""
    import lightgbm as lgb

    train = lgb.Dataset(data.X_train, data.y_train, group=data.group_train)
    test = lgb.Dataset(data.X_test, data.y_test, group=data.group_test, reference=train)
    history: dict = {}
    booster = lgb.train(
        dict(params, metric="ndcg", eval_at=[1, 5, 10]), train, num_boost_round=rounds,
        valid_sets=[test], valid_names=["test"], callbacks=[lgb.record_evaluation(history)],
    )
    scores = booster.predict(data.X_test)
    return scores, {k: v[-1] for k, v in history["test"].items()}


def show_lightgbm_equality(data, scores, lightgbm_own, title) -> None:
    _section(f"LightGBM's own metric vs skrank preset='lightgbm' ({title})")
    res = skrank.evaluate(data.y_test, scores, data.qid_test,
                          metrics=["ndcg@1", "ndcg@5", "ndcg@10"], preset="lightgbm")
    identical = True
    for k in (1, 5, 10):
        ours = res[f"ndcg@{k}"].value
        theirs = lightgbm_own[f"ndcg@{k}"]
        identical &= ours == theirs
        verdict = "identical" if ours == theirs else f"differ by {abs(ours - theirs):.1e}"
        print(f"  ndcg@{k:<3} LightGBM {theirs:.16f}   skrank {ours:.16f}   {verdict}")
    if not identical:
        print("  (LightGBM sums its metric over OpenMP threads, so its last bits depend on the "
              "thread count; with one thread the two are equal bit for bit.)")
    print(f"  {res['ndcg@10']}")


def show_tie_rules(data, scores) -> None:
    _section("The coarse model's scores under each tie rule (gain=exp, empty=exclude)")
    n_unique = len(np.unique(scores))
    print(f"  {len(scores)} test documents, only {n_unique} distinct scores, "
          f"{len(data.group_test)} queries")
    table = {
        rule: skrank.evaluate(data.y_test, scores, data.qid_test, metrics=METRICS, ties=rule)
        for rule in RULES
    }
    header = "  metric   " + "".join(f"{r:>13}" for r in RULES) + "   opt - pess"
    print(header)
    for m in METRICS:
        vals = [table[r][m].value for r in RULES]
        spread = table["optimistic"][m].value - table["pessimistic"][m].value
        print(f"  {skrank.Metric.parse(m).display:<9}"
              + "".join(f"{v:13.4f}" for v in vals) + f"   {spread:+.4f}")
    affected = table["pessimistic"]["ndcg@10"].n_tie_affected
    print(f"  {affected} of {len(data.group_test)} queries have tied documents with different "
          "labels inside the top 10.")
    print("\n  Every number states its conventions, e.g.:")
    print(f"  {table['pessimistic']['ndcg@5']}")
    res = skrank.evaluate(data.y_test, scores, data.qid_test, metrics=["ndcg@10"],
                          preset="lightgbm", tie_bounds=True)
    print(f"  {res['ndcg@10']}")


def _optional(name: str):
    path = HERE / f"{name}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    t0 = time.perf_counter()
    data = load_lambdarank_example()
    print("skrank", skrank.__version__, "- LightGBM LambdaRank example data "
          f"(train {len(data.y_train)} rows / {len(data.group_train)} queries, "
          f"test {len(data.y_test)} rows / {len(data.group_test)} queries)")
    scores, lightgbm_own = train_and_score(data, REFERENCE, 100)
    show_lightgbm_equality(data, scores, lightgbm_own, "the published reference run")
    coarse, coarse_own = train_and_score(data, COARSE, 15)
    show_lightgbm_equality(data, coarse, coarse_own, "a coarse model that ties")
    show_tie_rules(data, coarse)

    cv = _optional("_cv_demo")
    if cv is not None:
        _section("Cross-validation with scikit-learn (GroupKFold over queries)")
        cv.run_cross_validation()
    compare = _optional("_compare_demo")
    if compare is not None:
        _section("The ranker against a one-feature baseline (paired, per query)")
        compare.run_comparison()
    print(f"\nDone in {time.perf_counter() - t0:.1f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
