"""Metric specifications that parse from and print back to their names (``"ndcg@10"``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._validation import check_int, param_error

__all__ = ["METRIC_NAMES", "Metric", "parse_metric"]

# canonical name -> (display name, description)
_CANONICAL = {
    "ndcg": ("NDCG", "normalised discounted cumulative gain"),
    "dcg": ("DCG", "discounted cumulative gain"),
    "p": ("P", "precision"),
    "r": ("R", "recall"),
    "hit": ("Hit", "hit rate (success): at least one relevant document"),
    "ap": ("AP", "average precision"),
    "rr": ("RR", "reciprocal rank of the first relevant document"),
    "err": ("ERR", "expected reciprocal rank"),
}
_ALIASES = {
    "ndcg": "ndcg",
    "dcg": "dcg",
    "p": "p",
    "prec": "p",
    "pre": "p",
    "precision": "p",
    "r": "r",
    "recall": "r",
    "hit": "hit",
    "hits": "hit",
    "hit_rate": "hit",
    "hitrate": "hit",
    "success": "hit",
    "ap": "ap",
    "map": "ap",
    "rr": "rr",
    "mrr": "rr",
    "recip_rank": "rr",
    "err": "err",
}
#: Canonical metric names.
METRIC_NAMES = tuple(_CANONICAL)
# metrics whose value depends only on binary relevance (label >= rel_min)
BINARY = frozenset({"p", "r", "hit", "ap", "rr"})

_NAME_RE = re.compile(r"^\s*([A-Za-z_]+)\s*(?:@\s*(\S+))?\s*$")


@dataclass(frozen=True, order=True)
class Metric:
    """A ranking metric and its cutoff, e.g. ``Metric("ndcg", 10)``, printed ``ndcg@10``.

    Parameters
    ----------
    name : {"ndcg", "dcg", "p", "r", "hit", "ap", "rr", "err"}
        Canonical name; aliases such as ``"map"``, ``"mrr"``, ``"precision"``, ``"recall"``,
        ``"success"`` and ``"hit_rate"`` are accepted by :meth:`parse`.
    k : int or None
        Cutoff; ``None`` is the whole ranked list (or the convention ``default_k``).

    Examples
    --------
    >>> from skrank import Metric
    >>> m = Metric.parse("NDCG@10")
    >>> m, str(m), m.display
    (Metric('ndcg@10'), 'ndcg@10', 'NDCG@10')
    >>> Metric.parse("mrr")
    Metric('rr')
    """

    name: str
    k: int | None = None

    def __post_init__(self) -> None:
        if self.name not in _CANONICAL:
            canonical = _ALIASES.get(str(self.name).lower())
            if canonical is None:
                raise param_error(
                    "metric", "one of " + ", ".join(repr(n) for n in METRIC_NAMES), self.name
                )
            object.__setattr__(self, "name", canonical)
        check_int("k", self.k, min_value=1, allow_none=True, caller=self.name)

    @classmethod
    def parse(cls, text: str | Metric) -> Metric:
        """Parse ``"ndcg@10"``, ``"P@5"``, ``"mrr"``, ``"err@20"`` (or pass a Metric through)."""
        if isinstance(text, Metric):
            return text
        if not isinstance(text, str):
            raise param_error("metric", "a metric name such as 'ndcg@10' or a skrank.Metric", text)
        m = _NAME_RE.match(text)
        if m is None:
            raise param_error("metric", "a metric name such as 'ndcg@10', 'ap@10', 'rr'", text)
        name, k_text = m.group(1).lower(), m.group(2)
        if name not in _ALIASES:
            known = ", ".join(f"'{n}'" for n in METRIC_NAMES)
            raise param_error("metric", f"a name from {known} (with an optional @k)", text)
        k = None
        if k_text is not None:
            if not re.fullmatch(r"[0-9]+", k_text) or int(k_text) <= 0:
                raise param_error("k", "a positive int after '@'", text, caller=name)
            k = int(k_text)
        return cls(_ALIASES[name], k)

    @property
    def display(self) -> str:
        """Name for reports, e.g. ``NDCG@10``, ``RR``."""
        base = _CANONICAL[self.name][0]
        return base if self.k is None else f"{base}@{self.k}"

    @property
    def is_binary(self) -> bool:
        """True for metrics of binary relevance (P, R, hit rate, AP, RR)."""
        return self.name in BINARY

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"

    def __repr__(self) -> str:
        return f"Metric({str(self)!r})"


def parse_metric(text: str | Metric) -> Metric:
    """Parse a metric name; see :meth:`Metric.parse`."""
    return Metric.parse(text)
