"""Result objects: a metric's mean with its per-query values and the conventions behind it."""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numbers import FloatLike
from ..conventions import Conventions
from ._spec import Metric

__all__ = ["EvaluationResult", "MetricResult"]


def _shown_conventions(metric: Metric, conv: Conventions) -> list[str]:
    names: list[str] = []
    if metric.name in ("ndcg", "dcg"):
        names.append("gain")
    names += ["ties", "empty"]
    if metric.is_binary or metric.name == "err":
        names.append("rel_min")
    if metric.name == "ap":
        names.append("ap_denominator")
    if metric.name == "p":
        names.append("p_divisor")
    if metric.name in ("ndcg", "r", "ap") and conv.idcg != "ranked":
        names.append("idcg")
    if metric.name == "ndcg" and conv.ideal_order != "gain" and isinstance(conv.gain, tuple) \
            and any(b < a for a, b in zip(conv.gain, conv.gain[1:])):
        names.append("ideal_order")  # shown where it changes the value
    if conv.score_precision != "float64":
        names.append("score_precision")
    if metric.k is None and conv.default_k is not None:
        names.append("default_k")
    if metric.name == "ndcg" and conv.arithmetic != "lightgbm":
        names.append("arithmetic")
    if metric.name == "err" and conv.max_label is not None:
        names.append("max_label")
    return names


@dataclass(frozen=True, eq=False)
class MetricResult(FloatLike):
    """One metric over a set of queries: the mean, the per-query values and the conventions.

    ``str(result)`` states the conventions that produced the mean, e.g. ``NDCG@5 = 0.8321
    (gain=exp, ties=pessimistic, empty=exclude; 50 queries, 3 excluded)``. Everywhere else
    a result is its mean, as a float is: ``r + 1``, ``r > 0.5``, ``f"{r:.3f}"``,
    ``round(r, 3)``, ``float(r)``, ``math.isclose(r, 0.5)``, ``np.mean([r1, r2])`` and
    ``r == 0.5`` all use ``value`` (it is a :class:`numbers.Real`). Arithmetic returns plain
    floats: a sum of two results has no conventions of its own. The conventions and the
    per-query values stay on the result itself, and :func:`skrank.stats.paired_comparison`
    and :func:`skrank.stats.compare_many` take results directly.

    Attributes
    ----------
    metric : Metric
        The metric and its cutoff.
    value : float
        The (weighted) mean over the queries that count; NaN when no query counts.
    per_query : ndarray of float64
        One value per query, aligned with ``qids``; NaN for queries left out by
        ``empty="exclude"``.
    qids : ndarray
        Query ids in order of first appearance in the input.
    conventions : Conventions
        Every convention in force.
    n_queries : int
        Number of queries in the input.
    n_empty : int
        Queries without any relevant document (for DCG/NDCG: without positive gain).
    n_tie_affected : int
        Queries where documents with equal scores but different labels fall inside the
        cutoff (or across it, for P, R and hit rate): the value depends on the tie rule.
    tie_interval : tuple of float or None
        ``(low, high)``, when computed (``tie_bounds=True``): the means of the smaller and of
        the larger of each query's values under the pessimistic (worst label first) and the
        optimistic (best label first) ordering rules, so ``low <= high``. It is the range
        over all orders of the tied documents unless the gain table falls somewhere or
        ``ap_denominator="found"``; then it can be narrower.
    """

    metric: Metric
    value: float
    per_query: np.ndarray
    qids: np.ndarray
    conventions: Conventions
    n_queries: int
    n_empty: int
    n_tie_affected: int
    tie_interval: tuple[float, float] | None = None
    weighted: bool = False

    @property
    def n_excluded(self) -> int:
        """Queries left out of the mean (``empty="exclude"``)."""
        return self.n_empty if self.conventions.empty == "exclude" else 0

    @property
    def n_counted(self) -> int:
        """Queries that enter the mean."""
        return self.n_queries - self.n_excluded

    # -- a result is its mean wherever a float is: FloatLike's conversions, ``round`` and
    # format specifications, and below the integer conversions and numbers.Real's parts;
    # its arithmetic and comparisons (set after the class) take numbers only

    def __complex__(self) -> complex:
        return complex(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __trunc__(self) -> int:
        return math.trunc(self.value)

    def __floor__(self) -> int:
        return math.floor(self.value)

    def __ceil__(self) -> int:
        return math.ceil(self.value)

    @property
    def real(self) -> float:
        """The mean (as :attr:`numbers.Real.real`)."""
        return float(self.value)

    @property
    def imag(self) -> float:
        """0.0 (as :attr:`numbers.Real.imag`)."""
        return 0.0

    def conjugate(self) -> float:
        """The mean (as :meth:`numbers.Real.conjugate`)."""
        return float(self.value)

    def describe_conventions(self) -> str:
        """The conventions relevant to this metric, as ``name=value`` pairs."""
        names = _shown_conventions(self.metric, self.conventions)
        if self.weighted and self.conventions.empty == "one":
            names.append("empty_weighted")  # how the 1 of an empty query is weighted
        return self.conventions.describe(names)

    def _counts(self) -> str:
        parts = [f"{self.n_queries} {'query' if self.n_queries == 1 else 'queries'}"]
        if self.n_empty:
            how = {"exclude": "excluded", "zero": "counted 0", "one": "counted 1"}.get(
                self.conventions.empty, "empty"
            )
            parts.append(f"{self.n_empty} without relevant documents ({how})")
        if self.n_tie_affected:
            parts.append(f"{self.n_tie_affected} with ties that change the value")
        if self.weighted:
            parts.append("weighted")
        return ", ".join(parts)

    def __str__(self) -> str:
        text = f"{self.metric.display} = {self.value:.4f}"
        if self.tie_interval is not None:
            lo, hi = self.tie_interval
            text += f" [tie range {lo:.4f}, {hi:.4f}]"
        return f"{text} ({self.describe_conventions()}; {self._counts()})"

    def __repr__(self) -> str:
        return f"<MetricResult {self}>"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (no per-query values)."""
        return {
            "metric": str(self.metric),
            "value": float(self.value),
            "n_queries": self.n_queries,
            "n_empty": self.n_empty,
            "n_excluded": self.n_excluded,
            "n_tie_affected": self.n_tie_affected,
            "tie_interval": list(self.tie_interval) if self.tie_interval else None,
            "conventions": self.conventions.to_dict(),
        }


def _as_number(x: Any) -> Any:
    return float(x.value) if isinstance(x, MetricResult) else x


def _binary(op: Callable[[Any, Any], Any], name: str) -> tuple[Callable, Callable]:
    def forward(self: MetricResult, other: Any) -> Any:
        if isinstance(other, (MetricResult, numbers.Number, np.generic)):
            return op(float(self.value), _as_number(other))
        return NotImplemented

    def reverse(self: MetricResult, other: Any) -> Any:
        if isinstance(other, (numbers.Number, np.generic)):
            return op(other, float(self.value))
        return NotImplemented

    forward.__name__, reverse.__name__ = f"__{name}__", f"__r{name}__"
    return forward, reverse


for _name, _op in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                   ("mod", operator.mod), ("pow", operator.pow), ("divmod", divmod)):
    _f, _r = _binary(_op, _name)
    setattr(MetricResult, f"__{_name}__", _f)
    setattr(MetricResult, f"__r{_name}__", _r)
for _name, _op in (("eq", operator.eq), ("ne", operator.ne), ("lt", operator.lt),
                   ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge)):
    setattr(MetricResult, f"__{_name}__", _binary(_op, _name)[0])
del _name, _op
numbers.Real.register(MetricResult)


@dataclass(frozen=True, eq=False)
class EvaluationResult(Mapping):
    """Several metrics computed in one pass; a read-only mapping from metric name to result.

    Index with a name or a :class:`Metric`: ``result["ndcg@10"]``. ``result.means`` gives the
    means, ``result.to_frame()`` the per-query table as a pandas DataFrame and
    ``result.to_polars()`` as a polars DataFrame.
    """

    metrics: tuple[Metric, ...]
    qids: np.ndarray
    conventions: Conventions
    _results: dict[Metric, MetricResult] = field(repr=False)

    def __getitem__(self, key: str | Metric) -> MetricResult:
        metric = Metric.parse(key)
        try:
            return self._results[metric]
        except KeyError:
            known = ", ".join(str(m) for m in self.metrics)
            raise KeyError(f"{str(metric)!r} was not computed; computed: {known}") from None

    def __iter__(self) -> Iterator[str]:
        return (str(m) for m in self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

    @property
    def n_queries(self) -> int:
        return int(self.qids.shape[0])

    @property
    def means(self) -> dict[str, float]:
        """``{metric name: mean}``."""
        return {str(m): float(self._results[m].value) for m in self.metrics}

    def per_query(self) -> dict[str, np.ndarray]:
        """Columns of the per-query table: ``qid`` then one array per metric."""
        out: dict[str, np.ndarray] = {"qid": self.qids}
        for m in self.metrics:
            out[str(m)] = self._results[m].per_query
        return out

    def to_frame(self):
        """The per-query table as a pandas DataFrame indexed by query id."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - exercised without pandas
            raise ImportError(
                "to_frame() needs pandas: pip install 'skrank[pandas]'"
            ) from exc
        cols = self.per_query()
        qid = cols.pop("qid")
        return pd.DataFrame(cols, index=pd.Index(qid, name="qid"))

    def to_polars(self):
        """The per-query table as a polars DataFrame: a ``qid`` column, then one per metric.

        polars has no index: the query ids are the first column (``to_frame()`` puts them in
        the index). Needs polars (``pip install polars``).

        Examples
        --------
        >>> import skrank
        >>> res = skrank.evaluate([1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2], [7, 7, 8, 8],
        ...                       metrics=["rr"])
        >>> res.to_polars().columns  # doctest: +SKIP
        ['qid', 'rr']
        """
        try:
            import polars as pl
        except ImportError as exc:  # pragma: no cover - exercised without polars
            raise ImportError("to_polars() needs polars: pip install polars") from exc
        return pl.DataFrame(self.per_query())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary of every metric."""
        return {str(m): self._results[m].to_dict() for m in self.metrics}

    def __str__(self) -> str:
        return "\n".join(str(self._results[m]) for m in self.metrics)

    def __repr__(self) -> str:
        return f"<EvaluationResult {self.n_queries} queries: {self.means}>"
