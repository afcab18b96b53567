"""Paired comparison of two systems over the same queries, and of several against a baseline."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validation import (
    SEED,
    InstanceOf,
    Options,
    param_error,
    public_name,
    renamed_parameters,
    validate_params,
)
from ..exceptions import InputError
from ._alignment import _align, _unpack_results
from ._bootstrap import bootstrap_intervals
from ._checks import (
    ALTERNATIVE,
    NONNEG_INT,
    NONNEG_REAL,
    OPEN_UNIT,
    POSITIVE_INT,
    LazyModule,
    as_vector,
    preview,
    resolve_seed,
)
from ._comparison_results import ComparisonTable, PairedComparison
from ._corrections import CORRECTIONS, TESTS, comparison_table
from ._permutation import sign_flip
from ._power import minimum_detectable_difference
from ._progress import PROGRESS, progress_bar
from ._results import DetectableDifference, Interval, QueryDifference, SignificanceTest

stats = LazyModule("scipy.stats")

__all__ = ["compare_many", "paired_comparison"]

NAN_POLICIES = ("raise", "omit")

# what paired_comparison and compare_many declare alike, in the order they are checked
_SHARED = {
    "n_resamples": POSITIVE_INT,
    "n_permutations": POSITIVE_INT,
    "confidence_level": OPEN_UNIT,
    "alternative": ALTERNATIVE,
    "nan_policy": Options(NAN_POLICIES),
    "tie_tol": NONNEG_REAL,
    "top_losses": NONNEG_INT,
    "power": OPEN_UNIT,
    "rng": SEED,
    "metric": [InstanceOf(str, "a str"), None],
}


# --------------------------------------------------------------------------- the tests


def _t_test(d: np.ndarray, sd: float, alternative: str) -> tuple[SignificanceTest, str | None]:
    n = d.size
    mean = float(d.mean())
    if sd == 0.0:
        if mean == 0.0:
            return SignificanceTest("t", 0.0, 1.0, alternative, df=n - 1), None
        t = math.copysign(math.inf, mean)
        if alternative == "two-sided" or (alternative == "greater") == (mean > 0):
            p = 0.0
        else:
            p = 1.0
        note = ("every query has the same non-zero difference: the t statistic is infinite "
                "and the t-test and effect size are degenerate")
        return SignificanceTest("t", t, p, alternative, df=n - 1), note
    res = stats.ttest_1samp(d, 0.0, alternative=alternative)
    return SignificanceTest("t", float(res.statistic), float(res.pvalue), alternative,
                            df=n - 1), None


#: Up to this many queries, a Wilcoxon test with ties or zeros is exact (all sign patterns of
#: the signed ranks), as scipy.stats.wilcoxon(method="auto") does.
_WILCOXON_ENUMERATE_MAX = 13
#: Up to this many queries, a Wilcoxon test without ties or zeros uses the exact distribution
#: (scipy's "auto" threshold); above it, the normal approximation.
_WILCOXON_EXACT_MAX = 50


def _wilcoxon(d: np.ndarray, alternative: str) -> SignificanceTest:
    """Wilcoxon signed-rank test with scipy's ``method="auto"`` choices, zeros dropped.

    More than 50 queries: scipy's normal approximation with tie correction. No ties and no
    zeros: scipy's exact distribution. Ties or zeros with at most 13 queries:
    the exact permutation distribution of the signed ranks, which scipy computes with a slow
    generic permutation test (seconds); here it is the sign-flip enumeration of
    :func:`sign_flip` on the signed ranks, which gives the same p-value in milliseconds.
    Otherwise: scipy's normal approximation with tie correction.
    """
    n_zero = int(np.count_nonzero(d == 0))
    if n_zero == d.size:
        return SignificanceTest("wilcoxon", 0.0, 1.0, alternative, exact=True, n_zero=n_zero)
    if d.size <= _WILCOXON_EXACT_MAX:
        nz = d[d != 0]
        ranks = stats.rankdata(np.abs(nz))
        has_ties = np.unique(ranks).size < ranks.size
        if not has_ties and n_zero == 0:
            res = stats.wilcoxon(d, alternative=alternative, method="exact")
            return SignificanceTest("wilcoxon", float(res.statistic), float(res.pvalue),
                                    alternative, exact=True, n_zero=n_zero)
        if d.size <= _WILCOXON_ENUMERATE_MAX:
            signed = np.where(nz > 0, ranks, -ranks)
            p, _, _ = sign_flip(signed, 1 << nz.size, alternative, np.random.default_rng(0))
            r_plus = float(ranks[nz > 0].sum())
            r_minus = float(ranks[nz < 0].sum())
            statistic = min(r_plus, r_minus) if alternative == "two-sided" else r_plus
            return SignificanceTest("wilcoxon", statistic, p, alternative, exact=True,
                                    n_zero=n_zero)
    res = stats.wilcoxon(d, alternative=alternative, method="asymptotic")
    return SignificanceTest("wilcoxon", float(res.statistic), float(res.pvalue), alternative,
                            exact=False, n_zero=n_zero)


# --------------------------------------------------------------------------- public API


@renamed_parameters(seed="rng", confidence="confidence_level")
@validate_params({**_SHARED, "name_a": InstanceOf(str, "a str"),
                  "name_b": InstanceOf(str, "a str"), "progress": PROGRESS})
def paired_comparison(
    a: Any,
    b: Any,
    *,
    qids_a: Any = None,
    qids_b: Any = None,
    metric: str | None = None,
    name_a: str = "system",
    name_b: str = "baseline",
    n_resamples: int = 10_000,
    n_permutations: int = 10_000,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    nan_policy: str = "raise",
    tie_tol: float = 1e-12,
    top_losses: int = 5,
    power: float = 0.8,
    rng: int | np.random.Generator | None = None,
    progress: bool | None = None,
) -> PairedComparison:
    """Compare two systems query by query: difference, intervals, tests, effect size, power.

    The unit is the query: ``a[i]`` and ``b[i]`` are the metric values of the system and the
    baseline on the same query, and every statistic is computed from the paired differences
    ``d = a - b`` (positive when the system is better on a higher-is-better metric).

    Parameters
    ----------
    a, b : array-like of shape (n_queries,) or MetricResult
        Per-query metric values of the system (``a``) and the baseline (``b``), for example
        ``skrank.evaluate(...)["ndcg@10"].per_query``, or the results themselves
        (:class:`skrank.MetricResult`: their per-query values, their query ids unless
        ``qids_a``/``qids_b`` are given, and their metric as the label). Two results must be of
        the same metric and conventions; queries both leave out (``empty="exclude"``) are left
        out here too. NaN marks a query excluded by a convention (see ``nan_policy``).
    qids_a, qids_b : array-like or None, default=None
        Query ids of ``a`` and ``b``. With both, values are matched by id (the order may differ)
        and the two sets of ids must be equal: otherwise an :class:`~skrank.InputError` names the
        queries found in only one system. With one of them, it labels both vectors, which must be
        in the same order. With neither, queries are labelled by position.
    metric : str or None, default=None
        Label of the metric, for display.
    name_a, name_b : str, default="system", "baseline"
        Labels of the two systems, for display.
    n_resamples : int, default=10_000
        Bootstrap resamples of the queries for the percentile and BCa intervals.
    n_permutations : int, default=10_000
        Random sign patterns of the randomisation test (all patterns, exactly, when there are
        no more than this many).
    confidence_level : float, default=0.95
        Confidence level of the intervals, in (0, 1). ``1 - confidence`` is also the level
        ``alpha`` of the minimum detectable difference.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis of the three tests and of the minimum detectable difference:
        ``"greater"`` means the system is better (``mean(a - b) > 0``). Intervals are always
        two-sided.
    nan_policy : {"raise", "omit"}, default="raise"
        What to do with queries where ``a`` or ``b`` is NaN: ``"raise"`` an
        :class:`~skrank.InputError`, or ``"omit"`` the pair from every statistic (their number
        and ids are reported as ``n_omitted`` and ``omitted_qids``).
    tie_tol : float, default=1e-12
        Differences with ``|a - b| <= tie_tol`` are set to exactly 0 before anything is
        computed: they count as ties, are dropped by the Wilcoxon test and do not move the
        t-test. Likewise, differences that all agree within ``tie_tol`` are treated as
        constant (standard deviation 0). This keeps rounding noise (the same ranking scored
        through two code paths) from posing as wins, losses or a spread. Use ``0.0`` for exact
        equality.
    top_losses : int, default=5
        How many of the queries where the system loses most to report.
    power : float, default=0.8
        Target power of the minimum detectable difference, in (``1 - confidence``, 1).
    rng : int, numpy.random.Generator or None, default=None
        Seed of the bootstrap and of the sign patterns. The same seed gives the same result.
        With ``None`` a seed is drawn and reported in ``seed`` so the run can be repeated.
    progress : bool or None, default=None
        A progress bar of the resamples and sign patterns on standard error (tqdm): None
        shows it on a terminal only, once the work has lasted 2 seconds; True always; False
        never.

    Returns
    -------
    PairedComparison
        Means, mean difference with percentile / BCa / t intervals, the randomisation, t and
        Wilcoxon tests, Cohen's d_z, wins / ties / losses, the largest losses, the minimum
        detectable difference and the aligned per-query data. ``print`` it for a report, call
        ``to_dict()`` for JSON.

    Raises
    ------
    InputError
        Unequal lengths, query ids that differ between the systems, repeated ids, NaN values
        with ``nan_policy="raise"``, infinite values, or fewer than 2 queries.
    InvalidParameterError
        A parameter outside its allowed values.

    See Also
    --------
    compare_many : Several systems against one baseline, with a correction.
    minimum_detectable_difference : The power computation on its own.

    Notes
    -----
    - Bootstrap: ``n_resamples`` resamples of the queries with replacement, drawn by
      :func:`scipy.stats.bootstrap`; the percentile interval is the pair of quantiles of the
      resampled mean differences, BCa corrects it for bias and skewness (:func:`bootstrap_ci`).
    - Randomisation test: each difference keeps or flips its sign at random;
      ``p = (b + 1) / (B + 1)`` where ``b`` of the ``B`` patterns give a mean difference at least
      as extreme as the observed one (:func:`randomization_test`). It is never 0.
    - t-test: :func:`scipy.stats.ttest_1samp` on the differences (the same as
      :func:`scipy.stats.ttest_rel` on ``a`` and ``b``).
    - Wilcoxon signed-rank: :func:`scipy.stats.wilcoxon` on the differences, zero differences
      dropped, with scipy's automatic choice of method: the normal approximation with tie
      correction above 50 queries; up to 50, exact without ties or zeros; exact
      enumeration of the signed ranks' sign patterns with ties or zeros and at most 13 queries
      (computed here, much faster than scipy's generic permutation test, same p-value); the
      normal approximation with tie correction otherwise.
    - Effect size: Cohen's d_z, the mean difference divided by the standard deviation of the
      differences (``ddof=1``).
    - When every difference is 0, all three tests report p = 1 and the intervals are [0, 0].

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.stats import paired_comparison
    >>> rng = np.random.default_rng(0)
    >>> baseline = rng.uniform(0.3, 0.9, size=40)
    >>> system = np.clip(baseline + rng.normal(0.02, 0.1, size=40), 0, 1)
    >>> res = paired_comparison(system, baseline, metric="ndcg@10", rng=0)
    >>> res.n, res.wins + res.ties + res.losses
    (40, 40)
    >>> bool(res.ci_bca.low < res.mean_difference < res.ci_bca.high)
    True
    >>> res.to_dict()["tests"]["randomization"]["n_resamples"]
    10000
    """
    seed, confidence = rng, confidence_level  # the names used below
    caller = public_name()
    n_resamples, n_permutations, top_losses = int(n_resamples), int(n_permutations), \
        int(top_losses)
    confidence, tie_tol, power = float(confidence), float(tie_tol), float(power)
    if power <= 1.0 - confidence:
        raise param_error("power", f"a float in the open interval (1 - confidence, 1) = "
                          f"({1.0 - confidence:g}, 1)", power, caller)

    a, b, qids_a, qids_b, metric = _unpack_results(a, b, qids_a, qids_b, metric)
    av = as_vector(a, "a")
    bv = as_vector(b, "b")
    av, bv, qids = _align(av, bv, qids_a, qids_b)

    nan = np.isnan(av) | np.isnan(bv)
    omitted: tuple = ()
    if nan.any():
        if nan_policy == "raise":
            na, nb = int(np.isnan(av).sum()), int(np.isnan(bv).sum())
            raise InputError(
                f"{caller}: NaN values in a ({na}) or b ({nb}), for {int(nan.sum())} queries "
                f"({preview(qids[nan])}). NaN marks a query excluded by a convention; pass "
                "nan_policy='omit' to leave those queries out of the comparison."
            )
        omitted = tuple(q.item() if isinstance(q, np.generic) else q for q in qids[nan])
        keep = ~nan
        av, bv, qids = av[keep], bv[keep], qids[keep]
    n = int(av.size)
    if n < 2:
        raise InputError(
            f"{caller}: a paired comparison needs at least 2 queries; got {n}"
            + (f" after omitting {len(omitted)} with NaN." if omitted else ".")
        )

    d = av - bv
    d[np.abs(d) <= tie_tol] = 0.0
    mean = float(d.mean())
    # Differences equal up to tie_tol are constant: rounding noise must not make up a spread
    # (and an enormous t statistic).
    sd = 0.0 if float(np.ptp(d)) <= tie_tol else float(d.std(ddof=1))
    notes: list[str] = []

    reported_seed, ss = resolve_seed(seed)
    boot_ss, perm_ss = ss.spawn(2)

    bar = progress_bar(n_resamples + n_permutations, progress,
                       f"{name_a} vs {name_b}" + (f" on {metric}" if metric else ""),
                       unit="resample")
    # Intervals.
    if sd == 0.0:
        pct = bca = (mean, mean)
        tci = (mean, mean)
        notes.append("every query has the same difference: the intervals are a single point")
    else:
        pct, bca = bootstrap_intervals(d, n_resamples, confidence,
                                       np.random.default_rng(boot_ss), bar.update)
        if math.isnan(bca[0]):
            notes.append("every bootstrap mean fell on one side of the observed mean: the BCa "
                         "interval is undefined (use the percentile interval)")
        half = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * sd / math.sqrt(n)
        tci = (mean - half, mean + half)

    # Tests.
    p_rand, used, exact = sign_flip(d, n_permutations, alternative,
                                    np.random.default_rng(perm_ss), bar.update)
    bar.close()
    n_zero = int(np.count_nonzero(d == 0))
    randomization = SignificanceTest("randomization", mean, p_rand, alternative,
                                     n_resamples=used, exact=exact, n_zero=n_zero)
    t_test, t_note = _t_test(d, sd, alternative)
    if t_note:
        notes.append(t_note)
    wilcoxon = _wilcoxon(d, alternative)
    if n_zero == n:
        notes.append("every difference is zero: no test can reject, all p-values are 1")

    effect = mean / sd if sd > 0 else float("nan")

    losers = np.flatnonzero(d < 0)
    worst = losers[np.argsort(d[losers], kind="stable")][:top_losses]
    largest = tuple(QueryDifference(qids[i], float(av[i]), float(bv[i]), float(d[i]))
                    for i in worst)

    alpha = 1.0 - confidence
    mdd_value = (0.0 if sd == 0.0 else
                 minimum_detectable_difference(n, sd, alpha=alpha, power=power,
                                               alternative=alternative, method="t"))
    mdd = DetectableDifference(mdd_value, n, sd, alpha, power, alternative, "t")

    return PairedComparison(
        metric=metric,
        name_a=name_a,
        name_b=name_b,
        n=n,
        n_omitted=len(omitted),
        omitted_qids=omitted,
        mean_a=float(av.mean()),
        mean_b=float(bv.mean()),
        mean_difference=mean,
        sd_difference=sd,
        confidence=confidence,
        alternative=alternative,
        ci_percentile=Interval(pct[0], pct[1], confidence, "percentile", n_resamples),
        ci_bca=Interval(bca[0], bca[1], confidence, "bca", n_resamples),
        ci_t=Interval(tci[0], tci[1], confidence, "t", None),
        randomization=randomization,
        t_test=t_test,
        wilcoxon=wilcoxon,
        effect_size=effect,
        effect_size_name="cohen_dz",
        wins=int(np.count_nonzero(d > 0)),
        ties=n_zero,
        losses=int(losers.size),
        tie_tol=tie_tol,
        largest_losses=largest,
        mdd=mdd,
        seed=reported_seed,
        qids=qids,
        a=av,
        b=bv,
        differences=d,
        notes=tuple(notes),
    )


@renamed_parameters(seed="rng", confidence="confidence_level")
@validate_params({"correction": Options(CORRECTIONS), "test": Options(TESTS), "alpha": OPEN_UNIT,
                  **_SHARED, "progress": PROGRESS})
def compare_many(
    systems: Mapping[str, Any],
    baseline: str,
    *,
    qids: Any = None,
    metric: str | None = None,
    primary: str | None = None,
    correction: str = "holm",
    test: str = "randomization",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    n_permutations: int = 10_000,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    nan_policy: str = "raise",
    tie_tol: float = 1e-12,
    top_losses: int = 5,
    power: float = 0.8,
    rng: int | np.random.Generator | None = None,
    progress: bool | None = None,
) -> ComparisonTable:
    """Compare several systems with one baseline, correcting for multiple comparisons.

    Parameters
    ----------
    systems : mapping of str to array-like or MetricResult
        Per-query metric values of every system, the baseline included, or their
        :class:`skrank.MetricResult` (matched by their own query ids when ``qids`` is None).
    baseline : str
        The key of ``systems`` that every other system is compared with.
    qids : array-like, mapping of str to array-like, or None, default=None
        Query ids: one array shared by every system (same order), or one per system (keys as in
        ``systems``; values are then matched by id), or ``None`` (same order, labelled by
        position).
    metric : str or None, default=None
        Label of the metric, for display.
    primary : str or None, default=None
        The pre-registered primary comparison (a system name). It is reported with its raw
        p-value and tested at ``alpha`` alone; the ``correction`` applies to the other
        (secondary) comparisons as a family. With ``None`` all comparisons form one family.
    correction : {"holm", "bh", "bonferroni", "none"}, default="holm"
        See :func:`multiple_comparisons`.
    test : {"randomization", "t", "wilcoxon"}, default="randomization"
        The test whose p-values are corrected.
    alpha : float, default=0.05
        Level at which each row's ``reject`` is decided.
    n_resamples, n_permutations, confidence_level, alternative, nan_policy, tie_tol, \
top_losses, power
        As in :func:`paired_comparison`.
    rng : int, numpy.random.Generator or None, default=None
        One seed used for every comparison (so each row is reproduced by
        :func:`paired_comparison` with the same seed, and all rows share their resamples).
    progress : bool or None, default=None
        A progress bar of the comparisons on standard error (tqdm): None shows it on a
        terminal only, once the work has lasted 2 seconds; True always; False never.

    Returns
    -------
    ComparisonTable
        One row per non-baseline system, in the order of ``systems``.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.stats import compare_many
    >>> rng = np.random.default_rng(1)
    >>> bm25 = rng.uniform(0.2, 0.8, size=60)
    >>> runs = {"bm25": bm25, "lgbm": bm25 + rng.normal(0.05, 0.1, 60),
    ...         "xgb": bm25 + rng.normal(0.0, 0.1, 60)}
    >>> table = compare_many(runs, baseline="bm25", primary="lgbm", rng=0,
    ...                      n_resamples=2000, n_permutations=2000)
    >>> [(row.name, row.role) for row in table]
    [('lgbm', 'primary'), ('xgb', 'secondary')]
    >>> table["lgbm"].pvalue == table["lgbm"].pvalue_adjusted
    True
    """
    seed, confidence = rng, confidence_level  # the names used below
    caller = public_name()
    if not isinstance(systems, Mapping) or not systems:
        raise param_error("systems", "a non-empty mapping of names to per-query values",
                          type(systems).__name__, caller)
    names = [str(k) for k in systems]
    if baseline not in systems:
        raise param_error("baseline", "one of " + ", ".join(repr(k) for k in names), baseline,
                          caller)
    others = [k for k in systems if k != baseline]
    if not others:
        raise InputError(f"{caller}: systems holds only the baseline {baseline!r}; nothing to "
                         "compare.")
    if primary is not None and primary not in others:
        raise param_error("primary", "None or one of " + ", ".join(repr(k) for k in others),
                          primary, caller)
    if isinstance(qids, Mapping):
        missing = [k for k in systems if k not in qids]
        if missing:
            raise InputError(f"{caller}: qids has no ids for {preview(missing)}; give one "
                             "array per system (the baseline included).")
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(0, 2**63))
    elif seed is None:
        seed, _ = resolve_seed(None)

    comparisons = {}
    bar = progress_bar(len(others), progress, f"comparisons with {baseline}",
                       unit="comparison")
    for name in others:
        if isinstance(qids, Mapping):
            qa, qb = qids[name], qids[baseline]
        else:
            qa, qb = qids, None
        comparisons[str(name)] = paired_comparison(
            systems[name], systems[baseline], qids_a=qa, qids_b=qb, metric=metric,
            name_a=str(name), name_b=str(baseline), n_resamples=n_resamples,
            n_permutations=n_permutations, confidence_level=confidence, alternative=alternative,
            nan_policy=nan_policy, tie_tol=tie_tol, top_losses=top_losses, power=power,
            rng=seed, progress=False,
        )
        bar.update()
    bar.close()
    return comparison_table(comparisons, primary=None if primary is None else str(primary),
                            correction=correction, test=test, alpha=alpha)
