"""Query logs: one issued query per line, its id first (for query-frequency segments)."""

from __future__ import annotations

import os

import numpy as np

from .._validation import validate_params
from ..exceptions import InputError

__all__ = ["read_query_log"]


@validate_params({})  # source: opened in the body, whose errors name the file
def read_query_log(source: str | os.PathLike[str]) -> np.ndarray:
    """Read a query log: the first field of each line is the id of a query that was issued.

    Blank lines and lines whose first non-blank character is ``#`` are skipped; anything
    after the first field (a timestamp, the query text) is ignored. Give the result to
    :func:`count_queries`.

    Parameters
    ----------
    source : str or path-like
        The log file (UTF-8 text).

    Returns
    -------
    ndarray of str
        One query id per issued query, in file order.

    Raises
    ------
    InputError
        The file does not exist, is not UTF-8 or holds no query.
    """
    name = os.fspath(source)
    try:
        with open(source, encoding="utf-8") as fh:
            ids = [line.split(None, 1)[0] for line in fh
                   if line.strip() and not line.lstrip().startswith("#")]
    except FileNotFoundError:
        raise InputError(f"{name}: no such file.") from None
    except UnicodeDecodeError:
        raise InputError(f"{name}: the query log is not UTF-8 text.") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, not a file.") from None
    if not ids:
        raise InputError(f"{name}: the query log holds no query.")
    return np.array(ids, dtype=str)
