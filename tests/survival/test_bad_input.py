"""Bad input gets skrank's one error format, naming the parameter; edge cases by name."""

from __future__ import annotations

import numpy as np
import pytest

from skrank import InputError, InvalidParameterError
from skrank.survival import (
    SurvivalConventions,
    brier_score,
    concordance_index_censored,
    concordance_index_ipcw,
    cumulative_dynamic_auc,
    integrated_brier_score,
    make_survival_scorer,
)

EVENT = np.array([True, False, True, True, False])
TIME = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
RISK = np.array([0.9, 0.5, 0.6, 0.2, 0.1])
Y = (EVENT, TIME)


class TestEvents:
    def test_non_boolean_values(self):
        with pytest.raises(InputError, match=r"'event_indicator' parameter of "
                           r"concordance_index_censored must be boolean .* Got the values \[2\]"):
            concordance_index_censored([1, 0, 2, 1, 0], TIME, RISK)

    def test_strings(self):
        with pytest.raises(InputError, match=r"'event_indicator' .* dtype <U"):
            concordance_index_censored(["yes", "no", "yes", "yes", "no"], TIME, RISK)

    def test_zero_one_integers_are_events(self):
        a = concordance_index_censored(EVENT.astype(int), TIME, RISK)
        assert float(a) == float(concordance_index_censored(EVENT, TIME, RISK))

    def test_structured_array_event_field(self):
        y = np.array(list(zip([1, 0, 3, 1, 0], TIME)), dtype=[("e", int), ("t", float)])
        with pytest.raises(InputError, match=r"'survival_test\[\"e\"\]' parameter"):
            concordance_index_ipcw(Y, y, RISK)

    def test_all_censored_test(self):
        with pytest.raises(InputError, match=r"at least one event.*all samples are censored"):
            concordance_index_ipcw(Y, (np.zeros(5, bool), TIME), RISK)


class TestTimes:
    def test_negative_time(self):
        with pytest.raises(InputError, match=r"'event_time' parameter .* times >= 0 .* "
                           r"Got -1.0 at position 1"):
            concordance_index_censored(EVENT, [1.0, -1.0, 3, 4, 5], RISK)

    def test_nan_time(self):
        with pytest.raises(InputError, match=r"finite times. Got nan at position 2"):
            concordance_index_censored(EVENT, [1.0, 2, np.nan, 4, 5], RISK)

    def test_unequal_lengths(self):
        with pytest.raises(InputError, match=r"one time per subject"):
            concordance_index_censored(EVENT, TIME[:4], RISK)

    def test_times_outside_follow_up(self):
        with pytest.raises(InputError, match=r"within the follow-up time of the test data, "
                           r"\[1; 5\[ .*all times must be within follow-up time"):
            cumulative_dynamic_auc(Y, Y, RISK, times=[2.0, 5.0])

    def test_times_before_first_follow_up(self):
        with pytest.raises(InputError, match=r"'times' parameter .* Got \[0.5\]"):
            brier_score(Y, Y, RISK[:, None] / 2, times=[0.5])

    def test_duplicate_times(self):
        with pytest.raises(InputError, match=r"distinct time points"):
            cumulative_dynamic_auc(Y, Y, RISK, times=[2.0, 2.0])

    def test_test_event_beyond_training_follow_up(self):
        train = (np.array([True, False, True]), np.array([1.0, 2.0, 3.0]))
        with pytest.raises(InputError, match=r"beyond the last time observed in the training "
                           r"data \(3\).*time must be smaller than largest observed time"):
            concordance_index_ipcw(train, Y, RISK)

    def test_tau_cures_it(self):
        train = (np.array([True, False, True, False]), np.array([1.0, 2.0, 3.0, 3.5]))
        res = concordance_index_ipcw(train, Y, RISK, tau=3.5)
        assert 0 <= float(res) <= 1

    def test_censoring_zero(self):
        train = (np.array([True, False]), np.array([1.0, 5.0]))
        with pytest.raises(InputError, match=r"censoring distribution .* is 0 at time 5"):
            concordance_index_ipcw(train, (np.array([True, True]), np.array([1.0, 5.0])),
                                   [0.2, 0.1])


class TestEstimates:
    def test_nan_estimate(self):
        with pytest.raises(InputError, match=r"'estimate' parameter .* finite .* Got nan "
                           r"for subject 3"):
            concordance_index_censored(EVENT, TIME, [0.1, 0.2, 0.3, np.nan, 0.5])

    def test_wrong_length(self):
        with pytest.raises(InputError, match=r"one prediction per test subject \(5\)"):
            concordance_index_censored(EVENT, TIME, RISK[:3])

    def test_brier_needs_probabilities(self):
        with pytest.raises(InputError, match=r"survival probabilities in \[0, 1\]"):
            brier_score(Y, Y, RISK[:, None] * 3, times=[2.5])

    def test_brier_needs_one_column_per_time(self):
        with pytest.raises(InputError, match=r"must be 2-D, one column"):
            brier_score(Y, Y, RISK / 2, times=[2.5, 3.5])

    def test_integrated_needs_two_times(self):
        with pytest.raises(InputError, match=r"at least two time points"):
            integrated_brier_score(Y, Y, RISK[:, None] / 2, times=[2.5])


class TestPairs:
    def test_no_comparable_pairs(self):
        with pytest.raises(InputError, match=r"no comparable pairs.*1 events among 3"):
            concordance_index_censored([False, False, True], [1.0, 2, 3], [0.1, 0.2, 0.3])

    def test_tied_event_times_are_not_comparable(self):
        with pytest.raises(InputError, match=r"no comparable pairs"):
            concordance_index_censored([True, True], [2.0, 2.0], [0.1, 0.2])

    def test_event_and_censored_at_one_time(self):
        res = concordance_index_censored([True, False], [2.0, 2.0], [0.3, 0.2])
        assert float(res) == 1.0 and res.n_tied_time == 1
        with pytest.raises(InputError, match=r"no comparable pairs"):
            concordance_index_censored([True, False], [2.0, 2.0], [0.3, 0.2],
                                       tied_time="exclude")

    def test_all_tied_risk_excluded(self):
        with pytest.raises(InputError, match=r"tied_risk='exclude'"):
            concordance_index_censored([True, False], [1.0, 2.0], [0.3, 0.3],
                                       tied_risk="exclude")

    def test_no_comparable_before_tau(self):
        with pytest.raises(InputError, match=r"before tau=0.5"):
            concordance_index_ipcw(Y, Y, RISK, tau=0.5)


class TestParameters:
    @pytest.mark.parametrize(
        ("name", "value", "allowed"),
        [
            ("tied_risk", "average", "one of 'half', 'concordant', 'discordant', 'exclude'"),
            ("tied_time", "half", "one of 'censored_later', 'exclude'"),
            ("orientation", "hazard", "one of 'risk', 'survival'"),
            ("tied_tol", -1.0, "a finite real number >= 0"),
        ],
    )
    def test_closed_sets(self, name, value, allowed):
        with pytest.raises(InvalidParameterError, match=rf"The '{name}' parameter of "
                           rf"concordance_index_censored must be {allowed}\. Got"):
            concordance_index_censored(EVENT, TIME, RISK, **{name: value})

    def test_censoring_source(self):
        with pytest.raises(InvalidParameterError, match=r"'censoring' parameter of "
                           "concordance_index_ipcw must be one of 'train', 'test'"):
            concordance_index_ipcw(Y, Y, RISK, censoring="pooled")

    def test_preset(self):
        with pytest.raises(InvalidParameterError, match=r"one of 'sksurv', 'lifelines'"):
            concordance_index_censored(EVENT, TIME, RISK, preset="R")

    def test_tau(self):
        with pytest.raises(InvalidParameterError, match=r"'tau' parameter .* > 0"):
            concordance_index_ipcw(Y, Y, RISK, tau=-1)

    def test_survival_train_missing(self):
        with pytest.raises(InputError, match=r"'survival_train' .* censoring='test'"):
            concordance_index_ipcw(None, Y, RISK)

    def test_survival_pair_shape(self):
        with pytest.raises(InputError, match=r"'survival_test' parameter .* structured array"):
            concordance_index_ipcw(Y, np.c_[EVENT, TIME], RISK)

    def test_conventions_validate(self):
        with pytest.raises(InvalidParameterError, match=r"'orientation'"):
            SurvivalConventions(orientation="up")

    def test_scorer_metric(self):
        with pytest.raises(InvalidParameterError, match=r"'metric' parameter of "
                           "make_survival_scorer"):
            make_survival_scorer("c_index")

    def test_scorer_unknown_convention(self):
        with pytest.raises(InvalidParameterError, match=r"not a survival convention"):
            make_survival_scorer("harrell_c", ties="half")

    def test_scorer_tau_only_for_uno(self):
        with pytest.raises(InvalidParameterError, match=r"applies to 'uno_c' only"):
            make_survival_scorer("harrell_c", tau=3)
