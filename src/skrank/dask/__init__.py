"""Ranking evaluation of a Dask DataFrame: the numbers of :func:`skrank.evaluate`, where the
rows live.

:func:`evaluate` shuffles the rows on the query id (every query's rows to one partition),
evaluates each partition's queries with skrank's kernels and gathers only the per-query
values, from which the driver builds the :class:`~skrank.EvaluationResult` that
:func:`skrank.evaluate` returns on the collected rows: the same per-query values, bit for bit,
and the same means. Needs the ``dask`` extra: ``pip install skrank[dask]``.
"""

from __future__ import annotations

from ._evaluate import evaluate

__all__ = ["evaluate"]
