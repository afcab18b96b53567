"""Slow, obviously correct loops over the definitions, for the exposure tests.

Expected exposure (Diaz et al. 2020, section 4): a document's exposure in one ranking under a
browsing model, averaged over the sampled rankings; its target exposure averaged over every
ranking of the ideal stochastic ranking (grade order, equal grades in every order), found here
by enumerating those rankings. Group exposure (Singh & Joachims 2018, sections 3-4): sums over
the marginal matrix, group by group, document by document.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def position_exposures(ranking, grade, model, p, u):
    """Exposure of each document of one ranking, by walking down it."""
    out, relevant_above = {}, 0
    for i, d in enumerate(ranking):
        out[d] = p ** i * ((1 - u) ** relevant_above if model == "gerr" else 1.0)
        if grade.get(d, 0) > 0:
            relevant_above += 1
    return out


def ideal_rankings(grade):
    """Every ranking of the ideal stochastic ranking: by grade, each tie group permuted."""
    levels = sorted(set(grade.values()), reverse=True)
    blocks = [[d for d in sorted(grade) if grade[d] == g] for g in levels]
    for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [d for part in parts for d in part]


def expected_exposure_raw(judged, samples, model, p, u, binary=False, complete=False):
    """Raw (EE-D, EE-R, EE-L) of one query, and the target and run exposures ({doc: e}).

    ``judged``: {doc: grade}; ``samples``: list of rankings (lists of docs).
    """
    kept = {d: g for d, g in judged.items() if complete or g > 0}
    shown = {d: (1 if g > 0 else 0) if binary else g for d, g in kept.items()}
    # the cascade stops on any relevant document, whatever its grade
    stops = {d: g for d, g in judged.items() if g > 0}
    target = dict.fromkeys(kept, 0.0)
    ideal = list(ideal_rankings(shown))
    for ranking in ideal:
        for d, e in position_exposures(ranking, stops, model, p, u).items():
            target[d] += e / len(ideal)
    run = {}
    for ranking in samples:
        for d, e in position_exposures(ranking, stops, model, p, u).items():
            run[d] = run.get(d, 0.0) + e / len(samples)
    docs = set(target) | set(run)
    disparity = sum(e * e for e in run.values())
    relevance = sum(target.get(d, 0.0) * run.get(d, 0.0) for d in docs)
    loss = sum((target.get(d, 0.0) - run.get(d, 0.0)) ** 2 for d in docs)
    return disparity, relevance, loss, target, run


def group_measures(merit, group, P, v, first, compare="ratio"):
    """Singh & Joachims' three measures for one query, from the marginal matrix ``P``."""
    n = len(merit)
    exposure = [sum(P[i][j] * v[j] for j in range(len(v))) for i in range(n)]
    stats = {}
    for g in set(group):
        members = [i for i in range(n) if group[i] == g]
        exp_g = sum(exposure[i] for i in members) / len(members)
        u_g = sum(merit[i] for i in members) / len(members)
        ctr_g = sum(merit[i] * exposure[i] for i in members) / len(members)
        stats[g] = (exp_g, u_g, ctr_g)
    second = next(g for g in stats if g != first)
    a, b = stats[first], stats[second]

    def cmp(x, y):
        return x / y if compare == "ratio" else x - y

    return (cmp(a[0], b[0]), cmp(a[0] / a[1], b[0] / b[1]), cmp(a[2] / a[1], b[2] / b[1]))


def plackett_luce_marginals(weights):
    """Exact marginal matrix of a Plackett-Luce policy, by enumerating every ranking."""
    n = len(weights)
    P = np.zeros((n, n))
    for perm in itertools.permutations(range(n)):
        prob, left = 1.0, float(sum(weights))
        for i in perm:
            prob *= weights[i] / left
            left -= weights[i]
        for pos, i in enumerate(perm):
            P[i, pos] += prob
    return P


def log_bias(n):
    return [1 / math.log2(2 + j) for j in range(n)]
