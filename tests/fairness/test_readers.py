"""The readers of expeval's files cut the text on its bytes; a loop over lines agrees."""

from __future__ import annotations

import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank.fairness import read_expeval_qrels, read_expeval_run

WORD = st.text(alphabet="abcXYZ019_-.:é", min_size=1, max_size=6)
SPACE = st.sampled_from([" ", "  ", "\t", " \t ", "\x1c"])  # \x1c: Python splits on it


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(WORD, WORD, WORD, st.integers(-3, 99),
                               st.floats(-1e3, 1e3, allow_nan=False),
                               st.one_of(st.none(), WORD), SPACE, st.booleans()),
                     min_size=1, max_size=20))
def test_run_reader_equals_a_loop_over_lines(rows):
    lines = []
    for q, s, d, r, score, tag, sp, blank in rows:
        fields = [q, s, d, str(r), repr(score)] + ([tag] if tag else [])
        lines.append(("  " if blank else "") + sp.join(fields) + ("\r" if blank else ""))
        if blank:
            lines.append("   ")
    run = read_expeval_run(io.StringIO("\n".join(lines) + "\n"))
    want = [line.split() for line in lines if line.split()]
    assert run.qid.tolist() == [w[0] for w in want]
    assert run.sample.tolist() == [w[1] for w in want]
    assert run.doc.tolist() == [w[2] for w in want]
    assert run.rank.tolist() == [int(w[3]) for w in want]
    np.testing.assert_array_equal(run.score, [float(w[4]) for w in want])
    assert run.tag == (want[-1][5] if len(want[-1]) == 6 else "")


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(WORD, st.one_of(st.none(), st.lists(
    st.integers(-1, 5), min_size=1, max_size=3)), WORD, st.integers(-1, 4)),
    min_size=1, max_size=20))
def test_qrels_reader_equals_a_loop_over_lines(rows):
    text = "\n".join(f"{q} {'|'.join(map(str, g))} {d} {r}" if g else f"{q}\t{d}\t{r}"
                     for q, g, d, r in rows)
    qrels = read_expeval_qrels(io.StringIO(text))
    assert qrels.qid.tolist() == [r[0] for r in rows]
    assert qrels.doc.tolist() == [r[2] for r in rows]
    assert qrels.y_true.tolist() == [r[3] for r in rows]
    member = qrels.groups.toarray()
    for i, (_, g, _, _) in enumerate(rows):
        want = sorted({str(x) for x in g}) if g else ["-1"]
        assert qrels.group_labels[member[i]].tolist() == want
