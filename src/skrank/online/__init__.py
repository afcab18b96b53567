"""Online and counterfactual evaluation: interleaving, click models, IPS-family estimators, A/B.

Offline metrics shortlist; interleaving and A/B tests decide; counterfactual estimates from
randomised logs bridge the two (see ``docs/online.rst``).

Interleaving
    :func:`team_draft_interleave`, :func:`balanced_interleave`,
    :func:`probabilistic_interleave` build an :class:`Interleaving` whose
    :meth:`~Interleaving.credit` turns clicks into an outcome; :func:`interleaving_test`
    aggregates outcomes (wins, losses, ties, preference, sign test, bootstrap CI);
    :func:`simulate_interleaving` runs simulated users.
Click models
    :class:`PositionBasedModel`, :class:`CascadeModel`.
Counterfactual evaluation
    Logged bandit feedback: :func:`ips` (``max_weight=`` for clipped IPS), :func:`snips`,
    :func:`direct_method`, :func:`doubly_robust`. Slates: :func:`slate_standard_ips`,
    :func:`independent_ips`, :func:`reward_interaction_ips`. Rankings: :func:`pbm_ips`,
    with propensities from :func:`estimate_propensities_shuffle` or
    :func:`estimate_propensities_swap`.
A/B helpers
    :func:`ctr_at_k`, :func:`ctr_by_position`, :func:`two_proportion_ztest`,
    :func:`sample_size_per_arm`, :func:`ratio_metric`, :func:`ratio_ztest`.
Experiments
    :func:`analyze_experiment` analyses a table of units (one row per user): a sample ratio
    mismatch check every time, then each metric's effect (Welch t, two- or one-sided; delta
    method for ratio metrics; CUPED with pre-experiment covariates; variance over cluster
    totals for cluster-randomised experiments) in an :class:`ExperimentResult`;
    :func:`decide` turns it into ship / do not ship / inconclusive (one primary metric,
    guardrails as non-inferiority tests, corrections across arms and metrics).
    :func:`event_metrics` builds that table from an event log (CTR@k, abandonment,
    reformulation, time to first click, dwell, conversion, retention; an
    :class:`EventUnits`).
Peeking and planning
    :func:`always_valid_test` (mixture sequential tests: p-values and confidence sequences
    valid at every look); :func:`group_sequential_bounds` for planned looks (Lan-DeMets alpha
    spending), :func:`inflation_factor`, ``sample_size_per_arm(looks=)`` and
    :func:`duration_days`; :func:`novelty_test` for a trend of the effect over days.
"""

from __future__ import annotations

from ._ab import (
    ALTERNATIVES,
    ctr_at_k,
    ctr_by_position,
    ratio_metric,
    ratio_ztest,
    sample_size_per_arm,
    two_proportion_ztest,
)
from ._always_valid import ALWAYS_VALID_METHODS, always_valid_test
from ._clicks import CTR_DEFINITIONS, CascadeModel, PositionBasedModel
from ._counterfactual import CI_METHODS, direct_method, doubly_robust, ips, snips
from ._decision import DIRECTIONS, MARGIN_SCALES, decide
from ._event_units import EventUnits
from ._events import (
    ABANDONMENT_DEFINITIONS,
    CONVERSION_DEFINITIONS,
    EVENT_METRICS,
    LAST_CLICK_RULES,
    REFORMULATION_DEFINITIONS,
    RETENTION_CENSORING,
    TIME_TO_CLICK_DEFINITIONS,
    event_metrics,
)
from ._experiment import analyze_experiment
from ._interleave import balanced_interleave, probabilistic_interleave, team_draft_interleave
from ._interleaving import (
    COMMON_PREFIX_RULES,
    EXHAUSTED_RULES,
    INTERLEAVING_METHODS,
    NO_CLICK_RULES,
    Interleaving,
)
from ._interleaving_simulation import simulate_interleaving
from ._novelty import novelty_test
from ._position_bias import (
    estimate_propensities_shuffle,
    estimate_propensities_swap,
    pbm_ips,
)
from ._preference import interleaving_test, sign_test
from ._results import (
    ExperimentResult,
    InterleavingResult,
    MetricEffect,
    OffPolicyEstimate,
    PropensityEstimate,
    RatioEstimate,
    SampleRatioCheck,
    ZTestResult,
)
from ._sequential import (
    SEQUENTIAL_ALTERNATIVES,
    SPENDING_FUNCTIONS,
    duration_days,
    group_sequential_bounds,
    inflation_factor,
)
from ._sequential_results import (
    AlwaysValidResult,
    Decision,
    DecisionTest,
    GroupSequentialBounds,
    NoveltyResult,
)
from ._slates import independent_ips, reward_interaction_ips, slate_standard_ips

__all__ = [
    "ABANDONMENT_DEFINITIONS",
    "ALTERNATIVES",
    "ALWAYS_VALID_METHODS",
    "CI_METHODS",
    "COMMON_PREFIX_RULES",
    "CONVERSION_DEFINITIONS",
    "CTR_DEFINITIONS",
    "DIRECTIONS",
    "EVENT_METRICS",
    "EXHAUSTED_RULES",
    "INTERLEAVING_METHODS",
    "LAST_CLICK_RULES",
    "MARGIN_SCALES",
    "NO_CLICK_RULES",
    "REFORMULATION_DEFINITIONS",
    "RETENTION_CENSORING",
    "SEQUENTIAL_ALTERNATIVES",
    "SPENDING_FUNCTIONS",
    "TIME_TO_CLICK_DEFINITIONS",
    "AlwaysValidResult",
    "CascadeModel",
    "Decision",
    "DecisionTest",
    "EventUnits",
    "ExperimentResult",
    "GroupSequentialBounds",
    "Interleaving",
    "InterleavingResult",
    "MetricEffect",
    "NoveltyResult",
    "OffPolicyEstimate",
    "PositionBasedModel",
    "PropensityEstimate",
    "RatioEstimate",
    "SampleRatioCheck",
    "ZTestResult",
    "always_valid_test",
    "analyze_experiment",
    "balanced_interleave",
    "ctr_at_k",
    "ctr_by_position",
    "decide",
    "direct_method",
    "doubly_robust",
    "duration_days",
    "estimate_propensities_shuffle",
    "estimate_propensities_swap",
    "event_metrics",
    "group_sequential_bounds",
    "independent_ips",
    "inflation_factor",
    "interleaving_test",
    "ips",
    "novelty_test",
    "pbm_ips",
    "probabilistic_interleave",
    "ratio_metric",
    "ratio_ztest",
    "reward_interaction_ips",
    "sample_size_per_arm",
    "sign_test",
    "simulate_interleaving",
    "slate_standard_ips",
    "snips",
    "team_draft_interleave",
    "two_proportion_ztest",
]
