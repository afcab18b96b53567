"""numpy masked arrays (issue 13): a mask is never ignored silently.

``np.asarray`` and scikit-learn's ``check_array`` return the data under the mask, so a masked
qid, label, score or weight would be used as if it were data. skrank refuses a masked array
with masked entries, naming the parameter; one that masks nothing is its data.
"""

from __future__ import annotations

import numpy as np
import pytest

import skrank
from skrank.exceptions import InputError

Y = np.array([2, 0, 1, 0, 1, 0])
S = np.array([0.9, 0.5, 0.4, 0.3, 0.8, 0.1])
Q = np.array([1, 1, 1, 2, 2, 2])
W = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
MASK = np.array([0, 0, 0, 0, 1, 0], dtype=bool)


def test_scikit_learn_reads_the_values_under_the_mask():
    # the behaviour skrank does not copy: the masked 5.0 counts as data
    from sklearn.metrics import mean_squared_error
    from sklearn.utils import check_array

    a = np.ma.array([1.0, 5.0, 3.0], mask=[0, 1, 0])
    assert check_array(a, ensure_2d=False).tolist() == [1.0, 5.0, 3.0]
    assert mean_squared_error(a, [1.0, 2.0, 3.0]) == 3.0


@pytest.mark.parametrize("name", ["qid", "y_true", "y_score", "sample_weight", "doc_id",
                                  "retrieved"])
def test_masked_entries_are_refused_naming_the_parameter(name):
    kwargs = dict(y_true=Y, y_score=S, qid=Q, sample_weight=W, doc_id=np.arange(6),
                  retrieved=np.ones(6, dtype=bool))
    kwargs[name] = np.ma.array(kwargs[name], mask=MASK)
    with pytest.raises(InputError, match=rf"The '{name}' parameter of evaluate must not have "
                                         r"masked entries.*Got 1 masked entry \(first at row "
                                         r"4\)"):
        skrank.evaluate(metrics=["ndcg@2", "p@1"], **kwargs)


def test_masked_group_sizes_are_refused():
    with pytest.raises(InputError, match=r"The 'group' parameter of ndcg must not have masked "
                                         r"entries.*Got 1 masked entry \(first at row 0\)"):
        skrank.ndcg(Y, S, group=np.ma.array([3, 3], mask=[1, 0]), k=2)


def test_masked_qid_in_a_per_metric_function():
    qm = np.ma.array(Q, mask=MASK)
    with pytest.raises(InputError, match="'qid' parameter of average_precision must not"):
        skrank.average_precision(Y, S, qm)


def test_a_mask_that_masks_nothing_is_the_data():
    plain = skrank.evaluate(Y, S, Q, metrics=["ndcg@2", "err"], sample_weight=W)
    masked = skrank.evaluate(np.ma.array(Y), np.ma.array(S, mask=np.zeros(6, bool)),
                             np.ma.array(Q, mask=np.ma.nomask), metrics=["ndcg@2", "err"],
                             sample_weight=np.ma.array(W, mask=np.zeros(6, bool)))
    for m in ("ndcg@2", "err"):
        assert masked[m].value == plain[m].value
        np.testing.assert_array_equal(masked[m].per_query, plain[m].per_query)
