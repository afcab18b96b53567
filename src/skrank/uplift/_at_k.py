"""Uplift among the top k rows, and scikit-uplift's table of uplift by percentile."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._validation import Described, Interval, Options, param_error, public_name, validate_params
from ._conventions import CUT, declared, resolve
from ._inputs import check_rows, input_error
from ._ranking import Knots, rank
from ._results import UpliftByPercentile, UpliftScore

STRATEGIES = ("overall", "by_group")


# k: a number of rows or a fraction of them (what _check_k accepts)
_K = Described("a fraction of the rows (a float in (0, 1]) or a number of rows (an int >= 1)",
               Interval(int, 1), Interval(float, 0, 1, closed="right"))


def _check_k(k: Any) -> tuple[str, float]:
    """``("fraction", k)`` for a float in (0, 1], ``("count", k)`` for an int >= 1."""
    if isinstance(k, numbers.Integral) and not isinstance(k, bool):
        if k >= 1:
            return "count", int(k)
    elif isinstance(k, numbers.Real) and not isinstance(k, bool):
        if 0 < float(k) <= 1:
            return "fraction", float(k)
    raise param_error(
        "k", "a fraction of the rows (a float in (0, 1]) or a number of rows (an int >= 1)",
        k, public_name(),
    )


def _k_name(kind: str, k: float) -> str:
    return f"uplift@{k:g}" if kind == "fraction" else f"uplift@{int(k)}"


def _interp(kn_x: np.ndarray, kn_v: np.ndarray, p: float) -> float:
    return float(np.interp(p, kn_x, kn_v))


def _split_at(kn: Knots, p: float) -> int:
    """Rows of a tied group cut by a cutoff after ``p`` rows (0 when it falls between)."""
    i = int(np.searchsorted(kn.x, p))
    if i < kn.x.shape[0] and kn.x[i] == p:
        return 0
    return int(kn.x[i] - kn.x[i - 1]) if 0 < i < kn.x.shape[0] else 0


@validate_params({"strategy": Options(STRATEGIES), "k": _K, **declared("preset", "ties")})
def uplift_at_k(
    y_true: Any,
    uplift: Any,
    treatment: Any,
    strategy: str,
    k: float = 0.3,
    *,
    ties: str | None = None,
    preset: str | None = None,
) -> UpliftScore:
    """Uplift among the rows of highest predicted uplift: treated minus control response rate.

    Parameters
    ----------
    y_true, uplift, treatment : array-like of shape (n_rows,)
        Outcomes, predicted uplift and treatment flag (both groups present).
    strategy : {"overall", "by_group"}
        ``"overall"``: the top k of all rows, then the response rate of each group among
        them. ``"by_group"``: the top k of the treated rows and the top k of the control rows,
        separately.
    k : float or int, default=0.3
        A float in (0, 1] is a fraction of the rows (of each group's rows with
        ``"by_group"``), rounded down as scikit-uplift does (``int(n * k)``); an int is a
        number of rows (of each group's rows with ``"by_group"``).
    ties : {"group", "input", "reverse", "unstable"}, optional
        Order of rows with equal scores at the cutoff. Default ``"group"``: a cutoff inside a
        group of tied rows counts each of them by the fraction of the group taken.
        ``preset="sklift"`` sets ``"reverse"``.
    preset : {"sklift"}, optional
        scikit-uplift's ``uplift_at_k`` (causalml has no uplift@k).

    Returns
    -------
    UpliftScore

    Raises
    ------
    InputError
        When the top k hold no treated or no control row (the uplift is undefined there), or
        ``k`` rows are more than a group has.

    Examples
    --------
    >>> from skrank.uplift import uplift_at_k
    >>> y = [1, 1, 0, 1, 0, 0, 1, 0]
    >>> t = [1, 1, 0, 1, 0, 1, 0, 0]
    >>> s = [0.9, 0.8, 0.8, 0.5, 0.5, 0.3, 0.2, 0.2]
    >>> print(uplift_at_k(y, s, t, strategy="overall", k=0.5))
    uplift@0.5 = 1.0000 (strategy=overall, ties=group; 8 rows: 4 treated, 4 control; top 4 rows:
    2.5 treated, 1.5 control; the cutoff splits 2 tied rows; 6 rows share a score (grouped))
    >>> uplift_at_k(y, s, t, strategy="overall", k=1)
    Traceback (most recent call last):
    ...
    skrank.exceptions.InputError: The 'k' parameter of uplift_at_k must be large enough for the
    top rows to hold both treated and control rows (or use strategy='by_group'). Got 1 (top 1
    row: 1 treated, 0 control) instead.
    """
    caller = public_name()
    kind, kval = _check_k(k)
    conv = resolve(CUT, preset, ties=ties)
    rows = check_rows(y_true, uplift, treatment)
    kn = rank(rows, rows.score, conv.ties)
    if strategy == "overall":
        size = int(rows.n * kval) if kind == "fraction" else int(kval)
        if size > rows.n:
            raise param_error("k", f"at most the number of rows ({rows.n})", k, caller)
        nt, yt, nc, yc = (float(v[0]) for v in kn.at(np.array([float(size)])))
        where = f"top {size:,} row{'' if size == 1 else 's'}: {nt:,.6g} treated, {nc:,.6g} control"
        if nt == 0 or nc == 0:
            raise input_error(
                "k",
                "large enough for the top rows to hold both treated and control rows "
                "(or use strategy='by_group')",
                f"{k!r} ({where})",
                caller,
            )
        split = _split_at(kn, float(size))
    else:
        sizes = []
        for n_group, label in ((rows.n_treatment, "treated"), (rows.n_control, "control")):
            size = int(n_group * kval) if kind == "fraction" else int(kval)
            if size == 0 or size > n_group:
                raise input_error(
                    "k",
                    f"a number of rows between 1 and the {n_group:,} {label} rows",
                    f"{k!r} ({size:,} {label} rows)",
                    caller,
                )
            sizes.append(size)
        gx, gy = kn.group(True)
        nt, yt = float(sizes[0]), _interp(gx, gy, sizes[0])
        gx, gy = kn.group(False)
        nc, yc = float(sizes[1]), _interp(gx, gy, sizes[1])
        where = f"top {sizes[0]:,} treated and {sizes[1]:,} control rows"
        split = 0
    value = yt / nt - yc / nc
    detail = where + (f"; the cutoff splits {split:,} tied rows" if split else "")
    return UpliftScore(_k_name(kind, kval), value, conv, ("ties",), rows.n, rows.n_treatment,
                       rows.n_control, kn.n_tied, detail, f"strategy={strategy}")


def _edges(n: int, bins: int) -> np.ndarray:
    """Bin edges of ``np.array_split(range(n), bins)``: the first n % bins bins one larger."""
    small, extra = divmod(n, bins)
    sizes = np.full(bins, small, dtype=np.int64)
    sizes[:extra] += 1
    return np.concatenate(([0], np.cumsum(sizes))).astype(np.float64)


def _rates(y_sum: np.ndarray, count: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return y_sum / count


@validate_params({"strategy": Options(STRATEGIES), "bins": Interval(int, 1),
                  **declared("preset", "ties")})
def uplift_by_percentile(
    y_true: Any,
    uplift: Any,
    treatment: Any,
    strategy: str = "overall",
    bins: int = 10,
    *,
    ties: str | None = None,
    preset: str | None = None,
) -> UpliftByPercentile:
    """Response rates of each group and uplift in bins of rows ranked by predicted uplift.

    Parameters
    ----------
    y_true, uplift, treatment : array-like of shape (n_rows,)
        Outcomes, predicted uplift and treatment flag.
    strategy : {"overall", "by_group"}, default="overall"
        ``"overall"``: bins of all rows; ``"by_group"``: each group's rows cut into bins
        separately.
    bins : int, default=10
        Number of bins, fewer than the rows; sizes as ``numpy.array_split`` (the first bins
        one row larger).
    ties : {"group", "input", "reverse", "unstable"}, optional
        Order of rows with equal scores at the bin edges; default ``"group"`` (fractions of
        tied rows). ``preset="sklift"`` sets ``"reverse"``.
    preset : {"sklift"}, optional
        scikit-uplift's ``uplift_by_percentile``.

    Returns
    -------
    UpliftByPercentile
        Arrays per bin; ``to_frame()`` gives scikit-uplift's DataFrame.

    Examples
    --------
    >>> from skrank.uplift import uplift_by_percentile
    >>> y = [1, 1, 0, 1, 0, 0, 1, 0]
    >>> t = [1, 1, 0, 1, 0, 1, 0, 0]
    >>> s = [0.9, 0.8, 0.8, 0.5, 0.5, 0.3, 0.2, 0.2]
    >>> table = uplift_by_percentile(y, s, t, bins=2)
    >>> print(table)
    uplift by percentile (2 bins, strategy=overall, ties=group)
    percentile      n_trt     n_ctrl    uplift
          0-50          2          2    1.0000
        50-100          2          2   -0.0667
    """
    caller = public_name()
    conv = resolve(CUT, preset, ties=ties)
    rows = check_rows(y_true, uplift, treatment)
    if bins >= rows.n:
        raise param_error("bins", f"an int smaller than the number of rows ({rows.n})", bins,
                          caller)
    kn = rank(rows, rows.score, conv.ties)
    if strategy == "overall":
        nt, yt, nc, yc = kn.at(_edges(rows.n, bins))
    else:
        et = _edges(rows.n_treatment, bins)
        ec = _edges(rows.n_control, bins)
        gx, gy = kn.group(True)
        nt, yt = et, np.interp(et, gx, gy)
        gx, gy = kn.group(False)
        nc, yc = ec, np.interp(ec, gx, gy)
    n_t, n_c = np.diff(nt), np.diff(nc)
    r_t, r_c = _rates(np.diff(yt), n_t), _rates(np.diff(yc), n_c)
    # clipped at 0: fractional counts may put a rate a rounding error above 1
    var_t = _rates(np.maximum(r_t * (1 - r_t), 0.0), n_t)
    var_c = _rates(np.maximum(r_c * (1 - r_c), 0.0), n_c)
    cuts = [round(p * 100 / bins) for p in range(bins + 1)]
    labels = [f"{cuts[i]}-{cuts[i + 1]}" for i in range(bins)]
    rt_all = float(kn.yt[-1] / rows.n_treatment)
    rc_all = float(kn.yc[-1] / rows.n_control)
    vt_all = rt_all * (1 - rt_all) / rows.n_treatment
    vc_all = rc_all * (1 - rc_all) / rows.n_control
    total = {
        "n_treatment": float(rows.n_treatment),
        "n_control": float(rows.n_control),
        "response_rate_treatment": rt_all,
        "response_rate_control": rc_all,
        "uplift": rt_all - rc_all,
        "std_treatment": float(np.sqrt(vt_all)),
        "std_control": float(np.sqrt(vc_all)),
        "std_uplift": float(np.sqrt(vt_all + vc_all)),
    }
    return UpliftByPercentile(labels, n_t, n_c, r_t, r_c, r_t - r_c, np.sqrt(var_t),
                              np.sqrt(var_c), np.sqrt(var_t + var_c), total, conv, strategy)
