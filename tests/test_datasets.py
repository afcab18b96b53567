"""Tests of skrank.datasets: the bundled LightGBM LambdaRank example.

Facts come from tests/data/PROVENANCE.md (counted on the original files) and are re-derived
here from an independent, obviously-correct parse of the bundled files.
"""

from __future__ import annotations

import gzip
import hashlib
from importlib import resources

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest

from skrank import InvalidParameterError
from skrank.datasets import load_lambdarank_example


@pytest.fixture(scope="module")
def data():
    return load_lambdarank_example()


def _bundled(name: str) -> bytes:
    return gzip.decompress(
        resources.files("skrank.datasets").joinpath("data", name + ".gz").read_bytes()
    )


def _oracle_parse(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Plain loop over lines and tokens: LibSVM index j goes to column j - 1."""
    lines = text.splitlines()
    X = np.zeros((len(lines), 300))
    y = np.zeros(len(lines), dtype=np.int64)
    for i, line in enumerate(lines):
        tokens = line.split()
        y[i] = int(tokens[0])
        for tok in tokens[1:]:
            j, v = tok.split(":")
            X[i, int(j) - 1] = float(v)
    return X, y


def test_public_api():
    import skrank.datasets

    assert skrank.datasets.__all__ == ["load_lambdarank_example"]


# SHA-256 of the original files of microsoft/LightGBM examples/lambdarank/, computed with
# sha256sum (src/skrank/datasets/data/README.md): the bundled .gz files are those bytes.
@pytest.mark.parametrize(
    ("name", "sha256"),
    [
        ("rank.train", "a0c7201c89120879c14a5059e091f441cbf2a29b8aaef363885ccb1a530448df"),
        ("rank.test", "3b1219ce117a0a36d2f76c02de7e7831c1d79af0d40f5195c03178bbe26c824b"),
        ("rank.train.query", "40cb5fef637229311cd30fab13cb7fb633b023e86a87ff04ec55db420143d6af"),
        ("rank.test.query", "36dca82ba3bf99201bac3987b00a8fbf6fe5f563e9fa6d0da90e783710a32df4"),
    ],
)
def test_bundled_files_are_the_originals(name, sha256):
    assert hashlib.sha256(_bundled(name)).hexdigest() == sha256


def test_licence_and_provenance_are_shipped():
    folder = resources.files("skrank.datasets").joinpath("data")
    licence = folder.joinpath("LICENSE-lightgbm-lambdarank.txt").read_text()
    assert "MIT License" in licence and "Copyright (c) Microsoft Corporation" in licence
    readme = folder.joinpath("README.md").read_text()
    assert "microsoft/LightGBM" in readme and "examples/lambdarank/" in readme


def test_shapes_and_dtypes(data):
    assert data.X_train.shape == (3005, 300)
    assert data.X_test.shape == (768, 300)
    for split in ("train", "test"):
        assert data[f"X_{split}"].dtype == np.float64
        assert data[f"y_{split}"].dtype == np.int64
        assert data[f"qid_{split}"].dtype == np.int64
        assert data[f"group_{split}"].dtype == np.int64
        assert data[f"X_{split}"].flags.c_contiguous
    assert data.feature_names[0] == "feature_1"
    assert data.feature_names[-1] == "feature_300"
    assert len(data.feature_names) == 300
    assert "LambdaRank" in data.DESCR


def test_facts_from_the_provenance_note(data):
    # tests/data/PROVENANCE.md: train 3,005 rows / 201 queries, group sizes 1..27,
    # labels 645/1,211/858/222/69; test 768 / 50, group sizes 6..24, labels 206/256/252/44/10.
    assert data.group_train.size == 201
    assert data.group_test.size == 50
    assert data.group_train.sum() == 3005
    assert data.group_test.sum() == 768
    assert (data.group_train.min(), data.group_train.max()) == (1, 27)
    assert (data.group_test.min(), data.group_test.max()) == (6, 24)
    assert np.bincount(data.y_train).tolist() == [645, 1211, 858, 222, 69]
    assert np.bincount(data.y_test).tolist() == [206, 256, 252, 44, 10]


def test_query_ids_are_contiguous_and_follow_the_groups(data):
    # train query i -> id i, test query i -> id 1000 + i (documented in DESCR)
    for split, offset in (("train", 0), ("test", 1000)):
        qid, group = data[f"qid_{split}"], data[f"group_{split}"]
        expected = np.concatenate([np.full(g, offset + i) for i, g in enumerate(group)])
        np.testing.assert_array_equal(qid, expected)
        change = np.flatnonzero(np.diff(qid)) + 1
        assert np.unique(qid).size == change.size + 1  # each id forms one run of rows
    assert np.intersect1d(data.qid_train, data.qid_test).size == 0
    assert data.qid_train[-1] == 200 and data.qid_test[0] == 1000 and data.qid_test[-1] == 1049


def test_features_match_an_independent_parse(data):
    for split in ("train", "test"):
        X, y = _oracle_parse(_bundled(f"rank.{split}").decode())
        np.testing.assert_array_equal(data[f"X_{split}"], X)
        np.testing.assert_array_equal(data[f"y_{split}"], y)


def test_one_based_feature_indices_map_to_columns(data):
    # First line of rank.test: "2 1:0.74 6:0.87 8:0.75 ..."; its last token is "300:0.70".
    row = data.X_test[0]
    assert data.y_test[0] == 2
    assert row[0] == 0.74 and row[5] == 0.87 and row[7] == 0.75
    assert row[1] == 0.0 and row[6] == 0.0
    assert row[299] == 0.70 and row[298] == 0.99
    # First line of rank.train: "0 10:0.89 11:0.75 12:0.01 ...".
    assert data.X_train[0, 9] == 0.89 and data.X_train[0, 8] == 0.0
    # Both files use every index from 1 to 300: no column is all zeros at the edges.
    assert np.any(data.X_train[:, 0] != 0) and np.any(data.X_train[:, 299] != 0)


def test_as_frame(data):
    framed = load_lambdarank_example(as_frame=True)
    for split in ("train", "test"):
        X = framed[f"X_{split}"]
        assert isinstance(X, pd.DataFrame)
        assert list(X.columns) == data.feature_names
        np.testing.assert_array_equal(X.to_numpy(), data[f"X_{split}"])
        assert framed[f"y_{split}"].name == "label"
        assert framed[f"qid_{split}"].name == "qid"
        frame = framed[f"frame_{split}"]
        assert list(frame.columns) == [*data.feature_names, "qid", "label"]
        np.testing.assert_array_equal(frame["qid"].to_numpy(), data[f"qid_{split}"])
        np.testing.assert_array_equal(frame["label"].to_numpy(), data[f"y_{split}"])
        assert frame["qid"].dtype == np.int64 and frame["label"].dtype == np.int64
        np.testing.assert_array_equal(framed[f"group_{split}"], data[f"group_{split}"])
    assert "frame_train" not in data


def test_as_frame_must_be_a_bool():
    with pytest.raises(
        InvalidParameterError,
        match=r"The 'as_frame' parameter of load_lambdarank_example must be a bool. Got 'yes'",
    ):
        load_lambdarank_example(as_frame="yes")


def test_results_are_independent_copies(data):
    # A second load must not share arrays with the first (no module-level cache handing out
    # the same mutable arrays).
    fresh = load_lambdarank_example()
    fresh.X_train[0, 0] = -1.0
    fresh.y_train[0] = 9
    assert data.X_train[0, 0] != -1.0 and data.y_train[0] != 9


def test_lightgbm_reproduces_the_published_ndcg(data):
    # tests/data/PROVENANCE.md: LightGBM 4.7.0 with these parameters scores rank.test at
    # ndcg@1 0.5937142857142856, @3 0.6466894502603633, @5 0.6702731873588239,
    # @10 0.7477712744462751 (LightGBM trained from the original files).
    params = {
        "objective": "lambdarank",
        "learning_rate": 0.1,
        "num_leaves": 31,
        "min_data_in_leaf": 50,
        "min_sum_hessian_in_leaf": 5,
        "deterministic": True,
        "num_threads": 1,
        "seed": 0,
        "verbose": -1,
        "metric": "ndcg",
        "eval_at": [1, 3, 5, 10],
    }
    train = lgb.Dataset(data.X_train, data.y_train, group=data.group_train)
    test = lgb.Dataset(data.X_test, data.y_test, group=data.group_test, reference=train)
    record: dict = {}
    lgb.train(
        params,
        train,
        num_boost_round=100,
        valid_sets=[test],
        valid_names=["test"],
        callbacks=[lgb.record_evaluation(record)],
    )
    got = [record["test"][f"ndcg@{k}"][-1] for k in (1, 3, 5, 10)]
    expected = [0.5937142857142856, 0.6466894502603633, 0.6702731873588239, 0.7477712744462751]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
