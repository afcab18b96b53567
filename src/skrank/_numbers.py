"""Results that behave as the number they carry.

A metric family's result holds its value with the conventions and counts behind it; through
:class:`FloatLike` it is also usable wherever a float is (arithmetic, comparisons, ``round``,
format specifications, NumPy), while ``str()`` keeps stating the conventions.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["FloatLike"]


def _binary(op: Callable[[float, float], Any], reflected: bool = False):
    def method(self, other):
        if isinstance(other, FloatLike):
            other = other.value
        try:
            other = float(other)
        except (TypeError, ValueError):
            return NotImplemented
        return op(other, self.value) if reflected else op(self.value, other)

    return method


class FloatLike:
    """Arithmetic, comparisons, ``round`` and format specifications through ``self.value``.

    Arithmetic returns plain floats; ``format(r, ".3f")`` formats the value while ``str(r)``
    is the subclass's own text. Subclasses are dataclasses with ``eq=False`` and a ``value``
    field.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True, eq=False)
    ... class Score(FloatLike):
    ...     value: float
    ...     def __str__(self):
    ...         return f"score = {self.value:.2f} (as measured)"
    >>> s = Score(0.625)
    >>> s + 1, s > 0.5, f"{s:.1f}", round(s, 2), str(s)
    (1.625, True, '0.6', 0.62, 'score = 0.62 (as measured)')
    """

    value: float

    def __float__(self) -> float:
        return float(self.value)

    def __format__(self, spec: str) -> str:
        return format(float(self.value), spec) if spec else str(self)

    def __round__(self, ndigits: int | None = None):
        return round(float(self.value), ndigits)

    def __hash__(self) -> int:
        return hash(float(self.value))

    def __bool__(self) -> bool:
        return bool(self.value)

    def __neg__(self) -> float:
        return -float(self.value)

    def __pos__(self) -> float:
        return float(self.value)

    def __abs__(self) -> float:
        return abs(float(self.value))

    def __array__(self, dtype=None, copy=None):
        return np.asarray(float(self.value), dtype=dtype)

    __add__ = _binary(operator.add)
    __radd__ = _binary(operator.add, True)
    __sub__ = _binary(operator.sub)
    __rsub__ = _binary(operator.sub, True)
    __mul__ = _binary(operator.mul)
    __rmul__ = _binary(operator.mul, True)
    __truediv__ = _binary(operator.truediv)
    __rtruediv__ = _binary(operator.truediv, True)
    __pow__ = _binary(operator.pow)
    __rpow__ = _binary(operator.pow, True)
    __eq__ = _binary(operator.eq)  # type: ignore[assignment]
    __ne__ = _binary(operator.ne)  # type: ignore[assignment]
    __lt__ = _binary(operator.lt)
    __le__ = _binary(operator.le)
    __gt__ = _binary(operator.gt)
    __ge__ = _binary(operator.ge)
