"""The ``skrank`` command (alias ``rank-eval``): evaluate and compare rankers from files.

``skrank eval`` reads TREC qrels and runs, a table of labels and scores (CSV, TSV, Parquet)
or a LibSVM file with score files, evaluates every system with :func:`skrank.evaluate`,
compares each one with a baseline (:func:`skrank.reports.build_report`) and prints a report
that states the conventions of every number. See ``docs/cli.rst`` or ``skrank eval --help``.

Exit status: 0 on success, 1 on bad data (a one-line ``skrank: error: ...`` on stderr),
2 on bad usage (argparse's message), 130 when interrupted.

The modules behind it, one idea each: ``_args`` (the parser and its argument types),
``_common`` (the data error, progress, the loaded systems), ``_load`` (the kind of input,
tables, LibSVM, the query table), ``_trec`` (TREC runs read in batches of whole topics) and
``_eval`` (the evaluation, segments, rendering and ``main``); ``_entry`` starts the program
(one OpenBLAS thread unless ``OPENBLAS_NUM_THREADS`` is set, then ``_eval``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy

# imported on first use: ``python -m skrank.cli`` chooses the BLAS threads (``_entry``)
# before NumPy is imported
_LAZY = {"build_eval_parser": "skrank.cli._args", "build_parser": "skrank.cli._args",
         "main": "skrank.cli._eval"}

if TYPE_CHECKING:  # for type checkers and linters; at run time see __getattr__
    from ._args import build_eval_parser, build_parser
    from ._eval import main

__getattr__, __dir__ = _lazy.lazy_attributes(globals(), _LAZY)

__all__ = ["build_eval_parser", "build_parser", "main"]
