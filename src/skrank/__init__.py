"""skrank: honest, convention-explicit and fast ranking evaluation.

The public API lives here; modules whose names start with an underscore are private.
"""

from __future__ import annotations

from .conventions import Conventions
from .exceptions import (
    EmptyQueryError,
    InputError,
    InvalidParameterError,
    SkrankError,
    SkrankWarning,
)
from .metrics._spec import Metric

__version__ = "0.1.0.dev0"

__all__ = [
    "Conventions",
    "EmptyQueryError",
    "InputError",
    "InvalidParameterError",
    "Metric",
    "SkrankError",
    "SkrankWarning",
    "__version__",
]
