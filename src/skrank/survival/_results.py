"""Results of the survival metrics: values usable as floats that carry and print the
conventions and the pair counts behind them, and that unpack like scikit-survival's tuples."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numbers import FloatLike
from ._conventions import SurvivalConventions

__all__ = ["BrierScores", "ConcordanceResult", "SurvivalScore", "TimeDependentAUC"]


def _subjects(n: int, n_events: int) -> str:
    return f"{n:,} subjects, {n_events:,} events"


@dataclass(frozen=True, eq=False)
class ConcordanceResult(FloatLike):
    """A concordance index with its pair counts and conventions; behaves as a float.

    ``float(result)``, arithmetic, comparisons, ``round`` and format specifications use
    :attr:`value`. It also unpacks like scikit-survival's tuple,
    ``cindex, concordant, discordant, tied_risk, tied_time = result`` (and ``result[0]`` is the
    index), so code written for scikit-survival keeps working.

    Attributes
    ----------
    name : str
        ``"Harrell's C"`` or ``"Uno's C"``.
    value : float
        The concordance index.
    conventions : SurvivalConventions
        Every convention in force.
    n_concordant, n_discordant, n_tied_risk : int
        Comparable pairs in which the subject with the earlier event has the higher risk,
        the lower risk, or a risk tied within ``tied_tol``.
    n_tied_time : int
        Pairs of an event and a censored subject with the same time; they are comparable
        (and counted above) under ``tied_time="censored_later"``, left out under ``"exclude"``.
    n_subjects, n_events : int
        Test subjects and events among them.
    tau : float or None
        Truncation time: only pairs whose earlier time is below ``tau`` count.
    """

    name: str
    value: float
    conventions: SurvivalConventions
    n_concordant: int
    n_discordant: int
    n_tied_risk: int
    n_tied_time: int
    n_subjects: int
    n_events: int
    tau: float | None = None
    shown: tuple[str, ...] = ("tied_risk", "tied_time", "tied_tol", "orientation")

    @property
    def n_comparable(self) -> int:
        """Comparable pairs (concordant + discordant + tied risk)."""
        return self.n_concordant + self.n_discordant + self.n_tied_risk

    # -- scikit-survival's tuple ----------------------------------------------------------

    def _tuple(self) -> tuple[float, int, int, int, int]:
        return (
            float(self.value),
            self.n_concordant,
            self.n_discordant,
            self.n_tied_risk,
            self.n_tied_time if self.conventions.tied_time == "censored_later" else 0,
        )

    def __iter__(self) -> Iterator[Any]:
        return iter(self._tuple())

    def __getitem__(self, index: int) -> Any:
        return self._tuple()[index]

    def __len__(self) -> int:
        return 5

    # -- printing --------------------------------------------------------------------------

    def describe_conventions(self) -> str:
        """The conventions that matter to this index, as ``name=value`` pairs."""
        text = self.conventions.describe(self.shown)
        return f"tau={self.tau:g}, {text}" if self.tau is not None else text

    def _counts(self) -> str:
        how = "comparable" if self.conventions.tied_time == "censored_later" else "excluded"
        return (
            f"{_subjects(self.n_subjects, self.n_events)}; {self.n_comparable:,} comparable "
            f"pairs: {self.n_concordant:,} concordant, {self.n_discordant:,} discordant, "
            f"{self.n_tied_risk:,} tied in risk; {self.n_tied_time:,} event/censored pairs "
            f"tied in time ({how})"
        )

    def __str__(self) -> str:
        return f"{self.name} = {self.value:.4f} ({self.describe_conventions()}; {self._counts()})"

    def __repr__(self) -> str:
        return f"<ConcordanceResult {self}>"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "name": self.name,
            "value": float(self.value),
            "tau": self.tau,
            "n_comparable": self.n_comparable,
            "n_concordant": self.n_concordant,
            "n_discordant": self.n_discordant,
            "n_tied_risk": self.n_tied_risk,
            "n_tied_time": self.n_tied_time,
            "n_subjects": self.n_subjects,
            "n_events": self.n_events,
            "conventions": self.conventions.to_dict(),
        }


def _times_text(times: np.ndarray) -> str:
    if times.shape[0] == 1:
        return f"t={times[0]:g}"
    return f"{times.shape[0]} times in [{times[0]:g}, {times[-1]:g}]"


@dataclass(frozen=True, eq=False)
class TimeDependentAUC(FloatLike):
    """Cumulative/dynamic AUC at each time and its mean; behaves as the mean (a float).

    Unpacks like scikit-survival's pair, ``auc, mean_auc = result``.

    Attributes
    ----------
    times : ndarray
        The evaluation times, sorted.
    auc : ndarray
        AUC(t) at each time: cases are events at or before t, weighted by the inverse
        probability of censoring; controls are subjects still followed after t.
    value : float
        The mean AUC over the times, weighted by the Kaplan-Meier estimate of the test data's
        survival function (scikit-survival's ``mean_auc``).
    conventions : SurvivalConventions
    n_subjects, n_events : int
    n_tied_risk : int
        Subjects whose risk ties another's within ``tied_tol`` (each tied case/control pair
        counts 1/2).
    """

    times: np.ndarray
    auc: np.ndarray
    value: float
    conventions: SurvivalConventions
    n_subjects: int
    n_events: int
    n_tied_risk: int = 0
    shown: tuple[str, ...] = ("censoring", "tied_tol", "orientation")

    @property
    def mean_auc(self) -> float:
        """The weighted mean AUC (the value)."""
        return float(self.value)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.auc, float(self.value)))

    def __getitem__(self, index: int) -> Any:
        return (self.auc, float(self.value))[index]

    def __len__(self) -> int:
        return 2

    def describe_conventions(self) -> str:
        """The conventions that matter to this AUC, as ``name=value`` pairs."""
        return self.conventions.describe(self.shown)

    def __str__(self) -> str:
        tied = f", {self.n_tied_risk:,} tied in risk" if self.n_tied_risk else ""
        return (
            f"mean AUC(t) = {self.value:.4f} over {_times_text(self.times)} "
            f"({self.describe_conventions()}; {_subjects(self.n_subjects, self.n_events)}{tied})"
        )

    def __repr__(self) -> str:
        return f"<TimeDependentAUC {self}>"


@dataclass(frozen=True, eq=False)
class BrierScores:
    """Time-dependent Brier scores; unpacks like scikit-survival's ``times, scores = ...``.

    ``float(result)`` is the score when there is one time point (an error otherwise: take
    :func:`~skrank.survival.integrated_brier_score` for a summary).

    Attributes
    ----------
    times : ndarray
        The evaluation times, sorted.
    scores : ndarray
        The IPCW Brier score at each time (lower is better).
    conventions : SurvivalConventions
    n_subjects, n_events : int
    """

    times: np.ndarray
    scores: np.ndarray
    conventions: SurvivalConventions
    n_subjects: int
    n_events: int
    shown: tuple[str, ...] = ("censoring",)

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.times, self.scores))

    def __getitem__(self, index: int) -> np.ndarray:
        return (self.times, self.scores)[index]

    def __len__(self) -> int:
        return 2

    def __float__(self) -> float:
        if self.scores.shape[0] != 1:
            raise TypeError(
                f"float() of BrierScores needs one time point; these are "
                f"{self.scores.shape[0]}. Index .scores, or use integrated_brier_score."
            )
        return float(self.scores[0])

    def __str__(self) -> str:
        shown = ", ".join(f"{t:g}: {s:.4f}" for t, s in zip(self.times[:5], self.scores[:5]))
        more = ", ..." if self.times.shape[0] > 5 else ""
        return (
            f"Brier score at {_times_text(self.times)} = [{shown}{more}] "
            f"({self.conventions.describe(self.shown)}; "
            f"{_subjects(self.n_subjects, self.n_events)})"
        )

    def __repr__(self) -> str:
        return f"<BrierScores {self}>"


@dataclass(frozen=True, eq=False)
class SurvivalScore(FloatLike):
    """One survival score (the integrated Brier score) with its conventions; a float.

    Attributes
    ----------
    name : str
    value : float
    times : ndarray
        The time grid it integrates over.
    conventions : SurvivalConventions
    n_subjects, n_events : int
    """

    name: str
    value: float
    times: np.ndarray
    conventions: SurvivalConventions
    n_subjects: int
    n_events: int
    shown: tuple[str, ...] = ("censoring",)

    def __str__(self) -> str:
        return (
            f"{self.name} = {self.value:.4f} over {_times_text(self.times)} "
            f"({self.conventions.describe(self.shown)}; "
            f"{_subjects(self.n_subjects, self.n_events)})"
        )

    def __repr__(self) -> str:
        return f"<SurvivalScore {self}>"
