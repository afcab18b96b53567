"""Top-k selection against the loop oracle (dense, CSR, flat; ties; seen items; k larger than
the candidates), Hypothesis properties, and the evaluation of the lists through the ranking
core against a loop over users."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from skrank.exceptions import InputError, InvalidParameterError
from skrank.recsys import evaluate_top_k, top_k

from . import _oracle


def _case(rng, n_users, n_items, density, levels):
    s = rng.integers(0, levels, (n_users, n_items)) / levels
    stored = rng.random((n_users, n_items)) < density
    seen = rng.random((n_users, n_items)) < 0.2
    return s, stored, seen


def _lists(top):
    return [[int(i) for i in row if i >= 0] for row in top.item_index]


@pytest.mark.parametrize("ties", ["input", "docid"])
@pytest.mark.parametrize("kind", ["dense", "csr", "flat"])
def test_against_oracle(kind, ties):
    rng = np.random.default_rng(7)
    for _ in range(30):
        n_users, n_items = int(rng.integers(1, 12)), int(rng.integers(1, 15))
        k = int(rng.integers(1, 18))
        s, stored, seen = _case(rng, n_users, n_items, 0.6, int(rng.integers(1, 5)))
        if kind == "dense":
            stored[:] = True
        rows = [{j: s[u, j] for j in range(n_items) if stored[u, j]} for u in range(n_users)]
        seen_sets = [set(np.flatnonzero(seen[u]).tolist()) for u in range(n_users)]
        want = _oracle.top_k(rows, k, seen_sets, ties)
        ex = sp.csr_matrix(seen)
        if kind == "dense":
            got = top_k(s, k, exclude=ex, ties=ties)
        elif kind == "csr":
            # stored zeros stay explicit entries, hence candidates
            m = sp.csr_matrix((s[stored], np.nonzero(stored)), shape=s.shape)
            got = top_k(m, k, exclude=np.nonzero(seen), ties=ties)
        else:
            u, i = np.nonzero(stored)
            got = top_k(s[u, i], k, users=u, items=i, exclude=np.nonzero(seen), ties=ties)
            present = np.unique(u)
            want = [want[p] for p in present]
            got_lists = [[int(got.item_ids[j]) for j in row] for row in _lists(got)]
            assert got_lists == want
            continue
        assert _lists(got) == want
        assert got.item_index.shape == (n_users, k)
        exp_scores = [[s[u, j] for j in w] for u, w in enumerate(want)]
        for u, w in enumerate(exp_scores):
            np.testing.assert_array_equal(got.scores[u, : len(w)], w)
            assert np.isnan(got.scores[u, len(w):]).all()


def test_tie_at_cutoff_counted():
    top = top_k(np.array([[1.0, 0.5, 0.5, 0.5], [1.0, 0.9, 0.5, 0.5]]), 2)
    assert top.n_tied_at_cutoff == 1
    assert "1 users with a tie at the cutoff" in repr(top)


def test_blocks_equal_one_block(monkeypatch):
    import skrank.recsys._topk as t

    rng = np.random.default_rng(3)
    s = rng.integers(0, 4, (50, 40)) / 4.0
    m = sp.random(50, 40, density=0.4, random_state=1, format="csr")
    m.data = np.round(m.data * 4) / 4 + 0.25
    ex = sp.random(50, 40, density=0.1, random_state=2, format="csr")
    whole = [top_k(x, 7, exclude=ex) for x in (s, m)]
    monkeypatch.setattr(t, "_BLOCK_CELLS", 37)
    small = [top_k(x, 7, exclude=ex) for x in (s, m)]
    for a, b in zip(whole, small):
        np.testing.assert_array_equal(a.item_index, b.item_index)
        np.testing.assert_array_equal(a.scores, b.scores)
        assert a.n_tied_at_cutoff == b.n_tied_at_cutoff


@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=9), min_size=1, max_size=6),
       st.integers(1, 12), st.sampled_from(["input", "docid"]))
def test_properties(values, k, ties):
    width = max(len(r) for r in values)
    s = np.full((len(values), width), -1.0)
    for u, r in enumerate(values):
        s[u, : len(r)] = r
    top = top_k(s, k, ties=ties)
    # lists are the k best scores, in non-increasing order, without repeats
    for u in range(len(values)):
        got = top.scores[u][~np.isnan(top.scores[u])]
        assert got.size == min(k, width)
        np.testing.assert_array_equal(got, np.sort(s[u])[::-1][: got.size])
        idx = top.item_index[u][top.item_index[u] >= 0]
        assert len(set(idx.tolist())) == idx.size
    # excluding the first list item of each user removes exactly it
    first = top.item_index[:, 0]
    top2 = top_k(s, k, ties=ties, exclude=(np.arange(len(values)), first))
    assert not (top2.item_index == first[:, None]).any()
    # the same scores as CSR give the same lists when every entry is stored
    m = sp.csr_matrix(s + 10.0)
    np.testing.assert_array_equal(top_k(m, k, ties=ties).item_index, top.item_index)


def test_evaluate_against_loop():
    rng = np.random.default_rng(11)
    s = rng.random((40, 30))
    seen = rng.random((40, 30)) < 0.15
    test = rng.random((40, 30)) < 0.1
    test &= ~seen
    top = top_k(s, 10, exclude=sp.csr_matrix(seen))
    tu, ti = np.nonzero(test)
    res = evaluate_top_k(top, tu, ti, metrics=["recall@10", "ndcg@10", "hit@10", "recall@3"])
    lists = dict(enumerate(_lists(top)))
    tests = {}
    for u, i in zip(tu.tolist(), ti.tolist()):
        tests.setdefault(u, set()).add(i)
    rec, ndcg, hit = _oracle.recall_ndcg_hit(lists, tests, 10)
    assert float(res["recall@10"]) == pytest.approx(rec, abs=1e-12)
    assert float(res["ndcg@10"]) == pytest.approx(ndcg, abs=1e-12)
    assert float(res["hit@10"]) == pytest.approx(hit, abs=1e-12)
    assert float(res["recall@3"]) == pytest.approx(
        _oracle.recall_ndcg_hit(lists, tests, 3)[0], abs=1e-12)
    assert res["recall@10"].n_queries == len(tests)


def test_user_without_list_scores_zero():
    top = top_k(np.array([[0.9, 0.1]]), 1, user_ids=np.array([5]))
    res = evaluate_top_k(top, [5, 6], [0, 1], metrics="hit@1")
    assert float(res["hit@1"]) == 0.5


def test_bad_input():
    s = np.ones((2, 3))
    with pytest.raises(InvalidParameterError, match="'k' parameter of top_k"):
        top_k(s, 0)
    with pytest.raises(InvalidParameterError, match="'ties' parameter of top_k"):
        top_k(s, 1, ties="pessimistic")
    with pytest.raises(InvalidParameterError, match="'exclude' parameter"):
        top_k(s, 1, exclude=sp.csr_matrix((3, 3)))
    with pytest.raises(InvalidParameterError, match="'exclude' parameter"):
        top_k(s, 1, exclude=([0], [7]))
    with pytest.raises(InputError, match="must be finite"):
        top_k(np.array([[1.0, np.nan]]), 1)
    with pytest.raises(InputError, match="must be distinct"):
        top_k([1.0, 2.0], 1, users=[1, 1], items=[2, 2])
    with pytest.raises(InvalidParameterError, match="'scores' parameter"):
        top_k(np.ones(3), 1)
    top = top_k(s, 1)
    with pytest.raises(InputError, match="must be distinct"):
        evaluate_top_k(top, [0, 0], [1, 1])
