"""Readers for ranking evaluation data.

- :func:`read_libsvm`: LibSVM / SVMlight files with ``qid:`` fields.
"""

from __future__ import annotations

from ._libsvm import LibSVMData, read_libsvm

__all__ = ["LibSVMData", "read_libsvm"]
