"""preset="spark" reproduces Spark's RankingMetrics and RankingEvaluator, run on the local
SparkSession on random rankings.

Spark takes, per query, the ranked list of predicted ids and the set of true ids; skrank takes
rows: one per predicted id (in rank order, label 1 if it is true) and one per true id that
the ranking missed (``retrieved=False``: it still counts in |truth| and the ideal DCG).
Spark's means are those of ``RDD.mean()`` (a running mean) and its NDCG uses the natural log
and a division where skrank multiplies by the inverse of the ideal DCG: equal to 1e-12,
relative, where P, R and AP are the same operations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import skrank

K = (1, 3, 5, 10, 20)


def _rankings(seed: int, n_queries: int = 100):
    """(predicted ids in rank order, true ids) per query: some true ids never predicted, some
    queries without any true id, rankings shorter and longer than the cutoffs."""
    rng = np.random.default_rng(seed)
    out = []
    for q in range(n_queries):
        pred = rng.permutation(40)[: rng.integers(1, 25)].tolist()
        n_true = 0 if q % 7 == 0 else int(rng.integers(1, 10))
        truth = rng.permutation(40)[:n_true].tolist()
        out.append((pred, truth))
    return out


def _rows(rankings):
    """skrank's rows for Spark's (prediction, truth) pairs."""
    qid, doc, y, score, retrieved = [], [], [], [], []
    for q, (pred, truth) in enumerate(rankings):
        true = set(truth)
        for r, d in enumerate(pred):
            qid.append(q), doc.append(d), y.append(int(d in true))
            score.append(-float(r)), retrieved.append(True)
        for d in sorted(true - set(pred)):
            qid.append(q), doc.append(d), y.append(1), score.append(0.0)
            retrieved.append(False)
    return dict(y_true=np.array(y), y_score=np.array(score), qid=np.array(qid),
                doc_id=np.array(doc), retrieved=np.array(retrieved))


def _skrank(rankings):
    metrics = ["ap"] + [f"{m}@{k}" for k in K for m in ("p", "r", "ap", "ndcg")]
    return skrank.evaluate(**_rows(rankings), metrics=metrics, preset="spark")


@pytest.mark.parametrize("seed", [0])
def test_ranking_metrics(spark, seed):
    from pyspark.mllib.evaluation import RankingMetrics

    rankings = _rankings(seed)
    got = _skrank(rankings)
    rm = RankingMetrics(spark.sparkContext.parallelize(rankings, 2))
    want = {"ap": rm.meanAveragePrecision}
    for k in K:
        want.update({f"p@{k}": rm.precisionAt(k), f"r@{k}": rm.recallAt(k),
                     f"ap@{k}": rm.meanAveragePrecisionAt(k), f"ndcg@{k}": rm.ndcgAt(k)})
    for name, value in want.items():
        assert got[name].value == pytest.approx(value, rel=1e-12, abs=1e-15), name
    assert got["ap"].n_empty == sum(not t for _, t in rankings)


def test_ranking_evaluator(spark):
    # pyspark.ml's RankingEvaluator: arrays of doubles, binary, built on RankingMetrics
    from pyspark.ml.evaluation import RankingEvaluator

    rankings = _rankings(2, n_queries=40)
    got = _skrank(rankings)
    df = spark.createDataFrame([([float(p) for p in pred], [float(t) for t in truth])
                                for pred, truth in rankings],
                               "prediction array<double>, label array<double>")
    names = {"meanAveragePrecision": "ap", "meanAveragePrecisionAtK": "ap@{k}",
             "precisionAtK": "p@{k}", "ndcgAtK": "ndcg@{k}", "recallAtK": "r@{k}"}
    for metric_name, ours in names.items():
        for k in (3, 10):
            value = RankingEvaluator(metricName=metric_name, k=k).evaluate(df)
            assert got[ours.format(k=k)].value == pytest.approx(value, rel=1e-12), metric_name


def test_relevance_values_are_ignored_by_pyspark(spark):
    # pyspark 4.3 takes (prediction, labels, relevance) triples but its NDCG stays binary:
    # the preset's gain is binary (labels 1..31 are all relevant, with gain 1)
    from pyspark.mllib.evaluation import RankingMetrics

    sc = spark.sparkContext
    binary = RankingMetrics(sc.parallelize([([1, 2, 3], [2, 3])])).ndcgAt(3)
    graded = RankingMetrics(sc.parallelize([([1, 2, 3], [2, 3], [3.0, 1.0])])).ndcgAt(3)
    assert graded == binary
    ours = skrank.ndcg([0, 3, 1], [3, 2, 1], [0, 0, 0], k=3, preset="spark")
    assert ours.value == pytest.approx(binary, rel=1e-15)
    dcg, idcg = 1 / math.log(3) + 1 / math.log(4), 1 / math.log(2) + 1 / math.log(3)
    assert binary == dcg / idcg


def test_repeated_predictions_count_again_in_spark_and_are_refused_here(spark):
    # the documented warning: prediction [2, 2, 2] with truth [2]
    from pyspark.mllib.evaluation import RankingMetrics

    rm = RankingMetrics(spark.sparkContext.parallelize([([2, 2, 2], [2])]))
    assert rm.meanAveragePrecision == 3.0
    assert rm.precisionAt(3) == 1.0
    assert rm.recallAt(3) == 3.0
    assert round(rm.ndcgAt(3), 4) == 2.1309
    with pytest.raises(skrank.InputError, match=r"must not repeat a document within a query\. "
                                                r"Got 2 twice in query 0 \(again at row 1\)\."):
        skrank.evaluate([1, 1, 1], [3.0, 2.0, 1.0], [0, 0, 0], doc_id=[2, 2, 2],
                        metrics=["ap"], preset="spark")


def test_the_preset_states_its_conventions():
    conv = skrank.conventions.resolve_conventions("spark")
    assert conv.describe(["ties", "empty", "ap_denominator", "p_divisor", "idcg"]) == \
        "ties=input, empty=zero, ap_denominator=min_k, p_divisor=k, idcg=pool"
    assert conv.gain == (0.0,) + (1.0,) * 31


def test_the_worked_example_of_the_docs(spark):
    # docs/scaling.rst: prediction [7, 3, 9, 1], truth {3, 1, 5}
    from pyspark.mllib.evaluation import RankingMetrics

    rm = RankingMetrics(spark.sparkContext.parallelize([([7, 3, 9, 1], [3, 1, 5])]))
    spark_values = [rm.precisionAt(3), rm.recallAt(3), rm.meanAveragePrecision,
                    rm.meanAveragePrecisionAt(3), rm.ndcgAt(3)]
    assert [round(v, 4) for v in spark_values] == [0.3333, 0.3333, 0.3333, 0.1667, 0.2961]
    ours = _skrank([([7, 3, 9, 1], [3, 1, 5])])
    for name, value in zip(["p@3", "r@3", "ap", "ap@3", "ndcg@3"], spark_values):
        assert ours[name].value == pytest.approx(value, rel=1e-12)
