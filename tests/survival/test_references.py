"""Equal to scikit-survival 0.28 and lifelines 0.30 to 1e-12, on random data with tied risks,
tied times and events and censorings at one time (references from the test extra; skipped,
with the reason, only where they cannot be imported)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skrank.survival import (
    brier_score,
    concordance_index_censored,
    concordance_index_ipcw,
    cumulative_dynamic_auc,
    integrated_brier_score,
)

SEEDS = range(40)


def _data(seed, n=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(5, 300))
    time = rng.integers(1, 20, n).astype(float)  # tied times, events and censorings at once
    event = rng.random(n) < 0.6
    event[0] = True
    risk = rng.integers(0, 10, n) / 10.0  # tied risks
    risk[rng.random(n) < 0.2] += 3e-9  # ties within scikit-survival's tied_tol
    return event, time, risk


def _train(seed, n=200):
    rng = np.random.default_rng(seed + 1000)
    time = rng.integers(1, 20, n).astype(float)
    event = rng.random(n) < 0.5
    time[0], event[0] = 25.0, False  # followed beyond every test time: G > 0
    return event, time


class TestScikitSurvival:
    sm = None

    @pytest.fixture(autouse=True)
    def _sksurv(self):
        self.sm = pytest.importorskip("sksurv.metrics", reason="scikit-survival is not installed")
        self.Surv = pytest.importorskip("sksurv.util").Surv

    @pytest.mark.parametrize("seed", SEEDS)
    def test_harrell(self, seed):
        event, time, risk = _data(seed)
        ref = self.sm.concordance_index_censored(event, time, risk)
        res = concordance_index_censored(event, time, risk, preset="sksurv")
        assert abs(float(res) - ref[0]) <= 1e-12
        assert tuple(res)[1:] == tuple(int(v) for v in ref[1:])

    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("tau", [None, 12.0])
    def test_uno(self, seed, tau):
        event, time, risk = _data(seed)
        y_train = self.Surv.from_arrays(*_train(seed))
        y_test = self.Surv.from_arrays(event, time)
        ref = self.sm.concordance_index_ipcw(y_train, y_test, risk, tau=tau)
        res = concordance_index_ipcw(y_train, y_test, risk, tau=tau, preset="sksurv")
        assert abs(float(res) - ref[0]) <= 1e-12
        if tau is None:  # scikit-survival's counts include the pairs beyond tau
            assert tuple(res)[1:] == tuple(int(v) for v in ref[1:])

    @pytest.mark.parametrize("seed", SEEDS)
    def test_uno_test_censoring_is_sksurv_with_test_as_train(self, seed):
        event, time, risk = _data(seed)
        y_test = self.Surv.from_arrays(event, time)
        try:
            ref = self.sm.concordance_index_ipcw(y_test, y_test, risk)[0]
        except ValueError as exc:
            with pytest.raises(ValueError, match="is 0 at time"):
                concordance_index_ipcw(None, y_test, risk, censoring="test")
            assert "zero" in str(exc)
            return
        res = concordance_index_ipcw(None, y_test, risk, censoring="test")
        assert abs(float(res) - ref) <= 1e-12

    @pytest.mark.parametrize("seed", SEEDS)
    def test_cumulative_dynamic_auc(self, seed):
        event, time, risk = _data(seed)
        y_train = self.Surv.from_arrays(*_train(seed))
        y_test = self.Surv.from_arrays(event, time)
        times = np.unique(np.clip([3.5, 8.0, 12.5], time[event].min(), time.max() - 0.5))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            auc, mean = self.sm.cumulative_dynamic_auc(y_train, y_test, risk, times)
        res = cumulative_dynamic_auc(y_train, y_test, risk, times)
        assert np.max(np.abs(res.auc - auc)) <= 1e-12
        assert abs(float(res) - mean) <= 1e-12
        est2d = risk[:, None] + np.arange(times.shape[0]) * 0.01 * risk[::-1, None]
        auc, mean = self.sm.cumulative_dynamic_auc(y_train, y_test, est2d, times)
        res = cumulative_dynamic_auc(y_train, y_test, est2d, times)
        assert np.max(np.abs(res.auc - auc)) <= 1e-12
        assert abs(res.mean_auc - mean) <= 1e-12

    @pytest.mark.parametrize("seed", SEEDS)
    def test_brier_and_integrated(self, seed):
        event, time, _ = _data(seed)
        y_train = self.Surv.from_arrays(*_train(seed))
        y_test = self.Surv.from_arrays(event, time)
        times = np.arange(max(2.0, time.min()), min(time.max(), 15.0))
        rng = np.random.default_rng(seed)
        surv = np.sort(rng.random((event.shape[0], times.shape[0])), axis=1)[:, ::-1]
        ref_t, ref_s = self.sm.brier_score(y_train, y_test, surv, times)
        t, s = brier_score(y_train, y_test, surv, times)
        assert np.array_equal(t, ref_t)
        assert np.max(np.abs(s - ref_s)) <= 1e-12
        ref = self.sm.integrated_brier_score(y_train, y_test, surv, times)
        assert abs(float(integrated_brier_score(y_train, y_test, surv, times)) - ref) <= 1e-12

    def test_large_with_ties(self):
        event, time, risk = _data(99, n=5000)
        ref = self.sm.concordance_index_censored(event, time, risk)
        res = concordance_index_censored(event, time, risk)
        assert abs(float(res) - ref[0]) <= 1e-12
        assert tuple(res)[1:] == tuple(int(v) for v in ref[1:])

    def test_no_comparable_pair_is_refused_as_sksurv_does(self):
        # one event, at the latest time
        event = np.array([False, False, True])
        time = np.array([1.0, 2.0, 3.0])
        with pytest.raises(self.sm.NoComparablePairException):
            self.sm.concordance_index_censored(event, time, np.array([0.1, 0.2, 0.3]))
        with pytest.raises(ValueError, match="no comparable pairs"):
            concordance_index_censored(event, time, [0.1, 0.2, 0.3])


class TestLifelines:
    @pytest.fixture(autouse=True)
    def _lifelines(self):
        self.ci = pytest.importorskip(
            "lifelines.utils", reason="lifelines is not installed"
        ).concordance_index

    @pytest.mark.parametrize("seed", SEEDS)
    def test_harrell_survival_times(self, seed):
        event, time, risk = _data(seed)
        predicted_time = -np.round(risk, 1)  # lifelines ties only equal predictions
        ref = self.ci(time, predicted_time, event)
        res = concordance_index_censored(event, time, predicted_time, preset="lifelines")
        assert abs(float(res) - ref) <= 1e-12

    @pytest.mark.parametrize("seed", SEEDS)
    def test_risk_passed_as_survival_time_gives_one_minus(self, seed):
        event, time, risk = _data(seed)
        risk = np.round(risk, 1)
        ref = self.ci(time, risk, event)  # the common mistake: a risk given to lifelines
        mistaken = concordance_index_censored(event, time, risk, preset="lifelines")
        right = concordance_index_censored(event, time, risk, orientation="risk", tied_tol=0)
        assert abs(float(mistaken) - ref) <= 1e-12
        assert abs(float(mistaken) + float(right) - 1.0) <= 1e-12

    def test_exact_ties_differ_from_tolerance(self):
        event = np.array([True, True, False])
        time = np.array([1.0, 2.0, 3.0])
        pred = np.array([1.0, 1.0 + 5e-9, 2.0])
        ref = self.ci(time, pred, event)
        assert float(concordance_index_censored(event, time, pred, preset="lifelines")) == ref
        assert float(concordance_index_censored(event, time, pred, orientation="survival")) != ref
