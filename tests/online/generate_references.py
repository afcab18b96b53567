"""Generate tests/online/data/references.json with savvi and spotify-confidence.

savvi 0.3.1 pulls in cvxpy and spotify-confidence 4.1.0 pulls in chartify, bokeh and selenium,
none of which skrank's test environment needs; their values are computed once, in a separate
environment, and committed with the inputs and the versions:

    python3 -m venv /tmp/abtest/refvenv
    /tmp/abtest/refvenv/bin/pip install savvi==0.3.1 spotify-confidence==4.1.0
    /tmp/abtest/refvenv/bin/python tests/online/generate_references.py

savvi: its ``LinearRegression`` (Lindon et al.'s anytime-valid t-test) on ``y ~ 1 + treated``,
updated one unit at a time, with the p-value and interval of the treatment coefficient after
every unit; skrank's ``always_valid_test(method="t")`` with one look per unit is the same test.

spotify-confidence: its group-sequential bounds (``sequential_bound_solver.bounds``, Lan-DeMets
with the power spending function ``alpha t**rho``) for a few information sequences.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "data" / "references.json"


def savvi_cases() -> list[dict]:
    from savvi.linear_regression import LinearRegression

    cases = []
    for seed, n, effect, phi, alpha in [(0, 300, 0.0, 1.0, 0.05), (1, 300, 0.4, 1.0, 0.05),
                                        (2, 200, 0.3, 0.25, 0.1)]:
        rng = np.random.default_rng(seed)
        treated = rng.integers(0, 2, n)
        treated[:2] = [0, 1]
        y = 1.0 + effect * treated + rng.gamma(2.0, 1.0, n)
        lr = LinearRegression(alpha, p=2, phi=phi)
        p_values, ci = [], []
        for yi, ti in zip(y, treated):
            lr.update(np.array([yi, 1.0, float(ti)]))
            lr.infer()
            p_values.append(float(lr.p_value[1]))
            ci.append([float(lr.conf_int[1, 0]), float(lr.conf_int[1, 1])])
        cases.append({"seed": seed, "alpha": alpha, "phi": phi, "y": y.tolist(),
                      "treated": treated.tolist(), "p_value": p_values, "ci": ci,
                      "estimate": float(lr.beta[1])})
    return cases


def spotify_cases() -> list[dict]:
    from spotify_confidence.analysis.frequentist.sequential_bound_solver import bounds

    cases = []
    for t, alpha, sides, rho in [([0.2, 0.4, 0.6, 0.8, 1.0], 0.05, 2, 2.0),
                                 ([0.1, 0.3, 0.5, 1.0], 0.05, 1, 2.0),
                                 ([1 / 7 * k for k in range(1, 8)], 0.1, 2, 3.0)]:
        res = bounds(np.asarray(t), alpha, rho=rho, ztrun=8, sides=sides, max_nints=1000)
        cases.append({"information": t, "alpha": alpha, "sides": sides, "rho": rho,
                      "bounds": res.df["zb"].astype(float).tolist(),
                      "alpha_spent": res.df["pe"].astype(float).tolist()})
    return cases


def main() -> None:
    out = {
        "generated_by": "tests/online/generate_references.py",
        "versions": {"python": sys.version.split()[0], "numpy": version("numpy"),
                     "savvi": version("savvi"), "spotify-confidence":
                     version("spotify-confidence")},
        "savvi_linear_regression": savvi_cases(),
        "spotify_confidence_bounds": spotify_cases(),
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
