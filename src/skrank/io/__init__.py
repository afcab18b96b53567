"""Readers for ranking evaluation data.

- :func:`read_qrels`, :func:`read_run`: TREC relevance judgements and runs (trec_eval 10
  formats, ``#`` comments included), and :func:`align_run_qrels` to join them into the flat
  arrays :func:`skrank.evaluate` takes.
- :func:`read_table`: CSV, TSV or Parquet tables with a query id, a label and one or more
  score columns (needs pyarrow).
- :func:`read_libsvm`: LibSVM / SVMlight files with ``qid:`` fields;
  :func:`read_scored_libsvm` adds score files (one score per line) and :func:`read_scores`
  reads one.

Malformed input raises :class:`skrank.InputError` naming the file and the line.
"""

from __future__ import annotations

from ._align import AlignedRun, align_run_qrels
from ._libsvm import LibSVMData, read_libsvm
from ._scored import read_scored_libsvm, read_scores
from ._table import ScoreTable, read_table
from ._trec import Qrels, Run, read_qrels, read_run

__all__ = [
    "AlignedRun",
    "LibSVMData",
    "Qrels",
    "Run",
    "ScoreTable",
    "align_run_qrels",
    "read_libsvm",
    "read_qrels",
    "read_run",
    "read_scored_libsvm",
    "read_scores",
    "read_table",
]
