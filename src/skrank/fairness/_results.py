"""Results of the exposure measures: per-query values and their means, with the conventions
and the counts behind them. Scores behave as their mean (a float) and print their conventions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numbers import FloatLike
from ._conventions import ExposureConventions, GroupFairnessConventions

__all__ = ["DocumentExposure", "ExpectedExposure", "ExposureScore", "GroupExposure",
           "GroupFairnessScore"]


_MODEL = ("model", "patience", "utility")


@dataclass(frozen=True, eq=False)
class ExposureScore(FloatLike):
    """One expected exposure measure over queries; behaves as its mean (a float).

    Attributes
    ----------
    name : str
        ``"EE-D"`` (disparity), ``"EE-R"`` (relevance) or ``"EE-L"`` (loss).
    value : float
        Mean of :attr:`per_query` over the queries with a value.
    per_query : ndarray of float64
        One value per query of :attr:`qids` (NaN for a query left out by
        ``missing="exclude"``).
    qids : ndarray
        The judged queries, sorted.
    conventions : ExposureConventions
        Every convention in force.
    n_equal_bounds : int
        Queries whose lower and upper bounds are equal, so that ``normalize="bounds"`` gives
        them expeval's fixed value (EE-D 0, EE-R 1, EE-L 0) whatever the rankings.
    """

    name: str
    value: float
    per_query: np.ndarray
    qids: np.ndarray
    conventions: ExposureConventions
    n_equal_bounds: int = 0

    def _equal_text(self) -> str:
        if not (self.n_equal_bounds and self.conventions.normalize == "bounds"):
            return ""
        fixed = {"EE-D": "0", "EE-R": "1", "EE-L": "0"}[self.name]
        return f"{self.n_equal_bounds:,} with equal bounds (fixed at {fixed})"

    def _counts(self) -> str:
        n = int(np.count_nonzero(~np.isnan(self.per_query)))
        extra = self._equal_text()
        return f"{n:,} quer{'y' if n == 1 else 'ies'}" + (f", {extra}" if extra else "")

    def __str__(self) -> str:
        return f"{self.name} = {self.value:.4f} ({self.conventions.describe()}; {self._counts()})"

    def __repr__(self) -> str:
        return f"<ExposureScore {self}>"


@dataclass(frozen=True, eq=False)
class DocumentExposure:
    """Each document's expected exposure in the run and its target exposure.

    One row per document of a judged query that has a target exposure or appears in the
    run, sorted by query. A judged document the run never shows has exposure 0; a document
    of the run without a target (not judged, or not relevant under
    ``judgments="incomplete"``) has target 0.

    Attributes
    ----------
    qid, doc : ndarray
        Query and document.
    exposure : ndarray of float64
        Expected exposure over the run's rankings of the query.
    target : ndarray of float64
        Exposure under the ideal stochastic ranking.
    """

    qid: np.ndarray
    doc: np.ndarray
    exposure: np.ndarray
    target: np.ndarray

    def __len__(self) -> int:
        return int(self.qid.shape[0])

    def __repr__(self) -> str:
        return f"<DocumentExposure {len(self):,} documents>"

    def to_frame(self):
        """The table as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - exercised without pandas
            raise ImportError("to_frame() needs pandas: pip install 'skrank[pandas]'") from exc
        return pd.DataFrame({"qid": self.qid, "doc": self.doc, "exposure": self.exposure,
                             "target": self.target})


@dataclass(frozen=True, eq=False)
class ExpectedExposure:
    """Expected exposure of a stochastic ranking: disparity, relevance and loss.

    Attributes
    ----------
    disparity : ExposureScore
        EE-D, the squared norm of the run's expected exposure (lower: exposure spread more
        evenly).
    relevance : ExposureScore
        EE-R, the dot product of the run's and the target exposure (higher: exposure where
        it is due).
    loss : ExposureScore
        EE-L, the squared distance from the run's to the target exposure (0 is ideal);
        unnormalised, EE-L = EE-D - 2 EE-R + ||target||^2.
    qids : ndarray
        The judged queries, sorted; each measure's ``per_query`` is aligned with them.
    n_samples : ndarray of int64
        Rankings per query in the run (0 for a judged query the run leaves out).
    conventions : ExposureConventions
        Every convention in force.
    groups : bool
        Whether the exposures were summed over groups of documents (expeval's ``-G``).
    n_missing : int
        Judged queries without any ranking in the run (see ``missing``).
    n_unjudged : int
        Queries of the run without a judged document (without a relevant one under
        ``judgments="incomplete"``): they have no target exposure and are left out, as
        expeval does.
    documents : DocumentExposure
        Each document's expected exposure and target exposure.
    """

    disparity: ExposureScore
    relevance: ExposureScore
    loss: ExposureScore
    qids: np.ndarray
    n_samples: np.ndarray
    conventions: ExposureConventions
    groups: bool = False
    n_missing: int = 0
    n_unjudged: int = 0
    documents: DocumentExposure | None = None

    def __iter__(self):
        yield self.disparity
        yield self.relevance
        yield self.loss

    def _counts(self) -> str:
        n = self.qids.shape[0]
        parts = [f"{n:,} judged quer{'y' if n == 1 else 'ies'}"]
        if self.groups:
            parts.append("exposure summed over groups")
        if self.n_missing:
            parts.append(f"{self.n_missing:,} without rankings (missing="
                         f"{self.conventions.missing})")
        if self.n_unjudged:
            parts.append(f"{self.n_unjudged:,} run queries without judgments left out")
        return "; ".join(parts)

    def __str__(self) -> str:
        lines = [f"expected exposure ({self._counts()})"]
        for score, what in zip(self, ("disparity", "relevance", "loss")):
            extra = score._equal_text()
            lines.append(f"  {score.name} = {score.value:.4f}  {what}"
                         + (f"; {extra}" if extra else ""))
        c = self.conventions
        lines.append(f"  user model: {c.describe(tuple(n for n in c.shown if n in _MODEL))}")
        lines.append(f"  scoring: {c.describe(tuple(n for n in c.shown if n not in _MODEL))}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<ExpectedExposure EE-D={self.disparity.value:.4f} "
                f"EE-R={self.relevance.value:.4f} EE-L={self.loss.value:.4f}>")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary: the means, the counts and the conventions."""
        return {
            "disparity": float(self.disparity.value),
            "relevance": float(self.relevance.value),
            "loss": float(self.loss.value),
            "n_queries": int(self.qids.shape[0]),
            "n_missing": self.n_missing,
            "n_unjudged": self.n_unjudged,
            "groups": self.groups,
            "conventions": self.conventions.to_dict(),
        }

    def to_frame(self):
        """Per-query values as a pandas DataFrame indexed by query id (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - exercised without pandas
            raise ImportError("to_frame() needs pandas: pip install 'skrank[pandas]'") from exc
        return pd.DataFrame(
            {"disparity": self.disparity.per_query, "relevance": self.relevance.per_query,
             "loss": self.loss.per_query, "n_samples": self.n_samples},
            index=pd.Index(self.qids, name="qid"),
        )


@dataclass(frozen=True, eq=False)
class GroupFairnessScore(FloatLike):
    """One of Singh & Joachims' group fairness measures; behaves as its mean (a float).

    Attributes
    ----------
    name : str
        ``"demographic parity"``, ``"disparate treatment"`` or ``"disparate impact"``.
    value : float
        Mean of :attr:`per_query` over the queries where it is defined.
    per_query : ndarray of float64
        The first group's quantity compared with the second's in each query (ratio or
        difference, see ``compare``); NaN where undefined (a group absent from the query,
        without merit, or a ratio over 0).
    qids : ndarray
        The queries.
    conventions : GroupFairnessConventions
    group_labels : tuple
        The two groups, first and second.
    """

    name: str
    value: float
    per_query: np.ndarray
    qids: np.ndarray
    conventions: GroupFairnessConventions
    group_labels: tuple

    @property
    def n_undefined(self) -> int:
        """Queries where the measure is undefined (left out of the mean)."""
        return int(np.count_nonzero(np.isnan(self.per_query)))

    def __str__(self) -> str:
        n = self.per_query.shape[0] - self.n_undefined
        undefined = f", {self.n_undefined:,} undefined" if self.n_undefined else ""
        first, second = self.group_labels
        return (f"{self.name} = {self.value:.4f} ({self.conventions.describe()}; groups "
                f"{first!r} vs {second!r}; {n:,} quer{'y' if n == 1 else 'ies'}{undefined})")

    def __repr__(self) -> str:
        return f"<GroupFairnessScore {self}>"


@dataclass(frozen=True, eq=False)
class GroupExposure:
    """Exposure of two groups of items under a stochastic ranking policy, against merit.

    Attributes
    ----------
    demographic_parity : GroupFairnessScore
        Mean exposure of the first group compared with the second's.
    disparate_treatment : GroupFairnessScore
        Exposure per unit of merit, ``exposure / merit``, compared (Singh & Joachims' DTR).
    disparate_impact : GroupFairnessScore
        Expected clicks per unit of merit, ``ctr / merit``, compared (their DIR).
    exposure, merit, ctr : ndarray of shape (n_queries, 2)
        Per query and group: mean exposure ``sum_j P_ij v_j``, mean merit ``u_i`` and mean
        expected clicks ``u_i * sum_j P_ij v_j`` over the group's items (NaN where a group
        has no item in the query).
    qids : ndarray
    group_labels : tuple
    conventions : GroupFairnessConventions
    """

    demographic_parity: GroupFairnessScore
    disparate_treatment: GroupFairnessScore
    disparate_impact: GroupFairnessScore
    exposure: np.ndarray
    merit: np.ndarray
    ctr: np.ndarray
    qids: np.ndarray
    group_labels: tuple
    conventions: GroupFairnessConventions

    def __iter__(self):
        yield self.demographic_parity
        yield self.disparate_treatment
        yield self.disparate_impact

    def __str__(self) -> str:
        first, second = self.group_labels
        n = self.qids.shape[0]
        lines = [f"group fairness of exposure ({n:,} quer{'y' if n == 1 else 'ies'}, groups "
                 f"{first!r} vs {second!r})"]
        for score in self:
            undefined = score.n_undefined
            lines.append(f"  {score.name} = {score.value:.4f}"
                         + (f"; undefined in {undefined:,} queries" if undefined else ""))
        lines.append(f"  {self.conventions.describe()}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<GroupExposure DP={self.demographic_parity.value:.4f} "
                f"DT={self.disparate_treatment.value:.4f} "
                f"DI={self.disparate_impact.value:.4f}>")
