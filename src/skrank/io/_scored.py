"""Scores saved one per line (as LightGBM's and XGBoost's ``predict`` output is), and a
LibSVM / SVMlight file scored by them: a :class:`~skrank.io._table.ScoreTable`."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from .._validation import BOOL, param_error, public_name, validate_params
from ..exceptions import InputError
from ._common import Source, read_text, source_name, where
from ._libsvm import read_libsvm
from ._table import ScoreTable

__all__ = ["read_scored_libsvm", "read_scores"]


@validate_params({})  # source: opened in the body, whose errors name the file and the line
def read_scores(source: Source) -> np.ndarray:
    """Read a file of scores, one number per line (as ``predict`` output is saved).

    Parameters
    ----------
    source : str, path-like or file object
        The scores file; gzip-compressed files are recognised by their content.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    InputError
        On a blank line, a line with more than one field, or a value that is not a number or
        is NaN; the message names the file and the line.

    Examples
    --------
    >>> import io
    >>> from skrank.io import read_scores
    >>> read_scores(io.StringIO("0.5\\n-1.25\\n3\\n"))
    array([ 0.5 , -1.25,  3.  ])
    """
    name = source_name(source)
    lines = read_text(source).split("\n")
    if lines and lines[-1].strip() == "":
        lines.pop()  # the newline that ends the last line
    if not lines:
        raise InputError(f"{name}: no scores (the file is empty).")
    tokens = [line.strip() for line in lines]
    try:
        values = np.array(list(map(float, tokens)), dtype=np.float64)
    except ValueError:
        for i, tok in enumerate(tokens):  # pragma: no branch - one token is bad
            try:
                float(tok)
            except ValueError:
                what = "is blank" if not tok else f"is not one number: {tok[:60]!r}"
                raise InputError(
                    f"{where(name, i + 1)}: {what} (a scores file has one score per line)."
                ) from None
    if np.isnan(values).any():
        i = int(np.flatnonzero(np.isnan(values))[0])
        raise InputError(f"{where(name, i + 1)}: the score is NaN.")
    return values


def _read_groups(source: Source) -> np.ndarray:
    name = source_name(source)
    tokens = read_text(source).split()
    try:
        sizes = np.array(list(map(int, tokens)), dtype=np.int64)
    except ValueError:
        raise InputError(f"{name}: group sizes must be integers, one per line.") from None
    if sizes.size == 0 or (sizes < 1).any():
        raise InputError(f"{name}: group sizes must be integers >= 1, one per line.")
    return sizes


@validate_params({
    # data, scores, group: opened in the body, whose errors name the file and the line
    # (scores is checked there too: its messages differ by what is wrong and name a key)
    "zero_based": BOOL,
})
def read_scored_libsvm(
    data: Source,
    scores: Source | Sequence[Source] | Mapping[str, Source],
    *,
    group: Source | None = None,
    zero_based: bool = False,
) -> ScoreTable:
    """Read a LibSVM / SVMlight file with query ids and the scores of one or more systems.

    Parameters
    ----------
    data : str, path-like or file object
        LibSVM file with ``qid:`` fields (``label qid:ID idx:val ...``); only labels and query
        ids are used.
    scores : source, list of sources, or dict of name to source
        Score file(s), one score per line in the row order of ``data``. Systems are named
        after the file names, or by the dict keys.
    group : str, path-like, file object or None, default=None
        For LibSVM files without ``qid:``: a file of query sizes, one per line, rows of a
        query contiguous (LightGBM's ``.query`` files). Query ``i`` gets id ``i``.
    zero_based : bool, default=False
        Passed to :func:`read_libsvm`.

    Returns
    -------
    ScoreTable
        With int64 ``qid``, float64 ``y_true`` and one score array per system.

    Raises
    ------
    InputError
        A scores file with a different number of lines than ``data`` has rows, a LibSVM file
        without query ids and no ``group``, or both, group sizes that do not add up, and
        every error of :func:`read_libsvm` and :func:`read_scores`.

    Examples
    --------
    >>> import io
    >>> from skrank.io import read_scored_libsvm
    >>> data = io.StringIO("2 qid:1 1:0.5\\n0 qid:1 1:0.1\\n1 qid:2 1:0.7\\n")
    >>> table = read_scored_libsvm(data, {"model": io.StringIO("0.8\\n0.3\\n0.5\\n")})
    >>> table.qid, table.y_true, table.scores["model"]
    (array([1, 1, 2]), array([2., 0., 1.]), array([0.8, 0.3, 0.5]))
    """
    caller = public_name()
    data_name = source_name(data)
    parsed = read_libsvm(data, zero_based=zero_based)
    n = parsed.y.shape[0]
    if parsed.qid is not None and group is not None:
        raise InputError(
            f"{data_name} has 'qid:' fields and a group file was given too; use one of them."
        )
    if parsed.qid is not None:
        qid = parsed.qid
    elif group is not None:
        sizes = _read_groups(group)
        if int(sizes.sum()) != n:
            raise InputError(
                f"{source_name(group)}: group sizes add up to {int(sizes.sum())} rows but "
                f"{data_name} has {n}."
            )
        qid = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    else:
        raise InputError(
            f"{data_name} has no 'qid:' fields; give group= (a file of query sizes, one per "
            f"line, like LightGBM's .query files)."
        )

    if isinstance(scores, Mapping):
        named = list(scores.items())
        for key, _ in named:
            if not isinstance(key, str):
                raise param_error("scores", "a dict with str keys (system names)", key, caller)
    elif isinstance(scores, (str, os.PathLike)) or hasattr(scores, "read"):
        named = [(None, scores)]
    elif isinstance(scores, Sequence) and len(scores) > 0:
        named = [(None, s) for s in scores]
    else:
        raise param_error(
            "scores", "a scores file, a list of them or a dict of name to file", scores, caller
        )
    if not named:
        raise param_error("scores", "at least one scores file", scores, caller)

    labels: list[str] = []
    for i, (key, src) in enumerate(named):
        label = key if key is not None else os.path.basename(source_name(src))
        if label in ("", "<stream>"):
            label = f"score_{i + 1}"
        if label in labels:
            raise InputError(
                f"Two score files are both named {label!r}; pass a dict to name the systems."
            )
        labels.append(label)
    table: dict[str, np.ndarray] = {}
    for label, (_, src) in zip(labels, named):
        values = read_scores(src)
        if values.shape[0] != n:
            raise InputError(
                f"{source_name(src)} has {values.shape[0]} scores but {data_name} has {n} "
                f"rows; a scores file needs one score per line, in the order of the data."
            )
        table[label] = values
    return ScoreTable(qid=qid, y_true=parsed.y, scores=table, source=data_name)
