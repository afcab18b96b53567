"""Multiple-comparison corrections (Holm, Benjamini-Hochberg, Bonferroni) and comparison tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validation import Options, param_error, public_name, validate_params
from ..exceptions import InputError
from ._checks import OPEN_UNIT, LazyModule
from ._comparison_results import (
    ComparisonRow,
    ComparisonTable,
    MultipleComparisons,
    PairedComparison,
)

__all__ = ["comparison_table", "multiple_comparisons"]

stats = LazyModule("scipy.stats")

CORRECTIONS = ("holm", "bh", "bonferroni", "none")
TESTS = ("randomization", "t", "wilcoxon")


def _holm(p: np.ndarray) -> np.ndarray:
    # Step-down: the i-th smallest p (1-based) is multiplied by m - i + 1, then running maximum.
    # SciPy has no Holm; statsmodels' multipletests (a heavy import) is the tests' oracle.
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def adjust(p: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values of ``p`` (a validated 1-D array in [0, 1]) for ``method``."""
    if p.size == 0:
        return p.copy()
    if method == "holm":
        return _holm(p)
    if method == "bh":  # step-up: the i-th smallest p times m / i, running minimum from the top
        return np.asarray(stats.false_discovery_control(p, method="bh"), dtype=np.float64)
    if method == "bonferroni":
        return np.minimum(p * p.size, 1.0)
    return p.copy()


@validate_params({"method": Options(CORRECTIONS), "alpha": OPEN_UNIT})
def multiple_comparisons(
    pvalues: Any,
    method: str = "holm",
    *,
    alpha: float = 0.05,
) -> MultipleComparisons:
    """Adjust a family of p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of shape (m,) or mapping of str to float
        Raw p-values in [0, 1]; with a mapping, its keys label the tests.
    method : {"holm", "bh", "bonferroni", "none"}, default="holm"
        ``"holm"``: Holm's step-down procedure, controls the family-wise error rate (never less
        powerful than Bonferroni). ``"bh"``: Benjamini-Hochberg step-up, controls the false
        discovery rate (independent or positively dependent tests). ``"bonferroni"``:
        ``min(1, m p)``. ``"none"``: the raw p-values.
    alpha : float, default=0.05
        Level at which ``reject`` is decided (family-wise error rate or FDR).

    Returns
    -------
    MultipleComparisons
        Raw and adjusted p-values in input order and ``reject = adjusted <= alpha``.

    Examples
    --------
    Holm by hand: sorted p-values 0.005, 0.01, 0.03, 0.04 are multiplied by 4, 3, 2, 1
    (0.02, 0.03, 0.06, 0.04) and made non-decreasing (0.02, 0.03, 0.06, 0.06):

    >>> from skrank.stats import multiple_comparisons
    >>> res = multiple_comparisons({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.005})
    >>> res.pvalues_adjusted.round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    >>> res.reject.tolist()
    [True, False, False, True]
    """
    caller = public_name()
    alpha = float(alpha)
    names: tuple[str, ...] | None = None
    if isinstance(pvalues, Mapping):
        names = tuple(str(k) for k in pvalues.keys())
        pvalues = list(pvalues.values())
    try:
        p = np.asarray(pvalues, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{caller}: pvalues must be numbers; got {pvalues!r}.") from None
    if p.ndim != 1:
        raise InputError(f"{caller}: pvalues must be 1-D; got shape {p.shape}.")
    bad = ~((p >= 0.0) & (p <= 1.0))  # also catches NaN
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = names[i] if names is not None else f"position {i}"
        raise InputError(
            f"{caller}: p-values must lie in [0, 1]; {int(bad.sum())} do not "
            f"(first: {float(p[i])!r} at {where})."
        )
    adjusted = adjust(p, method)
    return MultipleComparisons(names, p.copy(), adjusted, adjusted <= alpha, method, alpha)


@validate_params({"correction": Options(CORRECTIONS), "test": Options(TESTS), "alpha": OPEN_UNIT})
def comparison_table(
    comparisons: Mapping[str, PairedComparison],
    *,
    primary: str | None = None,
    correction: str = "holm",
    test: str = "randomization",
    alpha: float = 0.05,
) -> ComparisonTable:
    """Put several paired comparisons in one table with a multiple-comparison correction.

    Use it for any family of comparisons: several systems against one baseline, one pair of
    systems on several metrics, or one comparison per segment.

    Parameters
    ----------
    comparisons : mapping of str to PairedComparison
        The comparisons, labelled; the table keeps this order.
    primary : str or None, default=None
        Name of the pre-registered primary comparison. It is reported with its raw p-value and
        tested at ``alpha`` on its own; the correction applies to the other (secondary)
        comparisons only, as a family. With ``None`` every comparison is in one family.
    correction : {"holm", "bh", "bonferroni", "none"}, default="holm"
        See :func:`multiple_comparisons`.
    test : {"randomization", "t", "wilcoxon"}, default="randomization"
        Whose p-values are corrected and reported.
    alpha : float, default=0.05
        Level at which ``reject`` is decided.

    Returns
    -------
    ComparisonTable

    See Also
    --------
    compare_many : Compute the comparisons and the table in one call.
    """
    caller = public_name()
    alpha = float(alpha)
    if not isinstance(comparisons, Mapping):
        raise param_error("comparisons", "a mapping of names to PairedComparison",
                          type(comparisons).__name__, caller)
    names = [str(k) for k in comparisons]
    for name, comp in comparisons.items():
        if not isinstance(comp, PairedComparison):
            raise param_error(f"comparisons[{name!r}]", "a PairedComparison",
                              type(comp).__name__, caller)
    if primary is not None and primary not in names:
        allowed = "None or one of " + ", ".join(repr(n) for n in names)
        raise param_error("primary", allowed, primary, caller)
    raw = np.array([c.test(test).pvalue for c in comparisons.values()], dtype=np.float64)
    adjusted = raw.copy()
    family = np.array([n != primary for n in names], dtype=bool)
    if family.any():
        adjusted[family] = adjust(raw[family], correction)
    rows = tuple(
        ComparisonRow(
            name=name,
            comparison=comp,
            role="primary" if name == primary else "secondary",
            pvalue=float(raw[i]),
            pvalue_adjusted=float(adjusted[i]),
            reject=bool(adjusted[i] <= alpha),
        )
        for i, (name, comp) in enumerate(zip(names, comparisons.values()))
    )
    return ComparisonTable(rows, correction, test, alpha, primary)
