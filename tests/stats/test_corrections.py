"""Multiple comparisons: Holm, Benjamini-Hochberg, Bonferroni; comparison tables.

References: scipy.stats.false_discovery_control (BH adjusted p-values); Holm's procedure
written here as its textbook sequential rejection rule (Holm 1979: reject H(1), H(2), ... while
p(i) <= alpha / (m - i + 1)), and BH as its step-up rule (reject the k smallest, k the largest
i with p(i) <= i alpha / m); hand-computed values with the arithmetic written next to them.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from skrank import InputError, InvalidParameterError
from skrank.stats import (
    ComparisonTable,
    compare_many,
    comparison_table,
    multiple_comparisons,
    paired_comparison,
)

FAST = {"n_resamples": 300, "n_permutations": 300}


def _holm_reject(p, alpha):
    order = sorted(range(len(p)), key=lambda i: p[i])
    reject = [False] * len(p)
    for step, i in enumerate(order):
        if p[i] <= alpha / (len(p) - step):
            reject[i] = True
        else:
            break
    return reject


def _bh_reject(p, alpha):
    order = sorted(range(len(p)), key=lambda i: p[i])
    k = 0
    for rank, i in enumerate(order, start=1):
        if p[i] <= rank * alpha / len(p):
            k = rank
    reject = [False] * len(p)
    for i in order[:k]:
        reject[i] = True
    return reject


pvalue_lists = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30)


def test_holm_by_hand():
    # Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04; running max
    # 0.02, 0.03, 0.06, 0.06; back in input order (0.01, 0.04, 0.03, 0.005):
    res = multiple_comparisons([0.01, 0.04, 0.03, 0.005], "holm")
    np.testing.assert_allclose(res.pvalues_adjusted, [0.03, 0.06, 0.06, 0.02])
    assert res.reject.tolist() == [True, False, False, True]


def test_bh_by_hand():
    # Sorted 0.005, 0.01, 0.03, 0.04 times 4/1, 4/2, 4/3, 4/4 = 0.02, 0.02, 0.04, 0.04; running
    # min from the top leaves them; input order (0.01, 0.04, 0.03, 0.005):
    res = multiple_comparisons([0.01, 0.04, 0.03, 0.005], "bh")
    np.testing.assert_allclose(res.pvalues_adjusted, [0.02, 0.04, 0.04, 0.02])


def test_bonferroni_and_none():
    p = [0.01, 0.3, 0.6]
    np.testing.assert_allclose(multiple_comparisons(p, "bonferroni").pvalues_adjusted,
                               [0.03, 0.9, 1.0])
    np.testing.assert_array_equal(multiple_comparisons(p, "none").pvalues_adjusted, p)


@given(pvalue_lists)
def test_bh_matches_scipy(p):
    ours = multiple_comparisons(p, "bh").pvalues_adjusted
    np.testing.assert_allclose(ours, stats.false_discovery_control(p, method="bh"),
                               rtol=1e-12, atol=1e-15)


@given(pvalue_lists, st.sampled_from(["holm", "bh", "bonferroni"]))
def test_adjusted_pvalues_match_statsmodels(p, method):
    # statsmodels.stats.multitest.multipletests: "holm", "fdr_bh", "bonferroni"
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    name = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni"}[method]
    expected = multitest.multipletests(p, method=name, is_sorted=False)[1]
    np.testing.assert_allclose(multiple_comparisons(p, method).pvalues_adjusted, expected,
                               rtol=1e-12, atol=1e-15)


@given(pvalue_lists, st.sampled_from([0.01, 0.05, 0.1, 0.2]))
def test_decisions_match_the_sequential_rules(p, alpha):
    assert multiple_comparisons(p, "holm", alpha=alpha).reject.tolist() == _holm_reject(p, alpha)
    # Floating-point products can differ at the boundary; compare away from it.
    bh = multiple_comparisons(p, "bh", alpha=alpha)
    near = np.isclose(bh.pvalues_adjusted, alpha, rtol=1e-9)
    assert [r for r, n in zip(bh.reject.tolist(), near) if not n] == [
        r for r, n in zip(_bh_reject(p, alpha), near) if not n]


@given(pvalue_lists)
def test_adjusted_pvalue_properties(p):
    raw = np.array(p)
    holm = multiple_comparisons(p, "holm").pvalues_adjusted
    bh = multiple_comparisons(p, "bh").pvalues_adjusted
    bonf = multiple_comparisons(p, "bonferroni").pvalues_adjusted
    for adj in (holm, bh, bonf):
        assert np.all(adj >= raw - 1e-15) and np.all(adj <= 1.0)
        # Order-preserving: a smaller raw p never gets a larger adjusted p.
        order = np.argsort(raw, kind="stable")
        assert np.all(np.diff(adj[order]) >= -1e-15)
    # BH <= Holm <= Bonferroni.
    assert np.all(bh <= holm + 1e-15) and np.all(holm <= bonf + 1e-15)


def test_mapping_keeps_names_and_result_prints():
    res = multiple_comparisons({"ndcg@5": 0.01, "ndcg@10": 0.02, "map": 0.2}, "holm")
    assert res.names == ("ndcg@5", "ndcg@10", "map")
    text = str(res)
    assert "holm correction of 3 p-values" in text and "ndcg@10" in text
    assert json.loads(json.dumps(res.to_dict()))["names"] == ["ndcg@5", "ndcg@10", "map"]
    assert len(res) == 3 and "MultipleComparisons(method='holm'" in repr(res)


def test_bad_pvalues_and_method():
    with pytest.raises(InputError, match=r"p-values must lie in \[0, 1\]; 1 do not "
                                         r"\(first: 1.5 at position 1\)"):
        multiple_comparisons([0.1, 1.5])
    with pytest.raises(InputError, match="first: nan at b"):
        multiple_comparisons({"a": 0.1, "b": float("nan")})
    with pytest.raises(InputError, match="pvalues must be 1-D"):
        multiple_comparisons([[0.1, 0.2]])
    with pytest.raises(InvalidParameterError,
                       match=re.escape("The 'method' parameter of multiple_comparisons must be "
                                       "one of 'holm', 'bh', 'bonferroni', 'none'. Got 'fdr' "
                                       "instead.")):
        multiple_comparisons([0.1], "fdr")
    with pytest.raises(InvalidParameterError, match="The 'alpha' parameter of multiple_comp"):
        multiple_comparisons([0.1], alpha=5)


def test_empty_family():
    res = multiple_comparisons([], "holm")
    assert len(res) == 0 and res.pvalues_adjusted.size == 0


# --------------------------------------------------------------------------- tables


def _systems(seed=0, n=50):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.8, size=n)
    return {
        "bm25": base,
        "lgbm": base + rng.normal(0.04, 0.1, n),
        "xgb": base + rng.normal(0.01, 0.1, n),
        "nn": base + rng.normal(0.0, 0.1, n),
    }


def test_compare_many_without_primary_corrects_every_comparison():
    systems = _systems()
    table = compare_many(systems, "bm25", rng=3, **FAST)
    assert table.names == ("lgbm", "xgb", "nn") and table.primary is None
    raw = [paired_comparison(systems[k], systems["bm25"], rng=3, **FAST).pvalue
           for k in ("lgbm", "xgb", "nn")]
    expected = multiple_comparisons(raw, "holm").pvalues_adjusted
    assert [row.pvalue for row in table] == raw
    np.testing.assert_allclose([row.pvalue_adjusted for row in table], expected)
    assert all(row.role == "secondary" for row in table)


def test_primary_is_uncorrected_and_the_rest_form_the_family():
    systems = _systems()
    table = compare_many(systems, "bm25", primary="xgb", correction="bh", test="t", rng=3,
                         **FAST)
    assert table["xgb"].role == "primary"
    primary = table["xgb"]
    assert primary.pvalue_adjusted == primary.pvalue == primary.comparison.t_test.pvalue
    others = [table["lgbm"].pvalue, table["nn"].pvalue]
    np.testing.assert_allclose([table["lgbm"].pvalue_adjusted, table["nn"].pvalue_adjusted],
                               stats.false_discovery_control(others))
    assert table["lgbm"].reject == (table["lgbm"].pvalue_adjusted <= 0.05)


def test_comparison_table_over_metrics():
    # One pair of systems on several metrics is a family too.
    rng = np.random.default_rng(4)
    comps = {}
    for metric in ("ndcg@5", "ndcg@10", "map"):
        b = rng.uniform(0, 1, 40)
        comps[metric] = paired_comparison(b + rng.normal(0.03, 0.1, 40), b, metric=metric,
                                          rng=0, **FAST)
    table = comparison_table(comps, primary="ndcg@10", correction="holm")
    assert table["ndcg@10"].pvalue_adjusted == comps["ndcg@10"].pvalue
    np.testing.assert_allclose(
        [table["ndcg@5"].pvalue_adjusted, table["map"].pvalue_adjusted],
        multiple_comparisons([comps["ndcg@5"].pvalue, comps["map"].pvalue]).pvalues_adjusted)


def test_table_outputs():
    table = compare_many(_systems(), "bm25", primary="lgbm", metric="ndcg@10", rng=0, **FAST)
    assert isinstance(table, ComparisonTable) and len(table) == 3
    assert table[0].name == "lgbm" and table["nn"] is table[2]
    text = str(table)
    assert "primary 'lgbm' uncorrected (pre-registered), holm correction over the other 2" in text
    assert "95% CI" in text and "MDD" in text
    records = table.to_records()
    assert [r["name"] for r in records] == ["lgbm", "xgb", "nn"]
    assert {"pvalue", "pvalue_adjusted", "reject", "ci_low", "mdd", "role"} <= set(records[0])
    back = json.loads(json.dumps(table.to_dict()))
    assert back["primary"] == "lgbm" and back["rows"][1]["comparison"]["name_b"] == "bm25"
    with pytest.raises(KeyError, match="No comparison named 'svm'"):
        table["svm"]


def test_compare_many_with_qids_per_system():
    systems = {"base": [0.1, 0.5, 0.9], "new": [0.95, 0.2, 0.6]}
    qids = {"base": ["a", "b", "c"], "new": ["c", "a", "b"]}
    table = compare_many(systems, "base", qids=qids, rng=0, **FAST)
    # In the order of the system's ids c, a, b: 0.95 - 0.9, 0.2 - 0.1, 0.6 - 0.5.
    np.testing.assert_allclose(table["new"].comparison.differences, [0.05, 0.1, 0.1])
    assert list(table["new"].comparison.qids) == ["c", "a", "b"]


def test_compare_many_bad_input():
    systems = _systems()
    with pytest.raises(InvalidParameterError,
                       match=re.escape("The 'baseline' parameter of compare_many must be one of "
                                       "'bm25', 'lgbm', 'xgb', 'nn'. Got 'BM25' instead.")):
        compare_many(systems, "BM25")
    with pytest.raises(InvalidParameterError,
                       match=re.escape("The 'primary' parameter of compare_many must be None or "
                                       "one of 'lgbm', 'xgb', 'nn'. Got 'bm25' instead.")):
        compare_many(systems, "bm25", primary="bm25")
    with pytest.raises(InvalidParameterError, match="The 'correction' parameter of compare_many"):
        compare_many(systems, "bm25", correction="fdr_bh")
    with pytest.raises(InvalidParameterError, match="The 'test' parameter of compare_many must "
                                                    "be one of 'randomization', 't', 'wilcoxon'"):
        compare_many(systems, "bm25", test="sign")
    with pytest.raises(InputError, match="only the baseline 'bm25'"):
        compare_many({"bm25": systems["bm25"]}, "bm25")
    with pytest.raises(InputError, match="qids has no ids for 'xgb'"):
        compare_many({"bm25": [1.0, 2], "xgb": [1.0, 2]}, "bm25", qids={"bm25": [1, 2]})
    with pytest.raises(InvalidParameterError, match="The 'primary' parameter of comparison_table"):
        comparison_table({"a": paired_comparison([1.0, 2], [2.0, 1], rng=0)}, primary="b")
    with pytest.raises(InvalidParameterError,
                       match=r"The \"comparisons\['a'\]\" parameter of comparison_table must be "
                             r"a PairedComparison. Got 'float' instead."):
        comparison_table({"a": 0.5})
