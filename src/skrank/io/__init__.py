"""Readers for ranking evaluation data.

- :func:`read_qrels`, :func:`read_run`: TREC relevance judgements and runs (trec_eval 10
  formats, ``#`` comments included), and :func:`align_run_qrels` to join them into the flat
  arrays :func:`skrank.evaluate` takes.
- :func:`read_libsvm`: LibSVM / SVMlight files with ``qid:`` fields.

Malformed input raises :class:`skrank.InputError` naming the file and the line.
"""

from __future__ import annotations

from ._align import AlignedRun, align_run_qrels
from ._libsvm import LibSVMData, read_libsvm
from ._trec import Qrels, Run, read_qrels, read_run

__all__ = [
    "AlignedRun",
    "LibSVMData",
    "Qrels",
    "Run",
    "align_run_qrels",
    "read_libsvm",
    "read_qrels",
    "read_run",
]
