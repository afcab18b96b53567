"""Segment analysis: the comparison of two systems within groups of queries.

A mean gain can hide a loss on part of the traffic: rankers often improve frequent (head)
queries while hurting rare (tail) ones. This module splits the queries into segments and
compares the two systems within each segment, with the same paired statistics as
:func:`skrank.stats.paired_comparison` and a multiple-comparison correction over the segments
of one table.

Build a :class:`Segmentation` (one label per query) with

- :func:`by_frequency`: head / torso / tail from how often each query was issued (a frequency
  column, or counts in a query log with :func:`read_query_log` and :func:`count_queries`);
- :func:`by_candidates`: the number of candidate documents per query, binned
  (:func:`count_candidates` counts them from per-row query ids);
- :func:`by_column`: any categorical per-query attribute, such as a query type
  (:func:`per_query` collapses a per-row column to one value per query);

then :func:`segment_table` gives one row per segment: the number of queries, both means, the
difference with its bootstrap confidence interval, the raw and corrected p-values and the
wins / ties / losses.

Examples
--------
>>> import numpy as np
>>> from skrank.segments import by_column, segment_table
>>> qids = np.array(["q1", "q2", "q3", "q4", "q5", "q6"])
>>> kind = by_column(qids, ["nav", "info", "nav", "info", "nav", "info"], name="type")
>>> kind.sizes()
{'info': 3, 'nav': 3}
>>> new = np.array([0.9, 0.4, 0.8, 0.3, 0.7, 0.5])
>>> old = np.array([0.7, 0.5, 0.6, 0.4, 0.6, 0.6])
>>> table = segment_table(new, old, kind, qids=qids, metric="ndcg@10", name_a="new",
...                       name_b="old", rng=0, n_resamples=1000)
>>> [(row.segment, row.n, round(row.difference, 4)) for row in table]
[('info', 3, -0.1), ('nav', 3, 0.1667)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy

# Imported on first use (``skrank eval`` without segments imports none of them): public
# name -> its module.
_LAZY: dict[str, str] = {
    "read_query_log": "skrank.io._query_log",
    **dict.fromkeys(["count_candidates", "count_queries", "per_query"],
                    "skrank.segments._columns"),
    **dict.fromkeys(["Segmentation", "by_candidates", "by_column", "by_frequency"],
                    "skrank.segments._segmentation"),
    **dict.fromkeys(["SegmentRow", "SegmentTable", "segment_table"],
                    "skrank.segments._table"),
}

if TYPE_CHECKING:  # for type checkers and linters; at run time see __getattr__
    from ..io._query_log import read_query_log
    from ._columns import count_candidates, count_queries, per_query
    from ._segmentation import Segmentation, by_candidates, by_column, by_frequency
    from ._table import SegmentRow, SegmentTable, segment_table

__getattr__, __dir__ = _lazy.lazy_attributes(globals(), _LAZY)

__all__ = [
    "SegmentRow",
    "SegmentTable",
    "Segmentation",
    "by_candidates",
    "by_column",
    "by_frequency",
    "count_candidates",
    "count_queries",
    "per_query",
    "read_query_log",
    "segment_table",
]
