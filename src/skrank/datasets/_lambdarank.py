"""Loader of LightGBM's LambdaRank example data, bundled with skrank."""

from __future__ import annotations

import gzip
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from .._validation import param_error
from ..exceptions import InputError
from ..io._libsvm import read_libsvm

__all__ = ["TEST_QID_OFFSET", "load_lambdarank_example"]

#: Query ids of the test split start here, so train and test ids never collide.
TEST_QID_OFFSET = 1000
_N_FEATURES = 300

_DESCR = """\
LightGBM LambdaRank example data
--------------------------------

The learning-to-rank example shipped with LightGBM (microsoft/LightGBM, examples/lambdarank/,
unchanged since 2016; MIT licence, see data/LICENSE-lightgbm-lambdarank.txt).

=========  ======  =======  ==========  ===================================
split      rows    queries  group size  labels 0 / 1 / 2 / 3 / 4
=========  ======  =======  ==========  ===================================
train      3,005   201      1..27       645 / 1,211 / 858 / 222 / 69
test       768     50       6..24       206 / 256 / 252 / 44 / 10
=========  ======  =======  ==========  ===================================

Features: 300, sparse in the original LibSVM files (about 95 non-zero per row), stored here
as dense float64. The files number features from 1 (indices 1..300), so column j of X is
LibSVM feature j + 1 and ``feature_names[j] == f"feature_{j + 1}"``.
Labels: graded relevance 0 (bad) .. 4 (perfect), int64.

Query ids: the original files have no ``qid``; queries are given by group sizes
(``rank.train.query``, ``rank.test.query``: one size per line, rows contiguous). Query i of
the training file gets id i (0..200) and query i of the test file gets id 1000 + i
(1000..1049), so the two splits can be concatenated without their ids colliding.
``group_train`` / ``group_test`` hold the group sizes, as LightGBM's ``group=`` wants them.

Reference: LightGBM 4.7.0 trained on the train split (lambdarank, 100 rounds, learning_rate
0.1, num_leaves 31, min_data_in_leaf 50, min_sum_hessian_in_leaf 5, deterministic, one
thread, seed 0) reports on the test split ndcg@1 0.5937142857142856, ndcg@3
0.6466894502603633, ndcg@5 0.6702731873588239, ndcg@10 0.7477712744462751.
"""


def _read_gz(name: str) -> bytes:
    return gzip.decompress(resources.files(__package__).joinpath("data", name).read_bytes())


def _load_split(stem: str, qid_offset: int) -> tuple[np.ndarray, ...]:
    data = read_libsvm(_open(stem), zero_based=False, n_features=_N_FEATURES)
    group = np.array(_read_gz(f"{stem}.query.gz").split(), dtype=np.int64)
    if group.sum() != data.X.shape[0]:  # pragma: no cover - guards the bundled files
        raise InputError(f"{stem}: group sizes sum to {group.sum()}, not {data.X.shape[0]}.")
    X = data.X.toarray()
    y = data.y.astype(np.int64)
    qid = np.repeat(np.arange(group.size, dtype=np.int64) + qid_offset, group)
    return X, y, qid, group


class _Named:
    """A bytes stream with a name, so that reader errors name the bundled file."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self._data = data

    def read(self) -> bytes:
        return self._data


def _open(stem: str) -> _Named:
    raw = resources.files(__package__).joinpath("data", f"{stem}.gz").read_bytes()
    return _Named(f"skrank/datasets/data/{stem}.gz", raw)  # read_libsvm un-gzips it


def load_lambdarank_example(*, as_frame: bool = False) -> Bunch:
    """Load LightGBM's LambdaRank example data (bundled; no download).

    A small real learning-to-rank data set: 3,005 training documents in 201 queries and
    768 test documents in 50 queries, 300 features, graded labels 0..4.

    Parameters
    ----------
    as_frame : bool, default=False
        If True, ``X_*`` are pandas DataFrames of the 300 features, ``y_*`` and ``qid_*``
        are Series named ``"label"`` and ``"qid"``, and ``frame_train`` / ``frame_test`` hold
        the features plus a ``"qid"`` and a ``"label"`` column. Requires pandas.

    Returns
    -------
    sklearn.utils.Bunch
        With attributes

        - ``X_train`` (3005, 300) and ``X_test`` (768, 300): float64 features; column j is
          LibSVM feature j + 1.
        - ``y_train``, ``y_test``: int64 relevance labels 0..4.
        - ``qid_train`` (ids 0..200), ``qid_test`` (ids 1000..1049): int64 query id of every
          row; rows of a query are contiguous.
        - ``group_train``, ``group_test``: int64 group sizes (LightGBM's ``group=``).
        - ``feature_names``: ``["feature_1", ..., "feature_300"]``.
        - ``frame_train``, ``frame_test``: DataFrames (only with ``as_frame=True``).
        - ``DESCR``: description, provenance and licence of the data.

    Examples
    --------
    >>> from skrank.datasets import load_lambdarank_example
    >>> data = load_lambdarank_example()
    >>> data.X_train.shape, data.X_test.shape
    ((3005, 300), (768, 300))
    >>> data.qid_train[:4], data.group_train[:3]
    (array([0, 1, 1, 1]), array([ 1, 13,  5]))
    >>> int(data.qid_test[0])
    1000
    """
    if not isinstance(as_frame, (bool, np.bool_)):
        raise param_error("as_frame", "a bool", as_frame, "load_lambdarank_example")
    X_train, y_train, qid_train, group_train = _load_split("rank.train", 0)
    X_test, y_test, qid_test, group_test = _load_split("rank.test", TEST_QID_OFFSET)
    feature_names = [f"feature_{j}" for j in range(1, _N_FEATURES + 1)]
    bunch = Bunch(
        X_train=X_train,
        y_train=y_train,
        qid_train=qid_train,
        group_train=group_train,
        X_test=X_test,
        y_test=y_test,
        qid_test=qid_test,
        group_test=group_test,
        feature_names=feature_names,
        DESCR=_DESCR,
    )
    if as_frame:
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - pandas is installed in the test env
            raise ImportError(
                "load_lambdarank_example(as_frame=True) needs pandas; "
                "install it with: pip install skrank[pandas]"
            ) from exc
        for split in ("train", "test"):
            X = pd.DataFrame(bunch[f"X_{split}"], columns=feature_names)
            qid = pd.Series(bunch[f"qid_{split}"], name="qid")
            y = pd.Series(bunch[f"y_{split}"], name="label")
            bunch[f"frame_{split}"] = pd.concat([X, qid, y], axis=1)
            bunch[f"X_{split}"] = X
            bunch[f"qid_{split}"] = qid
            bunch[f"y_{split}"] = y
    return bunch
