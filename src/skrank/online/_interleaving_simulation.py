"""Simulated users on interleaved lists: the per-impression outcomes a click model gives
(private module).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import SEED, Options, as_generator, param_error, validate_params
from ..stats._checks import POSITIVE_INT
from ._clicks import _ClickModel
from ._interleave import _BUILDERS
from ._interleaving import (
    _EXHAUSTED,
    _LENGTH,
    COMMON_PREFIX_RULES,
    INTERLEAVING_METHODS,
    _check_ranking,
    _check_tau,
    _short_list,
)
from ._utils import as_float_array, input_error

__all__ = ["simulate_interleaving"]


@validate_params({
    "method": Options(INTERLEAVING_METHODS),
    "n_impressions": POSITIVE_INT,
    "length": _LENGTH,
    "common_prefix": Options(COMMON_PREFIX_RULES),
    "exhausted": _EXHAUSTED,
    "rng": SEED,
})
def simulate_interleaving(
    rankings_a: Sequence[Any],
    rankings_b: Sequence[Any],
    labels: Sequence[Any],
    click_model: _ClickModel,
    *,
    n_impressions: int,
    method: str = "team_draft",
    length: int | None = 10,
    exhausted: str = "stop",
    tau: float = 3.0,
    common_prefix: str = "credit",
    query_probabilities: Any = None,
    rng: Any = None,
) -> np.ndarray:
    """Simulate users on interleaved lists and return the per-impression outcomes.

    Each impression draws a query, interleaves its two rankings, simulates clicks on the
    shown labels with ``click_model`` and credits them.

    Parameters
    ----------
    rankings_a, rankings_b : sequence of array-like of int
        Per query, the rankings of A and B as indices into that query's ``labels``.
    labels : sequence of array-like of int
        Per query, the graded label of each document.
    click_model : PositionBasedModel or CascadeModel
        The simulated users.
    n_impressions : int
        Number of impressions.
    method : {"team_draft", "balanced", "probabilistic"}, default="team_draft"
    length : int or None, default=10
        Length of the shown lists.
    exhausted : {"stop", "continue"}, default="stop"
    tau : float, default=3.0
        Softmax temperature of probabilistic interleaving.
    common_prefix : {"credit", "ignore"}, default="credit"
    query_probabilities : array-like of float or None, default=None
        Probability of drawing each query (uniform when None).
    rng : None, int or numpy.random.Generator, default=None

    Returns
    -------
    ndarray of float, shape (n_impressions,)
        Outcomes in [-1, 1]; NaN for impressions without clicks. Pass them to
        :func:`interleaving_test`.

    Examples
    --------
    >>> from skrank.online import PositionBasedModel, simulate_interleaving, interleaving_test
    >>> labels = [[0, 1, 2, 3, 4]] * 2
    >>> good = [[4, 3, 2, 1, 0]] * 2          # best documents first
    >>> bad = [[0, 1, 2, 3, 4]] * 2
    >>> out = simulate_interleaving(good, bad, labels, PositionBasedModel(),
    ...                             n_impressions=300, rng=0)
    >>> res = interleaving_test(out, rng=0)
    >>> res.preference > 0.3 and res.p_value < 1e-6
    True
    """
    caller = "simulate_interleaving"
    if not isinstance(click_model, _ClickModel):  # a data-like argument, checked first
        raise param_error(
            "click_model", "a PositionBasedModel or a CascadeModel", click_model, caller
        )
    n_impressions = int(n_impressions)
    length = None if length is None else int(length)
    if method == "probabilistic":
        _check_tau(tau, caller)
    n_q = len(labels)
    if not (len(rankings_a) == len(rankings_b) == n_q) or n_q == 0:
        raise input_error(
            "rankings_a, rankings_b and labels", "non-empty sequences with one entry per query",
            f"lengths {len(rankings_a)}, {len(rankings_b)} and {n_q}", caller,
        )
    labs = [np.asarray(x, dtype=np.int64) for x in labels]
    if query_probabilities is None:
        probs = None
    else:
        probs = as_float_array("query_probabilities", query_probabilities, caller)
        if probs.size != n_q or (probs < 0).any() or not np.isclose(probs.sum(), 1.0):
            raise input_error(
                "query_probabilities", f"{n_q} non-negative probabilities summing to 1",
                f"{probs.size} values summing to {probs.sum()!r}", caller,
            )
    gen = as_generator(rng)
    queries = gen.choice(n_q, size=n_impressions, p=probs)
    checked: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    build = _BUILDERS[method]
    extra = (float(tau),) if method == "probabilistic" else ()
    lists = []
    for q in queries.tolist():
        if q not in checked:
            ra = _check_ranking(f"rankings_a[{q}]", rankings_a[q], caller)
            rb = _check_ranking(f"rankings_b[{q}]", rankings_b[q], caller)
            for nm, r in ((f"rankings_a[{q}]", ra), (f"rankings_b[{q}]", rb)):
                if r.dtype.kind not in "iu" or r.min() < 0 or r.max() >= labs[q].size:
                    raise input_error(
                        nm, f"indices into the {labs[q].size} labels of query {q}",
                        _short_list(r), caller,
                    )
            checked[q] = (ra, rb)
        ra, rb = checked[q]
        lists.append(build(ra, rb, length, exhausted, gen, *extra))
    width = max(len(il) for il in lists)
    shown = np.full((n_impressions, width), -1, dtype=np.int64)
    for i, (q, il) in enumerate(zip(queries.tolist(), lists)):
        shown[i, : len(il)] = labs[q][il.ranking]
    clicks = click_model._simulate(click_model._labels(shown, caller), gen)
    if method == "team_draft" and common_prefix == "credit":
        # vectorised team-draft credit: the sign of (clicks on A) - (clicks on B)
        teams = np.zeros((n_impressions, width), dtype=np.int8)
        for i, il in enumerate(lists):
            teams[i, : len(il)] = il.teams
        diff = np.sum(clicks * teams, axis=1)
        return np.where(clicks.any(axis=1), np.sign(diff), np.nan).astype(np.float64)
    out = np.empty(n_impressions)
    for i, il in enumerate(lists):
        out[i] = il.credit(clicks[i, : len(il)], common_prefix=common_prefix)
    return out
