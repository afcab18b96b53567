"""Issue 12's reader prototype: pyarrow's CSV reader against a compiled TREC run reader.

Generates a TREC run of ``--millions`` million lines (7 by default: 7,000 topics x 1,000
documents, one-decimal scores, written by ``benchmarks/bench_runfiles.py``'s generator) and a
copy with full-precision scores (shortest round-trip repr, 16-17 digits, as dense retrievers
write them), then times each reader in a fresh interpreter (its imports done before the
timer): the first call and the best of ``--repeat`` (3), wall and CPU time (user + system of
all threads, ``time.process_time``), and the process's peak RSS (VmHWM):

pyarrow
    ``pyarrow.csv.read_csv`` of the three used columns with ``src/skrank/io/_arrow.py``'s
    options (space delimiter, no quoting, UTF-8 checked, 1 MB blocks, threads), the scores to
    NumPy and checked finite: alone (the floor of any pyarrow reader), with the topic ids
    dictionary-encoded (``skrank.io._trec.encode``: what skrank keeps), and with the document
    ids encoded too (what the prototype's dictionary mode returns);
skrank today
    ``skrank.io._trec.iter_run_blocks`` (8 MB blocks, each checked for blanks, CRs and
    comments, then ``read_csv``) + ``concat_run_blocks`` + ``encode`` of the topic ids;
prototype
    ``_runreader.read_run`` (``_runreader.pyx`` here, built by ``build.sh`` into
    ``--build-dir``) over an mmap of the file (``MAP_POPULATE``) or one ``read()``, in one
    thread or two (the buffer's halves cut after a line end, the second half's dictionaries
    merged into the first's); with the document ids dictionary-encoded (``docs="dict"``) or
    only hashed, with their offsets in the buffer (``docs="hash"``).

Before timing, the prototype's output is checked against pyarrow's on the generated run (topic
and document codes equal up to relabelling (both are in order of first appearance, so in fact
identical), their dictionaries byte for byte, scores bit for bit, the run tag; in hash mode:
equal hashes exactly where the ids are equal, and the offsets give the ids), on the
full-precision copy (scores bit for bit), on a run with 17-digit and exponent scores, CRLF/CR
line ends, tabs, comments, blank lines, extra fields, non-ASCII ids and a BOM (against
``skrank.io.read_run``), on 2M random score tokens against Python's ``float`` (correctly
rounded), and on small bad files: the prototype must stop at the line where
``skrank.io.read_run`` stops. Then each reader's import cost in a fresh interpreter.

    sh benchmarks/runfile_candidates/build.sh /tmp/reader
    .venv/bin/python benchmarks/runfile_candidates/bench_readers.py [--millions 7]
        [--build-dir /tmp/reader] [--dir /tmp/reader] [--keep] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import mmap
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads spin on 2 cores

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench_runfiles import write_files  # noqa: E402


def load(build_dir: str) -> object:
    sys.path.insert(0, build_dir)
    import _runreader

    return _runreader


def pyarrow_read(path: Path, encode_ids: tuple[str, ...] = ("qid", "doc")) -> dict:
    """skrank's pyarrow reading of a whole file, the columns ``encode_ids`` encoded."""
    import pyarrow as pa
    import pyarrow.csv as csv

    from skrank.io._trec import encode

    names = ["qid", "q0", "doc", "rank", "score", "tag"]
    types = {"qid": pa.string(), "doc": pa.string(), "score": pa.float64()}
    table = csv.read_csv(
        str(path),
        read_options=csv.ReadOptions(column_names=names, use_threads=True, block_size=1 << 20),
        parse_options=csv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False,
                                       double_quote=False, ignore_empty_lines=True),
        convert_options=csv.ConvertOptions(column_types=types, include_columns=list(types),
                                           null_values=[], strings_can_be_null=False,
                                           quoted_strings_can_be_null=False, check_utf8=True))
    out = {"score": table.column("score").to_numpy()}
    if not np.isfinite(out["score"]).all():
        raise ValueError("a score is not finite")
    for name, key in (("qid", "topics"), ("doc", "docs")):
        if name in encode_ids:
            out[name], out[key] = encode(table.column(name))
    return out


def skrank_read(path: Path, encode_doc: bool = True) -> dict:
    """skrank's reader as ``skrank eval`` reads a run whole, the ids encoded."""
    from skrank.io._trec import concat_run_blocks, encode, iter_run_blocks

    run = concat_run_blocks(list(iter_run_blocks(str(path))))
    qid, _ = encode(run.qid)
    out = {"qid": qid, "score": run.score, "tag": run.tag}
    if encode_doc:
        out["doc"], _ = encode(run.doc)
    return out


def open_buffer(path: Path, how: str) -> object:
    with open(path, "rb") as fh:
        if how == "read":
            return fh.read()
        if os.fstat(fh.fileno()).st_size == 0:
            return b""
        return mmap.mmap(fh.fileno(), 0, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE,
                         prot=mmap.PROT_READ)


def proto_read(rr: object, path: Path, how: str, threads: int, docs: str = "dict") -> object:
    out = rr.read_run(open_buffer(path, how), threads=threads, docs=docs)
    if out.bad_line:
        raise ValueError(f"line {out.bad_line}: {out.bad}")
    return out


def times(fn: Callable[[], object], repeat: int) -> dict:
    """First call and best of ``repeat`` calls, wall and CPU seconds; peak RSS."""
    walls, cpus = [], []
    for _ in range(repeat):
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        res = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        del res
    return {"first_wall": walls[0], "first_cpu": cpus[0], "wall": min(walls), "cpu": min(cpus),
            "rss_mb": peak_rss_mb()}


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM: not inherited from the parent, as ru_maxrss is)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


CASES = {
    "floor": "pyarrow `read_csv`, 3 columns (no encoding)",
    "arrow_q": "pyarrow `read_csv` + `encode` qid (what skrank keeps)",
    "arrow_qd": "pyarrow `read_csv` + `encode` qid and doc (the prototype's output)",
    "skrank": "skrank today: `iter_run_blocks` + concat + `encode` qid",
    "p1_mmap": "prototype, 1 thread, mmap (populated), doc dictionary",
    "p1_read": "prototype, 1 thread, one read(), doc dictionary",
    "p2_mmap": "prototype, 2 threads, mmap, doc dictionary",
    "p1_hash": "prototype, 1 thread, mmap, doc hashes + offsets (no dictionary)",
    "p2_hash": "prototype, 2 threads, mmap, doc hashes + offsets (no dictionary)",
    "floor_17": "full-precision scores: pyarrow `read_csv`, 3 columns",
    "p1_hash_17": "full-precision scores: prototype, 1 thread, hashes + offsets",
}


def case_fn(case: str, rr: object, run: Path) -> Callable[[], object]:
    return {
        "floor": lambda: pyarrow_read(run, ()),
        "arrow_q": lambda: pyarrow_read(run, ("qid",)),
        "arrow_qd": lambda: pyarrow_read(run),
        "skrank": lambda: skrank_read(run, encode_doc=False),
        "p1_mmap": lambda: proto_read(rr, run, "mmap", 1),
        "p1_read": lambda: proto_read(rr, run, "read", 1),
        "p2_mmap": lambda: proto_read(rr, run, "mmap", 2),
        "p1_hash": lambda: proto_read(rr, run, "mmap", 1, "hash"),
        "p2_hash": lambda: proto_read(rr, run, "mmap", 2, "hash"),
        "floor_17": lambda: pyarrow_read(precise(run), ()),
        "p1_hash_17": lambda: proto_read(rr, precise(run), "mmap", 1, "hash"),
    }[case]


def precise(run: Path) -> Path:
    return run.with_name(run.stem + "_precise.txt")


def write_precise(run: Path, rng: np.random.Generator) -> Path:
    """The run with full-precision scores (shortest round-trip repr: mostly 16-17 digits, as
    dense retrievers write them); the order of the documents unchanged."""
    import pyarrow as pa
    import pyarrow.csv as csv

    names = ["qid", "q0", "doc", "rank", "score", "tag"]
    table = csv.read_csv(str(run), read_options=csv.ReadOptions(column_names=names),
                         parse_options=csv.ParseOptions(delimiter=" ", quote_char=False))
    score = table.column("score").to_numpy()
    noise = rng.random(score.shape[0]) * 0.05
    table = table.set_column(4, "score", pa.array(score + noise))
    csv.write_csv(table, str(precise(run)), csv.WriteOptions(
        include_header=False, delimiter=" ", quoting_style="none"))
    return precise(run)


def arrow_dict(values: object) -> tuple[np.ndarray, np.ndarray]:
    """(int64 offsets, uint8 data) of a pyarrow string dictionary."""
    import pyarrow as pa

    values = values.cast(pa.large_string())
    _, off, data = values.buffers()[:3]
    offsets = np.frombuffer(off, dtype=np.int64)[values.offset: values.offset + len(values) + 1]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return offsets - offsets[0], raw[offsets[0]: offsets[-1]]


def same_codes(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two code arrays are equal up to a relabelling (a bijection of the codes)."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if a.shape != b.shape:
        return False
    if np.array_equal(a, b):
        return True
    pairs = np.unique(a * (int(b.max()) + 1) + b)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def check(rr: object, ref: dict, out: object, what: str) -> list[str]:
    """Differences between the prototype's result and pyarrow's (empty when equal)."""
    bad = []
    if not same_codes(out.qid, ref["qid"]):
        bad.append("topic codes")
    if not same_codes(out.doc, ref["doc"]):
        bad.append("document codes")
    if not np.array_equal(np.asarray(out.score).view(np.uint64),
                          np.asarray(ref["score"], dtype=np.float64).view(np.uint64)):
        bad.append("scores (bits)")
    for key, name in (("topics", "topics"), ("docs", "docs")):
        if key not in ref:
            continue
        off, data = rr.gather(out.buffer, *getattr(out, name))
        roff, rdata = arrow_dict(ref[key])
        if not (np.array_equal(off, roff) and np.array_equal(data, rdata)):
            bad.append(f"{name} dictionary")
    if "tag" in ref and out.tag.decode() != ref["tag"]:
        bad.append("tag")
    return [f"{what}: {b} differ" for b in bad]


def odd_run(path: Path, rng: np.random.Generator, n: int = 200_000) -> None:
    """A run with full-precision and exponent scores, CRLF and CR line ends, tabs, comments,
    blank lines, extra fields and a BOM."""
    kind = rng.integers(0, 4, size=n)
    values = rng.normal(size=n) * 10.0 ** rng.integers(-30, 30, size=n)
    scores = [repr(float(v)) if k == 0 else f"{v:.6f}" if k == 1 else f"{v:.3e}" if k == 2
              else f"{v:.17g}" for k, v in zip(kind.tolist(), values.tolist())]
    ends = rng.choice(["\n", "\r\n", "\r"], size=n, p=[0.8, 0.1, 0.1]).tolist()
    seps = rng.choice([" ", "\t", "  ", " \t "], size=n, p=[0.85, 0.05, 0.05, 0.05]).tolist()
    docs = rng.integers(0, n // 2, size=n).tolist()
    parts = ["\ufeff"]
    for i in range(n):
        if i % 997 == 0:
            parts.append("# a comment line Q0 x 1 2 3" + ends[i])
        if i % 1999 == 0:
            parts.append("  " + ends[i])
        s = seps[i]
        extra = " more fields" if i % 101 == 0 else ""
        parts.append(f"{1000 + i // 100}{s}Q0{s}d{docs[i]}-é{s}{i % 100 + 1}{s}{scores[i]}"
                     f"{s}tag{i % 3}{extra}{ends[i]}")
    path.write_bytes("".join(parts).encode("utf-8"))


BAD_CASES = [
    "1 Q0 a 1 inf t\n", "1 Q0 a 1 -inf t\n", "1 Q0 a 1 nan t\n", "1 Q0 a 1 1e400 t\n",
    "1 Q0 a 1 -1e400 t\n", "1 Q0 a 1 1_5 t\n", "1 Q0 a 1 ١٢ t\n", "1 Q0 a 1 0x10 t\n",
    "1 Q0 a 1 1e t\n", "1 Q0 a 1 . t\n", "1 Q0 a 1 1.5.2 t\n", "1 Q0 a 1 e5 t\n",
    "1 Q0 a 1 2 t\n1 Q0 b 2 t\n", "1 Q0 a 1 2 t\n\n# c\r1 Q0 b 2 3 t\r\n1 Q0 c 3\n",
    "1 Q0 a 1 2 t\r\n2 Q0 b 1 --1 t\n", "1 Q0 a 1 2 t\n1 Q0 b\xff 1 2 t\n",
    "1 Q0 a 1 +-1 t\n", "1 Q0 a 1 1e+ t\n",
]
GOOD_CASES = [
    "1 Q0 a 1 +1 t\n", "1 Q0 a 1 .5 t\n", "1 Q0 a 1 1. t\n", "1 Q0 a 1 -0 t\n",
    "1 Q0 a 1 1e-400 t\n", "1 Q0 a 1 1E5 t\n", "1 Q0 a 1 00012.50 t\n",
    "1 Q0 a 1 1.7976931348623157e308 t\n", "1 Q0 a 1 4.9e-324 t\n",
    "1 Q0 a 1 123456789012345678901234567890 t\n", "\ufeff 1\tQ0 a 1 2 t x y\r\r\n2 Q0 a 1 3 t",
]


def conformance(rr: object) -> list[str]:
    """The prototype against ``skrank.io.read_run`` on small good and bad files."""
    from skrank.exceptions import InputError
    from skrank.io import read_run

    problems = []
    for text in BAD_CASES + GOOD_CASES:
        data = text.encode("utf-8", "surrogateescape") if "\xff" not in text else \
            text.encode("latin-1")
        out = rr.read_run(data)
        try:
            ref = read_run(io.BytesIO(data))
            ref_line = 0
        except InputError as exc:
            found = re.search(r"line (\d+)", str(exc))
            ref_line = int(found.group(1)) if found else -1
            ref = None
        if out.bad_line != ref_line:
            problems.append(f"{text!r}: prototype line {out.bad_line} ({out.bad}), "
                            f"skrank line {ref_line}")
        elif ref is not None and not (
                np.array_equal(out.score.view(np.uint64), ref.score.view(np.uint64))
                and [s.decode() for s in out.strings("docs")] == list(dict.fromkeys(ref.doc_id))):
            problems.append(f"{text!r}: values differ: {out.score} vs {ref.score}")
    return problems


def score_tokens(rr: object, rng: np.random.Generator, n: int = 2_000_000) -> list[str]:
    """Random score tokens parsed by the prototype against Python's correctly rounded float."""
    mant = rng.integers(0, 10**18, size=n) // 10 ** rng.integers(0, 18, size=n)
    digits = rng.integers(0, 25, size=n)
    exps = rng.integers(-330, 310, size=n)
    toks = []
    for m, d, e, k in zip(mant.tolist(), digits.tolist(), exps.tolist(),
                          rng.integers(0, 4, size=n).tolist()):
        s = str(m)
        if d and d < len(s):
            s = s[:-d] + "." + s[-d:]
        elif d:
            s = "0." + "0" * (d - len(s)) + s
        if k == 1:
            s = f"{s}e{e}"
        elif k == 2:
            s = "-" + s
        elif k == 3:
            s = repr(float(rng.normal()) * 10.0 ** (e // 10))
        toks.append(s)
    expect = np.array([float(t) for t in toks])
    keep = np.isfinite(expect)
    lines = "".join(f"1 Q0 d{i} 1 {t} x\n" for i, t in enumerate(np.array(toks)[keep]))
    out = rr.read_run(lines.encode())
    if out.bad_line:
        return [f"random tokens: refused line {out.bad_line} ({out.bad})"]
    got = out.score.view(np.uint64)
    want = expect[keep].view(np.uint64)
    wrong = np.flatnonzero(got != want)
    return [f"random tokens: {len(wrong)} of {keep.sum()} differ, e.g. "
            f"{np.array(toks)[keep][wrong[0]]}"] if len(wrong) else []


IMPORTS = {
    "prototype (NumPy + the module)": "import numpy, _runreader",
    "pyarrow + csv + compute, first to_numpy (imports pandas)":
        "import pyarrow as pa, pyarrow.csv, pyarrow.compute; "
        "pa.chunked_array([pa.array([1.0])]).to_numpy()",
}


def import_costs(build_dir: str) -> dict:
    """Wall and CPU seconds of each import statement in a fresh interpreter, best of 3."""
    res = {}
    env = dict(os.environ, PYTHONPATH=build_dir)
    for name, stmt in IMPORTS.items():
        code = ("import time, resource; t = time.perf_counter(); "
                "u0 = resource.getrusage(resource.RUSAGE_SELF); " + stmt +
                "; u = resource.getrusage(resource.RUSAGE_SELF); print(time.perf_counter() - t, "
                "u.ru_utime + u.ru_stime - u0.ru_utime - u0.ru_stime)")
        runs = [tuple(map(float, subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env,
            check=True).stdout.split())) for _ in range(3)]
        res[name] = (min(r[0] for r in runs), min(r[1] for r in runs))
    return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--millions", type=int, default=7)
    parser.add_argument("--build-dir", default="/tmp/reader")
    parser.add_argument("--dir", default="/tmp/reader")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # time one case (a child process)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rr = load(args.build_dir)
    if args.one:
        import pyarrow.csv  # noqa: F401 - imports are not what is timed here

        import skrank.io._trec  # noqa: F401

        print(json.dumps(times(case_fn(args.one, rr, Path(args.run)), args.repeat)))
        return
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(12)

    problems = conformance(rr)
    problems += score_tokens(rr, rng)
    odd = folder / "odd_run.txt"
    odd_run(odd, rng)
    ref = skrank_read(odd)
    for threads in (1, 2):
        problems += check(rr, ref, proto_read(rr, odd, "read", threads), f"odd run, {threads}t")
    if not args.keep:
        odd.unlink()

    n_topics = args.millions * 1000
    qrels, run = folder / f"qrels_{n_topics}.txt", folder / f"run_{n_topics}.txt"
    if not run.exists():
        qrels, run = write_files(folder, n_topics)
    size = run.stat().st_size
    ref = pyarrow_read(run)
    ref["tag"] = "bench"
    for how, threads in (("mmap", 1), ("read", 1), ("mmap", 2)):
        problems += check(rr, ref, proto_read(rr, run, how, threads), f"{how}, {threads}t")
    for threads in (1, 2):  # hashes: equal exactly where the ids are equal, in this file
        out = proto_read(rr, run, "mmap", threads, "hash")
        codes = np.unique(out.doc, return_inverse=True)[1]
        off, data = rr.gather(out.buffer, out.doc_start, out.doc_len)
        roff, rdata = arrow_dict(ref["docs"].take(ref["doc"]))
        if not (np.array_equal(off, roff) and np.array_equal(data, rdata)):
            problems.append(f"hash mode, {threads}t: document offsets differ")
        if not same_codes(codes.ravel(), ref["doc"]) or not np.array_equal(
                out.score.view(np.uint64), ref["score"].view(np.uint64)) or not same_codes(
                out.qid, ref["qid"]):
            problems.append(f"hash mode, {threads}t: differs")
        del out
    print(f"{args.millions}M-line run: {run} ({size / 2**20:.0f} MB); rows {len(ref['score']):,}"
          f", topics {len(ref['topics']):,}, distinct documents {len(ref['docs']):,}")
    del ref
    gc.collect()

    ref = pyarrow_read(write_precise(run, rng), ())
    for threads in (1, 2):
        out = proto_read(rr, precise(run), "mmap", threads, "hash")
        if not np.array_equal(out.score.view(np.uint64), ref["score"].view(np.uint64)):
            problems.append(f"full-precision scores, {threads}t: differ")
        del out
    del ref
    print("checks:", "all equal" if not problems else "\n  ".join(["FAILED", *problems]))
    print(f"\nEach reader in a fresh interpreter (imports done before timing); first call and "
          f"best of {args.repeat}; peak RSS of the process. x: pyarrow's floor (3 columns of the "
          "same file) / the reader.")
    print(f"\n| reader ({args.millions}M lines, {size / 2**20:.0f} MB) | first call wall / CPU "
          "s | best wall s | best CPU s | peak RSS | x floor (wall) | x floor (CPU) |")
    print("|---|---|---|---|---|---|---|")
    base = None
    for case, name in CASES.items():
        out = subprocess.run([sys.executable, __file__, "--one", case, "--run", str(run),
                              "--build-dir", args.build_dir, "--repeat", str(args.repeat)],
                             capture_output=True, text=True)
        if out.returncode:
            print(f"| {name} | failed: {out.stderr.strip().splitlines()[-1][:80]} |||||")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        base = r if case.startswith("floor") else base  # the floor of the same file
        print(f"| {name} | {r['first_wall']:.2f} / {r['first_cpu']:.2f} | {r['wall']:.2f} | "
              f"{r['cpu']:.2f} | {r['rss_mb']:,.0f} MB | {base['wall'] / r['wall']:.1f}x | "
              f"{base['cpu'] / r['cpu']:.1f}x |", flush=True)
    print("\nimport, fresh interpreter (best of 3):")
    for name, (wall, cpu) in import_costs(args.build_dir).items():
        print(f"  {name}: {wall:.3f} s wall, {cpu:.3f} s CPU")
    if not args.keep:
        run.unlink()
        precise(run).unlink()
        if qrels.exists():
            qrels.unlink()
    print(json.dumps({"python": sys.version.split()[0], "cpus": os.cpu_count(),
                      "load": os.getloadavg()}))
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
