"""What the segment modules share: query ids matched as text, per-query arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import public_name
from ..exceptions import InputError


def _key(q: Any) -> str:
    """Query ids are matched as text: ``7`` from a LibSVM file is ``"7"`` in a CSV file."""
    q = q.item() if isinstance(q, np.generic) else q
    if isinstance(q, float) and q.is_integer():
        q = int(q)
    return str(q)


def _as_1d(value: Any, name: str) -> np.ndarray:
    caller = public_name()
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise InputError(
            f"The {name!r} parameter of {caller} must be 1-D (one value per query). "
            f"Got shape {arr.shape} instead."
        )
    return arr


def _same_length(arr: np.ndarray, qids: np.ndarray, name: str) -> None:
    caller = public_name()
    if arr.shape[0] != qids.shape[0]:
        raise InputError(
            f"The {name!r} parameter of {caller} must have one value per query: "
            f"{qids.shape[0]} query ids but {arr.shape[0]} values."
        )


def _unique_qids(qids: Any) -> np.ndarray:
    caller = public_name()
    q = _as_1d(qids, "qids")
    keys = [_key(x) for x in q.tolist()]
    if len(set(keys)) != len(keys):
        seen: set[str] = set()
        dup = next(k for k in keys if k in seen or seen.add(k))
        raise InputError(
            f"The 'qids' parameter of {caller} must list each query once. Got {dup!r} twice."
        )
    return q
