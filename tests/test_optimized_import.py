"""skrank imports under ``python -OO`` (docstrings are None there) and ships ``py.typed``."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import skrank

# every public module of the package (no part of the dotted name starts with "_")
PUBLIC = sorted(
    info.name
    for info in pkgutil.walk_packages(skrank.__path__, prefix="skrank.")
    if not any(part.startswith("_") for part in info.name.split("."))
)

# LightGBM 4.7 and XGBoost 3.2 themselves fail to import under -OO (they edit their own
# docstrings): the lazily imported names of skrank.lightgbm / skrank.xgboost are resolved only
# where the library imports.
_CODE = """
import importlib, sys
third_party = {"skrank.lightgbm": "lightgbm", "skrank.xgboost": "xgboost"}
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    if name in third_party:
        try:
            importlib.import_module(third_party[name])
        except Exception:
            continue
    for attr in getattr(module, "__all__", ()):  # lazily imported names too
        getattr(module, attr)
assert sys.flags.optimize == 2
print("ok", len(sys.argv) - 1)
"""


def test_every_public_module_imports_under_OO():
    assert {"skrank.pipeline", "skrank.scorers", "skrank.stats", "skrank.lightgbm"} <= set(PUBLIC)
    out = subprocess.run([sys.executable, "-OO", "-c", _CODE, "skrank", *PUBLIC],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == f"ok {len(PUBLIC) + 1}"


def test_py_typed_marker_is_shipped():
    # src/skrank/meson.build installs the whole package directory: the marker comes along
    root = Path(importlib.import_module("skrank").__file__).parent
    assert (root / "py.typed").is_file()
