"""Conventions: every choice that changes a ranking metric, named and validated.

A :class:`Conventions` value holds one choice for each convention; :func:`resolve_conventions`
builds it from a preset and user overrides. Presets reproduce the reference libraries
(see ``docs/conventions.rst`` for what each library does and how it was measured).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Union

from ._validation import check_choice, check_int, check_real, param_error
from .exceptions import InvalidParameterError

__all__ = [
    "AP_DENOMINATORS",
    "ARITHMETICS",
    "EMPTY_RULES",
    "GAINS",
    "IDCG_SOURCES",
    "IDEAL_ORDERS",
    "LABEL_PRECISIONS",
    "PRESETS",
    "P_DIVISORS",
    "SCORE_PRECISIONS",
    "TIE_RULES",
    "WEIGHT_PRECISIONS",
    "Conventions",
    "resolve_conventions",
]

#: Gain functions by name: ``"exp"`` is 2**label - 1, ``"linear"`` is the label itself.
GAINS = ("exp", "linear")
#: How documents with equal scores are ordered.
TIE_RULES = ("pessimistic", "optimistic", "input", "average", "docid")
#: What a query without any relevant document is worth.
EMPTY_RULES = ("exclude", "zero", "one", "error")
#: The denominator of average precision at k.
AP_DENOMINATORS = ("all", "min_k", "found")
#: The divisor of precision at k.
P_DIVISORS = ("k", "min_k_n")
#: Where the ideal DCG (and the number of relevant documents) comes from.
IDCG_SOURCES = ("ranked", "pool")
#: How the ideal ranking of NDCG orders the labels: by decreasing gain, or by decreasing
#: label (LightGBM; differs only for a gain table that does not increase with the label).
IDEAL_ORDERS = ("gain", "label")
#: The precision at which scores are compared before ranking.
SCORE_PRECISIONS = ("float64", "float32")
#: The precision at which labels are held (XGBoost stores them as float32).
LABEL_PRECISIONS = ("float64", "float32")
#: The precision at which row weights are held before a query's mean weight is taken.
WEIGHT_PRECISIONS = ("input", "float32")
#: Order of floating-point operations in NDCG (to reproduce a library to the last bit).
ARITHMETICS = ("lightgbm", "xgboost")
#: Names accepted by ``preset=``.
PRESETS = ("lightgbm", "xgboost", "trec_eval", "trec_eval9", "sklearn", "spark")

GainSpec = Union[str, tuple[float, ...]]  # noqa: UP007 (a runtime alias on Python 3.10)


_GAIN_ALLOWED = "'exp', 'linear', or a non-empty sequence of gains indexed by label"


def _check_gain(value: Any) -> GainSpec:
    if isinstance(value, str):
        try:
            return check_choice("gain", value, GAINS)
        except InvalidParameterError:  # the whole choice: a name or a table
            raise param_error("gain", _GAIN_ALLOWED, value) from None
    if isinstance(value, Mapping):
        keys = list(value.keys())
        if not keys or not all(
            isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in keys
        ):
            raise param_error(
                "gain",
                "'exp', 'linear', a sequence of gains indexed by label, or a mapping "
                "{non-negative int label: gain}",
                value,
            )
        table = [0.0] * (max(keys) + 1)
        for k, v in value.items():
            table[k] = v
        value = table
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and len(value) > 0:
        out = []
        for g in value:
            try:
                out.append(check_real("gain", g))
            except Exception:
                raise param_error(
                    "gain", "a sequence of finite real gains indexed by label", value
                ) from None
        return tuple(out)
    raise param_error("gain", _GAIN_ALLOWED, value)


@dataclass(frozen=True)
class Conventions:
    """The conventions that produce one metric value.

    Values that are names (``ties="pessimistic"``, ``gain="exp"``, ...) are case-insensitive
    and stored in lower case, as metric names (``"NDCG@10"``) and preset names are.

    Parameters
    ----------
    gain : {"exp", "linear"} or sequence of float, default="exp"
        Gain of a label: ``"exp"`` is ``2**label - 1`` (LightGBM, XGBoost, the TREC Web track),
        ``"linear"`` is the label itself (trec_eval, scikit-learn). A sequence (or a mapping
        ``{label: gain}``) is a gain table indexed by integer label, like LightGBM's
        ``label_gain``. Only DCG and NDCG use the gain, and only they refuse what it cannot
        take (a label outside the table, one above 1000 under ``"exp"``, a negative label
        under a gain other than linear): the binary metrics and ERR (whose stopping
        probability has its own ``2**label``, so labels above 1000 are an error) take them.
    ties : {"pessimistic", "optimistic", "input", "average", "docid"}, default="pessimistic"
        Order of documents with equal scores: lower labels first, higher labels first, input
        order (LightGBM, XGBoost), the expected value over all orders of the tied documents
        (scikit-learn's ``ndcg_score``), or document id descending (trec_eval; needs doc ids).
    empty : {"exclude", "zero", "one", "error"}, default="exclude"
        Value of a query without any relevant document: left out of the mean, 0
        (trec_eval, scikit-learn), 1 (LightGBM, XGBoost), or an error.
    rel_min : float, default=1
        Label threshold of the binary metrics (P, R, hit rate, AP, RR) and of ERR's stopping
        probability: a document is relevant when ``label >= rel_min``. Graded metrics (DCG,
        NDCG) use the gain and ignore ``rel_min``.
    ap_denominator : {"all", "min_k", "found"}, default="all"
        Denominator of AP@k: all relevant documents of the query (trec_eval, ranx),
        ``min(relevant, k)`` (LightGBM, XGBoost), or the relevant documents found in the top k
        (torchmetrics).
    p_divisor : {"k", "min_k_n"}, default="k"
        Divisor of P@k: ``k`` (trec_eval) or ``min(k, n)`` for queries with fewer than k
        documents (XGBoost).
    idcg : {"ranked", "pool"}, default="ranked"
        Source of the ideal DCG and of the number of relevant documents: the ranked rows only
        or every judged row, including rows marked as not retrieved (trec_eval).
    ideal_order : {"gain", "label"}, default="gain"
        Order of the labels in NDCG's ideal ranking: by decreasing gain, the true maximum
        DCG, or by decreasing label, as LightGBM builds it. They differ only for a gain table
        that does not increase with the label (``gain=[0, 1, 3, 7.25, 7]``); under
        ``"label"`` NDCG can then exceed 1, as LightGBM's does.
    score_precision : {"float64", "float32"}, default="float64"
        Precision at which scores are compared; XGBoost ranks float32 predictions, so scores
        that differ only in float64 tie there.
    label_precision : {"float64", "float32"}, default="float64"
        Precision at which labels are held: ``"float32"`` rounds them as XGBoost stores them,
        so non-integer labels under linear gain give XGBoost's values bit for bit (integers
        up to 2**24 are exact either way).
    weight_precision : {"input", "float32"}, default="input"
        Precision at which row weights (``sample_weight``) are held before each query's mean
        weight is taken: as given (float16 as float32), or float32 as LightGBM stores them,
        so that its weighted means are reproduced bit for bit from float64 weights too.
    default_k : int or None, default=None
        Cutoff of metrics named without ``@k``; ``None`` is the whole list (XGBoost uses 32).
    max_label : int or None, default=None
        Largest grade of ERR's stopping probability ``(2**l - 1) / 2**max_label``; ``None``
        takes the largest label in ``y_true``.
    empty_weighted : bool, default=True
        Whether the value given to an empty query by ``empty="one"`` is multiplied by the
        query weight in the weighted mean. LightGBM's NDCG adds an unweighted 1.0 (``False``).
    arithmetic : {"lightgbm", "xgboost"}, default="lightgbm"
        Order of the floating-point operations of NDCG: ``DCG * (1 / IDCG)`` (LightGBM) or
        ``sum(gain * discount * (1 / IDCG))`` (XGBoost); under ``"xgboost"`` a weighted P@k
        also adds ``(hits * weight) / divisor`` per query, as XGBoost's ``pre@k`` does, and
        a query's weight is the one weight all its rows carry (XGBoost has one weight per
        query group; rows of a query with different weights are refused).
        Values differ by a few units in the last place at most; this exists only to
        reproduce each library bit for bit.
    metric_exceptions : mapping or tuple, default=()
        Conventions that differ for one metric: ``{metric name: {convention: value}}``, e.g.
        XGBoost's ``pre@k`` scoring a query without relevant documents 0 where its other
        metrics score it 1. Presets fill it in; :meth:`for_metric` applies it. Setting a
        convention explicitly (:meth:`replace`, :func:`resolve_conventions`) sets it for every
        metric, so it leaves the exceptions. Stored as a sorted tuple of pairs (hashable).

    Examples
    --------
    >>> from skrank import Conventions
    >>> c = Conventions(gain="linear", ties="average")
    >>> c.ties
    'average'
    >>> c.describe(("gain", "ties", "empty"))
    'gain=linear, ties=average, empty=exclude'
    """

    gain: GainSpec = "exp"
    ties: str = "pessimistic"
    empty: str = "exclude"
    rel_min: float = 1.0
    ap_denominator: str = "all"
    p_divisor: str = "k"
    idcg: str = "ranked"
    ideal_order: str = "gain"
    score_precision: str = "float64"
    label_precision: str = "float64"
    weight_precision: str = "input"
    default_k: int | None = None
    max_label: int | None = None
    empty_weighted: bool = True
    arithmetic: str = "lightgbm"
    metric_exceptions: Any = ()

    def __post_init__(self) -> None:
        # one case rule for every name: convention values, like metric and preset names,
        # are case-insensitive ("Pessimistic" is "pessimistic")
        for name, choices in _NAMED_CHOICES.items():
            value = getattr(self, name)
            if isinstance(value, str) and value.lower() in choices:  # else: the error shows it
                object.__setattr__(self, name, value.lower())
        object.__setattr__(self, "gain", _check_gain(self.gain))
        check_choice("ties", self.ties, TIE_RULES)
        check_choice("empty", self.empty, EMPTY_RULES)
        object.__setattr__(self, "rel_min", check_real("rel_min", self.rel_min, positive=True))
        check_choice("ap_denominator", self.ap_denominator, AP_DENOMINATORS)
        check_choice("p_divisor", self.p_divisor, P_DIVISORS)
        check_choice("idcg", self.idcg, IDCG_SOURCES)
        check_choice("ideal_order", self.ideal_order, IDEAL_ORDERS)
        check_choice("score_precision", self.score_precision, SCORE_PRECISIONS)
        check_choice("label_precision", self.label_precision, LABEL_PRECISIONS)
        check_choice("weight_precision", self.weight_precision, WEIGHT_PRECISIONS)
        check_int("default_k", self.default_k, min_value=1, allow_none=True)
        if self.default_k is not None and self.default_k > 2**63 - 1:  # int64 in the kernels
            raise param_error("default_k", "an int between 1 and 2**63 - 1, or None",
                              self.default_k)
        check_int("max_label", self.max_label, min_value=0, allow_none=True)
        check_choice("arithmetic", self.arithmetic, ARITHMETICS)
        if not isinstance(self.empty_weighted, bool):
            raise param_error("empty_weighted", "a bool", self.empty_weighted)
        object.__setattr__(self, "metric_exceptions", self._check_exceptions())

    def _check_exceptions(self) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
        value = self.metric_exceptions
        expected = ("{metric name: {convention: value}} (or its sorted tuple of pairs), e.g. "
                    "{'p': {'empty': 'zero'}}")
        try:
            items = dict(value).items()
        except (TypeError, ValueError):
            raise param_error("metric_exceptions", expected, value) from None
        out = []
        for metric, changes in items:
            try:
                changes = dict(changes)
            except (TypeError, ValueError):
                raise param_error("metric_exceptions", expected, value) from None
            if not isinstance(metric, str) or not changes:
                raise param_error("metric_exceptions", expected, value)
            for name in changes:
                if name not in CONVENTION_NAMES:
                    raise param_error(
                        "metric_exceptions",
                        expected + "; conventions are " + ", ".join(CONVENTION_NAMES),
                        value,
                    )
            # validated (and normalised: lower case, gain tables) as conventions of their own
            flat = replace(self, metric_exceptions=(), **changes)
            out.append((metric.lower(),
                        tuple(sorted((k, getattr(flat, k)) for k in changes))))
        return tuple(sorted(out))

    def replace(self, **changes: Any) -> Conventions:
        """Return a copy with some conventions changed (validated).

        A convention changed here holds for every metric: it is removed from the
        ``metric_exceptions`` (unless those are replaced too).
        """
        unknown = set(changes) - set(CONVENTION_NAMES) - {"metric_exceptions"}
        if unknown:
            name = sorted(unknown)[0]
            raise param_error(
                name,
                "not passed: it is not a convention; known are " + ", ".join(CONVENTION_NAMES),
                changes[name],
            )
        if "metric_exceptions" not in changes and self.metric_exceptions:
            kept = []
            for metric, pairs in self.metric_exceptions:
                left = tuple((k, v) for k, v in pairs if k not in changes)
                if left:
                    kept.append((metric, left))
            changes["metric_exceptions"] = tuple(kept)
        return replace(self, **changes)

    def for_metric(self, metric: Any) -> Conventions:
        """The conventions of one metric: these with the metric's exceptions applied.

        ``metric`` is a canonical metric name (``"p"``, ``"ap"``) or a
        :class:`~skrank.Metric`. The result has no exceptions left: it is what produced the
        metric's value (``MetricResult.conventions``).

        Examples
        --------
        >>> from skrank.conventions import preset_conventions
        >>> xgb = preset_conventions("xgboost")
        >>> xgb.empty, xgb.for_metric("p").empty, xgb.for_metric("ndcg").empty
        ('one', 'zero', 'one')
        """
        if not self.metric_exceptions:
            return self
        name = getattr(metric, "name", metric)
        changes = dict(self.exceptions_of(name))
        return replace(self, metric_exceptions=(), **changes)

    def exceptions_of(self, metric: str) -> tuple[tuple[str, Any], ...]:
        """The ``(convention, value)`` pairs that differ for ``metric`` (canonical name)."""
        for name, pairs in self.metric_exceptions:
            if name == metric:
                return pairs
        return ()

    def gain_name(self) -> str:
        """The gain as printed: ``exp``, ``linear`` or ``table[0, 1, 3, ...]``."""
        if isinstance(self.gain, str):
            return self.gain
        shown = ", ".join(_fmt_number(g) for g in self.gain[:6])
        more = ", ..." if len(self.gain) > 6 else ""
        return f"table[{shown}{more}]"

    def describe(self, names: Sequence[str] | None = None) -> str:
        """``name=value`` pairs for the given conventions (all when ``None``)."""
        every = names is None
        names = CONVENTION_NAMES if names is None else names
        parts = []
        for name in names:
            value = self.gain_name() if name == "gain" else getattr(self, name)
            if isinstance(value, float):
                value = _fmt_number(value)
            parts.append(f"{name}={value}")
        if every:
            for metric, pairs in self.metric_exceptions:
                shown = ", ".join(f"{k}={v}" for k, v in pairs)
                parts.append(f"for {metric}: {shown}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The conventions as a plain dict (gain tables as lists), e.g. for JSON.

        ``metric_exceptions`` appears, as ``{metric: {convention: value}}``, only when there
        are exceptions.
        """
        out = {name: getattr(self, name) for name in CONVENTION_NAMES}
        if isinstance(out["gain"], tuple):
            out["gain"] = list(out["gain"])
        if self.metric_exceptions:
            out["metric_exceptions"] = {m: dict(p) for m, p in self.metric_exceptions}
        return out


#: The individual conventions (every field of :class:`Conventions` but ``metric_exceptions``).
CONVENTION_NAMES = tuple(f.name for f in fields(Conventions) if f.name != "metric_exceptions")
# conventions whose values are names from a closed set
_NAMED_CHOICES = {"gain": GAINS, "ties": TIE_RULES, "empty": EMPTY_RULES,
                  "ap_denominator": AP_DENOMINATORS, "p_divisor": P_DIVISORS,
                  "idcg": IDCG_SOURCES, "ideal_order": IDEAL_ORDERS,
                  "score_precision": SCORE_PRECISIONS,
                  "label_precision": LABEL_PRECISIONS,
                  "weight_precision": WEIGHT_PRECISIONS, "arithmetic": ARITHMETICS}


def _fmt_number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


# LightGBM's default label_gain: 2**i - 1 for i = 0..30; label 31 and above is an error there.
_LIGHTGBM_GAIN = tuple(float(2**i - 1) for i in range(31))
# XGBoost computes 2**label - 1 for labels up to 31.
_XGBOOST_GAIN = tuple(float(2**i - 1) for i in range(32))
# Spark's RankingMetrics is binary: a document in the truth set has gain 1 (labels 1..31).
_BINARY_GAIN = (0.0,) + (1.0,) * 31

# Each preset reproduces one library; the comment says where the choice was measured.
_PRESETS: dict[str, dict[str, Any]] = {
    # LightGBM 4.x rank_metric/map_metric: stable sort on float64 (input order), label_gain
    # table, a query with max DCG 0 adds an unweighted 1.0, MAP@k divides by
    # min(relevant, min(k, n)); weights are stored as float32 (label_t) and a query's weight
    # is their float32 mean (metadata.cpp); the ideal DCG takes the labels in decreasing
    # order (CalMaxDCGAtK), whatever their gains.
    "lightgbm": dict(
        gain=_LIGHTGBM_GAIN,
        ideal_order="label",
        ties="input",
        empty="one",
        rel_min=1.0,
        ap_denominator="min_k",
        p_divisor="k",
        idcg="ranked",
        score_precision="float64",
        weight_precision="float32",
        empty_weighted=False,
    ),
    # XGBoost 2.x/3.x ranking metrics: float32 predictions, stable sort, 2**l - 1 gain,
    # top 32 without @k, empty queries count 1 (0 with the "-" suffix: pass empty="zero"),
    # pre@k divides by min(k, n), map@k by min(relevant, k); labels and weights are held as
    # float32 (MetaInfo), one weight per query group, and a weighted pre@k adds
    # (hits * weight) / divisor per query.
    "xgboost": dict(
        gain=_XGBOOST_GAIN,
        ties="input",
        empty="one",
        rel_min=1.0,
        ap_denominator="min_k",
        p_divisor="min_k_n",
        idcg="ranked",
        score_precision="float32",
        label_precision="float32",
        weight_precision="float32",
        default_k=32,
        arithmetic="xgboost",
        empty_weighted=False,
    ),
    # trec_eval 10: score descending, ties by docno descending, gains are the labels,
    # ideal DCG and R from the qrels, topics without relevant documents count 0; scores are
    # C doubles.
    "trec_eval": dict(
        gain="linear",
        ties="docid",
        empty="zero",
        rel_min=1.0,
        ap_denominator="all",
        p_divisor="k",
        idcg="pool",
        score_precision="float64",
    ),
    # scikit-learn ndcg_score/dcg_score: linear gain, ties averaged, a row without relevant
    # items scores 0.
    "sklearn": dict(
        gain="linear",
        ties="average",
        empty="zero",
        rel_min=1.0,
        ap_denominator="all",
        p_divisor="k",
        idcg="ranked",
        score_precision="float64",
    ),
    # Spark's pyspark.mllib RankingMetrics (and pyspark.ml RankingEvaluator, built on it),
    # measured with pyspark 4.3.0 (tests/spark/test_spark_preset.py): the ranked list as given
    # (input order), binary relevance (membership of the truth set; relevance values passed
    # from Python are ignored), precisionAt(k) divides by k, recall and MAP by the truth set's
    # size and meanAveragePrecisionAt(k) by min(|truth|, k), all counting truth documents the
    # ranking missed (the pool), NDCG binary with the ideal DCG of the truth set, an empty
    # truth set scores 0. Repeated predicted ids count again there: skrank refuses them.
    "spark": dict(
        gain=_BINARY_GAIN,
        ties="input",
        empty="zero",
        rel_min=1.0,
        ap_denominator="min_k",
        p_divisor="k",
        idcg="pool",
        score_precision="float64",
    ),
}


# trec_eval 9.x and pytrec_eval (which embeds 9.0.x): trec_eval 10's rules, but run scores
# are read into a C float, so scores equal in float32 tie (then docno decides).
_PRESETS["trec_eval9"] = dict(_PRESETS["trec_eval"], score_precision="float32")

# Per-metric exceptions inside a preset: {preset: {metric name: {convention: value}}}.
_PRESET_METRIC_OVERRIDES: dict[str, dict[str, dict[str, Any]]] = {
    # LightGBM's map@k multiplies the 1.0 of a query without relevant rows by its weight,
    # its ndcg@k does not (measured with LightGBM 4.7.0, tests/reference/test_lightgbm_preset.py).
    "lightgbm": {"ap": {"empty_weighted": True}},
    # XGBoost's pre@k has no special case for queries without relevant rows: they score 0;
    # its map@k weights the 1 of such a query, its ndcg@k does not.
    "xgboost": {"p": {"empty": "zero"}, "ap": {"empty_weighted": True}},
}


@functools.cache
def _preset_conventions(preset: str) -> Conventions:
    # a preset is one complete value: its per-metric exceptions travel with it, so every
    # entry point that receives the Conventions (scorers, training metrics, evaluate) applies
    # them through Conventions.for_metric
    return Conventions(**_PRESETS[preset],
                       metric_exceptions=_PRESET_METRIC_OVERRIDES.get(preset, {}))


def preset_conventions(preset: str) -> Conventions:
    """The :class:`Conventions` of a named preset (immutable, built once)."""
    if isinstance(preset, str) and preset.lower() in PRESETS:
        preset = preset.lower()  # case-insensitive, as every name
    check_choice("preset", preset, PRESETS)
    return _preset_conventions(preset)


def resolve_conventions(
    preset: str | None = None,
    conventions: Conventions | None = None,
    **overrides: Any,
) -> Conventions:
    """Build the conventions of a call: defaults or a preset, then explicit overrides.

    Parameters
    ----------
    preset : {"lightgbm", "xgboost", "trec_eval", "trec_eval9", "sklearn", "spark"} or None
        Start from the conventions of a reference library instead of skrank's defaults
        (``"trec_eval"`` is trec_eval 10, ``"trec_eval9"`` trec_eval 9.x and pytrec_eval,
        ``"spark"`` Spark's ``RankingMetrics``).
    conventions : Conventions or None
        Start from this value instead (exclusive with ``preset``).
    **overrides
        Individual conventions (``gain=``, ``ties=``, ...); ``None`` values are ignored.

    Examples
    --------
    >>> from skrank.conventions import resolve_conventions
    >>> resolve_conventions("lightgbm", ties="pessimistic").describe(("ties", "empty"))
    'ties=pessimistic, empty=one'
    """
    if preset is not None and conventions is not None:
        raise param_error("preset", "None when 'conventions' is given", preset)
    if conventions is not None and not isinstance(conventions, Conventions):
        raise param_error("conventions", "a skrank.Conventions or None", conventions)
    base = conventions if conventions is not None else (
        preset_conventions(preset) if preset is not None else Conventions()
    )
    given = {k: v for k, v in overrides.items() if v is not None}
    return base.replace(**given) if given else base

