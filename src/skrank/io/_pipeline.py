"""Threads that overlap the stages of reading a run file: :func:`prefetched` makes the
items of an iterator ahead of the caller, :func:`ordered_map` maps a function over them on
two threads and gives the results in order. The compiled stages release the GIL, so these
run in parallel."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["ordered_map", "prefetched"]


def prefetched(items: Iterator[Any], ahead: int = 1) -> Iterator[Any]:
    """The items of ``items``, made in a thread (up to ``ahead`` of them waiting) while the
    caller works on the current one: reading and parsing a block (which release the GIL)
    overlap the join and the evaluation of the one before. An exception of ``items`` is
    raised to the caller; a caller that stops early stops the thread."""
    import queue
    import threading

    box: queue.Queue = queue.Queue(maxsize=ahead)
    stop = threading.Event()

    def put(entry: tuple[str, Any]) -> bool:
        while not stop.is_set():
            try:
                box.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for item in items:
                if not put(("item", item)):
                    return
            put(("end", None))
        except BaseException as exc:  # handed to the caller, raised there
            put(("error", exc))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=work, name="skrank-reader", daemon=True)
    thread.start()
    try:
        while True:
            kind, value = box.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
            del value
    finally:
        stop.set()
        thread.join()


def ordered_map(func: Any, items: Iterator[Any], workers: int = 2) -> Iterator[Any]:
    """``func(item)`` for each of ``items``, computed by ``workers`` threads (each on its
    own item: the join and the evaluation of a batch release the GIL), the results given in
    the order of ``items``. At most ``workers + 1`` items are in flight. An exception, of
    ``func`` or of ``items``, is raised in that order too: after the results (or the
    exception) of the items before it. A caller that stops early drops the items not
    started and waits for those running."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    pending: deque = deque()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="skrank-join")
    it = iter(items)
    try:
        while True:
            try:
                item = next(it)
            except StopIteration:
                break
            except BaseException:
                while pending:  # the items before it first
                    yield pending.popleft().result()
                raise
            pending.append(pool.submit(func, item))
            del item
            while len(pending) > workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True)
