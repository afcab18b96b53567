"""The (topic, document id) order behind the run-qrels join, trec_eval's doc-id tie order and
the duplicate checks (issue 12), against plain Python oracles.

``string_order`` sorts by a 64-bit key (topic code and the first bytes after the prefix every id
shares) and settles equal keys word by word; ids here share long prefixes, differ only in late
bytes or in length, hold multi-byte UTF-8 and may be empty, which are the cases the words get
wrong when they are cut or padded badly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank.io._columns import string_order

PREFIXES = ["", "msmarco_doc_00_", "clueweb12-0000tw-", "D", "é"]
IDS = st.builds(lambda p, s: p + s, st.sampled_from(PREFIXES),
                st.text(alphabet="019aé_\x00", max_size=19))


@st.composite
def groups_and_ids(draw):
    n = draw(st.integers(0, 60))
    ids = draw(st.lists(IDS, min_size=n, max_size=n))
    prefix = draw(st.sampled_from(PREFIXES))  # often one prefix for all, as in real runs
    if draw(st.booleans()):
        ids = [prefix + s[-3:] for s in ids]
    group = draw(st.lists(st.integers(0, draw(st.sampled_from([0, 3, 5000]))), min_size=n,
                          max_size=n))
    chunks = draw(st.integers(1, 3))  # a chunked column, as the readers build
    return np.array(group, dtype=np.int64), ids, chunks


def _column(ids, chunks):
    cut = len(ids) // chunks
    parts = [ids[:cut], ids[cut:]] if chunks > 1 else [ids]
    return pa.chunked_array([pa.array(p, type=pa.string()) for p in parts], type=pa.string())


@settings(max_examples=300, deadline=None)
@given(groups_and_ids())
def test_string_order_is_the_sort_by_group_then_utf8_bytes_then_row(case):
    group, ids, chunks = case
    order, same = string_order(group, _column(ids, chunks))
    key = [(int(g), s.encode("utf-8"), i) for i, (g, s) in enumerate(zip(group, ids))]
    expected = [k[2] for k in sorted(key)]
    assert order.tolist() == expected
    assert same.tolist() == [key[a][:2] == key[b][:2] for a, b in
                             itertools.pairwise(expected)]

