"""The result of a beyond-accuracy metric: a number that carries its conventions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numbers import FloatLike

__all__ = ["RecsysScore"]


@dataclass(frozen=True, eq=False)
class RecsysScore(FloatLike):
    """One beyond-accuracy value with the conventions behind it; behaves as a float.

    ``str(score)`` states the conventions and counts, e.g.
    ``Novelty = 2.7464 (count=interactions, ...; 4 users, 12 recommendations)``.

    Attributes
    ----------
    name : str
        What was measured, e.g. ``"Novelty@3"``.
    value : float
        The value.
    conventions : dict
        Every convention of this metric, by name.
    n_users, n_recommendations : int
        Users with a list, and (user, item) recommendations, within the cutoff.
    users : ndarray or None
        The users of :attr:`per_user` (for metrics averaged per user).
    per_user : ndarray or None
        The value of each user (``nan`` for a user left out of the mean).
    detail : str
        What else the data did to this value (e.g. recommended items unseen in training).
    """

    name: str
    value: float
    conventions: dict[str, str]
    n_users: int
    n_recommendations: int
    users: np.ndarray | None = field(default=None, repr=False)
    per_user: np.ndarray | None = field(default=None, repr=False)
    detail: str = ""

    def describe_conventions(self) -> str:
        """The conventions as ``name=value`` pairs."""
        return ", ".join(f"{k}={v}" for k, v in self.conventions.items())

    def __str__(self) -> str:
        counts = f"{self.n_users:,} users, {self.n_recommendations:,} recommendations"
        if self.detail:
            counts += f"; {self.detail}"
        return f"{self.name} = {self.value:.4f} ({self.describe_conventions()}; {counts})"

    def __repr__(self) -> str:
        return f"<RecsysScore {self}>"

    def to_dict(self) -> dict[str, Any]:
        """Name, value, conventions and counts as built-in types."""
        return {"name": self.name, "value": float(self.value),
                "conventions": dict(self.conventions), "n_users": self.n_users,
                "n_recommendations": self.n_recommendations, "detail": self.detail}
