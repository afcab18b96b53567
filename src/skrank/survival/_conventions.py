"""The conventions of the survival metrics, named and validated, and the presets that reproduce
scikit-survival and lifelines.

Every function of :mod:`skrank.survival` resolves its conventions in three layers: skrank's
defaults (which are scikit-survival's, so that changing the import keeps the numbers), then a
preset, then the conventions passed by name.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from .._validation import Described, Interval, Options, check_choice, param_error, public_name

__all__ = [
    "CENSORING_SOURCES",
    "ORIENTATIONS",
    "SURVIVAL_PRESETS",
    "TIED_RISK_RULES",
    "TIED_TIME_RULES",
    "SurvivalConventions",
]

#: What a comparable pair with tied risk scores is worth.
TIED_RISK_RULES = ("half", "concordant", "discordant", "exclude")
#: Whether an event and a censored subject with the same time form a comparable pair.
TIED_TIME_RULES = ("censored_later", "exclude")
#: Where the Kaplan-Meier estimate of the censoring distribution comes from.
CENSORING_SOURCES = ("train", "test")
#: What a higher ``estimate`` means: a higher risk (earlier event) or a longer survival.
ORIENTATIONS = ("risk", "survival")
#: Names accepted by ``preset=``.
SURVIVAL_PRESETS = ("sksurv", "lifelines")

# what each library does (measured: tests/survival/test_references.py)
_PRESETS: dict[str, dict[str, Any]] = {
    # scikit-survival 0.28, sksurv.metrics: risk scores, ties within 1e-8 count 1/2, an event
    # and a censored subject at the same time are comparable, IPCW from the training data
    "sksurv": {
        "tied_risk": "half",
        "tied_time": "censored_later",
        "tied_tol": 1e-8,
        "censoring": "train",
        "orientation": "risk",
    },
    # lifelines 0.30, lifelines.utils.concordance_index: predicted survival times, exactly
    # equal predictions count 1/2, the same pairs as scikit-survival (no IPCW in lifelines)
    "lifelines": {
        "tied_risk": "half",
        "tied_time": "censored_later",
        "tied_tol": 0.0,
        "censoring": "train",
        "orientation": "survival",
    },
}


def _check_tol(value: Any, caller: str | None = None) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok and math.isfinite(float(value)) and float(value) >= 0:
        return float(value)
    raise param_error("tied_tol", "a finite real number >= 0", value, caller)


@dataclass(frozen=True)
class SurvivalConventions:
    """The conventions behind one survival metric.

    Parameters
    ----------
    tied_risk : {"half", "concordant", "discordant", "exclude"}, default="half"
        Worth of a comparable pair whose risk scores are tied (within ``tied_tol``): 1/2
        (scikit-survival, lifelines, Harrell), 1, 0, or left out of the denominator too.
        The time-dependent AUC counts tied pairs 1/2 always (the trapezoidal ROC area).
    tied_time : {"censored_later", "exclude"}, default="censored_later"
        Whether an event and a censored subject with the same time form a comparable pair
        (the censored subject is taken to outlive the event: scikit-survival, lifelines) or
        not. Two events at the same time are never comparable.
    tied_tol : float, default=1e-8
        Risk scores with ``abs(a - b) <= tied_tol`` are tied (scikit-survival's ``tied_tol``);
        ``0`` ties only equal scores (lifelines).
    censoring : {"train", "test"}, default="train"
        The Kaplan-Meier estimate of the censoring distribution behind the inverse
        probability of censoring weights (Uno's C, the time-dependent AUC, the Brier
        scores): from ``survival_train`` (scikit-survival) or from ``survival_test`` (what a
        scorer that sees only the test fold can do).
    orientation : {"risk", "survival"}, default="risk"
        What ``estimate`` holds: risk scores, higher meaning an earlier event
        (scikit-survival, ``estimator.predict``), or predicted survival times, higher meaning a
        later event (lifelines). Passing one as the other gives ``1 - C``.

    Examples
    --------
    >>> from skrank.survival import SurvivalConventions
    >>> SurvivalConventions(tied_tol=0).describe(("tied_risk", "tied_tol"))
    'tied_risk=half, tied_tol=0'
    """

    tied_risk: str = "half"
    tied_time: str = "censored_later"
    tied_tol: float = 1e-8
    censoring: str = "train"
    orientation: str = "risk"

    def __post_init__(self) -> None:
        check_choice("tied_risk", self.tied_risk, TIED_RISK_RULES)
        check_choice("tied_time", self.tied_time, TIED_TIME_RULES)
        object.__setattr__(self, "tied_tol", _check_tol(self.tied_tol))
        check_choice("censoring", self.censoring, CENSORING_SOURCES)
        check_choice("orientation", self.orientation, ORIENTATIONS)

    def describe(self, names: tuple[str, ...] | None = None) -> str:
        """``name=value`` pairs for the given conventions (all when ``None``)."""
        names = CONVENTION_NAMES if names is None else names
        return ", ".join(f"{n}={_show(getattr(self, n))}" for n in names)

    def to_dict(self) -> dict[str, Any]:
        """The conventions as a plain dict."""
        return asdict(self)


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


CONVENTION_NAMES = tuple(f.name for f in fields(SurvivalConventions))


def resolve(preset: str | None, **given: Any) -> SurvivalConventions:
    """The conventions of one call: skrank's defaults, then ``preset``, then ``given``."""
    caller = public_name()
    conv = SurvivalConventions()
    if preset is not None:
        check_choice("preset", preset, SURVIVAL_PRESETS, caller)
        conv = SurvivalConventions(**_PRESETS[preset])
    values: dict[str, Any] = {}
    for name, value in given.items():
        if value is None:
            continue
        if name not in CONVENTION_NAMES:
            raise param_error(
                name,
                "not passed: it is not a survival convention; known are "
                + ", ".join(CONVENTION_NAMES),
                value,
                caller,
            )
        if name == "tied_tol":
            values[name] = _check_tol(value, caller)
        else:
            values[name] = check_choice(name, value, _CHOICES[name], caller)
    return replace(conv, **values)


_CHOICES = {
    "tied_risk": TIED_RISK_RULES,
    "tied_time": TIED_TIME_RULES,
    "censoring": CENSORING_SOURCES,
    "orientation": ORIENTATIONS,
}


def declared(*names: str) -> dict[str, Described]:
    """What a public function declares for ``preset`` and the conventions it takes by name:
    None (not given) or a valid value, in the words of :func:`resolve`'s messages."""
    out = {}
    for name in names:
        if name == "preset":
            rule: Options | Interval = Options(SURVIVAL_PRESETS)
        elif name == "tied_tol":
            rule = Interval(float, 0, text="a finite real number >= 0")
        else:
            rule = Options(_CHOICES[name])
        out[name] = Described(rule.text, rule, None)
    return out
