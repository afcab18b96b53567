"""Beyond-accuracy metrics over pairs of items: intra-list diversity and serendipity, each
definition a named convention.

Pairwise quantities are computed without enumerating pairs: the sum of a cosine similarity
over the pairs of a list is half the squared norm of the sum of the list's normalised vectors
less their own squared norms, and a Hamming distance summed over pairs counts, feature by
feature, the pairs whose values differ. For co-occurrence the "vectors" are the items' columns
of the training matrix (users x items) divided by the square root of the item's count, so
no item x item matrix is formed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import param_error, validate_params
from ..exceptions import InputError
from ._beyond import _K, _n_distinct, _name, _need, _present, _score
from ._conventions import declared, resolve
from ._inputs import Data, prepare, user_means
from ._results import RecsysScore

__all__ = ["intra_list_diversity", "serendipity"]

# bound on the entries of one block of the sparse products (bounds their memory)
_BLOCK_ENTRIES = 1 << 23
# cost of one multiply-add through the training users (a sparse product) against one of a
# dense column of the co-occurrence matrix (measured on the benchmark, about 10)
_SPARSE_COST = 10.0
# cost of a look-up by binary search in a sparse row against one in a dense row, its share
# of forming the sparse row included (measured on the benchmark, serendipity)
_SEARCH_COST = 100.0
# look-ups per block of the pair sums (small blocks stay in cache)
_PAIR_BLOCK = 1 << 18


def _blocks(users: np.ndarray, weight: np.ndarray, budget: int | None = None) -> list[np.ndarray]:
    """Consecutive runs of ``users`` whose summed ``weight`` (a bound on the entries each adds
    to a product) stays under the budget (default ``_BLOCK_ENTRIES``); a user heavier than the
    budget is a block alone."""
    cut = np.cumsum(weight[users]) // (budget or _BLOCK_ENTRIES)
    edges = np.flatnonzero(np.diff(cut)) + 1
    return np.split(users, edges)


def _train_matrix(d: Data):
    """Training rows as a users x items count matrix, its columns divided by the square root
    of the item's count (zero columns for items without interactions)."""
    import scipy.sparse as sp

    x = sp.csr_matrix((np.ones(d.ti.size), (d.tu, d.ti)), shape=(d.n_users, d.n_items))
    x.sum_duplicates()
    c = np.bincount(d.ti, minlength=d.n_items).astype(np.float64)
    inv = np.zeros(d.n_items)
    inv[c > 0] = 1.0 / np.sqrt(c[c > 0])
    xs = x @ sp.diags(inv)
    return x.tocsr(), sp.csr_matrix(xs)


def _unit_features(d: Data, caller: str) -> np.ndarray:
    """Feature rows divided by their norm; zero rows for items without features."""
    f = d.features
    have = ~np.isnan(f).any(axis=1)
    norm = np.sqrt((np.where(have[:, None], f, 0.0) ** 2).sum(axis=1))
    used = np.flatnonzero(_present(d.ri, d.n_items)
                          | _present(d.ti if d.ti is not None else d.ri, d.n_items))
    zero = used[have[used] & (norm[used] == 0)]
    if zero.size:
        raise InputError(f"The cosine similarity of {caller} is undefined for an item whose "
                         f"features are all 0, e.g. item {d.item_ids[zero[0]]!r}.")
    out = np.zeros_like(f)
    out[have] = f[have] / norm[have][:, None]
    return out


def _list_matrix(d: Data, values: np.ndarray | None = None):
    import scipy.sparse as sp

    w = np.ones(d.ru.size) if values is None else values
    return sp.csr_matrix((w, (d.ru, d.ri)), shape=(d.n_users, d.n_items))


def _pair_similarity_sums(d: Data, similarity: str, caller: str) -> np.ndarray:
    """Per user code: the sum over the unordered pairs of its list of the pair's similarity
    (cosine) or distance (Hamming)."""
    n_u = d.n_users
    out = np.zeros(n_u)
    if similarity == "hamming":
        f = d.features
        missing = np.flatnonzero(_present(d.ri, d.n_items) & np.isnan(f).any(axis=1))
        if missing.size:
            raise InputError(f"{missing.size} recommended items of {caller} have no (or "
                             f"missing) features, e.g. {d.item_ids[missing[0]]!r}.")
        n = np.bincount(d.ru, minlength=n_u).astype(np.float64)
        for j in range(f.shape[1]):
            # code the values once per item, then count (user, value) pairs
            _, item_code = np.unique(f[:, j], return_inverse=True)
            code = item_code.ravel()[d.ri].astype(np.int64)
            width = int(code.max()) + 1
            key = d.ru * width + code
            if n_u * width <= 4 * key.size + (1 << 20):
                cnt = np.bincount(key, minlength=n_u * width).astype(np.float64)
                same = (cnt * (cnt - 1) / 2.0).reshape(n_u, width).sum(axis=1)
            else:
                keys, cnt = np.unique(key, return_counts=True)
                same = np.bincount(keys // width, weights=cnt * (cnt - 1) / 2.0,
                                   minlength=n_u)
            out += n * (n - 1) / 2.0 - same
        return out
    if similarity == "cosine":
        fu = _unit_features(d, caller)
        v = fu[d.ri]
        tot = np.zeros((n_u, fu.shape[1]))
        np.add.at(tot, d.ru, v)
        own = np.bincount(d.ru, weights=(v * v).sum(axis=1), minlength=n_u)
        return ((tot * tot).sum(axis=1) - own) / 2.0
    return _cooccurrence_pair_sums(d)


def _heavy_items(c: np.ndarray, ri: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The listed items whose rows of the co-occurrence matrix are formed densely.

    A listed item costs its training count ``c_i`` through the training users, or, with its
    row formed, one look-up per item of the list (``pairs``: summed over its listings) plus
    the row itself. The split minimises ``_SPARSE_COST * (sum of c over the other listings)
    + (look-ups) + n_items * (rows formed)``, greedily by ``c_i / (look-ups per listing)``."""
    listed = np.bincount(ri, minlength=c.size)
    cand = np.flatnonzero((listed > 0) & (c > 0))
    cand = cand[np.argsort(-(c[cand] * listed[cand] / pairs[cand]), kind="stable")]
    saved = np.concatenate(([0.0], np.cumsum(listed[cand] * c[cand])))
    spent = np.concatenate(([0.0], np.cumsum(pairs[cand] + c.size)))
    cost = _SPARSE_COST * (saved[-1] - saved) + spent
    return np.sort(cand[: int(np.argmin(cost))])


def _cooccurrence_pair_sums(d: Data) -> np.ndarray:
    """Per user code: ``sum_{i<j in list} C_ij / sqrt(c_i c_j)``.

    With ``Xs`` the training matrix with columns divided by ``sqrt(c_i)`` and ``l`` the list's
    indicator, twice the sum is ``l' Xs' Xs l - sum_i l_i Xs_i' Xs_i``. The listed items are
    split into heavy ``H`` (:func:`_heavy_items`) and light ``T``: ``l' Xs' Xs l = sum_v
    (Xs_vT l_T)^2 + sum_{i in H} sum_{j in list} w_j (Xs' Xs)_ij`` with ``w`` 1 on heavy
    and 2 on light items (a heavy-heavy pair is met from both ends, a heavy-light pair once).
    The first term is one sparse product with the training users, costing the training
    counts of the light items only; the second looks the pairs up in rows of ``Xs' Xs``
    formed densely for a bounded number of heavy items at a time."""
    import scipy.sparse as sp

    _, xs = _train_matrix(d)
    n_u, n_i = d.n_users, d.n_items
    own_i = np.asarray(xs.multiply(xs).sum(axis=0)).ravel()  # C_ii / c_i
    out = -np.bincount(d.ru, weights=own_i[d.ri], minlength=n_u)
    c = np.bincount(d.ti, minlength=n_i).astype(np.float64)
    n = np.bincount(d.ru, minlength=n_u)
    heavy = _heavy_items(c, d.ri, np.bincount(d.ri, weights=n[d.ru], minlength=n_i))
    is_heavy = _present(heavy, n_i)[d.ri]
    # light items: through the training users
    lu, li = d.ru[~is_heavy], d.ri[~is_heavy]
    r = sp.csr_matrix((np.ones(lu.size), (lu, li)), shape=(n_u, n_i))
    xst = xs.T.tocsr()
    users = np.flatnonzero(_present(lu, n_u))
    weight = np.bincount(lu, weights=c[li], minlength=n_u) + 1
    for rows in _blocks(users, weight):
        v = r[rows] @ xst  # block x training users
        np.square(v.data, out=v.data)
        out[rows] += np.asarray(v.sum(axis=1)).ravel()
    if heavy.size == 0:
        return out / 2.0
    # heavy items: each heavy listing against every item of its list, in dense rows
    order = np.argsort(d.ru, kind="stable")
    si = d.ri[order]
    w = np.where(_present(heavy, n_i), 1.0, 2.0)  # weight of the second item of a pair
    ptr = np.concatenate(([0], np.cumsum(n)))
    hu, hpos = d.ru[is_heavy], np.searchsorted(heavy, d.ri[is_heavy])
    by = np.argsort(hpos, kind="stable")
    hu, hpos = hu[by], hpos[by]
    esum = np.zeros(hu.size)
    n_hu = n[hu]
    height = max(1, min(heavy.size, _BLOCK_ENTRIES // max(n_i, 1)))
    for s in range(0, heavy.size, height):
        rows = xst[heavy[s:s + height]] @ xs  # rows of Xs' Xs
        dense = (rows.toarray() * w).ravel()  # exact: w is 1 or 2
        lo, hi = np.searchsorted(hpos, [s, s + height])
        for e in _blocks(np.arange(lo, hi), n_hu, _PAIR_BLOCK):
            lens = n[hu[e]]
            first = np.cumsum(lens) - lens
            j = np.repeat(ptr[hu[e]] - first, lens) + np.arange(int(lens.sum()))
            at = np.repeat((hpos[e] - s) * n_i, lens) + si[j]
            esum[e] = np.add.reduceat(dense[at], first)
    return (out + np.bincount(hu, weights=esum, minlength=n_u)) / 2.0


@validate_params({"k": _K, **declared("similarity", "short_lists", "preset")})
def intra_list_diversity(reco: Any, train: Any = None, *, item_features: Any = None,
                         k: int | None = None, similarity: str | None = None,
                         short_lists: str | None = None,
                         preset: str | None = None) -> RecsysScore:
    """Mean dissimilarity of the pairs of items of each list, averaged over users (ILD).

    Parameters
    ----------
    reco : TopK or tuple of arrays
        The lists (see :func:`catalog_coverage`).
    train : (users, items) pair of arrays, optional
        Training interactions; needed by ``similarity="cooccurrence"``.
    item_features : (item_ids, 2-d array) pair or DataFrame indexed by item id, optional
        Needed by ``"cosine"`` (numeric vectors) and ``"hamming"`` (categories as numbers).
    k : int, optional
        Only recommendations with rank <= k count.
    similarity : {"cooccurrence", "cosine", "hamming"}, default="cooccurrence"
        A pair's dissimilarity: 1 - the cosine of the items' training co-occurrence
        (``C_ij / sqrt(c_i c_j)``, ``C_ij`` users with both, ``c_i`` rows of the item;
        Recommenders ``diversity``), 1 - the cosine of their feature vectors (Recommenders'
        ``item_feature_vector``; an item without features has similarity 0), or the number
        of features whose values differ (RecTools ``PairwiseHammingDistanceCalculator``).
    short_lists : {"exclude", "zero"}, default="exclude"
        A list with fewer than two items is left out (Recommenders) or counts 0 (RecTools).
    preset : {"recommenders", "rectools"}, optional

    Returns
    -------
    RecsysScore

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import intra_list_diversity
    >>> feats = ([1, 2, 3], np.array([[0, 1], [0, 0], [1, 1]]))
    >>> round(float(intra_list_diversity(([9, 9, 9], [1, 2, 3]), item_features=feats,
    ...                                  preset="rectools")), 4)
    1.3333
    """
    caller = "intra_list_diversity"
    conv = resolve(caller, preset, caller, similarity=similarity, short_lists=short_lists)
    sim = conv["similarity"]
    if sim == "cooccurrence":
        _need(train, "train", "similarity='cooccurrence' counts co-occurrence in training",
              caller)
    else:
        _need(item_features, "item_features", f"similarity={sim!r} compares features", caller)
    d = prepare(reco, k, caller, train=train if sim == "cooccurrence" else None,
                item_features=item_features)
    sums = _pair_similarity_sums(d, sim, caller)
    n = np.bincount(d.ru, minlength=d.n_users).astype(np.float64)
    users = np.flatnonzero(n > 0)
    pairs = n[users] * (n[users] - 1) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = sums[users] / pairs
    per = mean if sim == "hamming" else 1.0 - mean
    short = pairs == 0
    per = np.where(short, 0.0 if conv["short_lists"] == "zero" else np.nan, per)
    kept = ~np.isnan(per)
    if not kept.any():
        raise InputError(f"No list of {caller} has two items: the diversity is undefined.")
    detail = f"{int(short.sum()):,} lists shorter than 2" if short.any() else ""
    return _score(_name("Intra-list diversity", k), per[kept].mean(), conv, d, users, per,
                  detail)


def _cooccurrence_history_sums(d: Data) -> np.ndarray:
    """For each recommendation ``(u, i)``: ``sum_j X_uj C_ij / sqrt(c_i c_j)`` over the
    user's training items ``j`` (``X_uj`` the user's rows of ``j``).

    Each (recommendation, training item) pair is looked up in row ``i`` of ``Xs' Xs``
    (``Xs``: the training matrix with columns divided by ``sqrt(c_i)``): a dense row for a
    heavy item (many pairs: the row's cost is spread over them), a sparse row, found by
    binary search, for a light one. Rows are formed a bounded number at a time."""
    x, xs = _train_matrix(d)
    xst = xs.T.tocsr()
    n_i = d.n_items
    out = np.zeros(d.ru.size)
    c = np.bincount(d.ti, minlength=n_i).astype(np.float64)
    hlen = np.diff(x.indptr)  # distinct training items of each user
    lens_all = hlen[d.ru]
    pairs = np.bincount(d.ri, weights=lens_all, minlength=n_i)
    mean_len = x.nnz / max(int(np.count_nonzero(hlen)), 1)
    # a sparse row costs its entries (about c_i * mean_len) and a binary search per pair
    heavy = (n_i + pairs < _SEARCH_COST * (pairs + c * mean_len)) & (pairs > 0)
    for dense_rows in (True, False):
        items = np.flatnonzero(heavy if dense_rows else ~heavy & (pairs > 0) & (c > 0))
        if items.size == 0:
            continue
        sel = np.flatnonzero(_present(items, n_i)[d.ri])
        sel = sel[np.argsort(np.searchsorted(items, d.ri[sel]), kind="stable")]
        pos = np.searchsorted(items, d.ri[sel])
        w_sel = lens_all[sel]
        if dense_rows:
            groups = np.split(np.arange(items.size), np.arange(0, items.size, max(
                1, _BLOCK_ENTRIES // max(n_i, 1)))[1:])
        else:
            groups = _blocks(np.arange(items.size), c[items] * mean_len + 1)
        for g in groups:
            rows = xst[items[g]] @ xs  # rows of Xs' Xs
            if dense_rows:
                table = rows.toarray().ravel()
            else:
                rows.sum_duplicates()
                rows.sort_indices()
            lo, hi = np.searchsorted(pos, [g[0], g[-1] + 1])
            for e in _blocks(np.arange(lo, hi), w_sel, _PAIR_BLOCK):
                r = sel[e]
                lens = lens_all[r]
                if lens.sum() == 0:
                    continue
                first = np.cumsum(lens) - lens
                j = np.repeat(x.indptr[d.ru[r]] - first, lens) + np.arange(int(lens.sum()))
                loc = np.repeat(pos[e] - g[0], lens)
                if dense_rows:
                    v = table[loc * n_i + x.indices[j]]
                else:
                    v = np.asarray(rows[loc, x.indices[j]]).ravel()
                keep = lens > 0
                out[r[keep]] = np.add.reduceat(v * x.data[j], first[keep])
    s = np.sqrt(c[d.ri])
    return np.where(s > 0, out, 0.0)


def _mean_history_similarity(d: Data, similarity: str, caller: str) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """For each recommendation, the mean similarity of its item to the user's training rows;
    and whether the user has training rows."""
    hist = np.bincount(d.tu, minlength=d.n_users).astype(np.float64)
    has = hist[d.ru] > 0
    out = np.zeros(d.ru.size)
    if similarity == "cosine":
        fu = _unit_features(d, caller)
        prof = np.zeros((d.n_users, fu.shape[1]))
        np.add.at(prof, d.tu, fu[d.ti])
        out = (prof[d.ru] * fu[d.ri]).sum(axis=1)
    else:
        out = _cooccurrence_history_sums(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(has, out / hist[d.ru], 0.0), has


@validate_params({"k": _K, **declared("definition", "similarity", "preset",
                                      similarity=("cooccurrence", "cosine"))})
def serendipity(reco: Any, train: Any, test: Any = None, *, catalog: Any = None,
                item_features: Any = None, k: int | None = None, definition: str | None = None,
                similarity: str | None = None, preset: str | None = None) -> RecsysScore:
    """Relevant recommendations the user would not have expected, averaged per user.

    Parameters
    ----------
    reco : TopK or tuple of arrays
        The lists (see :func:`catalog_coverage`).
    train : (users, items) pair of arrays
        Training interactions.
    test : (users, items) pair of arrays, optional
        Held-out interactions: a recommendation is relevant when it is one. Without it every
        recommendation is relevant (Recommenders' default, ``col_relevance=None``);
        ``definition="popularity_rank"`` needs it.
    catalog : array-like, optional
        Catalog item ids; ``"popularity_rank"`` needs its size.
    item_features : (item_ids, 2-d array) pair or DataFrame, optional
        For ``similarity="cosine"``.
    k : int, optional
        Only recommendations with rank <= k count.
    definition : {"dissimilarity", "popularity_rank"}, default="dissimilarity"
        ``"dissimilarity"``: relevance times 1 - the mean similarity of the item to the user's
        training items (Recommenders ``serendipity``; users without training items are left
        out). ``"popularity_rank"``: relevance times ``max(0, (n + 1 - rank) / n - (n + 1 -
        p) / n)``, ``n`` the catalog size, ``rank`` the item's rank in the list and ``p`` its
        dense rank by training interactions (most popular 1; an item without interactions
        counts 0 for the second term) (RecTools ``Serendipity``).
    similarity : {"cooccurrence", "cosine"}, default="cooccurrence"
        Item similarity of ``"dissimilarity"`` (see :func:`intra_list_diversity`).
    preset : {"recommenders", "rectools"}, optional

    Returns
    -------
    RecsysScore

    Examples
    --------
    >>> from skrank.recsys import serendipity
    >>> train = ([1, 1, 2], [7, 8, 7])
    >>> round(float(serendipity(([2], [8]), train)), 4)
    0.2929
    """
    caller = "serendipity"
    conv = resolve(caller, preset, caller, definition=definition)
    if conv["definition"] == "dissimilarity":
        conv = {"definition": "dissimilarity",
                "similarity": similarity or conv.get("similarity", "cooccurrence")}
        if conv["similarity"] not in ("cooccurrence", "cosine"):
            raise param_error("similarity", "one of 'cooccurrence', 'cosine'",
                              conv["similarity"], caller)
        if conv["similarity"] == "cosine":
            _need(item_features, "item_features", "similarity='cosine' compares features",
                  caller)
    else:
        if similarity is not None:
            raise param_error("similarity", "None: definition='popularity_rank' uses no "
                              "similarity", similarity, caller)
        conv = {"definition": "popularity_rank"}
        _need(test, "test", "definition='popularity_rank' counts relevant items", caller)
        _need(catalog, "catalog", "definition='popularity_rank' needs the catalog size",
              caller)
    d = prepare(reco, k, caller, train=train, test=test, catalog=catalog,
                item_features=item_features if conv.get("similarity") == "cosine" else None)
    if d.eu is None:
        rel = np.ones(d.ru.size)
    else:
        rel = np.isin(d.ru * d.n_items + d.ri, d.eu * d.n_items + d.ei).astype(np.float64)
    if conv["definition"] == "dissimilarity":
        msim, has = _mean_history_similarity(d, conv["similarity"], caller)
        vals = (1.0 - msim) * rel
        users, per = user_means(d.ru[has], vals[has], d.n_users)
        left = _n_distinct(d.ru[~has], d.n_users)
        detail = f"{left:,} users without training interactions left out" if left else ""
    else:
        n = d.catalog.size
        cnt = np.bincount(d.ti, minlength=d.n_items)
        levels = np.unique(cnt[cnt > 0])[::-1]  # counts descending: dense rank 1, 2, ...
        prank = np.zeros(d.n_items)
        seen = cnt > 0
        prank[seen] = np.searchsorted(-levels, -cnt[seen]) + 1
        p_any = np.where(seen[d.ri], (n + 1 - prank[d.ri]) / n, 0.0)
        p_user = (n + 1 - d.rr) / n
        vals = np.maximum(p_user - p_any, 0.0) * rel
        users, per = user_means(d.ru, vals, d.n_users)
        detail = ""
    if users.size == 0:
        raise InputError(f"No user of {caller} has both a list and training interactions.")
    return _score(_name("Serendipity", k), per.mean(), conv, d, users, per, detail)

