"""Worker threads for the compiled kernels (which release the GIL).

One private pool, started on the first call that asks for more than one thread and kept for
the life of the process. Starting threads afresh on every call was measured slower than one
thread: a new thread waited milliseconds for the idle core to pick it up, while a pooled one
wakes in microseconds. The pool is an implementation detail: it holds no setting a user could
see, and idle workers cost nothing. A forked child process (multiprocessing's "fork" start
method) starts its own pool, as the parent's threads do not exist there.

:func:`run_chunks` gives each thread its chunk; :func:`run_shared` lets the threads take
chunks in turn, for work where a thread may run slower than the others.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["run_chunks", "run_shared"]

T = TypeVar("T")
R = TypeVar("R")

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0


def _forget_pool() -> None:
    """In a forked child: the parent's worker threads do not exist here; start afresh."""
    global _lock, _pool, _pool_size
    _lock = threading.Lock()
    _pool = None
    _pool_size = 0


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_forget_pool)


def _workers(n: int) -> ThreadPoolExecutor:
    """The shared pool, grown to at least ``n`` workers."""
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < n:
            old = _pool
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="skrank")
            _pool_size = n
            if old is not None:
                old.shutdown(wait=False)
        return _pool


def run_chunks(fn: Callable[[T], R], chunks: Sequence[T]) -> list[R]:
    """``[fn(c) for c in chunks]``, the chunks in parallel: the calling thread takes the last.

    Results come back in the order of ``chunks``; the first exception raised is re-raised.
    """
    if len(chunks) <= 1:
        return [fn(c) for c in chunks]
    pool = _workers(len(chunks) - 1)
    futures = [pool.submit(fn, c) for c in chunks[:-1]]
    last = fn(chunks[-1])
    return [*(f.result() for f in futures), last]


def run_shared(fn: Callable[[T], R], chunks: Sequence[T], n_threads: int) -> list[R]:
    """``[fn(c) for c in chunks]`` on ``n_threads`` threads that take the chunks in order.

    Each thread (the calling one included) takes the next chunk not yet taken, so a thread
    that runs slower (a busy or slowed core) simply takes fewer; with chunks that shrink
    towards the end the threads finish close together. Results come back in the order of
    ``chunks``. An exception stops the thread that met it; once every thread has stopped,
    the calling thread's exception is raised, or else the first worker's.
    """
    n_threads = min(n_threads, len(chunks))
    if n_threads <= 1:
        return [fn(c) for c in chunks]
    results: list = [None] * len(chunks)
    taken = itertools.count()  # next() on it is atomic under the GIL

    def take() -> None:
        while True:
            i = next(taken)
            if i >= len(chunks):
                return
            results[i] = fn(chunks[i])

    pool = _workers(n_threads - 1)
    futures = [pool.submit(take) for _ in range(n_threads - 1)]
    errors = []
    try:
        take()
    except BaseException as exc:  # re-raised below, once the workers are done
        errors.append(exc)
    for f in futures:
        exc = f.exception()
        if exc is not None:
            errors.append(exc)
    if errors:
        raise errors[0]
    return results
