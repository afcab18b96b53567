"""Random ranking data for the Dask and Spark tests, and the check that a distributed result is
the one ``skrank.evaluate`` gives on the collected rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

import skrank

# every metric kind, with and without a cutoff; each set of conventions below routes them
# through the one-pass kernel or the general one
METRICS = ["ndcg@5", "ndcg", "dcg@3", "p@3", "r@5", "hit@2", "ap@5", "ap", "rr", "err@4"]

CONVENTIONS = {
    "default": {},
    "tie_bounds": dict(tie_bounds=True, empty="zero"),
    "lightgbm": dict(preset="lightgbm"),
    "xgboost": dict(preset="xgboost"),
    "sklearn": dict(preset="sklearn"),
    "trec_eval": dict(preset="trec_eval"),  # ties by doc id, the pool with retrieved=False
    "spark": dict(preset="spark"),
    "one": dict(empty="one", gain="linear", ties="optimistic", ap_denominator="found"),
}
# which optional columns a set of conventions uses
WITH_DOCS = {"trec_eval", "spark"}


def random_frame(seed: int, n_queries: int = 40, max_size: int = 30, *, str_qid=False,
                 weights=True) -> pd.DataFrame:
    """Rows of ``n_queries`` queries with many tied scores, some queries without relevant
    documents, document ids and weights, in a random order of rows (so that partitions made
    by row hold pieces of many queries)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, n_queries)
    qid = np.repeat(rng.choice(10 * n_queries, n_queries, replace=False), sizes)
    n = qid.shape[0]
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.5)
    y[np.isin(qid, qid[rng.integers(0, n, 3)])] = 0  # a few empty queries
    frame = pd.DataFrame({
        "qid": qid.astype(str) if str_qid else qid,
        "y_true": y,
        "y_score": rng.integers(0, 6, n) / 5.0,  # ties
        "doc": rng.permutation(n),  # distinct
        "retrieved": rng.random(n) < 0.9,
    })
    if weights:
        frame["w"] = np.repeat(rng.uniform(0.5, 2.0, n_queries), sizes)
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def column_kwargs(name: str, weights: bool = True) -> dict:
    """The column names a distributed evaluate takes for a set of conventions."""
    kw = {}
    if name in WITH_DOCS:
        kw["doc_id"] = "doc"
    if name == "trec_eval":
        kw["retrieved"] = "retrieved"
    if weights and name not in ("trec_eval", "spark"):
        kw["sample_weight"] = "w"
    return kw


def engine_result(evaluate, data, name: str, weights: bool = True, metrics=METRICS, **kw):
    """An engine's ``evaluate`` (``skrank.dask.evaluate``, ``skrank.spark.evaluate``) on the
    rows of :func:`random_frame` under a set of conventions."""
    return evaluate(data, metrics=metrics, **column_kwargs(name, weights), **CONVENTIONS[name],
                    **kw)


def reference(frame: pd.DataFrame, name: str, metrics=METRICS, weights: bool = True):
    """``skrank.evaluate`` on the collected rows, with the same columns."""
    kw = column_kwargs(name, weights)
    arrays = {k: frame[v].to_numpy() for k, v in kw.items()}
    return skrank.evaluate(frame["y_true"].to_numpy(), frame["y_score"].to_numpy(),
                           frame["qid"].to_numpy(), metrics=metrics, **arrays,
                           **CONVENTIONS[name])


def assert_same_result(got: skrank.EvaluationResult, want: skrank.EvaluationResult) -> None:
    """Everything a result carries is equal: query order, per-query values bit for bit,
    means, counts, tie ranges, conventions, the printed text."""
    assert got.metrics == want.metrics
    assert got.conventions == want.conventions
    assert got.qids.dtype == want.qids.dtype
    assert np.array_equal(got.qids, want.qids)
    for m in want.metrics:
        a, b = got[m], want[m]
        assert np.array_equal(a.per_query, b.per_query, equal_nan=True), m
        assert a.per_query.tobytes() == b.per_query.tobytes(), m  # bit for bit
        assert a.value == b.value or (np.isnan(a.value) and np.isnan(b.value)), m
        assert (a.n_queries, a.n_empty, a.n_tie_affected, a.weighted) == \
            (b.n_queries, b.n_empty, b.n_tie_affected, b.weighted), m
        assert a.tie_interval == b.tie_interval, m
        assert a.conventions == b.conventions, m
    assert str(got) == str(want)
