"""One call of ``predict`` shared by several skrank scorers applied in a row.

scikit-learn's multi-metric scoring (``scoring={"ndcg@5": ..., "map@10": ...}``) calls every
scorer of the dict in turn with the same fitted estimator and the same ``X``; its own scorers
share one ``predict`` through a cache that only they can use. skrank's scorers keep the
latest predictions of each estimator here, and reuse them only when all of these hold:

- the same estimator object and the same ``X`` object;
- the estimator's attributes (and those of the estimators it holds, such as a pipeline's
  steps) are the same objects as before, so it has not been refitted;
- the content of ``X`` is unchanged (a checksum of its bytes);
- the scorer asking has not used these predictions yet: a scorer that comes back starts a
  new round (the next fold, the next permutation, ...), so a single scorer never reuses.

Entries live in a weak dictionary keyed by the estimator: they go when the estimator goes.
"""

from __future__ import annotations

import sys
import threading
import weakref
import zlib
from typing import Any

import numpy as np

__all__ = ["PredictionMemo"]

_DEPTH = 3


def _fingerprint(X: Any) -> tuple | None:
    """A checksum of the content of X, or None when X is of a kind not fingerprinted."""
    if isinstance(X, np.ndarray):
        if X.dtype.kind == "O":
            return None
        data = np.ascontiguousarray(X)
        return ("nd", X.shape, X.dtype.str, zlib.crc32(memoryview(data).cast("B")))
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(X, pd.DataFrame):
        parts: list[Any] = ["df", X.shape, tuple(map(str, X.columns))]
        # columns of one plain numeric dtype are checksummed together, others one by one
        by_dtype: dict[Any, list[int]] = {}
        for pos, dtype in enumerate(X.dtypes):
            plain = isinstance(dtype, np.dtype) and dtype.kind in "biufcmM"
            by_dtype.setdefault(dtype if plain else ("other", pos), []).append(pos)
        for key, positions in by_dtype.items():
            block = X.iloc[:, positions]
            if isinstance(key, np.dtype):
                values = np.ascontiguousarray(block.to_numpy())
                parts.append((key.str, tuple(positions),
                              zlib.crc32(memoryview(values).cast("B"))))
            else:
                hashed = pd.util.hash_pandas_object(block.iloc[:, 0], index=False).to_numpy()
                parts.append(("h", str(block.dtypes.iloc[0]), positions[0],
                              zlib.crc32(memoryview(hashed).cast("B"))))
        return tuple(parts)
    sp = sys.modules.get("scipy.sparse")
    if sp is not None and sp.issparse(X) and hasattr(X, "indptr"):
        return ("sp", X.format, X.shape, X.dtype.str,
                *(zlib.crc32(memoryview(np.ascontiguousarray(a)).cast("B"))
                  for a in (X.data, X.indices, X.indptr)))
    return None


def _state(obj: Any, depth: int = 0) -> list[Any]:
    """The objects an estimator's state is made of (its attributes, recursively)."""
    attrs = getattr(obj, "__dict__", None)
    if attrs is None:
        return [obj]
    out: list[Any] = []
    for value in list(attrs.values()):
        out.append(value)
        if depth >= _DEPTH:
            continue
        if hasattr(value, "get_params") and hasattr(value, "__dict__"):
            out.extend(_state(value, depth + 1))
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, tuple) and len(item) >= 2:
                    item = item[1]  # (name, estimator) steps
                if hasattr(item, "get_params") and hasattr(item, "__dict__"):
                    out.append(item)
                    out.extend(_state(item, depth + 1))
    return out


_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None))


def _token(value: Any) -> tuple:
    """Something that tells later whether an attribute still holds the same object.

    Weak references where possible, so that no entry keeps an estimator (or anything that
    refers back to it) alive.
    """
    if isinstance(value, _IMMUTABLE):
        return ("v", value)
    try:
        return ("w", weakref.ref(value))
    except TypeError:
        return ("i", id(value))


def _same(token: tuple, value: Any) -> bool:
    kind, held = token
    if kind == "v":
        return type(held) is type(value) and held == value
    if kind == "w":
        return held() is value
    return held == id(value)


class _Entry:
    __slots__ = ("X_ref", "fingerprint", "tokens", "users", "y_pred")

    def __init__(self, X_ref, fingerprint, tokens, y_pred):
        self.X_ref = X_ref
        self.fingerprint = fingerprint
        self.tokens = tokens
        self.users: set[int] = set()
        self.y_pred = y_pred

    def matches(self, X, fingerprint, state) -> bool:
        return (
            self.X_ref() is X
            and self.fingerprint == fingerprint
            and len(self.tokens) == len(state)
            and all(_same(t, v) for t, v in zip(self.tokens, state))
        )


class PredictionMemo:
    """Latest predictions per estimator, shared by skrank scorers (see the module notes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def predict(self, user: object, estimator: Any, X: Any, method) -> Any:
        """``method(X)``, or the predictions another scorer just got for the same inputs.

        ``user`` is the scorer asking; ``method`` is the bound predict method.
        """
        try:
            X_ref = weakref.ref(X)
            with self._lock:
                entry = self._entries.get(estimator)
        except TypeError:  # X or the estimator cannot be weakly referenced or hashed
            return method(X)
        fingerprint = _fingerprint(X)
        if fingerprint is None:
            return method(X)
        state = _state(estimator)
        if entry is not None and id(user) not in entry.users and entry.matches(
            X, fingerprint, state
        ):
            entry.users.add(id(user))
            return entry.y_pred
        y_pred = method(X)
        new = _Entry(X_ref, fingerprint, [_token(v) for v in state], y_pred)
        new.users.add(id(user))
        with self._lock:
            self._entries[estimator] = new
        return y_pred


#: The memo shared by every skrank scorer of this process.
MEMO = PredictionMemo()
