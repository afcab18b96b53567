"""The true tie range (``tie_bounds=True``) where the two ordering rules are not its ends:
AP@k over the relevant found, and DCG/NDCG under a gain table that falls.
"""

from __future__ import annotations

import numpy as np

from ..conventions import Conventions
from ._fast import _kinds_ks
from ._general import _run


def _falling_table(conv: Conventions) -> np.ndarray | None:
    """The gain table of ``conv`` when some label gains less than a smaller one, else None."""
    if not isinstance(conv.gain, tuple):
        return None
    table = np.asarray(conv.gain, dtype=np.float64)
    return table if bool(np.any(np.diff(table) < 0)) else None


def _range_columns(conv: Conventions, specs) -> tuple[list[int], list[int]]:
    """Columns whose tie range is not given by the two ordering rules: AP@k over the
    relevant found, and DCG/NDCG under a falling gain table."""
    found = [j for j, s in enumerate(specs) if s.name == "ap"
             and conv.ap_denominator == "found" and _kinds_ks(conv, [s])[1][0] > 0]
    graded = ([j for j, s in enumerate(specs) if s.name in ("dcg", "ndcg")]
              if _falling_table(conv) is not None else [])
    return found, graded


def _tie_range_needs(conv: Conventions, specs) -> bool:
    found, graded = _range_columns(conv, specs)
    return bool(found or graded)


def _true_tie_range(bounds, conv: Conventions, specs, y_true, y_score, mask, grouping,
                    checked, n_threads):
    """``bounds`` (the raw results of the pessimistic and optimistic rules) with the columns
    of :func:`_range_columns` replaced by the true minimum and maximum over the tie orders.

    AP@k over the relevant found: the general kernel's ``"low"``/``"high"`` rules, which
    choose how many relevant rows of a tie group split by the cutoff fall inside it. DCG and
    NDCG under a gain table that falls: ties ordered by gain, not label (the labels renamed
    so that the table rises, which changes no gain nor the ideal DCG).
    """
    found, graded = _range_columns(conv, specs)
    low, high = ([a.copy() for a in side] for side in bounds)
    labels = y_true.astype(np.float64, copy=False)
    none = np.zeros(0, dtype=np.int64)
    kinds, ks = _kinds_ks(conv, specs)
    if found:
        sel = np.array(found)
        for out, rule in ((low, "low"), (high, "high")):
            raw = _run(labels, y_score, none, mask, grouping, conv, rule, kinds[sel], ks[sel],
                       *checked, n_threads)
            out[0][:, sel] = raw[0]
    if graded:
        table = _falling_table(conv)
        rank = np.argsort(table, kind="stable")  # labels by rising gain
        renamed = np.empty_like(rank)
        renamed[rank] = np.arange(rank.shape[0])
        risen = table[rank]
        if conv.ideal_order == "label":  # the ideal ranking keeps LightGBM's label order
            order = renamed[::-1].astype(np.int64)
        else:
            order = np.argsort(-risen, kind="stable").astype(np.int64)
        relabelled = renamed[labels.astype(np.int64)].astype(np.float64)
        sel = np.array(graded)
        for out, rule in ((low, "pessimistic"), (high, "optimistic")):
            raw = _run(relabelled, y_score, none, mask, grouping, conv, rule, kinds[sel],
                       ks[sel], *checked, n_threads, gain=(risen, order))
            out[0][:, sel] = raw[0]
    return tuple(low), tuple(high)
