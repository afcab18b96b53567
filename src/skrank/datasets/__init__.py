"""Real ranking data bundled with skrank (no download needed).

- :func:`load_lambdarank_example`: LightGBM's LambdaRank example (3,773 documents in
  251 queries, 300 features, labels 0..4; MIT licence).
"""

from __future__ import annotations

from ._lambdarank import load_lambdarank_example

__all__ = ["load_lambdarank_example"]
