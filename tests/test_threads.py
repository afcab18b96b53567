"""The private worker pool behind ``n_jobs``: order, errors, reuse."""

from __future__ import annotations

import threading

import pytest

from skrank import _threads


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
