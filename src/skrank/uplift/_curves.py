"""Uplift and Qini curves, their perfect curves, and the areas under them."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import public_name, validate_params
from ._conventions import (
    CURVE,
    PERFECT_QINI,
    QINI_AUC,
    UPLIFT_AUC,
    UpliftConventions,
    declared,
    resolve,
)
from ._inputs import Rows, check_rows, input_error
from ._ranking import Knots, category_knots, rank
from ._results import UpliftCurve, UpliftScore

_CURVE_NORMALIZE = {"normalize": ("none", "last")}
_CURVE_SHOWN = ("ties", "empty_group", "normalize")


def _ratio(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, int]:
    """``num / den`` with 0 where ``den`` is 0, which (a cumulative count) it is only on a
    prefix; returns the ratio and the length of that prefix."""
    with np.errstate(invalid="ignore", divide="ignore"):
        out = num / den
    empty = int(np.searchsorted(den, 0.0, side="right"))
    out[:empty] = 0.0
    return out, empty


def _fill_prefix(values: np.ndarray, x: np.ndarray, first: int) -> np.ndarray:
    """Draw the points before ``first`` on the line from the origin to ``values[first]``."""
    if first > 1:
        values[1:first] = values[first] * (x[1:first] / x[first])
    values[0] = 0.0
    return values


def curve_values(kn: Knots, kind: str, empty_group: str) -> np.ndarray:
    """The uplift (``kind="uplift"``) or Qini curve at the knots."""
    nt, nc, yt, yc, x = kn.nt, kn.nc, kn.yt, kn.yc, kn.x
    if kind == "uplift":
        values, empty_t = _ratio(yt, nt)
        rate_c, empty_c = _ratio(yc, nc)
        values -= rate_c
        del rate_c
        if empty_group == "interpolate":
            _fill_prefix(values, x, max(empty_t, empty_c))  # over the mean uplift
        values *= x
        return values
    if empty_group == "zero":
        share, _ = _ratio(nt, nc)
        share *= yc
        return np.subtract(yt, share, out=share)  # scikit-uplift's order of operations
    product = yc * nt
    share, empty_c = _ratio(product, nc)  # causalml's: (yc * nt) / nc
    return _fill_prefix(np.subtract(yt, share, out=share), x, empty_c)


def _scale(y: np.ndarray, normalize: str) -> np.ndarray:
    if normalize != "last":
        return y
    last = abs(float(y[-1]))
    if last == 0.0:
        raise input_error(
            "normalize",
            "'none' (or 'perfect' for a score) when the curve ends at 0: normalize='last' "
            "divides the curve by its last point",
            "'last'",
            public_name(),
        )
    return y / last


def area(x: np.ndarray, y: np.ndarray, how: str) -> float:
    """Area under the piecewise linear curve through ``(x, y)``, ``x`` from 0 to n rows."""
    n = float(x[-1])
    dx = np.diff(x)
    if how == "trapezoid":
        return float(np.sum(dx * (y[1:] + y[:-1])) / 2.0 / n)
    # "points": the mean of the curve at 0, 1, ..., n rows
    if np.all(dx == 1.0):
        return float(np.sum(y) / (n + 1.0))
    if np.all(x == np.round(x)):
        total = y[0] + np.sum(dx * (y[1:] + y[:-1]) / 2.0 + (y[1:] - y[:-1]) / 2.0)
        return float(total / (n + 1.0))
    return float(np.interp(np.arange(int(n) + 1), x, y).sum() / (n + 1.0))


def _curve(kind: str, rows: Rows, kn: Knots, conv: UpliftConventions,
           shown: tuple[str, ...] = _CURVE_SHOWN) -> UpliftCurve:
    y = _scale(curve_values(kn, kind.split()[-1], conv.empty_group), conv.normalize)
    return UpliftCurve(kind, kn.x, y, conv, shown, rows.n, rows.n_treatment, rows.n_control,
                       kn.n_tied)


def _perfect_uplift_score(rows: Rows) -> np.ndarray:
    y = rows.y.astype(bool)
    t = rows.treated
    control_responders = int(np.count_nonzero(y & ~t))
    treated_non_responders = int(np.count_nonzero(t & ~y))
    summand = y if control_responders > treated_non_responders else t
    return (2 * (y == t) + summand).astype(np.int8)


def _perfect_qini_score(rows: Rows) -> np.ndarray:
    y = rows.y.astype(np.int8)
    return np.where(rows.treated, y, -y).astype(np.int8)


def _perfect_knots(rows: Rows, kind: str, ties: str, kn: Knots | None = None) -> Knots:
    """Knots of the perfect ranking; under grouped ties from the four counts of (treated,
    outcome), read off the model's knots when given."""
    if ties != "group":
        score = _perfect_uplift_score(rows) if kind == "uplift" else _perfect_qini_score(rows)
        return rank(rows, score, ties)
    if kn is not None:
        yt, yc = float(kn.yt[-1]), float(kn.yc[-1])
    else:
        y = rows.y.astype(bool)
        yt = float(np.count_nonzero(y & rows.treated))
        yc = float(np.count_nonzero(y) - yt)
    n_cat = {(1, 1): yt, (1, 0): rows.n_treatment - yt, (0, 1): yc, (0, 0): rows.n_control - yc}
    if kind == "uplift":
        by_y = n_cat[(0, 1)] > n_cat[(1, 0)]  # control responders vs treated non-responders
        score = {c: 2 * (c[1] == c[0]) + (c[1] if by_y else c[0]) for c in n_cat}
    else:
        score = {c: c[1] if c[0] == 1 else -c[1] for c in n_cat}
    return category_knots(n_cat, score)


def _perfect_qini(rows: Rows, conv: UpliftConventions,
                  model: Knots | None = None) -> UpliftCurve:
    if conv.negative_effect:
        kn = _perfect_knots(rows, "qini", conv.ties, model)
        return _curve("perfect qini", rows, kn, conv,
                      ("negative_effect", *_CURVE_SHOWN))
    y = rows.y.astype(np.float64)
    t = rows.treated
    net = float(y[t].sum() - rows.n_treatment * y[~t].sum() / rows.n_control)
    if net < 0:
        raise input_error(
            "negative_effect",
            "True when the treatment's average effect is negative (the perfect Qini curve of "
            "a treatment that harms no one cannot end below 0)",
            f"False with {net:.6g} net responses",
            public_name(),
        )
    x = np.array([0.0, net, float(rows.n)])
    yv = _scale(np.array([0.0, net, net]), conv.normalize)
    return UpliftCurve("perfect qini", x, yv, conv, ("negative_effect", "normalize"),
                       rows.n, rows.n_treatment, rows.n_control, 0)


@validate_params(declared("preset", "ties", "empty_group", "normalize"))
def uplift_curve(
    y_true: Any,
    uplift: Any,
    treatment: Any,
    *,
    ties: str | None = None,
    empty_group: str | None = None,
    normalize: str | None = None,
    preset: str | None = None,
) -> UpliftCurve:
    """The uplift curve: uplift among the first rows times their number.

    At ``x`` rows (highest predicted uplift first) the curve is ``(treated response rate -
    control response rate) * x`` over those rows. It ends at the average effect times the
    number of rows.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Outcomes (binary or real).
    uplift : array-like of shape (n_rows,)
        Predicted uplift; higher is targeted first. NaN is refused.
    treatment : array-like of shape (n_rows,)
        1 (or True) for treated rows, 0 (or False) for control rows; both groups present.
    ties : {"group", "input", "reverse", "unstable"}, optional
        Order of rows with equal scores; default ``"group"``.
    empty_group : {"zero", "interpolate"}, optional
        Points where a group has no row yet; default ``"zero"``.
    normalize : {"none", "last"}, optional
        ``"last"`` divides the curve by the absolute value of its last point; default
        ``"none"``.
    preset : {"sklift", "causalml"}, optional
        The conventions of scikit-uplift's ``uplift_curve`` or causalml's ``get_cumgain``;
        conventions passed by name override it.

    Returns
    -------
    UpliftCurve
        Unpacks as ``x, y``; ``x`` counts rows.

    See Also
    --------
    uplift_auc_score, perfect_uplift_curve, UpliftConventions

    Examples
    --------
    >>> from skrank.uplift import uplift_curve
    >>> y = [1, 1, 0, 1, 0, 0, 1, 0]
    >>> t = [1, 1, 0, 1, 0, 1, 0, 0]
    >>> s = [0.9, 0.8, 0.8, 0.5, 0.5, 0.3, 0.2, 0.2]
    >>> x, values = uplift_curve(y, s, t)
    >>> x.tolist(), values.tolist()
    ([0.0, 1.0, 3.0, 5.0, 6.0, 8.0], [0.0, 1.0, 3.0, 5.0, 4.5, 4.0])
    >>> print(uplift_curve(y, s, t, preset="causalml"))
    uplift curve: 9 points ending at 4.0000 (ties=unstable, empty_group=interpolate,
    normalize=none; 8 rows: 4 treated, 4 control)
    """
    conv = resolve(CURVE, preset, _CURVE_NORMALIZE, ties=ties, empty_group=empty_group,
                   normalize=normalize)
    rows = check_rows(y_true, uplift, treatment)
    return _curve("uplift", rows, rank(rows, rows.score, conv.ties), conv)


@validate_params(declared("preset", "ties", "empty_group", "normalize"))
def qini_curve(
    y_true: Any,
    uplift: Any,
    treatment: Any,
    *,
    ties: str | None = None,
    empty_group: str | None = None,
    normalize: str | None = None,
    preset: str | None = None,
) -> UpliftCurve:
    """The Qini curve: net responses among the first rows, the control scaled to the treated.

    At ``x`` rows (highest predicted uplift first) the curve is ``treated responses - control
    responses * treated rows / control rows`` over those rows (Radcliffe, 2007).

    Parameters
    ----------
    y_true, uplift, treatment : array-like of shape (n_rows,)
        Outcomes, predicted uplift and treatment flag, as in :func:`uplift_curve`.
    ties, empty_group, normalize, preset
        As in :func:`uplift_curve`; ``preset="causalml"`` reproduces ``get_qini``.

    Returns
    -------
    UpliftCurve

    See Also
    --------
    qini_auc_score, perfect_qini_curve

    Examples
    --------
    >>> from skrank.uplift import qini_curve
    >>> y = [1, 1, 0, 1, 0, 0, 1, 0]
    >>> t = [1, 1, 0, 1, 0, 1, 0, 0]
    >>> s = [0.9, 0.8, 0.8, 0.5, 0.5, 0.3, 0.2, 0.2]
    >>> curve = qini_curve(y, s, t)
    >>> curve.y.tolist()
    [0.0, 1.0, 2.0, 3.0, 3.0, 2.0]
    """
    conv = resolve(CURVE, preset, _CURVE_NORMALIZE, ties=ties, empty_group=empty_group,
                   normalize=normalize)
    rows = check_rows(y_true, uplift, treatment)
    return _curve("qini", rows, rank(rows, rows.score, conv.ties), conv)


@validate_params(declared("preset", "ties", "empty_group", "normalize"))
def perfect_uplift_curve(
    y_true: Any,
    treatment: Any,
    *,
    ties: str | None = None,
    empty_group: str | None = None,
    normalize: str | None = None,
    preset: str | None = None,
) -> UpliftCurve:
    """The uplift curve of the best possible ranking (binary outcomes).

    Ranks treated responders and control non-responders first, then the rest as
    scikit-uplift does (the larger of control responders and treated non-responders last).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Binary outcomes.
    treatment : array-like of shape (n_rows,)
        Treatment flag.
    ties, empty_group, normalize, preset
        As in :func:`uplift_curve`.

    Returns
    -------
    UpliftCurve

    Examples
    --------
    >>> from skrank.uplift import perfect_uplift_curve
    >>> y = [1, 1, 0, 1, 0, 0, 1, 0]
    >>> t = [1, 1, 0, 1, 0, 1, 0, 0]
    >>> perfect_uplift_curve(y, t).y.tolist()
    [0.0, 3.0, 6.0, 5.25, 4.0]
    """
    conv = resolve(CURVE, preset, _CURVE_NORMALIZE, ties=ties, empty_group=empty_group,
                   normalize=normalize)
    rows = check_rows(y_true, None, treatment, binary_y=True)
    kn = _perfect_knots(rows, "uplift", conv.ties)
    return _curve("perfect uplift", rows, kn, conv)


@validate_params(declared("preset", "ties", "empty_group", "normalize", "negative_effect"))
def perfect_qini_curve(
    y_true: Any,
    treatment: Any,
    negative_effect: bool | None = None,
    *,
    ties: str | None = None,
    empty_group: str | None = None,
    normalize: str | None = None,
    preset: str | None = None,
) -> UpliftCurve:
    """The Qini curve of the best possible ranking (binary outcomes).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Binary outcomes.
    treatment : array-like of shape (n_rows,)
        Treatment flag.
    negative_effect : bool, optional
        ``True`` (default): treated responders first, control responders last. ``False``:
        the curve of a treatment that harms no one, rising by one per row up to the net
        responses and flat after; an error when the average effect is negative.
    ties, empty_group, normalize, preset
        As in :func:`uplift_curve`.

    Returns
    -------
    UpliftCurve

    Examples
    --------
    >>> from skrank.uplift import perfect_qini_curve
    >>> y = [1, 1, 0, 1, 0, 0, 1, 0]
    >>> t = [1, 1, 0, 1, 0, 1, 0, 0]
    >>> curve = perfect_qini_curve(y, t, negative_effect=False)
    >>> curve.x.tolist(), curve.y.tolist()
    ([0.0, 2.0, 8.0], [0.0, 2.0, 2.0])

    Without the treatment's average effect positive, ``negative_effect=False`` has no
    perfect curve:

    >>> y, t = [1, 0, 1, 0, 0, 1], [1, 1, 0, 0, 1, 0]
    >>> perfect_qini_curve(y, t, negative_effect=False)
    Traceback (most recent call last):
    ...
    skrank.exceptions.InputError: The 'negative_effect' parameter of perfect_qini_curve must be
    True when the treatment's average effect is negative (the perfect Qini curve of a treatment
    that harms no one cannot end below 0). Got False with -1 net responses instead.
    """
    conv = resolve(PERFECT_QINI, preset, _CURVE_NORMALIZE, ties=ties,
                   empty_group=empty_group, normalize=normalize, negative_effect=negative_effect)
    rows = check_rows(y_true, None, treatment, binary_y=True)
    return _perfect_qini(rows, conv)


def _score(
    name: str,
    kind: str,
    rows: Rows,
    conv: UpliftConventions,
) -> UpliftScore:
    caller = public_name()
    kn = rank(rows, rows.score, conv.ties)
    actual = _scale(curve_values(kn, kind, conv.empty_group), conv.normalize)
    random = float(actual[-1]) / 2.0 if conv.baseline == "random" else 0.0
    value = area(kn.x, actual, conv.area) - random
    shown = ("ties", "empty_group", "normalize", "baseline", "area")
    if conv.normalize == "perfect":
        if kind == "qini":
            shown += ("negative_effect",)
            perfect = _perfect_qini(rows, conv, kn)
        else:
            pkn = _perfect_knots(rows, "uplift", conv.ties, kn)
            perfect = _curve("perfect uplift", rows, pkn, conv)
        best = area(perfect.x, perfect.y, conv.area) - (
            float(perfect.y[-1]) / 2.0 if conv.baseline == "random" else 0.0
        )
        if best == 0.0:
            raise input_error(
                "normalize",
                "'last' or 'none' here: normalize='perfect' divides by the area of the perfect "
                "curve above the baseline, which is 0 for these outcomes",
                "'perfect'",
                caller,
            )
        value /= best
    return UpliftScore(name, value, conv, shown, rows.n, rows.n_treatment, rows.n_control,
                       kn.n_tied)


@validate_params(declared("preset", "ties", "empty_group", "normalize", "baseline", "area"))
def uplift_auc_score(
    y_true: Any,
    uplift: Any,
    treatment: Any,
    *,
    ties: str | None = None,
    empty_group: str | None = None,
    normalize: str | None = None,
    baseline: str | None = None,
    area: str | None = None,
    preset: str | None = None,
) -> UpliftScore:
    """Area under the uplift curve (AUUC), normalised as asked.

    By default (and with ``preset="sklift"``) the area between the uplift curve and the line
    of random targeting, divided by the same area of the perfect curve: 1 for a perfect
    ranking, 0 for a random one. ``preset="causalml"`` gives causalml's ``auuc_score``: the
    mean of the curve divided by its last point, no baseline.

    Parameters
    ----------
    y_true, uplift, treatment : array-like of shape (n_rows,)
        Outcomes, predicted uplift and treatment flag. ``normalize="perfect"`` needs binary
        outcomes.
    ties : {"group", "input", "reverse", "unstable"}, optional
        Order of rows with equal scores; default ``"group"``.
    empty_group : {"zero", "interpolate"}, optional
        Points where a group has no row yet; default ``"zero"``.
    normalize : {"perfect", "last", "none"}, optional
        Default ``"perfect"``.
    baseline : {"random", "none"}, optional
        Default ``"random"``.
    area : {"trapezoid", "points"}, optional
        Default ``"trapezoid"``.
    preset : {"sklift", "causalml"}, optional
        Conventions of a library; conventions passed by name override it.

    Returns
    -------
    UpliftScore
        Usable as a float; prints its conventions.

    See Also
    --------
    uplift_curve, qini_auc_score, UpliftConventions

    Examples
    --------
    >>> from skrank.uplift import uplift_auc_score
    >>> y = [1, 1, 0, 1, 0, 0, 1, 0]
    >>> t = [1, 1, 0, 1, 0, 1, 0, 0]
    >>> s = [0.9, 0.8, 0.8, 0.5, 0.5, 0.3, 0.2, 0.2]
    >>> score = uplift_auc_score(y, s, t)
    >>> print(score)
    uplift AUC = 0.7959 (ties=group, empty_group=zero, normalize=perfect, baseline=random,
    area=trapezoid; 8 rows: 4 treated, 4 control; 6 rows share a score (grouped))
    >>> round(score, 4), f"{score:.2f}", score > 0.5, float(score) * 2
    (0.7959, '0.80', True, 1.5918367346938775)
    """
    conv = resolve(UPLIFT_AUC, preset, ties=ties, empty_group=empty_group,
                   normalize=normalize, baseline=baseline, area=area)
    rows = check_rows(y_true, uplift, treatment,
                      binary_y=conv.normalize == "perfect")
    return _score("uplift AUC", "uplift", rows, conv)


@validate_params(declared("preset", "ties", "empty_group", "normalize", "baseline", "area",
                          "negative_effect"))
def qini_auc_score(
    y_true: Any,
    uplift: Any,
    treatment: Any,
    negative_effect: bool | None = None,
    *,
    ties: str | None = None,
    empty_group: str | None = None,
    normalize: str | None = None,
    baseline: str | None = None,
    area: str | None = None,
    preset: str | None = None,
) -> UpliftScore:
    """Area under the Qini curve (the Qini coefficient), normalised as asked.

    By default (and with ``preset="sklift"``) the area between the Qini curve and the line of
    random targeting divided by the same area of the perfect Qini curve.
    ``preset="causalml"`` gives causalml's ``qini_score``: the mean of the curve divided by
    its last point, minus the mean of the random line.

    Parameters
    ----------
    y_true, uplift, treatment : array-like of shape (n_rows,)
        Outcomes, predicted uplift and treatment flag.
    negative_effect : bool, optional
        Whether the perfect curve ranks harmed rows last (default ``True``); see
        :func:`perfect_qini_curve`.
    ties, empty_group, normalize, baseline, area, preset
        As in :func:`uplift_auc_score`.

    Returns
    -------
    UpliftScore

    Examples
    --------
    >>> from skrank.uplift import qini_auc_score
    >>> y = [1, 1, 0, 1, 0, 0, 1, 0]
    >>> t = [1, 1, 0, 1, 0, 1, 0, 0]
    >>> s = [0.9, 0.8, 0.8, 0.5, 0.5, 0.3, 0.2, 0.2]
    >>> print(qini_auc_score(y, s, t, preset="sklift"))
    Qini AUC = 0.7727 (ties=group, empty_group=zero, normalize=perfect, baseline=random,
    area=trapezoid, negative_effect=True; 8 rows: 4 treated, 4 control; 6 rows share a score
    (grouped))
    >>> print(qini_auc_score(y, s, t, preset="causalml"))
    Qini AUC = 0.4259 (ties=unstable, empty_group=interpolate, normalize=last, baseline=random,
    area=points; 8 rows: 4 treated, 4 control; 6 rows share a score (their order counts))
    """
    conv = resolve(QINI_AUC, preset, ties=ties, empty_group=empty_group,
                   normalize=normalize, baseline=baseline, area=area,
                   negative_effect=negative_effect)
    rows = check_rows(y_true, uplift, treatment,
                      binary_y=conv.normalize == "perfect")
    return _score("Qini AUC", "qini", rows, conv)
