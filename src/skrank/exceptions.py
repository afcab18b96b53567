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
    """The input data cannot be evaluated as given."""


class EmptyQueryError(InputError):
    """A query has no relevant document and the ``empty`` convention is ``"error"``."""


class SkrankWarning(UserWarning):
    """A condition that does not stop the computation but changes how to read it."""
