"""The general kernel (``evaluate_grouped``) over every query, in threads: any conventions,
tie rule, document ids, ``retrieved`` mask and label; the kernel codes and the ideal order
that both kernels take.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..conventions import Conventions
from ._kernels import ranking as K
from ._threads import run_chunks

_KIND = K.KINDS
#: the kernel codes of the metrics that use the gain (see ``_inputs.GAIN_METRICS``)
_GAIN_KINDS = np.array([_KIND["ndcg"], _KIND["dcg"]], dtype=np.int64)
_TIE = K.TIE_RULES
_AP_DEN = K.AP_DENOMINATORS


def _ideal_order(table: np.ndarray, conv: Conventions) -> np.ndarray:
    """The labels in the order of the ideal ranking: the kernels fill it from label counts.

    By decreasing gain, or by decreasing label (``ideal_order="label"``, LightGBM's).
    """
    if conv.ideal_order == "label":
        return np.arange(table.shape[0] - 1, -1, -1, dtype=np.int64)
    return np.argsort(-table, kind="stable").astype(np.int64)


def _run(y_true, y_score, tiekey, mask, grouping, conv, tie_rule, kinds, ks, max_lab, int_labels,
         n_threads, gain=None):
    """The general kernel over every query; ``gain``: a (table, ideal order) to use instead
    of those of ``conv``."""
    # metrics that do not use the gain take labels the gain could not (a label beyond a
    # gain table, or above 1000 under gain="exp"): their pass computes linear gains, unused
    gain_name = conv.gain if np.isin(kinds, _GAIN_KINDS).any() else "linear"
    if gain is not None:
        gain_mode = K.GAIN_MODES["table"]
        table, order = gain
    elif isinstance(gain_name, tuple):
        gain_mode, table = K.GAIN_MODES["table"], np.asarray(gain_name, dtype=np.float64)
    elif int_labels:
        labels = np.arange(int_labels, dtype=np.float64)
        gain_mode = K.GAIN_MODES["table"]
        table = labels if gain_name == "linear" else 2.0**labels - 1.0
    else:
        gain_mode = K.GAIN_MODES[gain_name]
        table = np.zeros(1, dtype=np.float64)
    if gain is None:
        order = _ideal_order(table, conv)

    def run(offsets):
        return K.evaluate_grouped(
            grouping.kernel_rows, offsets, grouping.contiguous, y_true, y_score, tiekey, mask,
            conv.idcg == "pool", _TIE[tie_rule], gain_mode, table, order,
            float(conv.rel_min), float(2.0 ** -max_lab), _AP_DEN[conv.ap_denominator],
            conv.p_divisor == "min_k_n", kinds, ks, max(grouping.max_size, 1),
            conv.arithmetic == "xgboost",
        )

    bounds = _chunk_bounds(grouping.offsets, n_threads)
    if len(bounds) == 2:
        return run(grouping.offsets)
    # the kernel releases the GIL: query chunks of about equal rows run in parallel threads;
    # every query's value is computed alone, so the result does not depend on n_jobs
    parts = run_chunks(lambda ab: run(grouping.offsets[ab[0]:ab[1] + 1]),
                       list(itertools.pairwise(bounds)))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def _chunk_bounds(offsets: np.ndarray, n_threads: int) -> list[int]:
    """Query indices that cut the queries into ``n_threads`` chunks of about equal rows."""
    n_q = offsets.shape[0] - 1
    n_threads = min(n_threads, n_q)
    if n_threads <= 1:
        return [0, n_q]
    targets = offsets[-1] * np.arange(1, n_threads) / n_threads
    cuts = np.searchsorted(offsets, targets).tolist()
    return sorted({0, *cuts, n_q})
