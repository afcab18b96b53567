"""Bad input: each a clear error naming the parameter, in skrank's one format."""

from __future__ import annotations

import numpy as np
import pytest

import skrank.uplift as su
from skrank.exceptions import InputError, InvalidParameterError

Y = np.array([1, 1, 0, 1, 0, 0, 1, 0])
T = np.array([1, 1, 0, 1, 0, 1, 0, 0])
S = np.array([0.9, 0.8, 0.8, 0.5, 0.5, 0.3, 0.2, 0.2])

SCORERS = [su.uplift_curve, su.qini_curve, su.uplift_auc_score, su.qini_auc_score]


class TestTreatment:
    @pytest.mark.parametrize("fn", SCORERS)
    def test_not_binary(self, fn):
        t = T.copy()
        t[0] = 2
        with pytest.raises(InputError, match=rf"The 'treatment' parameter of {fn.__name__} must "
                                             r"be binary.*Got other values, e\.g\. \[2\]"):
            fn(Y, S, t)

    def test_float_flags_other_than_0_1(self):
        with pytest.raises(InputError, match=r"'treatment'.*e\.g\. \[0\.5\]"):
            su.qini_auc_score(Y, S, np.where(T == 1, 1.0, 0.5))

    def test_one_group_only(self):
        with pytest.raises(InputError, match=r"both treated .1. and control .0. rows. Got 8 "
                                             r"treated and 0 control rows instead"):
            su.qini_auc_score(Y, S, np.ones(8))

    def test_bool_flags_accepted(self):
        assert float(su.qini_auc_score(Y, S, T.astype(bool))) == float(su.qini_auc_score(Y, S, T))


class TestLengths:
    def test_uplift_shorter(self):
        with pytest.raises(InputError, match=r"The 'uplift' parameter of qini_curve must be an "
                                             r"array with one score per row of y_true \(8 rows\)"):
            su.qini_curve(Y, S[:-1], T)

    def test_treatment_longer(self):
        with pytest.raises(InputError, match=r"'treatment' parameter of uplift_at_k must be an "
                                             r"array with one flag per row of y_true \(8 rows\)"):
            su.uplift_at_k(Y, S, np.r_[T, 1], "overall", 0.5)

    def test_two_dimensional(self):
        with pytest.raises(InputError, match=r"'uplift'.*a 1-D array. Got an array of shape"):
            su.qini_curve(Y, np.ones((8, 2)), T)

    def test_empty(self):
        with pytest.raises(InputError, match=r"'y_true'.*non-empty"):
            su.qini_curve([], [], [])


class TestNaN:
    def test_nan_uplift(self):
        s = S.copy()
        s[3] = np.nan
        with pytest.raises(InputError, match=r"The 'uplift' parameter of uplift_auc_score must "
                                             r"be free of NaN.*Got 1 NaN scores \(the first at "
                                             r"row 3\)"):
            su.uplift_auc_score(Y, s, T)

    def test_nan_outcome(self):
        y = Y.astype(float)
        y[0] = np.nan
        with pytest.raises(InputError, match=r"'y_true'.*finite outcomes"):
            su.qini_curve(y, S, T)

    def test_real_outcomes_need_no_perfect_curve(self):
        y = Y * 2.5
        with pytest.raises(InputError, match=r"'y_true' parameter of qini_auc_score must be "
                                             r"binary .* to draw a perfect curve"):
            su.qini_auc_score(y, S, T)
        assert np.isfinite(float(su.qini_auc_score(y, S, T, normalize="none")))


class TestTopK:
    def test_group_empty_in_top_k(self):
        with pytest.raises(InputError, match=r"The 'k' parameter of uplift_at_k must be large "
                                             r"enough .* Got 1 \(top 1 row: 1 treated, 0 "
                                             r"control\)"):
            su.uplift_at_k(Y, S, T, "overall", 1)

    def test_by_group_k_larger_than_a_group(self):
        with pytest.raises(InputError, match=r"'k' parameter of uplift_at_k must be a number of "
                                             r"rows between 1 and the 4 treated rows"):
            su.uplift_at_k(Y, S, T, "by_group", 5)

    def test_fraction_rounding_to_zero_rows(self):
        with pytest.raises(InputError, match=r"'k'.*Got 0.1 .0 treated rows."):
            su.uplift_at_k(Y, S, T, "by_group", 0.1)

    @pytest.mark.parametrize("k", [0, -1, 0.0, 1.5, True, "3", None])
    def test_k_outside_its_set(self, k):
        with pytest.raises(InvalidParameterError, match=r"The 'k' parameter of uplift_at_k must "
                                                        r"be a fraction of the rows"):
            su.uplift_at_k(Y, S, T, "overall", k)

    def test_count_above_the_rows(self):
        with pytest.raises(InvalidParameterError, match=r"'k'.*at most the number of rows .8."):
            su.uplift_at_k(Y, S, T, "overall", 9)

    def test_strategy(self):
        with pytest.raises(InvalidParameterError, match=r"The 'strategy' parameter of uplift_at_k "
                                                        r"must be one of 'overall', 'by_group'"):
            su.uplift_at_k(Y, S, T, "all", 0.5)


class TestConventions:
    def test_unknown_tie_rule(self):
        with pytest.raises(InvalidParameterError, match=r"The 'ties' parameter of qini_auc_score "
                                                        r"must be one of 'group', 'input', "
                                                        "'reverse', 'unstable'. Got 'average'"):
            su.qini_auc_score(Y, S, T, ties="average")

    def test_curves_take_no_perfect_normalisation(self):
        with pytest.raises(InvalidParameterError, match=r"'normalize' parameter of qini_curve "
                                                        r"must be one of 'none', 'last'"):
            su.qini_curve(Y, S, T, normalize="perfect")

    def test_preset(self):
        with pytest.raises(InvalidParameterError, match=r"'preset' parameter of uplift_curve "
                                                        r"must be one of 'sklift', 'causalml'"):
            su.uplift_curve(Y, S, T, preset="pylift")

    def test_causalml_has_no_uplift_at_k(self):
        with pytest.raises(InvalidParameterError, match=r"causalml has no uplift@k"):
            su.uplift_at_k(Y, S, T, "overall", 0.5, preset="causalml")

    def test_negative_effect_must_be_bool(self):
        with pytest.raises(InvalidParameterError, match=r"'negative_effect'.*a bool. Got 1"):
            su.qini_auc_score(Y, S, T, 1)

    def test_last_normalisation_of_a_curve_ending_at_zero(self):
        y = np.array([1, 0, 1, 0])
        t = np.array([1, 1, 0, 0])
        with pytest.raises(InputError, match=r"'normalize' parameter of uplift_auc_score .* "
                                             r"ends at 0"):
            su.uplift_auc_score(y, [4, 3, 2, 1], t, normalize="last")

    def test_bins(self):
        with pytest.raises(InvalidParameterError, match=r"'bins'.*smaller than the number of "
                                                        r"rows .8."):
            su.uplift_by_percentile(Y, S, T, bins=8)

    def test_conventions_value(self):
        with pytest.raises(InvalidParameterError, match=r"'area' parameter must be one of "
                                                        r"'trapezoid', 'points'"):
            su.UpliftConventions(area="simpson")
