"""Results of the uplift metrics: scores usable as floats, curves usable as arrays, and the
table by percentile. Each carries and prints the conventions that produced it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numbers import FloatLike
from ._conventions import UpliftConventions

__all__ = ["UpliftByPercentile", "UpliftCurve", "UpliftScore"]


def _rows_text(n: int, n_treatment: int, n_control: int) -> str:
    return f"{n:,} rows: {n_treatment:,} treated, {n_control:,} control"


@dataclass(frozen=True, eq=False)
class UpliftScore(FloatLike):
    """One uplift score with the conventions behind it; behaves as a float.

    ``float(score)``, arithmetic, comparisons, ``round`` and format specifications use
    :attr:`value`; ``str(score)`` states the conventions, e.g.
    ``Qini AUC = 0.2538 (ties=group, ...; 12 rows: 6 treated, 6 control)``.

    Attributes
    ----------
    name : str
        What was measured, e.g. ``"Qini AUC"`` or ``"uplift@30%"``.
    value : float
        The score.
    conventions : UpliftConventions
        Every convention in force (only those that matter to this score are printed).
    shown : tuple of str
        The conventions printed.
    n_rows, n_treatment, n_control : int
        Rows scored, treated and control.
    n_tied : int
        Rows whose uplift score equals another row's: their order is set by ``ties``.
    detail : str
        What else matters to this score (e.g. the rows in the top k).
    settings : str
        Arguments printed before the conventions (e.g. ``strategy=overall``).
    """

    name: str
    value: float
    conventions: UpliftConventions
    shown: tuple[str, ...]
    n_rows: int
    n_treatment: int
    n_control: int
    n_tied: int = 0
    detail: str = ""
    settings: str = ""

    def describe_conventions(self) -> str:
        """The conventions that matter to this score, as ``name=value`` pairs."""
        text = self.conventions.describe(self.shown)
        return f"{self.settings}, {text}" if self.settings else text

    def _counts(self) -> str:
        parts = [_rows_text(self.n_rows, self.n_treatment, self.n_control)]
        if self.detail:
            parts.append(self.detail)
        if self.n_tied:
            how = "grouped" if self.conventions.ties == "group" else "their order counts"
            parts.append(f"{self.n_tied:,} rows share a score ({how})")
        return "; ".join(parts)

    def __str__(self) -> str:
        return f"{self.name} = {self.value:.4f} ({self.describe_conventions()}; {self._counts()})"

    def __repr__(self) -> str:
        return f"<UpliftScore {self}>"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "name": self.name,
            "value": float(self.value),
            "n_rows": self.n_rows,
            "n_treatment": self.n_treatment,
            "n_control": self.n_control,
            "n_tied": self.n_tied,
            "conventions": self.conventions.to_dict(),
        }


def _pyplot_axes(ax):
    if ax is not None:
        return ax
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised without matplotlib
        raise ImportError(
            "Plotting needs matplotlib; install it with: pip install 'skrank[plot]'"
        ) from exc
    return plt.subplots()[1]


@dataclass(frozen=True, eq=False)
class UpliftCurve:
    """Points of an uplift or Qini curve, with the conventions behind them.

    Unpacks as scikit-uplift's pair of arrays, ``x, y = qini_curve(...)``, and draws itself
    with :meth:`plot`.

    Attributes
    ----------
    kind : str
        ``"uplift"``, ``"qini"``, ``"perfect uplift"`` or ``"perfect qini"``.
    x : ndarray of float64
        Rows targeted, from 0 to ``n_rows``, increasing.
    y : ndarray of float64
        The curve at ``x``: for the uplift curve ``(treated response rate - control response
        rate) * x``, for the Qini curve ``treated responses - control responses * treated /
        control`` among the first ``x`` rows.
    conventions : UpliftConventions
        Every convention in force.
    shown : tuple of str
        The conventions printed.
    n_rows, n_treatment, n_control : int
        Rows, treated and control.
    n_tied : int
        Rows whose score equals another row's.
    """

    kind: str
    x: np.ndarray
    y: np.ndarray
    conventions: UpliftConventions
    shown: tuple[str, ...]
    n_rows: int
    n_treatment: int
    n_control: int
    n_tied: int = 0

    def __iter__(self):
        yield self.x
        yield self.y

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> np.ndarray:
        return (self.x, self.y)[i]

    def __str__(self) -> str:
        return (
            f"{self.kind} curve: {self.x.shape[0]:,} points ending at {self.y[-1]:.4f} "
            f"({self.conventions.describe(self.shown)}; "
            f"{_rows_text(self.n_rows, self.n_treatment, self.n_control)})"
        )

    def __repr__(self) -> str:
        return f"<UpliftCurve {self}>"

    def plot(self, ax=None, *, label: str | None = None, random: bool = True, **kwargs):
        """Draw the curve, and the straight line of random targeting.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; a new figure by default (needs matplotlib,
            ``pip install 'skrank[plot]'``).
        label : str, optional
            Legend label; the curve's kind by default.
        random : bool, default=True
            Also draw the line from the origin to the curve's last point.
        **kwargs
            Passed to ``ax.plot`` for the curve.

        Returns
        -------
        matplotlib.axes.Axes
        """
        ax = _pyplot_axes(ax)
        ax.plot(self.x, self.y, label=label or self.kind, **kwargs)
        if random:
            ax.plot([0, self.x[-1]], [0, self.y[-1]], linestyle="--", color="grey",
                    label="random")
        ax.set_xlabel("rows targeted (highest uplift first)")
        ax.set_ylabel("Qini curve" if self.kind.endswith("qini") else "uplift curve")
        ax.legend()
        return ax


@dataclass(frozen=True, eq=False)
class UpliftByPercentile:
    """Response rates and uplift in bins of rows ranked by uplift (scikit-uplift's table).

    Counts are float64: under ``ties="group"`` a bin edge inside a group of tied rows counts
    each of them by the fraction taken. A bin without treated or control rows has a NaN
    response rate there.

    Attributes
    ----------
    percentiles : list of str
        Bin labels, ``"0-10"``, ``"10-20"``, ...
    n_treatment, n_control : ndarray of float64
        Rows of each group in each bin.
    response_rate_treatment, response_rate_control : ndarray of float64
        Mean outcome of each group in each bin.
    uplift : ndarray of float64
        ``response_rate_treatment - response_rate_control``.
    std_treatment, std_control, std_uplift : ndarray of float64
        Standard errors of the rates, ``sqrt(rate * (1 - rate) / n)``, and of the uplift.
    total : dict
        The same quantities over all rows.
    conventions : UpliftConventions
        Every convention in force.
    strategy : str
        ``"overall"`` or ``"by_group"``.
    """

    percentiles: list[str]
    n_treatment: np.ndarray
    n_control: np.ndarray
    response_rate_treatment: np.ndarray
    response_rate_control: np.ndarray
    uplift: np.ndarray
    std_treatment: np.ndarray
    std_control: np.ndarray
    std_uplift: np.ndarray
    total: dict[str, float]
    conventions: UpliftConventions
    strategy: str

    def __str__(self) -> str:
        head = (
            f"uplift by percentile ({len(self.percentiles)} bins, strategy={self.strategy}, "
            f"{self.conventions.describe(('ties',))})"
        )
        lines = [head, f"{'percentile':>10} {'n_trt':>10} {'n_ctrl':>10} {'uplift':>9}"]
        for p, a, b, u in zip(self.percentiles, self.n_treatment, self.n_control, self.uplift):
            lines.append(f"{p:>10} {a:>10,.0f} {b:>10,.0f} {u:>9.4f}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<UpliftByPercentile {len(self.percentiles)} bins, strategy={self.strategy}>"

    def to_frame(self, *, std: bool = False, total: bool = False):
        """The table as a pandas DataFrame laid out as scikit-uplift's (needs pandas).

        Parameters
        ----------
        std : bool, default=False
            Add ``std_treatment``, ``std_control`` and ``std_uplift``.
        total : bool, default=False
            Add a last row ``"total"`` over all rows (its standard errors are those of the
            rates over all rows; scikit-uplift prints the sum of the bins' instead).
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - exercised without pandas
            raise ImportError("to_frame() needs pandas: pip install 'skrank[pandas]'") from exc
        cols = {
            "n_treatment": self.n_treatment,
            "n_control": self.n_control,
            "response_rate_treatment": self.response_rate_treatment,
            "response_rate_control": self.response_rate_control,
            "uplift": self.uplift,
        }
        if std:
            cols.update(
                std_treatment=self.std_treatment,
                std_control=self.std_control,
                std_uplift=self.std_uplift,
            )
        index = list(self.percentiles)
        frame = {k: list(map(float, v)) for k, v in cols.items()}
        if total:
            index.append("total")
            for k in frame:
                frame[k].append(float(self.total[k]))
        return pd.DataFrame(frame, index=pd.Index(index, name="percentile"))
