"""The ship / do not ship / inconclusive decision of an A/B test (private).

Conventions named here because they change the decision:

- One **primary** metric decides; its test, for each treatment arm, is one-sided superiority
  in the metric's good direction (``direction``: ``"increase"`` or ``"decrease"``).
- **Guardrails** are non-inferiority tests with stated margins: ``H0: the arm is worse than
  control by the margin or more``. A margin is absolute (the metric's units) or relative
  (``margin_scale="relative"``: a share of the control's value, turned into the metric's units
  with the control's value taken as known, as spotify-confidence does).
- Every test is Welch's t on the :class:`MetricEffect`'s difference, standard error and
  degrees of freedom (CUPED-adjusted, over clusters, as analysed).
- **Corrections**: the primary tests (one per treatment arm) and the guardrail tests (one per
  guardrail and arm) form one family, corrected by Holm (family-wise error, the default),
  Benjamini-Hochberg, Bonferroni or not at all, as in :func:`skrank.stats.multiple_comparisons`.
- **Harm** is flagged without correction (a guard, not a claim): the primary metric
  significantly worse than control, or a guardrail significantly worse than its margin, each by
  the one-sided test at ``alpha``.
- **The rules**, per treatment arm: a sample ratio mismatch makes every arm *inconclusive*
  (the data cannot be trusted); harm makes it *do not ship*; a primary superiority and every
  guardrail's non-inferiority, all at corrected p <= ``alpha``, make it *ship*; anything else
  is *inconclusive*. Overall: the arm that may ship with the largest primary effect, or *do
  not ship* when every arm is harmful, or *inconclusive*.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import stats as sp_stats

from .._validation import Options, check_choice, param_error, validate_params
from ..stats._checks import OPEN_UNIT
from ..stats._corrections import CORRECTIONS, adjust
from ._results import ExperimentResult
from ._sequential_results import Decision, DecisionTest

__all__ = ["DIRECTIONS", "MARGIN_SCALES", "decide"]

DIRECTIONS = ("increase", "decrease")
MARGIN_SCALES = ("absolute", "relative")
_CALLER = "decide"


def _one_sided_p(effect: Any, shift: float, up: bool) -> tuple[float, float]:
    """``(t, p)`` of ``H0: difference <= shift`` (``up``) or ``>= shift``: the p-value that
    the difference lies above (below) ``shift``."""
    d = effect.difference - shift
    if effect.se > 0:
        t = d / effect.se
    else:
        t = 0.0 if d == 0 else math.copysign(math.inf, d)
    p = float(sp_stats.t.sf(t if up else -t, effect.df)) if math.isfinite(t) else (
        0.0 if (t > 0) == up else 1.0)
    return float(t), p


def _margins(guardrails: Any, names: set[str]) -> dict[str, float]:
    if guardrails is None:
        return {}
    allowed = "None or a dict metric name -> non-negative margin"
    if not isinstance(guardrails, Mapping):
        raise param_error("guardrails", allowed, guardrails, _CALLER)
    out = {}
    for k, v in guardrails.items():
        if k not in names:
            raise param_error("guardrails", f"keyed by analysed metrics (one of "
                              f"{sorted(names)!r})", k, _CALLER)
        ok = isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)
        if not (ok and v >= 0):
            raise param_error("guardrails", allowed, {k: v}, _CALLER)
        out[k] = float(v)
    return out


@validate_params({
    "margin_scale": Options(MARGIN_SCALES),
    "alpha": OPEN_UNIT,
    "correction": Options(CORRECTIONS),
})
def decide(
    result: ExperimentResult,
    *,
    primary: str,
    guardrails: Mapping[str, float] | None = None,
    direction: Mapping[str, str] | None = None,
    margin_scale: str = "relative",
    alpha: float = 0.05,
    correction: str = "holm",
) -> Decision:
    """Ship, do not ship or inconclusive: one primary metric decides, guardrails protect.

    The rules are stated in full in the returned :class:`Decision`'s ``rules`` and in
    ``docs/experiments.rst``: a sample ratio mismatch makes the result *inconclusive*; a
    treatment arm whose primary metric is significantly worse, or whose guardrail is
    significantly worse than its margin, is *do not ship*; an arm is *ship* when its primary
    metric is significantly better and every guardrail is shown non-inferior, all after the
    correction across arms and metrics; anything else is *inconclusive*.

    Parameters
    ----------
    result : ExperimentResult
        From :func:`analyze_experiment` (any ``alternative``: the tests here are recomputed
        from each effect's difference, standard error and degrees of freedom).
    primary : str
        The metric that decides (superiority, one-sided in its good direction).
    guardrails : dict or None, default=None
        ``{metric: margin}``: non-inferiority margins, each >= 0, in the scale of
        ``margin_scale``. The test of a guardrail is ``H0: arm worse than control by margin
        or more``.
    direction : dict or None, default=None
        ``{metric: "increase" | "decrease"}``, the good direction of a metric (latency,
        abandonment: ``"decrease"``); metrics not named increase.
    margin_scale : {"relative", "absolute"}, default="relative"
        Margins as a share of the control's value (0.01 is 1% of it) or in the metric's
        units.
    alpha : float, default=0.05
        One-sided level of every test, after ``correction``.
    correction : {"holm", "bh", "bonferroni", "none"}, default="holm"
        Correction of the family of the primary tests (one per arm) and the guardrail tests
        (one per guardrail and arm).

    Returns
    -------
    Decision
        ``.decision`` (``"ship"``, ``"do not ship"`` or ``"inconclusive"``), ``.arm`` (the arm
        to ship, or None), ``.arms`` (the decision of each arm with its reasons) and
        ``.tests`` (every test with its raw and corrected p-values).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skrank.online import analyze_experiment, decide
    >>> rng = np.random.default_rng(0)
    >>> arm = rng.choice(["control", "new"], size=20_000)
    >>> units = pd.DataFrame({
    ...     "arm": arm,
    ...     "clicks": rng.poisson(np.where(arm == "new", 2.1, 2.0)),
    ...     "latency_ms": rng.normal(np.where(arm == "new", 201, 200), 30),
    ... })
    >>> res = analyze_experiment(units, arm="arm", control="control",
    ...                          metrics=["clicks", "latency_ms"])
    >>> d = decide(res, primary="clicks", guardrails={"latency_ms": 0.02},
    ...            direction={"latency_ms": "decrease"})
    >>> d.decision, d.arm
    ('ship', 'new')
    >>> print(d)
    Decision: ship new
      primary clicks; guardrails latency_ms (relative margins); one-sided alpha=0.05, holm
      new: ship
        clicks better (p = 0.0082, holm 0.0082)
        latency_ms non-inferior within 2% (p = 3.2e-08, holm 6.4e-08)
    """
    if not isinstance(result, ExperimentResult):
        raise param_error("result", "an ExperimentResult from analyze_experiment",
                          type(result).__name__, _CALLER)
    names = {e.metric for e in result.effects}
    if not isinstance(primary, str) or primary not in names:
        raise param_error("primary", f"an analysed metric (one of {sorted(names)!r})", primary,
                          _CALLER)
    margins = _margins(guardrails, names)
    if primary in margins:
        raise param_error("guardrails", f"metrics other than the primary {primary!r}",
                          sorted(margins), _CALLER)
    dirs = {}
    if direction is not None:
        if not isinstance(direction, Mapping):
            raise param_error("direction", "None or a dict metric name -> 'increase' or "
                              "'decrease'", direction, _CALLER)
        for k, v in direction.items():
            if k not in names:
                raise param_error("direction", f"keyed by analysed metrics (one of "
                                  f"{sorted(names)!r})", k, _CALLER)
            dirs[k] = check_choice("direction", v, DIRECTIONS, _CALLER)

    treatment = [a for a in result.arms if a != result.control]
    rows: list[dict[str, Any]] = []
    for a in treatment:
        for metric, role in [(primary, "primary")] + [(g, "guardrail") for g in margins]:
            eff = result[metric, a]
            up = dirs.get(metric, "increase") == "increase"
            sign = 1.0 if up else -1.0
            if role == "primary":
                m_abs = 0.0
            else:
                m = margins[metric]
                m_abs = m * abs(eff.value_control) if margin_scale == "relative" else m
            # claim: the difference lies beyond -margin in the good direction
            t, p = _one_sided_p(eff, -sign * m_abs, up)
            # harm: the difference lies beyond -margin in the bad direction
            _, p_harm = _one_sided_p(eff, -sign * m_abs, not up)
            rows.append({"metric": metric, "arm": a, "role": role, "margin": m_abs,
                         "direction": "increase" if up else "decrease", "difference":
                         eff.difference, "statistic": t, "p_value": p, "p_harm": p_harm})
    p_adj = adjust(np.array([r["p_value"] for r in rows]), correction)
    tests = tuple(DecisionTest(
        metric=r["metric"], arm=r["arm"], role=r["role"], direction=r["direction"],
        margin=r["margin"], difference=float(r["difference"]), statistic=r["statistic"],
        p_value=r["p_value"], p_adjusted=float(pa), passed=bool(pa <= alpha),
        harm=bool(r["p_harm"] <= alpha), p_harm=r["p_harm"],
    ) for r, pa in zip(rows, p_adj))

    arms: dict[Any, tuple[str, tuple[str, ...]]] = {}
    relative = margin_scale == "relative"
    for a in treatment:
        mine = [t for t in tests if t.arm == a]
        reasons = [t.describe(margins.get(t.metric, 0.0), relative, correction)
                   for t in mine]
        if result.srm.mismatch:
            verdict = "inconclusive"
            reasons = [f"sample ratio mismatch (p = {result.srm.p_value:.3g} < srm_alpha="
                       f"{result.srm.srm_alpha:g}): the data cannot be trusted", *reasons]
        elif any(t.harm for t in mine):
            verdict = "do not ship"
        elif all(t.passed for t in mine):
            verdict = "ship"
        else:
            verdict = "inconclusive"
        arms[a] = (verdict, tuple(reasons))
    ship = [a for a in treatment if arms[a][0] == "ship"]
    if ship:
        effect = {t.arm: t.difference * (1 if t.direction == "increase" else -1)
                  for t in tests if t.role == "primary"}
        best = max(ship, key=lambda a: effect[a])
        decision, arm = "ship", best
    elif all(arms[a][0] == "do not ship" for a in treatment):
        decision, arm = "do not ship", None
    else:
        decision, arm = "inconclusive", None
    return Decision(
        decision=decision, arm=arm, arms=arms, tests=tests, primary=primary,
        guardrails=tuple(margins), margin_scale=margin_scale, alpha=float(alpha),
        correction=correction, srm_mismatch=result.srm.mismatch,
    )
