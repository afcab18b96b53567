"""Accuracy of top-k lists against held-out interactions through the ranking core: users are
queries, recommended items are ranked rows, held-out items missing from a list are judged rows
that were not retrieved (so recall and the ideal DCG count them, ``idcg="pool"``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import Interval, Options, param_error, public_name, relabel, validate_params
from ..exceptions import InputError
from ..metrics._evaluate import evaluate as _evaluate
from ._inputs import check_same_kind
from ._topk import TOPK_TIE_RULES, TopK, top_k

__all__ = ["evaluate_scores", "evaluate_top_k", "query_arrays"]


def _ids(values: Any, name: str, caller: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise param_error(name, "a 1-d array of ids", f"shape {arr.shape}", caller)
    return arr


@validate_params({})  # top, the held-out arrays: checked with their lengths and types
def query_arrays(
    top: TopK, test_users: Any, test_items: Any, test_labels: Any = None,
) -> dict[str, np.ndarray]:
    """The flat arrays on which :func:`skrank.evaluate` scores top-k lists.

    One query per user with held-out items; its rows are the user's recommended items
    (``retrieved`` True, score ``-rank`` so the list order is kept exactly) followed by its
    held-out items that were not recommended (``retrieved`` False).

    Parameters
    ----------
    top : TopK
        The lists.
    test_users, test_items : array-like of shape (n_test,)
        Held-out (user, item) interactions, as ids of :attr:`TopK.users` and
        :attr:`TopK.item_ids`. Repeated pairs are an error.
    test_labels : array-like of shape (n_test,), optional
        Graded relevance of each held-out pair (default 1).

    Returns
    -------
    dict
        ``y_true``, ``y_score``, ``qid``, ``retrieved`` (and ``item``) arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import top_k, query_arrays
    >>> top = top_k(np.array([[0.9, 0.5, 0.1]]), 2)
    >>> a = query_arrays(top, [0, 0], [1, 2])
    >>> a["y_true"], a["retrieved"]
    (array([0., 1., 1.]), array([ True,  True, False]))
    """
    caller = public_name("query_arrays")  # or the function the user called
    if not isinstance(top, TopK):
        raise param_error("top", "a skrank.recsys.TopK (from top_k)", type(top).__name__,
                          caller)
    tu = _ids(test_users, "test_users", caller)
    ti = _ids(test_items, "test_items", caller)
    if tu.shape != ti.shape:
        raise param_error("test_items", f"as long as test_users ({tu.size})",
                          f"length {ti.size}", caller)
    lab = np.ones(tu.size) if test_labels is None else np.asarray(test_labels, dtype=float)
    if lab.shape != tu.shape:
        raise param_error("test_labels", f"as long as test_users ({tu.size})",
                          f"length {lab.size}", caller)
    ru, ri, rank, _ = top.to_flat()
    check_same_kind([tu, ru], caller)
    check_same_kind([ti, ri], caller)
    try:
        uid, ucode = np.unique(np.concatenate([tu, ru]), return_inverse=True)
        iid, icode = np.unique(np.concatenate([ti, ri]), return_inverse=True)
    except TypeError as exc:  # ids of mixed types
        raise InputError(f"The test ids of {caller} must be of the same type as the "
                         f"ids of the lists: {exc}.") from None
    n_i = iid.size
    tkey = ucode[: tu.size] * n_i + icode[: ti.size]
    rkey = ucode[tu.size:] * n_i + icode[ti.size:]
    order = np.argsort(tkey, kind="stable")
    skey = tkey[order]
    if skey.size > 1 and (skey[1:] == skey[:-1]).any():
        raise InputError(f"The held-out (user, item) pairs of {caller} must be distinct; "
                         f"{int((skey[1:] == skey[:-1]).sum())} pairs are repeated.")
    test_user_codes = np.unique(ucode[: tu.size])
    in_test_user = np.isin(ucode[tu.size:], test_user_codes)
    rkey, rrank = rkey[in_test_user], rank[in_test_user]
    at = np.clip(np.searchsorted(skey, rkey), 0, max(skey.size - 1, 0))
    hit = skey[at] == rkey if skey.size else np.zeros(rkey.size, bool)
    rlab = np.where(hit, lab[order][at] if skey.size else 0.0, 0.0)
    missed = ~np.isin(tkey, rkey[hit])
    n_rec, n_miss = rkey.size, int(missed.sum())
    qcode = np.concatenate([rkey // n_i, tkey[missed] // n_i])
    return {
        "y_true": np.concatenate([rlab, lab[missed]]),
        "y_score": np.concatenate([-rrank.astype(float), np.full(n_miss, -np.inf)]),
        "qid": uid[qcode],
        "item": iid[np.concatenate([rkey % n_i, tkey[missed] % n_i])],
        "retrieved": np.concatenate([np.ones(n_rec, bool), np.zeros(n_miss, bool)]),
    }


@validate_params({})  # metrics and the conventions: skrank.evaluate's declarations
def evaluate_top_k(
    top: TopK,
    test_users: Any,
    test_items: Any,
    test_labels: Any = None,
    *,
    metrics: Sequence[str] | str = ("ndcg@10",),
    **kwargs: Any,
):
    """Ranking metrics of top-k lists against held-out interactions, users as queries.

    The lists go through :func:`skrank.evaluate` (see :func:`query_arrays` for the rows), so
    NDCG, AP, precision, recall and hit rate mean exactly what they mean elsewhere in skrank.
    Held-out items outside a list count in recall and the ideal DCG (``idcg="pool"`` unless
    given); users without held-out items are not evaluated; a user with held-out items but no
    list scores 0.

    Parameters
    ----------
    top : TopK
        The lists, from :func:`top_k`.
    test_users, test_items, test_labels : array-like
        Held-out interactions (labels default to 1).
    metrics : str or sequence of str, default=("ndcg@10",)
        Metric names, as :func:`skrank.evaluate` takes them.
    **kwargs
        Conventions and options of :func:`skrank.evaluate` (``preset``, ``gain``, ...).

    Returns
    -------
    EvaluationResult

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import top_k, evaluate_top_k
    >>> top = top_k(np.array([[0.9, 0.5, 0.1], [0.1, 0.2, 0.3]]), 2)
    >>> r = evaluate_top_k(top, [0, 1, 1], [1, 0, 2], metrics=["recall@2", "hit@2"])
    >>> float(r["recall@2"]), float(r["hit@2"])
    (0.75, 1.0)
    """
    a = query_arrays(top, test_users, test_items, test_labels)
    kwargs.setdefault("idcg", "pool")
    with relabel(public_name("evaluate_top_k")):
        return _evaluate(a["y_true"], a["y_score"], a["qid"], metrics=metrics,
                         retrieved=a["retrieved"], **kwargs)


@validate_params({"k": Interval(int, 1), "ties": Options(TOPK_TIE_RULES)})
def evaluate_scores(
    scores: Any,
    test_users: Any,
    test_items: Any,
    test_labels: Any = None,
    *,
    k: int = 10,
    exclude: Any = None,
    ties: str = "input",
    metrics: Sequence[str] | str = ("ndcg@10",),
    **kwargs: Any,
):
    """:func:`top_k` then :func:`evaluate_top_k`, for a users x items score matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import evaluate_scores
    >>> s = np.array([[0.9, 0.5, 0.1], [0.1, 0.2, 0.3]])
    >>> float(evaluate_scores(s, [0, 1], [1, 0], k=2, exclude=([0], [0]),
    ...                       metrics="hit@1")["hit@1"])
    0.5
    """
    top = top_k(scores, k, exclude=exclude, ties=ties)
    return evaluate_top_k(top, test_users, test_items, test_labels, metrics=metrics,
                          **kwargs)
