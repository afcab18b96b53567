"""Beyond-accuracy metrics: loops for the metrics no installed library defines (Gini index,
entropy in nats, the cosine and Hamming pair sums), Hypothesis properties, and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import skrank.recsys as rs
from skrank.exceptions import InputError, InvalidParameterError


def _gini_loop(counts):
    """Mean absolute difference over all ordered pairs / (2 * mean): the textbook Gini."""
    n = len(counts)
    mean = sum(counts) / n
    return sum(abs(a - b) for a in counts for b in counts) / (2 * n * n * mean)


def _random_lists(rng, n_users=12, n_items=15, k=5):
    u, i = [], []
    for user in range(n_users):
        n = int(rng.integers(1, k + 1))
        u += [user] * n
        i += rng.choice(n_items, n, replace=False).tolist()
    return np.array(u), np.array(i)


def test_gini_against_loop():
    rng = np.random.default_rng(0)
    for _ in range(20):
        u, i = _random_lists(rng)
        cat = np.arange(15)
        counts = np.bincount(i, minlength=15).tolist()
        assert float(rs.gini_index((u, i), catalog=cat)) == pytest.approx(_gini_loop(counts))
        rec = [c for c in counts if c]
        assert float(rs.gini_index((u, i), gini_items="recommended")) == pytest.approx(
            _gini_loop(rec))


def test_entropy_in_nats():
    rng = np.random.default_rng(1)
    u, i = _random_lists(rng)
    c = np.bincount(i)
    p = c[c > 0] / c.sum()
    want = -sum(x * math.log(x) for x in p)
    assert float(rs.distributional_coverage((u, i), log_base="e")) == pytest.approx(want)


@pytest.mark.parametrize("similarity", ["cosine", "hamming"])
def test_feature_pairs_against_loop(similarity):
    rng = np.random.default_rng(2)
    u, i = _random_lists(rng)
    f = rng.integers(0, 3, (15, 3)).astype(float) + (1.0 if similarity == "cosine" else 0.0)
    per_user = []
    for user in np.unique(u):
        items = i[u == user]
        if len(items) < 2:
            continue
        d = []
        for a, b in itertools.combinations(items.tolist(), 2):
            if similarity == "hamming":
                d.append(float(np.sum(f[a] != f[b])))
            else:
                d.append(1 - f[a] @ f[b] / (np.linalg.norm(f[a]) * np.linalg.norm(f[b])))
        per_user.append(np.mean(d))
    got = rs.intra_list_diversity((u, i), item_features=(np.arange(15), f),
                                  similarity=similarity, short_lists="exclude")
    assert float(got) == pytest.approx(np.mean(per_user))


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 8)), min_size=1, max_size=30,
                unique=True), st.integers(1, 6))
def test_properties(pairs, k):
    u = np.array([p[0] for p in pairs])
    i = np.array([p[1] for p in pairs])
    cat = np.arange(9)
    cov = float(rs.catalog_coverage((u, i), catalog=cat, k=k))
    assert 0 < cov <= 1
    g = float(rs.gini_index((u, i), catalog=cat, k=k))
    assert 0 <= g < 1
    # relabelling the users changes nothing
    perm = np.array([3, 0, 5, 1, 4, 2])
    assert float(rs.gini_index((perm[u], i), catalog=cat, k=k)) == pytest.approx(g)
    train = (u, i)
    nov = float(rs.novelty((u, i), train, k=k))
    assert nov >= 0


def test_results_carry_conventions():
    r = rs.novelty(([1, 1], [7, 8]), ([1, 2], [7, 7]), preset="rectools", log_base="e")
    assert r.conventions["log_base"] == "e" and r.conventions["unseen"] == "one"
    assert "unseen in training: 1" in str(r)
    assert r.to_dict()["conventions"]["count"] == "users"
    assert r.per_user is not None and r.users.tolist() == [1]


def test_bad_input():
    reco = ([1, 1], [7, 8])
    with pytest.raises(InvalidParameterError, match="'preset' parameter of gini_index"):
        rs.gini_index(reco, catalog=[7, 8], preset="rectools")
    with pytest.raises(InvalidParameterError, match="'recommenders' or None"):
        rs.distributional_coverage(reco, preset="rectools")
    with pytest.raises(InvalidParameterError, match="'catalog' parameter"):
        rs.catalog_coverage(reco)
    with pytest.raises(InvalidParameterError, match="'denominator' parameter"):
        rs.catalog_coverage(reco, catalog=[7], denominator="users")
    with pytest.raises(InvalidParameterError, match="'item_features' parameter"):
        rs.intra_list_diversity(reco, similarity="hamming")
    with pytest.raises(InvalidParameterError, match="'test' parameter"):
        rs.serendipity(reco, ([1], [7]), definition="popularity_rank", catalog=[7, 8])
    with pytest.raises(InputError, match="must be distinct"):
        rs.novelty(([1, 1], [7, 7]), ([1], [7]))
    with pytest.raises(InputError, match=r"no \(or missing\) features"):
        rs.intra_list_diversity(reco, item_features=([7], [[1]]), similarity="hamming")
    with pytest.raises(InputError, match="all 0"):
        rs.intra_list_diversity(reco, item_features=([7, 8], [[0], [1]]), similarity="cosine")
    with pytest.raises(InputError, match="one type"):
        rs.catalog_coverage(reco, catalog=["a", "b"])
    with pytest.raises(InvalidParameterError, match="'reco' parameter"):
        rs.novelty([1, 2], ([1], [7]))
    with pytest.raises(InputError, match="one type"):
        rs.evaluate_top_k(rs.top_k(np.ones((1, 2)), 1), ["0"], [1])


def _cooccurrence_ild_loop(u, i, tu, ti):
    """Recommenders' definition, pair by pair: 1 - C_ij / sqrt(c_i c_j), ``C_ij`` summed over
    training users of (count of i) * (count of j), ``c_i`` the training rows of i."""
    x: dict = {}
    for a, b in zip(tu.tolist(), ti.tolist()):
        x.setdefault(a, {}).setdefault(b, 0)
        x[a][b] += 1
    c = np.bincount(ti, minlength=max(i.max(), ti.max()) + 1)
    per_user = []
    for user in np.unique(u):
        items = i[u == user].tolist()
        if len(items) < 2:
            continue
        s = []
        for a, b in itertools.combinations(items, 2):
            cab = sum(h.get(a, 0) * h.get(b, 0) for h in x.values())
            s.append(1 - (cab / math.sqrt(c[a] * c[b]) if c[a] and c[b] else 0.0))
        per_user.append(np.mean(s))
    return np.mean(per_user)


@pytest.mark.parametrize("cost", [0.0, 1.0, 10.0, 1e12])
@pytest.mark.parametrize("seed", range(4))
def test_cooccurrence_diversity_against_loop(monkeypatch, cost, seed):
    """Every split of the listed items into heavy (dense rows of the co-occurrence matrix) and
    light (through the training users), in blocks of any size, gives the pair-by-pair value;
    cost 0 puts every item on the training side, 1e12 every item in dense rows."""
    import skrank.recsys._diversity as diversity

    rng = np.random.default_rng(seed)
    u, i = _random_lists(rng, n_users=15, n_items=20, k=8)
    # popular items: a few items take most training rows; repeats in odd seeds
    p = 1.0 / np.arange(1, 21)
    n_train = 120
    tu = rng.integers(0, 18, n_train)
    ti = rng.choice(20, n_train, p=p / p.sum())
    if seed % 2 == 0:
        key = np.unique(tu * 20 + ti)
        tu, ti = key // 20, key % 20
    want = _cooccurrence_ild_loop(u, i, tu, ti)
    monkeypatch.setattr(diversity, "_SPARSE_COST", cost)
    got = float(rs.intra_list_diversity((u, i), (tu, ti), preset="recommenders"))
    # summation order differs from the loop's: equal to rounding, not to the bit
    assert got == pytest.approx(want, rel=1e-12)
    monkeypatch.setattr(diversity, "_BLOCK_ENTRIES", 7)
    monkeypatch.setattr(diversity, "_PAIR_BLOCK", 3)
    assert float(rs.intra_list_diversity((u, i), (tu, ti), preset="recommenders")) == (
        pytest.approx(want, rel=1e-12))


def test_heavy_split_follows_the_cost():
    import skrank.recsys._diversity as diversity

    c = np.array([100.0, 50.0, 1.0, 0.0, 7.0])
    ri = np.array([0, 1, 2, 3, 0, 1])
    pairs = np.full(5, 20.0)  # look-ups over each item's listings
    # 0 and 1 save 10 * 200 and 10 * 100 for 20 look-ups + a row of 5; 2 saves 10; 3 has no rows
    assert diversity._heavy_items(c, ri, pairs).tolist() == [0, 1]
    assert diversity._heavy_items(np.zeros(5), ri, pairs).size == 0


def _cooccurrence_serendipity_loop(u, i, tu, ti):
    """Recommenders' serendipity without relevance, recommendation by recommendation: 1 - the
    mean over the user's training rows of the co-occurrence cosine with the item."""
    x: dict = {}
    for a, b in zip(tu.tolist(), ti.tolist()):
        x.setdefault(a, {}).setdefault(b, 0)
        x[a][b] += 1
    c = np.bincount(ti, minlength=max(i.max(), ti.max()) + 1)

    def sim(a, b):
        cab = sum(h.get(a, 0) * h.get(b, 0) for h in x.values())
        return cab / math.sqrt(c[a] * c[b]) if c[a] and c[b] else 0.0

    per_user = []
    for user in np.unique(u):
        if user not in x:
            continue
        rows = tu[tu == user].size
        vals = [1 - sum(n * sim(a, b) for b, n in x[user].items()) / rows
                for a in i[u == user].tolist()]
        per_user.append(np.mean(vals))
    return np.mean(per_user)


@pytest.mark.parametrize("cost", [0.0, 1.0, 1e12])
@pytest.mark.parametrize("seed", range(4))
def test_cooccurrence_serendipity_against_loop(monkeypatch, cost, seed):
    """Dense rows (cost 1e12), sparse rows (0) or a mix, in blocks of any size, give the loop's
    value; users 15-17 have training rows and no list, some listed users none."""
    import skrank.recsys._diversity as diversity

    rng = np.random.default_rng(10 + seed)
    u, i = _random_lists(rng, n_users=15, n_items=20, k=8)
    p = 1.0 / np.arange(1, 21)
    tu = rng.integers(3, 18, 120)
    ti = rng.choice(20, 120, p=p / p.sum())
    if seed % 2 == 0:
        key = np.unique(tu * 20 + ti)
        tu, ti = key // 20, key % 20
    want = _cooccurrence_serendipity_loop(u, i, tu, ti)
    monkeypatch.setattr(diversity, "_SEARCH_COST", cost)
    assert float(rs.serendipity((u, i), (tu, ti), preset="recommenders")) == pytest.approx(
        want, rel=1e-12)
    monkeypatch.setattr(diversity, "_BLOCK_ENTRIES", 7)
    monkeypatch.setattr(diversity, "_PAIR_BLOCK", 3)
    assert float(rs.serendipity((u, i), (tu, ti), preset="recommenders")) == pytest.approx(
        want, rel=1e-12)
