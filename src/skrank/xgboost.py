"""XGBoost integration: training-time metrics, early stopping and a ranker that takes ``qid``.

XGBoost itself is imported only when one of these objects is used
(``pip install 'skrank[xgboost]'``).
"""

from __future__ import annotations

__all__: list[str] = []

# ranker adapter (issue 3): names are added below this line

# training-time metrics (issue 4): names are added below this line
