"""Per-row query ids for scorers and ranker adapters: find, validate, code, sort.

Shared by :mod:`skrank.scorers`, :mod:`skrank.pipeline` and the LightGBM/XGBoost ranker
adapters. DataFrames of pandas, polars and pyarrow (and whatever else narwhals wraps eagerly)
are read through narwhals, which is imported only when an object comes from one of those
libraries; nothing here imports pandas, scikit-learn or a GBDT library.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InputError

__all__ = [
    "QID_COLUMN",
    "FitQueries",
    "QueryOrder",
    "as_1d_column",
    "as_frame",
    "check_qid",
    "is_dataframe",
    "is_pandas",
    "n_rows",
    "query_order",
    "resolve_fit_qid",
    "split_qid_column",
    "take_rows",
]

#: Name of the DataFrame column that holds query ids (XGBoost's convention).
QID_COLUMN = "qid"


# top-level packages whose objects narwhals may wrap as eager DataFrames
_FRAME_LIBRARIES = frozenset({"pandas", "polars", "pyarrow", "modin", "cudf"})


def as_frame(X: Any) -> Any:
    """``X`` as a ``narwhals.DataFrame`` when it is an eager DataFrame (pandas, polars,
    pyarrow Table, ...), else None. narwhals is imported only for such objects."""
    if type(X).__module__.partition(".")[0] not in _FRAME_LIBRARIES:
        return None
    import narwhals.stable.v2 as nw

    frame = nw.from_native(X, eager_only=True, pass_through=True)
    return frame if isinstance(frame, nw.DataFrame) else None


def is_dataframe(X: Any) -> bool:
    """True for an eager DataFrame of pandas, polars, pyarrow, ... (see :func:`as_frame`)."""
    return as_frame(X) is not None


def is_pandas(X: Any) -> bool:
    """True for a pandas DataFrame (without importing pandas); only pandas has an index."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(X, pd.DataFrame)


def n_rows(X: Any) -> int:
    """Number of rows of an array-like, DataFrame or sparse matrix."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    return len(X)


def as_1d_column(values: Any) -> np.ndarray:
    """A NumPy array of labels, predictions or ids (also from a pandas, polars or pyarrow
    Series or column, or a DataFrame)."""
    frame = as_frame(values)
    if frame is not None:
        return frame.to_numpy()
    if type(values).__module__.partition(".")[0] in _FRAME_LIBRARIES and not hasattr(
        values, "__array__"
    ):  # pragma: no cover - every supported Series has __array__
        import narwhals.stable.v2 as nw

        return nw.from_native(values, series_only=True).to_numpy()
    return np.asarray(values)


def split_qid_column(X: Any) -> tuple[Any, np.ndarray | None]:
    """``(X without its qid column, the column)`` for a DataFrame with a ``qid`` column.

    The DataFrame may be pandas, polars or pyarrow (anything narwhals wraps eagerly); the
    features come back in the library of ``X``. Anything else is returned as is, with
    ``None``.
    """
    frame = as_frame(X)
    if frame is not None and QID_COLUMN in frame.columns:
        return frame.drop(QID_COLUMN).to_native(), frame[QID_COLUMN].to_numpy()
    return X, None


def _missing_mask(arr: np.ndarray) -> np.ndarray | None:
    """Boolean mask of missing entries (NaN, None, pandas.NA, NaT), or None if none can be."""
    kind = arr.dtype.kind
    if kind in "fc":
        return ~np.isfinite(arr)
    if kind in "mM":
        return np.isnat(arr)
    if kind == "O":
        pd = sys.modules.get("pandas")
        if pd is not None:
            return np.asarray(pd.isna(arr), dtype=bool)
        return np.array(
            [v is None or (isinstance(v, float) and v != v) for v in arr], dtype=bool
        )
    return None


def check_qid(qid: Any, n: int, *, source: str, where: str) -> np.ndarray:
    """Validate per-row query ids: 1-D, one per row, nothing missing.

    Parameters
    ----------
    qid : array-like
        The ids.
    n : int
        Number of rows they must describe.
    source : str
        Where the ids came from, for messages (``"the routed 'qid'"``, ``"the 'qid' column of
        X"``).
    where : str
        Who checks, for messages (``"make_ranking_scorer('ndcg@5')"``, ``"LGBMRanker.fit"``).
    """
    arr = np.asarray(qid)
    if arr.ndim != 1:
        raise InputError(
            f"{_cap(source)} given to {where} must be 1-D with one query id per row. "
            f"Got an array of shape {arr.shape} instead."
        )
    if arr.shape[0] != n:
        raise InputError(
            f"{_cap(source)} given to {where} must have one query id per row of X: X has {n} "
            f"rows but the query ids number {arr.shape[0]}. Query ids must be sliced with the "
            "rows (route them with params={'qid': qid}, or keep them in a 'qid' column of X)."
        )
    missing = _missing_mask(arr)
    if missing is not None and missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InputError(
            f"{_cap(source)} given to {where} contains missing values ({int(missing.sum())} "
            f"rows, first at row {row}: {_show(arr[row])}). Every row needs the id of its query."
        )
    if arr.dtype.kind == "f" and (arr != np.floor(arr)).any():
        row = int(np.flatnonzero(arr != np.floor(arr))[0])
        hint = ""
        if "column" in source:
            hint = (
                " A preprocessing step in front of the ranker may have scaled the ids as a "
                "feature (make_pipeline(StandardScaler(), ranker)): build the pipeline with "
                "skrank.pipeline.make_ranking_pipeline, whose steps never see the 'qid' column."
            )
        raise InputError(
            f"{_cap(source)} given to {where} must hold integer or string ids. Got "
            f"{_show(arr[row])} at row {row} instead.{hint}"
        )
    if arr.dtype.kind not in "iufbUSO":
        raise InputError(
            f"{_cap(source)} given to {where} must hold integer or string ids. Got dtype "
            f"{arr.dtype} instead."
        )
    return arr


def _show(value: Any) -> str:
    return repr(value.item() if isinstance(value, np.generic) else value)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class QueryOrder:
    """How rows form queries, queries numbered by first appearance.

    Attributes
    ----------
    codes : ndarray of int64
        For each row, the number of its query (0 for the first query met, 1 for the next...).
    sizes : ndarray of int64
        Rows per query, in that order (LightGBM's ``group``).
    perm : ndarray of int64 or None
        A stable permutation that makes every query's rows adjacent (``None`` when they
        already are); rows keep their input order inside each query.
    """

    codes: np.ndarray
    sizes: np.ndarray
    perm: np.ndarray | None

    @property
    def n_queries(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def sorted_codes(self) -> np.ndarray:
        """The codes in fitting order (non-decreasing)."""
        return self.codes if self.perm is None else self.codes[self.perm]


def query_order(qid: np.ndarray, *, where: str) -> QueryOrder:
    """Number the queries of validated per-row ids by first appearance."""
    try:
        _, first, inverse = np.unique(qid, return_index=True, return_inverse=True)
    except TypeError as exc:
        raise InputError(
            f"The query ids given to {where} cannot be compared with each other ({exc}); use "
            "integers or strings."
        ) from None
    inverse = np.asarray(inverse).ravel()
    rank = np.empty(first.shape[0], dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0], dtype=np.int64)
    codes = rank[inverse]
    sizes = np.bincount(codes, minlength=first.shape[0]).astype(np.int64)
    contiguous = codes.shape[0] < 2 or bool((np.diff(codes) >= 0).all())
    perm = None if contiguous else np.argsort(codes, kind="stable").astype(np.int64)
    return QueryOrder(codes=codes, sizes=sizes, perm=perm)


def take_rows(data: Any, idx: np.ndarray | None) -> Any:
    """Rows ``idx`` of an array-like, DataFrame, Series or sparse matrix (``data`` if None)."""
    if idx is None or data is None:
        return data
    if hasattr(data, "iloc"):
        return data.iloc[idx]
    frame = as_frame(data)
    if frame is not None:
        return frame[idx.tolist()].to_native()
    if hasattr(data, "tocsr") and not isinstance(data, np.ndarray):
        return data.tocsr()[idx]
    return np.asarray(data)[idx]


def resolve_fit_qid(X: Any, qid: Any, *, where: str, what: str = "X") -> tuple[Any, Any]:
    """``(X without a qid column, validated per-row ids or None)`` for a ranker's fit.

    The ids come from the ``qid`` argument or a ``qid`` column of a DataFrame ``X``; both may
    be given only if they agree.
    """
    X_feat, column = split_qid_column(X)
    n = n_rows(X)
    if qid is not None:
        ids = check_qid(qid, n, source=f"the query ids of {what}", where=where)
        if column is not None:
            col = check_qid(column, n, source=f"the 'qid' column of {what}", where=where)
            if not np.array_equal(ids, col):
                raise InputError(
                    f"{where} got query ids twice for {what}, as an argument and as a 'qid' "
                    "column, and they differ. Give one of them."
                )
        return X_feat, ids
    if column is not None:
        return X_feat, check_qid(column, n, source=f"the 'qid' column of {what}", where=where)
    return X_feat, None


@dataclass(frozen=True)
class FitQueries:
    """The queries a ranker adapter was trained on (for the cut-query check of scorers).

    Attributes
    ----------
    qids : ndarray
        Sorted unique query ids of the training rows.
    index : object or None
        The pandas index of a training DataFrame, else None.
    """

    qids: np.ndarray
    index: Any = None

    @classmethod
    def from_fit(cls, qid: np.ndarray, X: Any) -> FitQueries:
        try:
            uniq = np.unique(qid)
        except TypeError:  # pragma: no cover - query_order already refused these ids
            uniq = np.asarray([], dtype=object)
        index = X.index if is_pandas(X) else None
        return cls(qids=uniq, index=index)
