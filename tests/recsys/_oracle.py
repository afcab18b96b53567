"""Slow, obviously correct loops for skrank.recsys: one user at a time, full sorts."""

from __future__ import annotations

import math


def top_k(rows: list[dict[int, float]], k: int, seen: list[set[int]], ties: str):
    """Per user: candidates are the dict's items less the seen ones, sorted by score
    descending, then column ascending ("input") or descending ("docid")."""
    out = []
    for cand, s in zip(rows, seen):
        items = [(v, i) for i, v in cand.items() if i not in s]
        sign = 1 if ties == "input" else -1
        items.sort(key=lambda t: (-t[0], sign * t[1]))
        out.append([i for _, i in items[:k]])
    return out


def recall_ndcg_hit(lists: dict, test: dict, k: int):
    """Recall@k, binary NDCG@k (exp gain of 1 = 1) and hit@k averaged over users in test."""
    rec, ndcg, hit = [], [], []
    for u, rel in test.items():
        lst = lists.get(u, [])[:k]
        found = [i in rel for i in lst]
        rec.append(sum(found) / len(rel))
        hit.append(float(any(found)))
        dcg = sum(1 / math.log2(r + 2) for r, f in enumerate(found) if f)
        idcg = sum(1 / math.log2(r + 2) for r in range(min(k, len(rel))))
        ndcg.append(dcg / idcg)
    n = len(test)
    return sum(rec) / n, sum(ndcg) / n, sum(hit) / n
