"""DataFrames beyond pandas: polars and pyarrow wherever pandas is accepted.

The ``qid`` column of a polars DataFrame or a pyarrow Table is found by the scorers and the
ranker adapters as that of a pandas DataFrame (through narwhals), labels and scores may be
polars or pyarrow columns, and results export to polars beside pandas. Every value is
compared with the same computation on NumPy arrays.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import skrank
from skrank import make_ranking_scorer, ndcg_at

from ._helpers import FirstColumn

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")


@pytest.fixture
def data():
    rng = np.random.default_rng(5)
    qid = rng.choice([4, 9, 1, 7], size=48)
    X = np.round(rng.normal(size=(48, 3)), 1)
    y = rng.integers(0, 3, size=48)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df.insert(1, "qid", qid)
    return X, y, qid, df


def frames(df):
    return {"pandas": df, "polars": pl.from_pandas(df), "pyarrow": pa.Table.from_pandas(df)}


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_scorers_read_the_qid_column_of_every_frame(data, kind):
    X, y, qid, df = data
    model = FirstColumn().fit(X, y)
    expected = ndcg_at(5)(model, X, y, qid=qid)
    multi_expected = make_ranking_scorer(["ndcg@5", "rr"])(model, X, y, qid=qid)
    other = frames(df)[kind]

    class Drop(FirstColumn):
        def predict(self, X):
            import narwhals.stable.v2 as nw

            frame = nw.from_native(X, eager_only=True)
            return frame["a"].to_numpy().astype(float)

    fitted = Drop().fit(X, y)
    labels = {"pandas": pd.Series(y), "polars": pl.Series(y), "pyarrow": pa.chunked_array([y])}
    assert ndcg_at(5)(fitted, other, labels[kind]) == expected
    assert make_ranking_scorer(["ndcg@5", "rr"])(fitted, other, y) == multi_expected


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_evaluate_takes_polars_and_pyarrow_columns(data, kind):
    X, y, qid, _ = data
    expected = skrank.evaluate(y, X[:, 0], qid, metrics=["ndcg@5", "ap"])
    if kind == "polars":
        cols = pl.Series(y), pl.Series(X[:, 0]), pl.Series(qid)
    else:
        cols = pa.chunked_array([y]), pa.array(X[:, 0]), pa.array(qid)
    got = skrank.evaluate(*cols, metrics=["ndcg@5", "ap"])
    assert got.means == expected.means
    np.testing.assert_array_equal(got.qids, expected.qids)
    str_q = pl.Series([str(q) for q in qid]) if kind == "polars" else pa.array(
        [str(q) for q in qid])
    assert skrank.evaluate(cols[0], cols[1], str_q, metrics=["ndcg@5", "ap"]).means == (
        expected.means)


def test_to_polars_beside_to_frame(data):
    X, y, qid, _ = data
    res = skrank.evaluate(y, X[:, 0], qid, metrics=["ndcg@5", "rr"])
    frame = res.to_frame()
    table = res.to_polars()
    assert isinstance(table, pl.DataFrame)
    assert table.columns == ["qid", "ndcg@5", "rr"]
    np.testing.assert_array_equal(table["qid"].to_numpy(), frame.index.to_numpy())
    for name in ("ndcg@5", "rr"):
        np.testing.assert_array_equal(table[name].to_numpy(), frame[name].to_numpy())


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_lightgbm_adapter_takes_the_qid_column(data, kind):
    pytest.importorskip("lightgbm")
    from skrank.lightgbm import LGBMRanker

    X, y, qid, df = data
    params = dict(n_estimators=3, min_child_samples=2, verbose=-1, n_jobs=1)
    ref = LGBMRanker(**params).fit(X, y, qid=qid)
    other = frames(df)[kind]
    model = LGBMRanker(**params).fit(other, y)
    assert list(model.feature_name_) == ["a", "b", "c"]
    np.testing.assert_array_equal(model.predict(other), ref.predict(X))


def test_numpy_input_does_not_import_narwhals():
    code = ("import sys, numpy as np, skrank\n"
            "skrank.evaluate([1, 0], [0.5, 0.2], [1, 1])\n"
            "class M:\n    def predict(self, X): return np.asarray(X)[:, 0]\n"
            "skrank.ndcg_at(2)(M(), np.array([[1.0], [0.0]]), [1, 0], qid=[1, 1])\n"
            "assert 'narwhals' not in sys.modules, 'narwhals imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)
