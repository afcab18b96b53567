"""The checks of ``evaluate``'s flat inputs: labels, scores, document ids, weights, and
their float32 precision; each error names the row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import param_error
from ..conventions import Conventions
from ..exceptions import InputError
from ._groups import Grouping, _id_kinds, _missing, unmasked
from ._kernels import _arrays as A
from ._spec import Metric


def _as_1d(name: str, value: Any, caller: str) -> np.ndarray:
    arr = np.asarray(unmasked(name, value, caller))
    if arr.ndim != 1:
        raise InputError(
            f"The {name!r} parameter of {caller} must be a 1-D array (one value per row). "
            f"Got an array of shape {arr.shape} instead."
        )
    return arr


def _numeric(name: str, arr: np.ndarray, caller: str) -> np.ndarray:
    if arr.dtype.kind == "b":
        return arr.astype(np.int8)
    if arr.dtype.kind not in "iuf":
        raise InputError(
            f"The {name!r} parameter of {caller} must hold numbers. Got dtype {arr.dtype} instead.",
            parameter=name, allowed="numbers")
    return arr


def _refused(name: str, caller: str, allowed: str, got: Any, row: int) -> InputError:
    """The error for the value ``got`` at ``row`` of the array ``name``, which must hold
    ``allowed`` (the words also carried by the error's attributes)."""
    return InputError(
        f"The {name!r} parameter of {caller} must hold {allowed}. Got {got!r} at row {row} "
        "instead.", parameter=name, row=row, allowed=allowed,
    )


#: what a ``retrieved`` flag must be
_FLAGS = ("booleans without nulls (a row either was retrieved or was not: drop the row, or fill "
          "the null with False or True)")


def _object_flags(mask: np.ndarray, caller: str) -> np.ndarray:
    """An object array of ``retrieved`` flags as booleans. NumPy holds a nullable boolean
    column (pandas' ``"boolean"``, ``bool[pyarrow]``, Spark's BooleanType) as objects when
    nulls are among its values; objects that are all flags become booleans, a null (None,
    ``pandas.NA``, NaN) is refused at its row, and other objects are left for the caller's
    type check."""
    flag = np.fromiter((isinstance(v, (bool, np.bool_)) for v in mask), dtype=bool,
                       count=mask.shape[0])
    if flag.all():
        return mask.astype(bool)
    row = int(np.argmin(flag))  # the first that is not a flag
    if _missing(mask[row]):
        raise InputError(
            f"The 'retrieved' parameter of {caller} must hold {_FLAGS}. Got a null at row "
            f"{row} instead.", parameter="retrieved", row=row, allowed=_FLAGS,
        )
    return mask


def _py(value: Any) -> Any:
    """An element of an array as Python holds it: a NumPy scalar's value, an object array's
    element (a ``str``, say) as it is."""
    return value.item() if isinstance(value, np.generic) else value


def _show(value) -> float | int:
    """A label as the user wrote it: 31 rather than 31.0 (labels are held as float64); an
    integer beyond 2**53, which float64 may have rounded, stays the float it became."""
    v = float(value)
    return int(v) if v.is_integer() and abs(v) < 2.0**53 else v


#: the metrics whose values depend on the gain convention (ERR has its own 2**label)
GAIN_METRICS = frozenset({"ndcg", "dcg"})
#: the largest label whose 2**label (ERR's, or gain="exp"'s) a float64 holds with room
_MAX_EXP_LABEL = 1000


def uses_gain(metrics: Sequence[Metric]) -> bool:
    """Whether any of ``metrics`` depends on the gain (NDCG and DCG): the other metrics
    take any label, whatever the gain convention says."""
    return any(m.name in GAIN_METRICS for m in metrics)


def _check_labels(y_true: np.ndarray, conv: Conventions, metrics: Sequence[Metric], caller: str):
    """Check the labels against the metrics and their conventions; return ``(max_label,
    int_labels)`` for the general kernel.

    The gain's limits (a table's length, ``2**label`` under ``gain="exp"``, no negative
    label under a gain other than linear) apply only when a metric uses the gain
    (:data:`GAIN_METRICS`); ERR's own ``2**label`` limits its labels whatever the gain."""
    finite, lo, hi, integer = A.scan(y_true)
    gain = uses_gain(metrics)
    if not finite:
        bad = np.flatnonzero(~np.isfinite(y_true))[0]
        raise _refused("y_true", caller, "finite relevance labels", _show(y_true[bad]),
                       int(bad))
    if lo < 0:
        # under linear gain a negative label is a negative gain, as in scikit-learn's
        # dcg_score; NDCG refuses them as ndcg_score does (its ideal DCG is no maximum of a
        # [0, 1] scale any more) and ERR's stopping probability (2**l - 1) / 2**max would be
        # negative
        refused = sorted({m.display.split("@")[0] for m in metrics if m.name in ("ndcg", "err")})
        if (gain and conv.gain != "linear") or refused:
            bad = int(np.flatnonzero(y_true < 0)[0])
            why = (f"gain={conv.gain_name()}" if gain and conv.gain != "linear"
                   else f"for {' and '.join(refused)}; gain='linear' takes them for DCG and "
                        "the binary metrics")
            raise _refused("y_true", caller, f"non-negative relevance labels ({why})",
                           _show(y_true[bad]), bad)
    if gain and isinstance(conv.gain, tuple):
        if not integer:
            bad = int(np.flatnonzero(y_true != np.floor(y_true))[0])
            raise _refused("y_true", caller, "integer labels to index the gain table "
                           f"(gain={conv.gain_name()})", _show(y_true[bad]), bad)
        if hi >= len(conv.gain):
            bad = int(np.flatnonzero(y_true >= len(conv.gain))[0])
            raise _refused("y_true", caller, f"labels 0..{len(conv.gain) - 1} (the gain "
                           f"table has {len(conv.gain)} entries)", _show(y_true[bad]), bad)
    elif gain and conv.gain == "exp" and hi > _MAX_EXP_LABEL:
        raise _above(y_true, _MAX_EXP_LABEL, f"labels <= {_MAX_EXP_LABEL} with gain='exp' "
                     "(2**label overflows)", caller)
    if hi > _MAX_EXP_LABEL and any(m.name == "err" for m in metrics):
        raise _above(y_true, _MAX_EXP_LABEL, f"labels <= {_MAX_EXP_LABEL} for ERR (its "
                     "stopping probability (2**label - 1) / 2**max_label overflows)", caller)
    max_label = hi if hi != -np.inf else 0.0
    # small integer labels: gains come from a table (exact, no pow(), and the kernel takes the
    # ideal ranking from label counts)
    int_labels = int(max_label) + 1 if integer and max_label <= 62 and lo >= 0 else 0
    if any(m.name == "err" for m in metrics) and conv.max_label is not None:
        if hi > conv.max_label:
            raise _above(y_true, conv.max_label, f"labels <= max_label={conv.max_label} "
                         "for ERR", caller)
        max_label = float(conv.max_label)
    return max_label, int_labels


def _above(y_true: np.ndarray, limit: float, allowed: str, caller: str) -> InputError:
    """The error for the first label of ``y_true`` above ``limit``."""
    bad = int(np.flatnonzero(y_true > limit)[0])
    return _refused("y_true", caller, allowed, _show(y_true[bad]), bad)


def _tiekey(doc_id, grouping: Grouping, n: int, caller: str) -> np.ndarray:
    ids = _as_1d("doc_id", doc_id, caller)
    if ids.shape[0] != n:
        raise InputError(
            f"The 'doc_id' parameter of {caller} must have one id per row: y_true has {n} rows "
            f"but doc_id has {ids.shape[0]}."
        )
    if ids.dtype.kind == "O":
        bad = next((i for i, v in enumerate(ids[:]) if _missing(v)), None)
        if bad is not None:
            raise _refused("doc_id", caller, "an id for every row", ids[bad], bad)
        kinds = _id_kinds(ids)
        if len(kinds) > 1:
            raise param_error("doc_id", "ids of one type (all integers or all strings)",
                              f"a mix of {' and '.join(sorted(kinds))}", caller)
    if ids.dtype.kind in "iu" and (ids.dtype.itemsize < 8 or ids.dtype.kind == "i"
                                   or int(ids.max()) <= np.iinfo(np.int64).max):
        # integer ids (the readers' codes) order the documents as they are: no sort
        code = np.ascontiguousarray(ids, dtype=np.int64)
    else:
        try:
            _, code = np.unique(ids, return_inverse=True)
        except TypeError:  # ids that do not sort (e.g. objects of one exotic type)
            raise param_error("doc_id", "ids that sort (integers or strings)",
                              f"ids of dtype {ids.dtype}", caller) from None
        code = code.ravel().astype(np.int64)
    _check_unique_in_queries(code, ids, grouping, caller)
    return code


def _check_unique_in_queries(code: np.ndarray, ids: np.ndarray, grouping: Grouping,
                             caller: str) -> None:
    """The standard error for the first document repeated within a query."""
    lo, hi = int(code.min()), int(code.max())
    if hi - lo <= 2 * code.shape[0] + 1024:  # codes of about the rows' span: a table pass
        row = A.first_repeat(code, grouping.kernel_rows, grouping.offsets, lo, hi - lo + 1)
    else:  # sparse ids: sort (query, doc) pairs and look at neighbours
        qidx = grouping.query_index()
        pair = np.lexsort((code, qidx))
        dup = (qidx[pair][1:] == qidx[pair][:-1]) & (code[pair][1:] == code[pair][:-1])
        row = int(pair[1:][dup][0]) if dup.any() else -1
    if row >= 0:
        q = grouping.query_index()[row]
        raise InputError(
            f"The 'doc_id' parameter of {caller} must not repeat a document within a query. "
            f"Got {_py(ids[row])!r} twice in query {_py(grouping.qids[q])!r} (again at "
            f"row {row}).", parameter="doc_id", row=row,
            allowed="documents that do not repeat within a query")


def _weights(sample_weight, grouping: Grouping, n: int, precision: str, caller: str,
             one_per_query: bool = False):
    """Each query's weight: the mean of its rows' ``sample_weight`` (None without weights),
    the rows' weights held at ``precision`` (``"input"`` or ``"float32"``).

    ``one_per_query`` (``arithmetic="xgboost"``): XGBoost has one weight per query group and
    refuses per-row weights, so every row of a query must carry the same weight, which is
    the query's weight as it is (no mean, whose float sum can move it by an ulp).
    """
    if sample_weight is None:
        return None
    w = _numeric("sample_weight", _as_1d("sample_weight", sample_weight, caller), caller)
    if w.shape[0] != n:
        raise InputError(
            f"The 'sample_weight' parameter of {caller} must have one weight per row: "
            f"y_true has {n} rows but sample_weight has {w.shape[0]}."
        )
    refused = ~np.isfinite(w) | (w < 0)
    if refused.any():
        bad = int(np.flatnonzero(refused)[0])
        raise _refused("sample_weight", caller, "finite non-negative weights", w[bad].item(),
                       bad)
    if w.dtype.kind != "f":
        w = w.astype(np.float64)
    if precision == "float32" or w.dtype.itemsize < 4:  # float16 is summed as float32 too
        w = _to_float32(w, "sample_weight", "weights", "weight_precision", caller)
    w = np.ascontiguousarray(w, dtype=w.dtype.newbyteorder("="))
    if one_per_query:
        return _one_weight_per_query(w, grouping, caller)
    return A.query_weights(grouping.rows, grouping.offsets, w)  # rows: arange if contiguous


def _one_weight_per_query(w: np.ndarray, grouping: Grouping, caller: str) -> np.ndarray:
    """The weight shared by the rows of each query, or the standard error naming the first
    row whose weight differs from its query's first row."""
    by_query = w[grouping.rows] if grouping.order is not None else w
    first = by_query[grouping.offsets[:-1]]
    differ = np.flatnonzero(by_query != np.repeat(first, grouping.sizes))
    if differ.size:
        q = int(np.searchsorted(grouping.offsets, differ[0], side="right")) - 1
        row = int(grouping.rows[differ[0]])
        raise InputError(
            f"The 'sample_weight' parameter of {caller} must give every row of a query the "
            "same weight under arithmetic='xgboost' (the xgboost preset): XGBoost has one "
            "weight per query group and refuses per-row weights. Got "
            f"{by_query[differ[0]].item()!r} at row {row} and "
            f"{first[q].item()!r} at the first row of query {_py(grouping.qids[q])!r} "
            "instead. Give each query one weight, or choose arithmetic='lightgbm' (the mean "
            "of the rows' weights).", parameter="sample_weight", row=row,
            allowed="one weight for every row of a query (arithmetic='xgboost')")
    return first


def _labels_array(arr: np.ndarray) -> np.ndarray:
    """Labels as int64 (integer or bool input that int64 holds) or float64, contiguous."""
    if arr.dtype.kind in "ib" or (arr.dtype.kind == "u" and arr.dtype.itemsize < 8):
        return np.ascontiguousarray(arr, dtype=np.int64)
    return np.ascontiguousarray(arr, dtype=np.float64)


def _check_values(y_true, y_score, mask, conv: Conventions, specs, caller: str):
    """Check scores and labels; return (max_label, int_labels) for the general kernel."""
    bad = A.first_not_finite(y_score, mask)
    if bad >= 0:
        raise _refused("y_score", caller, "finite scores", y_score[bad].item(), int(bad))
    return _check_labels(y_true.astype(np.float64, copy=False), conv, specs, caller)


def _float32_labels(y_true: np.ndarray, caller: str) -> np.ndarray:
    """Labels rounded to float32 (``label_precision="float32"``), held as float64.

    Integer labels up to 2**24 are exact in float32 and keep their dtype.
    """
    if y_true.dtype.kind in "iu":
        if y_true.shape[0] == 0 or max(abs(int(y_true.min())), abs(int(y_true.max()))) <= 2**24:
            return y_true
        y_true = y_true.astype(np.float64)
    return _to_float32(y_true, "y_true", "labels", "label_precision", caller).astype(np.float64)


def _to_float32(values: np.ndarray, name: str, what: str, convention: str,
                caller: str, mask: np.ndarray | None = None) -> np.ndarray:
    """``values`` as float32, or the standard error for the first finite value that does not
    fit (float32 would make it infinite); ``mask`` (non-empty): only the rows it holds True
    for count (the scores of rows not retrieved are not looked at, as their finiteness is
    not)."""
    with np.errstate(over="ignore"):
        v32 = values.astype(np.float32)
    if not np.isfinite(v32).all():
        lost = np.isfinite(values) & ~np.isfinite(v32)
        if mask is not None and mask.shape[0]:
            lost &= mask
        if lost.any():
            bad = int(np.flatnonzero(lost)[0])
            raise _refused(name, caller, f"{what} that fit float32 ({convention}='float32', "
                           f"largest {float(np.finfo(np.float32).max):g})",
                           values[bad].item(), bad)
    return v32
