"""skrank.survival against the slow loop oracle, on random data full of ties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skrank.survival import (
    brier_score,
    concordance_index_censored,
    concordance_index_ipcw,
    cumulative_dynamic_auc,
)

from . import _oracle


@st.composite
def outcomes(draw, min_size=2, max_size=40):
    n = draw(st.integers(min_size, max_size))
    time = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    event = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    risk = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    event[0] = True
    return np.array(event), np.array(time, float), np.array(risk, float) / 4


RULES = ("half", "concordant", "discordant", "exclude")


@given(outcomes(), st.sampled_from(RULES), st.sampled_from(("censored_later", "exclude")))
def test_harrell_equals_oracle(data, tied_risk, tied_time):
    event, time, risk = data
    try:
        ref = _oracle.concordance(event, time, risk, tied_risk=tied_risk, tied_time=tied_time)
    except ZeroDivisionError:
        with pytest.raises(ValueError, match="no comparable pairs"):
            concordance_index_censored(event, time, risk, tied_risk=tied_risk,
                                       tied_time=tied_time)
        return
    res = concordance_index_censored(event, time, risk, tied_risk=tied_risk,
                                     tied_time=tied_time)
    assert abs(float(res) - ref[0]) <= 1e-12
    assert (res.n_concordant, res.n_discordant, res.n_tied_risk, res.n_tied_time) == ref[1:]


@given(outcomes(), st.floats(0.0, 0.3))
def test_tolerance_equals_oracle(data, tol):
    event, time, risk = data
    risk = risk + np.linspace(0, 0.05, risk.shape[0])  # near-ties for the tolerance
    try:
        ref = _oracle.concordance(event, time, risk, tol=tol)
    except ZeroDivisionError:
        return
    res = concordance_index_censored(event, time, risk, tied_tol=tol)
    assert abs(float(res) - ref[0]) <= 1e-12
    assert (res.n_concordant, res.n_discordant, res.n_tied_risk) == ref[1:4]


@given(outcomes(), outcomes(min_size=3), st.sampled_from((None, 3.0, 5.0)))
def test_uno_equals_oracle(train, test, tau):
    tr_event, tr_time, _ = train
    tr_time[0], tr_event[0] = 7.0, False  # follow-up beyond every test time, G > 0
    event, time, risk = test
    try:
        ref = _oracle.uno(tr_event, tr_time, event, time, risk, tau=tau)
    except ZeroDivisionError:
        return
    res = concordance_index_ipcw((tr_event, tr_time), (event, time), risk, tau=tau)
    assert abs(float(res) - ref[0]) <= 1e-12
    assert (res.n_concordant, res.n_discordant, res.n_tied_risk) == ref[1:4]


@given(outcomes(), outcomes(min_size=4))
def test_auc_and_brier_equal_oracle(train, test):
    tr_event, tr_time, _ = train
    tr_time[0], tr_event[0] = 7.0, False
    event, time, risk = test
    lo, hi = time[event].min(), time.max()
    if not lo < hi:
        return
    times = np.unique([lo, (lo + hi) / 2])
    res = cumulative_dynamic_auc((tr_event, tr_time), (event, time), risk, times)
    for t, value in zip(times, res.auc):
        assert abs(value - _oracle.auc_at(tr_event, tr_time, event, time, risk, t)) <= 1e-12
    surv = np.linspace(0.1, 0.9, event.shape[0] * times.shape[0]).reshape(-1, times.shape[0])
    _, scores = brier_score((tr_event, tr_time), (event, time), surv, times)
    for j, t in enumerate(times):
        ref = _oracle.brier_at(tr_event, tr_time, event, time, surv[:, j], t)
        assert abs(scores[j] - ref) <= 1e-12


def test_large_input_equals_oracle_counts():
    rng = np.random.default_rng(7)
    n = 400
    event = rng.random(n) < 0.5
    time = rng.integers(0, 30, n).astype(float)
    risk = rng.integers(0, 20, n) / 20
    res = concordance_index_censored(event, time, risk)
    ref = _oracle.concordance(event, time, risk)
    assert abs(float(res) - ref[0]) <= 1e-12
    assert tuple(res)[1:] == ref[1:]
