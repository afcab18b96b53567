# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Per-query ranking kernels, compiled when the package is built (Cython), for any CPU of the
platform.

Two kernels share one plan and give the same bits: :func:`evaluate_contiguous` (the common
case, in one pass over the rows; ``_fast.pxi``) and :func:`evaluate_grouped` (everything
else; ``_general.pxi``), with top-k selection under a tie rule in ``_select.pxi`` and the
metric arithmetic in ``_metrics.pxi``. Everything here trusts its inputs: validation,
defaults and conventions are resolved by :mod:`skrank.metrics`. The loops release the GIL
(callers run chunks of queries in threads) and never use OpenMP.

The arithmetic follows the Python expressions of the numba kernels it replaced operation by
operation (integer operands of a division are converted first, nothing is contracted into a
fused multiply-add), so every value is the same bits as before.
"""

include "_ranking_body.pxi"
