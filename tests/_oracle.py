"""Slow, obviously correct reference implementations of every metric, one query at a time.

Written from the definitions (the seed's table and the conventions page), with Python loops
and no shared code with the kernels. ``ties="average"`` enumerates every order of the tied
documents, so keep tie groups small.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np


def gain(label, conv):
    if conv.gain == "exp":
        return 2.0**label - 1.0
    if conv.gain == "linear":
        return float(label)
    return conv.gain[int(label)]


def ranked_order(labels, scores, ties, docids=None):
    """Row indices best first under an exact tie rule."""
    idx = list(range(len(labels)))
    if ties == "pessimistic":
        key = lambda i: (-scores[i], labels[i], i)  # noqa: E731
    elif ties == "optimistic":
        key = lambda i: (-scores[i], -labels[i], i)  # noqa: E731
    elif ties == "input":
        key = lambda i: (-scores[i], i)  # noqa: E731
    elif ties == "docid":
        # document id descending: sort ascending by the negated position in sorted ids
        order = sorted(idx, key=lambda i: docids[i], reverse=True)
        pos = {i: p for p, i in enumerate(order)}
        key = lambda i: (-scores[i], pos[i])  # noqa: E731
    else:
        raise ValueError(ties)
    return sorted(idx, key=key)


def all_tie_orders(scores):
    """Every order of the rows consistent with the scores (ties permuted)."""
    values = sorted(set(scores), reverse=True)
    groups = [[i for i in range(len(scores)) if scores[i] == v] for v in values]
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for g in perm for i in g]


def metric_on_order(name, k, ranked_labels, pool_labels, conv, max_label):
    """The metric of one ranked list of labels; pool_labels feed IDCG and R."""
    n = len(ranked_labels)
    kk = n if k is None else min(k, n)
    top = ranked_labels[:kk]
    rel = [lab >= conv.rel_min for lab in top]
    n_rel = sum(lab >= conv.rel_min for lab in pool_labels)
    if name in ("dcg", "ndcg"):
        d = sum(gain(lab, conv) / math.log2(i + 2) for i, lab in enumerate(top))
        if name == "dcg":
            return d
        ideal = sorted((gain(lab, conv) for lab in pool_labels), reverse=True)
        ideal = ideal[: (len(ideal) if k is None else k)]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        return d / idcg if idcg > 0 else 0.0
    if name == "p":
        div = (n if k is None else k)
        if conv.p_divisor == "min_k_n":
            div = min(div, n)
        return sum(rel) / div if div else 0.0
    if name == "r":
        return sum(rel) / n_rel if n_rel else 0.0
    if name == "hit":
        return 1.0 if any(rel) else 0.0
    if name == "rr":
        for i, r in enumerate(rel):
            if r:
                return 1.0 / (i + 1)
        return 0.0
    if name == "ap":
        hits, total = 0, 0.0
        for i, r in enumerate(rel):
            if r:
                hits += 1
                total += hits / (i + 1)
        # min_k: min(R, k) with k the cutoff (not the rows retrieved; R under idcg="pool"
        # counts judged rows the run missed), R without a cutoff (docs/conventions.rst)
        min_k = n_rel if k is None else min(n_rel, k)
        den = {"all": n_rel, "min_k": min_k, "found": hits}[conv.ap_denominator]
        return total / den if den else 0.0
    if name == "err":
        value, reach = 0.0, 1.0
        for i, lab in enumerate(top):
            stop = (2.0**lab - 1) / 2.0**max_label if lab >= conv.rel_min else 0.0
            value += reach * stop / (i + 1)
            reach *= 1 - stop
        return value
    raise ValueError(name)


def oracle_query(name, k, labels, scores, conv, docids=None, retrieved=None, max_label=None):
    """Per-query value and emptiness of metric ``name@k`` under ``conv``."""
    labels = [float(x) for x in labels]
    scores = [float(x) for x in scores]
    if retrieved is None:
        retrieved = [True] * len(labels)
    keep = [i for i in range(len(labels)) if retrieved[i]]
    r_labels = [labels[i] for i in keep]
    r_scores = [scores[i] for i in keep]
    r_docids = None if docids is None else [docids[i] for i in keep]
    pool = labels if conv.idcg == "pool" else r_labels
    if max_label is None:
        max_label = max(labels)
    if k is None and conv.default_k is not None:
        k = conv.default_k
    if name in ("dcg", "ndcg"):
        empty = not any(gain(lab, conv) > 0 for lab in pool)
    else:
        empty = not any(lab >= conv.rel_min for lab in pool)
    if conv.ties == "average":
        values = [
            metric_on_order(name, k, [r_labels[i] for i in order], pool, conv, max_label)
            for order in all_tie_orders(r_scores)
        ]
        value = float(sum(Fraction(v) for v in values) / len(values))
    else:
        order = ranked_order(r_labels, r_scores, conv.ties, r_docids)
        value = metric_on_order(name, k, [r_labels[i] for i in order], pool, conv, max_label)
    return value, empty


def oracle_mean(values, empties, empty_rule, weights=None):
    num = den = 0.0
    for q, (v, e) in enumerate(zip(values, empties)):
        if e:
            if empty_rule == "exclude":
                continue
            v = 0.0 if empty_rule == "zero" else 1.0
        w = 1.0 if weights is None else weights[q]
        num += w * v
        den += w
    return num / den if den else float("nan")


def split_queries(qid):
    """Row indices of each query, queries in order of first appearance."""
    qid = np.asarray(qid)
    seen: dict = {}
    for i, q in enumerate(qid.tolist()):
        seen.setdefault(q, []).append(i)
    return list(seen.keys()), list(seen.values())
