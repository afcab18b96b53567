"""Compiled kernels (Cython, built with the package): the layer under :mod:`skrank.metrics`.

``ranking`` is the module of per-query ranking kernels for this CPU: on x86-64 CPUs with
AVX2 and FMA the ``_ranking_v3`` build of the same source (``-march=x86-64-v3``, about 1.3x
faster), else the ``_ranking`` build for any CPU of the platform. Both give the same bits
(``tests/metrics/test_kernel_builds.py``). ``VARIANT`` names the one in use.
"""

from __future__ import annotations

from . import _arrays

try:
    if not _arrays.cpu_has_x86_64_v3():
        raise ImportError("the CPU lacks x86-64-v3")
    from . import _ranking_v3 as ranking

    VARIANT = "x86-64-v3"
except ImportError:  # another CPU or platform: the build for any CPU
    from . import _ranking as ranking

    VARIANT = "baseline"

__all__ = ["VARIANT", "ranking"]
