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

from typing import TYPE_CHECKING

from .. import _lazy

# Imported on first use (a reader needs its own module only): public name -> its module.
_LAZY: dict[str, str] = {
    "AlignedRun": "skrank.io._align",
    "align_run_qrels": "skrank.io._align",
    "LibSVMData": "skrank.io._libsvm",
    "read_libsvm": "skrank.io._libsvm",
    "read_scored_libsvm": "skrank.io._scored",
    "read_scores": "skrank.io._scored",
    "ScoreTable": "skrank.io._table",
    "read_table": "skrank.io._table",
    "Qrels": "skrank.io._trec",
    "Run": "skrank.io._trec",
    "read_qrels": "skrank.io._trec",
    "read_run": "skrank.io._trec",
}

if TYPE_CHECKING:  # for type checkers and linters; at run time see __getattr__
    from ._align import AlignedRun, align_run_qrels
    from ._libsvm import LibSVMData, read_libsvm
    from ._scored import read_scored_libsvm, read_scores
    from ._table import ScoreTable, read_table
    from ._trec import Qrels, Run, read_qrels, read_run

__getattr__, __dir__ = _lazy.lazy_attributes(globals(), _LAZY)

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
