"""Interleaving: the interleaved list and the credit of its clicks (private module).

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

The lists are built in ``_interleave`` (team-draft, balanced and probabilistic), simulated
users click on them in ``_interleaving_simulation``, and ``_preference`` aggregates the
outcomes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import Options, check_choice, param_error
from ..stats._checks import POSITIVE_INT
from ._utils import POSITIVE_REAL, as_float_array, check_binary, input_error

__all__ = [
    "COMMON_PREFIX_RULES",
    "EXHAUSTED_RULES",
    "INTERLEAVING_METHODS",
    "NO_CLICK_RULES",
    "Interleaving",
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
