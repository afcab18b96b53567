"""Tests of skrank.io.read_libsvm."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank import InputError, InvalidParameterError
from skrank.io import read_libsvm


def _write(tmp_path, text, name="data.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_basic_with_qid(tmp_path):
    path = _write(tmp_path, "2 qid:1 1:0.5 3:1\n0 qid:1 2:0.25\n1 qid:7 1:1e-3\n")
    data = read_libsvm(path)
    np.testing.assert_array_equal(
        data.X.toarray(), [[0.5, 0.0, 1.0], [0.0, 0.25, 0.0], [1e-3, 0.0, 0.0]]
    )
    np.testing.assert_array_equal(data.y, [2.0, 0.0, 1.0])
    assert data.y.dtype == np.float64
    np.testing.assert_array_equal(data.qid, [1, 1, 7])
    assert data.qid.dtype == np.int64


def test_without_qid_returns_none():
    data = read_libsvm(io.StringIO("1 1:2\n0 2:3\n"))
    assert data.qid is None
    assert data.X.shape == (2, 2)


def test_comments_blank_lines_and_unsorted_indices():
    text = "# header\n\n1 qid:3 4:1 2:2 # trailing comment with 9:9\n   \n0 qid:3 1:5\n"
    data = read_libsvm(io.StringIO(text))
    np.testing.assert_array_equal(data.X.toarray(), [[0, 2, 0, 1], [5, 0, 0, 0]])
    np.testing.assert_array_equal(data.qid, [3, 3])
    assert data.X.has_sorted_indices


def test_line_without_features():
    data = read_libsvm(io.StringIO("1 qid:1\n0 qid:1 2:1\n"))
    np.testing.assert_array_equal(data.X.toarray(), [[0, 0], [0, 1]])


def test_zero_based_and_n_features():
    data = read_libsvm(io.StringIO("1 0:1 2:3\n"), zero_based=True, n_features=5)
    np.testing.assert_array_equal(data.X.toarray(), [[1, 0, 3, 0, 0]])
    data = read_libsvm(io.StringIO("1 1:1 3:3\n"), n_features=4)
    np.testing.assert_array_equal(data.X.toarray(), [[1, 0, 3, 0]])


def test_gzip_is_detected_by_content(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(gzip.compress(b"3 qid:2 1:1\n"))
    data = read_libsvm(path)
    np.testing.assert_array_equal(data.y, [3.0])
    data = read_libsvm(io.BytesIO(gzip.compress(b"3 qid:2 1:1\n")))
    np.testing.assert_array_equal(data.qid, [2])


def test_index_zero_in_one_based_file_is_an_error_with_a_hint(tmp_path):
    path = _write(tmp_path, "1 1:1\n0 0:1 2:1\n")
    with pytest.raises(InputError, match=r"data.txt, line 2: .*index 0 .*zero_based=True"):
        read_libsvm(path)


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("1 1:1\n1 1:2:3\n", 2, "malformed LibSVM line"),
        ("1 1:1\n\n1 1:\n", 3, "malformed LibSVM line"),
        ("1 1:1\nabc 1:2\n", 2, "label 'abc' is not a number"),
        ("1 qid:1 1:1\n1 qid:x 1:2\n", 2, "query id 'x' is not an integer"),
        ("1 1:1\n1 1.5:2\n", 2, "feature index '1.5' is not an integer"),
        ("1 1:1\n1 2:1 3:zz\n", 2, "feature value 'zz' is not a number"),
        ("1 1:1 1:2\n", 1, "feature index 1 appears twice"),
        ("1 qid:1 1:1\n0 1:1\n", 2, "line without 'qid:' while line 1 has one"),
        ("1 1:1 qid:4\n", 1, "feature index 'qid' is not an integer"),
        ("1 -3:1\n", 1, "feature index -3 is out of range"),
    ],
)
def test_malformed_lines_name_file_and_line(tmp_path, text, line, what):
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match=rf"data.txt, line {line}: .*{what}"):
        read_libsvm(path)


def test_index_beyond_n_features():
    with pytest.raises(InputError, match=r"line 2: feature index 4 exceeds n_features=3"):
        read_libsvm(io.StringIO("1 1:1\n1 4:1\n"), n_features=3)


def test_empty_file():
    with pytest.raises(InputError, match="no data lines"):
        read_libsvm(io.StringIO("# nothing\n\n"))


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_libsvm(tmp_path / "absent.txt")


def test_parameters_are_validated():
    with pytest.raises(InvalidParameterError, match="'zero_based' parameter of read_libsvm"):
        read_libsvm(io.StringIO("1 1:1\n"), zero_based="auto")
    with pytest.raises(InvalidParameterError, match="'n_features' parameter of read_libsvm"):
        read_libsvm(io.StringIO("1 1:1\n"), n_features=0)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 4),
            st.integers(0, 9),
            st.dictionaries(st.integers(1, 12), st.floats(-1e6, 1e6, allow_nan=False), max_size=6),
        ),
        min_size=1,
        max_size=15,
    )
)
def test_round_trip_against_a_dense_oracle(rows):
    lines = []
    for label, q, feats in rows:
        toks = [str(label), f"qid:{q}"] + [f"{j}:{v!r}" for j, v in feats.items()]
        lines.append(" ".join(toks))
    data = read_libsvm(io.StringIO("\n".join(lines) + "\n"), n_features=12)
    expected = np.zeros((len(rows), 12))
    for i, (_, _, feats) in enumerate(rows):
        for j, v in feats.items():
            expected[i, j - 1] = v
    np.testing.assert_array_equal(data.X.toarray(), expected)
    np.testing.assert_array_equal(data.y, [r[0] for r in rows])
    np.testing.assert_array_equal(data.qid, [r[1] for r in rows])


def test_crlf_and_form_feed_do_not_shift_line_numbers():
    # A CR LF is one line end (a lone CR too: test_io_libsvm_text.py); "\f" is a blank.
    data = read_libsvm(io.StringIO("1 qid:1 1:1\r\n0 qid:1\f2:1\r\n"))
    np.testing.assert_array_equal(data.X.toarray(), [[1, 0], [0, 1]])
    with pytest.raises(InputError, match=r"line 3: .*label 'x'"):
        read_libsvm(io.StringIO("1 1:1\r\n0 2:1\f\r\nx 1:1\r\n"))


# ---------------------------------------------------------------- scikit-learn's parser


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 2)),
            st.integers(-3, 2**40),
            st.dictionaries(st.integers(0, 30), st.floats(-1e300, 1e300, allow_nan=False),
                            max_size=5),
        ),
        min_size=1,
        max_size=12,
    ),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["\n", "\r\n"]),
)
def test_scikit_learns_parse_equals_the_checked_reader(rows, with_qid, zero_based, end):
    from skrank.io._libsvm import _load_svmlight, _read_checked

    lines = []
    for label, q, feats in rows:
        toks = [repr(label)] + ([f"qid:{q}"] if with_qid else [])
        toks += [f"{j + (not zero_based)}:{v!r}" for j, v in sorted(feats.items())]
        lines.append(" ".join(toks) + ("  # note" if q % 3 == 0 else ""))
    data = end.join(lines).encode() + b"\n"
    fast = _load_svmlight(data, zero_based, None)
    assert fast is not None  # a valid file, indices sorted: scikit-learn's parse is used
    checked = _read_checked(data.decode(), "x", zero_based, None)
    assert fast.X.shape == checked.X.shape and fast.X.has_sorted_indices
    assert (fast.X != checked.X).nnz == 0
    np.testing.assert_array_equal(fast.y, checked.y)
    if with_qid:
        np.testing.assert_array_equal(fast.qid, checked.qid)
        assert fast.qid.dtype == np.int64
    else:
        assert fast.qid is None and checked.qid is None


def test_scikit_learns_refusals_and_dropped_qids_go_to_the_checked_reader():
    from skrank.io._libsvm import _load_svmlight

    for text in (b"1 qid:3 4:1 2:2\n", b"1 qid:1 1:1\n0 1:1\n", b"# nothing\n", b"1 1:1 1:2\n",
                 b"abc 1:2\n"):
        assert _load_svmlight(text, False, None) is None
    # unsorted indices: refused by scikit-learn, read by the checked reader
    data = read_libsvm(io.BytesIO(b"1 qid:3 4:1 2:2\n"))
    np.testing.assert_array_equal(data.X.toarray(), [[0, 2, 0, 1]])
