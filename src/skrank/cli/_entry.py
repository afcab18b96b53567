"""The ``skrank`` program's entry point (``python -m skrank.cli`` and the console scripts
``skrank`` and ``rank-eval``): the process's BLAS threads, then :func:`skrank.cli._eval.command`.

NumPy's OpenBLAS starts a thread per core when NumPy is imported, and each spins for about
a tenth of a second waiting for work. The command does no linear algebra, and from its
first tenth of a second on it reads files in threads on every core: the spinning threads
take their time (measured on ``skrank eval`` of a 7M-line run on 2 cores: 0.12 CPU seconds,
0.03 s of wall time). So the command asks for one BLAS thread, as Dask's and Spark's workers
do, unless the user has chosen a number; it leaves OpenMP (``OMP_NUM_THREADS``) alone. This
module imports nothing else, so that the choice comes before NumPy is imported.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

__all__ = ["command", "limit_blas_threads"]

#: OpenBLAS's thread count (NumPy's wheels ship OpenBLAS)
BLAS_THREADS = "OPENBLAS_NUM_THREADS"


def limit_blas_threads(environ: MutableMapping[str, str] | None = None) -> None:
    """Ask for one OpenBLAS thread in ``environ`` (the process's by default), unless
    ``OPENBLAS_NUM_THREADS`` is set there already. Only a library loaded afterwards
    reads it."""
    (os.environ if environ is None else environ).setdefault(BLAS_THREADS, "1")


def command() -> None:
    """The ``skrank`` program: :func:`limit_blas_threads`, then
    :func:`skrank.cli._eval.command` (which ends the process)."""
    limit_blas_threads()
    _run()


def _run() -> None:
    from ._eval import command as run

    run()
