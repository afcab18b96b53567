"""Words that messages share: a short listing of values, a counted noun, a clipped value."""

from __future__ import annotations

import itertools
from collections.abc import Collection
from typing import Any

__all__ = ["clip", "listing", "plural"]


def listing(values: Collection[Any], limit: int = 5) -> str:
    """The first values of a collection, quoted as text, and how many more there are.

    Parameters
    ----------
    values : collection
        The values (a list, a set, a 1-D array); each is shown as ``repr(str(value))``.
    limit : int, default=5
        How many values to show.

    Returns
    -------
    str
        The values shown, separated by commas, then ``" and N more"`` when some are left out.

    Examples
    --------
    >>> listing(["q1", "q2"])
    "'q1', 'q2'"
    >>> listing([1, 2, 3, 4, 5, 6, 7])
    "'1', '2', '3', '4', '5' and 2 more"
    """
    shown = ", ".join(repr(str(v)) for v in itertools.islice(values, limit))
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def plural(n: int, word: str, many: str | None = None, *, thousands: bool = True) -> str:
    """A count and its noun, singular for one and plural otherwise.

    Parameters
    ----------
    n : int
        The count.
    word : str
        The noun for one.
    many : str or None, default=None
        The noun for any other count; ``word + "s"`` when None.
    thousands : bool, default=True
        Whether the count is written with a comma between thousands (``1,000``).

    Returns
    -------
    str
        ``"<n> <noun>"``.

    Examples
    --------
    >>> plural(1, "query", "queries")
    '1 query'
    >>> plural(1200, "row")
    '1,200 rows'
    >>> plural(1200, "row", thousands=False)
    '1200 rows'
    """
    count = f"{n:,}" if thousands else f"{n}"
    return f"{count} {word if n == 1 else (many or word + 's')}"


def clip(text: str, limit: int = 60) -> str:
    """``text`` as a message shows a value read from a file: its first ``limit`` characters
    and an ellipsis when it is longer (a field of a file may be megabytes long).

    Examples
    --------
    >>> clip("1e5")
    '1e5'
    >>> clip("x" * 100, 5)
    'xxxxx…'
    """
    return text if len(text) <= limit else text[:limit] + "…"
