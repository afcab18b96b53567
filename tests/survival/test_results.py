"""Results behave as floats, unpack like scikit-survival's tuples and print their conventions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from skrank.survival import (
    brier_score,
    concordance_index_censored,
    concordance_index_ipcw,
    cumulative_dynamic_auc,
    integrated_brier_score,
)

EVENT = np.array([True, False, True, True, False, True])
TIME = np.array([1.0, 3.0, 3.0, 4.0, 5.0, 6.0])
RISK = np.array([0.9, 0.5, 0.6, 0.6, 0.1, 0.2])


@pytest.fixture
def c():
    return concordance_index_censored(EVENT, TIME, RISK)


def test_float_behaviour(c):
    v = 21 / 22
    assert float(c) == v and c == v and c != 0.5 and c > 0.9 and c <= 1
    assert c + 1 == v + 1 and 1 - c == 1 - v and 2 * c == 2 * v and c / 2 == v / 2
    assert round(c, 3) == round(v, 3) and f"{c:.3f}" == f"{v:.3f}"
    assert -c == -v and abs(c) == v and math.isclose(np.float64(c), v)
    assert max(c, 0.5) is c and sorted([c, 0.99, 0.1])[1] is c


def test_sksurv_tuple(c):
    cindex, con, dis, tied_risk, tied_time = c
    assert (cindex, con, dis, tied_risk, tied_time) == (21 / 22, 10, 0, 1, 1)
    assert c[0] == cindex and len(c) == 5 and c.n_comparable == 11


def test_prints_conventions_and_counts(c):
    text = str(c)
    assert text.startswith("Harrell's C = 0.9545 (tied_risk=half, tied_time=censored_later")
    assert "11 comparable pairs: 10 concordant, 0 discordant, 1 tied in risk" in text
    assert "1 event/censored pairs tied in time (comparable)" in text
    assert f"{c}" == text and repr(c).startswith("<ConcordanceResult Harrell's C")
    assert c.to_dict()["n_tied_time"] == 1


def test_tied_time_exclude_counts_but_drops(c):
    ex = concordance_index_censored(EVENT, TIME, RISK, tied_time="exclude")
    assert ex.n_tied_time == 1 and ex.n_comparable == c.n_comparable - 1
    assert "(excluded)" in str(ex) and tuple(ex)[4] == 0


@pytest.mark.parametrize(("rule", "value"), [
    ("half", 10.5 / 11), ("concordant", 1.0), ("discordant", 10 / 11), ("exclude", 1.0),
])
def test_tied_risk_rules(rule, value):
    res = concordance_index_censored(EVENT, TIME, RISK, tied_risk=rule)
    assert float(res) == pytest.approx(value, abs=1e-15)


def test_orientation_reverses():
    risk = concordance_index_censored(EVENT, TIME, RISK, tied_risk="exclude")
    surv = concordance_index_censored(EVENT, TIME, RISK, tied_risk="exclude",
                                      orientation="survival")
    assert float(risk) + float(surv) == pytest.approx(1.0)


def test_uno_prints_tau():
    train = (np.array([True, False] * 5), np.arange(1.0, 11.0))
    res = concordance_index_ipcw(train, (EVENT, TIME), RISK, tau=5)
    assert "Uno's C" in str(res) and "tau=5," in str(res)


def test_auc_and_brier_results():
    train = (np.array([True, False] * 5), np.arange(1.0, 11.0))
    auc = cumulative_dynamic_auc(train, (EVENT, TIME), RISK, times=[2.0, 4.5])
    a, m = auc
    assert float(auc) == m == auc.mean_auc and a.shape == (2,)
    assert str(auc).startswith("mean AUC(t) = ") and "censoring=train" in str(auc)
    S = np.tile([0.9, 0.6], (6, 1))
    bs = brier_score(train, (EVENT, TIME), S, times=[4.5, 2.0])  # sorted, columns too
    t, s = bs
    assert t.tolist() == [2.0, 4.5]
    assert s.tolist() == brier_score(train, (EVENT, TIME), S[:, ::-1], [2.0, 4.5]).scores.tolist()
    with pytest.raises(TypeError, match="one time point"):
        float(bs)
    one = brier_score(train, (EVENT, TIME), S[:, :1], times=[2.0])
    assert float(one) == one.scores[0]
    ibs = integrated_brier_score(train, (EVENT, TIME), S, times=[2.0, 4.5])
    assert 0 <= ibs < 1 and "Integrated Brier score" in str(ibs)


def test_structured_array_equals_pair():
    y = np.array(list(zip(EVENT, TIME)), dtype=[("event", bool), ("time", float)])
    a = concordance_index_ipcw(y, y, RISK)
    b = concordance_index_ipcw((EVENT, TIME), (EVENT, TIME), RISK)
    assert float(a) == float(b)
