"""Metric specifications that parse from and print back to their names (``"ndcg@10"``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._validation import check_int, param_error
from ..exceptions import InvalidParameterError

__all__ = [
    "METRIC_NAMES",
    "SUCCESS_CUTOFFS",
    "TREC_CUTOFFS",
    "Metric",
    "MetricNameError",
    "parse_metric",
    "parse_metric_list",
]

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
_MAX_K = 2**63 - 1
#: Canonical metric names.
METRIC_NAMES = tuple(_CANONICAL)
# metrics whose value depends only on binary relevance (label >= rel_min)
BINARY = frozenset({"p", "r", "hit", "ap", "rr"})

_NAME_RE = re.compile(r"^\s*([A-Za-z_]+)\s*(?:@\s*(\S+))?\s*$")

#: trec_eval's default cutoffs of ndcg_cut, P, recall, map_cut; and of success.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
# trec_eval's measure families with cutoffs (``P.5``, ``ndcg_cut_10``) and plain measures
_TREC_FAMILIES = {"ndcg_cut": "ndcg", "P": "p", "recall": "r", "map_cut": "ap",
                  "success": "hit"}
_TREC_PLAIN = {"map": "ap", "recip_rank": "rr", "ndcg": "ndcg"}
# the same tables read the other way, for printing: skrank's name -> trec_eval's
_TREC_FAMILY_OF = {name: family for family, name in _TREC_FAMILIES.items()}
_TREC_PLAIN_OF = {name: plain for plain, name in _TREC_PLAIN.items()}
_TREC_RE = re.compile(r"(ndcg_cut|P|recall|map_cut|success)(?:[._]([0-9]+))?")
_TREC_ONE_RE = re.compile(r"\s*(ndcg_cut|P|p|recall|map_cut|success)[._]([0-9]+)\s*")


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
    >>> Metric.parse("ndcg_cut.10"), Metric.parse("P.5")   # trec_eval's names
    (Metric('ndcg@10'), Metric('p@5'))
    >>> Metric('ndcg@10') == Metric("ndcg", 10)           # the repr evaluates back
    True
    """

    name: str
    k: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.name, str) and self.k is None and self.name not in _CANONICAL and (
            "@" in self.name or _TREC_ONE_RE.fullmatch(self.name)
        ):  # Metric("ndcg@10"), as the repr shows it
            parsed = Metric.parse(self.name)
            object.__setattr__(self, "name", parsed.name)
            object.__setattr__(self, "k", parsed.k)
        if self.name not in _CANONICAL:
            canonical = _ALIASES.get(str(self.name).lower())
            if canonical is None:
                raise param_error(
                    "metric", "one of " + ", ".join(repr(n) for n in METRIC_NAMES), self.name
                )
            object.__setattr__(self, "name", canonical)
        check_int("k", self.k, min_value=1, allow_none=True, caller=self.name)
        if self.k is not None and self.k > _MAX_K:  # the kernels hold cutoffs as int64
            raise param_error("k", f"an int between 1 and {_MAX_K} (2**63 - 1), or None for "
                              "the whole list", self.k, self.name)

    @classmethod
    def parse(cls, text: str | Metric) -> Metric:
        """Parse ``"ndcg@10"``, ``"P@5"``, ``"mrr"``, ``"err@20"`` (or pass a Metric through).

        Names are case-insensitive. trec_eval's names of one measure work too:
        ``"ndcg_cut.10"``, ``"P.5"``, ``"recall_100"``, ``"map_cut.10"``, ``"success.5"``,
        ``"map"``, ``"recip_rank"``; see :func:`parse_metric_list` for trec_eval's lists
        (``"P.5,10"``, a family without cutoffs).
        """
        if isinstance(text, Metric):
            return text
        if not isinstance(text, str):
            raise param_error("metric", "a metric name such as 'ndcg@10' or a skrank.Metric", text)
        trec = _TREC_ONE_RE.fullmatch(text)
        if trec is not None:
            family = "P" if trec.group(1) == "p" else trec.group(1)
            return cls(_TREC_FAMILIES[family], int(trec.group(2)))
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


class MetricNameError(InvalidParameterError):
    """A name of a metric list that does not parse: ``part`` is the name, ``cause`` why."""

    def __init__(self, part: str, cause: InvalidParameterError) -> None:
        super().__init__(f"unknown metric {part!r} ({cause})")
        self.part = part
        self.cause = cause


def parse_metric_list(text: str) -> list[Metric]:
    """Metric names, comma-separated; trec_eval's names and lists too (the ``-m`` syntax).

    In trec_eval's syntax numbers after a family name are its cutoffs (``P.5,10`` is P@5
    and P@10) and a family without cutoffs takes trec_eval's default cutoffs
    (:data:`TREC_CUTOFFS`, :data:`SUCCESS_CUTOFFS` for ``success``). Shared by the
    command line (``skrank eval -m``) and the Python API.

    Raises
    ------
    MetricNameError
        For the first name that does not parse (``.part``), with the reason (``.cause``).

    Examples
    --------
    >>> from skrank.metrics._spec import parse_metric_list
    >>> parse_metric_list("ndcg@10, P.5,10, recip_rank")
    [Metric('ndcg@10'), Metric('p@5'), Metric('p@10'), Metric('rr')]
    """
    out: list[Metric] = []
    family: str | None = None  # the trec_eval family the following numbers belong to
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            if family is not None and part.isdigit():
                out.append(Metric(_TREC_FAMILIES[family], int(part)))
                continue
            m = _TREC_RE.fullmatch(part)
            if m:
                family = m.group(1)
                if m.group(2):
                    out.append(Metric(_TREC_FAMILIES[family], int(m.group(2))))
                else:
                    default = SUCCESS_CUTOFFS if family == "success" else TREC_CUTOFFS
                    out += [Metric(_TREC_FAMILIES[family], k) for k in default]
                continue
            family = None
            out.append(Metric.parse(_TREC_PLAIN.get(part, part)))
        except InvalidParameterError as exc:
            raise MetricNameError(part, exc) from None
    return out


def metric_specs(metrics: Any, caller: str) -> list[Metric]:
    """The metrics an ``evaluate``-like call asked for, parsed, in order, without repeats;
    one name or :class:`Metric` is a list of one."""
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Sequence) or len(metrics) == 0:
        raise param_error("metrics", "a non-empty list of metric names such as 'ndcg@10'",
                          metrics, caller)
    return unique_specs(metrics)


def unique_specs(metrics: Any) -> list[Metric]:
    """Each metric name or :class:`Metric` parsed, in order, the first of any repeat kept
    (``"map@10"`` repeats ``"ap@10"``)."""
    specs: list[Metric] = []
    for m in metrics:
        spec = Metric.parse(m)
        if spec not in specs:
            specs.append(spec)
    return specs
