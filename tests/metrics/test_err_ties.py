"""ERR under ``ties="average"``: the exact expectation over every order of tied rows, in
O(g log g) per tie group of g rows (issue 13: it was quadratic, 17.8 s CPU for 65,536 tied
rows).

The expectation is checked against exact rational arithmetic: every order enumerated on
small queries, and an independent formula (elementary symmetric polynomials of the
continuation probabilities) on tie groups of up to 60 rows. The kernel's arithmetic is a
recurrence of positive terms over the group (a few roundings per step) and a normalised
binomial per stopping probability, so its relative error grows at most linearly with the
group's size: the tolerance is ``4 g`` units of 2**-53 (measured: at most 8 units, the
quadratic code up to 7).
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction
from math import comb

import numpy as np
import pytest

import skrank

EPS = 2.0**-53


def _stop(label, max_label) -> Fraction:
    return Fraction(2 ** int(label) - 1, 2**max_label) if label >= 1 else Fraction(0)


def enumerated_err(y, s, k, max_label) -> Fraction:
    """The mean of ERR@k over every order of the tied rows, in rationals."""
    n = len(y)
    groups = [[i for i in range(n) if s[i] == v] for v in sorted(set(s), reverse=True)]
    total, count = Fraction(0), 0
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for p in perms for i in p]
        value, reach = Fraction(0), Fraction(1)
        for pos, i in enumerate(order[: k or n]):
            r = _stop(y[i], max_label)
            value += reach * r / (pos + 1)
            reach *= 1 - r
        total += value
        count += 1
    return total / count


def group_err(stops, slots, start) -> Fraction:
    """Expected ERR terms of one tie group in random order: sum over places t < slots of
    (A_t - A_{t+1}) / (start + t + 1), A_t the mean over t-subsets of prod(1 - R)."""
    g = len(stops)
    e = [Fraction(1)] + [Fraction(0)] * g
    for r in stops:
        for t in range(g, 0, -1):
            e[t] += e[t - 1] * (1 - r)
    a = [e[t] / comb(g, t) for t in range(g + 1)]
    return sum((a[t] - a[t + 1]) / (start + t + 1) for t in range(min(slots, g)))


def _err(y, s, k, **conv) -> float:
    m = f"err@{k}" if k else "err"
    return skrank.evaluate(y, s, np.zeros(len(y)), metrics=[m], ties="average",
                           **conv)[m].value


@pytest.mark.parametrize("seed", range(40))
def test_equals_the_mean_over_every_order(seed):
    rng = np.random.default_rng(seed)
    for _ in range(5):
        n = int(rng.integers(2, 8))
        y = rng.integers(0, 5, n)
        y[0] = max(y[0], 1)
        s = rng.integers(0, 3, n).astype(float)
        k = int(rng.choice([0, 1, 2, 3, 5]))
        exact = enumerated_err(y.tolist(), s.tolist(), k, int(y.max()))
        assert float(abs(Fraction(_err(y, s, k)) - exact)) <= 4 * n * EPS * float(exact)


@pytest.mark.parametrize("seed", range(20))
def test_large_tie_groups_equal_the_exact_expectation(seed):
    rng = np.random.default_rng(1000 + seed)
    g = int(rng.integers(2, 61))
    n_before = int(rng.integers(0, 4))
    y = rng.integers(0, int(rng.integers(2, 7)), n_before + g)
    y[0] = max(y[0], 1)
    s = np.concatenate([10.0 + np.arange(n_before)[::-1], np.ones(g)])
    k = int(rng.choice([0, 3, 10, 30]))
    max_label = int(y.max())
    cut = k or n_before + g
    value, reach = Fraction(0), Fraction(1)
    for pos in range(n_before):
        r = _stop(y[pos], max_label)
        if pos < cut:
            value += reach * r / (pos + 1)
        reach *= 1 - r
    if n_before < cut:
        value += reach * group_err([_stop(v, max_label) for v in y[n_before:]],
                                   cut - n_before, n_before)
    assert float(abs(Fraction(_err(y, s, k)) - value)) <= 4 * g * EPS * float(value)


def test_fractional_labels_and_one_kernel_for_both_paths():
    # fractional labels: as many stopping probabilities as rows (one binomial each)
    rng = np.random.default_rng(5)
    y = np.round(rng.random(7) * 3, 2)
    s = np.array([2.0, 1, 1, 1, 1, 1, 0])
    exact = Fraction(0)
    orders = list(itertools.permutations(range(1, 6)))
    for mid in orders:
        value, reach = Fraction(0), Fraction(1)
        for pos, i in enumerate((0, *mid, 6)):
            r = (Fraction(2 ** float(y[i])) - 1) / 2**3 if y[i] >= 1 else Fraction(0)
            value += reach * r / (pos + 1)
            reach *= 1 - r
        exact += value / len(orders)
    got = _err(y, s, 0, max_label=3)
    # 2**label of a fractional label is rounded once in the kernel: a few units more
    assert abs(got - float(exact)) <= 64 * EPS * float(exact)


def test_tiny_stopping_probabilities_are_not_dropped():
    # one relevant row among three tied, stopping probability 2**-1000: the rows that would
    # stop the user are almost surely none, yet their tiny probability is the whole value
    exact = Fraction(1, 2**1000) * (1 + Fraction(1, 2) + Fraction(1, 3)) / 3
    got = _err([1, 0, 0], [1.0, 1.0, 1.0], 0, max_label=1000)
    assert got == pytest.approx(float(exact), rel=1e-15)


def test_untied_rows_keep_their_bits():
    # rows tied with no other take the former arithmetic: the values of the quadratic code
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, 60)
    s = rng.permutation(60).astype(float)
    qid = np.repeat(np.arange(6), 10)
    before = {
        "err": [0.9496726671854655, 0.32734379544854164, 0.6370942799231021,
                0.9549160945848598, 0.957796968164898, 0.6206611057776692],
        "err@5": [0.94140625, 0.3083381652832031, 0.6352659225463867, 0.9532251358032227,
                  0.957763671875, 0.6115560531616211],
    }
    for m, values in before.items():
        got = skrank.evaluate(y, s, qid, metrics=[m], ties="average")[m].per_query
        assert got.tolist() == values


def test_one_large_tie_group_is_fast():
    # 65,536 tied rows: 17.8 s of CPU before (quadratic), 0.03 s now
    rng = np.random.default_rng(0)
    n = 2**16
    y = rng.integers(0, 5, n)
    t = time.process_time()
    value = _err(y, np.zeros(n), 0)
    assert time.process_time() - t < 3.0
    assert value == pytest.approx(0.5406366976298732, rel=1e-13)  # the quadratic code's
