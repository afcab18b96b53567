"""Slow, obviously correct uplift metrics: Python loops over rows, no NumPy tricks.

Every curve point is recounted from scratch over the rows ranked before it.
"""

from __future__ import annotations

import itertools


def ranked_steps(scores, ties):
    """Steps of the ranking: lists of row indices, highest score first."""
    n = len(scores)
    if ties == "group":
        steps = []
        for i in sorted(range(n), key=lambda i: -scores[i]):
            if steps and scores[steps[-1][0]] == scores[i]:
                steps[-1].append(i)
            else:
                steps.append([i])
        return steps
    if ties == "input":
        order = sorted(range(n), key=lambda i: -scores[i])  # Python's sort is stable
    elif ties == "reverse":
        order = sorted(range(n), key=lambda i: (-scores[i], -i))
    else:
        raise ValueError(ties)
    return [[i] for i in order]


def counts(rows, y, t):
    nt = sum(1 for i in rows if t[i] == 1)
    nc = sum(1 for i in rows if t[i] == 0)
    yt = sum(y[i] for i in rows if t[i] == 1)
    yc = sum(y[i] for i in rows if t[i] == 0)
    return nt, yt, nc, yc


def curve(y, scores, t, kind, ties="group", empty_group="zero"):
    """``(x, values)`` of the uplift or Qini curve, the origin first."""
    xs, values, defined = [0.0], [0.0], [True]
    taken = []
    for step in ranked_steps(scores, ties):
        taken = taken + step
        nt, yt, nc, yc = counts(taken, y, t)
        x = len(taken)
        rate_t = yt / nt if nt else None
        rate_c = yc / nc if nc else None
        if kind == "uplift":
            ok = rate_t is not None and rate_c is not None
            if empty_group == "zero":
                value = ((rate_t or 0.0) - (rate_c or 0.0)) * x
            else:
                value = (rate_t - rate_c) if ok else None  # the mean uplift, filled below
        else:
            ok = nc > 0
            if empty_group == "zero":
                value = yt - (yc * nt / nc if nc else 0.0)
            else:
                value = yt - yc * nt / nc if ok else None
        xs.append(float(x))
        values.append(value)
        defined.append(ok)
    if empty_group == "interpolate":
        first = next(i for i in range(1, len(xs)) if defined[i])
        for i in range(1, first):
            values[i] = values[first] * xs[i] / xs[first]
        if kind == "uplift":
            values = [v * x for v, x in zip(values, xs)]
    return xs, values


def perfect_uplift_scores(y, t):
    control_responders = sum(1 for a, b in zip(y, t) if a == 1 and b == 0)
    treated_non_responders = sum(1 for a, b in zip(y, t) if a == 0 and b == 1)
    use_y = control_responders > treated_non_responders
    return [2 * (a == b) + (a if use_y else b) for a, b in zip(y, t)]


def perfect_qini_scores(y, t):
    return [a if b == 1 else -a for a, b in zip(y, t)]


def trapezoid(xs, values):
    n = xs[-1]
    total = 0.0
    for i in range(1, len(xs)):
        total += (xs[i] - xs[i - 1]) / n * (values[i] + values[i - 1]) / 2
    return total


def value_at(xs, values, x):
    for i in range(1, len(xs)):
        if xs[i - 1] <= x <= xs[i]:
            if xs[i] == xs[i - 1]:
                return values[i]
            w = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
            return values[i - 1] + w * (values[i] - values[i - 1])
    raise ValueError(x)


def points(xs, values):
    n = int(xs[-1])
    return sum(value_at(xs, values, m) for m in range(n + 1)) / (n + 1)


def auc(y, scores, t, kind, ties="group", empty_group="zero", normalize="perfect",
        baseline="random", area="trapezoid"):
    measure = trapezoid if area == "trapezoid" else points
    xs, values = curve(y, scores, t, kind, ties, empty_group)
    if normalize == "last":
        values = [v / abs(values[-1]) for v in values]
    base = values[-1] / 2 if baseline == "random" else 0.0
    score = measure(xs, values) - base
    if normalize == "perfect":
        best_scores = perfect_uplift_scores(y, t) if kind == "uplift" else perfect_qini_scores(y, t)
        pxs, pvalues = curve(y, best_scores, t, kind, ties, empty_group)
        pbase = pvalues[-1] / 2 if baseline == "random" else 0.0
        score /= measure(pxs, pvalues) - pbase
    return score


def uplift_at_k(y, scores, t, strategy, size, ties):
    """Treated minus control response rate in the top ``size`` rows (of each group for
    "by_group"); under ties="group" the counts are averaged over every order of the tied
    rows."""
    steps = ranked_steps(scores, ties)
    if ties == "group":
        orders = [list(itertools.chain.from_iterable(p))
                  for p in itertools.product(*[itertools.permutations(s) for s in steps])]
    else:
        orders = [[s[0] for s in steps]]
    sums = [0.0, 0.0, 0.0, 0.0]
    for order in orders:
        if strategy == "overall":
            got = counts(order[:size], y, t)
        else:
            treated = [i for i in order if t[i] == 1][: size[0]]
            control = [i for i in order if t[i] == 0][: size[1]]
            got = counts(treated + control, y, t)
        sums = [a + b for a, b in zip(sums, got)]
    nt, yt, nc, yc = (v / len(orders) for v in sums)
    return yt / nt - yc / nc
