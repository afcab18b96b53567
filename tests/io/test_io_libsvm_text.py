"""The text of LibSVM, score and group files: strict numbers, compression, BOM, CR line ends.

Python's ``float`` and ``int`` read ``1_5`` as 15 and Arabic-Indic digits as digits; these
readers must refuse both (outside LibSVM comments), name the file and the line, and read
gzip, bz2 and xz, a UTF-8 byte order mark and CR-only line ends as the TREC and CSV readers
do, without changing what a valid file gives (scikit-learn's parse is the oracle).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank import InputError, InvalidParameterError
from skrank.io import read_libsvm, read_scored_libsvm, read_scores

COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}
ARABIC_THREE = "\u0663"
BOM = b"\xef\xbb\xbf"


def _file(tmp_path, data, name="data.txt"):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


# ------------------------------------------------------------------- strict numbers: LibSVM


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("1_0 qid:1 1:1\n0 qid:1 1:2\n", 1, "the label '1_0' is not a number"),
        ("1 qid:1 1:1\n1_0 qid:1 1:2\n", 2, "the label '1_0' is not a number"),
        (f"1 qid:1 1:1\n{ARABIC_THREE} qid:1 1:2\n", 2,
         f"the label '{ARABIC_THREE}' is not a number"),
        ("1 qid:1 1:1\n0 qid:\uff11 1:2\n", 2, "the query id '\uff11' is not an integer"),
        ("1 qid:1 1:1\n# c\n0 qid:1_0 1:2\n", 3, "the query id '1_0' is not an integer"),
        (f"1 qid:1 1:1\n0 qid:{ARABIC_THREE} 1:2\n", 2,
         f"the query id '{ARABIC_THREE}' is not an integer"),
        ("1 qid:1 1:1\n0 qid:1 1_0:2\n", 2, "the feature index '1_0' is not an integer"),
        ("1 qid:1 1:1\n0 qid:1 1:1_5\n", 2, "the feature value '1_5' is not a number"),
        (f"1 qid:1 1:1\n0 qid:1 2:{ARABIC_THREE}\n", 2,
         f"the feature value '{ARABIC_THREE}' is not a number"),
        ("1 1:1\n0 1:2\n0 1:3 2:_\n", 3, "the feature value '_' is not a number"),
        ("1 qid:1\u00a01:1\n", 1, r"the character '\\xa0' is not allowed outside a comment"),
        ("1 1:1\n\u2003\n", 2, r"the character '\\u2003' is not allowed outside a comment"),
        (b"1 1:1\n0 \xff:1\n", 2, "the file is not valid UTF-8 text"),
        # the first line holding a stray character is named, whatever its kind
        ("1 1:1\n2 1:1_0\n3_0 1:1\n", 2, "the feature value '1_0' is not a number"),
    ],
)
def test_stray_characters_name_the_line(tmp_path, text, line, message):
    path = _file(tmp_path, text)
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}, line {line}: {message}"):
        read_libsvm(path)
    # the checked reader alone (scikit-learn's refusals go there) is as strict
    from skrank.io._libsvm import _read_checked

    if isinstance(text, str) and not re.search(r"[\u00a0\u2003]", text):
        # (it reads labels first, then query ids, indices and values: some line is named)
        with pytest.raises(InputError, match=r"x, line \d+: the .* is not (a number|an int)"):
            _read_checked(text, "x", False, None)


def test_python_would_read_these_as_numbers():
    # why the readers look for them: the fix would be untestable if Python refused them
    assert float("1_5") == 15 and int(ARABIC_THREE) == 3 and float("\uff11") == 1


def test_comments_may_hold_any_text():
    plain = "1 qid:1 1:1\n0 qid:2 2:1.5\n"
    noted = ("# header_1 caf\u00e9 \u0663\n1 qid:1 1:1 # doc_7 \u00e9t\u00e9 1_0\n"
             "0 qid:2 2:1.5 #\u00a0\u0663_\n")
    a, b = read_libsvm(io.StringIO(plain)), read_libsvm(io.StringIO(noted))
    assert (a.X != b.X).nnz == 0
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.qid, b.qid)
    # bytes that are not UTF-8 in a comment: as before, scikit-learn's parse skips them
    c = read_libsvm(io.BytesIO(b"1 qid:1 1:1 # \xff\xfe\n0 qid:2 2:1.5\n"))
    np.testing.assert_array_equal(c.y, a.y)


def _stray_oracle(data: bytes, comments: bool) -> int:
    """The first '_' or non-ASCII byte, outside comments if asked: one line at a time."""
    offset = 0
    for line in data.split(b"\n"):
        cut = line.find(b"#") if comments else -1
        body = line if cut < 0 else line[:cut]
        for i, byte in enumerate(body):
            if byte == ord("_") or byte >= 0x80:
                return offset + i
        offset += len(line) + 1
    return -1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"1", b" ", b"#", b"_", b"\n", b"\xc3\xa9", b"q:"]),
                max_size=60),
       st.booleans(), st.integers(1, 9))
def test_the_stray_byte_search_equals_a_line_by_line_oracle(parts, comments, chunk):
    from skrank.io import _libsvm

    data = b"".join(parts)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_libsvm, "_SCAN_CHUNK", chunk)  # lines and comments across chunks
        assert _libsvm.stray_byte(data, comments) == _stray_oracle(data, comments)
    assert _libsvm.stray_byte(data, comments) == _stray_oracle(data, comments)


# ------------------------------------------------------------------- strict numbers: scores


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0.5\n1_5\n", r"line 2: the score '1_5' is not a number\."),
        (f"0.5\n{ARABIC_THREE}\n", rf"line 2: the score '{ARABIC_THREE}' is not a number\."),
        ("0.5\n0.25\n\uff17\n", r"line 3: the score '\uff17' is not a number\."),
        ("0.5\nabc\n", r"line 2: the score 'abc' is not a number\."),
        (b"0.5\n\xff\n", r"line 2: the file is not valid UTF-8 text\."),
        ("0.5\n1e400\n", r"line 2: the score '1e400' is not a finite number"),
        ("0.5\ninf\n", r"line 2: the score 'inf' is not a finite number"),
        ("0.5\n2\n-Infinity\n", r"line 3: the score '-Infinity' is not a finite number"),
        ("0.5\nnan\ninf\n", r"line 2: the score is NaN\."),
        ("0.5\ninf\nnan\n", r"line 2: the score 'inf' is not a finite number"),
    ],
)
def test_bad_scores_name_the_line(tmp_path, text, message):
    path = _file(tmp_path, text, "s.txt")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}, {message}"):
        read_scores(path)


def test_large_finite_scores_are_kept():
    np.testing.assert_array_equal(read_scores(io.StringIO("1e308\n-1.7e308\n5e-324\n")),
                                  [1e308, -1.7e308, 5e-324])


_NO_QID = "1 1:1\n0 1:2\n1 1:3\n"


@pytest.mark.parametrize(
    ("group", "message"),
    [
        ("2\n1_0\n", r"line 2: the group size '1_0' is not an integer"),
        (f"2\n{ARABIC_THREE}\n", rf"line 2: the group size '{ARABIC_THREE}' is not an integer"),
        ("1\n1\nx\n", r"line 3: the group size 'x' is not an integer"),
        ("2\n0\n1\n", r"line 2: the group size '0' is less than 1"),
        ("\n\n", r"no group sizes \(the file is empty\)"),
        (b"2\n\xff\n", r"line 2: the file is not valid UTF-8 text"),
    ],
)
def test_bad_group_files_name_the_line(tmp_path, group, message):
    path = _file(tmp_path, group, "g.query")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}(, |: ){message}"):
        read_scored_libsvm(io.StringIO(_NO_QID), io.StringIO("1\n2\n3\n"), group=path)


# ------------------------------------------------------------- compression, BOM, CR ends

_DATA = b"2 qid:1 1:0.5 3:1\n0 qid:1 2:0.25 # note\n1 qid:7 1:1\n"
_SCORES = b"0.5\n-1.25\n3\n"
_GROUPS = b"2\n1\n"


def _expected_data():
    return read_libsvm(io.BytesIO(_DATA))


def _same(a, b):
    assert a.X.shape == b.X.shape and (a.X != b.X).nnz == 0
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.qid, b.qid)


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_gzip_bz2_and_xz_by_content(tmp_path, kind):
    pack = COMPRESS[kind]
    data = _file(tmp_path, pack(_DATA), f"d.{kind}")
    scores = _file(tmp_path, pack(_SCORES), f"s.{kind}")
    _same(read_libsvm(data), _expected_data())
    _same(read_libsvm(io.BytesIO(pack(_DATA))), _expected_data())
    _same(read_libsvm(_file(tmp_path, pack(_DATA), "no_suffix")), _expected_data())
    np.testing.assert_array_equal(read_scores(scores), [0.5, -1.25, 3])
    np.testing.assert_array_equal(read_scores(io.BytesIO(pack(_SCORES))), [0.5, -1.25, 3])
    table = read_scored_libsvm(data, {"m": scores})
    np.testing.assert_array_equal(table.qid, [1, 1, 7])
    np.testing.assert_array_equal(table.scores["m"], [0.5, -1.25, 3])
    no_qid = _file(tmp_path, pack(b"2 1:1\n0 1:2\n1 1:3\n"), f"n.{kind}")
    group = _file(tmp_path, pack(_GROUPS), f"g.{kind}")
    table = read_scored_libsvm(no_qid, scores, group=group)
    np.testing.assert_array_equal(table.qid, [0, 0, 1])
    # errors still name the line of the decompressed text
    bad = _file(tmp_path, pack(b"0.5\n1_5\n"), f"bad.{kind}")
    with pytest.raises(InputError, match=rf"bad\.{kind}, line 2: the score '1_5'"):
        read_scores(bad)


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_corrupt_compressed_data_is_an_input_error(tmp_path, kind):
    packed = COMPRESS[kind](_DATA * 50)
    path = _file(tmp_path, packed[: len(packed) // 2] + b"\x00" * 40, f"d.{kind}")
    with pytest.raises(InputError, match=rf"d\.{kind}: corrupt compressed data"):
        read_libsvm(path)
    with pytest.raises(InputError, match=rf"d\.{kind}: corrupt compressed data"):
        read_scores(path)


def test_a_byte_order_mark_is_dropped(tmp_path):
    _same(read_libsvm(_file(tmp_path, BOM + _DATA)), _expected_data())
    _same(read_libsvm(io.StringIO((BOM + _DATA).decode("utf-8"))), _expected_data())
    _same(read_libsvm(_file(tmp_path, gzip.compress(BOM + _DATA), "d.gz")), _expected_data())
    np.testing.assert_array_equal(read_scores(_file(tmp_path, BOM + _SCORES, "s.txt")),
                                  [0.5, -1.25, 3])
    table = read_scored_libsvm(io.StringIO(_NO_QID), io.BytesIO(b"1\n2\n3\n"),
                               group=io.BytesIO(BOM + _GROUPS))
    np.testing.assert_array_equal(table.qid, [0, 0, 1])
    # only at the start: line numbers are those of the file
    with pytest.raises(InputError, match=r"line 2: the label 'x' is not a number"):
        read_libsvm(io.BytesIO(BOM + b"1 1:1\nx 1:1\n"))
    with pytest.raises(InputError, match=r"line 2: the label '\\ufeff1' is not a number"):
        read_libsvm(io.BytesIO(b"1 1:1\n" + BOM + b"1 1:1\n"))


@pytest.mark.parametrize("end", [b"\r", b"\r\n"])
def test_cr_line_ends(tmp_path, end):
    _same(read_libsvm(_file(tmp_path, _DATA.replace(b"\n", end))), _expected_data())
    np.testing.assert_array_equal(read_scores(io.BytesIO(_SCORES.replace(b"\n", end))),
                                  [0.5, -1.25, 3])
    table = read_scored_libsvm(io.BytesIO(_NO_QID.encode().replace(b"\n", end)),
                               io.BytesIO(b"1\n2\n3\n".replace(b"\n", end)),
                               group=io.BytesIO(_GROUPS.replace(b"\n", end)))
    np.testing.assert_array_equal(table.qid, [0, 0, 1])
    # a CR-only file's line 3 is its third record
    for text, message in [(b"1 1:1\n0 1:2\nx 1:1\n", "the label 'x' is not a number"),
                          (b"1 1:1\n0 1:2\n1 1:1_0\n", "the feature value '1_0'"),
                          (b"1 qid:1 1:1\n# c\n1 1:1\n", "line without 'qid:'")]:
        with pytest.raises(InputError, match=rf"line 3: {message}"):
            read_libsvm(io.BytesIO(text.replace(b"\n", end)))
    with pytest.raises(InputError, match=r"line 3: the score 'inf' is not a finite"):
        read_scores(io.BytesIO(b"1\n2\ninf\n".replace(b"\n", end)))
    with pytest.raises(InputError, match=r"line 3: the group size '1_0' is not an integer"):
        read_scored_libsvm(io.StringIO(_NO_QID), io.StringIO("1\n2\n3\n"),
                           group=io.BytesIO(b"1\n1\n1_0\n".replace(b"\n", end)))


def test_mixed_line_ends_count_each_once():
    data = b"1 1:1\r\n0 1:2\r1 1:3\nx 1:1\r\n"
    with pytest.raises(InputError, match=r"line 4: the label 'x'"):
        read_libsvm(io.BytesIO(data))
    with pytest.raises(InputError, match=r"line 3: is blank"):
        read_scores(io.BytesIO(b"1\r\n2\r\r\n3\n"))


# ------------------------------------------------------------------- the source parameter


@pytest.mark.parametrize("bad", [123, b"1 qid:1 1:1\n", ["a.txt"], None, 1.5])
def test_a_source_that_is_no_file_is_refused(bad):
    allowed = r"must be a path \(str or os\.PathLike\) or a file object\. Got .* instead\."
    with pytest.raises(InvalidParameterError, match=rf"'source' parameter of read_libsvm "
                                                    rf"{allowed}"):
        read_libsvm(bad)
    with pytest.raises(InvalidParameterError, match=rf"'source' parameter of read_scores "
                                                    rf"{allowed}"):
        read_scores(bad)
    with pytest.raises(InvalidParameterError, match=rf"'data' parameter of "
                                                    rf"read_scored_libsvm {allowed}"):
        read_scored_libsvm(bad, io.StringIO("1\n"))


def test_scores_and_group_that_are_no_files_are_refused():
    data = io.StringIO(_NO_QID)
    with pytest.raises(InvalidParameterError, match=r"'group' parameter of read_scored_libsvm "
                                                    r"must be a path .*or None\. Got 5 "):
        read_scored_libsvm(data, io.StringIO("1\n"), group=5)
    for scores, got in (([io.StringIO("1\n"), 123], "123"), ({"m": 7}, "7"),
                        (b"0.5\n", r"b'0\.5\\n'")):
        with pytest.raises(InvalidParameterError, match=rf"'scores' parameter of "
                                                        rf"read_scored_libsvm .* Got {got} "):
            read_scored_libsvm(io.StringIO(_NO_QID), scores)


def test_a_file_object_that_reads_no_bytes_is_named():
    class Odd:
        name = "odd.svm"

        def read(self, *size):
            return 42

    with pytest.raises(InputError, match=r"odd\.svm: reading the file object gave a int"):
        read_libsvm(Odd())


def test_a_file_object_whose_read_takes_no_size():
    # as the bundled data sets' stream: read() with no argument
    class Whole:
        name = "whole.gz"

        def read(self):
            return gzip.compress(_DATA)

    _same(read_libsvm(Whole()), _expected_data())


# ------------------------------------------------- valid files: the same arrays as before


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(-2, 5),
            st.integers(0, 2**40),
            st.dictionaries(st.integers(1, 20), st.floats(-1e300, 1e300, allow_nan=False,
                                                          allow_infinity=False), max_size=5),
            st.sampled_from(["", " # note", " # caf\u00e9_1 \u0663"]),
        ),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
    st.sampled_from([None, *sorted(COMPRESS)]),
    st.booleans(),
)
def test_valid_files_read_as_scikit_learn_reads_them(rows, end, bom, packing, shuffled):
    from sklearn.datasets import load_svmlight_file

    def text(reverse):
        lines = []
        for label, q, feats, comment in rows:
            pairs = sorted(feats.items(), reverse=reverse)
            lines.append(" ".join([str(label), f"qid:{q}"] + [f"{j}:{v!r}" for j, v in pairs])
                         + comment)
        return ("\n".join(lines) + "\n").encode("utf-8")

    X, y, qid = load_svmlight_file(io.BytesIO(text(False)), n_features=20, query_id=True)
    # indices in decreasing order: scikit-learn refuses them, the checked reader reads them
    raw = (BOM if bom else b"") + text(shuffled).replace(b"\n", end.encode())
    if packing is not None:
        raw = COMPRESS[packing](raw)
    got = read_libsvm(io.BytesIO(raw), n_features=20)
    assert got.X.shape == X.shape and (got.X != X).nnz == 0 and got.X.has_sorted_indices
    np.testing.assert_array_equal(got.y, y)
    np.testing.assert_array_equal(got.qid, qid)
    assert got.y.dtype == np.float64 and got.qid.dtype == np.int64


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20),
       st.sampled_from(["\n", "\r\n", "\r"]), st.booleans(),
       st.sampled_from([None, *sorted(COMPRESS)]))
def test_valid_score_files_read_as_before(values, end, bom, packing):
    plain = "".join(f"{v!r}\n" for v in values)
    raw = (BOM if bom else b"") + plain.replace("\n", end).encode()
    if packing is not None:
        raw = COMPRESS[packing](raw)
    got = read_scores(io.BytesIO(raw))
    np.testing.assert_array_equal(got, np.loadtxt(io.StringIO(plain), ndmin=1))


# ------------------------------------------------------------------- the command line


def test_the_command_line_reads_compressed_libsvm_and_scores(tmp_path, capsys):
    from skrank.cli import main

    data = _file(tmp_path, bz2.compress(BOM + _DATA.replace(b"\n", b"\r")), "d.svm.bz2")
    scores = _file(tmp_path, lzma.compress(_SCORES), "m.txt.xz")
    code = main(["eval", "--input", "libsvm", str(data), str(scores), "-m", "ndcg",
                 "--format", "json", "--resamples", "500", "--permutations", "500"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert '"m.txt.xz"' in out
    bad = _file(tmp_path, b"0.5\n1_5\n3\n", "bad.txt")
    code = main(["eval", "--input", "libsvm", str(data), str(bad)])
    out, err = capsys.readouterr()
    assert code != 0 and f"{bad}, line 2: the score '1_5' is not a number." in err
