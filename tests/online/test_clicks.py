"""Click models: closed-form probabilities against simulation and hand values."""

from __future__ import annotations

import numpy as np
import pytest

from skrank.exceptions import InputError, InvalidParameterError
from skrank.online import CascadeModel, PositionBasedModel, ctr_at_k


def test_pbm_defaults_by_hand():
    pbm = PositionBasedModel()
    # examination (1 / (k + 1)) ** 1 for 10 positions (Joachims et al. 2017, eta = 1)
    np.testing.assert_allclose(pbm.examination, 1.0 / np.arange(1, 11))
    # attractiveness (2**l - 1) / 2**4 for labels 0..4 (ERR's stopping probability)
    np.testing.assert_allclose(pbm.attractiveness, [0, 1 / 16, 3 / 16, 7 / 16, 15 / 16])
    # position 0 label 4: 1 * 15/16; position 1 label 2: 1/2 * 3/16; position 2 label 0: 0
    np.testing.assert_allclose(pbm.click_probabilities([4, 2, 0]), [15 / 16, 3 / 32, 0.0])
    # positions past the examined ones are never clicked
    pbm3 = PositionBasedModel(n_positions=2, eta=0.0)
    np.testing.assert_allclose(pbm3.click_probabilities([4, 4, 4]), [15 / 16, 15 / 16, 0])


def test_pbm_expected_ctr_definitions_by_hand():
    pbm = PositionBasedModel(examination=[1.0, 0.5, 0.25], attractiveness=[0.2, 0.8])
    labels = [1, 0, 1]
    p = np.array([0.8, 0.1, 0.2])   # examination * attractiveness
    assert pbm.expected_ctr(labels, definition="clicks_per_impression") == pytest.approx(p.sum())
    assert pbm.expected_ctr(labels, definition="any_click") == pytest.approx(
        1 - np.prod(1 - p)
    )
    np.testing.assert_allclose(pbm.expected_ctr(labels, definition="positional", k=2), p[:2])
    assert pbm.expected_ctr(labels, definition="any_click", k=1) == pytest.approx(0.8)


def test_cascade_probabilities_by_hand():
    cm = CascadeModel(attractiveness=[0.1, 0.5, 0.9])
    # P(click at k) = a_k prod_{j<k} (1 - a_j): 0.5, 0.5*0.9 = 0.45, 0.5*0.1*0.1 = 0.005
    np.testing.assert_allclose(cm.click_probabilities([1, 2, 0]), [0.5, 0.45, 0.005])
    assert cm.expected_ctr([1, 2, 0], definition="any_click") == pytest.approx(0.955)
    assert cm.expected_ctr([1, 2, 0], definition="clicks_per_impression") == pytest.approx(0.955)
    # -1 slots are empty: never clicked and transparent to the scan
    np.testing.assert_allclose(cm.click_probabilities([-1, 1]), [0.0, 0.5])


@pytest.mark.parametrize(
    "model",
    [
        PositionBasedModel(eta=1.5, n_positions=6),
        PositionBasedModel(examination=[0.9, 0.0, 0.6, 0.3], attractiveness="linear"),
        CascadeModel(),
        CascadeModel(attractiveness=[0.05, 0.3, 0.7]),
    ],
)
def test_simulated_click_rates_match_click_probabilities(model):
    rng = np.random.default_rng(0)
    labels = rng.integers(0, model.max_label + 1, size=6)
    n = 40_000
    clicks = model.simulate(np.tile(labels, (n, 1)), rng=1)
    want = model.click_probabilities(labels)
    se = np.sqrt(want * (1 - want) / n)
    assert np.all(np.abs(clicks.mean(axis=0) - want) <= 4.5 * se + 1e-12)
    for definition in ("any_click", "clicks_per_impression"):
        got = ctr_at_k(clicks, 6, definition=definition)
        assert got == pytest.approx(model.expected_ctr(labels, definition=definition), abs=0.015)
    if isinstance(model, CascadeModel):
        assert clicks.sum(axis=1).max() <= 1


def test_simulate_is_seeded_and_keeps_shape():
    pbm = PositionBasedModel()
    labels = [[4, 3, 2], [1, 0, -1]]
    a = pbm.simulate(labels, rng=5)
    b = pbm.simulate(labels, rng=np.random.default_rng(5))
    assert a.shape == (2, 3) and a.dtype == bool
    np.testing.assert_array_equal(a, b)
    assert not a[1, 2]   # empty slot
    one = CascadeModel().simulate([4, 4, 4], rng=0)
    assert one.shape == (3,) and one.sum() <= 1


def test_repr():
    want = "CascadeModel(attractiveness=[0.0, 1.0])"
    assert repr(CascadeModel(attractiveness=[0.0, 1.0])) == want
    assert repr(PositionBasedModel(examination=[1.0], attractiveness=[0.0, 0.5])).startswith(
        "PositionBasedModel(examination=[1.0]"
    )


def test_bad_input():
    with pytest.raises(InputError, match=r"'labels' parameter of PositionBasedModel.simulate "
                       r"must be integers in 0..4 \(or -1 for an empty slot\). Got 5"):
        PositionBasedModel().simulate([1, 5])
    with pytest.raises(InputError, match=r"'labels'.*integers"):
        CascadeModel().click_probabilities([0.5, 1.0])
    with pytest.raises(InputError, match=r"'examination'.*probabilities in \[0, 1\]. Got 1.5"):
        PositionBasedModel(examination=[1.0, 1.5])
    with pytest.raises(InputError, match=r"'attractiveness'.*probabilities in \[0, 1\]"):
        CascadeModel(attractiveness=[-0.1, 0.5])
    with pytest.raises(InvalidParameterError, match=r"'attractiveness'.*'exp', 'linear'"):
        CascadeModel(attractiveness="quadratic")
    with pytest.raises(InvalidParameterError, match=r"'max_label'.*None or 1"):
        CascadeModel(attractiveness=[0.1, 0.9], max_label=4)
    with pytest.raises(InvalidParameterError, match=r"'eta'.*>= 0. Got -1"):
        PositionBasedModel(eta=-1)
    with pytest.raises(InvalidParameterError, match=r"'definition'.*'any_click'"):
        PositionBasedModel().expected_ctr([1], definition="ctr")
    with pytest.raises(InvalidParameterError, match=r"'rng'"):
        CascadeModel().simulate([1], rng=-3)
