"""LightGBM and XGBoost integrations: the only modules that import lightgbm or xgboost.

Public access is through :mod:`skrank.lightgbm` and :mod:`skrank.xgboost`.
"""
