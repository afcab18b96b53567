"""Recommendations, interactions, catalogs and item features as integer codes in one user space
and one item space."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_int, param_error
from ..exceptions import InputError
from ._topk import TopK

__all__ = ["Data", "check_same_kind", "prepare", "user_means"]


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


def check_same_kind(parts: list[np.ndarray], caller: str) -> None:
    """Ids that are numbers in one array and text in another would be merged as text by
    NumPy (``7`` becoming ``"7"``): refuse them."""
    kinds = {"number" if p.dtype.kind in "iufb" else "text" for p in parts if p.size}
    if len(kinds) > 1:
        raise InputError(f"The user and item ids given to {caller} must each be of one type: "
                         f"some arrays hold numbers and others text.")


def _union(parts: list[np.ndarray], caller: str) -> tuple[np.ndarray, list[np.ndarray]]:
    """Sorted distinct ids of ``parts`` and the codes of each part."""
    check_same_kind(parts, caller)
    ints = [p for p in parts if p.size]
    if ints and all(p.dtype.kind in "iu" for p in ints):
        lo = min(int(p.min()) for p in ints)
        hi = max(int(p.max()) for p in ints)
        total = sum(p.size for p in ints)
        if lo >= 0 and hi < 4 * total + (1 << 16):
            # small non-negative integers: a presence table instead of a sort
            present = np.zeros(hi + 1, dtype=bool)
            for p in ints:
                present[p] = True
            ids = np.flatnonzero(present)
            code = np.cumsum(present, dtype=np.int64) - 1
            dtype = np.result_type(*[p.dtype for p in ints])
            return ids.astype(dtype), [code[p] if p.size else p.astype(np.int64)
                                       for p in parts]
    try:
        ids, codes = np.unique(np.concatenate(parts), return_inverse=True)
    except TypeError as exc:
        raise InputError(f"The user and item ids given to {caller} must each be of one type "
                         f"(numbers or strings): {exc}.") from None
    codes = codes.astype(np.int64)
    out, pos = [], 0
    for p in parts:
        out.append(codes[pos: pos + p.size])
        pos += p.size
    return ids, out


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
    """Codes for the recommendations (within ``k``) and whatever else the metric needs.

    A :class:`TopK` is taken as it is (distinct users and items by construction): only its
    distinct ids join the id spaces, so no step sorts its recommendations.
    """
    k = check_int("k", k, min_value=1, allow_none=True, caller=caller)
    tu = ti = eu = ei = cat = fid = fval = None
    extra_u: list[np.ndarray] = []
    extra_i: list[np.ndarray] = []
    if train is not None:
        tu, ti = _pair(train, "train", caller)
        extra_u.append(tu)
        extra_i.append(ti)
    if test is not None:
        eu, ei = _pair(test, "test", caller)
        extra_u.append(eu)
        extra_i.append(ei)
    if catalog is not None:
        if isinstance(catalog, int | np.integer) and not isinstance(catalog, bool):
            raise param_error("catalog", "the array of catalog item ids", catalog, caller)
        cat = np.asarray(catalog).ravel()
        extra_i.append(cat)
    if item_features is not None:
        fid, fval = _features(item_features, caller)
        extra_i.append(fid)
    if isinstance(reco, TopK):
        user_ids, ucodes = _union([np.asarray(reco.users), *extra_u], caller)
        item_ids, icodes = _union([np.asarray(reco.item_ids), *extra_i], caller)
        kk = reco.k if k is None else min(k, reco.k)
        idx = reco.item_index[:, :kk]
        mask = idx >= 0
        rows, pos = np.nonzero(mask)
        ru = ucodes[0][rows]
        ri = icodes[0][idx[mask]]
        rr = pos.astype(np.int64) + 1
    else:
        arrs = _pair(reco, "reco", caller, n=3)
        user_ids, ucodes = _union([arrs[0], *extra_u], caller)
        item_ids, icodes = _union([arrs[1], *extra_i], caller)
        ru, ri = ucodes[0], icodes[0]
        n_items = item_ids.size
        key = np.sort(ru * n_items + ri)
        n_rep = int(np.count_nonzero(key[1:] == key[:-1]))
        if n_rep:
            raise InputError(f"The (user, item) recommendations given to {caller} must be "
                             f"distinct; {n_rep} are repeated.")
        if len(arrs) == 3:
            rr = arrs[2]
            if rr.dtype.kind not in "iu" or (rr.size and rr.min() < 1):
                raise param_error("reco", "ranks that are integers >= 1",
                                  f"dtype {rr.dtype}" if rr.dtype.kind not in "iu"
                                  else f"rank {int(rr.min())}", caller)
            rr = rr.astype(np.int64)
        else:  # ranks by order of appearance within each user
            order = np.argsort(ru, kind="stable")
            counts = np.bincount(ru, minlength=user_ids.size)
            starts = np.cumsum(counts) - counts
            rr = np.empty(ru.size, dtype=np.int64)
            rr[order] = np.arange(ru.size) - np.repeat(starts, counts) + 1
        if k is not None:
            keep = rr <= k
            ru, ri, rr = ru[keep], ri[keep], rr[keep]
    ucodes, icodes = ucodes[1:], icodes[1:]
    if tu is not None:
        tu, ti = ucodes.pop(0), icodes.pop(0)
    if eu is not None:
        eu, ei = ucodes.pop(0), icodes.pop(0)
    catalog_codes = None
    if cat is not None:  # distinct catalog items, as codes
        seen = np.zeros(item_ids.size, dtype=bool)
        seen[icodes.pop(0)] = True
        catalog_codes = np.flatnonzero(seen)
    features = None
    if fid is not None:
        features = np.full((item_ids.size, fval.shape[1]), np.nan)
        features[icodes.pop(0)] = fval
    n_listed = int(np.count_nonzero(np.bincount(ru, minlength=user_ids.size)))
    return Data(user_ids, item_ids, ru, ri, rr, tu, ti, eu, ei, catalog_codes, features,
                n_listed)


def user_means(users: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of ``values`` per user code; returns the users present and their means."""
    cnt = np.bincount(users, minlength=n)
    tot = np.bincount(users, weights=values, minlength=n)
    present = np.flatnonzero(cnt)
    return present, tot[present] / cnt[present]
