"""per_partition: one task per partition, in order, keyed by the function, its arguments and
the frame (two frames, or two arguments, never share a task)."""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from skrank.dask._tasks import per_partition


def _total(pdf, *, scale):
    return int(pdf["x"].sum()) * scale


def test_one_task_per_partition_in_order():
    ddf = dd.from_pandas(pd.DataFrame({"x": np.arange(20)}), npartitions=4)
    with dask.config.set(scheduler="sync"):
        got = dask.compute(*per_partition(ddf, _total, "t", scale=2))
    want = [2 * int(p["x"].sum()) for p in (ddf.partitions[i].compute() for i in range(4))]
    assert list(got) == want


def test_frames_and_arguments_have_their_own_tasks():
    a = dd.from_pandas(pd.DataFrame({"x": np.arange(10)}), npartitions=2)
    b = dd.from_pandas(pd.DataFrame({"x": np.arange(10, 20)}), npartitions=2)
    calls = [per_partition(a, _total, "t", scale=1), per_partition(b, _total, "t", scale=1),
             per_partition(a, _total, "t", scale=3)]
    keys = [d.key for c in calls for d in c]
    assert len(set(keys)) == 6
    assert [d.key for d in per_partition(a, _total, "t", scale=1)] == [d.key for d in calls[0]]
    with dask.config.set(scheduler="sync"):  # computed together: each its own values
        got = dask.compute(*[d for c in calls for d in c])
    assert list(got) == [10, 35, 60, 85, 30, 105]
