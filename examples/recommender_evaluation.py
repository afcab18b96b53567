"""Evaluate two recommenders: accuracy with users as queries, then beyond accuracy.

No public interaction data set ships with an installed package here, so the bundled
LambdaRank example data (LightGBM's, MIT) is recast as users and items: each query is a user,
each of the 300 features an item, and a user has interacted with an item when the feature is
non-zero in one of the user's documents labelled 2 or more. A fifth of each user's items is
held out. Two recommenders score every item: popularity in training, and an item-kNN (cosine of
training co-occurrence). Both are evaluated with seen items excluded, under Recommenders' and
RecTools' definitions, and by popularity segment of the held-out items.

    .venv/bin/python examples/recommender_evaluation.py
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import skrank.recsys as rs
from skrank.datasets import load_lambdarank_example
from skrank.segments import by_column, segment_table


def interactions() -> tuple[np.ndarray, np.ndarray]:
    data = load_lambdarank_example()
    relevant = np.asarray(data.y_train) >= 2
    _, user = np.unique(data.qid_train, return_inverse=True)
    rows, items = np.nonzero(np.asarray(data.X_train)[relevant] != 0)
    key = np.unique(user[relevant][rows] * 1000 + items)
    return key // 1000, key % 1000


def main() -> None:
    users, items = interactions()
    rng = np.random.default_rng(0)
    held = rng.random(users.size) < 0.2
    train, test = (users[~held], items[~held]), (users[held], items[held])
    n_users, n_items = users.max() + 1, 300
    x = sp.csr_matrix((np.ones(train[0].size), train), shape=(n_users, n_items))
    print(f"{n_users} users, {np.unique(items).size} items, {train[0].size:,} training and "
          f"{test[0].size:,} held-out interactions")

    popularity = np.tile(np.asarray(x.sum(axis=0)).ravel(), (n_users, 1))
    co = (x.T @ x).toarray()
    norm = np.sqrt(np.diag(co))
    cosine = co / np.maximum(np.outer(norm, norm), 1e-12)
    np.fill_diagonal(cosine, 0.0)
    knn = np.asarray(x @ cosine)

    catalog = np.arange(n_items)
    segments = rs.popularity_segments(train, catalog=catalog)
    qids, labels = segments.user_labels(*test)
    by_popularity = by_column(qids, labels, name="popularity", order=segments.order)
    print(segments)

    lists = {}
    for name, scores in (("popularity", popularity), ("item-kNN", knn)):
        top = rs.top_k(scores, 10, exclude=train, ties="input")
        lists[name] = top
        res = rs.evaluate_top_k(top, *test, metrics=["ndcg@10", "recall@10", "hit@10"])
        print(f"\n== {name}: {top!r}")
        print(res)
        print(rs.catalog_coverage(top, train, preset="recommenders"))
        print(rs.catalog_coverage(top, catalog=catalog, preset="rectools"))
        print(rs.gini_index(top, catalog=catalog))
        print(rs.novelty(top, train, preset="recommenders"))
        print(rs.novelty(top, train, preset="rectools"))
        print(rs.intra_list_diversity(top, train, preset="recommenders"))
        print(rs.serendipity(top, train, test, preset="recommenders"))
        print(rs.serendipity(top, train, test, catalog=catalog, preset="rectools"))
        tail = segments.shares(top)["tail"].mean()
        print(f"share of tail items in the lists: {tail:.3f}")

    a = rs.evaluate_top_k(lists["item-kNN"], *test, metrics="ndcg@10")["ndcg@10"]
    b = rs.evaluate_top_k(lists["popularity"], *test, metrics="ndcg@10")["ndcg@10"]
    print()
    print(segment_table(a.per_query, b.per_query, by_popularity,
                        qids=rs.evaluate_top_k(lists["item-kNN"], *test).qids,
                        metric="ndcg@10", name_a="item-kNN", name_b="popularity", rng=0))


if __name__ == "__main__":
    main()
