"""Recommendations, interactions, catalogs and item features as integer codes in one user space
and one item space."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_int, param_error
from ..exceptions import InputError
from ._topk import TopK

__all__ = ["Data", "prepare", "user_means"]


@dataclass
class Data:
    """Codes of one call. ``r*``: recommendations within the cutoff (user, item, rank);
    ``t*``: training interactions (rows, repeats kept); ``e*``: held-out interactions."""

    user_ids: np.ndarray
    item_ids: np.ndarray
    ru: np.ndarray
    ri: np.ndarray
    rr: np.ndarray
    tu: np.ndarray | None
    ti: np.ndarray | None
    eu: np.ndarray | None
    ei: np.ndarray | None
    catalog: np.ndarray | None
    features: np.ndarray | None  # (n_items, d), rows of items without features are nan
    n_users_listed: int

    @property
    def n_items(self) -> int:
        return int(self.item_ids.shape[0])

    @property
    def n_users(self) -> int:
        return int(self.user_ids.shape[0])


def _pair(value: Any, name: str, caller: str, n: int = 2) -> list[np.ndarray]:
    if not isinstance(value, tuple | list) or len(value) not in (n, 2):
        want = "a (users, items) pair of arrays" if n == 2 else \
            "a TopK or a (users, items) or (users, items, ranks) tuple of arrays"
        raise param_error(name, want, type(value).__name__, caller)
    arrs = [np.asarray(v) for v in value]
    for a in arrs:
        if a.ndim != 1 or a.shape != arrs[0].shape:
            raise param_error(name, "1-d arrays of the same length",
                              f"shapes {[x.shape for x in arrs]}", caller)
    return arrs


def _features(item_features: Any, caller: str) -> tuple[np.ndarray, np.ndarray]:
    if hasattr(item_features, "index") and hasattr(item_features, "to_numpy"):
        ids, values = np.asarray(item_features.index), item_features.to_numpy()
    elif isinstance(item_features, tuple | list) and len(item_features) == 2:
        ids, values = np.asarray(item_features[0]), np.asarray(item_features[1])
    else:
        raise param_error("item_features", "an (item_ids, 2-d array) pair or a DataFrame "
                          "indexed by item id", type(item_features).__name__, caller)
    if values.ndim == 1:
        values = values[:, None]
    if ids.ndim != 1 or values.ndim != 2 or values.shape[0] != ids.shape[0]:
        raise param_error("item_features", "one row of features per item id",
                          f"{ids.shape[0]} ids and values of shape {values.shape}", caller)
    if np.unique(ids).size != ids.size:
        raise InputError(f"The item ids of 'item_features' of {caller} must be distinct.")
    try:
        values = values.astype(np.float64)
    except (TypeError, ValueError):
        raise param_error("item_features", "numeric feature values (encode categories as "
                          "integers)", f"dtype {values.dtype}", caller) from None
    return ids, values


def prepare(
    reco: Any,
    k: int | None,
    caller: str,
    *,
    train: Any = None,
    test: Any = None,
    catalog: Any = None,
    item_features: Any = None,
) -> Data:
    """Codes for the recommendations (within ``k``) and whatever else the metric needs."""
    k = check_int("k", k, min_value=1, allow_none=True, caller=caller)
    if isinstance(reco, TopK):
        u, i, r, _ = reco.to_flat()
    else:
        arrs = _pair(reco, "reco", caller, n=3)
        u, i = arrs[0], arrs[1]
        if len(arrs) == 3:
            r = arrs[2]
            if r.dtype.kind not in "iu" or (r.size and r.min() < 1):
                raise param_error("reco", "ranks that are integers >= 1",
                                  f"dtype {r.dtype}" if r.dtype.kind not in "iu"
                                  else f"rank {int(r.min())}", caller)
        else:
            r = None
    parts_u, parts_i = [u], [i]
    tu = ti = eu = ei = None
    if train is not None:
        tu, ti = _pair(train, "train", caller)
        parts_u.append(tu)
        parts_i.append(ti)
    if test is not None:
        eu, ei = _pair(test, "test", caller)
        parts_u.append(eu)
        parts_i.append(ei)
    cat = None
    if catalog is not None:
        if isinstance(catalog, int | np.integer) and not isinstance(catalog, bool):
            raise param_error("catalog", "the array of catalog item ids", catalog, caller)
        cat = np.unique(np.asarray(catalog).ravel())
        parts_i.append(cat)
    fid = fval = None
    if item_features is not None:
        fid, fval = _features(item_features, caller)
        parts_i.append(fid)
    try:
        user_ids, ucodes = np.unique(np.concatenate(parts_u), return_inverse=True)
        item_ids, icodes = np.unique(np.concatenate(parts_i), return_inverse=True)
    except TypeError as exc:
        raise InputError(f"The user and item ids given to {caller} must each be of one type "
                         f"(numbers or strings): {exc}.") from None
    ucodes, icodes = ucodes.astype(np.int64), icodes.astype(np.int64)
    n_items = item_ids.size
    nr = u.size
    ru, ri = ucodes[:nr], icodes[:nr]
    key = ru * n_items + ri
    if np.unique(key).size != key.size:
        raise InputError(f"The (user, item) recommendations given to {caller} must be "
                         f"distinct; {key.size - np.unique(key).size} are repeated.")
    if r is None:  # ranks by order of appearance within each user
        order = np.argsort(ru, kind="stable")
        counts = np.bincount(ru, minlength=user_ids.size)
        starts = np.cumsum(counts) - counts
        r = np.empty(nr, dtype=np.int64)
        r[order] = np.arange(nr) - np.repeat(starts, counts) + 1
    r = r.astype(np.int64)
    n_listed = int(np.unique(ru).size)
    if k is not None:
        keep = r <= k
        ru, ri, r = ru[keep], ri[keep], r[keep]
    pos_u, pos_i = nr, nr
    if tu is not None:
        tu, ti = ucodes[pos_u: pos_u + tu.size], icodes[pos_i: pos_i + ti.size]
        pos_u += tu.size
        pos_i += ti.size
    if eu is not None:
        eu, ei = ucodes[pos_u: pos_u + eu.size], icodes[pos_i: pos_i + ei.size]
        pos_i += ei.size
    catalog_codes = None
    if cat is not None:
        catalog_codes = icodes[pos_i: pos_i + cat.size]
        pos_i += cat.size
    features = None
    if fid is not None:
        features = np.full((n_items, fval.shape[1]), np.nan)
        features[icodes[pos_i: pos_i + fid.size]] = fval
    return Data(user_ids, item_ids, ru, ri, r, tu, ti, eu, ei, catalog_codes, features,
                n_listed)


def user_means(users: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of ``values`` per user code; returns the users present and their means."""
    cnt = np.bincount(users, minlength=n)
    tot = np.bincount(users, weights=values, minlength=n)
    present = np.flatnonzero(cnt)
    return present, tot[present] / cnt[present]
