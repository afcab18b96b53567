"""The randomisation (sign-flip) test.

References: a brute-force enumeration of all sign patterns written here with itertools;
scipy.stats.permutation_test with permutation_type="samples" (the paired permutation test),
exactly for small n and within Monte Carlo error otherwise.
"""

from __future__ import annotations

import inspect
import itertools
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from skrank import InputError, InvalidParameterError
from skrank.stats import randomization_test
from skrank.stats._permutation import _BYTE_SIGNS, sign_flip

_RNG_KW = "rng" if "rng" in inspect.signature(stats.permutation_test).parameters else "random_state"


def _scipy_paired_permutation(a, b, alternative, n_resamples, seed):
    def statistic(x, y, axis):
        return np.mean(x - y, axis=axis)

    return stats.permutation_test(
        (a, b), statistic, permutation_type="samples", vectorized=True, alternative=alternative,
        n_resamples=n_resamples, **{_RNG_KW: np.random.default_rng(seed)},
    ).pvalue


def _brute_force(d, alternative):
    """Share of all 2**n sign patterns at least as extreme as the observed sum."""
    observed = sum(d)
    count = 0
    total = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(d)):
        s = sum(si * di for si, di in zip(signs, d))
        total += 1
        if alternative == "greater":
            count += s >= observed - 1e-9
        elif alternative == "less":
            count += s <= observed + 1e-9
        else:
            count += abs(s) >= abs(observed) - 1e-9
    return count / total


# --------------------------------------------------------------------------- exact enumeration


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_matches_brute_force(alternative):
    rng = np.random.default_rng(0)
    for _ in range(5):
        d = np.round(rng.normal(0.05, 0.2, size=9), 2)  # rounding makes ties among sums
        res = randomization_test(d, alternative=alternative, n_permutations=10_000, rng=0)
        nonzero = [x for x in d if x != 0]
        assert res.exact and res.n_resamples == 2 ** len(nonzero)
        assert res.pvalue == pytest.approx(_brute_force(nonzero, alternative), abs=1e-12)


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_exact_matches_scipy_permutation_test(alternative):
    # scipy enumerates all 2**n patterns when n_resamples >= 2**n. Its two-sided p-value is
    # twice the smaller one-sided one, which equals ours for a symmetric null and a non-zero
    # observed sum.
    rng = np.random.default_rng(1)
    b = rng.uniform(0, 1, size=10)
    a = b + rng.normal(0.1, 0.2, size=10)
    ours = randomization_test(a - b, alternative=alternative, rng=0).pvalue
    ref = _scipy_paired_permutation(a, b, alternative, np.inf, 0)
    assert ours == pytest.approx(ref, abs=1e-12)


def test_zero_differences_are_left_out_of_the_enumeration():
    d = np.array([0.3, 0.0, 0.1, 0.0, -0.2, 0.4])
    res = randomization_test(d, rng=0)
    assert res.exact and res.n_resamples == 2**4 and res.n_zero == 2
    assert res.pvalue == pytest.approx(_brute_force(d, "two-sided"))


# --------------------------------------------------------------------------- Monte Carlo


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_monte_carlo_agrees_with_scipy_within_monte_carlo_error(alternative):
    rng = np.random.default_rng(2)
    b = rng.uniform(0, 1, size=60)
    a = b + rng.normal(0.03, 0.12, size=60)
    ours = randomization_test(a - b, alternative=alternative, n_permutations=10_000, rng=1)
    ref = _scipy_paired_permutation(a, b, alternative, 9_999, 2)
    assert not ours.exact
    # Both estimate the same p-value with B = 1e4: SD of the difference
    # <= sqrt(2 p (1 - p) / 1e4); 5 SD is below 0.02 for any p.
    sd = np.sqrt(2 * ref * (1 - ref) / 10_000)
    assert 0.005 < ref < 0.5  # the data make a p-value where the check has teeth
    assert abs(ours.pvalue - ref) <= 5 * sd + 1e-4


def test_monte_carlo_agrees_with_exact_enumeration():
    # 16 differences: 65,536 patterns enumerated, versus 20,000 random ones.
    rng = np.random.default_rng(3)
    d = rng.normal(0.04, 0.1, size=16)
    exact = randomization_test(d, n_permutations=2**16, rng=0)
    mc = randomization_test(d, n_permutations=20_000, rng=0)
    assert exact.exact and not mc.exact
    sd = np.sqrt(exact.pvalue * (1 - exact.pvalue) / 20_000)
    assert abs(mc.pvalue - exact.pvalue) <= 5 * sd + 1 / 20_001


def test_pvalue_is_never_zero():
    # An overwhelming effect: no random pattern reaches it, p = 1 / (B + 1).
    d = np.full(200, 0.3) + np.linspace(0, 0.01, 200)
    res = randomization_test(d, n_permutations=999, rng=0)
    assert res.pvalue == pytest.approx(1 / 1000)


def test_byte_table_sums_match_explicit_signs():
    # The look-up table must give the same signed sums as unpacking the bits one by one.
    rng = np.random.default_rng(4)
    for m in (1, 7, 8, 9, 31, 64, 100):
        d = rng.normal(size=m)
        n_bytes = (m + 7) // 8
        raw = rng.integers(0, 256, size=(50, n_bytes), dtype=np.uint8)
        padded = np.zeros(n_bytes * 8)
        padded[:m] = d
        table = (padded.reshape(n_bytes, 8) @ _BYTE_SIGNS.T).ravel()
        sums = table[raw + np.arange(n_bytes) * 256].sum(axis=1)
        bits = np.unpackbits(raw, axis=1, count=m)
        oracle = [sum((1.0 if bit else -1.0) * x for bit, x in zip(row, d)) for row in bits]
        np.testing.assert_allclose(sums, oracle, rtol=1e-12, atol=1e-12)


def test_chunking_does_not_change_the_exact_result(monkeypatch):
    import skrank.stats._permutation as mod

    d = np.random.default_rng(5).normal(0.05, 0.2, size=12)
    whole = sign_flip(d, 10_000, "two-sided", np.random.default_rng(0))
    monkeypatch.setattr(mod, "_CHUNK_ELEMENTS", 50)  # many small chunks
    chunked = sign_flip(d, 10_000, "two-sided", np.random.default_rng(0))
    assert whole == chunked


def test_monte_carlo_chunks_cover_every_pattern(monkeypatch):
    # With tiny chunks (3 patterns each, last one partial) every requested pattern is counted:
    # an overwhelming effect gives exactly 1 / (B + 1).
    import skrank.stats._permutation as mod

    monkeypatch.setattr(mod, "_LOOKUPS_PER_CHUNK", 3 * 4)
    d = np.full(30, 0.5)
    p, used, exact = sign_flip(d, 100, "greater", np.random.default_rng(0))
    assert (used, exact) == (100, False)
    assert p == pytest.approx(1 / 101)


# --------------------------------------------------------------------------- properties


@given(
    d=st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=40),
    seed=st.integers(0, 2**32),
)
def test_properties_of_the_pvalue(d, seed):
    d = np.array(d)
    b = 200
    two = randomization_test(d, n_permutations=b, rng=seed)
    assert 0 < two.pvalue <= 1
    if not two.exact:
        assert two.pvalue >= 1 / (b + 1)
    # Flipping every sign leaves the two-sided p-value unchanged and swaps the one-sided ones
    # (the same seed draws the same patterns).
    assert randomization_test(-d, n_permutations=b, rng=seed).pvalue == two.pvalue
    greater = randomization_test(d, n_permutations=b, rng=seed, alternative="greater")
    less = randomization_test(-d, n_permutations=b, rng=seed, alternative="less")
    assert greater.pvalue == less.pvalue


def test_same_seed_same_pvalue_different_seed_differs():
    d = np.random.default_rng(6).normal(0.02, 0.1, size=80)
    p1 = randomization_test(d, rng=7).pvalue
    assert randomization_test(d, rng=7).pvalue == p1
    assert randomization_test(d, rng=8).pvalue != p1


# --------------------------------------------------------------------------- bad input


def test_bad_input():
    with pytest.raises(InputError, match="differences has NaN values"):
        randomization_test([0.1, np.nan, 0.2])
    with pytest.raises(InputError, match="at least 2 differences are needed; got 1"):
        randomization_test([0.1])
    with pytest.raises(InvalidParameterError,
                       match=re.escape("The 'alternative' parameter of randomization_test must "
                                       "be one of 'two-sided', 'greater', 'less'. Got 'both' "
                                       "instead.")):
        randomization_test([0.1, 0.2], alternative="both")
    with pytest.raises(InvalidParameterError,
                       match=re.escape("The 'n_permutations' parameter of randomization_test "
                                       "must be an int >= 1. Got 0 instead.")):
        randomization_test([0.1, 0.2], n_permutations=0)
