"""Issue 11's kernel prototype: the one-pass kernel compiled three ways, measured in one run.

The hottest kernel, ``evaluate_contiguous`` (``src/skrank/_kernels/_fast.py``: NDCG@10 and
friends over contiguous queries in one pass), is run on the data of ``_data.make_data`` by

numba
    today's kernel, loaded from git history: ``git show REV:src/skrank/_kernels/F.py`` for
    ``_fast``, ``_metrics`` and ``_select`` written into a temporary package (REV defaults to
    ``a128660``, the last commit before the port to compiled code);
C++ (nanobind)
    the prototype in ``benchmarks/kernel_candidates/cpp`` (``skrank_kc_cpp``), when installed
    (``--build-cpp`` builds and installs it with pip first, and times that), built for the
    baseline x86-64 instruction set as a wheel would be; with ``--cpp-arch native`` and/or
    ``--cpp-arch x86-64-v3``, also the same code built with that ``-march``
    (``skrank_kc_cpp_native``, ``skrank_kc_cpp_v3``: AVX2, the level a wheel could dispatch
    to at run time), built and installed into a temporary directory only, since numba
    compiles for the CPU it runs on;
Cython
    ``evaluate_contiguous`` of the kernel module that ``skrank.metrics._fast`` calls
    (``skrank._kernels._fast`` before the port, ``skrank.metrics._kernels._ranking`` after),
    when that module is a compiled extension (its ``__file__`` ends in ``.so``; else "not
    built yet").

Timed is the kernel call alone, with the arguments ``skrank.metrics._fast._kernel``
passes (captured from a ``skrank.evaluate`` call; the script's own copy of them when skrank
cannot be imported): int64 labels, float64 scores, NDCG@10 with pessimistic ties, then
AP@10 + RR, then NDCG@10 with ``ties="average"``. The outputs are allocated once, outside the
timer. Each number is the median of warm calls (at least 7; the candidates take turns, call
by call, so that a passing load hits them alike); ``x numba`` is the candidate's median over
numba's.

Before timing, every candidate must return the same bits as numba (return value, ``values``
compared as raw bits, ``empty``, ``ties``): on the 1M rows for each timed case, and on small
random data covering every metric kind, tie rule, label and score dtype, gain table and
option, with heavy ties (more than 64 rows tied at the cutoff: the general kernel's selection)
and bad rows. A candidate that differs is reported and not timed.

Cold start, each in a fresh interpreter: importing the kernel and its first and second calls
on small data (numba with an empty ``NUMBA_CACHE_DIR``, which compiles, then with that cache
filled); the C++ module's build time (``--build-cpp``) and the size of its shared library.

Usage: ``python benchmarks/bench_kernel_candidates.py [--quick] [--build-cpp] [--json PATH]
[--rev REV]``.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib
import itertools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _data import make_data  # noqa: E402

DEFAULT_REV = "a128660"
KERNEL_FILES = ("_fast", "_metrics", "_select")
CPP_DIR = HERE / "kernel_candidates" / "cpp"
CPP_MODULE = "skrank_kc_cpp"
CPP_ARCHES = {"native": "skrank_kc_cpp_native", "x86-64-v3": "skrank_kc_cpp_v3"}
# the build for any CPU; _fast names the one it uses
CYTHON_MODULE = "skrank.metrics._kernels._ranking"
NUMBA = "numba"
CPP = "C++ (nanobind)"
CYTHON = "Cython"

# kernel codes as in src/skrank/_kernels (_metrics.NDCG ..., _select.PESSIMISTIC ...)
NDCG, DCG, P, R, HIT, AP, RR, ERR = range(8)
KIND_CODES = {"ndcg": NDCG, "dcg": DCG, "precision": P, "recall": R, "hit_rate": HIT,
              "ap": AP, "rr": RR, "err": ERR}
TIE_CODES = {"pessimistic": 0, "optimistic": 1, "input": 2, "average": 3}
MAX_CANDIDATES = 64  # _fast.MAX_CANDIDATES: more rows tied at the cutoff take select_top
SMALL_K = 32

# the timed cases: (label, skrank metric names, tie rule)
CASES = (
    ("NDCG@10", ("ndcg@10",), "pessimistic"),
    ("AP@10+RR", ("ap@10", "rr"), "pessimistic"),
    ("NDCG@10 avg", ("ndcg@10",), "average"),
)
MIN_REPEATS = 7
REPEATS = {1_000_000: 21, 10_000_000: 9}
RANDOM_CASES = 400
RANDOM_SEED = 11

Kernel = Callable[..., int]


# ------------------------------------------------------------------------------ candidates


@dataclass
class Candidate:
    name: str
    fn: Kernel | None
    origin: str
    note: str = ""
    module: str = ""  # what a fresh interpreter imports (cold start)
    problems: list[str] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return self.fn is not None and not self.problems


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          check=True).stdout


def write_numba_package(rev: str, parent: Path) -> str:
    """Write the numba kernel files of ``rev`` as package ``parent/<name>``; return name."""
    name = "_skrank_numba_" + re.sub(r"\W", "_", rev)
    pkg = parent / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for f in KERNEL_FILES:
        (pkg / f"{f}.py").write_text(git("show", f"{rev}:src/skrank/_kernels/{f}.py"))
    return name


def load_numba(rev: str, parent: Path) -> tuple[Candidate, str]:
    sha = git("rev-parse", "--short", rev).strip()
    name = write_numba_package(rev, parent)
    sys.path.insert(0, str(parent))
    mod = importlib.import_module(f"{name}._fast")
    import numba

    return Candidate(NUMBA, mod.evaluate_contiguous, f"git {sha}: src/skrank/_kernels",
                     f"numba {numba.__version__}, compiled for this CPU at the first call"), name


def load_cpp(name: str = CPP, module: str = CPP_MODULE) -> Candidate:
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        return Candidate(name, None, str(CPP_DIR), f"not importable ({exc}); build it with "
                         f"--build-cpp or pip install ./{CPP_DIR.relative_to(ROOT)}")
    info = ", ".join(getattr(mod, "build_info", ()))
    return Candidate(name, mod.evaluate_contiguous, mod.__file__, info, module)


def import_skrank() -> tuple[str | None, Exception | None]:
    """Import skrank once (an editable meson-python install rebuilds at each import attempt)
    and find the attribute of ``skrank.metrics._fast`` that holds the kernel module.

    Returns (attribute, error): skrank may not import while its kernels are being ported.
    """
    try:
        ev = importlib.import_module("skrank.metrics._fast")
    except Exception as exc:
        return None, exc
    for name, obj in vars(ev).items():
        if isinstance(obj, types.ModuleType) and hasattr(obj, "evaluate_contiguous"):
            return name, None
    return None, RuntimeError("skrank.metrics._fast holds no module with the kernel")


def load_cython(attr: str | None, skrank_error: Exception | None) -> Candidate:
    if skrank_error is not None:
        return Candidate(CYTHON, None, CYTHON_MODULE, f"skrank not importable ({skrank_error!r})")
    mod = getattr(importlib.import_module("skrank.metrics._fast"), attr)
    origin = getattr(mod, "__file__", None) or "?"
    if not origin.endswith(".so"):
        return Candidate(CYTHON, None, origin,
                         f"not built yet ({mod.__name__} is not a compiled extension)")
    name = CYTHON if mod.__name__ == CYTHON_MODULE else f"{CYTHON} x86-64-v3"
    return Candidate(name, mod.evaluate_contiguous, origin, mod.__name__, mod.__name__)


def load_cython_baseline() -> Candidate | None:
    """The build for any CPU, when ``_fast`` uses the x86-64-v3 build."""
    try:
        mod = importlib.import_module(CYTHON_MODULE)
        used = importlib.import_module("skrank.metrics._kernels").ranking
    except Exception:
        return None
    if used is mod:
        return None
    return Candidate(CYTHON, mod.evaluate_contiguous, mod.__file__, mod.__name__, mod.__name__)


# --------------------------------------------------------------------------- kernel inputs


def own_setup(names, tie_rule: str) -> tuple:
    """The arguments after labels and scores that ``_fast._kernel`` passes for the default
    conventions (exp gain table over labels 0..62, rel_min 1, AP over all relevant rows, P
    divided by k, LightGBM's arithmetic), as ``_fast._fast_setup`` builds them."""
    table = 2.0 ** np.arange(63, dtype=np.float64) - 1.0
    order = np.argsort(-table, kind="stable").astype(np.int64)
    kinds = np.array([KIND_CODES[n.split("@")[0]] for n in names], dtype=np.int64)
    ks = np.array([int(n.split("@")[1]) if "@" in n else 0 for n in names], dtype=np.int64)
    return (TIE_CODES[tie_rule], table, order, 1.0, 1.0, 0, False, kinds, ks, False)


def skrank_setup(names, tie_rule: str, kernel: Kernel, attr: str) -> tuple:
    """The same arguments captured from ``skrank.evaluate`` on small data: the kernel module
    of ``_fast`` (attribute ``attr``) is swapped for a recorder that runs ``kernel`` (so
    that the call completes)."""
    from skrank.metrics import _fast as ev

    small = make_data(20_000)
    calls = []

    saved = getattr(ev, attr)

    class Recorder:
        SMALL_K = saved.SMALL_K

        @staticmethod
        def evaluate_contiguous(*args):
            calls.append(args)
            return kernel(*args)

    setattr(ev, attr, Recorder)
    try:
        import skrank

        skrank.evaluate(small.y_true, small.y_score, small.qid, metrics=list(names),
                        ties=tie_rule)
    finally:
        setattr(ev, attr, saved)
    if len(calls) != 1:
        raise RuntimeError(f"expected one kernel call, got {len(calls)}")
    args = calls[0]
    if not np.array_equal(args[0], small.offsets) or args[1].dtype != np.int64:
        raise RuntimeError("unexpected offsets or label dtype")
    return tuple(args[3:13])


def same_setup(a: tuple, b: tuple) -> bool:
    for x, y in zip(a, b, strict=True):
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
                    and x.dtype == y.dtype and np.array_equal(x, y)):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def outputs(n_q: int, m: int):
    return (np.zeros((n_q, m), dtype=np.float64), np.zeros((n_q, m), dtype=np.bool_),
            np.zeros((n_q, m), dtype=np.bool_))


def call(fn: Kernel, case: tuple):
    offsets, labels, scores, setup = case
    out = outputs(offsets.shape[0] - 1, setup[7].shape[0])
    bad = fn(offsets, labels, scores, *setup, *out)
    return int(bad), out


def differences(ref, got) -> list[str]:
    """What differs between two kernel results (return value, values bits, empty, ties)."""
    (bad_a, (va, ea, ta)), (bad_b, (vb, eb, tb)) = ref, got
    diff = []
    if bad_a != bad_b:
        diff.append(f"returned {bad_b}, numba {bad_a}")
    if not (np.array_equal(va, vb) and np.array_equal(va.view(np.uint64), vb.view(np.uint64))):
        at = np.argwhere(va.view(np.uint64) != vb.view(np.uint64))
        q, j = at[0]
        diff.append(f"values differ in {len(at)} cells, first [{q}, {j}]: "
                    f"{vb[q, j]!r} vs numba {va[q, j]!r}")
    if not np.array_equal(ea, eb):
        diff.append(f"empty differs in {int((ea != eb).sum())} cells")
    if not np.array_equal(ta, tb):
        diff.append(f"ties differs in {int((ta != tb).sum())} cells")
    return diff


# ------------------------------------------------------------------------- random checks


def random_case(rng: np.random.Generator, i: int):
    """Small random kernel input; every fourth case has heavy ties (few distinct scores)."""
    n_q = int(rng.integers(1, 12))
    style = i % 4
    if style == 0:  # heavy ties: 2 or 3 distinct scores over 70..400 rows
        sizes = rng.integers(70, 401, n_q)
    else:
        sizes = rng.integers(1, 160, n_q)
    n = int(sizes.sum())
    offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    max_label = int(rng.choice([1, 4, 4, 9, 12]))
    labels = rng.integers(0, max_label + 1, n)
    if style == 0:
        scores = rng.integers(0, int(rng.integers(2, 4)), n).astype(np.float64) / 4
    elif style == 1:
        scores = np.round(rng.random(n), 2)
    elif style == 2:
        scores = rng.standard_normal(n) * 10.0 ** float(rng.integers(-3, 4))
    else:
        scores = np.round(rng.standard_normal(n) + 0.5 * labels, 1)
    gain = int(rng.integers(0, 3))
    if gain == 0:
        table = 2.0 ** np.arange(63, dtype=np.float64) - 1.0
    elif gain == 1:
        table = np.arange(63, dtype=np.float64)
    else:  # a LightGBM-style label_gain, not monotone, exactly as long as needed or longer
        table = rng.integers(0, 40, max_label + 1 + int(rng.integers(0, 3))).astype(np.float64)
    n_metrics = int(rng.integers(1, 5))
    kinds = rng.integers(0, 8, n_metrics).astype(np.int64)
    ks = rng.integers(1, SMALL_K + 1, n_metrics).astype(np.int64)
    ks[kinds == RR] = rng.choice([0, 1, 3, 10], int((kinds == RR).sum()))
    err_scale = 1.0
    if (kinds == ERR).any():  # as _fast_setup: the table stops at the largest label
        table = table[: max_label + 1]
        err_scale = float(2.0**-max_label)
    order = np.argsort(-table, kind="stable").astype(np.int64)
    labels = labels.astype(np.float64 if rng.random() < 0.3 else np.int64)
    scores = scores.astype(np.float32 if rng.random() < 0.3 else np.float64)
    if rng.random() < 0.15:  # a bad row: NaN or infinite score, label out of range or fractional
        r = int(rng.integers(0, n))
        what = int(rng.integers(0, 4))
        if what == 0:
            scores[r] = np.nan
        elif what == 1:
            scores[r] = -np.inf
        elif what == 2:
            labels[r] = len(table) if rng.random() < 0.5 else -1
        elif labels.dtype.kind == "f":
            labels[r] = 1.5 if rng.random() < 0.5 else np.nan
    setup = (int(rng.integers(0, 4)), table, order, float(rng.choice([1.0, 2.0, 0.5])),
             err_scale, int(rng.integers(0, 3)), bool(rng.random() < 0.3), kinds, ks,
             bool(rng.random() < 0.3))
    return offsets, labels, scores, setup


def heavy_tie_queries(case) -> int:
    """Queries with more than MAX_CANDIDATES rows tied with the row at the largest cutoff."""
    offsets, _, scores, setup = case
    kinds, ks = setup[7], setup[8]
    cut = ks[kinds != RR]
    if cut.size == 0:
        return 0
    k = int(cut.max())
    count = 0
    for lo, hi in itertools.pairwise(offsets):
        s = np.sort(scores[lo:hi])[::-1]
        if k <= s.shape[0] and int((s == s[k - 1]).sum()) > MAX_CANDIDATES:
            count += 1
    return count


def check(cands: list[Candidate], numba_fn: Kernel, named_cases: list[tuple[str, tuple]],
          n_random: int) -> dict:
    """Compare every candidate with numba; note problems on the candidates."""
    rng = np.random.default_rng(RANDOM_SEED)
    random_cases = [random_case(rng, i) for i in range(n_random)]
    heavy = sum(heavy_tie_queries(c) for c in random_cases)
    n_bad = 0
    summary = {"random_cases": n_random, "random_heavy_tie_queries": heavy,
               "random_cases_with_bad_row": 0, "candidates": {}}
    refs = [call(numba_fn, c) for _, c in named_cases]
    random_refs = [call(numba_fn, c) for c in random_cases]
    n_bad = sum(ref[0] >= 0 for ref in random_refs)
    summary["random_cases_with_bad_row"] = n_bad
    for cand in cands:
        if cand.fn is None or cand.name == NUMBA:
            continue
        for (label, case), ref in zip(named_cases, refs):
            try:
                diff = differences(ref, call(cand.fn, case))
            except Exception as exc:
                diff = [f"raised {exc!r}"]
            cand.problems += [f"{label}: {d}" for d in diff]
        n_diff = 0
        for i, (case, ref) in enumerate(zip(random_cases, random_refs)):
            try:
                diff = differences(ref, call(cand.fn, case))
            except Exception as exc:
                diff = [f"raised {exc!r}"]
            if diff:
                n_diff += 1
                if n_diff <= 5:
                    lab, sc, setup = case[1].dtype, case[2].dtype, case[3]
                    cand.problems += [f"random case {i} ({lab} labels, {sc} scores, tie mode "
                                      f"{setup[0]}, kinds {setup[7].tolist()}, ks "
                                      f"{setup[8].tolist()}): {d}" for d in diff]
        summary["candidates"][cand.name] = {
            "equal": not cand.problems, "random_cases_differing": n_diff,
            "problems": cand.problems,
        }
        verdict = "same bits as numba" if not cand.problems else "DIFFERS from numba"
        verdict += f" ({heavy} random queries with heavy ties, {n_bad} random bad rows)"
        print(f"  {cand.name}: {verdict} ({len(named_cases)} full-size cases, {n_random} random "
              f"cases, {n_diff} differing)", flush=True)
        for p in cand.problems[:10]:
            print(f"    {p}", flush=True)
    return summary


# ---------------------------------------------------------------------------------- timing


def time_cases(cands: list[Candidate], cases: list[tuple[str, tuple]], repeats: int) -> dict:
    """Median (and min, CPU) seconds of warm kernel calls, the candidates taking turns."""
    out = {}
    for label, case in cases:
        offsets, labels, scores, setup = case
        bufs = {c.name: outputs(offsets.shape[0] - 1, setup[7].shape[0]) for c in cands}
        for c in cands:  # warm: compiled, caches and pages touched
            c.fn(offsets, labels, scores, *setup, *bufs[c.name])
        wall = {c.name: [] for c in cands}
        cpu = {c.name: [] for c in cands}
        gc.disable()
        try:
            for _ in range(repeats):
                for c in cands:
                    buf = bufs[c.name]
                    t0, c0 = time.perf_counter(), time.process_time()
                    c.fn(offsets, labels, scores, *setup, *buf)
                    wall[c.name].append(time.perf_counter() - t0)
                    cpu[c.name].append(time.process_time() - c0)
        finally:
            gc.enable()
        for c in cands:
            med = statistics.median(wall[c.name])
            base = statistics.median(wall[NUMBA])
            out[(label, c.name)] = {
                "seconds": med, "min_seconds": min(wall[c.name]),
                "cpu_seconds": statistics.median(cpu[c.name]), "samples": wall[c.name],
                "ratio_to_numba": med / base,
            }
            print(f"    {label:<12} {c.name:<16} {med * 1e3:9.2f} ms (min "
                  f"{min(wall[c.name]) * 1e3:.2f}, cpu {statistics.median(cpu[c.name]) * 1e3:.2f})"
                  f"  {med / base:5.2f}x numba  ({repeats} calls)", flush=True)
    return out


# ------------------------------------------------------------------------------ cold start

COLD = r"""
import json, sys, time
sys.path[:0] = {paths!r}
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
{load}
t2 = time.perf_counter()
n_q, m = 20, 1
offsets = np.arange(0, 100 * n_q + 1, 100, dtype=np.int64)
labels = (np.arange(100 * n_q, dtype=np.int64) * 7) % 5
scores = np.round(np.sin(np.arange(100 * n_q, dtype=np.float64)), 2)
table = 2.0 ** np.arange(63, dtype=np.float64) - 1.0
order = np.argsort(-table, kind="stable").astype(np.int64)
kinds = np.zeros(1, dtype=np.int64)
ks = np.full(1, 10, dtype=np.int64)
def run():
    out = (np.empty((n_q, m)), np.zeros((n_q, m), dtype=bool), np.zeros((n_q, m), dtype=bool))
    f(offsets, labels, scores, 0, table, order, 1.0, 1.0, 0, False, kinds, ks, False, *out)
run()
t3 = time.perf_counter()
run()
t4 = time.perf_counter()
print(json.dumps({{"import_numpy": t1 - t0, "import": t2 - t1, "first_call": t3 - t2,
                  "second_call": t4 - t3}}))
"""


def cold_start(load: str, paths: list[str], env: dict | None = None) -> dict:
    """Import and first calls (int64 labels, float64 scores, NDCG@10) in a fresh interpreter."""
    code = COLD.format(paths=paths, load=load)
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, **(env or {})}, cwd=tempfile.gettempdir())
    total = time.perf_counter() - t0
    if res.returncode != 0:
        return {"error": res.stderr.strip().splitlines()[-1] if res.stderr else "failed"}
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["process"] = total
    return out


def cold_starts(cands: list[Candidate], parent: Path, numba_pkg: str) -> dict:
    out = {}
    with tempfile.TemporaryDirectory(prefix="numba_cache_") as cache:
        env = {"NUMBA_CACHE_DIR": cache}
        load = f"from {numba_pkg}._fast import evaluate_contiguous as f"
        out["numba, empty cache (compiles)"] = cold_start(load, [str(parent)], env)
        out["numba, cache filled"] = cold_start(load, [str(parent)], env)
    for c in cands:
        if c.fn is None or c.name == NUMBA:
            continue
        load = f"from {c.module} import evaluate_contiguous as f"
        paths = [str(Path(c.origin).parent)]
        if c.name == CYTHON:
            # the extension file alone, as the C++ module: importing skrank would time the
            # whole package (and an editable install's rebuild, when a source changed)
            load = ("import importlib.util as u\n"
                    f"s = u.spec_from_file_location({c.module!r}, {c.origin!r})\n"
                    "m = u.module_from_spec(s)\ns.loader.exec_module(m)\n"
                    "f = m.evaluate_contiguous")
            paths = []
        out[c.name] = cold_start(load, paths)
    for name, r in out.items():
        if "error" in r:
            print(f"    {name:<32} error: {r['error']}", flush=True)
        else:
            print(f"    {name:<32} import {r['import']:.3f} s, first call {r['first_call']:.3f} "
                  f"s, second {r['second_call'] * 1e3:.2f} ms, process {r['process']:.2f} s",
                  flush=True)
    return out


# ----------------------------------------------------------------------------------- build


def build_cpp(arch: str | None = None, target: Path | None = None) -> dict:
    """``pip install`` the C++ prototype (build dependencies from the index, a temporary build
    directory); return the wall time and pip's verdict.

    ``arch``: build the variant for that ``-march`` and install it into ``target``.
    """
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--force-reinstall", "-v",
           str(CPP_DIR)]
    if arch is not None:
        cmd[-1:-1] = ["--target", str(target), f"--config-settings=cmake.define.KC_MARCH={arch}"]
    print(f"  building: {' '.join(cmd[2:])}", flush=True)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    log = res.stdout + res.stderr
    compile_lines = [ln.strip() for ln in log.splitlines() if "Building CXX object" in ln]
    versions = sorted(set(re.findall(r"Successfully installed (.*)", log)))
    out = {"seconds": seconds, "ok": res.returncode == 0, "compile_steps": len(compile_lines),
           "build_env": versions}
    print(f"  build {'ok' if out['ok'] else 'FAILED'} in {seconds:.1f} s "
          f"({len(compile_lines)} compile steps)", flush=True)
    if not out["ok"]:
        print(log[-3000:], flush=True)
    return out


def cpp_facts(cands: list[Candidate]) -> dict:
    src = CPP_DIR / "src" / "kernel.cpp"
    facts = {"source_lines": len(src.read_text().splitlines()), "so_bytes": {}}
    for c in cands:
        if c.name.startswith("C++") and c.fn is not None and c.origin.endswith(".so"):
            facts["so_bytes"][c.name] = os.path.getsize(c.origin)
    return facts


# ---------------------------------------------------------------------------------- report


def environment(rev: str) -> dict:
    import numba

    cxx = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}",
        "load_average": os.getloadavg(),
        "python": platform.python_version(), "numpy": np.__version__,
        "numba": numba.__version__, "c++": cxx.splitlines()[0] if cxx else "?",
        "numba_rev": git("rev-parse", "--short", rev).strip(),
        "head": git("rev-parse", "--short", "HEAD").strip(),
    }


def fmt_s(s: float) -> str:
    return f"{s * 1e3:.2f} ms"


def print_tables(cands, timings, sizes, cold, build, build_arch, facts) -> None:
    titles = (("seconds", "median wall time"), ("min_seconds", "fastest call"),
              ("cpu_seconds", "median CPU time of the process"))
    for n_rows in sizes:
        for key, title in titles:
            print(f"\n### Kernel call alone, {n_rows:,} rows: {title} (x = candidate / numba)\n")
            print("| candidate |" + "".join(f" {label} | x |" for label, _, _ in CASES))
            print("|---|" + "---|---|" * len(CASES))
            for c in cands:
                row = f"| {c.name} |"
                for label, _, _ in CASES:
                    r = timings.get(n_rows, {}).get((label, c.name))
                    base = timings.get(n_rows, {}).get((label, NUMBA))
                    if r is None:
                        row += " - | - |"
                    else:
                        ratio = "" if c.name == NUMBA else f"{r[key] / base[key]:.2f}x"
                        row += f" {fmt_s(r[key])} | {ratio} |"
                print(row)
    print()
    for c in cands:
        if not c.usable:
            why = "; ".join(c.problems[:2]) if c.problems else c.note
            print(f"- {c.name}: not timed: {why}")
    print("\n## Cold start (fresh interpreter, 20 queries, int64 labels, float64 scores; "
          "import: the kernel's module alone)\n")
    print("| kernel | import | first call | second call | whole process |")
    print("|---|---|---|---|---|")
    for name, r in cold.items():
        if "error" in r:
            print(f"| {name} | error: {r['error']} | | | |")
        else:
            print(f"| {name} | {r['import']:.3f} s | {r['first_call']:.3f} s | "
                  f"{fmt_s(r['second_call'])} | {r['process']:.2f} s |")
    print("\n## C++ prototype\n")
    if build:
        print(f"- build (pip install, isolated build environment): {build['seconds']:.1f} s, "
              f"{'ok' if build['ok'] else 'FAILED'}")
    else:
        print("- build time: not measured (run with --build-cpp)")
    for arch, b in build_arch.items():
        print(f"- build of the -march={arch} variant: {b['seconds']:.1f} s, "
              f"{'ok' if b['ok'] else 'FAILED'}")
    for name, size in facts["so_bytes"].items():
        print(f"- shared library of {name}: {size / 1024:.0f} KiB")
    print(f"- source: {facts['source_lines']} lines (src/kernel.cpp)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1M rows only")
    ap.add_argument("--json", type=Path, help="write the results to this file")
    ap.add_argument("--rev", default=DEFAULT_REV, help="git revision of the numba kernel")
    ap.add_argument("--build-cpp", action="store_true",
                    help="build and install the C++ prototype first (timed)")
    ap.add_argument("--cpp-arch", action="append", default=[], choices=sorted(CPP_ARCHES),
                    help="also build (timed) and measure the C++ prototype for this -march")
    ap.add_argument("--random-cases", type=int, default=RANDOM_CASES,
                    help="small random inputs compared with numba")
    args = ap.parse_args(argv)
    sizes = [1_000_000] if args.quick else [1_000_000, 10_000_000]

    tmp = tempfile.TemporaryDirectory(prefix="kernel_candidates_")
    parent = Path(tmp.name)
    # numba's cache of the loaded kernel stays in the temporary directory
    os.environ["NUMBA_CACHE_DIR"] = str(parent / "numba_cache")
    start = time.perf_counter()
    env = environment(args.rev)
    print(f"bench_kernel_candidates: {env['date']}, {env['machine']}, load "
          f"{'/'.join(f'{x:.1f}' for x in env['load_average'])}, python {env['python']}, "
          f"numpy {env['numpy']}, numba {env['numba']}, {env['c++']}", flush=True)

    build = build_cpp() if args.build_cpp else None
    build_arch = {}
    for arch in args.cpp_arch:
        build_arch[arch] = build_cpp(arch, parent / arch)
        sys.path.insert(0, str(parent / arch))
    numba_cand, numba_pkg = load_numba(args.rev, parent)
    attr, skrank_error = import_skrank()
    cands = [numba_cand, load_cpp(), load_cython(attr, skrank_error)]
    baseline = None if skrank_error is not None else load_cython_baseline()
    if baseline is not None:
        cands.insert(2, baseline)
    for i, arch in enumerate(args.cpp_arch):
        cands.insert(2 + i, load_cpp(f"C++ -march={arch}", CPP_ARCHES[arch]))
    for c in cands:
        print(f"  {c.name:<16} {c.origin}" + (f"  ({c.note})" if c.note else ""), flush=True)

    setups = {}
    sources = {}
    for label, names, tie in CASES:
        own = own_setup(names, tie)
        try:
            if skrank_error is not None:
                raise skrank_error
            setups[label] = skrank_setup(names, tie, numba_cand.fn, attr)
            source = "captured from skrank.evaluate"
            if not same_setup(setups[label], own):
                source += " (differs from the script's own copy)"
        except Exception as exc:  # skrank may not import while its kernels are being ported
            setups[label] = own
            source = f"the script's own copy (capture failed: {exc!r})"
        sources[label] = source
        print(f"  setup {label}: {source}", flush=True)

    results = {"environment": env, "build": build, "build_arch": build_arch,
               "setup": sources, "timings": {}}
    timings = {}
    for n_rows in sizes:
        t0 = time.perf_counter()
        d = make_data(n_rows)
        print(f"\n{n_rows:,} rows, {d.n_queries:,} queries (data built in "
              f"{time.perf_counter() - t0:.1f} s)", flush=True)
        cases = [(label, (d.offsets, d.y_true, d.y_score, setups[label]))
                 for label, _, _ in CASES]
        if n_rows == sizes[0]:
            print("  checking against numba ...", flush=True)
            results["checks"] = check(cands, numba_cand.fn, cases, args.random_cases)
        timed = [c for c in cands if c.usable]
        timings[n_rows] = time_cases(timed, cases, max(MIN_REPEATS, REPEATS.get(n_rows, 7)))
        results["timings"][str(n_rows)] = [
            {"case": label, "candidate": name, **r} for (label, name), r in timings[n_rows].items()
        ]
        del d, cases

    print("\ncold start ...", flush=True)
    cold = cold_starts(cands, parent, numba_pkg)
    facts = cpp_facts(cands)
    results["cold_start"] = cold
    results["cpp"] = facts
    results["candidates"] = [
        {"name": c.name, "origin": c.origin, "note": c.note, "usable": c.usable} for c in cands
    ]
    env["load_average_end"] = os.getloadavg()
    env["seconds"] = time.perf_counter() - start
    print_tables(cands, timings, sizes, cold, build, build_arch, facts)
    print(f"\nload average at the end {'/'.join(f'{x:.1f}' for x in env['load_average_end'])}; "
          f"run took {env['seconds']:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=float))
        print(f"results written to {args.json}")
    tmp.cleanup()
    ok = all(c.usable or c.fn is None for c in cands)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
