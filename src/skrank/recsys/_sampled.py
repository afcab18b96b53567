"""Evaluation against sampled negatives, with the sampling explicit, and the correction from
sampled to exact metrics of Krichene & Rendle (KDD 2020, "On Sampled Metrics for Item
Recommendation").

Each held-out (user, item) pair is one query with one relevant item. Its exact rank is 1 plus
the number of the user's candidate negatives (items neither seen in training nor held out for
the user) that score above it; its sampled rank counts only ``n_negatives`` negatives drawn
from those candidates. A metric of one relevant item is a function of its rank, so the
sampled metric, the exact metric and the corrected metric are means over pairs of ``M(rank)``
and of a corrected table ``M~(sampled rank)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import (
    InstanceOf,
    Interval,
    Options,
    check_choice,
    check_int,
    check_real,
    param_error,
    validate_params,
)
from ..exceptions import InputError
from ._results import RecsysScore

__all__ = ["CORRECTIONS", "RANK_TIE_RULES", "SampledRanks", "sampled_ranks"]

#: How a negative with the same score as the relevant item counts: above it
#: (``"pessimistic"``) or below it (``"optimistic"``); names of
#: :data:`skrank.conventions.TIE_RULES`.
RANK_TIE_RULES = ("pessimistic", "optimistic")
#: Corrections from sampled to exact metrics: none (the sampled metric) or the bias-variance
#: trade-off with weight ``gamma`` (Krichene & Rendle 2020).
CORRECTIONS = ("none", "bias_variance")

_BLOCK_CELLS = 1 << 22
_METRIC = re.compile(r"^(hit|ndcg|recall|r|precision|p|ap|rr)(?:@(\d+))?$")


def _metric_table(name: str, ranks: np.ndarray, caller: str) -> np.ndarray:
    """``M(rank)`` of one relevant item for the metric ``name`` (``"ndcg@10"``, ``"rr"``...)."""
    m = _METRIC.match(name.lower()) if isinstance(name, str) else None
    if m is None:
        raise param_error("metric", "one of 'hit@k', 'ndcg@k', 'recall@k', 'precision@k', "
                          "'ap@k', 'rr' (one relevant item per query)", name, caller)
    kind, k = m.group(1), m.group(2)
    k = np.inf if k is None else int(k)
    if k == 0:
        raise param_error("metric", "a cutoff >= 1", name, caller)
    r = ranks.astype(np.float64)
    inside = r <= k
    if kind in ("hit", "recall", "r"):
        return inside.astype(np.float64)
    if kind in ("precision", "p"):
        if k == np.inf:
            raise param_error("metric", "precision with a cutoff ('precision@k')", name, caller)
        return inside / k
    if kind == "ndcg":
        return np.where(inside, 1.0 / np.log2(r + 1.0), 0.0)
    return np.where(inside, 1.0 / r, 0.0)  # ap and rr of one relevant item


def _rank_probabilities(n_neg: int, m: int, replace: bool) -> np.ndarray:
    """``P[R-1, r-1]``: probability that the sampled rank is ``r`` when the exact rank is ``R``
    (R = 1..n_neg+1, r = 1..m+1), for ``m`` negatives drawn from ``n_neg``."""
    from scipy import special, stats

    above = np.arange(n_neg + 1)[:, None]  # negatives above the relevant item: R - 1
    hits = np.arange(m + 1)[None, :]  # of them drawn: r - 1
    if replace:
        return stats.binom.pmf(hits, m, above / max(n_neg, 1))
    # hypergeometric, from log-binomials (scipy.stats.hypergeom is slow on a grid)
    below = n_neg - above
    ok = (hits <= above) & (m - hits <= below)

    def logc(n, k):
        return special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)

    with np.errstate(invalid="ignore"):
        logp = logc(above, hits) + logc(below, m - hits) - logc(n_neg, m)
    return np.where(ok, np.exp(np.where(ok, logp, 0.0)), 0.0)


def _correction_table(metric: str, n_neg: int, m: int, replace: bool, correction: str,
                      gamma: float, caller: str) -> np.ndarray:
    """``M~(r)`` for r = 1..m+1: the minimiser over ``x`` of
    ``sum_R (E[x(r) | R] - M(R))^2 + gamma Var[x(r) | R]`` over the exact ranks ``R`` =
    1..n_neg+1 weighted equally."""
    p = _rank_probabilities(n_neg, m, replace)
    exact = _metric_table(metric, np.arange(1, n_neg + 2), caller)
    g = gamma
    # the gradient of the objective vanishes at ((1 - g) P'P + g diag(P'1)) x = P'M
    a = (1.0 - g) * (p.T @ p) + g * np.diag(p.sum(axis=0))
    return np.linalg.lstsq(a, p.T @ exact, rcond=None)[0]


@dataclass(frozen=True, eq=False)
class SampledRanks:
    """Exact and sampled ranks of held-out items, with the sampling that produced them.

    Attributes
    ----------
    users, items : ndarray
        The held-out pairs, one per query.
    exact : ndarray of int64
        Rank of the item among all of the user's candidate negatives (1 = first).
    sampled : ndarray of int64
        Its rank among the sampled negatives.
    n_candidates : ndarray of int64
        The user's candidate negatives (items neither seen in training nor held out).
    n_negatives : int
        Negatives drawn per pair (fewer when the user has fewer candidates without
        replacement: then all are taken).
    seed : int
        Seed of ``numpy.random.default_rng``.
    replace : bool
        Whether negatives were drawn with replacement.
    ties : str
        How negatives with the relevant item's score count.
    """

    users: np.ndarray
    items: np.ndarray
    exact: np.ndarray
    sampled: np.ndarray
    n_candidates: np.ndarray
    n_negatives: int
    seed: int
    replace: bool
    ties: str
    _tables: dict = field(default_factory=dict, repr=False)

    def _conventions(self, correction: str | None = None, gamma: float | None = None):
        conv = {"n_negatives": str(self.n_negatives), "seed": str(self.seed),
                "replace": str(self.replace), "ties": self.ties}
        if correction is not None:
            conv["correction"] = correction
            if correction == "bias_variance":
                conv["gamma"] = f"{gamma:g}"
        return conv

    def _score(self, name: str, values: np.ndarray, conv: dict, detail: str = ""):
        return RecsysScore(name, float(values.mean()), conv, int(np.unique(self.users).size),
                           int(values.size), None, values, detail)

    def exact_metric(self, metric: str) -> RecsysScore:
        """The metric over every candidate: the mean of ``M(exact rank)``."""
        vals = _metric_table(metric, self.exact, "SampledRanks.exact_metric")
        return self._score(f"{metric} (exact)", vals, {"ties": self.ties})

    def sampled_metric(self, metric: str, *, correction: str = "none",
                       gamma: float = 0.1) -> RecsysScore:
        """The metric over the sampled negatives, raw or corrected towards the exact metric.

        Parameters
        ----------
        metric : str
            ``"hit@k"``, ``"ndcg@k"``, ``"recall@k"``, ``"precision@k"``, ``"ap@k"`` or
            ``"rr"``: with one relevant item per query, functions of its rank.
        correction : {"none", "bias_variance"}, default="none"
            ``"none"``: the mean of ``M(sampled rank)``. ``"bias_variance"``: the mean of the
            table ``M~(r)`` that minimises, summed over every exact rank ``R`` with equal
            weight, the squared bias ``(E[M~(r) | R] - M(R))^2`` plus ``gamma`` times the
            variance of ``M~(r)`` over the sampling (Krichene & Rendle 2020, section 5). The
            table is computed for each distinct number of candidates.
        gamma : float, default=0.1
            Weight of the variance, in (0, 1]. ``gamma=0`` is their minimal-bias estimator,
            an ill-posed least-squares problem whose solutions take values in the millions
            for 100 negatives out of 10,000: it is refused.
        """
        caller = "SampledRanks.sampled_metric"
        check_choice("correction", correction, CORRECTIONS, caller)
        g = check_real("gamma", gamma, caller=caller)
        if not 0.0 < g <= 1.0:
            raise param_error("gamma", "a float in (0, 1]", gamma, caller)
        if correction == "none":
            vals = _metric_table(metric, self.sampled, caller)
            return self._score(f"{metric} (sampled)", vals, self._conventions())
        vals = np.empty(self.sampled.size)
        m = self.n_negatives
        for n_c in np.unique(self.n_candidates):
            rows = self.n_candidates == n_c
            mm = min(m, int(n_c)) if not self.replace else m
            key = (metric, int(n_c), mm, correction, g)
            if key not in self._tables:
                self._tables[key] = _correction_table(metric, int(n_c), mm, self.replace,
                                                      correction, g, caller)
            vals[rows] = self._tables[key][self.sampled[rows] - 1]
        return self._score(f"{metric} (sampled, corrected)", vals,
                           self._conventions(correction, g),
                           f"{np.unique(self.n_candidates).size:,} correction tables")


@validate_params({"n_negatives": Interval(int, 1), "seed": Interval(int, 0),
                  "replace": InstanceOf(bool, "a bool"), "ties": Options(RANK_TIE_RULES)})
def sampled_ranks(
    scores: Any,
    test_users: Any,
    test_items: Any,
    *,
    n_negatives: int = 100,
    seed: int = 0,
    replace: bool = False,
    exclude: Any = None,
    ties: str = "pessimistic",
) -> SampledRanks:
    """Exact and sampled ranks of held-out items from a dense users x items score matrix.

    Parameters
    ----------
    scores : ndarray of shape (n_users, n_items)
        Scores of every item for every user.
    test_users, test_items : array-like of int, shape (n_test,)
        Held-out pairs as row and column indices; each is one query with one relevant item.
        A user's other held-out items are not negatives for it.
    n_negatives : int, default=100
        Negatives drawn per held-out pair from the user's candidates (items neither in
        ``exclude`` nor held out for the user).
    seed : int, default=0
        Seed of ``numpy.random.default_rng``; the draw is reproducible.
    replace : bool, default=False
        Draw with replacement (a negative may come twice) or without (at most all
        candidates).
    exclude : scipy.sparse matrix or (rows, columns) pair, optional
        Items seen in training: never negatives.
    ties : {"pessimistic", "optimistic"}, default="pessimistic"
        A negative with the relevant item's score ranks above it or below it.

    Returns
    -------
    SampledRanks

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import sampled_ranks
    >>> s = np.tile(-np.arange(1000.0), (2, 1))  # item j scores -j
    >>> r = sampled_ranks(s, [0, 1], [0, 40], n_negatives=100, seed=1)
    >>> r.exact.tolist()
    [1, 41]
    >>> float(r.exact_metric("hit@10")), float(r.sampled_metric("hit@10"))
    (0.5, 1.0)
    """
    from ._topk import _seen_matrix

    caller = "sampled_ranks"
    m = check_int("n_negatives", n_negatives, min_value=1, caller=caller)
    seed = check_int("seed", seed, min_value=0, caller=caller)
    if not isinstance(replace, bool):
        raise param_error("replace", "a bool", replace, caller)
    check_choice("ties", ties, RANK_TIE_RULES, caller)
    s = np.asarray(scores)
    if s.ndim != 2 or s.dtype.kind not in "iuf":
        raise param_error("scores", "a dense 2-d real (users x items) matrix",
                          f"shape {s.shape}, dtype {s.dtype}", caller)
    n_users, n_items = s.shape
    tu, ti = np.asarray(test_users).ravel(), np.asarray(test_items).ravel()
    if tu.shape != ti.shape or tu.dtype.kind not in "iu" or ti.dtype.kind not in "iu":
        raise param_error("test_users", "integer row and column indices of equal length",
                          f"dtypes {tu.dtype}, {ti.dtype}", caller)
    if tu.size == 0:
        raise InputError(f"{caller} needs at least one held-out pair.")
    if tu.min() < 0 or tu.max() >= n_users or ti.min() < 0 or ti.max() >= n_items:
        raise param_error("test_items", f"indices inside the score matrix {s.shape}",
                          "an index out of range", caller)
    seen = _seen_matrix(exclude, s.shape, caller)
    held = _seen_matrix((tu, ti), s.shape, caller)
    blocked = held if seen is None else (held + seen).astype(bool).tocsr()
    rng = np.random.default_rng(seed)
    n = tu.size
    exact = np.empty(n, dtype=np.int64)
    sampled = np.empty(n, dtype=np.int64)
    ncand = np.empty(n, dtype=np.int64)
    step = max(1, _BLOCK_CELLS // max(n_items, 1))
    for a in range(0, n, step):
        b = min(n, a + step)
        rows = tu[a:b]
        sc = np.asarray(s[rows], dtype=np.float64)
        if not np.isfinite(sc).all():
            raise InputError(f"The 'scores' of {caller} must be finite.")
        bl = blocked[rows]
        invalid = np.zeros(sc.shape, dtype=bool)
        invalid[np.repeat(np.arange(b - a), np.diff(bl.indptr)), bl.indices] = True
        pos = sc[np.arange(b - a), ti[a:b]][:, None]
        above = (sc > pos) | ((sc == pos) & (ties == "pessimistic"))
        above &= ~invalid
        exact[a:b] = 1 + above.sum(axis=1)
        valid = ~invalid
        nc = valid.sum(axis=1)
        ncand[a:b] = nc
        if replace:
            cs = np.cumsum(valid.ravel())
            base = np.concatenate([[0], cs[np.arange(1, b - a) * n_items - 1]])
            draw = np.floor(rng.random((b - a, m)) * nc[:, None]).astype(np.int64)
            flat = np.searchsorted(cs, base[:, None] + draw + 1)
            idx = flat % n_items
            ok = nc[:, None] > 0
            hit = np.take_along_axis(above, idx, axis=1) & ok
            sampled[a:b] = 1 + hit.sum(axis=1)
        else:
            keys = rng.random(sc.shape)
            keys[invalid] = np.inf
            mm = min(m, n_items)
            if mm < n_items:
                idx = np.argpartition(keys, mm - 1, axis=1)[:, :mm]
            else:
                idx = np.broadcast_to(np.arange(n_items), sc.shape)
            taken = np.isfinite(np.take_along_axis(keys, idx, axis=1))
            sampled[a:b] = 1 + (np.take_along_axis(above, idx, axis=1) & taken).sum(axis=1)
    return SampledRanks(tu, ti, exact, sampled, ncand, m, seed, replace, ties)
