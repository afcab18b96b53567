"""The lazy module attributes of :mod:`skrank.lightgbm` and :mod:`skrank.xgboost`.

Kept apart from :mod:`._common` so that importing a facade imports nothing but this.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_attributes(
    namespace: dict[str, Any], lazy: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module's ``__getattr__`` and ``__dir__`` for names imported on first use.

    ``namespace`` is the module's ``globals()``; ``lazy`` maps each public name to the
    private module that defines it (and imports the library). It is read at each lookup, so
    names added to it later are found too. A name, once imported, is kept in ``namespace``.
    """

    def __getattr__(name: str) -> Any:
        module = lazy.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(lazy))

    return __getattr__, __dir__
