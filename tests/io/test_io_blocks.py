"""The block scan of the text readers (issue 12): the quick test of whether a block needs
normalising, and the line count, against plain oracles on random text.

The quick test looks at single bytes with ``in`` and at byte pairs through 16-bit words at both
alignments; a pair that straddles the two alignments or sits at either end of the block is the
case a vectorised scan gets wrong, so Hypothesis draws short texts over the bytes that matter.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from skrank.io._arrow import _count_lines, _is_normal, _normalise

# mostly letters, spaces, line ends and comment marks; now and then a tab, CR, VT or FF
TEXT = st.one_of(
    st.lists(st.sampled_from(b"aaa  \n\n#"), max_size=40).map(bytes),
    st.lists(st.sampled_from(b"a \n#\t\r\v\f"), max_size=40).map(bytes),
)


def _normalised(data: bytes) -> bytes:
    """Every normalisation step, applied without the quick test."""
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    data = data.translate(bytes.maketrans(b"\t\v\f", b"   "))
    data = re.sub(rb" {2,}", b" ", data)
    data = re.sub(rb"(?m)^ | $", b"", data)
    return re.sub(rb"(?m)^#[^\n]*", b"", data)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_a_block_is_normal_exactly_when_normalising_leaves_it_alone(data):
    assert _is_normal(data) == (_normalised(data) == data)
    assert _normalise(data) == _normalised(data)


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_lines_are_counted_as_text_files_count_them(data):
    # splitlines() ends a line at LF, CRLF and a lone CR (and at \v and \f, which are blanks
    # here: count them out)
    text = data.replace(b"\v", b"a").replace(b"\f", b"a").decode("ascii")
    assert _count_lines(data) == len(text.splitlines())
