"""Helpers shared by the readers: what a source is, its name, numbers, error messages."""

from __future__ import annotations

import os
from typing import IO, Union

import numpy as np

from .._validation import Satisfies
from ..exceptions import InputError

#: A UTF-8 byte order mark: dropped at the start of a text file by every reader.
BOM = b"\xef\xbb\xbf"

#: What the readers accept as a source: a path or an open file object (text or binary).
Source = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]


def is_source(value: object) -> bool:
    """Whether ``value`` is a path or an object with a ``read`` method."""
    return isinstance(value, (str, os.PathLike)) or callable(getattr(value, "read", None))


#: The ``validate_params`` constraint of a reader's ``source`` (its content is checked
#: where it is read, with the file and the line).
SOURCE = Satisfies(is_source, "a path (str or os.PathLike) or a file object")


def source_name(source: Source) -> str:
    """Return the name to print in error messages for ``source``."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    name = getattr(source, "name", None)
    if isinstance(name, str):
        return name
    return "<stream>"


def decode(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; an error names the line of the first bad byte (LF, CR LF and
    a lone CR end lines)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        from ._runreader import count_line_ends

        line = count_line_ends(data, 0, exc.start) + 1
        raise InputError(f"{name}, line {line}: the file is not valid UTF-8 text.") from None


def first_bad(tokens: list[str], convert: type, dtype: type) -> int:
    """Return the position of the first token that ``convert`` or ``dtype`` rejects."""
    for i, tok in enumerate(tokens):
        try:
            np.array(convert(tok), dtype=dtype)
        except (ValueError, OverflowError):
            return i
    raise AssertionError("unreachable: every token converts")  # pragma: no cover


def to_array(tokens: list[str], convert: type, dtype: type) -> np.ndarray | int:
    """Convert ``tokens`` in bulk; on failure return the position of the first bad token."""
    try:
        return np.array(list(map(convert, tokens)), dtype=dtype)
    except (ValueError, OverflowError):
        return first_bad(tokens, convert, dtype)


def where(name: str, lineno: int) -> str:
    """Return the ``file, line N`` prefix of an error message."""
    return f"{name}, line {lineno}"

