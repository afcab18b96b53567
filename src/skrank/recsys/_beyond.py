"""Beyond-accuracy metrics of top-k lists that count items: coverage, entropy, Gini index,
popularity and novelty, each definition a named convention (the pairwise ones, diversity and
serendipity, are in :mod:`._diversity`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import Interval, param_error, validate_params
from ..exceptions import InputError
from ._conventions import declared, resolve
from ._inputs import Data, prepare, user_means
from ._results import RecsysScore

__all__ = [
    "average_popularity",
    "catalog_coverage",
    "distributional_coverage",
    "gini_index",
    "novelty",
]

# the cutoff of every metric: what prepare's check_int accepts
_K = [Interval(int, 1), None]

def _name(base: str, k: int | None) -> str:
    return base if k is None else f"{base}@{k}"


def _score(name, value, conv, d: Data, users=None, per_user=None, detail=""):
    ids = None if users is None else d.user_ids[users]
    return RecsysScore(name, float(value), conv, d.n_users_listed, int(d.ru.size), ids,
                       per_user, detail)


def _need(value: Any, name: str, why: str, caller: str) -> None:
    if value is None:
        raise param_error(name, f"given: {why}", None, caller)


def _present(codes: np.ndarray, n: int) -> np.ndarray:
    """Which of the codes 0..n-1 occur (a table, not a sort)."""
    out = np.zeros(n, dtype=bool)
    out[codes] = True
    return out


def _n_distinct(codes: np.ndarray, n: int) -> int:
    return int(np.count_nonzero(_present(codes, n)))


def _log(x: np.ndarray, base: str) -> np.ndarray:
    return np.log2(x) if base == "2" else np.log(x)


def _item_counts(d: Data, count: str) -> np.ndarray:
    """Training popularity of every item: rows or distinct users."""
    if count == "interactions":
        return np.bincount(d.ti, minlength=d.n_items).astype(np.float64)
    import scipy.sparse as sp

    # distinct (user, item) pairs: CSR conversion is a counting sort, rows are short
    m = sp.csr_matrix((np.ones(d.ti.size, dtype=np.int8), (d.tu, d.ti)),
                      shape=(d.n_users, d.n_items))
    m.sum_duplicates()
    return np.bincount(m.indices, minlength=d.n_items).astype(np.float64)


def _unseen_detail(d: Data, counts: np.ndarray) -> str:
    n = int(np.count_nonzero(counts[d.ri] == 0))
    return f"unseen in training: {n:,} of the recommended (user, item) pairs" if n else ""


# --------------------------------------------------------------------------- coverage


@validate_params({"k": _K, **declared("denominator", "preset")})
def catalog_coverage(reco: Any, train: Any = None, *, catalog: Any = None, k: int | None = None,
                     denominator: str | None = None, preset: str | None = None) -> RecsysScore:
    """Distinct recommended items, divided by the catalog or by the items seen in training.

    Parameters
    ----------
    reco : TopK or tuple of arrays
        The lists: a :class:`TopK`, or ``(users, items)`` (ranks by order of appearance) or
        ``(users, items, ranks)`` flat arrays.
    train : (users, items) pair of arrays, optional
        Training interactions; needed by ``denominator="train_items"``.
    catalog : array-like, optional
        Ids of the catalog items; needed by ``denominator="catalog"``.
    k : int, optional
        Only recommendations with rank <= k count.
    denominator : {"catalog", "train_items", "none"}, default="catalog"
        Divide by the number of catalog items (RecTools ``CatalogCoverage(normalize=True)``),
        of distinct training items (Recommenders ``catalog_coverage``, which can exceed 1),
        or not at all (RecTools' default ``normalize=False``).
    preset : {"recommenders", "rectools"}, optional

    Returns
    -------
    RecsysScore

    Examples
    --------
    >>> from skrank.recsys import catalog_coverage
    >>> reco = ([1, 1, 2, 2], [3, 4, 3, 5])
    >>> float(catalog_coverage(reco, catalog=[1, 2, 3, 4, 5, 6]))
    0.5
    >>> float(catalog_coverage(reco, ([1, 2], [1, 3]), preset="recommenders"))
    1.5
    """
    caller = "catalog_coverage"
    conv = resolve(caller, preset, caller, denominator=denominator)
    how = conv["denominator"]
    if how == "catalog":
        _need(catalog, "catalog", "denominator='catalog' divides by its size", caller)
    if how == "train_items":
        _need(train, "train", "denominator='train_items' divides by its distinct items", caller)
    d = prepare(reco, k, caller, train=train, catalog=catalog)
    n = _n_distinct(d.ri, d.n_items)
    if how == "catalog":
        den = d.catalog.size
    elif how == "train_items":
        den = _n_distinct(d.ti, d.n_items)
    else:
        den = 1
    if den == 0:
        raise InputError(f"The {how} of {caller} is empty: the coverage is undefined.")
    detail = f"{n:,} distinct items recommended"
    if how == "catalog":
        outside = int(np.count_nonzero(_present(d.ri, d.n_items) & ~_present(d.catalog, d.n_items)))
        detail += f" of {den:,}" + (f", {outside:,} outside the catalog" if outside else "")
    return _score(_name("Catalog coverage", k), n / den, conv, d, detail=detail)


@validate_params({"k": _K, **declared("log_base", "preset")})
def distributional_coverage(reco: Any, *, k: int | None = None, log_base: str | None = None,
                            preset: str | None = None) -> RecsysScore:
    """Entropy of the distribution of recommendations over items.

    ``-sum_i p_i log p_i`` with ``p_i`` the share of all recommendations that go to item ``i``
    (Recommenders ``distributional_coverage``, in bits).

    Parameters
    ----------
    reco : TopK or tuple of arrays
        The lists (see :func:`catalog_coverage`).
    k : int, optional
        Only recommendations with rank <= k count.
    log_base : {"2", "e"}, default="2"
        Bits (Recommenders) or nats.
    preset : {"recommenders"}, optional

    Returns
    -------
    RecsysScore

    Examples
    --------
    >>> from skrank.recsys import distributional_coverage
    >>> float(distributional_coverage(([1, 1, 2, 2], [3, 4, 3, 5])))
    1.5
    """
    caller = "distributional_coverage"
    conv = resolve(caller, preset, caller, log_base=log_base)
    d = prepare(reco, k, caller)
    c = np.bincount(d.ri, minlength=d.n_items)
    c = c[c > 0] / d.ri.size
    return _score(_name("Distributional coverage", k), -np.sum(c * _log(c, conv["log_base"])),
                  conv, d)


@validate_params({"k": _K, **declared("gini_items", "preset")})
def gini_index(reco: Any, *, catalog: Any = None, k: int | None = None,
               gini_items: str | None = None, preset: str | None = None) -> RecsysScore:
    """Gini index of the number of times each item is recommended.

    ``sum_j (2j - n - 1) c_(j) / (n sum_j c_(j))`` over the counts sorted ascending: 0 when
    every item is recommended equally often, close to 1 when a few items take every slot.

    Parameters
    ----------
    reco : TopK or tuple of arrays
        The lists (see :func:`catalog_coverage`).
    catalog : array-like, optional
        Catalog item ids; needed by ``gini_items="catalog"``.
    k : int, optional
        Only recommendations with rank <= k count.
    gini_items : {"catalog", "recommended"}, default="catalog"
        Over every catalog item, unrecommended ones counting 0 (RecBole's ``GiniIndex``), or
        over the recommended items only.
    preset : None
        Neither Recommenders nor RecTools defines it.

    Returns
    -------
    RecsysScore

    Examples
    --------
    >>> from skrank.recsys import gini_index
    >>> reco = ([1, 1, 2, 2], [3, 4, 3, 5])
    >>> round(float(gini_index(reco, catalog=[3, 4, 5, 6])), 4)
    0.375
    >>> round(float(gini_index(reco, gini_items="recommended")), 4)
    0.1667
    """
    caller = "gini_index"
    conv = resolve(caller, preset, caller, gini_items=gini_items)
    if conv["gini_items"] == "catalog":
        _need(catalog, "catalog", "gini_items='catalog' counts every catalog item", caller)
    d = prepare(reco, k, caller, catalog=catalog)
    c = np.bincount(d.ri, minlength=d.n_items).astype(np.float64)
    if conv["gini_items"] == "catalog":
        outside = np.flatnonzero(_present(d.ri, d.n_items) & ~_present(d.catalog, d.n_items))
        if outside.size:
            raise InputError(f"{outside.size} recommended items of {caller} are not in the "
                             f"catalog, e.g. {d.item_ids[outside[0]]!r}.")
        c = c[d.catalog]
    else:
        c = c[c > 0]
    n = c.size
    if n == 0 or c.sum() == 0:
        raise InputError(f"{caller} needs at least one recommendation.")
    c = np.sort(c)
    j = np.arange(1, n + 1)
    return _score(_name("Gini index", k), np.sum((2 * j - n - 1) * c) / (n * c.sum()), conv, d,
                  detail=f"{n:,} items")


# --------------------------------------------------------------------------- popularity


@validate_params({"k": _K, **declared("count", "normalizer", "average", "preset")})
def average_popularity(reco: Any, train: Any, *, k: int | None = None, count: str | None = None,
                       normalizer: str | None = None, average: str | None = None,
                       preset: str | None = None) -> RecsysScore:
    """Mean training popularity of the recommended items (ARP).

    Parameters
    ----------
    reco : TopK or tuple of arrays
        The lists (see :func:`catalog_coverage`).
    train : (users, items) pair of arrays
        Training interactions (repeats are interactions).
    k : int, optional
        Only recommendations with rank <= k count.
    count : {"interactions", "users"}, default="interactions"
        An item's popularity: its training rows or its distinct users.
    normalizer : {"none", "interactions", "users"}, default="none"
        Divide the popularity by nothing, the training rows (RecTools ``normalize=True``) or
        the distinct training users.
    average : {"users", "recommendations"}, default="users"
        Mean per user then over users (RecTools ``AvgRecPopularity``), or over every
        recommendation.
    preset : {"rectools"}, optional

    Returns
    -------
    RecsysScore

    Examples
    --------
    >>> from skrank.recsys import average_popularity
    >>> train = ([1, 2, 3, 3], [7, 7, 7, 8])
    >>> float(average_popularity(([1, 1, 2], [7, 9, 8]), train))
    1.25
    """
    caller = "average_popularity"
    conv = resolve(caller, preset, caller, count=count, normalizer=normalizer, average=average)
    d = prepare(reco, k, caller, train=train)
    pop = _item_counts(d, conv["count"])
    if conv["normalizer"] == "interactions":
        pop = pop / d.ti.size
    elif conv["normalizer"] == "users":
        pop = pop / _n_distinct(d.tu, d.n_users)
    vals = pop[d.ri]
    detail = _unseen_detail(d, _item_counts(d, "interactions"))
    if conv["average"] == "recommendations":
        return _score(_name("Average popularity", k), vals.mean(), conv, d, detail=detail)
    users, per = user_means(d.ru, vals, d.n_users)
    return _score(_name("Average popularity", k), per.mean(), conv, d, users, per, detail)


@validate_params({"k": _K, **declared("count", "normalizer", "unseen", "average", "log_base",
                                      "preset", normalizer=("users", "interactions"))})
def novelty(reco: Any, train: Any, *, k: int | None = None, count: str | None = None,
            normalizer: str | None = None, unseen: str | None = None,
            average: str | None = None, log_base: str | None = None,
            preset: str | None = None) -> RecsysScore:
    """Mean self-information of the recommended items, ``-log(popularity / normalizer)``.

    Parameters
    ----------
    reco : TopK or tuple of arrays
        The lists (see :func:`catalog_coverage`).
    train : (users, items) pair of arrays
        Training interactions.
    k : int, optional
        Only recommendations with rank <= k count.
    count : {"users", "interactions"}, default="users"
        An item's popularity: its distinct training users (RecTools ``MeanInvUserFreq``) or
        its training rows (Recommenders ``novelty``).
    normalizer : {"users", "interactions"}, default="users"
        What the popularity is divided by: distinct training users (RecTools) or training rows
        (Recommenders).
    unseen : {"one", "zero"}, default="one"
        An item without training interactions has the self-information of an item with one
        (RecTools), or 0 while still counting in the mean (Recommenders).
    average : {"users", "recommendations"}, default="users"
        Mean per user then over users (RecTools' MIUF), or over every recommendation
        (Recommenders).
    log_base : {"2", "e"}, default="2"
    preset : {"recommenders", "rectools"}, optional

    Returns
    -------
    RecsysScore

    Examples
    --------
    >>> from skrank.recsys import novelty
    >>> train = ([1, 2, 3, 4], [7, 7, 7, 8])
    >>> round(float(novelty(([1, 1], [7, 8]), train)), 4)
    1.2075
    """
    caller = "novelty"
    conv = resolve(caller, preset, caller, count=count, normalizer=normalizer, unseen=unseen,
                   average=average, log_base=log_base)
    if conv["normalizer"] == "none":
        raise param_error("normalizer", "one of 'users', 'interactions'", "none", caller)
    d = prepare(reco, k, caller, train=train)
    pop = _item_counts(d, conv["count"])
    norm = d.ti.size if conv["normalizer"] == "interactions" else _n_distinct(d.tu, d.n_users)
    if norm == 0:
        raise InputError(f"The 'train' interactions of {caller} are empty.")
    p = pop[d.ri]
    cold = p == 0
    if conv["unseen"] == "one":
        p = np.where(cold, 1.0, p)
    with np.errstate(divide="ignore"):
        vals = np.where(cold & (conv["unseen"] == "zero"), 0.0,
                        -_log(np.where(p > 0, p, 1.0) / norm, conv["log_base"]))
    detail = _unseen_detail(d, pop)
    if conv["average"] == "recommendations":
        return _score(_name("Novelty", k), vals.mean(), conv, d, detail=detail)
    users, per = user_means(d.ru, vals, d.n_users)
    return _score(_name("Novelty", k), per.mean(), conv, d, users, per, detail)
