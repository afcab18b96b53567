"""Readers of expeval's files: qrels with group labels, and runs with several sampled
rankings per query."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InputError

Source = Any  # a path, or a file object opened in text mode


def _read(source: Source) -> tuple[str, str]:
    if hasattr(source, "read"):
        return source.read(), getattr(source, "name", "<file>")
    path = os.fspath(source)
    with open(path, encoding="utf-8") as fh:
        return fh.read(), path


def _bad(name: str, lineno: int, what: str) -> InputError:
    return InputError(f"{name}, line {lineno}: {what}")


@dataclass(frozen=True)
class ExpevalQrels:
    """Judgments read from expeval's qrels file, as flat arrays.

    Attributes
    ----------
    qid, doc : ndarray of str
        Query and document of each judgment.
    y_true : ndarray of int64
        The grade.
    groups : scipy.sparse.csr_matrix of bool, shape (n_judgments, n_groups)
        Membership of each document in the groups of :attr:`group_labels` (a line with three
        fields puts its document in group ``"-1"``, as expeval does).
    group_labels : ndarray of str
    """

    qid: np.ndarray
    doc: np.ndarray
    y_true: np.ndarray
    groups: Any
    group_labels: np.ndarray


@dataclass(frozen=True)
class ExpevalRun:
    """Sampled rankings read from expeval's run file, as flat arrays.

    Attributes
    ----------
    qid, sample, doc : ndarray of str
        Query, sample (ranking) id and document of each row.
    rank : ndarray of int64
        1-based rank within the sample.
    score : ndarray of float64
        The score column, which expeval ignores.
    tag : str
        The run tag of the last line (expeval keeps that one).
    """

    qid: np.ndarray
    sample: np.ndarray
    doc: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    tag: str


def read_expeval_qrels(source: Source) -> ExpevalQrels:
    """Read an expeval qrels file: ``qid groups docno rel`` or ``qid docno rel`` per line.

    ``groups`` is a ``|``-separated list of group ids (expeval's code splits on ``|``; its
    help text says commas). Blank lines are skipped.

    Parameters
    ----------
    source : str, path or text file object

    Returns
    -------
    ExpevalQrels

    Examples
    --------
    >>> import io
    >>> from skrank.fairness import read_expeval_qrels
    >>> q = read_expeval_qrels(io.StringIO("q1 0|1 d1 2\\nq1 1 d2 0\\n"))
    >>> q.doc.tolist(), q.y_true.tolist(), q.group_labels.tolist()
    (['d1', 'd2'], [2, 0], ['0', '1'])
    >>> q.groups.toarray().astype(int).tolist()
    [[1, 1], [0, 1]]
    """
    from scipy import sparse

    text, name = _read(source)
    qid, doc, rel, rows, gids = [], [], [], [], []
    for lineno, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) == 3:
            q, g, d, r = fields[0], "-1", fields[1], fields[2]
        elif len(fields) == 4:
            q, g, d, r = fields
        else:
            raise _bad(name, lineno, f"expected 3 or 4 fields (qid [groups] docno rel), got "
                       f"{len(fields)}: {line!r}")
        try:
            grade = int(r)
        except ValueError:
            raise _bad(name, lineno, f"the grade must be an integer, got {r!r}") from None
        labels = [x for x in g.split("|") if x]
        if not labels:
            raise _bad(name, lineno, f"no group id in {g!r}")
        row = len(qid)
        qid.append(q)
        doc.append(d)
        rel.append(grade)
        rows.extend([row] * len(labels))
        gids.extend(labels)
    if not qid:
        raise InputError(f"{name}: no judgment in the file")
    group_labels, gcode = np.unique(np.array(gids), return_inverse=True)
    member = sparse.csr_matrix(
        (np.ones(len(rows), dtype=bool), (np.array(rows), gcode.ravel())),
        shape=(len(qid), group_labels.shape[0]), dtype=bool)
    return ExpevalQrels(np.array(qid), np.array(doc), np.array(rel, dtype=np.int64), member,
                        group_labels)


def read_expeval_run(source: Source) -> ExpevalRun:
    """Read an expeval run file: ``qid sample docno rank score [tag]`` per line.

    Several rankings of one query are told apart by the sample column (``Q0`` in a
    trec_eval run). Ranks are 1-based; the score is read but, as in expeval, not used.

    Parameters
    ----------
    source : str, path or text file object

    Returns
    -------
    ExpevalRun

    Examples
    --------
    >>> import io
    >>> from skrank.fairness import read_expeval_run
    >>> r = read_expeval_run(io.StringIO("q1 S0 d1 1 0.9 tag\\nq1 S0 d2 2 0.5 tag\\n"))
    >>> r.sample.tolist(), r.rank.tolist(), r.tag
    (['S0', 'S0'], [1, 2], 'tag')
    """
    text, name = _read(source)
    lines = [line for line in text.splitlines() if line.strip()]
    tokens = [line.split() for line in lines]
    bad = next((i for i, t in enumerate(tokens) if len(t) not in (5, 6)), None)
    if bad is not None:
        raise _bad(name, text.splitlines().index(lines[bad]) + 1,
                   f"expected 5 or 6 fields (qid sample docno rank score [tag]), got "
                   f"{len(tokens[bad])}: {lines[bad]!r}")
    if not tokens:
        raise InputError(f"{name}: no ranking in the file")
    cols = list(zip(*(t[:5] for t in tokens)))
    try:
        rank = np.array(cols[3], dtype=np.int64)
    except ValueError:
        i = next(i for i, v in enumerate(cols[3]) if not v.lstrip("-").isdigit())
        raise _bad(name, text.splitlines().index(lines[i]) + 1,
                   f"the rank must be an integer, got {cols[3][i]!r}") from None
    try:
        score = np.array(cols[4], dtype=np.float64)
    except ValueError:
        raise InputError(f"{name}: a score is not a number") from None
    tag = tokens[-1][5] if len(tokens[-1]) == 6 else ""
    return ExpevalRun(np.array(cols[0]), np.array(cols[1]), np.array(cols[2]), rank, score,
                      tag)
