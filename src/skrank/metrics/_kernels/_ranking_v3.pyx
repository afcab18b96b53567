# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The ranking kernels of :mod:`skrank.metrics._kernels._ranking`, built for x86-64 CPUs with
AVX2 and FMA (``-march=x86-64-v3``): the same source and the same bits (nothing is contracted
into a fused multiply-add), about 1.3x faster. Loaded by :mod:`skrank.metrics._kernels` when
the CPU has these instructions.
"""

include "_ranking_body.pxi"
