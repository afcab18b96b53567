"""Fixtures shared by the LightGBM / XGBoost integration tests.

The bundled LambdaRank example is loaded once per test process (a few seconds each time):
tests read it and never write into it (they copy before changing labels or ids).
"""

from __future__ import annotations

import numpy as np
import pytest

from skrank.datasets import load_lambdarank_example


@pytest.fixture(scope="session")
def data():
    """The bundled LambdaRank example (``load_lambdarank_example()``)."""
    return load_lambdarank_example()


@pytest.fixture(scope="session")
def perm(data):
    """A permutation of the training rows that scatters every query over the rows."""
    return np.random.default_rng(0).permutation(len(data.y_train))
