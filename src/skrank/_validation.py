"""One error format for every parameter check.

Messages follow scikit-learn's: ``The 'k' parameter of ndcg must be a positive int or None.
Got 0 instead.`` so that users can grep them and tests can match them.
"""

from __future__ import annotations

import functools
import numbers
import warnings
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from .exceptions import InvalidParameterError


def _where(caller: str | None) -> str:
    return f" of {caller}" if caller else ""


def param_error(
    name: str, allowed: str, got: Any, caller: str | None = None
) -> InvalidParameterError:
    """Build the standard error for parameter ``name``."""
    return InvalidParameterError(
        f"The {name!r} parameter{_where(caller)} must be {allowed}. Got {got!r} instead."
    )


def check_choice(name: str, value: Any, choices: Iterable[str], caller: str | None = None) -> str:
    """Return ``value`` if it is one of ``choices``, else raise the standard error."""
    choices = tuple(choices)
    if isinstance(value, str) and value in choices:
        return value
    allowed = "one of " + ", ".join(repr(c) for c in choices)
    raise param_error(name, allowed, value, caller)


def check_int(
    name: str,
    value: Any,
    *,
    min_value: int | None = None,
    allow_none: bool = False,
    caller: str | None = None,
) -> int | None:
    """Return ``value`` as an int if it is an integer >= ``min_value`` (or None if allowed)."""
    if value is None and allow_none:
        return None
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if ok and (min_value is None or value >= min_value):
        return int(value)
    allowed = "an int" if min_value is None else f"an int >= {min_value}"
    if allow_none:
        allowed += " or None"
    raise param_error(name, allowed, value, caller)


def check_real(
    name: str,
    value: Any,
    *,
    positive: bool = False,
    caller: str | None = None,
) -> float:
    """Return ``value`` as a finite float (strictly positive if asked)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        f = float(value)
        if f == f and abs(f) != float("inf") and (not positive or f > 0):
            return f
    allowed = "a finite real number" + (" > 0" if positive else "")
    raise param_error(name, allowed, value, caller)


_F = TypeVar("_F", bound=Callable[..., Any])


def renamed_parameters(**renames: str) -> Callable[[_F], _F]:
    """Keep old keyword names of a function working, with a DeprecationWarning.

    ``@renamed_parameters(seed="rng", confidence="confidence_level")``: a call with
    ``seed=...`` warns and passes the value as ``rng=``; giving both names is an error.
    """

    def decorate(func: _F) -> _F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise param_error(old, f"not passed together with {new!r}, its new name",
                                      kwargs[old], func.__name__)
                warnings.warn(
                    f"The {old!r} parameter of {func.__name__} is deprecated and will be "
                    f"removed: use {new!r} (scipy's name; skrank uses it everywhere).",
                    DeprecationWarning,
                    stacklevel=2,
                )
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
