"""The exceptions and warnings skrank raises.

The tree is small and every class subclasses the built-in its users already catch:

- :class:`SkrankError` (``Exception``): base of everything skrank raises on purpose.
- :class:`InvalidParameterError` (``SkrankError``, ``ValueError``, ``TypeError``): a parameter
  has a value outside its closed set or of the wrong type.
- :class:`InputError` (``SkrankError``, ``ValueError``): the data are unusable (NaN scores,
  unequal lengths, misaligned query ids, labels outside a gain table, ...).
- :class:`EmptyQueryError` (``InputError``): a query without relevant documents was met while
  ``empty="error"``.
- :class:`SkrankWarning` (``UserWarning``): something works but deserves attention
  (for example a cross-validation fold that cuts a query in two).
"""

from __future__ import annotations

__all__ = [
    "EmptyQueryError",
    "InputError",
    "InvalidParameterError",
    "SkrankError",
    "SkrankWarning",
]


class SkrankError(Exception):
    """Base class of the errors skrank raises on purpose."""


class InvalidParameterError(SkrankError, ValueError, TypeError):
    """A parameter is outside its closed set of allowed values, or of the wrong type."""


class InputError(SkrankError, ValueError):
    """The input data cannot be evaluated as given.

    Where :func:`skrank.evaluate` (or a function built on it: the metric functions, the
    scorers) refuses one value of its arrays (a NaN or negative label, one a gain table
    cannot take, an infinite score, a weight below 0, a missing document id), the error says
    which in attributes as well as in its message, so that a caller that knows where the
    rows came from can name the place (``skrank eval`` names the file and the line). Other
    errors leave them None; so do :func:`skrank.dask.evaluate`'s and
    :func:`skrank.spark.evaluate`'s, whose messages name the row by its place in the input.

    Attributes
    ----------
    parameter : str or None
        The parameter whose value is refused (``"y_true"``), or None.
    row : int or None
        The row, from 0, of the first value refused, or None.
    allowed : str or None
        What the parameter must hold, in words (``"finite relevance labels"``), or None.

    Examples
    --------
    >>> import skrank
    >>> try:
    ...     skrank.evaluate([1, float("nan")], [0.5, 0.2], [1, 1])
    ... except skrank.InputError as exc:
    ...     print(exc.parameter, exc.row, exc.allowed)
    y_true 1 finite relevance labels
    """

    def __init__(self, *args: object, parameter: str | None = None, row: int | None = None,
                 allowed: str | None = None) -> None:
        super().__init__(*args)
        # instance attributes: pickling keeps them (BaseException pickles __dict__)
        self.parameter, self.row, self.allowed = parameter, row, allowed


class EmptyQueryError(InputError):
    """A query has no relevant document and the ``empty`` convention is ``"error"``."""


class SkrankWarning(UserWarning):
    """A condition that does not stop the computation but changes how to read it."""
