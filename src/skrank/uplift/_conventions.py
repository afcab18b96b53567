"""The conventions of the uplift metrics, named and validated, and the presets that reproduce
scikit-uplift and causalml.

Each function of :mod:`skrank.uplift` resolves its conventions from three layers: skrank's
defaults for that kind of function, then a preset, then the conventions passed by name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .._validation import (
    Described,
    InstanceOf,
    Options,
    check_choice,
    param_error,
    public_name,
)

__all__ = [
    "AREAS",
    "BASELINES",
    "EMPTY_GROUP_RULES",
    "NORMALIZATIONS",
    "UPLIFT_PRESETS",
    "UPLIFT_TIE_RULES",
    "UpliftConventions",
]

#: How rows with equal uplift scores are ordered.
UPLIFT_TIE_RULES = ("group", "input", "reverse", "unstable")
#: What a curve point is worth while the treated or the control group has no row yet.
EMPTY_GROUP_RULES = ("zero", "interpolate")
#: How a curve (``"none"``, ``"last"``) or an area (also ``"perfect"``) is normalised.
NORMALIZATIONS = ("perfect", "last", "none")
#: What is subtracted from an area: the straight line of random targeting, or nothing.
BASELINES = ("random", "none")
#: How the area under a curve is measured.
AREAS = ("trapezoid", "points")
#: Names accepted by ``preset=``.
UPLIFT_PRESETS = ("sklift", "causalml")

# the kinds of function, each with its own defaults and preset entries
CURVE, UPLIFT_AUC, QINI_AUC, CUT, PERFECT_QINI = (
    "curve",
    "uplift_auc",
    "qini_auc",
    "cut",
    "perfect_qini",
)

_DEFAULTS: dict[str, dict[str, Any]] = {
    CURVE: {"normalize": "none"},
    PERFECT_QINI: {"normalize": "none"},
    UPLIFT_AUC: {},
    QINI_AUC: {},
    CUT: {},
}

# what each library does, function by function (measured: tests/uplift/test_references.py)
_PRESETS: dict[str, dict[str, dict[str, Any] | None]] = {
    "sklift": {
        CURVE: {"ties": "group", "empty_group": "zero", "normalize": "none"},
        PERFECT_QINI: {"ties": "group", "empty_group": "zero", "normalize": "none"},
        UPLIFT_AUC: {
            "ties": "group",
            "empty_group": "zero",
            "normalize": "perfect",
            "baseline": "random",
            "area": "trapezoid",
        },
        QINI_AUC: {
            "ties": "group",
            "empty_group": "zero",
            "normalize": "perfect",
            "baseline": "random",
            "area": "trapezoid",
            "negative_effect": True,
        },
        # uplift_at_k and uplift_by_percentile cut np.argsort(kind="mergesort")[::-1]
        CUT: {"ties": "reverse"},
    },
    "causalml": {
        CURVE: {"ties": "unstable", "empty_group": "interpolate", "normalize": "none"},
        PERFECT_QINI: None,
        UPLIFT_AUC: {
            "ties": "unstable",
            "empty_group": "interpolate",
            "normalize": "last",
            "baseline": "none",
            "area": "points",
        },
        QINI_AUC: {
            "ties": "unstable",
            "empty_group": "interpolate",
            "normalize": "last",
            "baseline": "random",
            "area": "points",
        },
        CUT: None,  # causalml has no uplift@k and no table by percentile
    },
}


@dataclass(frozen=True)
class UpliftConventions:
    """The conventions behind one uplift curve or score.

    Parameters
    ----------
    ties : {"group", "input", "reverse", "unstable"}, default="group"
        Order of rows with equal uplift scores. ``"group"``: tied rows form one step of the
        curve, so the value does not depend on their order (scikit-uplift's curves); a cutoff
        that falls inside a group of tied rows (uplift@k, percentiles) takes the same fraction
        of each of them, i.e. the expected counts over all orders of the tied rows.
        ``"input"``: tied rows in input order. ``"reverse"``: in reverse input order
        (scikit-uplift's ``uplift_at_k`` and ``uplift_by_percentile``, which cut a stable
        ascending sort read backwards). ``"unstable"``: the order NumPy's default unstable
        sort gives when pandas sorts a column in descending order (causalml); it depends on
        the NumPy version and the CPU, so it reproduces causalml on one machine only.
    empty_group : {"zero", "interpolate"}, default="zero"
        A curve point among the first rows, while the treated or the control group has no row
        yet, needs the response rate of an empty group. ``"zero"``: the empty group's response
        rate counts 0 (scikit-uplift; the perfect curves, which rank one group first, need
        it). ``"interpolate"``: the point is undefined and drawn on the straight line from the
        origin to the first defined point (causalml; for the uplift curve the line is drawn
        over the mean uplift, which the curve multiplies by the number of rows).
    normalize : {"perfect", "last", "none"}, default="perfect" for scores, "none" for curves
        ``"perfect"``: the area is divided by the area of the perfect curve (both measured
        above the baseline; scikit-uplift). ``"last"``: the curve is divided by the absolute
        value of its last point before its area is taken (causalml's ``normalize=True``).
        ``"none"``: raw values. Curves accept ``"last"`` and ``"none"``.
    baseline : {"random", "none"}, default="random"
        What is subtracted from an area: the area under the straight line from the origin to
        the curve's last point (random targeting), or nothing (causalml's AUUC).
    area : {"trapezoid", "points"}, default="trapezoid"
        ``"trapezoid"``: the trapezoidal area under the curve drawn over the fraction of rows
        targeted (scikit-uplift). ``"points"``: the mean of the curve at 0, 1, ..., n rows
        (causalml), which differs from the trapezoid by a term of order 1/n.
    negative_effect : bool, default=True
        Whether the perfect Qini curve may rank rows harmed by the treatment last (it then
        ends lower than it rises). ``False`` draws the perfect curve of a treatment that harms
        no one, which is undefined when the average effect is negative.

    Examples
    --------
    >>> from skrank.uplift import UpliftConventions
    >>> c = UpliftConventions(ties="input")
    >>> c.describe(("ties", "normalize"))
    'ties=input, normalize=perfect'
    """

    ties: str = "group"
    empty_group: str = "zero"
    normalize: str = "perfect"
    baseline: str = "random"
    area: str = "trapezoid"
    negative_effect: bool = True

    def __post_init__(self) -> None:
        check_choice("ties", self.ties, UPLIFT_TIE_RULES)
        check_choice("empty_group", self.empty_group, EMPTY_GROUP_RULES)
        check_choice("normalize", self.normalize, NORMALIZATIONS)
        check_choice("baseline", self.baseline, BASELINES)
        check_choice("area", self.area, AREAS)
        if not isinstance(self.negative_effect, bool):
            raise param_error("negative_effect", "a bool", self.negative_effect)

    def describe(self, names: tuple[str, ...] | None = None) -> str:
        """``name=value`` pairs for the given conventions (all when ``None``)."""
        names = CONVENTION_NAMES if names is None else names
        return ", ".join(f"{n}={getattr(self, n)}" for n in names)

    def to_dict(self) -> dict[str, Any]:
        """The conventions as a plain dict."""
        return asdict(self)


CONVENTION_NAMES = tuple(f.name for f in fields(UpliftConventions))


def resolve(
    kind: str,
    preset: str | None,
    allowed: dict[str, tuple[str, ...]] | None = None,
    **given: Any,
) -> UpliftConventions:
    """The conventions of one call: defaults for ``kind``, then ``preset``, then ``given``.

    ``allowed`` narrows a convention's closed set for this function (curves take
    ``normalize`` in ``("last", "none")``).
    """
    caller = public_name()
    values: dict[str, Any] = dict(_DEFAULTS[kind])
    if preset is not None:
        check_choice("preset", preset, UPLIFT_PRESETS, caller)
        entry = _PRESETS[preset][kind]
        if entry is None:
            raise param_error(
                "preset",
                "'sklift' or None: causalml has no "
                + ("perfect Qini curve" if kind == PERFECT_QINI else "uplift@k or percentiles"),
                preset,
                caller,
            )
        values.update(entry)
    for name, value in given.items():
        if value is None:
            continue
        if name == "negative_effect":
            if not isinstance(value, bool):
                raise param_error(name, "a bool", value, caller)
        else:
            check_choice(name, value, _CHOICES[name], caller)
        values[name] = value
    for name, choices in (allowed or {}).items():
        if name in values:
            check_choice(name, values[name], choices, caller)
    return UpliftConventions(**values)


_CHOICES = {
    "ties": UPLIFT_TIE_RULES,
    "empty_group": EMPTY_GROUP_RULES,
    "normalize": NORMALIZATIONS,
    "baseline": BASELINES,
    "area": AREAS,
}


def declared(*names: str) -> dict[str, Described]:
    """What a public function declares for ``preset`` and the conventions it takes by name:
    None (not given) or a valid value, in the words of :func:`resolve`'s messages."""
    out = {}
    for name in names:
        if name == "preset":
            rule: Options | InstanceOf = Options(UPLIFT_PRESETS)
        elif name == "negative_effect":
            rule = InstanceOf(bool, "a bool")
        else:
            rule = Options(_CHOICES[name])
        out[name] = Described(rule.text, rule, None)
    return out
