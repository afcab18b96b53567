"""Fairness of exposure between two groups of items (Singh & Joachims, KDD 2018): the
exposure a stochastic ranking policy gives each group, against the group's merit."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import Described, Options, Satisfies, check_choice, param_error, validate_params
from ._conventions import COMPARISONS, POSITION_BIASES, GroupFairnessConventions
from ._inputs import codes, input_error, plain, vector
from ._results import GroupExposure, GroupFairnessScore

# tolerance of the marginal matrix's row and column sums (solvers return them to ~1e-9)
_ATOL = 1e-6


def _bias(position_bias: Any, n_positions: int, caller: str) -> tuple[str, np.ndarray]:
    if isinstance(position_bias, str):
        check_choice("position_bias", position_bias, POSITION_BIASES, caller)
        j = np.arange(1, n_positions + 1, dtype=np.float64)
        v = 1.0 / np.log2(1.0 + j) if position_bias == "log" else 1.0 / j
        return position_bias, v
    v = np.asarray(position_bias, dtype=np.float64) if np.ndim(position_bias) == 1 else None
    if v is None or v.shape[0] < n_positions or not np.isfinite(v).all() or (v < 0).any():
        raise param_error(
            "position_bias", f"one of {', '.join(map(repr, POSITION_BIASES))} or a 1-D array "
            f"of {n_positions} or more finite weights >= 0 (one per position)",
            position_bias if v is None else f"an array of {v.shape[0]} values", caller)
    return "custom", v[:n_positions]


def _query_of(qid: Any, n: int, caller: str) -> tuple[np.ndarray, np.ndarray]:
    if qid is None:
        return np.array([0]), np.zeros(n, dtype=np.int64)
    q = vector("qid", qid, caller, n=n, of="y_true")
    labels, (codes_,) = codes(q)
    return labels, codes_


def _first_bad_query(mask: np.ndarray, q: np.ndarray) -> int:
    return int(q[np.flatnonzero(mask)[0]])


def _from_marginals(marginals: Any, q: np.ndarray, n_q: np.ndarray, v_all: Any,
                    q_labels: np.ndarray, caller: str):
    P = np.asarray(marginals, dtype=np.float64)
    n = q.shape[0]
    if P.ndim != 2 or P.shape[0] != n:
        raise input_error("marginals", f"a 2-D array with one row per row of y_true ({n:,} "
                          f"rows) and one column per position", f"an array of shape {P.shape}",
                          caller)
    if P.shape[1] < n_q.max():
        raise input_error("marginals", f"at least as many columns as the largest query has "
                          f"documents ({int(n_q.max())})", f"{P.shape[1]} columns", caller)
    if not np.isfinite(P).all() or (P < -_ATOL).any():
        raise input_error("marginals", "probabilities (finite, >= 0)",
                          "negative or non-finite entries", caller)
    rows = np.abs(P.sum(axis=1) - 1.0) > _ATOL
    if rows.any():
        i = int(np.flatnonzero(rows)[0])
        raise input_error("marginals", "doubly stochastic in each query: each document's row "
                          "sums to 1", f"a row summing to {P[i].sum():.6g} (row {i})", caller)
    cols = np.zeros((n_q.shape[0], P.shape[1]))
    np.add.at(cols, q, P)
    due = (np.arange(P.shape[1])[None, :] < n_q[:, None]).astype(np.float64)
    bad = np.abs(cols - due) > _ATOL
    if bad.any():
        qi, j = (int(x[0]) for x in np.nonzero(bad))
        raise input_error("marginals", "doubly stochastic in each query: position j's column "
                          "sums to 1 over the query's documents for j <= its number of "
                          "documents, to 0 after", f"position {j + 1} of query "
                          f"{plain(q_labels[qi])!r} summing to {cols[qi, j]:.6g}", caller)
    kind, v = v_all(P.shape[1])
    return kind, P @ v


def _from_rankings(rankings: Any, q: np.ndarray, n_q: np.ndarray, v_all: Any,
                   q_labels: np.ndarray, caller: str):
    R = np.asarray(rankings)
    n = q.shape[0]
    if R.ndim == 1:
        R = R[:, None]
    if R.ndim != 2 or R.shape[0] != n or R.shape[1] == 0:
        raise input_error("rankings", f"a 2-D array of ranks with one row per row of y_true "
                          f"({n:,} rows) and one column per sampled ranking",
                          f"an array of shape {np.shape(rankings)}", caller)
    if R.dtype.kind not in "iu":
        if R.dtype.kind != "f" or not np.all(R == np.round(R)):
            raise input_error("rankings", "integer ranks (1 for the first position)",
                              f"an array of dtype {R.dtype}", caller)
    R = R.astype(np.int64)
    out = (R < 1) | (R > n_q[q][:, None])
    if out.any():
        i, s = (int(x[0]) for x in np.nonzero(out))
        raise input_error("rankings", "ranks 1..n in each sampled ranking of a query of n "
                          "documents", f"rank {int(R[i, s])} at row {i}, ranking {s} (query "
                          f"{plain(q_labels[q[i]])!r}, {int(n_q[q[i]])} documents)", caller)
    m = int(n_q.max()) + 1
    key = (np.arange(R.shape[1])[None, :] * n_q.shape[0] + q[:, None]) * m + R
    flat = np.sort(key.ravel())
    rep = np.flatnonzero(flat[1:] == flat[:-1])
    if rep.shape[0]:
        k = int(flat[rep[0]])
        s, rest = divmod(k, n_q.shape[0] * m)
        qi, rank = divmod(rest, m)
        raise input_error("rankings", "a permutation of 1..n in each sampled ranking (each "
                          "rank once)", f"rank {rank} twice in ranking {s} of query "
                          f"{plain(q_labels[qi])!r}", caller)
    kind, v = v_all(int(n_q.max()))
    return kind, v[R - 1].mean(axis=1)


def _compare(a: np.ndarray, b: np.ndarray, how: str) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = a / b if how == "ratio" else a - b
    return np.where(np.isfinite(out), out, np.nan)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / b, np.nan)


@validate_params({
    "compare": Options(COMPARISONS),
    "position_bias": Described(
        f"{Options(POSITION_BIASES).text} or a 1-D array of weights, one per position",
        Options(POSITION_BIASES), Satisfies(lambda v: not isinstance(v, str)
                                            and np.ndim(v) == 1, "")),
    "order": Described("None or a pair of group labels", None,
                       Satisfies(lambda v: isinstance(v, (tuple, list)) and len(v) == 2, "")),
})
def group_exposure(
    y_true: Any,
    groups: Any,
    *,
    marginals: Any = None,
    rankings: Any = None,
    qid: Any = None,
    order: tuple | None = None,
    position_bias: Any = "log",
    compare: str = "ratio",
) -> GroupExposure:
    """Fairness of exposure between two groups of items under a stochastic ranking policy.

    Singh & Joachims (KDD 2018): a policy puts document ``i`` at position ``j`` with
    probability ``P[i, j]`` (a doubly stochastic matrix per query); with position bias
    ``v_j``, the document's exposure is ``sum_j P[i, j] v_j`` and its expected clicks, under
    the position-based model with merit ``u_i`` as the probability of a click once seen,
    ``u_i * sum_j P[i, j] v_j``. Per group ``G``, take the means over its documents of the
    exposure, the merit ``U(G)`` and the clicks ``CTR(G)``; then per query:

    - demographic parity: exposure of the first group against the second's;
    - disparate treatment: ``exposure / U`` against (their disparate treatment ratio, DTR);
    - disparate impact: ``CTR / U`` against (their disparate impact ratio, DIR).

    Each is a ratio (1 is fair) or a difference (0 is fair), averaged over the queries where
    it is defined.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Merit of each document (>= 0): its relevance, or probability of relevance.
    groups : array-like of shape (n_rows,)
        Group of each document: two distinct labels in all.
    marginals : array-like of shape (n_rows, n_positions), optional
        The policy as marginal probabilities: row ``i`` gives document ``i``'s probability
        of each position 1, 2, ... within its query. Doubly stochastic per query (rows and
        the query's first ``n`` columns sum to 1, later columns to 0, within 1e-6).
    rankings : array-like of shape (n_rows, n_samples), optional
        Instead of ``marginals``: sampled rankings, the 1-based rank of document ``i`` in
        each sample (a permutation of 1..n per query and sample). The exposure is then the
        Monte Carlo mean over the samples, which equals the computation from the
        rankings' empirical marginal matrix.
    qid : array-like of shape (n_rows,), optional
        Query of each row (one query when omitted).
    order : tuple of two labels, optional
        Which group is first (compared with the second); sorted labels by default.
    position_bias : {"log", "reciprocal"} or array-like, default="log"
        ``v_j = 1 / log2(1 + j)`` (the paper's), ``1 / j``, or one weight per position.
    compare : {"ratio", "difference"}, default="ratio"
        Compare the first group's quantity with the second's as ``a / b`` or ``a - b``.

    Returns
    -------
    GroupExposure

    Examples
    --------
    Two rankings of four documents, each shown half the time:

    >>> from skrank.fairness import group_exposure
    >>> merit = [0.9, 0.8, 0.7, 0.6]
    >>> group = ["a", "a", "b", "b"]
    >>> res = group_exposure(merit, group, rankings=[[1, 1], [2, 3], [3, 2], [4, 4]])
    >>> print(res)
    group fairness of exposure (1 query, groups 'a' vs 'b')
      demographic parity = 1.5715
      disparate treatment = 1.2018
      disparate impact = 1.5807
      position_bias=log, compare=ratio
    >>> res.exposure.round(4).tolist()  # mean exposure of each group
    [[0.7827, 0.4981]]
    """
    caller = "group_exposure"
    check_choice("compare", compare, COMPARISONS, caller)
    u = vector("y_true", y_true, caller, numeric=True).astype(np.float64)
    n = u.shape[0]
    if n == 0:
        raise input_error("y_true", "a non-empty array of merits", "an empty array", caller)
    if (u < 0).any():
        raise input_error("y_true", "merits >= 0", f"{plain(u[u < 0][0])!r} at row "
                          f"{int(np.flatnonzero(u < 0)[0])}", caller)
    g = vector("groups", groups, caller, n=n, of="y_true")
    labels, (gc,) = codes(g)
    if labels.shape[0] != 2:
        raise input_error("groups", "two groups (two distinct labels)",
                          f"{labels.shape[0]} ({labels[:5].tolist()})", caller)
    pair = tuple(plain(x) for x in labels)
    if order is not None:
        if len(order) != 2 or set(order) != set(pair):
            raise param_error("order", f"the two group labels in the order wanted, {pair!r} "
                              f"or {pair[::-1]!r}", order, caller)
        if tuple(order) != pair:
            gc, pair = 1 - gc, tuple(order)
    q_labels, q = _query_of(qid, n, caller)
    n_q = np.bincount(q, minlength=q_labels.shape[0])
    if (marginals is None) == (rankings is None):
        raise input_error("marginals", "given, or rankings given instead (one of the two)",
                          "both" if marginals is not None else "neither", caller)
    kind = "custom"

    def v_all(n_positions: int) -> tuple[str, np.ndarray]:
        return _bias(position_bias, n_positions, caller)

    if marginals is not None:
        kind, e = _from_marginals(marginals, q, n_q, v_all, q_labels, caller)
    else:
        kind, e = _from_rankings(rankings, q, n_q, v_all, q_labels, caller)
    conv = GroupFairnessConventions(position_bias=kind, compare=compare)

    nq = q_labels.shape[0]
    cell = q * 2 + gc
    size = np.bincount(cell, minlength=2 * nq).reshape(nq, 2).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        exposure = np.bincount(cell, weights=e, minlength=2 * nq).reshape(nq, 2) / size
        merit = np.bincount(cell, weights=u, minlength=2 * nq).reshape(nq, 2) / size
        ctr = np.bincount(cell, weights=u * e, minlength=2 * nq).reshape(nq, 2) / size
    dp = _compare(exposure[:, 0], exposure[:, 1], compare)
    treat = _div(exposure, merit)
    impact = _div(ctr, merit)
    dt = _compare(treat[:, 0], treat[:, 1], compare)
    di = _compare(impact[:, 0], impact[:, 1], compare)
    scores = []
    for name, values in (("demographic parity", dp), ("disparate treatment", dt),
                         ("disparate impact", di)):
        ok = ~np.isnan(values)
        mean = float(values[ok].mean()) if ok.any() else float("nan")
        scores.append(GroupFairnessScore(name, mean, values, q_labels, conv, pair))
    return GroupExposure(*scores, exposure=exposure, merit=merit, ctr=ctr, qids=q_labels,
                         group_labels=pair, conventions=conv)
