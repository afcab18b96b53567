"""Analysis of an A/B experiment from a table of units (private).

Conventions named here because they change the numbers:

- One row per randomisation unit (user, session). A metric is a column (its mean over units) or
  a ``(numerator, denominator)`` pair of columns, the ratio of their sums (clicks /
  impressions); a ratio's variance is the delta method's over units (Deng, Knoblich and Lu,
  KDD 2018), as in :func:`ratio_metric`.
- Every treatment arm is compared with the control arm. The test is Welch's t: unequal
  variances, Welch-Satterthwaite degrees of freedom (computed from the linearised variances for
  ratio metrics and CUPED, as tea-tasting does); two-sided unless ``alternative`` says
  ``"greater"`` or ``"less"`` (then the interval is one-sided too, unbounded on the other side).
- The relative effect ``value_arm / value_control - 1`` gets the delta-method interval of
  ``log(value_arm / value_control)``, transformed back (asymmetric, as tea-tasting's).
- CUPED (Deng, Xu, Kohavi and Walker, WSDM 2013): ``Y - theta (X - mean(X))`` with one
  pre-experiment covariate ``X`` per metric; ``theta = Cov(Y, X) / Var(X)`` is pooled over the
  two arms compared (the concatenated sample, about its overall mean), for ratio metrics over
  the delta-method linearisations of ``Y`` and ``X``.
- The sample ratio mismatch (SRM) check runs every time: Pearson's chi-square of the unit
  counts per arm against the planned split (equal by default), flagged when its p-value is
  below ``srm_alpha`` (0.001 by default, the usual threshold: an SRM is a bug to find, not an
  effect to estimate).
- Cluster-randomised experiments (``cluster=``: users within teams, cities, sellers): the
  cluster is the independent observation. Every metric becomes a ratio of cluster sums (a mean
  over units is ``sum of Y / number of units`` per cluster), with the delta method's variance
  over clusters, and the sample ratio check counts clusters. The naive unit-level standard
  error, which treats correlated units as independent, is reported next to it (``naive_se``,
  and the design effect ``(se / naive_se)**2``) and never used for a test or an interval.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import special
from scipy import stats as sp_stats

from .._validation import param_error, validate_params
from ..stats._checks import ALTERNATIVE, OPEN_UNIT
from ..stats._results import Interval
from ._results import ExperimentResult, MetricEffect, SampleRatioCheck
from ._utils import input_error

__all__ = ["analyze_experiment"]

_CALLER = "analyze_experiment"
_METRIC_SPEC = "a column name or a (numerator, denominator) pair of column names"


def _as_frame(data: Any, caller: str = _CALLER) -> Any:
    import narwhals.stable.v2 as nw

    frame = nw.from_native(data, eager_only=True, pass_through=True)
    if not isinstance(frame, nw.DataFrame):
        raise param_error("data", "a pandas, polars or pyarrow DataFrame with one row per unit",
                          type(data).__name__, caller)
    return frame


def nw_dtypes() -> Any:
    import narwhals.stable.v2 as nw

    return nw.dtypes


def _spec(name: str, value: Any) -> tuple[str, str | None]:
    """``(numerator, denominator or None)`` of a metric or covariate specification."""
    if isinstance(value, str):
        return value, None
    if (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(v, str) for v in value)):
        return value[0], value[1]
    raise param_error(name, _METRIC_SPEC, value, _CALLER)


def _spec_name(spec: tuple[str, str | None]) -> str:
    return spec[0] if spec[1] is None else f"{spec[0]}/{spec[1]}"


def _metric_specs(metrics: Any) -> dict[str, tuple[str, str | None]]:
    if isinstance(metrics, Mapping):
        items = [(str(k), _spec("metrics", v)) for k, v in metrics.items()]
    elif isinstance(metrics, (str, tuple)) or not isinstance(metrics, Sequence):
        raise param_error("metrics", f"a list of metrics (each {_METRIC_SPEC}) or a dict "
                          "name -> metric", metrics, _CALLER)
    else:
        items = [(_spec_name(s), s) for s in (_spec("metrics", m) for m in metrics)]
    if not items:
        raise param_error("metrics", "a non-empty list of metrics", metrics, _CALLER)
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        raise param_error("metrics", "metrics of distinct names", names, _CALLER)
    return dict(items)


def _covariate_specs(covariates: Any, names: Sequence[str]) -> dict[str, tuple[str, str | None]]:
    if covariates is None:
        return {}
    if not isinstance(covariates, Mapping):
        raise param_error("covariates", f"None or a dict metric name -> covariate ({_METRIC_SPEC})",
                          covariates, _CALLER)
    out = {}
    for k, v in covariates.items():
        if k not in names:
            raise param_error("covariates", f"keyed by metric names (one of {list(names)!r})",
                              k, _CALLER)
        out[k] = _spec("covariates", v)
    return out


def _column(frame: Any, name: str, role: str, caller: str = _CALLER) -> np.ndarray:
    if name not in frame.columns:
        raise input_error(role, f"a column of data (columns: {list(frame.columns)})",
                          repr(name), caller)
    try:
        x = np.asarray(frame[name].to_numpy(), dtype=np.float64)
    except (TypeError, ValueError):
        raise input_error(role, "a column of real numbers", f"column {name!r}", caller) from None
    bad = ~np.isfinite(x)
    if bad.any():
        i = int(np.argmax(bad))
        raise input_error(role, "a column of finite numbers",
                          f"{float(x[i])!r} in column {name!r} at row {i}", caller)
    return x


def _two_arms(frame: Any, arm: str, control: Any, caller: str) -> tuple[Any, np.ndarray]:
    """The treatment arm of a two-arm table and each row's flag (1 treated, 0 control)."""
    arms_arr, codes = np.unique(frame[arm].to_numpy(), return_inverse=True)
    arms = [a.item() if isinstance(a, np.generic) else a for a in arms_arr]
    if control not in arms:
        raise param_error("control", f"one of the arms {arms!r}", control, caller)
    if len(arms) != 2:
        raise input_error("arm", "exactly 2 arms (filter the table to the control and one "
                          "treatment)", f"{len(arms)} arms {arms!r}", caller)
    treatment = arms[1 - arms.index(control)]
    return treatment, (codes.ravel() != arms.index(control)).astype(np.int64)


def _planned(planned_split: Any, arms: list[Any]) -> np.ndarray:
    if planned_split is None:
        return np.full(len(arms), 1.0 / len(arms))
    allowed = f"None or a dict arm -> positive weight over the arms {arms!r}"
    if not isinstance(planned_split, Mapping) or set(planned_split) != set(arms):
        raise param_error("planned_split", allowed, planned_split, _CALLER)
    w = []
    for a in arms:
        v = planned_split[a]
        ok = isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)
        if not (ok and v > 0):
            raise param_error("planned_split", allowed, planned_split, _CALLER)
        w.append(float(v))
    w_arr = np.asarray(w)
    return w_arr / w_arr.sum()


def sample_ratio_check(counts: Sequence[int], planned: np.ndarray, arms: Sequence[Any],
                       srm_alpha: float) -> SampleRatioCheck:
    """Pearson's chi-square of the unit counts per arm against the planned split."""
    n = np.asarray(counts, dtype=np.float64)
    expected = planned * n.sum()
    stat = float(((n - expected) ** 2 / expected).sum())
    df = len(n) - 1
    p = float(special.chdtrc(df, stat))
    return SampleRatioCheck(
        arms=tuple(arms), counts=tuple(int(c) for c in counts),
        planned_split=tuple(float(x) for x in planned),
        expected=tuple(float(e) for e in expected), statistic=stat, df=df, p_value=p,
        srm_alpha=srm_alpha, mismatch=bool(p < srm_alpha),
    )


class _Moments:
    """Count, means and covariance matrix (ddof=1) of some columns of one arm."""

    __slots__ = ("cov", "mean", "n")

    def __init__(self, n: int, mean: np.ndarray, cov: np.ndarray) -> None:
        self.n, self.mean, self.cov = n, mean, cov

    @classmethod
    def of_columns(cls, cols: Sequence[np.ndarray]) -> _Moments:
        """The moments of columns given separately (contiguous slices of one arm): the
        deviations from the means, by blocks of rows that stay in cache, each block
        multiplied by its transpose."""
        n = cols[0].shape[0]
        mean = np.array([c.mean() for c in cols])
        block = np.empty((len(cols), min(n, _CHUNK)))
        cross = np.zeros((len(cols), len(cols)))
        for start in range(0, n, _CHUNK):
            stop = min(n, start + _CHUNK)
            b = block[:, : stop - start]
            for i, c in enumerate(cols):
                np.subtract(c[start:stop], mean[i], out=b[i])
            cross += b @ b.T
        return cls(n, mean, cross / (n - 1))

    def __add__(self, other: _Moments) -> _Moments:
        """The moments of the concatenated sample (about its overall mean)."""
        n = self.n + other.n
        dm = self.mean - other.mean
        mean = (self.n * self.mean + other.n * other.mean) / n
        cov = ((self.n - 1) * self.cov + (other.n - 1) * other.cov
               + np.outer(dm, dm) * self.n * other.n / n) / (n - 1)
        return _Moments(n, mean, cov)

    def ratio(self, num: int, den: int | None) -> float:
        return float(self.mean[num] / (1.0 if den is None else self.mean[den]))

    def grad(self, num: int, den: int | None) -> np.ndarray:
        """Gradient of ``mean[num] / mean[den]`` with respect to the means (delta method)."""
        g = np.zeros(self.mean.shape[0])
        if den is None:
            g[num] = 1.0
        else:
            g[num] = 1.0 / self.mean[den]
            g[den] = -self.mean[num] / self.mean[den] ** 2
        return g


def _welch(v_c: float, n_c: int, v_t: float, n_t: int) -> tuple[float, float]:
    """Standard error of a difference of means and its Welch-Satterthwaite df."""
    a, b = v_c / n_c, v_t / n_t
    se2 = a + b
    den = a * a / (n_c - 1) + b * b / (n_t - 1)
    df = se2 * se2 / den if den > 0 else math.inf
    return math.sqrt(se2), df


def _compare(mc: _Moments, mt: _Moments, y: tuple, x: tuple | None) -> dict[str, Any]:
    """Effect of one metric (column indices ``y``, covariate ``x``) of arm ``t`` vs ``c``."""
    v_c, v_t = mc.ratio(*y), mt.ratio(*y)
    gy_c, gy_t = mc.grad(*y), mt.grad(*y)
    var_c = float(gy_c @ mc.cov @ gy_c)
    var_t = float(gy_t @ mt.cov @ gy_t)
    theta = None
    if x is not None:
        tot = mc + mt
        gy, gx = tot.grad(*y), tot.grad(*x)
        vx = float(gx @ tot.cov @ gx)
        theta = float(gy @ tot.cov @ gx) / vx if vx > 0 else 0.0
        x_mean = tot.ratio(*x)
        adjusted = []
        for m, v, gyv in ((mc, v_c, gy_c), (mt, v_t, gy_t)):
            g = gyv - theta * m.grad(*x)
            adjusted.append((v - theta * (m.ratio(*x) - x_mean), float(g @ m.cov @ g)))
        (v_c, var_c), (v_t, var_t) = adjusted
    return {"value_control": v_c, "value_arm": v_t, "var_control": var_c, "var_arm": var_t,
            "theta": theta}


def _effect(name: str, kind: str, arm: Any, control: Any, n_c: int, n_t: int, parts: dict,
            level: float, covariate: str | None, alternative: str = "two-sided",
            cluster: str | None = None, naive_se: float | None = None) -> MetricEffect:
    v_c, v_t = parts["value_control"], parts["value_arm"]
    var_c, var_t = parts["var_control"], parts["var_arm"]
    two = alternative == "two-sided"
    q = 0.5 + level / 2 if two else level
    diff = v_t - v_c
    se, df = _welch(var_c, n_c, var_t, n_t)
    if se > 0:
        t = diff / se
        if two:
            p = float(2 * sp_stats.t.sf(abs(t), df))
        else:
            p = float(sp_stats.t.sf(t if alternative == "greater" else -t, df))
        half = float(sp_stats.t.ppf(q, df)) * se
    else:
        t = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        if two:
            p = 1.0 if diff == 0 else 0.0
        else:
            p = 0.0 if (diff > 0) == (alternative == "greater") and diff != 0 else 1.0
        half = 0.0
    lo, hi = diff - half, diff + half
    if alternative == "greater":
        hi = math.inf
    elif alternative == "less":
        lo = -math.inf
    rel = v_t / v_c - 1 if v_c != 0 else math.nan
    rel_ci = (math.nan, math.nan)
    if v_c != 0 and v_t / v_c > 0:
        se_log, df_log = _welch(var_c / v_c**2, n_c, var_t / v_t**2, n_t)
        factor = math.exp(float(sp_stats.t.ppf(q, df_log)) * se_log)
        rel_ci = (v_t / v_c / factor - 1, v_t / v_c * factor - 1)
        if alternative == "greater":
            rel_ci = (rel_ci[0], math.inf)
        elif alternative == "less":
            rel_ci = (-math.inf, rel_ci[1])
    return MetricEffect(
        metric=name, kind=kind, arm=arm, control=control, value_control=float(v_c),
        value_arm=float(v_t), difference=float(diff),
        ci=Interval(float(lo), float(hi), level, "t"),
        relative_difference=float(rel),
        relative_ci=Interval(float(rel_ci[0]), float(rel_ci[1]), level, "delta"),
        se=float(se), statistic=float(t), df=float(df), p_value=p, confidence_level=level,
        n_control=n_c, n_arm=n_t, covariate=covariate, theta=parts["theta"],
        alternative=alternative, cluster=cluster, naive_se=naive_se,
    )


_CHUNK = 1 << 14  # rows per block of the covariance computation (the block stays in cache)


def arm_codes(values: np.ndarray, uniques: Sequence[Any] | None = None,
              caller: str = _CALLER, equal: Any = None
              ) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """The sorted distinct arms, each row's arm code (the smallest unsigned dtype) and the
    rows per arm, without sorting the rows.

    Integer and boolean arms are counted through a table; others (strings) are compared
    with each of their distinct values ``uniques`` (found by the data frame's own hashing),
    one pass per arm (``equal(a)``, the data frame's own comparison, when given); without
    ``uniques``, :func:`numpy.unique` sorts them.
    """
    values = np.asarray(values).ravel()
    if values.dtype.kind in "biu" and values.size:
        v = values.astype(np.int64, copy=False)
        lo, hi = int(v.min()), int(v.max())
        if hi - lo < 1 << 16:
            full = np.bincount(v - lo, minlength=hi - lo + 1)
            present = np.flatnonzero(full)
            table = np.zeros(full.size, dtype=np.min_scalar_type(max(present.size - 1, 0)))
            table[present] = np.arange(present.size)
            arms = [(values.dtype.type(p + lo)).item() for p in present]
            return arms, table[v - lo], full[present]
    if uniques is not None and len(uniques) < 256:
        try:
            arms = sorted(uniques)
        except TypeError:
            raise input_error("arm", "a column of arms of one type, without missing values",
                              f"the values {list(uniques)[:5]!r}", caller) from None
        codes = np.zeros(values.size, dtype=np.uint8)
        counts = np.zeros(len(arms), dtype=np.int64)
        for i, a in enumerate(arms):
            hit = np.asarray(values == a if equal is None else equal(a), dtype=bool)
            codes[hit] = i
            counts[i] = np.count_nonzero(hit)
        if counts.sum() != values.size:
            raise input_error("arm", "a column of arms without missing values",
                              f"{values.size - int(counts.sum())} rows matching no arm "
                              f"(arms: {arms!r})", caller)
        return arms, codes, counts
    try:
        uniq, codes, counts = np.unique(values, return_inverse=True, return_counts=True)
    except TypeError:
        raise input_error("arm", "a column of arms of one type, without missing values",
                          "values that cannot be compared", caller) from None
    arms = [a.item() if isinstance(a, np.generic) else a for a in uniq]
    return arms, codes.ravel().astype(np.min_scalar_type(max(len(arms) - 1, 0))), counts


def _cluster_table(frame: Any, cluster: str, codes: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cluster of each unit (codes), arm code of each cluster, units per cluster.

    Raises when a cluster spans several arms (then the units, not the clusters, were
    randomised, and ``cluster=`` is the wrong analysis).
    """
    if not isinstance(cluster, str) or cluster not in frame.columns:
        raise param_error("cluster", "None or the name of a column of data (columns: "
                          f"{list(frame.columns)})", cluster, _CALLER)
    _, g = np.unique(frame[cluster].to_numpy(), return_inverse=True)
    g = g.ravel()
    n_g = int(g.max()) + 1
    arm_of = np.empty(n_g, dtype=codes.dtype)
    arm_of[g] = codes
    bad = arm_of[g] != codes
    if bad.any():
        i = int(np.argmax(bad))
        raise input_error("cluster", "clusters each wholly in one arm (the cluster is the "
                          "randomisation unit)", f"row {i} in another arm than the rest of "
                          f"its cluster {frame[cluster].to_numpy()[i]!r}", _CALLER)
    return g, arm_of, np.bincount(g, minlength=n_g).astype(np.float64)


@validate_params({
    "confidence_level": OPEN_UNIT,
    "srm_alpha": OPEN_UNIT,
    "alternative": ALTERNATIVE,
})
def analyze_experiment(
    data: Any,
    *,
    arm: str,
    metrics: Any,
    control: Any,
    planned_split: Mapping[Any, float] | None = None,
    covariates: Mapping[str, Any] | None = None,
    confidence_level: float = 0.95,
    srm_alpha: float = 0.001,
    alternative: str = "two-sided",
    cluster: str | None = None,
) -> ExperimentResult:
    """Effects of every metric of an A/B test, after a sample ratio mismatch check.

    ``data`` holds one row per randomisation unit (user, session): the unit's arm and its
    metric values, summed over the experiment, and optionally pre-experiment covariates. Each
    treatment arm is compared with ``control`` by Welch's t-test (unequal variances, two-sided);
    ratio metrics use the delta method; ``covariates`` turn on CUPED. The sample ratio check (a
    chi-square of the units per arm against ``planned_split``) runs every time, and a mismatch
    is printed before any effect.

    Parameters
    ----------
    data : pandas, polars or pyarrow DataFrame
        One row per unit (read through narwhals).
    arm : str
        Column of the arm (variant) of each unit.
    metrics : list or dict
        The metrics: each a column name (the mean of the column over units) or a
        ``(numerator, denominator)`` pair of column names (the ratio of their sums, e.g.
        ``("clicks", "impressions")``, named ``"clicks/impressions"``). A dict gives names:
        ``{"ctr": ("clicks", "impressions")}``.
    control : scalar
        The value of ``arm`` that marks the control arm.
    planned_split : dict or None, default=None
        Planned share of units per arm, ``{arm value: weight}`` over every arm (weights are
        normalised); None is an equal split.
    covariates : dict or None, default=None
        CUPED: ``{metric name: covariate}``, the covariate a column or a ``(numerator,
        denominator)`` pair measured before the experiment (the same metric's pre-period
        value is the usual choice). ``theta`` is pooled over the two arms compared.
    confidence_level : float, default=0.95
        Level of the intervals.
    srm_alpha : float, default=0.001
        The sample ratio check flags a mismatch when its p-value is below this.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis of every test: ``"greater"`` is arm > control (p-value and
        interval one-sided, the interval ``[low, inf)``). Non-inferiority tests with margins
        are :func:`decide`'s.
    cluster : str or None, default=None
        Column of the cluster (team, city, seller) when clusters, not units, were
        randomised: the variance is then computed over cluster totals (delta method, ratio
        of sums), the sample ratio check counts clusters, and each effect reports the naive
        unit-level standard error beside the right one (``naive_se``), never using it.

    Returns
    -------
    ExperimentResult
        ``.srm`` (:class:`SampleRatioCheck`), ``.effects`` (one :class:`MetricEffect` per
        metric and treatment arm), ``result["metric"]`` (or ``result["metric", arm]`` with
        several treatment arms).

    Examples
    --------
    >>> import pandas as pd
    >>> from skrank.online import analyze_experiment
    >>> units = pd.DataFrame({
    ...     "arm": ["A", "A", "A", "A", "B", "B", "B", "B"],
    ...     "revenue": [1.0, 0.0, 3.0, 2.0, 2.0, 4.0, 1.0, 3.0],
    ...     "clicks": [1, 0, 2, 1, 2, 3, 1, 2],
    ...     "impressions": [4, 2, 5, 3, 4, 5, 3, 4],
    ... })
    >>> res = analyze_experiment(units, arm="arm", control="A",
    ...                          metrics=["revenue", ("clicks", "impressions")])
    >>> res.srm.mismatch
    False
    >>> eff = res["revenue"]
    >>> eff.value_control, eff.value_arm, eff.difference
    (1.5, 2.5, 1.0)
    >>> round(eff.p_value, 4)           # scipy.stats.ttest_ind(b, a, equal_var=False)
    0.3153
    >>> round(res["clicks/impressions"].difference, 4)   # 8/16 - 4/14
    0.2143
    """
    frame = _as_frame(data)
    if not isinstance(arm, str) or arm not in frame.columns:
        raise param_error("arm", f"the name of a column of data (columns: {list(frame.columns)})",
                          arm, _CALLER)
    level = float(confidence_level)
    specs = _metric_specs(metrics)
    cov_specs = _covariate_specs(covariates, list(specs))

    arm_col = frame[arm]
    if len(arm_col) == 0:
        raise input_error("data", "at least one row", "0 rows", _CALLER)
    if arm_col.dtype.is_numeric() or arm_col.dtype == nw_dtypes().Boolean:
        arms, codes, counts = arm_codes(arm_col.to_numpy())
    else:
        # strings, categories: hashed and compared by the data frame, no Python objects
        uniques = arm_col.unique().to_list()
        if len(uniques) < 256:
            arms, codes, counts = arm_codes(np.empty(len(arm_col), dtype=object), uniques,
                                            equal=lambda a: (arm_col == a).to_numpy())
        else:
            arms, codes, counts = arm_codes(arm_col.to_numpy())
    unit_codes = codes
    if control not in arms:
        raise param_error("control", f"one of the arms {arms!r}", control, _CALLER)
    if len(arms) < 2:
        raise input_error("arm", "at least 2 distinct arms", f"only {arms!r}", _CALLER)
    c = arms.index(control)
    unit_counts = counts
    groups = None
    if cluster is not None:
        groups, codes, sizes = _cluster_table(frame, cluster, codes)
        counts = np.bincount(codes, minlength=len(arms))
    what = "units" if cluster is None else "clusters"
    small = [a for a, n in zip(arms, counts) if n < 2]
    if small:
        raise input_error("data", f"at least 2 {what} in every arm", f"fewer in arms {small!r}",
                          _CALLER)
    srm = sample_ratio_check(counts, _planned(planned_split, arms), arms, float(srm_alpha))

    cache: dict[str, np.ndarray] = {}

    def col(name: str, role: str) -> np.ndarray:
        if name not in cache:
            cache[name] = _column(frame, name, role)
        return cache[name]

    def analyse(col: Any, codes: np.ndarray, counts: np.ndarray, by_cluster: bool
                ) -> list[tuple[str, str, str | None, list[_Moments], tuple, tuple | None]]:
        """Per metric: (name, kind, covariate name, moments per arm, y, x)."""
        # rows grouped by arm once (a counting sort: each arm's rows in order), each column
        # gathered once
        order = np.concatenate([np.flatnonzero(codes == a) for a in range(len(arms))])
        bounds = np.concatenate([[0], np.cumsum(counts)])
        grouped: dict[str, np.ndarray] = {}

        def column(name: str | None, role: str) -> np.ndarray:
            key = "\0units" if name is None else name
            if key not in grouped:
                grouped[key] = (sizes if name is None else col(name, role))[order]
            return grouped[key]

        out = []
        for name, (num, den) in specs.items():
            cols = [column(num, "metrics")]
            if den is not None or by_cluster:
                cols.append(column(den, "metrics"))
            y = (0, 1 if len(cols) == 2 else None)
            x = None
            cspec = cov_specs.get(name)
            if cspec is not None:
                k = len(cols)
                cols.append(column(cspec[0], "covariates"))
                if cspec[1] is not None or by_cluster:
                    cols.append(column(cspec[1], "covariates"))
                x = (k, k + 1 if len(cols) == k + 2 else None)
            moments = [_Moments.of_columns([v[bounds[i]:bounds[i + 1]] for v in cols])
                       for i in range(len(arms))]
            for role, idx, label in (("metrics", None if den is None else y[1], den),
                                     ("covariates", None if x is None or cspec[1] is None
                                      else x[1], None if cspec is None else cspec[1])):
                for a, m in zip(arms, moments):
                    if idx is not None and m.mean[idx] <= 0:
                        raise input_error(role, f"denominator {label!r} of positive sum in "
                                          "every arm", f"{float(m.mean[idx] * m.n)!r} in arm "
                                          f"{a!r}", _CALLER)
            out.append((name, "mean" if den is None else "ratio",
                        None if cspec is None else _spec_name(cspec), moments, y, x))
        return out

    naive: dict[tuple[str, Any], float] = {}
    if groups is not None:
        for name, _, _, moments, y, x in analyse(col, unit_codes, unit_counts, False):
            for i, a in enumerate(arms):
                if i != c:
                    parts = _compare(moments[c], moments[i], y, x)
                    naive[name, a] = _welch(parts["var_control"], moments[c].n,
                                            parts["var_arm"], moments[i].n)[0]
        totals: dict[str, np.ndarray] = {}

        def cluster_col(name: str, role: str) -> np.ndarray:
            if name not in totals:
                totals[name] = np.bincount(groups, weights=col(name, role),
                                           minlength=sizes.size)
            return totals[name]

        per_metric = analyse(cluster_col, codes, counts, True)
    else:
        per_metric = analyse(col, codes, counts, False)
    effects = []
    for name, kind, cov_name, moments, y, x in per_metric:
        for i, a in enumerate(arms):
            if i == c:
                continue
            parts = _compare(moments[c], moments[i], y, x)
            effects.append(_effect(name, kind, a, control, int(counts[c]), int(counts[i]),
                                   parts, level, cov_name, alternative, cluster,
                                   naive.get((name, a))))
    return ExperimentResult(
        srm=srm, effects=tuple(effects), control=control, arms=tuple(arms),
        n_units=int(unit_counts.sum()), confidence_level=level, alternative=alternative,
        cluster=cluster, n_clusters=None if groups is None else int(counts.sum()),
    )
