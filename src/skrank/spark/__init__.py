"""Ranking evaluation of a Spark DataFrame: the numbers of :func:`skrank.evaluate`, where the
rows live.

:func:`evaluate` repartitions the rows on the query id, evaluates each task's queries with
skrank's kernels over Arrow batches (the task puts its partition in input order, or Spark
sorts it and the task carries a query that a batch boundary splits over to the next batch)
and gathers only the per-query values, from which the driver builds the
:class:`~skrank.EvaluationResult` that :func:`skrank.evaluate` returns on the collected rows.
``preset="spark"`` reproduces ``pyspark.mllib.evaluation.RankingMetrics``. Needs the
``spark`` extra: ``pip install skrank[spark]`` (and Java 17 for Spark itself).
"""

from __future__ import annotations

from ._evaluate import evaluate

__all__ = ["evaluate"]
