"""What the LightGBM and XGBoost adapters share.

- :func:`import_optional`: import the library with the install hint of its extra;
- :class:`MetricSet`: the metrics, their conventions, the checks every training-time
  metric makes and the evaluation; :class:`MetricSetView` gives the callables built on a
  metric set its ``metrics``, ``names`` and ``conventions``; :data:`FACTORY_PARAMS`
  documents the factories' common parameters; :func:`improved` and :func:`check_min_delta`
  serve early stopping;
- :func:`check_query_source` and :func:`check_eval_query_source`: the ranker adapters' rule
  that the queries of a data set come from exactly one of query ids and group sizes.

Nothing here imports LightGBM or XGBoost at module import time.
"""

from __future__ import annotations

import importlib
import math
import string
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from .._validation import check_real, param_error, relabel
from ..conventions import Conventions, resolve_conventions
from ..exceptions import InputError
from ..metrics._evaluate import evaluate
from ..metrics._spec import Metric, unique_specs


def import_optional(module: str, library: str, caller: str) -> ModuleType:
    """Import ``module`` (also the name of skrank's extra); say how to install it if missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - the extras are installed for the tests
        raise ImportError(f"{caller} needs {library}: pip install 'skrank[{module}]'") from exc


# ----------------------------------------------------------------------------------------
# Training-time metrics


class MetricSet:
    """Parsed metrics + resolved conventions + the checks every training-time metric makes."""

    def __init__(
        self,
        metrics: Sequence[str | Metric],
        preset: str | None,
        conventions: Conventions | None,
        overrides: dict[str, Any],
        prefix: str,
        caller: str,
    ) -> None:
        self.caller = caller
        if len(metrics) == 1 and not isinstance(metrics[0], (str, Metric)):
            metrics = tuple(metrics[0])  # feval(["ndcg@5", "rr"]) as well as feval("ndcg@5", "rr")
        if len(metrics) == 0:
            raise param_error(
                "metrics", "at least one metric name such as 'ndcg@5'", (), caller
            )
        self.metrics: tuple[Metric, ...] = tuple(unique_specs(metrics))
        if not isinstance(prefix, str) or any(c.isspace() or c in ":," for c in prefix):
            raise param_error(
                "prefix", "a str without spaces, ':' or ','", prefix, caller
            )
        self.prefix = prefix
        # one complete value: a preset's per-metric exceptions (e.g. LightGBM's map@k
        # weighting empty queries) travel inside the Conventions that evaluate() receives
        self.conventions: Conventions = resolve_conventions(preset, conventions, **overrides)
        if self.conventions.ties == "docid":
            raise param_error(
                "ties",
                "one of 'pessimistic', 'optimistic', 'input', 'average' (a training Dataset "
                "carries no document ids for 'docid')",
                "docid",
                caller,
            )
        # A threshold is explicit when rel_min is passed or comes from a preset / Conventions.
        self.threshold_given = (
            overrides.get("rel_min") is not None or preset is not None or conventions is not None
        )
        self.names: tuple[str, ...] = tuple(f"{prefix}{m}" for m in self.metrics)
        # the library's own gain setting (LightGBM's label_gain, XGBoost's ndcg_exp_gain)
        # replaces the preset's gain when the preset is the library's and no gain was given
        self.library = caller.split(".")[1] if caller.startswith("skrank.") else ""
        self.reads_library_gain = (
            isinstance(preset, str) and preset.lower() == self.library
            and overrides.get("gain") is None
        )
        self._by_gain: dict[Any, Conventions] = {}

    def with_gain(self, gain: Any) -> Conventions:
        """The conventions with the gain the library's settings give (``None``: unchanged)."""
        if gain is None or not self.reads_library_gain:
            return self.conventions
        key = gain if isinstance(gain, str) else tuple(gain)
        if key not in self._by_gain:
            self._by_gain[key] = self.conventions.replace(gain=gain)
        return self._by_gain[key]

    def describe(self) -> str:
        shown = ", ".join(self.names)
        return f"{shown} ({self.conventions.describe(('ties', 'empty', 'rel_min'))})"

    # -- checks ---------------------------------------------------------------------------
    def check_scores(self, y_pred: Any, n_rows: int, where: str) -> np.ndarray:
        pred = np.asarray(y_pred)
        if pred.ndim == 2 and pred.shape[1] == 1:
            pred = pred[:, 0]
        if pred.ndim != 1:
            raise InputError(
                f"{self.caller} needs one ranking score per row, but {where} has predictions "
                f"of shape {pred.shape}: a multiclass or multi-output objective does not rank. "
                "Train with a ranking objective ('lambdarank', 'rank_xendcg', 'rank:ndcg', ...) "
                "or another single-score objective."
            )
        if pred.shape[0] != n_rows:
            raise InputError(
                f"{self.caller} needs one ranking score per row: {where} has {n_rows} rows but "
                f"{pred.shape[0]} predictions (a multiclass objective flattens one score per "
                "class; it does not rank)."
            )
        return pred

    def check_labels(self, y_true: np.ndarray, where: str) -> None:
        if self.threshold_given or y_true.shape[0] == 0:
            return
        binary = [str(m) for m in self.metrics if m.is_binary]
        if not binary:
            return
        top = float(np.max(y_true))
        if top > 1:
            what = (f"{binary[0]} is a binary metric" if len(binary) == 1
                    else f"{', '.join(binary)} are binary metrics")
            raise InputError(
                f"{what} but the labels of {where} are graded "
                f"(largest label {top:g}). Say which labels are relevant: pass rel_min= "
                f"(relevant when label >= rel_min), e.g. {self.caller}({binary[0]!r}, "
                "rel_min=1), or a preset (preset='lightgbm' or 'xgboost': relevant when "
                "label > 0)."
            )

    def no_groups(self, where: str, how: str) -> InputError:
        return InputError(
            f"{self.caller} ranks documents within queries, but {where} has no query groups. "
            f"{how} A skrank ranking metric is meaningless without them (for a "
            "non-ranking objective without queries use the library's own metrics)."
        )

    # -- evaluation -----------------------------------------------------------------------
    def values(
        self,
        y_true: Any,
        y_pred: np.ndarray,
        sizes: np.ndarray | None,
        sample_weight: np.ndarray | None,
        where: str,
        qid: Any = None,
        conventions: Conventions | None = None,
    ) -> list[float]:
        """The metrics' values over the queries given by ``sizes`` (or by ``qid``).

        ``conventions``: these instead of the set's own (see :meth:`with_gain`).
        """
        y = np.asarray(y_true)
        self.check_labels(y, where)
        with relabel(self.caller):
            res = evaluate(
                y,
                y_pred,
                qid,
                group=sizes,
                metrics=self.metrics,
                sample_weight=sample_weight,
                conventions=self.conventions if conventions is None else conventions,
            )
        return [float(res[m].value) for m in self.metrics]


class MetricSetView:
    """The ``metrics``, ``names`` and ``conventions`` of the :class:`MetricSet` ``self._set``."""

    def __init__(self, metric_set: MetricSet) -> None:
        super().__init__()  # cooperative: XGBoost's TrainingCallback comes after this class
        self._set = metric_set

    @property
    def metrics(self) -> tuple[Metric, ...]:
        return self._set.metrics

    @property
    def names(self) -> tuple[str, ...]:
        return self._set.names

    @property
    def conventions(self) -> Conventions:
        return self._set.conventions


#: The numpydoc entries of the factories' parameters, ``*metrics`` to ``**overrides``: each
#: library substitutes its own notes, ``$preset`` (ending the description of ``preset``) and
#: ``$prefix`` (the description of ``prefix``).
FACTORY_PARAMS = string.Template("""
    *metrics : str or Metric
        One or more metric names (``"ndcg@5"``, ``"ap@10"``, ``"rr"``, ``"err@5"``, ...), or
        one list of them.
    preset : {"lightgbm", "xgboost", "trec_eval", "trec_eval9", "sklearn", "spark"}, optional
        Start from a reference library's conventions. $preset
    conventions : Conventions, optional
        A complete set of conventions to start from instead of ``preset``.
    prefix : str, default="skrank\\_"
        $prefix
    **overrides
        Any convention of :class:`skrank.Conventions` (``ties=``, ``gain=``, ``empty=``,
        ``rel_min=``, ...). Without a preset skrank's defaults apply (``ties="pessimistic"``,
        ``empty="exclude"``, ``gain="exp"``).
""")


def improved(value: float, best: float, maximize: bool, min_delta: float) -> bool:
    """Whether ``value`` beats ``best`` by more than ``min_delta`` (NaN never does)."""
    if math.isnan(value):
        return False
    if math.isnan(best):
        return True
    return value > best + min_delta if maximize else value < best - min_delta


def check_min_delta(min_delta: Any, caller: str) -> float:
    value = check_real("min_delta", min_delta, caller=caller)
    if value < 0:
        raise param_error("min_delta", "a finite real number >= 0", value, caller)
    return value


# ----------------------------------------------------------------------------------------
# Ranker adapters


def check_query_source(ids: Any, group: Any, where: str, library: str, why_one: str) -> None:
    """The training queries come from exactly one of query ids (``ids``) and ``group`` sizes.

    ``library`` names whose group sizes they are; ``why_one`` ends the sentence that asks
    for one of them (``""`` or ``": ..."``).
    """
    if group is not None and ids is not None:
        raise InputError(
            f"{where} got both 'group' sizes and query ids (the 'qid' argument or a 'qid' "
            f"column of X). Give one of them{why_one}."
        )
    if ids is None and group is None:
        raise InputError(
            f"{where} needs the query of each row: pass qid=... (one id per row; with "
            "metadata routing, params={'qid': qid}), keep the ids in a 'qid' column of "
            f"a DataFrame X, or pass {library}'s group sizes. In a pipeline, a step in front "
            "of the ranker (make_pipeline(StandardScaler(), ranker)) turns X into an array "
            "without the 'qid' column: build it with skrank.pipeline.make_ranking_pipeline, "
            "whose steps never see the ids and whose ranker receives them, or route qid "
            "with metadata routing."
        )


def check_eval_query_source(ids: Any, sizes: Any, where: str, what: str) -> None:
    """The queries of eval set ``what`` come from exactly one of query ids and group sizes."""
    if ids is None and sizes is None:
        raise InputError(
            f"{where} needs the query ids of {what}: pass eval_qid=[...] (one array per eval "
            "set), keep them in a 'qid' column of its X, or pass eval_group sizes."
        )
    if ids is not None and sizes is not None:
        raise InputError(f"{where} got both eval_group sizes and query ids for {what}; give one.")
