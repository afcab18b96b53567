"""The one-pass kernel (``evaluate_contiguous``): which metrics it takes, its setup, and
its runs over contiguous queries, with the first pass that groups and evaluates slices of
rows in threads at once.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..conventions import Conventions
from ._general import _AP_DEN, _KIND, _TIE, _chunk_bounds, _ideal_order
from ._groups import Grouping, as_qid_array, next_run_start, run_starts
from ._kernels import ranking as K
from ._threads import run_chunks, run_shared

# the one-pass kernel's gain table for exponential and linear gain: labels 0..62
_FAST_LABELS = np.arange(63, dtype=np.float64)
_FAST_GAINS = {"exp": 2.0**_FAST_LABELS - 1.0, "linear": _FAST_LABELS}
_FAST_TIES = ("pessimistic", "optimistic", "input", "average")


def _kinds_ks(conv: Conventions, specs) -> tuple[np.ndarray, np.ndarray]:
    """Kernel codes and cutoffs (0: the whole list) of metrics sharing ``conv``."""
    ks = []
    for s in specs:
        k = s.k if s.k is not None else conv.default_k
        ks.append(0 if k is None else k)
    kinds = np.array([_KIND[s.name] for s in specs], dtype=np.int64)
    return kinds, np.array(ks, dtype=np.int64)


def _fast_eligible(conv: Conventions, specs, max_label: int | None) -> bool:
    """Whether the one-pass kernel computes these metrics (``evaluate_contiguous``)."""
    if conv.ties not in _FAST_TIES:
        return False
    kinds, ks = _kinds_ks(conv, specs)
    for kind, k in zip(kinds.tolist(), ks.tolist()):
        if kind == _KIND["err"] and max_label is None:
            return False  # ERR's scale depends on the largest label of the whole input
        if kind != _KIND["rr"] and not 1 <= k <= K.SMALL_K:
            return False
    return True


def _fast_setup(mconv: Conventions, conv: Conventions, specs, group_specs):
    """The one-pass kernel's gain table, gain order, err scale, kinds and cutoffs."""
    if isinstance(mconv.gain, tuple):
        table = np.asarray(mconv.gain, dtype=np.float64)
    else:
        table = _FAST_GAINS[mconv.gain]
    if any(s.name == "err" for s in specs) and conv.max_label is not None:
        table = table[: conv.max_label + 1]  # larger labels: the full check raises
    order = _ideal_order(table, mconv)
    err_scale = float(2.0 ** -conv.max_label) if conv.max_label is not None else 1.0
    return (table, order, err_scale, *_kinds_ks(mconv, group_specs))


_FAILED = "failed"


def _shrinking_cuts(n: int, n_threads: int) -> list[int]:
    """Row positions cutting ``n`` rows into ``2 n_threads`` chunks: ``n_threads`` of 40% of
    the rows each (``0.8 / n_threads``), then ``n_threads`` of 10% (``0.2 / n_threads``).

    Threads take the chunks in turn: evenly loaded threads take one large and one small
    chunk each, while a thread slowed by its core (two-thread timings on shared machines
    vary by tens of percent) leaves its small chunk to the others.
    """
    sizes = [0.8 / n_threads] * n_threads + [0.2 / n_threads] * (n_threads - 1)
    return [int(n * f) for f in itertools.accumulate(sizes)]


def _split_first_pass(y_true, y_score, qid, n, fast_groups, conv, specs, n_threads, caller):
    """Group and evaluate (first metric group, own tie rule) slice by slice, in threads.

    The rows are cut at query boundaries near :func:`_shrinking_cuts`; each thread takes the
    next slice, finds its runs of ids and evaluates them, so grouping is no serial pass.
    Returns ``(raw, grouping)``; ``(None, None)`` when it does not apply (ids that are not
    integers, or that do not increase from run to run: a query may then come back, and the
    caller groups all rows first); ``(_FAILED, None)`` when a row fails the kernel's check.
    """
    arr = as_qid_array(qid, n, caller)
    if arr.dtype.kind not in "iu":
        return None, None
    arr = np.ascontiguousarray(arr)
    cuts = [0]
    for c in _shrinking_cuts(n, n_threads):
        c = next_run_start(arr, c)
        if cuts[-1] < c < n:
            cuts.append(c)
    cuts.append(n)
    mconv, group_specs = next(iter(fast_groups.items()))
    table, order, err_scale, kinds, ks = _fast_setup(mconv, conv, specs, group_specs)

    def work(ab):
        a, b = ab
        starts, ids, increasing = run_starts(arr[a:b])
        if not increasing:
            return None
        offsets = starts + a
        out = _fast_outputs(offsets.shape[0] - 1, kinds.shape[0])
        bad = _kernel(y_true, y_score, offsets, mconv, mconv.ties, table, order, err_scale,
                      kinds, ks, *out)
        return bad, offsets, ids, out

    chunks = list(itertools.pairwise(cuts))
    parts = run_shared(work, chunks, n_threads)
    if any(p is None for p in parts) or any(arr[b - 1] >= arr[b] for _, b in chunks[:-1]):
        return None, None
    if any(p[0] >= 0 for p in parts):
        return _FAILED, None
    # each slice's offsets end where the next one's begin
    offsets = np.concatenate([*(p[1][:-1] for p in parts[:-1]), parts[-1][1]])
    qids = np.concatenate([p[2] for p in parts])
    raw = tuple(np.concatenate([p[3][i] for p in parts]) for i in range(3))
    return raw, Grouping(qids, offsets, None)


def _run_all_fast(y_true, y_score, grouping, fast_groups, conv, specs, tie_bounds, n_threads,
                  first=None):
    """Every metric group through the one-pass kernel; None if a row fails its check.

    ``first``: the first group's result under its own tie rule, when already computed.
    """
    out = {}
    for mconv, group_specs in fast_groups.items():
        rules = [mconv.ties] + (["pessimistic", "optimistic"] if tie_bounds else [])
        raws = []
        setup = None
        for rule in rules:
            if first is not None:
                raw, first = first, None
            else:
                if setup is None:
                    setup = _fast_setup(mconv, conv, specs, group_specs)
                raw = _run_fast(y_true, y_score, grouping.offsets, mconv, rule, setup,
                                n_threads)
            if raw is None:
                return None
            raws.append(raw)
        out[mconv] = (raws[0], tuple(raws[1:]) if tie_bounds else None)
    return out


def _fast_outputs(n_q: int, m: int):
    """Per-query values, empty flags and tie flags for the one-pass kernel to fill."""
    return (np.empty((n_q, m), dtype=np.float64), np.zeros((n_q, m), dtype=np.bool_),
            np.zeros((n_q, m), dtype=np.bool_))


def _kernel(y_true, y_score, offsets, conv, tie_rule, table, order, err_scale, kinds, ks,
            values, empty, ties):
    return K.evaluate_contiguous(
        offsets, y_true, y_score, _TIE[tie_rule], table, order, float(conv.rel_min),
        err_scale, _AP_DEN[conv.ap_denominator], conv.p_divisor == "min_k_n", kinds, ks,
        conv.arithmetic == "xgboost", values, empty, ties,
    )


def _run_fast(y_true, y_score, offsets, conv, tie_rule, setup, n_threads):
    table, order, err_scale, kinds, ks = setup
    values, empty, ties = _fast_outputs(offsets.shape[0] - 1, kinds.shape[0])

    def run(ab):
        a, b = ab
        return _kernel(y_true, y_score, offsets[a:b + 1], conv, tie_rule, table, order,
                       err_scale, kinds, ks, values[a:b], empty[a:b], ties[a:b])

    # the kernel releases the GIL: chunks of queries of about equal rows run in parallel
    # threads, each writing its own rows of the outputs
    bad = run_chunks(run, list(itertools.pairwise(_chunk_bounds(offsets, n_threads))))
    if any(b >= 0 for b in bad):
        return None
    return values, empty, ties
