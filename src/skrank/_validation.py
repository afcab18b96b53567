"""One error format for every parameter check, and the constraints declared on public functions.

Messages follow scikit-learn's: ``The 'k' parameter of ndcg must be a positive int or None.
Got 0 instead.`` so that users can grep them and tests can match them.

A public function declares what each parameter accepts with :func:`validate_params`; the
decorator checks the values a caller gives before the body runs, names the function by its
``__qualname__``, and makes that name the one every message of the call uses, nested calls of
other decorated functions included (:func:`public_name`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import math
import numbers
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

import numpy as np

from .exceptions import InputError, InvalidParameterError


def _where(caller: str | None) -> str:
    return f" of {caller}" if caller else ""


def param_error(
    name: str, allowed: str, got: Any, caller: str | None = None
) -> InvalidParameterError:
    """Build the standard error for parameter ``name``."""
    return InvalidParameterError(
        f"The {name!r} parameter{_where(caller)} must be {allowed}. Got {got!r} instead."
    )


def input_error(name: str, allowed: str, got: str, caller: str | None = None) -> InputError:
    """The standard message as an :class:`InputError`, for data: ``got`` is shown as given
    (a description such as ``"an array of shape (3, 2)"``, not a repr)."""
    return InputError(f"The {name!r} parameter{_where(caller)} must be {allowed}. "
                      f"Got {got} instead.")


def as_column(name: str, value: Any, caller: str | None = None, *, kinds: str | None = "biuf",
              what: str = "numeric") -> np.ndarray:
    """``value`` as a 1-D array (a 2-D array of one column is flattened, as scikit-learn's
    ``column_or_1d``); with ``kinds``, its dtype kind must be one of them (else the message
    says it must be ``what``)."""
    arr = np.asarray(value)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise input_error(name, "a 1-D array", f"an array of shape {arr.shape}", caller)
    if kinds is not None and arr.dtype.kind not in kinds:
        raise input_error(name, what, f"an array of dtype {arr.dtype}", caller)
    return arr


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


def check_rng(value: Any, caller: str | None = None, name: str = "rng") -> Any:
    """Return ``value`` if it is None, an int >= 0 or a numpy Generator (the ``rng`` parameter).

    :func:`as_generator` turns the value into the Generator to draw from.
    """
    if SEED.accepts(value):
        return value
    raise param_error(name, SEED.text, value, caller)


def as_generator(value: Any, caller: str | None = None, name: str = "rng") -> np.random.Generator:
    """A numpy Generator from a checked ``rng`` value (a Generator is returned as it is)."""
    value = check_rng(value, caller, name)
    return value if isinstance(value, np.random.Generator) else np.random.default_rng(value)


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


# -- constraints declared on public functions ----------------------------------------------

# the public function whose call is running in this context (thread or task): the name every
# error message of the call carries; None outside any decorated function
_PUBLIC_NAME: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "skrank_public_name", default=None
)


def public_name(default: str | None = None) -> str | None:
    """The name the running call's messages carry: the outermost decorated function's.

    ``default`` when no function decorated with :func:`validate_params` is running (a private
    helper called directly).
    """
    name = _PUBLIC_NAME.get()
    return default if name is None else name


@contextlib.contextmanager
def relabel(name: str) -> Iterator[None]:
    """Within the block, messages name ``name`` (a scorer, a training callback, a CLI step).

    For code that calls a public function on a user's behalf and should be named in its
    errors instead: ``with relabel("the scorer ndcg@10"): evaluate(...)``. The name holds in
    this context only (``contextvars``), so threads and tasks do not see each other's.
    """
    token = _PUBLIC_NAME.set(name)
    try:
        yield
    finally:
        _PUBLIC_NAME.reset(token)


class Constraint:
    """What one parameter accepts: ``accepts(value)`` and ``text``, the words of the message."""

    text = ""

    def accepts(self, value: Any) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"


class Options(Constraint):
    """A closed set of strings: ``Options(("exp", "linear"))`` is "one of 'exp', 'linear'"."""

    def __init__(self, choices: Iterable[str], text: str | None = None) -> None:
        self.choices = tuple(choices)
        self.text = text or "one of " + ", ".join(repr(c) for c in self.choices)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.choices


class Interval(Constraint):
    """Numbers of one kind in an interval; bools are never numbers here.

    ``kind`` is ``int`` (any integral number) or ``float`` (any finite real, integers
    included). ``closed`` says which of the given bounds belong to the interval: ``"both"``,
    ``"left"``, ``"right"`` or ``"neither"``. A missing bound is unbounded.
    """

    def __init__(self, kind: type, low: float | None = None, high: float | None = None, *,
                 closed: str = "both", text: str | None = None) -> None:
        if kind not in (int, float):
            raise ValueError(f"kind must be int or float, not {kind!r}")
        self.kind, self.low, self.high, self.closed = kind, low, high, closed
        self.text = text or self._text()

    def _text(self) -> str:
        what = "an int" if self.kind is int else "a finite real number"
        left = self.closed in ("both", "left")
        right = self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            return (f"{what} in {'[' if left else '('}{self.low:g}, {self.high:g}"
                    f"{']' if right else ')'}")
        if self.low is not None:
            return f"{what} {'>=' if left else '>'} {self.low:g}"
        if self.high is not None:
            return f"{what} {'<=' if right else '<'} {self.high:g}"
        return what

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if self.kind is int:
            if not isinstance(value, numbers.Integral):
                return False
        elif not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed in ("left", "neither")):
                return False
        return True


class InstanceOf(Constraint):
    """Instances of ``types`` (``InstanceOf(bool, "a bool")``)."""

    def __init__(self, types: type | tuple[type, ...], text: str) -> None:
        self.types, self.text = types, text

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.types)


class Satisfies(Constraint):
    """Values for which ``test(value)`` is true; for what the other constraints cannot say."""

    def __init__(self, test: Callable[[Any], bool], text: str) -> None:
        self.test, self.text = test, text

    def accepts(self, value: Any) -> bool:
        return bool(self.test(value))


class _NoneConstraint(Constraint):
    text = "None"

    def accepts(self, value: Any) -> bool:
        return value is None


class _Callables(Constraint):
    text = "a callable"

    def accepts(self, value: Any) -> bool:
        return callable(value)


SEED = Satisfies(
    lambda v: v is None or isinstance(v, np.random.Generator)
    or (isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0),
    "None, an int >= 0 or a numpy.random.Generator",
)
"""The ``rng`` parameter: None, a non-negative int seed or a numpy Generator."""

BOOL = InstanceOf((bool, np.bool_), "a bool")
"""True or False (numpy's bool included)."""


class Described(Constraint):
    """Several constraints (any one suffices) with one text for the message.

    ``Described("a positive int or None", Interval(int, 1), None)``: where the joined texts
    of the parts ("an int >= 1 or None") are not the words the message has always used.
    """

    def __init__(self, text: str, *parts: Any) -> None:
        self.text, self.parts = text, tuple(_constraint(p) for p in parts)

    def accepts(self, value: Any) -> bool:
        return any(p.accepts(value) for p in self.parts)


def _constraint(spec: Any) -> Constraint:
    if isinstance(spec, Constraint):
        return spec
    if spec is None:
        return _NoneConstraint()
    if spec is callable:
        return _Callables()
    raise TypeError(f"not a constraint: {spec!r}")


def _rule(spec: Any) -> Constraint:
    """A parameter's declared constraints as one: a constraint, None, ``callable`` or a list
    of these (any one suffices; the message joins their texts, the last with "or")."""
    if not isinstance(spec, (list, tuple)):
        return _constraint(spec)
    parts = [_constraint(p) for p in spec]
    if len(parts) == 1:
        return parts[0]
    texts = [p.text for p in parts]
    return Described(", ".join(texts[:-1]) + " or " + texts[-1], *parts)


def validate_params(constraints: Mapping[str, Any]) -> Callable[[_F], _F]:
    """Declare what each parameter of a public function accepts; check it at every call.

    Parameters
    ----------
    constraints : mapping of str to constraint or list of constraints
        For each parameter (by name, in the order the checks run): an :class:`Options`,
        :class:`Interval`, :class:`InstanceOf`, :class:`Satisfies` or :class:`Described`,
        ``None`` (None is accepted), ``callable`` (any callable), or a list of these of which
        any one suffices. Parameters left out are checked by the body (data arrays, whose
        errors name rows) or by the value they build (``Conventions``).

    Returns
    -------
    callable
        The decorator. The wrapped function checks the values given explicitly (defaults are
        valid by construction; the meta-test proves it), then runs with :func:`public_name`
        set to its ``__qualname__``, unless an outer decorated function (or
        :func:`relabel`) already named the call: a nested call's messages name the function
        the user called. The constraints are kept as ``wrapper.__skrank_params__``.

    Examples
    --------
    >>> @validate_params({"k": [Interval(int, 1), None]})
    ... def top(k=None):
    ...     return k
    >>> try:
    ...     top(k=0)
    ... except ValueError as exc:
    ...     print(exc)
    The 'k' parameter of top must be an int >= 1 or None. Got 0 instead.
    """
    rules = {name: _rule(spec) for name, spec in constraints.items()}

    def decorate(func: _F) -> _F:
        params = inspect.signature(func).parameters
        unknown = set(rules) - set(params)
        if unknown:
            raise TypeError(f"{func.__qualname__} has no parameters {sorted(unknown)}")
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        position = {n: i for i, (n, p) in enumerate(params.items()) if p.kind in kinds}
        checks = tuple((name, position.get(name), rule) for name, rule in rules.items())
        qualname = func.__qualname__

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            outer = _PUBLIC_NAME.get()
            label = qualname if outer is None else outer
            for name, pos, rule in checks:
                if name in kwargs:
                    value = kwargs[name]
                elif pos is not None and pos < len(args):
                    value = args[pos]
                else:
                    continue  # the default
                if not rule.accepts(value):
                    raise param_error(name, rule.text, value, label)
            if outer is not None:
                return func(*args, **kwargs)
            token = _PUBLIC_NAME.set(label)
            try:
                return func(*args, **kwargs)
            finally:
                _PUBLIC_NAME.reset(token)

        wrapper.__skrank_params__ = rules  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
