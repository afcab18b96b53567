"""Click simulators over graded relevance labels (private module).

Two classic click models (Chuklin, Markov and de Rijke, *Click Models for Web Search*, 2015):

- :class:`PositionBasedModel`: the document at position ``k`` is examined with probability
  ``examination[k]`` and clicked, once examined, with probability ``attractiveness[label]``;
  positions are independent.
- :class:`CascadeModel`: the user scans from the top, clicks the first attractive document
  and stops; ``P(click at k) = a_k * prod_{j<k} (1 - a_j)``.

Labels are given in shown order, one row per impression; ``-1`` marks an empty slot (a list
shorter than the others), which is never clicked.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import as_generator, check_choice, check_int, param_error
from ._utils import as_float_array, as_int_array, check_probabilities, input_error

__all__ = ["CTR_DEFINITIONS", "CascadeModel", "PositionBasedModel"]

#: Names of the click-through-rate definitions of :func:`ctr_at_k` and ``expected_ctr``.
CTR_DEFINITIONS = ("any_click", "clicks_per_impression", "positional")


def _attractiveness_table(attractiveness: Any, max_label: Any, caller: str) -> np.ndarray:
    if isinstance(attractiveness, str):
        check_choice("attractiveness", attractiveness, ("exp", "linear"), caller)
        m = 4 if max_label is None else check_int("max_label", max_label, min_value=1,
                                                  caller=caller)
        labels = np.arange(m + 1, dtype=np.float64)
        if attractiveness == "exp":
            return (2.0**labels - 1.0) / 2.0**m
        return labels / m
    if isinstance(attractiveness, (Sequence, np.ndarray)) and len(attractiveness) > 0:
        table = as_float_array("attractiveness", attractiveness, caller)
        check_probabilities("attractiveness", table, caller, allow_zero=True)
        if max_label is not None and max_label != table.size - 1:
            raise param_error(
                "max_label", f"None or {table.size - 1} (the attractiveness table's last label)",
                max_label, caller,
            )
        return table
    raise param_error(
        "attractiveness",
        "'exp', 'linear' or a non-empty sequence of probabilities indexed by label",
        attractiveness, caller,
    )


class _ClickModel:
    _name = "click model"

    def __init__(self, attractiveness: Any, max_label: Any) -> None:
        self.attractiveness = _attractiveness_table(attractiveness, max_label, type(self).__name__)
        self.max_label = self.attractiveness.size - 1

    # -- helpers -------------------------------------------------------------------------
    def _labels(self, labels: Any, caller: str) -> np.ndarray:
        arr = np.asarray(labels)
        if arr.ndim not in (1, 2):
            raise input_error(
                "labels", "a 1-D (one list) or 2-D (impressions x positions) array",
                f"an array of shape {arr.shape}", caller,
            )
        arr = as_int_array("labels", arr, caller, ndim=arr.ndim)
        bad = (arr < -1) | (arr > self.max_label)
        if bad.any():
            i = tuple(int(j) for j in np.argwhere(bad)[0])
            raise input_error(
                "labels", f"integers in 0..{self.max_label} (or -1 for an empty slot)",
                f"{arr[i]} at index {i if len(i) > 1 else i[0]}", caller,
            )
        return arr

    def _attract(self, labels: np.ndarray) -> np.ndarray:
        a = self.attractiveness[np.maximum(labels, 0)]
        a[labels < 0] = 0.0
        return a

    def _click_probabilities(self, labels: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    # -- public API ----------------------------------------------------------------------
    def click_probabilities(self, labels: Any) -> np.ndarray:
        """Marginal probability of a click at each position.

        Parameters
        ----------
        labels : array-like of int, shape (n_positions,) or (n_impressions, n_positions)
            Graded labels in shown order; ``-1`` is an empty slot.

        Returns
        -------
        ndarray of float, same shape as ``labels``
        """
        name = f"{type(self).__name__}.click_probabilities"
        return self._click_probabilities(self._labels(labels, name))

    def expected_ctr(self, labels: Any, *, definition: str, k: int | None = None) -> Any:
        """Expected click-through rate of a shown list under this click model.

        Parameters
        ----------
        labels : array-like of int, shape (n_positions,) or (n_impressions, n_positions)
            Graded labels in shown order; ``-1`` is an empty slot.
        definition : {"any_click", "clicks_per_impression", "positional"}
            The CTR@k definition (see :func:`ctr_at_k`): the probability of at least one click
            in the top ``k``, the expected number of clicks in the top ``k``, or the click
            probability of each of the top ``k`` positions.
        k : int or None, default=None
            Cutoff; ``None`` is the whole list.

        Returns
        -------
        float or ndarray
            A float (array of shape ``(k,)`` for ``"positional"``) for one list; one value
            (row) per impression for a 2-D ``labels``.
        """
        name = f"{type(self).__name__}.expected_ctr"
        check_choice("definition", definition, CTR_DEFINITIONS, name)
        arr = self._labels(labels, name)
        k = check_int("k", k, min_value=1, allow_none=True, caller=name)
        arr = arr[..., :k] if k is not None else arr
        p = self._click_probabilities(arr)
        if definition == "positional":
            out = p
        elif definition == "clicks_per_impression":
            out = p.sum(axis=-1)
        else:
            out = self._any_click(arr, p)
        return float(out) if np.ndim(out) == 0 else out

    def _any_click(self, labels: np.ndarray, p: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def simulate(self, labels: Any, rng: Any = None) -> np.ndarray:
        """Draw clicks for shown lists.

        Parameters
        ----------
        labels : array-like of int, shape (n_positions,) or (n_impressions, n_positions)
            Graded labels in shown order; ``-1`` is an empty slot (never clicked).
        rng : None, int or numpy.random.Generator, default=None
            Seed or generator (``numpy.random.default_rng(rng)``).

        Returns
        -------
        ndarray of bool, same shape as ``labels``
        """
        name = f"{type(self).__name__}.simulate"
        arr = self._labels(labels, name)
        return self._simulate(arr, as_generator(rng, name))

    def _simulate(
        self, labels: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError


class PositionBasedModel(_ClickModel):
    """Position-based click model (PBM): examination times attractiveness.

    ``P(click at position k) = examination[k] * attractiveness[label]``, independently across
    positions. Position bias lives in ``examination``; relevance in ``attractiveness``.

    Parameters
    ----------
    examination : array-like of float or None, default=None
        Examination probability of each position (top first), in [0, 1]; positions past its
        end are never examined. ``None`` uses ``(1 / (k + 1)) ** eta`` for the first
        ``n_positions`` positions (Joachims et al., 2017).
    eta : float, default=1.0
        Severity of the position bias when ``examination`` is None (0 means no bias).
    n_positions : int, default=10
        Examined positions when ``examination`` is None.
    attractiveness : {"exp", "linear"} or array-like of float, default="exp"
        Click probability of an examined document by label: ``"exp"`` is
        ``(2**label - 1) / 2**max_label`` (ERR's stopping probability), ``"linear"`` is
        ``label / max_label``; an array gives the probability of each label 0, 1, ...
    max_label : int or None, default=None
        Largest label for ``"exp"`` and ``"linear"`` (None means 4, the bundled data's scale);
        with an attractiveness array it must be None or the array's last label.

    Examples
    --------
    >>> from skrank.online import PositionBasedModel
    >>> pbm = PositionBasedModel(examination=[1.0, 0.5], attractiveness=[0.1, 0.9])
    >>> pbm.click_probabilities([1, 0])
    array([0.9 , 0.05])
    >>> pbm.expected_ctr([1, 0], definition="clicks_per_impression")
    0.95
    >>> clicks = pbm.simulate([[1, 0], [0, 1]], rng=0)
    >>> clicks.shape, clicks.dtype
    ((2, 2), dtype('bool'))
    """

    def __init__(
        self,
        examination: Any = None,
        *,
        eta: float = 1.0,
        n_positions: int = 10,
        attractiveness: Any = "exp",
        max_label: int | None = None,
    ) -> None:
        name = "PositionBasedModel"
        super().__init__(attractiveness, max_label)
        if examination is None:
            ok = isinstance(eta, numbers.Real) and not isinstance(eta, bool) and np.isfinite(eta)
            if not (ok and eta >= 0):
                raise param_error("eta", "a finite real number >= 0", eta, name)
            n = check_int("n_positions", n_positions, min_value=1, caller=name)
            self.examination = (1.0 / np.arange(1, n + 1, dtype=np.float64)) ** float(eta)
        else:
            exam = as_float_array("examination", examination, name)
            if exam.size == 0:
                raise input_error("examination", "non-empty", "an empty array", name)
            self.examination = check_probabilities("examination", exam, name, allow_zero=True)

    def __repr__(self) -> str:
        return (
            f"PositionBasedModel(examination={np.round(self.examination, 4).tolist()}, "
            f"attractiveness={np.round(self.attractiveness, 4).tolist()})"
        )

    def _exam(self, n: int) -> np.ndarray:
        out = np.zeros(n)
        m = min(n, self.examination.size)
        out[:m] = self.examination[:m]
        return out

    def _click_probabilities(self, labels: np.ndarray) -> np.ndarray:
        return self._exam(labels.shape[-1]) * self._attract(labels)

    def _any_click(self, labels: np.ndarray, p: np.ndarray) -> np.ndarray:
        return 1.0 - np.prod(1.0 - p, axis=-1)

    def _simulate(self, labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return rng.random(labels.shape) < self._click_probabilities(labels)


class CascadeModel(_ClickModel):
    """Cascade click model: scan from the top, click the first attractive document, stop.

    ``P(click at position k) = a_k * prod_{j<k} (1 - a_j)`` with ``a = attractiveness[label]``
    (Craswell et al., 2008). At most one click per impression.

    Parameters
    ----------
    attractiveness : {"exp", "linear"} or array-like of float, default="exp"
        Click probability of a document by label, as in :class:`PositionBasedModel`.
    max_label : int or None, default=None
        Largest label for ``"exp"`` and ``"linear"`` (None means 4).

    Examples
    --------
    >>> from skrank.online import CascadeModel
    >>> cm = CascadeModel(attractiveness=[0.0, 0.5])
    >>> cm.click_probabilities([1, 1, 0])
    array([0.5 , 0.25, 0.  ])
    >>> cm.expected_ctr([1, 1, 0], definition="any_click")
    0.75
    """

    def __init__(self, attractiveness: Any = "exp", *, max_label: int | None = None) -> None:
        super().__init__(attractiveness, max_label)

    def __repr__(self) -> str:
        return f"CascadeModel(attractiveness={np.round(self.attractiveness, 4).tolist()})"

    def _click_probabilities(self, labels: np.ndarray) -> np.ndarray:
        a = self._attract(labels)
        survive = np.cumprod(1.0 - a, axis=-1)
        before = np.concatenate([np.ones((*a.shape[:-1], 1)), survive[..., :-1]], axis=-1)
        return a * before

    def _any_click(self, labels: np.ndarray, p: np.ndarray) -> np.ndarray:
        return p.sum(axis=-1)

    def _simulate(self, labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        attractive = rng.random(labels.shape) < self._attract(labels)
        first = np.argmax(attractive, axis=-1)
        clicks = np.zeros(labels.shape, dtype=bool)
        any_ = attractive.any(axis=-1)
        if labels.ndim == 1:
            if any_:
                clicks[first] = True
        else:
            rows = np.flatnonzero(any_)
            clicks[rows, first[rows]] = True
        return clicks
