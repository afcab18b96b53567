"""Threads that overlap the stages of reading a run file: :func:`prefetched` makes the
items of an iterator ahead of the caller (:class:`Prefetch`: from its start on, before the
first is asked for), :func:`ordered_map` maps a function over them on two threads and gives
the results in order. The compiled stages release the GIL, so these run in parallel."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["Prefetch", "ordered_map", "prefetched"]


def prefetched(items: Iterator[Any], ahead: int = 1) -> Iterator[Any]:
    """The items of ``items``, made in a thread (up to ``ahead`` of them waiting) while the
    caller works on the current one: reading and parsing a block (which release the GIL)
    overlap the join and the evaluation of the one before. An exception of ``items`` is
    raised to the caller; a caller that stops early stops the thread. The thread starts at
    the first item asked for (:class:`Prefetch` starts it at once)."""
    started = Prefetch(items, ahead)
    try:
        yield from started
    finally:
        started.close()


class Prefetch:
    """The items of ``items`` made in a thread started at once, up to ``ahead`` of them
    waiting: an iterator (see :func:`prefetched`) whose reading begins before its first item
    is asked for, so that it overlaps whatever the caller does first. :meth:`close` stops
    the thread (and closes ``items``); call it once done, also when stopping early."""

    def __init__(self, items: Iterator[Any], ahead: int = 1) -> None:
        import queue
        import threading

        self._items = items
        self._box: queue.Queue = queue.Queue(maxsize=ahead)
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._work, name="skrank-reader", daemon=True)
        self._thread.start()

    def _put(self, entry: tuple[str, Any]) -> bool:
        import queue

        while not self._stop.is_set():
            try:
                self._box.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _work(self) -> None:
        items = self._items
        try:
            for item in items:
                if not self._put(("item", item)):
                    return
                del item
            self._put(("end", None))
        except BaseException as exc:  # handed to the caller, raised there
            self._put(("error", exc))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    def __iter__(self) -> Prefetch:
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        kind, value = self._box.get()
        if kind == "item":
            return value
        self._done = True
        if kind == "error":
            raise value
        raise StopIteration

    def close(self) -> None:
        """Stop the thread (the items it made and not given are dropped) and wait for it."""
        self._done = True
        self._stop.set()
        self._thread.join()


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
