"""Harrell's and Uno's C at n subjects: skrank against scikit-survival and lifelines, one run.

Usage: python benchmarks/bench_survival.py [--n 100000] [--repeat 5]

Data: random risk scores rounded to 3 decimals (tied risks), integer times in [1, 1000]
(tied times, events and censorings at one time), 60 % events. Before timing, every
implementation's value is checked against skrank's (to 1e-12). Each timing is the best of
``--repeat`` runs (scikit-survival, quadratic, runs once at n >= 50,000).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.n

    from skrank.survival import concordance_index_censored, concordance_index_ipcw

    rng = np.random.default_rng(0)
    risk = np.round(rng.normal(size=n), 3)
    t = rng.integers(1, 1001, n).astype(float)
    e = rng.random(n) < 0.6
    t_train = rng.integers(1, 1001, n).astype(float)
    e_train = rng.random(n) < 0.6
    t_train[0], e_train[0] = 1001.0, False  # follow-up beyond every test event
    tau = 800.0

    rows = []
    ours_h = float(concordance_index_censored(e, t, risk))
    ours_u = float(concordance_index_ipcw((e_train, t_train), (e, t), risk, tau=tau))
    th = best(lambda: concordance_index_censored(e, t, risk), args.repeat)
    tu = best(lambda: concordance_index_ipcw((e_train, t_train), (e, t), risk, tau=tau),
              args.repeat)
    rows.append(("skrank concordance_index_censored", th, None))
    rows.append(("skrank concordance_index_ipcw (tau)", tu, None))

    ref_repeat = 1 if n >= 50_000 else args.repeat
    try:
        from sksurv import metrics as sm
        from sksurv.util import Surv
    except ImportError as exc:
        print(f"scikit-survival not importable ({exc}): skipped")
    else:
        y_train, y_test = Surv.from_arrays(e_train, t_train), Surv.from_arrays(e, t)
        ref = sm.concordance_index_censored(e, t, risk)[0]
        assert abs(ref - ours_h) <= 1e-12, (ref, ours_h)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            refu = sm.concordance_index_ipcw(y_train, y_test, risk, tau=tau)[0]
        assert abs(refu - ours_u) <= 1e-12, (refu, ours_u)
        s_h = best(lambda: sm.concordance_index_censored(e, t, risk), ref_repeat)
        s_u = best(lambda: sm.concordance_index_ipcw(y_train, y_test, risk, tau=tau), ref_repeat)
        rows.append(("sksurv concordance_index_censored", s_h, s_h / th))
        rows.append(("sksurv concordance_index_ipcw (tau)", s_u, s_u / tu))
    try:
        from lifelines.utils import concordance_index
    except ImportError as exc:
        print(f"lifelines not importable ({exc}): skipped")
    else:
        ref = concordance_index(t, -risk, e)
        assert abs(ref - ours_h) <= 1e-12, (ref, ours_h)
        tl = best(lambda: concordance_index(t, -risk, e), args.repeat)
        rows.append(("lifelines concordance_index (Harrell)", tl, tl / th))

    import platform

    print(f"n = {n:,} subjects, {int(e.sum()):,} events; values equal to 1e-12; "
          f"Python {platform.python_version()}, {platform.machine()}")
    print(f"{'implementation':40s} {'seconds':>10s} {'skrank is x faster':>20s}")
    for name, sec, ratio in rows:
        print(f"{name:40s} {sec:10.4f} {'' if ratio is None else f'{ratio:.0f}x':>20s}")


if __name__ == "__main__":
    main()
