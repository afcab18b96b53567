"""The three ways to build one interleaved list from two rankings: team draft, balanced and
probabilistic (private module; the conventions are those of ``_interleaving``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import SEED, as_generator, validate_params
from ._interleaving import _EXHAUSTED, _LENGTH, TEAM_A, TEAM_B, Interleaving, _as_array, _check_pair
from ._utils import POSITIVE_REAL

__all__ = ["balanced_interleave", "probabilistic_interleave", "team_draft_interleave"]


@validate_params({"length": _LENGTH, "exhausted": _EXHAUSTED, "rng": SEED})
def team_draft_interleave(
    ranking_a: Any,
    ranking_b: Any,
    *,
    length: int | None = None,
    exhausted: str = "stop",
    rng: Any = None,
) -> Interleaving:
    """Team-draft interleaving (Radlinski, Kurup and Joachims, CIKM 2008).

    Like picking teams in a schoolyard: in each round the team with fewer picks so far (a fair
    coin when equal) adds its highest-ranked document that is not shown yet. Clicks are
    credited to the team that placed the clicked document.

    Parameters
    ----------
    ranking_a, ranking_b : array-like of shape (n_a,) and (n_b,)
        Document ids (ints or strings), best first, without duplicates.
    length : int or None, default=None
        Length of the shown list; None is as long as the rule ``exhausted`` allows.
    exhausted : {"stop", "continue"}, default="stop"
        When one ranking has no unshown document left: stop (the paper's algorithm, which
        keeps the teams balanced) or continue with the other ranking.
    rng : None, int or numpy.random.Generator, default=None
        Seed or generator of the coin flips.

    Returns
    -------
    Interleaving

    Examples
    --------
    >>> from skrank.online import team_draft_interleave
    >>> il = team_draft_interleave(["a", "b", "c"], ["b", "d", "a"], rng=1)
    >>> il.ranking.tolist(), il.teams.tolist()   # B has nothing left after "d": stop
    (['b', 'a', 'd'], [-1, 1, -1])
    >>> il = team_draft_interleave(["a", "b", "c"], ["b", "d", "a"], exhausted="continue", rng=1)
    >>> il.ranking.tolist(), il.teams.tolist()
    (['b', 'a', 'd', 'c'], [-1, 1, -1, 1])
    """
    caller = "team_draft_interleave"
    a, b, length = _check_pair(ranking_a, ranking_b, length, caller)
    return _team_draft(a, b, length, exhausted, as_generator(rng))


def _team_draft(
    a: np.ndarray, b: np.ndarray, length: int | None, exhausted: str, gen: np.random.Generator
) -> Interleaving:
    la, lb = a.tolist(), b.tolist()
    na_total, nb_total = len(la), len(lb)
    cap = len(set(la) | set(lb)) if length is None else length
    stop = exhausted == "stop"
    shown: list[Any] = []
    teams: list[int] = []
    placed: set[Any] = set()
    ia = ib = n_a = n_b = 0
    while n_a + n_b < cap:
        while ia < na_total and la[ia] in placed:
            ia += 1
        while ib < nb_total and lb[ib] in placed:
            ib += 1
        a_left, b_left = ia < na_total, ib < nb_total
        if not (a_left and b_left):
            if stop or not (a_left or b_left):
                break
            pick_a = a_left
        elif n_a != n_b:
            pick_a = n_a < n_b
        else:
            pick_a = gen.random() < 0.5
        if pick_a:
            doc, ia, n_a = la[ia], ia + 1, n_a + 1
        else:
            doc, ib, n_b = lb[ib], ib + 1, n_b + 1
        shown.append(doc)
        placed.add(doc)
        teams.append(TEAM_A if pick_a else TEAM_B)
    t = np.asarray(teams, dtype=np.int8)
    return Interleaving(
        "team_draft", _as_array(shown, a, b), t, (t == TEAM_A).astype(np.float64), a, b
    )


@validate_params({"length": _LENGTH, "exhausted": _EXHAUSTED, "rng": SEED})
def balanced_interleave(
    ranking_a: Any,
    ranking_b: Any,
    *,
    length: int | None = None,
    exhausted: str = "stop",
    rng: Any = None,
) -> Interleaving:
    """Balanced interleaving (Joachims, 2003).

    A coin decides which ranking goes first; then the two rankings alternate, each adding its
    next document unless already shown, so that the shown list always holds the top ``k_a``
    of A and the top ``k_b`` of B with ``|k_a - k_b| <= 1``. Credit: with ``k`` the smallest
    rank at which the lowest clicked document appears in A or in B, each ranking gets the
    clicks on its own top ``k``. Known to be biased when A and B are nearly identical shifted
    lists (Chapelle et al., 2012); prefer team draft.

    Parameters
    ----------
    ranking_a, ranking_b : array-like
        Document ids, best first, without duplicates.
    length : int or None, default=None
        Length of the shown list; None is as long as ``exhausted`` allows.
    exhausted : {"stop", "continue"}, default="stop"
        When one ranking runs out: stop (Joachims' algorithm) or continue with the other.
    rng : None, int or numpy.random.Generator, default=None
        Seed or generator of the first coin.

    Returns
    -------
    Interleaving

    Examples
    --------
    >>> from skrank.online import balanced_interleave
    >>> il = balanced_interleave([1, 2, 3, 4], [2, 5, 1, 6], length=4, rng=0)
    >>> il.ranking.tolist()
    [2, 1, 5, 3]
    >>> il.credit(clicked_docs=[5])   # k = 2: B's top 2 hold 5, A's top 2 do not
    -1.0
    """
    caller = "balanced_interleave"
    a, b, length = _check_pair(ranking_a, ranking_b, length, caller)
    return _balanced(a, b, length, exhausted, as_generator(rng))


def _balanced(
    a: np.ndarray, b: np.ndarray, length: int | None, exhausted: str, gen: np.random.Generator
) -> Interleaving:
    la, lb = a.tolist(), b.tolist()
    na_total, nb_total = len(la), len(lb)
    cap = len(set(la) | set(lb)) if length is None else length
    a_first = bool(gen.random() < 0.5)
    shown: list[Any] = []
    placed: set[Any] = set()
    ka = kb = 0
    while len(shown) < cap:
        a_left, b_left = ka < na_total, kb < nb_total
        if not (a_left and b_left):
            if exhausted == "stop" or not (a_left or b_left):
                break
            take_a = a_left
        else:
            take_a = ka < kb or (ka == kb and a_first)
        if take_a:
            doc, ka = la[ka], ka + 1
        else:
            doc, kb = lb[kb], kb + 1
        if doc not in placed:
            shown.append(doc)
            placed.add(doc)
    n = len(shown)
    return Interleaving(
        "balanced", _as_array(shown, a, b), np.zeros(n, dtype=np.int8), np.full(n, np.nan), a, b
    )


@validate_params({
    "length": _LENGTH, "tau": POSITIVE_REAL, "exhausted": _EXHAUSTED, "rng": SEED,
})
def probabilistic_interleave(
    ranking_a: Any,
    ranking_b: Any,
    *,
    length: int | None = None,
    tau: float = 3.0,
    exhausted: str = "stop",
    rng: Any = None,
) -> Interleaving:
    """Probabilistic interleaving (Hofmann, Whiteson and de Rijke, CIKM 2011).

    Each ranking becomes a softmax over documents, ``P(d) ∝ rank(d) ** -tau`` (rank from 1;
    documents it does not rank have probability 0). For each position a fair coin picks a
    team, which samples a document from its distribution restricted to the documents not yet
    shown. Because the restriction depends only on the documents above (not on who placed
    them), the posterior probability that position ``i`` came from A factorises:
    ``P_A(d_i) / (P_A(d_i) + P_B(d_i))``. :meth:`Interleaving.credit` returns the expected
    outcome under this posterior in closed form.

    Parameters
    ----------
    ranking_a, ranking_b : array-like
        Document ids, best first, without duplicates. Works best when both rank the same
        candidates.
    length : int or None, default=None
        Length of the shown list; None shows every candidate (or until ``exhausted`` stops).
    tau : float, default=3.0
        Softmax temperature (Hofmann et al. use 3); larger is closer to team draft.
    exhausted : {"stop", "continue"}, default="stop"
        When one ranking has no unshown document left: stop, or let the other team fill.
    rng : None, int or numpy.random.Generator, default=None
        Seed or generator.

    Returns
    -------
    Interleaving

    Examples
    --------
    >>> from skrank.online import probabilistic_interleave
    >>> il = probabilistic_interleave([1, 2, 3], [3, 2, 1], rng=0)
    >>> len(il), sorted(il.ranking.tolist())
    (3, [1, 2, 3])
    >>> bool(0.0 < il.team_a_probability[0] < 1.0)
    True
    """
    caller = "probabilistic_interleave"
    a, b, length = _check_pair(ranking_a, ranking_b, length, caller)
    return _probabilistic(a, b, length, exhausted, as_generator(rng), float(tau))


def _probabilistic(
    a: np.ndarray, b: np.ndarray, length: int | None, exhausted: str, gen: np.random.Generator,
    tau: float,
) -> Interleaving:
    la, lb = a.tolist(), b.tolist()
    cand = list(dict.fromkeys(la + lb))
    index = {d: i for i, d in enumerate(cand)}
    # plain Python lists: the lists are short, and numpy's per-call overhead dominates here
    wa = [0.0] * len(cand)
    wb = [0.0] * len(cand)
    t = -float(tau)
    for r, d in enumerate(la, start=1):
        wa[index[d]] = r**t
    for r, d in enumerate(lb, start=1):
        wb[index[d]] = r**t
    cap = len(cand) if length is None else min(length, len(cand))
    coins = gen.random(2 * cap).tolist()
    shown: list[Any] = []
    teams: list[int] = []
    prob_a: list[float] = []
    # wa, wb hold the weights of the documents not shown yet (shown ones are zeroed)
    for i in range(cap):
        sa = sum(wa)
        sb = sum(wb)
        if sa <= 0 or sb <= 0:
            if exhausted == "stop" or (sa <= 0 and sb <= 0):
                break
            pick_a = sa > 0
        else:
            pick_a = coins[2 * i] < 0.5
        w = wa if pick_a else wb
        target = coins[2 * i + 1] * (sa if pick_a else sb)
        acc = 0.0
        j = -1
        for m, wm in enumerate(w):
            if wm > 0:
                j = m
                acc += wm
                if acc > target:
                    break
        pa = wa[j] / sa if sa > 0 else 0.0
        pb = wb[j] / sb if sb > 0 else 0.0
        wa[j] = 0.0
        wb[j] = 0.0
        shown.append(cand[j])
        teams.append(TEAM_A if pick_a else TEAM_B)
        prob_a.append(pa / (pa + pb))
    return Interleaving(
        "probabilistic", _as_array(shown, a, b), np.asarray(teams, dtype=np.int8),
        np.asarray(prob_a, dtype=np.float64), a, b,
    )


_BUILDERS = {"team_draft": _team_draft, "balanced": _balanced, "probabilistic": _probabilistic}
