"""Module attributes imported on first use (PEP 562): the facades of :mod:`skrank`,
:mod:`skrank.io`, :mod:`skrank.stats`, :mod:`skrank.segments`, :mod:`skrank.reports`,
:mod:`skrank.cli`, :mod:`skrank.lightgbm` and :mod:`skrank.xgboost`.

A leaf of the package (it imports nothing of skrank), so that any facade can use it and
importing a facade imports nothing but this until a name is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_attributes(
    namespace: dict[str, Any], lazy: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module's ``__getattr__`` and ``__dir__`` for names imported on first use.

    Parameters
    ----------
    namespace : dict
        The module's ``globals()``.
    lazy : dict of str to str
        Each public name -> the module that defines it (and imports what it needs). A name
        that maps to the submodule of the same name (``"scorers": "skrank.scorers"``) stands
        for that submodule itself. It is read at each lookup, so names added to it later
        are found too.

    Returns
    -------
    __getattr__, __dir__ : callable
        To be bound to those names in the module. A name, once imported, is kept in
        ``namespace`` (later lookups do not come back here); an unknown name raises
        :class:`AttributeError` with Python's own message.
    """
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = lazy.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        imported = importlib.import_module(module)
        value = imported if module == f"{package}.{name}" else getattr(imported, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(lazy))

    return __getattr__, __dir__
