"""One seeded synthetic ranking data set, shared by every benchmark and every tool.

The data imitate the output of a gradient-boosted ranker on a graded test set:

* about 100 documents per query (sizes drawn uniformly in 50..150, then adjusted so that the
  total is exactly ``n_rows``), queries contiguous with integer ids 0..n_queries-1;
* graded labels 0..4, most documents irrelevant (probabilities 0.50, 0.25, 0.13, 0.08, 0.04);
* scores ``sigmoid(0.6 * label + N(0, 1))`` rounded to 3 decimals, so that scores carry ties,
  as the leaf-sum scores of a tree ensemble do (the share of queries with a tie inside their top
  10 is printed by :func:`describe`).

Every tool gets the same rows; the converters below only change the container.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SEED = 20240601
LABEL_P = (0.50, 0.25, 0.13, 0.08, 0.04)


@dataclass(frozen=True)
class RankingData:
    """Flat ranking data: one row per (query, document)."""

    y_true: np.ndarray  # int64 labels 0..4
    y_score: np.ndarray  # float64 scores, rounded to 3 decimals (ties present)
    qid: np.ndarray  # int64 query id per row, contiguous
    sizes: np.ndarray  # int64 documents per query
    offsets: np.ndarray  # int64, query q is rows offsets[q]:offsets[q + 1]

    @property
    def n_rows(self) -> int:
        return int(self.y_true.shape[0])

    @property
    def n_queries(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def input_bytes(self) -> int:
        """Bytes of the three arrays a user hands to ``skrank.evaluate``."""
        return int(self.y_true.nbytes + self.y_score.nbytes + self.qid.nbytes)

    def position(self) -> np.ndarray:
        """Position of every row inside its query (0, 1, ..., size - 1)."""
        starts = np.repeat(self.offsets[:-1], self.sizes)
        return np.arange(self.n_rows, dtype=np.int64) - starts


def make_data(n_rows: int, docs_per_query: int = 100, seed: int = SEED) -> RankingData:
    """Build the benchmark data set with ``n_rows`` rows (deterministic for a given seed)."""
    rng = np.random.default_rng(seed)
    n_queries = max(1, n_rows // docs_per_query)
    half = docs_per_query // 2
    sizes = rng.integers(docs_per_query - half, docs_per_query + half + 1, size=n_queries)
    diff = n_rows - int(sizes.sum())
    sizes += diff // n_queries
    sizes[: diff % n_queries] += 1
    sizes = sizes.astype(np.int64)
    assert int(sizes.sum()) == n_rows and int(sizes.min()) >= 1
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    y_true = rng.choice(len(LABEL_P), size=n_rows, p=LABEL_P).astype(np.int64)
    latent = rng.standard_normal(n_rows)
    latent += 0.6 * y_true
    y_score = np.round(1.0 / (1.0 + np.exp(-latent)), 3)
    del latent
    return RankingData(y_true=y_true, y_score=y_score, qid=qid, sizes=sizes, offsets=offsets)


def describe(data: RankingData) -> dict:
    """Share of queries with tied scores anywhere, and inside their top 10."""
    order = np.lexsort((-data.y_score, data.qid))  # by query, score descending
    s = data.y_score[order]
    same = np.zeros(data.n_rows, dtype=bool)
    same[1:] = s[1:] == s[:-1]
    pos = data.position()  # rows are contiguous, so positions follow the sorted order too
    same[pos == 0] = False  # a query's first row ties with nothing before it
    qidx = np.repeat(np.arange(data.n_queries), data.sizes)
    any_tie = np.bincount(qidx[same], minlength=data.n_queries) > 0
    # a tie that touches the top 10: the 10th row (or earlier) equals its predecessor, or the
    # 11th equals the 10th
    top_tie = np.bincount(qidx[same & (pos <= 10)], minlength=data.n_queries) > 0
    return {
        "rows": data.n_rows,
        "queries": data.n_queries,
        "docs_per_query": float(data.sizes.mean()),
        "size_range": (int(data.sizes.min()), int(data.sizes.max())),
        "distinct_scores": int(np.unique(data.y_score).shape[0]),
        "queries_with_ties": float(any_tie.mean()),
        "queries_with_ties_in_top10": float(top_tie.mean()),
        "input_mb": data.input_bytes / 2**20,
    }


# --- containers of the peers (built outside the timed region unless a benchmark says so) ---


def doc_names(max_size: int) -> np.ndarray:
    """String document ids ``d0, d1, ...`` shared by every query (object array)."""
    return np.array([f"d{i}" for i in range(max_size)], dtype=object)


def query_names(n_queries: int) -> np.ndarray:
    """String query ids ``q0, q1, ...`` (object array)."""
    return np.array([f"q{i}" for i in range(n_queries)], dtype=object)


def to_frames(data: RankingData):
    """ranx's input: a qrels and a run DataFrame with object (str) id columns."""
    import pandas as pd

    pos = data.position()
    docs = doc_names(int(data.sizes.max()))[pos]
    queries = query_names(data.n_queries)[data.qid]
    q_col = pd.Series(queries, dtype=object, copy=False)
    d_col = pd.Series(docs, dtype=object, copy=False)
    qrels = pd.DataFrame({"q_id": q_col, "doc_id": d_col, "score": data.y_true})
    run = pd.DataFrame({"q_id": q_col, "doc_id": d_col, "score": data.y_score})
    return qrels, run


def to_dense(data: RankingData, fill_score: float | None = None):
    """scikit-learn's input: (n_queries, max_size) label and score matrices.

    Padding cells get label 0 and a score below every real score, so they rank last and add
    nothing to DCG or ideal DCG.
    """
    width = int(data.sizes.max())
    if fill_score is None:
        fill_score = float(data.y_score.min()) - 1.0
    qidx = np.repeat(np.arange(data.n_queries), data.sizes)
    pos = data.position()
    y = np.zeros((data.n_queries, width), dtype=np.float64)
    s = np.full((data.n_queries, width), fill_score, dtype=np.float64)
    y[qidx, pos] = data.y_true
    s[qidx, pos] = data.y_score
    return y, s
