"""Tests of skrank.io's TREC readers and of align_run_qrels.

Reference values are trec_eval's own outputs (tests/data/trec_eval/out.*, from the trec_eval
v10.0 test suite); the measures used here (num_q, num_ret, num_rel, num_rel_ret, P_5, P_10,
recip_rank) are recomputed from the aligned arrays by plain loops, so the test checks the
readers and the join, not skrank's metric engine.
"""

from __future__ import annotations

import gzip
import io
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank import InputError, InvalidParameterError
from skrank.io import AlignedRun, Qrels, Run, align_run_qrels, read_qrels, read_run

DATA = Path(__file__).resolve().parent.parent / "data" / "trec_eval"
EXPECTED = DATA.parent / "trec_eval_expected"  # trec_eval's published outputs


def _trec_out(name: str) -> dict[tuple[str, str], str]:
    """Parse trec_eval output: ``measure<TAB>topic|all<TAB>value``."""
    out = {}
    for line in (EXPECTED / name).read_text().splitlines():
        measure, topic, value = line.split()
        out[measure.strip(), topic] = value
    return out


def _oracle_measures(aligned: AlignedRun, rel_level: float = 1) -> dict[tuple[str, str], float]:
    """trec_eval's simple measures per topic, by plain loops over the aligned rows.

    Retrieved rows are ranked by score descending, ties by docno descending (trec_eval).
    """
    rows = defaultdict(list)
    for q, d, y, s, r in zip(
        aligned.qid, aligned.doc_id, aligned.y_true, aligned.y_score, aligned.retrieved
    ):
        rows[str(q)].append((str(d), float(y), float(s), bool(r)))
    out = {}
    for q, docs in rows.items():
        ranked = [x for x in docs if x[3]]
        ranked.sort(key=lambda x: x[0], reverse=True)
        ranked.sort(key=lambda x: x[2], reverse=True)
        rels = [x[1] >= rel_level for x in ranked]
        out["num_ret", q] = len(ranked)
        out["num_rel", q] = sum(x[1] >= rel_level for x in docs)
        out["num_rel_ret", q] = sum(rels)
        for k in (5, 10):
            out[f"P_{k}", q] = sum(rels[:k]) / k
        out["recip_rank", q] = next((1 / (i + 1) for i, r in enumerate(rels) if r), 0.0)
    return out


def _check_against(aligned: AlignedRun, expected_file: str, rel_level: float = 1) -> None:
    expected = _trec_out(expected_file)
    got = _oracle_measures(aligned, rel_level)
    topics = sorted({q for (_, q) in got})
    assert int(expected["num_q", "all"]) == len(topics)
    for measure in ("num_ret", "num_rel", "num_rel_ret", "P_5", "P_10", "recip_rank"):
        for q in topics:
            assert f"{got[measure, q]:.4f}" == f"{float(expected[measure, q]):.4f}", (measure, q)
        total = [got[measure, q] for q in topics]
        value = sum(total) if measure.startswith("num") else sum(total) / len(total)
        assert f"{value:.4f}" == f"{float(expected[measure, 'all']):.4f}", measure


# ---------------------------------------------------------------- reading


def test_read_qrels_small(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("301 0 FT-1 2\n301 0 FT-2 0\n302 0 doc#3 -1\n")
    qrels = read_qrels(path)
    assert qrels.qid.tolist() == ["301", "301", "302"]
    assert qrels.doc_id.tolist() == ["FT-1", "FT-2", "doc#3"]
    assert qrels.rel.tolist() == [2, 0, -1]
    assert qrels.rel.dtype == np.int64
    assert qrels.source == str(path)
    assert len(qrels) == 3
    assert qrels.topics.tolist() == ["301", "302"]


def test_read_run_small_ignores_rank_and_trailing_fields():
    text = "301 Q0 FT-1 7 2.5 sysA\n301 Q0 FT-2 1 -1e-3 sysA extra junk\n9 Q0 x 3 4 sysB\n"
    run = read_run(io.StringIO(text))
    assert run.qid.tolist() == ["301", "301", "9"]
    assert run.doc_id.tolist() == ["FT-1", "FT-2", "x"]
    np.testing.assert_array_equal(run.score, [2.5, -1e-3, 4.0])
    assert run.name == "sysB"  # trec_eval reports the tag of the last line
    assert run.topics.tolist() == ["301", "9"]  # string order, as trec_eval


def test_ids_are_strings_not_numbers():
    qrels = read_qrels(io.StringIO("0301 0 1.0 1\n301 0 1.00 1\n"))
    assert qrels.qid.tolist() == ["0301", "301"]
    assert qrels.doc_id.tolist() == ["1.0", "1.00"]


def test_comments_and_hash_in_ids(tmp_path):
    # qrels.test.with-comments = qrels.test plus '#' comment lines, and one docno changed
    # from CR93E-1860 to CR#93E-1860 (checked with diff when the files were copied).
    plain = read_qrels(DATA / "qrels.test")
    commented = read_qrels(DATA / "qrels.test.with-comments")
    assert len(plain) == len(commented) == 3681
    changed = np.flatnonzero(plain.doc_id != commented.doc_id)
    assert changed.tolist() == [4]
    assert commented.doc_id[4] == "CR#93E-1860"
    np.testing.assert_array_equal(plain.rel, commented.rel)


def test_comment_lines_with_leading_blanks_and_blank_lines():
    text = "  # comment\n\n1 Q0 a 1 1.0 t\n\t#another\n   \n1 Q0 b#c 2 0.5 t\n"
    run = read_run(io.StringIO(text))
    assert run.doc_id.tolist() == ["a", "b#c"]


def test_crlf_line_endings():
    run = read_run(io.StringIO("1 Q0 a 1 1.0 t\r\n1 Q0 b 2 0.5 t\r\n"))
    assert run.name == "t" and run.doc_id.tolist() == ["a", "b"]


def test_gzip_files(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(b"1 Q0 a 1 1.0 t\n"))
    assert read_run(path).doc_id.tolist() == ["a"]


def test_shared_files_sizes():
    # Line counts of the original files (wc -l; no comment lines in these three).
    assert len(read_run(DATA / "results.test")) == 1500
    assert len(read_run(DATA / "results.trunc")) == 584
    assert len(read_qrels(DATA / "qrels.rel_level")) == 3681
    # results.trunc has junk after the tag: "STANDARD more junk at" etc.
    assert read_run(DATA / "results.trunc").name == "STANDARD"


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("1 0 a 1\n1 0 b\n", 2, r"expected 4 fields 'qid iter docno rel', got 3"),
        ("# c\n1 0 a 1\n1 0 b 1 extra\n", 3, r"expected 4 fields .*got 5"),
        ("1 0 a 1\n\n1 0 b x\n", 3, r"relevance label 'x' is not an integer"),
        ("1 0 a 1.5\n", 1, r"relevance label '1.5' is not an integer"),
        ("1 0 a 1\n2 0 a 0\n1 0 a 0\n", 3, r"document 'a' is judged twice for query '1' "
         r"\(first on line 1\)"),
    ],
)
def test_malformed_qrels(tmp_path, text, line, message):
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=rf"qrels.txt, line {line}: .*{message}"):
        read_qrels(path)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5\n", 2, r"expected at least 6 fields "
         r"'qid Q0 docno rank score tag', got 5"),
        ("1 Q0 a 1 1.0 t\n# c\n1 Q0 b 2 high t\n", 3, r"the score 'high' is not a number"),
        ("1 Q0 a 1 nan t\n", 1, r"the score is NaN"),
        ("1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n\n1 Q0 a 2 0.5 t\n", 4,
         r"document 'a' is retrieved twice for query '1' \(first on line 1\)"),
    ],
)
def test_malformed_run(tmp_path, text, line, message):
    path = tmp_path / "run.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=rf"run.txt, line {line}: .*{message}"):
        read_run(path)


def test_empty_files(tmp_path):
    path = tmp_path / "empty"
    path.write_text("# only a comment\n\n")
    with pytest.raises(InputError, match=r"empty: no judgements"):
        read_qrels(path)
    with pytest.raises(InputError, match=r"empty: no results"):
        read_run(path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"absent: no such file"):
        read_run(tmp_path / "absent")


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1"
    path.write_bytes(b"1 Q0 a 1 1 t\n1 Q0 caf\xe9 2 0.5 t\n")
    with pytest.raises(InputError, match=r"latin1, line 2: the file is not valid UTF-8"):
        read_run(path)


# ---------------------------------------------------------------- alignment vs trec_eval


def test_align_reproduces_trec_eval_default():
    aligned = align_run_qrels(read_qrels(DATA / "qrels.test"), read_run(DATA / "results.test"))
    _check_against(aligned, "out.test.aq")
    assert aligned.n_run_only == 0 and aligned.n_qrels_only == 0


def test_align_reproduces_trec_eval_c():
    # results.trunc has no line for topic 302: trec_eval -c counts it with num_ret 0.
    qrels, run = read_qrels(DATA / "qrels.test"), read_run(DATA / "results.trunc")
    aligned = align_run_qrels(qrels, run, qrels_only="include")
    assert aligned.qrels_only_qids.tolist() == ["302"]
    _check_against(aligned, "out.test.aqc")
    # without -c trec_eval would average over 301 and 303 only
    default = align_run_qrels(qrels, run)
    assert sorted(set(default.qid.tolist())) == ["301", "303"]
    assert default.n_qrels_only == 1


def test_align_reproduces_trec_eval_M100():
    # -M100 keeps the first 100 documents per topic in trec_eval's order (score, then docno
    # descending); topic 301's relevant documents are spread, so num_rel_ret drops 71 -> 23.
    qrels, run = read_qrels(DATA / "qrels.test"), read_run(DATA / "results.trunc")
    aligned = align_run_qrels(qrels, run, qrels_only="include", max_docs=100)
    _check_against(aligned, "out.test.aqcM")


def test_align_max_docs_cuts_float32_ties_by_docno_under_float32():
    # 1.0 and 1.00000001 are one float32 (trec_eval 9 stores scores as float): -M1 then keeps
    # the larger docno, "b"; in float64 (trec_eval 10) "a" scores higher and is kept.
    qrels = read_qrels(io.StringIO("1 0 a 1\n1 0 b 0\n"))
    run = read_run(io.StringIO("1 Q0 a 1 1.00000001 s\n1 Q0 b 2 1.0 s\n"))
    assert np.float32(1.00000001) == np.float32(1.0)
    kept = {p: align_run_qrels(qrels, run, max_docs=1, score_precision=p)
            for p in ("float64", "float32")}
    assert kept["float64"].doc_id[kept["float64"].retrieved].tolist() == ["a"]
    assert kept["float32"].doc_id[kept["float32"].retrieved].tolist() == ["b"]
    # the judgement cut off stays, as an unretrieved row; the scores are not rounded
    assert kept["float32"].doc_id[~kept["float32"].retrieved].tolist() == ["a"]
    np.testing.assert_array_equal(align_run_qrels(qrels, run).y_score, [1.00000001, 1.0])
    with pytest.raises(InvalidParameterError, match="score_precision"):
        align_run_qrels(qrels, run, score_precision="float16")


def test_align_reproduces_trec_eval_rel_level_with_negative_labels():
    # qrels.rel_level has 304 labels of -1, which trec_eval reads as "unjudged in the pool".
    qrels = read_qrels(DATA / "qrels.rel_level")
    aligned = align_run_qrels(qrels, read_run(DATA / "results.test"))
    assert aligned.n_negative_rel == 304
    assert aligned.y_true.min() == 0
    _check_against(aligned, "out.test.aql", rel_level=2)
    with pytest.raises(InputError, match=r"304 judgements have a negative label, e.g. -1"):
        align_run_qrels(qrels, read_run(DATA / "results.test"), negative_rel="error")


def test_align_reproduces_trec_eval_with_hash_ids():
    # MS MARCO v2.1 ids contain '#'; 270 topics of the run have no judgement.
    qrels = read_qrels(DATA / "qrels.comment.test.gz")
    run = read_run(DATA / "results.comment.test.gz")
    assert len(run) == 30100 and len(qrels) == 5890  # wc -l of the originals
    assert run.name == "comment.test"
    aligned = align_run_qrels(qrels, run)
    assert aligned.n_run_only == 270 and aligned.n_qrels_only == 0
    expected = _trec_out("out.comment.test")
    got = _oracle_measures(aligned)
    topics = sorted({q for (_, q) in got})
    assert len(topics) == int(expected["num_q", "all"]) == 31
    for measure in ("num_ret", "num_rel", "num_rel_ret"):
        assert sum(got[measure, q] for q in topics) == int(expected[measure, "all"])
    for measure in ("P_5", "P_10", "recip_rank"):
        mean = sum(got[measure, q] for q in topics) / len(topics)
        assert f"{mean:.4f}" == expected[measure, "all"]


# ---------------------------------------------------------------- alignment semantics


def _small():
    qrels = read_qrels(io.StringIO("1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 x 1\n3 0 y 0\n"))
    run = read_run(io.StringIO(
        "3 Q0 y 1 0.2 s\n1 Q0 b 1 0.9 s\n1 Q0 a 2 0.5 s\n1 Q0 z 3 0.1 s\n4 Q0 w 1 1.0 s\n"
    ))
    return qrels, run


def test_align_small_default():
    aligned = align_run_qrels(*_small())
    assert aligned.qid.tolist() == ["1", "1", "1", "1", "3"]
    assert aligned.doc_id.tolist() == ["b", "a", "z", "c", "y"]
    np.testing.assert_array_equal(aligned.y_true, [0, 2, 0, 1, 0])
    np.testing.assert_array_equal(aligned.y_score, [0.9, 0.5, 0.1, -np.inf, 0.2])
    np.testing.assert_array_equal(aligned.retrieved, [True, True, True, False, True])
    assert aligned.run_only_qids.tolist() == ["4"]
    assert aligned.qrels_only_qids.tolist() == ["2"]
    assert len(aligned) == 5
    kwargs = aligned.as_evaluate_kwargs()
    assert set(kwargs) == {"y_true", "y_score", "qid", "doc_id", "retrieved"}
    assert kwargs["y_true"] is aligned.y_true


def test_align_small_include_both():
    aligned = align_run_qrels(*_small(), qrels_only="include", run_only="include")
    assert aligned.qid.tolist() == ["1", "1", "1", "1", "2", "3", "4"]
    assert aligned.doc_id.tolist() == ["b", "a", "z", "c", "x", "y", "w"]
    np.testing.assert_array_equal(aligned.y_true, [0, 2, 0, 1, 1, 0, 0])
    np.testing.assert_array_equal(aligned.retrieved, [1, 1, 1, 0, 0, 1, 1])
    assert aligned.y_score[4] == -np.inf and aligned.y_score[6] == 1.0


def test_align_errors_on_one_sided_topics():
    with pytest.raises(InputError, match=r"1 queries of the run have no judgement .*'4'"):
        align_run_qrels(*_small(), run_only="error")
    with pytest.raises(InputError, match=r"1 judged queries .* no result in the run: '2'"):
        align_run_qrels(*_small(), qrels_only="error")


def test_align_lists_at_most_five_missing_topics():
    qrels = Qrels(np.array([str(i) for i in range(8)]), np.array(["d"] * 8), np.ones(8, int))
    run = Run(np.array(["100"]), np.array(["d"]), np.array([1.0]))
    with pytest.raises(InputError, match=r"8 judged queries .*'0', '1', '2', '3', '4' and 3 more"):
        align_run_qrels(qrels, run, qrels_only="error")


def test_align_refuses_duplicates_in_hand_built_objects():
    run = Run(np.array(["1", "1"]), np.array(["a", "a"]), np.array([1.0, 2.0]), source="mine")
    qrels = Qrels(np.array(["1"]), np.array(["a"]), np.array([1]))
    with pytest.raises(InputError, match=r"mine: document 'a' appears twice for query '1' in "
                                         r"the run"):
        align_run_qrels(qrels, run)
    qrels2 = Qrels(np.array(["1", "1"]), np.array(["a", "a"]), np.array([1, 0]), source="q")
    with pytest.raises(InputError, match=r"q: document 'a' appears twice .* in the qrels"):
        align_run_qrels(qrels2, Run(np.array(["1"]), np.array(["a"]), np.array([1.0])))


def test_align_accepts_hand_built_objects_with_int_ids():
    qrels = Qrels(np.array([1, 1]), np.array([10, 11]), np.array([1, 0]))
    run = Run(np.array([1]), np.array([11]), np.array([3]))
    aligned = align_run_qrels(qrels, run)
    assert aligned.qid.tolist() == ["1", "1"]
    assert aligned.doc_id.tolist() == ["11", "10"]
    assert aligned.y_score.dtype == np.float64


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"qrels_only": "keep"}, r"The 'qrels_only' parameter of align_run_qrels must be one of "
                                 r"'ignore', 'include', 'error'. Got 'keep' instead."),
        ({"run_only": None}, r"The 'run_only' parameter of align_run_qrels must be one of"),
        ({"negative_rel": "keep"}, r"The 'negative_rel' parameter .* 'zero', 'error'"),
        ({"max_docs": 0}, r"The 'max_docs' parameter of align_run_qrels must be an int >= 1"),
    ],
)
def test_align_parameters_are_validated(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        align_run_qrels(*_small(), **kwargs)


def test_align_wrong_types():
    qrels, run = _small()
    with pytest.raises(InvalidParameterError, match=r"The 'run' parameter .* must be a Run"):
        align_run_qrels(qrels, qrels)
    with pytest.raises(InvalidParameterError, match=r"The 'qrels' parameter .* must be a Qrels"):
        align_run_qrels(run, run)


def test_max_docs_breaks_score_ties_by_docno_descending():
    run = read_run(io.StringIO("1 Q0 a 1 1.0 s\n1 Q0 c 2 1.0 s\n1 Q0 b 3 1.0 s\n1 Q0 d 4 2 s\n"))
    qrels = read_qrels(io.StringIO("1 0 a 1\n"))
    aligned = align_run_qrels(qrels, run, max_docs=2)
    # order: d (2.0), then the tie a/b/c by docno descending: c, b, a -> keep d, c
    assert aligned.doc_id.tolist() == ["c", "d", "a"]
    np.testing.assert_array_equal(aligned.retrieved, [True, True, False])


def _oracle_align(qrels_rows, run_rows, qrels_only, run_only):
    judged = {(q, d): r for q, d, r in qrels_rows}
    run_keys = {(q, d) for q, d, _ in run_rows}
    q_topics = {q for q, _, _ in qrels_rows}
    r_topics = {q for q, _, _ in run_rows}
    out = []
    for t in sorted(q_topics | r_topics):
        if t not in q_topics and run_only != "include":
            continue
        if t not in r_topics and qrels_only != "include":
            continue
        for q, d, s in run_rows:
            if q == t:
                out.append((q, d, float(max(judged.get((q, d), 0), 0)), s, True))
        for q, d, r in qrels_rows:
            if q == t and (q, d) not in run_keys:
                out.append((q, d, float(max(r, 0)), -np.inf, False))
    return out


_ids = st.sampled_from(["1", "2", "10", "a#b", "x"])
_docs = st.sampled_from(["d1", "d2", "d#3", "D4", "e"])


@settings(max_examples=100, deadline=None)
@given(
    qrels_rows=st.lists(st.tuples(_ids, _docs, st.integers(-1, 3)), min_size=1, max_size=20,
                        unique_by=lambda r: (r[0], r[1])),
    run_rows=st.lists(st.tuples(_ids, _docs, st.floats(-5, 5, allow_nan=False)), min_size=1,
                      max_size=20, unique_by=lambda r: (r[0], r[1])),
    qrels_only=st.sampled_from(["ignore", "include"]),
    run_only=st.sampled_from(["ignore", "include"]),
)
def test_align_matches_a_loop_oracle(qrels_rows, run_rows, qrels_only, run_only):
    qtext = "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels_rows)
    rtext = "".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, d, s in run_rows)
    aligned = align_run_qrels(
        read_qrels(io.StringIO(qtext)), read_run(io.StringIO(rtext)),
        qrels_only=qrels_only, run_only=run_only,
    )
    got = list(zip(aligned.qid.tolist(), aligned.doc_id.tolist(), aligned.y_true.tolist(),
                   aligned.y_score.tolist(), aligned.retrieved.tolist()))
    assert got == _oracle_align(qrels_rows, run_rows, qrels_only, run_only)


def test_qrels_label_too_large_for_int64_is_an_input_error():
    import io as _io

    from skrank.exceptions import InputError
    from skrank.io import read_qrels

    with pytest.raises(InputError, match=r"line 1: the relevance label '99999999999999999999999' "
                                         r"is not an integer"):
        read_qrels(_io.StringIO("1 0 a 99999999999999999999999\n"))


def test_libsvm_qid_too_large_for_int64_is_an_input_error():
    import io as _io

    from skrank.exceptions import InputError
    from skrank.io import read_libsvm

    with pytest.raises(InputError, match="line 1"):
        read_libsvm(_io.StringIO("1 qid:99999999999999999999999 1:1\n"))
