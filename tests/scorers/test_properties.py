"""Hypothesis properties: the scorer groups rows by query however the ids reach it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given

from skrank import ndcg_at

from ..strategies import grouped_data
from ._helpers import FirstColumn, oracle_ndcg_pessimistic


@given(grouped_data(max_queries=6, max_size=8))
def test_every_source_of_query_ids_gives_the_oracle_value(sample):
    y, s, qid = sample
    X = s.reshape(-1, 1)
    model = FirstColumn().fit(X, y)
    scorer = ndcg_at(3, ties="pessimistic")
    has_relevant = any(y[qid == q].max() > 0 for q in np.unique(qid))
    if not has_relevant:  # every query excluded: the mean is NaN
        assert np.isnan(scorer(model, X, y, qid=qid))
        return
    expected = oracle_ndcg_pessimistic(y, s, qid, 3)
    df = pd.DataFrame({"qid": qid, "s": s})
    values = [
        scorer(model, X, y, qid=qid),
        scorer(model, X, y, groups=qid),
        scorer(model, df, y),
        scorer(model, X, y, qid=np.array([f"q{q}" for q in qid])),
    ]
    assert values == pytest.approx([expected] * 4, rel=1e-12)


@given(grouped_data(max_queries=6, max_size=8))
def test_row_order_does_not_matter_with_pessimistic_ties(sample):
    y, s, qid = sample
    if not any(y[qid == q].max() > 0 for q in np.unique(qid)):
        return
    X = s.reshape(-1, 1)
    model = FirstColumn().fit(X, y)
    scorer = ndcg_at(5, ties="pessimistic")
    perm = np.random.default_rng(len(y)).permutation(len(y))
    assert scorer(model, X[perm], y[perm], qid=qid[perm]) == pytest.approx(
        scorer(model, X, y, qid=qid), rel=1e-12)
