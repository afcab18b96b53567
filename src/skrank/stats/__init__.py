"""Statistics for comparing rankers: the query is the unit.

Compare two systems query by query with :func:`paired_comparison` (mean difference, paired
bootstrap percentile and BCa intervals, randomisation / t / Wilcoxon tests, Cohen's d_z, wins and
losses, minimum detectable difference), several systems with :func:`compare_many` or any family of
comparisons with :func:`comparison_table` (Holm or Benjamini-Hochberg, with a pre-registered
primary comparison), and plan or read the power of a design with :func:`power` and
:func:`minimum_detectable_difference`. See ``docs/statistics.rst`` for what is computed and why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy

# Imported on first use: public name -> its module.
_LAZY: dict[str, str] = {
    "bootstrap_ci": "skrank.stats._bootstrap",
    **dict.fromkeys(["ComparisonRow", "ComparisonTable", "MultipleComparisons",
                     "PairedComparison"], "skrank.stats._comparison_results"),
    "comparison_table": "skrank.stats._corrections",
    "multiple_comparisons": "skrank.stats._corrections",
    "compare_many": "skrank.stats._paired",
    "paired_comparison": "skrank.stats._paired",
    "randomization_test": "skrank.stats._permutation",
    "minimum_detectable_difference": "skrank.stats._power",
    "power": "skrank.stats._power",
    **dict.fromkeys(["DetectableDifference", "Interval", "QueryDifference",
                     "SignificanceTest"], "skrank.stats._results"),
}

if TYPE_CHECKING:  # for type checkers and linters; at run time see __getattr__
    from ._bootstrap import bootstrap_ci
    from ._comparison_results import (
        ComparisonRow,
        ComparisonTable,
        MultipleComparisons,
        PairedComparison,
    )
    from ._corrections import comparison_table, multiple_comparisons
    from ._paired import compare_many, paired_comparison
    from ._permutation import randomization_test
    from ._power import minimum_detectable_difference, power
    from ._results import (
        DetectableDifference,
        Interval,
        QueryDifference,
        SignificanceTest,
    )

__getattr__, __dir__ = _lazy.lazy_attributes(globals(), _LAZY)

__all__ = [
    "ComparisonRow",
    "ComparisonTable",
    "DetectableDifference",
    "Interval",
    "MultipleComparisons",
    "PairedComparison",
    "QueryDifference",
    "SignificanceTest",
    "bootstrap_ci",
    "compare_many",
    "comparison_table",
    "minimum_detectable_difference",
    "multiple_comparisons",
    "paired_comparison",
    "power",
    "randomization_test",
]
