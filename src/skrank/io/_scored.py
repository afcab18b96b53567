"""Scores saved one per line (as LightGBM's and XGBoost's ``predict`` output is), and a
LibSVM / SVMlight file scored by them: a :class:`~skrank.io._table.ScoreTable`."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .._text import clip
from .._validation import BOOL, Described, param_error, public_name, validate_params
from ..exceptions import InputError
from ._common import SOURCE, Source, decode, is_source, source_name, to_array, where
from ._libsvm import LabelsBefore, line_of, read_libsvm, read_plain, stray_byte
from ._table import ScoreTable

__all__ = ["read_scored_libsvm", "read_scores"]


def _text(source: Source, name: str, what: Callable[[str], str]) -> str:
    """The text of a file of numbers, one a line (see :func:`~skrank.io._libsvm.read_plain`:
    compressed, a BOM, CR line ends), refusing ``_`` and non-ASCII characters, which
    Python's ``float`` and ``int`` would read (``1_5`` as 15, Arabic-Indic digits)."""
    data = read_plain(source, name)
    at = stray_byte(data, comments=False)
    if at >= 0:
        lineno, raw = line_of(data, at)
        try:
            token = raw.strip().decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{where(name, lineno)}: the file is not valid UTF-8 text."
                             ) from None
        raise InputError(f"{where(name, lineno)}: {what(token[:60])}.")
    return decode(data, name)


@validate_params({
    "source": SOURCE,  # opened in the body, whose errors name the file and the line
})
def read_scores(source: Source) -> np.ndarray:
    """Read a file of scores, one number per line (as ``predict`` output is saved).

    Parameters
    ----------
    source : str, path-like or file object
        The scores file; gzip, bz2 and xz files are recognised by their content. A UTF-8
        byte order mark at the start is dropped; lines end at LF, CR LF or a lone CR.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    InputError
        On a blank line, a line with more than one field, or a value that is not a number
        (Python's extras included: ``1_5``, non-ASCII digits), is NaN or is infinite (or
        too large for a float64, as ``1e400``); the message names the file and the line.
    InvalidParameterError
        When ``source`` is not a path or a file object.

    Examples
    --------
    >>> import io
    >>> from skrank.io import read_scores
    >>> read_scores(io.StringIO("0.5\\n-1.25\\n3\\n"))
    array([ 0.5 , -1.25,  3.  ])
    """
    name = source_name(source)
    lines = _text(source, name, lambda tok: f"the score {tok!r} is not a number").split("\n")
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
                if not tok:
                    what = "is blank (a scores file has one score per line)"
                elif len(tok.split()) > 1:
                    what = (f"is not one number: {clip(tok)!r} (a scores file has one score "
                            "per line)")
                else:
                    what = f"the score {clip(tok)!r} is not a number"
                raise InputError(f"{where(name, i + 1)}: {what}.") from None
    finite = np.isfinite(values)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        if np.isnan(values[i]):
            raise InputError(f"{where(name, i + 1)}: the score is NaN.")
        raise InputError(f"{where(name, i + 1)}: the score {clip(tokens[i])!r} is not a "
                         "finite number (skrank ranks by finite scores).")
    return values


def _read_groups(source: Source) -> np.ndarray:
    """Query sizes, one a line (LightGBM's ``.query`` files); errors name the line."""
    name = source_name(source)
    rule = "group sizes must be integers >= 1, one per line"
    text = _text(source, name,
                 lambda tok: f"the group size {tok!r} is not an integer; {rule}")
    tokens: list[str] = []
    linenos: list[int] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        fields = line.split()
        tokens.extend(fields)
        linenos.extend([lineno] * len(fields))
    if not tokens:
        raise InputError(f"{name}: no group sizes (the file is empty); {rule}.")
    sizes = to_array(tokens, int, np.int64)
    if isinstance(sizes, int):
        raise InputError(f"{where(name, linenos[sizes])}: the group size "
                         f"{clip(tokens[sizes])!r} is not an integer; {rule}.")
    if (sizes < 1).any():
        i = int(np.flatnonzero(sizes < 1)[0])
        raise InputError(f"{where(name, linenos[i])}: the group size {tokens[i]!r} is "
                         f"less than 1; {rule}.")
    return sizes


@validate_params({
    "data": SOURCE,  # data, scores, group: opened in the body, whose errors name the line
    # (scores is checked there: its messages differ by what is wrong and name a key)
    "group": Described("a path (str or os.PathLike), a file object or None", SOURCE, None),
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
        ids are used. Read by :func:`read_libsvm`.
    scores : source, list of sources, or dict of name to source
        Score file(s), one score per line in the row order of ``data``, read by
        :func:`read_scores`. Systems are named after the file names, or by the dict keys.
    group : str, path-like, file object or None, default=None
        For LibSVM files without ``qid:``: a file of query sizes, one per line, rows of a
        query contiguous (LightGBM's ``.query`` files). Query ``i`` gets id ``i``. Read
        as the other files are: gzip, bz2 or xz, a BOM, CR line ends.
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
    InvalidParameterError
        When ``data``, ``group`` or a scores file is not a path or a file object.

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
    if isinstance(scores, Mapping):
        named = list(scores.items())
        for key, _ in named:
            if not isinstance(key, str):
                raise param_error("scores", "a dict with str keys (system names)", key, caller)
    elif is_source(scores):
        named = [(None, scores)]
    elif isinstance(scores, Sequence) and not isinstance(scores, (bytes, bytearray)) \
            and len(scores) > 0:
        named = [(None, s) for s in scores]
    else:
        raise param_error(
            "scores", "a scores file, a list of them or a dict of name to file", scores, caller
        )
    if not named:
        raise param_error("scores", "at least one scores file", scores, caller)
    for _, src in named:
        if not is_source(src):
            raise param_error("scores", "a scores file (a path or a file object), a list of "
                              "them or a dict of name to file", src, caller)

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

    table: dict[str, np.ndarray] = {}
    for label, (_, src) in zip(labels, named):
        try:
            values = read_scores(src)
            if values.shape[0] != n:
                raise InputError(
                    f"{source_name(src)} has {values.shape[0]} scores but {data_name} has "
                    f"{n} rows; a scores file needs one score per line, in the order of the "
                    "data."
                )
        except InputError as exc:  # the data file (read whole) and the scores files before
            before = LabelsBefore(parsed.y, None, dict(table))
            exc._read_before = before  # type: ignore[attr-defined]
            raise
        table[label] = values
    return ScoreTable(qid=qid, y_true=parsed.y, scores=table, source=data_name)
