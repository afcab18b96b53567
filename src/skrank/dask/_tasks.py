"""One task per partition of a Dask DataFrame, whose result comes to the driver as it is."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = ["per_partition"]


def per_partition(frame, func: Callable, name: str, **kwargs: Any) -> list:
    """``func(partition, **kwargs)`` for each partition of ``frame``, as one ``Delayed``
    each, in the partitions' order (to give to ``dask.compute``).

    A result may be anything picklable (no frame to build, no concatenation on a worker).
    ``kwargs`` are tokenized once, not once a partition (dask tokenizes and traverses the
    arguments of each call: for skrank's plan and layout, 1.5 ms a call on the driver)."""
    import dask
    from dask.base import tokenize

    call = dask.delayed(functools.partial(func, **kwargs), pure=True)
    # the keys name the function, its kwargs and the frame (its expression's token): two
    # frames never share a key
    prefix = f"{name}-{tokenize(call.key, frame)}"
    return [call(part, dask_key_name=f"{prefix}-{i}")
            for i, part in enumerate(frame.to_delayed())]
