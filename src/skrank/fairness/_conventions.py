"""The conventions of the exposure measures, named and validated, and the presets.

Expected exposure (Diaz et al. 2020) resolves its conventions from skrank's defaults, then a
preset, then the conventions passed by name, as the other families do. Group fairness of
exposure (Singh & Joachims 2018) has two conventions and no preset.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .._validation import Described, Interval, Options, check_choice, param_error

__all__ = [
    "COMPARISONS",
    "EXPOSURE_PRESETS",
    "GRADE_RULES",
    "JUDGMENT_RULES",
    "MISSING_RULES",
    "NORMALIZATIONS",
    "POSITION_BIASES",
    "USER_MODELS",
    "ExposureConventions",
    "GroupFairnessConventions",
]

#: Browsing models that turn a ranking into the exposure of each position.
USER_MODELS = ("gerr", "rbp")
#: How relevance grades enter the target exposure: as given, or all relevant grades as 1.
GRADE_RULES = ("graded", "binary")
#: Whether the judged documents are the whole candidate set (re-ranking) or a pool.
JUDGMENT_RULES = ("incomplete", "complete")
#: How each query's value is scaled: between expeval's bounds, or raw.
NORMALIZATIONS = ("bounds", "none")
#: What a judged query without any ranking in the run is worth.
MISSING_RULES = ("worst", "expeval", "exclude", "error")
#: Names accepted by ``preset=``.
EXPOSURE_PRESETS = ("expeval",)
#: The exposure of position j (1-based) in group fairness of exposure.
POSITION_BIASES = ("log", "reciprocal")
#: How two groups' exposures are compared: ratio (Singh & Joachims' DTR, DIR) or difference.
COMPARISONS = ("ratio", "difference")

_CHOICES = {
    "model": USER_MODELS,
    "grades": GRADE_RULES,
    "judgments": JUDGMENT_RULES,
    "normalize": NORMALIZATIONS,
    "missing": MISSING_RULES,
}

# expeval (github.com/diazf/expeval, commit 69ab070) with no option but the two files:
# -u gerr -p 0.5 -r 0.5, graded, incomplete judgements, normalised; its rule for a judged
# query that the run leaves out is "expeval" (see ExposureConventions.missing)
_PRESETS: dict[str, dict[str, Any]] = {
    "expeval": {
        "model": "gerr",
        "patience": 0.5,
        "utility": 0.5,
        "grades": "graded",
        "judgments": "incomplete",
        "normalize": "bounds",
        "missing": "expeval",
    },
}


def _check_unit(name: str, value: Any, caller: str | None, *, closed: bool) -> float:
    rule = Interval(float, 0, 1, closed="both" if closed else "neither")
    if rule.accepts(value):
        return float(value)
    raise param_error(name, rule.text, value, caller)


@dataclass(frozen=True)
class ExposureConventions:
    """The conventions behind one expected exposure evaluation.

    Parameters
    ----------
    model : {"gerr", "rbp"}, default="gerr"
        The browsing model that gives each position its exposure. ``"rbp"``: the user goes
        from one position to the next with probability ``patience``, so position ``i``
        (0-based) has exposure ``patience**i`` (Moffat & Zobel's RBP). ``"gerr"``: the
        same, but the user also stops after each relevant document with probability
        ``utility``: ``patience**i * (1 - utility)**r`` with ``r`` the relevant documents
        above ``i`` (Chapelle et al.'s ERR cascade; any grade above 0 stops alike).
    patience : float, default=0.5
        Probability of going on to the next position, strictly between 0 and 1
        (expeval's ``-p``).
    utility : float, default=0.5
        GERR's probability of stopping after a relevant document, in [0, 1] (expeval's
        ``-r``); unused by RBP.
    grades : {"graded", "binary"}, default="graded"
        ``"binary"`` counts every grade above 0 as 1 before the target exposure is computed
        (expeval's ``-B``).
    judgments : {"incomplete", "complete"}, default="incomplete"
        ``"incomplete"``: the judged documents are a pool; only relevant ones (grade above
        0) get a target exposure, the collection is taken as unbounded and its other
        documents share no exposure. ``"complete"``: the judged documents are all the
        candidates (re-ranking, expeval's ``-C``): each gets a target exposure, grade 0
        included, and the bounds of the normalisation are those of ``n`` documents.
    normalize : {"bounds", "none"}, default="bounds"
        ``"bounds"``: each query's value is ``(value - lower) / (upper - lower)`` with
        expeval's bounds for that query, and expeval's fixed value (EE-D 0, EE-R 1, EE-L 0)
        where the two bounds are equal. ``"none"``: raw values (expeval's ``-U``).
    missing : {"worst", "expeval", "exclude", "error"}, default="worst"
        A judged query (in incomplete mode: with a relevant document) that has no ranking
        in the run. ``"worst"``: EE-D at its upper bound, EE-R at its lower bound, EE-L at
        its upper bound. ``"expeval"``: as expeval, EE-D at its upper bound, EE-R at its
        lower bound, and EE-L at the upper bound of EE-R (the loss of a ranking that exposes
        nothing, ``||target||**2``, or 0 for a query whose relevant documents share one
        grade, or in group mode). ``"exclude"``: left out of the means. ``"error"``: raise.

    Examples
    --------
    >>> from skrank.fairness import ExposureConventions
    >>> ExposureConventions(model="rbp").describe(("model", "patience"))
    'model=rbp, patience=0.5'
    """

    model: str = "gerr"
    patience: float = 0.5
    utility: float = 0.5
    grades: str = "graded"
    judgments: str = "incomplete"
    normalize: str = "bounds"
    missing: str = "worst"

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            check_choice(name, getattr(self, name), choices)
        object.__setattr__(self, "patience", _check_unit("patience", self.patience, None,
                                                          closed=False))
        object.__setattr__(self, "utility", _check_unit("utility", self.utility, None,
                                                         closed=True))

    @property
    def shown(self) -> tuple[str, ...]:
        """The conventions that matter to these values (``utility`` only under GERR)."""
        return tuple(n for n in CONVENTION_NAMES if n != "utility" or self.model == "gerr")

    def describe(self, names: tuple[str, ...] | None = None) -> str:
        """``name=value`` pairs for the given conventions (those that matter when ``None``)."""
        names = self.shown if names is None else names
        return ", ".join(f"{n}={getattr(self, n):g}" if isinstance(getattr(self, n), float)
                         else f"{n}={getattr(self, n)}" for n in names)

    def to_dict(self) -> dict[str, Any]:
        """The conventions as a plain dict."""
        return asdict(self)


CONVENTION_NAMES = tuple(f.name for f in fields(ExposureConventions))

_PATIENCE = Interval(float, 0, 1, closed="neither")
_UTILITY = Interval(float, 0, 1)


def declared() -> dict[str, Described]:
    """What expected_exposure declares for ``preset`` and each convention: None (not given)
    or a valid value."""
    rules: dict[str, Any] = {"preset": Options(EXPOSURE_PRESETS), "patience": _PATIENCE,
                             "utility": _UTILITY}
    rules.update({name: Options(choices) for name, choices in _CHOICES.items()})
    return {name: Described(rule.text, rule, None) for name, rule in rules.items()}


def resolve(preset: str | None, caller: str, **given: Any) -> ExposureConventions:
    """The conventions of one call: skrank's defaults, then ``preset``, then ``given``."""
    values: dict[str, Any] = {}
    if preset is not None:
        check_choice("preset", preset, EXPOSURE_PRESETS, caller)
        values.update(_PRESETS[preset])
    for name, value in given.items():
        if value is None:
            continue
        if name == "patience":
            value = _check_unit(name, value, caller, closed=False)
        elif name == "utility":
            value = _check_unit(name, value, caller, closed=True)
        else:
            check_choice(name, value, _CHOICES[name], caller)
        values[name] = value
    return ExposureConventions(**values)


@dataclass(frozen=True)
class GroupFairnessConventions:
    """The conventions behind one group fairness of exposure evaluation.

    Parameters
    ----------
    position_bias : {"log", "reciprocal", "custom"}, default="log"
        Exposure of position ``j`` (1-based): ``1 / log2(1 + j)`` (``"log"``, the DCG
        discount Singh & Joachims use), ``1 / j`` (``"reciprocal"``), or the weights given
        as an array (``"custom"``).
    compare : {"ratio", "difference"}, default="ratio"
        How the first group's quantity is compared with the second's: ``a / b`` (Singh &
        Joachims' disparate treatment and disparate impact ratios; 1 is fair) or ``a - b``
        (0 is fair).
    """

    position_bias: str = "log"
    compare: str = "ratio"

    def __post_init__(self) -> None:
        check_choice("position_bias", self.position_bias, (*POSITION_BIASES, "custom"))
        check_choice("compare", self.compare, COMPARISONS)

    def describe(self) -> str:
        """The conventions as ``name=value`` pairs."""
        return f"position_bias={self.position_bias}, compare={self.compare}"

    def to_dict(self) -> dict[str, Any]:
        """The conventions as a plain dict."""
        return asdict(self)
