"""Best-of-n timing shared by the benchmarks that time a Python call in their own process."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """(best wall seconds, best CPU seconds of this process, the last result) of ``repeat``
    calls of ``fn``."""
    best_wall = best_cpu = float("inf")
    out = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        best_wall = min(best_wall, time.perf_counter() - w0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best_wall, best_cpu, out
