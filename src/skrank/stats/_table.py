"""What tables of result rows share: length, iteration and indexing by position or name, and
the rows as aligned text.

:class:`~skrank.stats.ComparisonTable` and :class:`~skrank.segments.SegmentTable` are such
tables; the reports print theirs with :func:`text_table`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar, Generic, TypeVar

__all__ = ["RowTable", "text_table"]

RowT = TypeVar("RowT")


class RowTable(Generic[RowT]):
    """A table of rows: ``len``, iteration, and indexing by position or by a row's name.

    A subclass (a frozen dataclass with a ``rows`` field) says which attribute of a row is
    its name (``_row_key``), and the words of the error for a name no row has: ``_row_word``
    for one row (``"segment"``) and ``_names_word`` for the list of names (``"segments"``).
    """

    rows: tuple[RowT, ...]
    _row_key: ClassVar[str]
    _row_word: ClassVar[str]
    _names_word: ClassVar[str]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[RowT]:
        return iter(self.rows)

    def __getitem__(self, key: int | str) -> RowT:
        if isinstance(key, str):
            for row in self.rows:
                if getattr(row, self._row_key) == key:
                    return row
            names = [getattr(r, self._row_key) for r in self.rows]
            raise KeyError(f"No {self._row_word} named {key!r}; {self._names_word} are "
                           f"{names}.")
        return self.rows[key]


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1
               ) -> list[str]:
    """Aligned plain-text table lines; the first ``left`` columns are left-aligned.

    Parameters
    ----------
    header : sequence of str
        The column names.
    rows : sequence of sequence of str
        The cells, one sequence per row, as many as ``header``.
    left : int, default=1
        How many columns, from the first, are left-aligned; the others are right-aligned.

    Returns
    -------
    list of str
        The header line, then one line per row, columns two spaces apart, without trailing
        spaces.

    Examples
    --------
    >>> print("\\n".join(text_table(["name", "n"], [["a", "10"], ["bb", "2"]])))
    name   n
    a     10
    bb     2
    """
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return [line(header), *(line(r) for r in rows)]
