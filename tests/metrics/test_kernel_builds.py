"""The two builds of the ranking kernels give the same bits.

``skrank.metrics._kernels._ranking`` is built for any CPU of the platform, ``_ranking_v3`` from the
same source with ``-march=x86-64-v3`` (AVX2, FMA), and ``skrank.metrics._kernels`` loads the latter
where the CPU has these instructions. Vector instructions and FMA must not change a value:
the build contracts nothing into fused multiply-adds and reorders no floating-point sum.
Each kernel is called on random queries with heavy ties, every metric kind, tie rule, gain
mode and the dtypes ``evaluate`` passes.
"""

from __future__ import annotations

import numpy as np
import pytest

from skrank.metrics import _kernels
from skrank.metrics._kernels import _ranking as baseline

v3 = pytest.importorskip(
    "skrank.metrics._kernels._ranking_v3",
    reason="the x86-64-v3 build exists only on x86-64 (see src/skrank/meson.build)",
)
if not _kernels._arrays.cpu_has_x86_64_v3():  # pragma: no cover - depends on the machine
    pytest.skip("this CPU cannot run the x86-64-v3 build (no AVX2/FMA)", allow_module_level=True)

KINDS = np.array([0, 1, 2, 3, 4, 5, 6, 7, 0, 5, 6], dtype=np.int64)  # every metric kind
KS = np.array([10, 5, 5, 10, 3, 10, 0, 5, 32, 32, 3], dtype=np.int64)


def _queries(seed, label_dtype, score_dtype):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, [6, 80, 300][seed % 3], size=30)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    y = rng.integers(0, 5, offsets[-1])
    s = np.round(rng.random(offsets[-1]) + 0.3 * y, 1 + seed % 3)
    return offsets, y.astype(label_dtype), s.astype(score_dtype)


def test_the_variant_in_use_is_named():
    assert _kernels.VARIANT == "x86-64-v3"
    assert _kernels.ranking is v3


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tie", range(4))
@pytest.mark.parametrize("gain", ["exp", "linear", "table"])
def test_one_pass_kernel_builds_agree(seed, tie, gain):
    label_dtype = [np.int64, np.float64][seed % 2]
    offsets, y, s = _queries(seed, label_dtype, [np.float64, np.float32][tie % 2])
    table = {"exp": 2.0 ** np.arange(63) - 1.0, "linear": np.arange(63.0),
             "table": np.array([0.0, 1.0, 7.0, 3.0, 15.0])}[gain]
    order = np.argsort(-table, kind="stable").astype(np.int64)
    outs = []
    for mod in (baseline, v3):
        out = (np.empty((30, KINDS.shape[0])), np.zeros((30, KINDS.shape[0]), bool),
               np.zeros((30, KINDS.shape[0]), bool))
        bad = mod.evaluate_contiguous(offsets, y, s, tie, table, order, 1.0, 2.0**-4, seed % 3,
                                      bool(seed % 2), KINDS, KS, seed == 0, *out)
        outs.append((bad, *out))
    assert outs[0][0] == outs[1][0] == -1
    for a, b in zip(outs[0][1:], outs[1][1:]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tie", range(5))
@pytest.mark.parametrize("gain_mode", [0, 1, 2])
def test_general_kernel_builds_agree(seed, tie, gain_mode):
    offsets, y, s = _queries(seed, np.float64, [np.float64, np.float32][seed % 2])
    rng = np.random.default_rng(100 + seed)
    n = y.shape[0]
    if gain_mode != 2:
        y = y + 0.5 * (seed % 2)  # fractional labels
    rows = rng.permutation(n).astype(np.int64) if seed % 3 == 0 else np.zeros(0, np.int64)
    retrieved = rng.random(n) < 0.8 if seed % 2 else np.zeros(0, bool)
    tiekey = rng.permutation(n).astype(np.int64)
    table = 2.0 ** np.arange(5) - 1.0 if gain_mode == 2 else np.zeros(1)
    order = np.argsort(-table, kind="stable").astype(np.int64)
    ks = np.where(KS == 32, 0, KS)
    args = (rows, offsets, rows.shape[0] == 0, y, s, tiekey, retrieved, True, tie, gain_mode,
            table, order, 1.0, 2.0**-5, seed % 3, bool(seed % 2), KINDS, ks,
            int(np.diff(offsets).max()), seed == 1)
    for a, b in zip(baseline.evaluate_grouped(*args), v3.evaluate_grouped(*args)):
        np.testing.assert_array_equal(a, b)
