"""Interleaving: team-draft, balanced and probabilistic (private module).

An interleaving merges the rankings of two systems A and B into one shown list; the clicks on
that list are credited to A, to B or to neither (a tie). Over many impressions the share of
wins says which system users prefer, with far fewer impressions than an A/B test needs
(Chapelle, Joachims, Radlinski and Yue, *Large-scale validation and analysis of interleaved
search evaluation*, TOIS 2012).

Conventions that implementations differ on are parameters, with these defaults:

- ``exhausted="stop"``: the shown list ends as soon as either input ranking has no document
  left to contribute (the published pseudo-code of team-draft and balanced interleaving);
  ``"continue"`` keeps filling from the other ranking.
- duplicates across A and B are shown once; within one ranking they are an error.
- ``click_weights=None``: every click counts 1; weights (e.g. from dwell time) are summed.
- ``common_prefix="credit"``: clicks on documents in the common prefix of A and B are
  credited like any other; ``"ignore"`` drops them (they carry no information about the
  difference and only add noise).
- impressions without (credited) clicks give the outcome NaN; :func:`interleaving_test`
  drops them by default (``no_click="drop"``) or counts them as ties (``"tie"``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from .._validation import (
    SEED,
    Options,
    as_generator,
    check_choice,
    param_error,
    renamed_parameters,
    validate_params,
)
from ..stats._bootstrap import percentile_interval
from ..stats._checks import NONNEG_INT, OPEN_UNIT, POSITIVE_INT
from ..stats._results import Interval
from ._clicks import _ClickModel
from ._results import InterleavingResult
from ._utils import (
    POSITIVE_REAL,
    as_float_array,
    check_binary,
    input_error,
)

__all__ = [
    "COMMON_PREFIX_RULES",
    "EXHAUSTED_RULES",
    "INTERLEAVING_METHODS",
    "NO_CLICK_RULES",
    "Interleaving",
    "balanced_interleave",
    "interleaving_test",
    "probabilistic_interleave",
    "sign_test",
    "simulate_interleaving",
    "team_draft_interleave",
]

#: Interleaving methods by name.
INTERLEAVING_METHODS = ("team_draft", "balanced", "probabilistic")
#: What happens when one input ranking runs out of documents.
EXHAUSTED_RULES = ("stop", "continue")
#: How clicks on the common prefix of both rankings are credited.
COMMON_PREFIX_RULES = ("credit", "ignore")
#: What an impression without credited clicks counts as in :func:`interleaving_test`.
NO_CLICK_RULES = ("drop", "tie")

TEAM_A = 1
TEAM_B = -1


# ----------------------------------------------------------------------------- input checks
def _check_ranking(name: str, ranking: Any, caller: str) -> np.ndarray:
    arr = np.asarray(ranking)
    if arr.ndim != 1:
        raise input_error(name, "a 1-D sequence of document ids", f"shape {arr.shape}", caller)
    if arr.size == 0:
        raise input_error(name, "a non-empty ranking", "an empty one", caller)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise input_error(name, "document ids without NaN", "NaN", caller)
    items = arr.tolist()
    if len(set(items)) != len(items):
        seen: set[Any] = set()
        dup = next(d for d in items if d in seen or seen.add(d))  # type: ignore[func-returns-value]
        raise input_error(
            name, "a ranking without duplicate documents", f"{dup!r} more than once", caller
        )
    return arr


def _check_pair(
    ranking_a: Any, ranking_b: Any, length: Any, caller: str
) -> tuple[np.ndarray, np.ndarray, int | None]:
    """The checked inputs every builder takes: both rankings and the length."""
    a = _check_ranking("ranking_a", ranking_a, caller)
    b = _check_ranking("ranking_b", ranking_b, caller)
    return a, b, None if length is None else int(length)


def _check_tau(tau: Any, caller: str) -> None:
    """``tau`` where it is used only with ``method="probabilistic"``."""
    if not POSITIVE_REAL.accepts(tau):
        raise param_error("tau", POSITIVE_REAL.text, tau, caller)


# what the builders of one interleaved list declare
_LENGTH = [POSITIVE_INT, None]
_EXHAUSTED = Options(EXHAUSTED_RULES)


def _as_array(items: list[Any], a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if items:
        return np.asarray(items)
    return np.empty(0, dtype=np.result_type(a.dtype, b.dtype))


def _short_list(r: np.ndarray) -> str:
    items = r.tolist()
    return repr(items) if len(items) <= 8 else repr(items[:8])[:-1] + ", ...]"


def _common_prefix(a: list[Any], b: list[Any]) -> int:
    p = 0
    for x, y in zip(a, b):
        if x != y:
            break
        p += 1
    return p


# ----------------------------------------------------------------------------- the result
@dataclass(frozen=True, eq=False)
class Interleaving:
    """One interleaved list, built by :func:`team_draft_interleave`,
    :func:`balanced_interleave` or :func:`probabilistic_interleave`.

    Attributes
    ----------
    method : str
        ``"team_draft"``, ``"balanced"`` or ``"probabilistic"``.
    ranking : ndarray
        Document ids in shown order.
    teams : ndarray of int8
        Team of each shown position: ``1`` for A, ``-1`` for B (the team that placed it;
        the sampled team for probabilistic interleaving); ``0`` for balanced interleaving,
        which has no teams.
    team_a_probability : ndarray of float
        Probability that position ``i`` was contributed by A given the shown list: 1.0 or 0.0
        for team draft; for probabilistic interleaving
        ``P_A(d_i) / (P_A(d_i) + P_B(d_i))`` with both softmax distributions restricted to the
        documents not shown above ``i`` (the posterior factorises over positions); NaN for
        balanced interleaving.
    ranking_a, ranking_b : ndarray
        The two input rankings.
    """

    method: str
    ranking: np.ndarray
    teams: np.ndarray
    team_a_probability: np.ndarray
    ranking_a: np.ndarray
    ranking_b: np.ndarray

    def __len__(self) -> int:
        return int(self.ranking.size)

    def __str__(self) -> str:
        team = {1: "A", -1: "B", 0: "-"}
        pairs = zip(self.ranking.tolist(), self.teams.tolist())
        shown = ", ".join(f"{d!r}:{team[t]}" for d, t in pairs)
        return f"Interleaving({self.method}: [{shown}])"

    __repr__ = __str__

    # -- clicks --------------------------------------------------------------------------
    def _click_mask(
        self, clicks: Any, clicked_docs: Any, click_weights: Any, common_prefix: str, caller: str
    ) -> tuple[np.ndarray, np.ndarray]:
        check_choice("common_prefix", common_prefix, COMMON_PREFIX_RULES, caller)
        n = self.ranking.size
        if (clicks is None) == (clicked_docs is None):
            raise param_error(
                "clicks", "given, or else clicked_docs given (exactly one of the two)",
                "both" if clicks is not None else None, caller,
            )
        if clicks is not None:
            c = np.asarray(clicks)
            if c.ndim != 1:
                raise input_error("clicks", "a 1-D click indicator", f"shape {c.shape}", caller)
            if c.size != n:
                raise input_error(
                    "clicks", f"one 0/1 entry per shown position ({n})",
                    f"{c.size} entries (clicks outside the shown list?)", caller,
                )
            if c.dtype != bool:
                check_binary("clicks", c, caller)
            mask = c.astype(bool)
        else:
            docs = np.atleast_1d(np.asarray(clicked_docs)).tolist()
            pos = {d: i for i, d in enumerate(self.ranking.tolist())}
            mask = np.zeros(n, dtype=bool)
            for d in docs:
                if d not in pos:
                    raise input_error(
                        "clicked_docs", "documents of the shown list",
                        f"{d!r}, which was not shown", caller,
                    )
                mask[pos[d]] = True
        if click_weights is None:
            w = np.ones(n)
        else:
            w = as_float_array("click_weights", click_weights, caller)
            if w.size != n:
                raise input_error(
                    "click_weights", f"one weight per shown position ({n})", f"{w.size}", caller
                )
            if (w < 0).any():
                raise input_error("click_weights", "non-negative", f"{w.min()!r}", caller)
        mask &= w > 0
        if common_prefix == "ignore":
            a, b = self.ranking_a.tolist(), self.ranking_b.tolist()
            prefix = set(a[: _common_prefix(a, b)])
            if prefix:
                mask &= ~np.isin(self.ranking, list(prefix))
        return mask, w

    def outcome_probabilities(
        self,
        clicks: Any = None,
        *,
        clicked_docs: Any = None,
        click_weights: Any = None,
        common_prefix: str = "credit",
    ) -> tuple[float, float, float]:
        """Probabilities that the clicks credit A, tie, or credit B.

        For team-draft and balanced interleaving one of the three is 1. For probabilistic
        interleaving they are exact expectations over the posterior of the team assignment
        given the shown list (the assignments of the clicked positions are independent
        Bernoulli variables, so the distribution of the credit difference is a convolution:
        polynomial in the number of clicks, no enumeration of assignments).

        Parameters
        ----------
        clicks : array-like of bool or {0, 1}, shape (len(self),), optional
            Click indicator per shown position.
        clicked_docs : array-like, optional
            Alternatively, the ids of the clicked documents (each must have been shown).
        click_weights : array-like of float, shape (len(self),), optional
            Weight of a click at each position (default 1); a team's credit is the sum of the
            weights of its clicked documents. Clicks of weight 0 are ignored.
        common_prefix : {"credit", "ignore"}, default="credit"
            Whether clicks on documents in the common prefix of both rankings count.

        Returns
        -------
        (p_a, p_tie, p_b) : tuple of float
            NaN for each when no click is credited (an impression without clicks).
        """
        return self._outcome(
            clicks, clicked_docs, click_weights, common_prefix,
            "Interleaving.outcome_probabilities",
        )

    def _outcome(
        self, clicks: Any, clicked_docs: Any, click_weights: Any, common_prefix: str, caller: str
    ) -> tuple[float, float, float]:
        mask, w = self._click_mask(clicks, clicked_docs, click_weights, common_prefix, caller)
        if not mask.any():
            return (math.nan, math.nan, math.nan)
        if self.method == "team_draft":
            diff = float(np.sum(w[mask] * self.teams[mask]))
            return _one_hot(diff)
        if self.method == "balanced":
            return _one_hot(self._balanced_difference(mask, w))
        return _poisson_binomial_outcome(self.team_a_probability[mask], w[mask])

    def credit(
        self,
        clicks: Any = None,
        *,
        clicked_docs: Any = None,
        click_weights: Any = None,
        common_prefix: str = "credit",
    ) -> float:
        """Outcome of one impression: 1 (A wins), -1 (B wins), 0 (tie), NaN (no clicks).

        For probabilistic interleaving the outcome is its expectation over the team
        assignments, ``P(A wins) - P(B wins)``, a real number in [-1, 1]. Parameters are those
        of :meth:`outcome_probabilities`.

        Examples
        --------
        >>> from skrank.online import team_draft_interleave
        >>> il = team_draft_interleave([1, 2, 3], [3, 2, 1], rng=0)
        >>> il.ranking.tolist(), il.teams.tolist()
        ([3, 1, 2], [-1, 1, 1])
        >>> il.credit([False, True, True])   # two clicks on A's documents
        1.0
        >>> il.credit(clicked_docs=[3])      # one click on B's document
        -1.0
        """
        p_a, _, p_b = self._outcome(
            clicks, clicked_docs, click_weights, common_prefix, "Interleaving.credit"
        )
        return p_a - p_b

    def _balanced_difference(self, mask: np.ndarray, w: np.ndarray) -> float:
        # Joachims (2003): k is the smallest rank at which the lowest clicked document appears
        # in A or B; each ranking is credited with the clicks among its own top k.
        a = {d: r for r, d in enumerate(self.ranking_a.tolist(), start=1)}
        b = {d: r for r, d in enumerate(self.ranking_b.tolist(), start=1)}
        shown = self.ranking.tolist()
        clicked = np.flatnonzero(mask)
        lowest = shown[int(clicked[-1])]
        inf = math.inf
        k = min(a.get(lowest, inf), b.get(lowest, inf))
        h_a = sum(w[i] for i in clicked if a.get(shown[i], inf) <= k)
        h_b = sum(w[i] for i in clicked if b.get(shown[i], inf) <= k)
        return float(h_a - h_b)


def _one_hot(diff: float) -> tuple[float, float, float]:
    if diff > 0:
        return (1.0, 0.0, 0.0)
    if diff < 0:
        return (0.0, 0.0, 1.0)
    return (0.0, 1.0, 0.0)


def _poisson_binomial_outcome(p: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """P(D > 0), P(D = 0), P(D < 0) for D = sum_i w_i (2 X_i - 1), X_i ~ Bernoulli(p_i)."""
    if np.all(w == w[0]):
        # equal weights: only the number of A-credited clicks matters (Poisson binomial)
        dist = [1.0]
        for pi in p.tolist():
            nxt = [0.0] * (len(dist) + 1)
            for s, q in enumerate(dist):
                nxt[s] += q * (1.0 - pi)
                nxt[s + 1] += q * pi
            dist = nxt
        m = p.size
        win = sum(q for s, q in enumerate(dist) if 2 * s > m)
        tie = sum(q for s, q in enumerate(dist) if 2 * s == m)
        loss = sum(q for s, q in enumerate(dist) if 2 * s < m)
        return (float(win), float(tie), float(loss))
    # unequal weights: exact distribution over the distinct sums (few clicks per impression)
    table: dict[float, float] = {0.0: 1.0}
    for pi, wi in zip(p.tolist(), w.tolist()):
        new: dict[float, float] = {}
        for v, q in table.items():
            for key, prob in ((round(v + wi, 12), q * pi), (round(v - wi, 12), q * (1.0 - pi))):
                new[key] = new.get(key, 0.0) + prob
        table = new
    win = sum(q for v, q in table.items() if v > 0)
    loss = sum(q for v, q in table.items() if v < 0)
    return (float(win), float(max(0.0, 1.0 - win - loss)), float(loss))


# ----------------------------------------------------------------------------- builders
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


# ----------------------------------------------------------------------------- simulation
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


# ----------------------------------------------------------------------------- aggregation
@validate_params({"wins": NONNEG_INT, "losses": NONNEG_INT})
def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact binomial sign test of ``wins`` against ``losses`` (ties left out).

    ``p = min(1, 2 * P(X <= min(wins, losses)))`` with ``X ~ Binomial(wins + losses, 1/2)``,
    which equals ``scipy.stats.binomtest(wins, wins + losses).pvalue``; 1.0 when both are 0.

    Examples
    --------
    >>> from skrank.online import sign_test
    >>> round(sign_test(9, 1), 6)     # 2 * (1 + 10) / 2**10
    0.021484
    """
    wins, losses = int(wins), int(losses)
    n = wins + losses
    if n == 0:
        return 1.0
    return float(min(1.0, 2.0 * stats.binom.cdf(min(wins, losses), n, 0.5)))


@renamed_parameters(n_bootstrap="n_resamples")
@validate_params({
    "no_click": Options(NO_CLICK_RULES),
    "confidence_level": OPEN_UNIT,
    "n_resamples": POSITIVE_INT,
    "rng": SEED,
})
def interleaving_test(
    outcomes: Any,
    *,
    groups: Any = None,
    no_click: str = "drop",
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: Any = None,
) -> InterleavingResult:
    """Aggregate interleaving outcomes: wins, losses, ties, preference, sign test, bootstrap CI.

    Parameters
    ----------
    outcomes : array-like of float, shape (n_impressions,)
        Per-impression outcomes from :meth:`Interleaving.credit` or
        :func:`simulate_interleaving`: values in [-1, 1] (positive favours A), NaN for
        impressions without clicks.
    groups : array-like or None, default=None
        A user or session id per impression. When given, each group's outcomes are averaged
        first and the group is the unit (one vote per user), which keeps heavy users from
        dominating and makes the test honest when a user's impressions are correlated.
    no_click : {"drop", "tie"}, default="drop"
        Impressions (groups) without clicks are left out (Chapelle et al., 2012) or counted as
        ties.
    confidence_level : float, default=0.95
        Level of the bootstrap interval.
    n_resamples : int, default=2000
        Bootstrap resamples of the units. The preference depends only on the counts, so
        resampling units is drawing ``(wins, losses, ties)`` from a multinomial.
    rng : None, int or numpy.random.Generator, default=None
        Seed or generator of the bootstrap.

    Returns
    -------
    InterleavingResult
        A unit with a positive outcome is a win for A, negative a loss, zero a tie;
        ``preference = (wins + ties/2)/n - 1/2``; ``p_value`` from :func:`sign_test`.

    Examples
    --------
    >>> from skrank.online import interleaving_test
    >>> res = interleaving_test([1, 1, 1, -1, 0, float("nan")], rng=0)
    >>> res.wins, res.losses, res.ties, res.n, res.n_no_click
    (3, 1, 1, 5, 1)
    >>> res.preference                    # (3 + 0.5) / 5 - 0.5
    0.2
    >>> res.p_value                       # 2 * P(Binomial(4, 1/2) <= 1) = 2 * 5/16
    0.625
    """
    caller = "interleaving_test"
    o = as_float_array("outcomes", outcomes, caller, allow_nan=True)
    finite = o[~np.isnan(o)]
    if ((finite < -1) | (finite > 1)).any():
        bad = finite[(finite < -1) | (finite > 1)][0]
        raise input_error(
            "outcomes", "in [-1, 1] (or NaN for no clicks)", repr(float(bad)), caller
        )
    level, n_resamples, gen = float(confidence_level), int(n_resamples), as_generator(rng)
    unit = "impression"
    if groups is not None:
        g = np.asarray(groups)
        if g.ndim != 1 or g.size != o.size:
            raise input_error(
                "groups", f"one id per outcome ({o.size})", f"shape {g.shape}", caller
            )
        uniq, inv = np.unique(g, return_inverse=True)
        inv = inv.ravel()
        valid = ~np.isnan(o)
        sums = np.bincount(inv[valid], weights=o[valid], minlength=uniq.size)
        counts = np.bincount(inv[valid], minlength=uniq.size)
        o = np.full(uniq.size, np.nan)
        o[counts > 0] = sums[counts > 0] / counts[counts > 0]
        unit = "group"
    no_clicks = np.isnan(o)
    n_no_click = int(no_clicks.sum())
    o = o[~no_clicks] if no_click == "drop" else np.where(no_clicks, 0.0, o)
    wins, losses = int((o > 0).sum()), int((o < 0).sum())
    ties = int(o.size - wins - losses)
    n = o.size
    if n == 0:
        nan = math.nan
        ci = Interval(nan, nan, level, "percentile", n_resamples)
        return InterleavingResult(0, 0, 0, 0, nan, 1.0, ci, level, nan, unit, n_no_click)
    preference = (wins + ties / 2) / n - 0.5
    draws = gen.multinomial(n, [wins / n, losses / n, ties / n], size=n_resamples)
    boot = (draws[:, 0] + draws[:, 2] / 2) / n - 0.5
    return InterleavingResult(
        wins=wins, losses=losses, ties=ties, n=n, preference=float(preference),
        p_value=sign_test(wins, losses),
        ci=Interval(*percentile_interval(boot, level), level, "percentile", n_resamples),
        confidence_level=level, mean_outcome=float(o.mean()), unit=unit, n_no_click=n_no_click,
    )
