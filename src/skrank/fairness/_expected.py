"""Expected exposure of a stochastic ranking (Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM
2020): disparity EE-D, relevance EE-R and loss EE-L against the target exposure of an ideal
stochastic ranking, with the bounds and defaults of expeval, the TREC Fair Ranking program."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import validate_params
from ..exceptions import InputError
from ._conventions import ExposureConventions, declared, resolve
from ._inputs import (
    codes,
    dense,
    first_duplicate,
    input_error,
    plain,
    position_in_segment,
    segment_starts,
    vector,
)
from ._results import DocumentExposure, ExpectedExposure, ExposureScore

# expeval's value of a measure whose two bounds are equal, when normalised
_FIXED = {"disparity": 0.0, "relevance": 1.0, "loss": 0.0}


def _judgments(y_true: Any, qid_true: Any, doc_true: Any, caller: str):
    y = vector("y_true", y_true, caller, numeric=True)
    if y.shape[0] == 0:
        raise input_error("y_true", "a non-empty array of grades", "an empty array", caller)
    if y.dtype.kind == "b":
        y = y.astype(np.int8)
    neg = y < 0
    if neg.any():
        raise input_error(
            "y_true", "grades >= 0 (expeval's -1 for an unjudged document: leave such "
            "rows out, or give 0)", f"{int(neg.sum()):,} negative grades (the first, "
            f"{plain(y[neg][0])!r}, at row {int(np.flatnonzero(neg)[0])})", caller)
    qj = vector("qid_true", qid_true, caller, n=y.shape[0], of="y_true")
    dj = vector("doc_true", doc_true, caller, n=y.shape[0], of="y_true")
    return y.astype(np.float64), qj, dj


def _run(qid: Any, sample: Any, doc: Any, rank: Any, score: Any, caller: str):
    q = vector("qid", qid, caller)
    n = q.shape[0]
    s = vector("sample", sample, caller, n=n, of="qid")
    d = vector("doc", doc, caller, n=n, of="qid")
    if rank is not None and score is not None:
        raise input_error("score", "None when rank is given (give one of them)",
                          "both rank and score", caller)
    r = None if rank is None else vector("rank", rank, caller, n=n, of="qid", numeric=True)
    sc = None if score is None else vector("score", score, caller, n=n, of="qid",
                                           numeric=True)
    if r is not None:
        if r.dtype.kind == "f" and not np.all(r == np.round(r)):
            raise input_error("rank", "integer ranks 1, 2, ...", "fractional ranks", caller)
        r = r.astype(np.int64)
    return q, s, d, r, sc


def _label(labels: np.ndarray, code: int) -> Any:
    return plain(labels[code])


def _positions(ranking: np.ndarray, rank: np.ndarray | None, score: np.ndarray | None,
               q_labels: np.ndarray, q: np.ndarray, s: np.ndarray, input_row: np.ndarray,
               caller: str):
    """Order of the run's rows (ranking by ranking, first position first) and the 0-based
    position of each row in that order (``input_row``: each row's row in the input)."""
    n = ranking.shape[0]
    if score is None and n and segment_starts(ranking).shape[0] == int(ranking.max()) + 1:
        # the rows of each ranking are together (as in a run file): if they are in rank
        # order too, no sort is needed
        pos = position_in_segment(ranking)
        if rank is None or np.array_equal(rank, pos + 1):
            return np.arange(n), pos
    if rank is not None:
        order = np.lexsort((rank, ranking))
    elif score is not None:
        order = np.lexsort((-score.astype(np.float64), ranking))
    else:
        order = np.argsort(ranking, kind="stable")
    sorted_ranking = ranking[order]
    pos = position_in_segment(sorted_ranking)
    if rank is not None:
        bad = np.flatnonzero(rank[order] != pos + 1)
        if bad.shape[0]:
            row = int(order[bad[0]])
            raise input_error(
                "rank", "1, 2, ..., n in each ranking (no gap, no repeat, as expeval asks)",
                f"rank {int(rank[row])} at row {int(input_row[row])} where "
                f"{int(pos[bad[0]]) + 1} was due "
                f"(query {_label(q_labels, q[row])!r}, sample {plain(s[row])!r})", caller)
    elif score is not None and n > 1:
        ss = score[order]
        tie = np.flatnonzero((sorted_ranking[1:] == sorted_ranking[:-1]) & (ss[1:] == ss[:-1]))
        if tie.shape[0]:
            row = int(order[tie[0] + 1])
            raise input_error(
                "score", "distinct within each ranking (or give rank=)",
                f"a tie at row {int(input_row[row])} (query {_label(q_labels, q[row])!r}, sample "
                f"{plain(s[row])!r}, score {plain(score[row])!r})", caller)
    return order, pos


def _groups(groups: Any, n: int, caller: str) -> tuple[np.ndarray, np.ndarray]:
    """Membership pairs: judged row, group code (a row may be in several groups)."""
    from scipy import sparse

    if sparse.issparse(groups):
        if groups.shape[0] != n:
            raise input_error("groups", f"a membership matrix with one row per row of y_true "
                              f"({n:,} rows)", f"a sparse matrix of shape {groups.shape}",
                              caller)
        coo = sparse.coo_matrix(groups)
        nz = coo.data != 0
        rows, cols = coo.row[nz].astype(np.int64), coo.col[nz].astype(np.int64)
        none = np.setdiff1d(np.arange(n), rows)
        if none.shape[0]:
            raise input_error("groups", "a membership matrix with every judged document in "
                              "at least one group", f"{none.shape[0]:,} rows in no group (the "
                              f"first: row {int(none[0])})", caller)
        return rows, cols
    arr = np.asarray(groups)
    if arr.ndim == 1:
        g = vector("groups", arr, caller, n=n, of="y_true")
        _, (gc,) = codes(g)
        return np.arange(n, dtype=np.int64), gc
    if arr.ndim != 2 or arr.shape[0] != n:
        raise input_error("groups", f"a 1-D array of labels or a 2-D membership matrix with "
                          f"one row per row of y_true ({n:,} rows)",
                          f"an array of shape {arr.shape}", caller)
    if arr.dtype.kind not in "biu" or not np.isin(arr, (0, 1)).all():
        raise input_error("groups", "a membership matrix of 0/1 or bool",
                          f"an array of dtype {arr.dtype} with other values", caller)
    none = np.flatnonzero(~arr.astype(bool).any(axis=1))
    if none.shape[0]:
        raise input_error("groups", "a membership matrix with every judged document in at "
                          "least one group", f"{none.shape[0]:,} rows in no group (the first: "
                          f"row {int(none[0])})", caller)
    rows, cols = np.nonzero(arr.astype(bool))
    return rows.astype(np.int64), cols.astype(np.int64)


def _lookup(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each key in ``sorted_keys`` (clipped) and whether it is there."""
    if sorted_keys.shape[0] == 0:
        return np.zeros(keys.shape[0], dtype=np.int64), np.zeros(keys.shape[0], dtype=bool)
    at = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.shape[0] - 1)
    return at, sorted_keys[at] == keys


def _per_query(values: np.ndarray, q: np.ndarray, nq: int) -> np.ndarray:
    return np.bincount(q, weights=values, minlength=nq)


def _sorted_within(q: np.ndarray, t: np.ndarray, nq: int):
    """``t`` sorted ascending within each query, its 0-based index there, and its query."""
    order = np.lexsort((t, q))
    qs = q[order]
    return t[order], position_in_segment(qs), qs


@validate_params(declared())
def expected_exposure(
    y_true: Any,
    qid_true: Any,
    doc_true: Any,
    qid: Any,
    sample: Any,
    doc: Any,
    *,
    rank: Any = None,
    score: Any = None,
    groups: Any = None,
    model: str | None = None,
    patience: float | None = None,
    utility: float | None = None,
    grades: str | None = None,
    judgments: str | None = None,
    normalize: str | None = None,
    missing: str | None = None,
    preset: str | None = None,
) -> ExpectedExposure:
    """Expected exposure of a stochastic ranking: disparity, relevance and loss (EE-D, EE-R,
    EE-L).

    A stochastic ranker is given by several rankings per query (samples). Under a browsing
    model, each document's expected exposure is its exposure averaged over the samples; the
    target exposure is that of the ideal stochastic ranking, which orders documents by grade
    and shuffles documents of equal grade. Per query: EE-D ``= sum_d e_d**2``, EE-R ``= sum_d
    e_d * t_d`` and EE-L ``= sum_d (e_d - t_d)**2`` over run exposures ``e`` and target
    exposures ``t``, then normalised between expeval's bounds (``normalize="bounds"``) and
    averaged over the judged queries. ``preset="expeval"`` reproduces expeval, the TREC Fair
    Ranking track's program (Diaz et al., CIKM 2020).

    Parameters
    ----------
    y_true, qid_true, doc_true : array-like of shape (n_judgments,)
        The judgments: grade (>= 0), query id and document id. Each (query, document) once.
    qid, sample, doc : array-like of shape (n_rows,)
        The run: one row per document of each sampled ranking; ``sample`` identifies the
        ranking within its query (the second column of expeval's run file).
    rank : array-like of shape (n_rows,), optional
        1-based rank of the row in its ranking: 1, 2, ..., n in each ranking. By default
        the rows of a ranking are in rank order (first position first).
    score : array-like of shape (n_rows,), optional
        Instead of ``rank``: scores, highest first, distinct within a ranking.
    groups : array-like, optional
        Group of each judged document: a 1-D array of labels, or a 2-D 0/1 membership matrix
        of shape (n_judgments, n_groups) for documents in several groups. The exposures are
        then summed over the documents of each group before the measures are taken
        (expeval's ``-G``); documents of the run that are not judged (not relevant under
        ``judgments="incomplete"``) count for no group.
    model, patience, utility, grades, judgments, normalize, missing : optional
        The conventions; see :class:`ExposureConventions`. Defaults: GERR with patience and
        utility 0.5, graded, incomplete judgments, normalised, ``missing="worst"``.
    preset : {"expeval"}, optional
        expeval's defaults (those above, and ``missing="expeval"``); conventions passed by
        name override it, e.g. ``model="rbp", normalize="none"`` for ``-u rbp -U``.

    Returns
    -------
    ExpectedExposure
        ``disparity``, ``relevance`` and ``loss``, each with per-query values and their
        mean, and the counts and conventions behind them.

    Examples
    --------
    A case checked against expeval: grades d1=2, d2=d3=1, d4=d5=0; two rankings, expeval's
    ``-u rbp -U`` gives 1.271484 / 1.257812 / 0.037109.

    >>> from skrank.fairness import expected_exposure
    >>> ee = expected_exposure(
    ...     [2, 1, 1, 0, 0], ["q"] * 5, ["d1", "d2", "d3", "d4", "d5"],
    ...     ["q"] * 10, [1] * 5 + [2] * 5,
    ...     ["d1", "d2", "d4", "d3", "d5", "d1", "d3", "d2", "d5", "d4"],
    ...     model="rbp", normalize="none")
    >>> print(ee)
    expected exposure (1 judged query)
      EE-D = 1.2715  disparity
      EE-R = 1.2578  relevance
      EE-L = 0.0371  loss
      user model: model=rbp, patience=0.5
      scoring: grades=graded, judgments=incomplete, normalize=none, missing=worst
    >>> round(ee.loss, 6)
    0.037109
    """
    caller = "expected_exposure"
    conv = resolve(preset, caller, model=model, patience=patience, utility=utility,
                   grades=grades, judgments=judgments, normalize=normalize, missing=missing)
    y, qj, dj = _judgments(y_true, qid_true, doc_true, caller)
    q, s, d, r, sc = _run(qid, sample, doc, rank, score, caller)
    member = None if groups is None else _groups(groups, y.shape[0], caller)

    q_labels, (qj_c, q_c) = codes(qj, q)
    d_labels, (dj_c, d_c) = codes(dj, d, sort=False)
    n_docs = int(max(dj_c.max(initial=-1), d_c.max(initial=-1))) + 1
    jkey = qj_c * n_docs + dj_c
    dup = first_duplicate(jkey)
    if dup >= 0:
        raise input_error("doc_true", "one judgment per (query, document)",
                          f"document {plain(dj[dup])!r} judged twice for query "
                          f"{plain(qj[dup])!r} (row {dup})", caller)
    keep = y > 0 if conv.judgments == "incomplete" else np.ones(y.shape[0], dtype=bool)
    judged_q, kq = np.unique(qj_c[keep], return_inverse=True)  # judged queries, dense codes
    kq = kq.ravel().astype(np.int64)
    if judged_q.shape[0] == 0:
        raise input_error("y_true", "grades with at least one relevant document (> 0) under "
                          "judgments='incomplete'", "no grade above 0", caller)
    # keys of judged documents: dense judged-query code * n_docs + document code
    kept = _Kept(kq, kq * n_docs + dj_c[keep], y[keep], judged_q.shape[0])
    grade = (kept.y > 0).astype(np.float64) if conv.grades == "binary" else kept.y
    target, n_levels = _target(conv, kept, grade)

    # the run's expected exposure, for the judged queries only
    in_judged = np.isin(q_c, judged_q)
    n_unjudged = int(np.unique(q_c[~in_judged]).shape[0])
    rows = _RunRows(np.searchsorted(judged_q, q_c[in_judged]), s[in_judged], d_c[in_judged],
                    None if r is None else r[in_judged], None if sc is None else sc[in_judged],
                    np.flatnonzero(in_judged))
    ukey, e, n_samples = _run_exposure(conv, rows, kept, n_docs, q_labels[judged_q], d, caller)
    uq = ukey // n_docs  # dense judged-query code of each (query, document) of the run
    at_u, k_hit = _lookup(ukey, kept.key)  # each kept judged document in the run, or not
    e_kept = np.where(k_hit, e[at_u] if ukey.shape[0] else 0.0, 0.0)

    u_judged = np.zeros(ukey.shape[0], dtype=bool)
    u_judged[at_u[k_hit]] = True
    qids = q_labels[judged_q]
    documents = _documents(kept.key, e_kept, target, ukey[~u_judged], e[~u_judged], n_docs,
                           qids, d_labels)

    nq = kept.n_queries
    pp = conv.patience if conv.model == "rbp" else conv.patience * conv.utility
    if member is None:
        values = {
            "disparity": _per_query(e * e, uq, nq),
            "relevance": _per_query(target * e_kept, kq, nq),
            "loss": _per_query((target - e_kept) ** 2, kq, nq)
            + _per_query(np.where(u_judged, 0.0, e * e), uq, nq),
        }
        n_kept = np.bincount(kq, minlength=nq).astype(np.float64)
        bounds = _doc_bounds(conv, target, kq, nq, n_kept, n_levels, pp)
    else:
        values, bounds = _over_groups(conv, member, keep, kept, target, e_kept, pp)
    return _result(conv, values, bounds, n_samples, qids, member is not None, n_unjudged,
                   documents)


def _documents(kept_key: np.ndarray, kept_e: np.ndarray, target: np.ndarray,
               run_key: np.ndarray, run_e: np.ndarray, n_docs: int, qids: np.ndarray,
               d_labels: np.ndarray) -> DocumentExposure:
    """Each document with a target or a run exposure, by query."""
    key = np.concatenate([kept_key, run_key])
    order = np.argsort(key, kind="stable")
    key = key[order]
    return DocumentExposure(
        qids[key // n_docs], d_labels[key % n_docs],
        np.concatenate([kept_e, run_e])[order],
        np.concatenate([target, np.zeros(run_key.shape[0])])[order])


@dataclass(frozen=True)
class _Kept:
    """The judged documents that get a target exposure."""

    q: np.ndarray  # dense code of the judged query
    key: np.ndarray  # query code * n_docs + document code
    y: np.ndarray  # the grade as given
    n_queries: int


@dataclass(frozen=True)
class _RunRows:
    """The run's rows of judged queries."""

    q: np.ndarray  # dense code of the judged query
    sample: np.ndarray  # sample ids as given
    doc: np.ndarray  # document code
    rank: np.ndarray | None
    score: np.ndarray | None
    row: np.ndarray  # row in the input


def _target(conv: ExposureConventions, kept: _Kept, grade: np.ndarray):
    """Target exposure of each kept document, and the number of grade levels per query.

    The ideal stochastic ranking puts documents in grade order and shuffles documents of one
    grade: ``m`` documents below ``b`` better ones share positions ``b .. b + m - 1``.
    """
    p, u = conv.patience, conv.utility
    order = np.lexsort((-grade, kept.q))
    sq, sg = kept.q[order], grade[order]
    q_start = segment_starts(sq)
    new_level = np.r_[True, (sq[1:] != sq[:-1]) | (sg[1:] != sg[:-1])]
    level = np.flatnonzero(new_level)
    level_id = np.cumsum(new_level) - 1
    m = np.bincount(level_id)[level_id].astype(np.float64)
    b = (level[level_id] - q_start[sq]).astype(np.float64)
    if conv.model == "rbp":
        t_sorted = (p ** b - p ** (b + m)) / (m * (1.0 - p))
    else:
        # relevant levels decay by p (1 - u) a position; the others come after every
        # relevant document, each of which stopped the user with probability u
        decay = p * (1.0 - u)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = (decay ** b - decay ** (b + m)) / (m * (1.0 - decay))
        non = (1.0 - u) ** b * (p ** b - p ** (b + m)) / (m * (1.0 - p))
        t_sorted = np.where(sg > 0, rel, non)
    target = np.empty_like(t_sorted)
    target[order] = t_sorted
    return target, np.bincount(sq[level], minlength=kept.n_queries)


def _run_exposure(conv: ExposureConventions, rows: _RunRows, kept: _Kept, n_docs: int,
                  q_labels: np.ndarray, doc: np.ndarray, caller: str):
    """Expected exposure of each (query, document) of the run, and rankings per query."""
    p, u = conv.patience, conv.utility
    _, (s_code,) = codes(rows.sample)
    n_s = int(s_code.max(initial=-1)) + 1
    ranking_keys, ranking = dense(rows.q * n_s + s_code, kept.n_queries * n_s)
    n_samples = np.bincount(ranking_keys // max(n_s, 1), minlength=kept.n_queries)
    n_rankings = ranking_keys.shape[0]
    key = rows.q * n_docs + rows.doc
    # one sort by (query, document, ranking): a document twice in a ranking is two equal
    # neighbours, and the sorted keys are the (query, document) pairs of the run
    if (int(key.max(initial=0)) + 1) * max(n_rankings, 1) < 2**62:
        combined = key * n_rankings + ranking
        by_doc = np.argsort(combined)
        same = combined[by_doc]
        dup = np.flatnonzero(same[1:] == same[:-1])
    else:  # pragma: no cover - ids beyond 2**62 combinations
        by_doc = np.lexsort((ranking, key))
        dup = np.flatnonzero((key[by_doc][1:] == key[by_doc][:-1])
                             & (ranking[by_doc][1:] == ranking[by_doc][:-1]))
    if dup.shape[0]:
        i = int(by_doc[dup[0] + 1])
        raise input_error("doc", "each document once in a ranking",
                          f"document {plain(doc[rows.row[i]])!r} twice in query "
                          f"{_label(q_labels, rows.q[i])!r}, sample "
                          f"{plain(rows.sample[i])!r} (row {int(rows.row[i])})", caller)
    sorted_key = key[by_doc]
    new = np.r_[True, sorted_key[1:] != sorted_key[:-1]] if key.shape[0] else np.zeros(0, bool)
    ukey = sorted_key[new]
    uinv = np.empty(key.shape[0], dtype=np.int64)
    uinv[by_doc] = np.cumsum(new) - 1
    order, pos = _positions(ranking, rows.rank, rows.score, q_labels, rows.q, rows.sample,
                            rows.row, caller)
    key = key[order]
    expo = p ** pos.astype(np.float64)
    if conv.model == "gerr":
        # relevant documents above each position, within its ranking
        kept_order = np.argsort(kept.key)
        at, hit = _lookup(kept.key[kept_order], key)
        is_rel = (hit & (kept.y[kept_order[at]] > 0)).astype(np.int64)
        before = np.cumsum(is_rel) - is_rel
        starts = segment_starts(ranking[order])
        base = np.zeros_like(before)
        base[starts] = before[starts]
        np.maximum.accumulate(base, out=base)
        expo = expo * (1.0 - u) ** (before - base).astype(np.float64)
    e = np.bincount(uinv[order], weights=expo / n_samples[rows.q[order]],
                    minlength=ukey.shape[0])
    return ukey, e, n_samples


def _over_groups(conv: ExposureConventions, member: tuple[np.ndarray, np.ndarray],
                 keep: np.ndarray, kept: _Kept, target: np.ndarray, e_kept: np.ndarray,
                 pp: float):
    """The measures and their bounds over the sums of exposure of each group."""
    rows, gcode = member
    k_index = np.full(keep.shape[0], -1, dtype=np.int64)
    k_index[keep] = np.arange(kept.key.shape[0])
    sel = k_index[rows] >= 0  # groups of kept documents only, as expeval
    kr, gc = k_index[rows[sel]], gcode[sel]
    n_g = int(gc.max(initial=-1)) + 1
    qg, qg_inv = np.unique(kept.q[kr] * n_g + gc, return_inverse=True)
    qg_inv = qg_inv.ravel()
    tg = np.bincount(qg_inv, weights=target[kr], minlength=qg.shape[0])
    eg = np.bincount(qg_inv, weights=e_kept[kr], minlength=qg.shape[0])
    gq = qg // n_g
    nq = kept.n_queries
    values = {
        "disparity": _per_query(eg * eg, gq, nq),
        "relevance": _per_query(tg * eg, gq, nq),
        "loss": _per_query((tg - eg) ** 2, gq, nq),
    }
    n_rel = np.bincount(kept.q, weights=(kept.y > 0).astype(np.float64), minlength=nq)
    k = np.bincount(gq, minlength=nq)
    return values, _group_bounds(conv.patience, pp, tg, gq, nq, k, n_rel)


def _result(conv: ExposureConventions, values: dict[str, np.ndarray],
            bounds: dict[str, tuple[np.ndarray, np.ndarray]], n_samples: np.ndarray,
            qids: np.ndarray, groups: bool, n_unjudged: int,
            documents: DocumentExposure) -> ExpectedExposure:
    """Fill the judged queries without rankings, normalise, average."""
    absent = n_samples == 0
    n_missing = int(absent.sum())
    if n_missing:
        if conv.missing == "error":
            raise InputError(
                f"The run has no ranking for {n_missing:,} judged queries (the first: "
                f"{plain(qids[np.flatnonzero(absent)[0]])!r}) and missing='error'; use "
                f"missing='worst', 'expeval' or 'exclude'.")
        fill = {
            "worst": {"disparity": bounds["disparity"][1], "relevance": bounds["relevance"][0],
                      "loss": bounds["loss"][1]},
            "expeval": {"disparity": bounds["disparity"][1],
                        "relevance": bounds["relevance"][0], "loss": bounds["relevance"][1]},
        }.get(conv.missing)
        for name in values:
            values[name] = np.where(absent, np.nan if fill is None else fill[name],
                                    values[name])
    scores = []
    for name, short in (("disparity", "EE-D"), ("relevance", "EE-R"), ("loss", "EE-L")):
        lb, ub = bounds[name]
        v = values[name]
        equal = lb == ub
        if conv.normalize == "bounds":
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.where(equal, _FIXED[name], (v - lb) / (ub - lb))
        if conv.missing == "exclude":
            v = np.where(absent, np.nan, v)
            equal &= ~absent
        ok = ~np.isnan(v)
        mean = float(v[ok].mean()) if ok.any() else float("nan")
        scores.append(ExposureScore(short, mean, v, qids, conv, int(np.count_nonzero(equal))))
    return ExpectedExposure(*scores, qids=qids, n_samples=n_samples.astype(np.int64),
                            conventions=conv, groups=groups, n_missing=n_missing,
                            n_unjudged=n_unjudged, documents=documents)


def _geometric(x: float, n: np.ndarray) -> np.ndarray:
    """``sum_{i < n} x**i``; ``n`` may be infinite."""
    return np.where(np.isinf(n), 1.0 / (1.0 - x), (1.0 - x ** np.where(np.isinf(n), 0, n))
                    / (1.0 - x))


def _doc_bounds(conv: ExposureConventions, target: np.ndarray, kq: np.ndarray, nq: int,
                n_kept: np.ndarray, n_levels: np.ndarray, pp: float):
    """expeval's lower and upper bounds of each measure, per query, over documents."""
    p = conv.patience
    sq_norm = _per_query(target * target, kq, nq)
    zero = np.zeros(nq)
    if conv.judgments == "incomplete":
        n = np.full(nq, np.inf)
        d_bounds = (zero, _geometric(p * p, n))
        r_bounds = (zero, sq_norm)
        l_upper = sq_norm + 1.0 / (1.0 - pp)
    else:
        n = n_kept
        d_bounds = (_geometric(pp, n) ** 2 / n, _geometric(p * p, n))
        t_asc, i, qs = _sorted_within(kq, target, nq)
        r_bounds = (_per_query(pp ** i * t_asc, qs, nq), sq_norm)
        l_upper = _per_query((pp ** i - t_asc) ** 2, qs, nq)
    one_level = n_levels <= 1
    r_bounds = (np.where(one_level, 0.0, r_bounds[0]), np.where(one_level, 0.0, r_bounds[1]))
    return {"disparity": d_bounds, "relevance": r_bounds, "loss": (zero, l_upper)}


def _group_bounds(p: float, pp: float, tg: np.ndarray, gq: np.ndarray, nq: int,
                  k: np.ndarray, n_rel: np.ndarray):
    """expeval's bounds over groups (``k`` groups and ``n_rel`` relevant documents a query)."""
    zero = np.zeros(nq)
    mass = _geometric(p, n_rel)
    one = k == 1
    d_bounds = (np.where(one, 0.0, k * _geometric(pp, n_rel) ** 2),
                np.where(one, 0.0, k * mass ** 2))
    norm = _per_query(tg * tg, gq, nq)
    spread = _per_query((mass[gq] - tg) ** 2, gq, nq)
    # expeval's upper bound of group relevance stays 0 (it sums v * 0), so its normalised
    # value is always the fixed 1
    return {"disparity": d_bounds, "relevance": (zero, zero),
            "loss": (zero, np.maximum(norm, spread))}
