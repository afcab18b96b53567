"""The private worker pool behind ``n_jobs``: order, errors, reuse."""

from __future__ import annotations

import threading

import pytest

from skrank.metrics import _threads


def test_results_come_back_in_order_and_the_caller_takes_the_last_chunk():
    seen = {}

    def work(i):
        seen[i] = threading.current_thread()
        return i * i

    assert _threads.run_chunks(work, [1, 2, 3, 4]) == [1, 4, 9, 16]
    assert seen[4] is threading.current_thread()
    assert all(seen[i] is not threading.current_thread() for i in (1, 2, 3))


def test_one_chunk_runs_on_the_calling_thread():
    assert _threads.run_chunks(lambda c: threading.current_thread(), ["a"]) == [
        threading.current_thread()
    ]
    assert _threads.run_chunks(lambda c: c, []) == []


def test_errors_in_workers_are_raised():
    def work(i):
        if i == 0:
            raise ValueError("chunk 0 failed")
        return i

    with pytest.raises(ValueError, match="chunk 0 failed"):
        _threads.run_chunks(work, [0, 1])


def test_pool_is_reused_and_grows():
    _threads.run_chunks(lambda c: c, [0, 1])
    first = _threads._workers(1)
    assert _threads._workers(1) is first
    _threads.run_chunks(lambda c: c, [0, 1, 2, 3, 4])
    assert _threads._pool_size >= 4


def _child_work(_):
    return _threads.run_chunks(lambda c: c * 2, [1, 2])


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="fork is POSIX-only")
def test_a_forked_child_starts_its_own_pool():
    # the parent's pool has an idle worker; a forked child inherits the pool object but not
    # its thread, and a task given to that pool would wait forever
    import multiprocessing
    import time
    import warnings

    _threads.run_chunks(lambda c: c, [0, 1])
    time.sleep(0.1)  # the worker is idle again
    ctx = multiprocessing.get_context("fork")
    with warnings.catch_warnings():
        # Python 3.12+ warns that forking a process with threads may deadlock: the point here
        warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
        with ctx.Pool(1) as pool:
            result = pool.map_async(_child_work, [0]).get(timeout=30)
    assert result == [[2, 4]]


def test_shared_chunks_each_run_once_and_come_back_in_order():
    calls = []

    def work(i):
        calls.append(i)
        return i * i

    assert _threads.run_shared(work, list(range(10)), 2) == [i * i for i in range(10)]
    assert sorted(calls) == list(range(10))
    assert _threads.run_shared(work, [3], 4) == [9]
    assert _threads.run_shared(work, [], 2) == []
    assert _threads.run_shared(work, [1, 2], 1) == [1, 4]


def test_a_slow_thread_leaves_chunks_to_the_others():
    import time

    caller = threading.current_thread()
    who = {}

    def work(i):
        who[i] = threading.current_thread()
        if who[i] is caller:
            time.sleep(0.3)  # the calling thread is slowed down
        return i

    assert _threads.run_shared(work, list(range(6)), 2) == list(range(6))
    taken_by_caller = sum(t is caller for t in who.values())
    assert taken_by_caller <= 2
    assert len({t for t in who.values()}) == 2


def test_shared_errors_are_raised_after_every_thread_stops():
    def work(i):
        if i == 1:
            raise ValueError("chunk 1 failed")
        return i

    with pytest.raises(ValueError, match="chunk 1 failed"):
        _threads.run_shared(work, [0, 1, 2, 3], 2)


def test_shared_raises_the_calling_threads_error_first():
    caller = threading.current_thread()

    def work(i):
        if threading.current_thread() is caller:
            raise KeyError("caller")
        raise ValueError("worker")

    with pytest.raises(KeyError, match="caller"):
        _threads.run_shared(work, [0, 1, 2, 3], 2)
