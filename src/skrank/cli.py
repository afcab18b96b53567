"""The ``skrank`` command (alias ``rank-eval``): evaluate and compare rankers from files.

``skrank eval`` reads TREC qrels and runs, a table of labels and scores (CSV, TSV, Parquet)
or a LibSVM file with score files, evaluates every system with :func:`skrank.evaluate`,
compares each one with a baseline (:func:`skrank.reports.build_report`) and prints a report
that states the conventions of every number. See ``docs/cli.rst`` or ``skrank eval --help``.

Exit status: 0 on success, 1 on bad data (a one-line ``skrank: error: ...`` on stderr),
2 on bad usage (argparse's message), 130 when interrupted.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import itertools
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from . import __version__
from .conventions import EMPTY_RULES, IDCG_SOURCES, PRESETS, SCORE_PRECISIONS, TIE_RULES
from .exceptions import InvalidParameterError, SkrankError
from .metrics._spec import (  # noqa: F401 (the trec_eval names: re-exported)
    _TREC_FAMILIES,
    _TREC_PLAIN,
    SUCCESS_CUTOFFS,
    TREC_CUTOFFS,
    Metric,
    MetricNameError,
    parse_metric_list,
)

__all__ = ["main"]

FORMATS = ("text", "markdown", "json", "csv", "trec")
INPUTS = ("auto", "trec", "table", "libsvm")
_TABLE_SUFFIXES = (".csv", ".tsv", ".tab", ".parquet", ".pq")
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")
_LARGE_INPUT = 20 * 2**20  # bytes: above this, progress is shown on a terminal


class DataError(SkrankError):
    """A problem with the data or the files given on the command line (exit status 1)."""


# --------------------------------------------------------------------------- argument types


def _metric_list(text: str) -> list[Metric]:
    """Metric names, comma-separated; trec_eval names (``ndcg_cut.5,10``, ``P_5``) too.

    In trec_eval's syntax numbers after a family name are its cutoffs (``P.5,10`` is P@5
    and P@10) and a family without cutoffs takes trec_eval's defaults
    (:func:`skrank.metrics._spec.parse_metric_list`, shared with the Python API).
    """
    try:
        out = parse_metric_list(text)
    except MetricNameError as exc:
        raise argparse.ArgumentTypeError(
            f"unknown metric {exc.part!r}: use names such as ndcg@10, ap@10, p@5, r@100, "
            f"hit@10, rr, err@20, dcg@5, or trec_eval's map, ndcg_cut.10, P.5 ({exc.cause})"
        ) from None
    if not out:
        raise argparse.ArgumentTypeError("empty metric list")
    return out


def _gain(text: str) -> str | tuple[float, ...]:
    if text in ("exp", "linear"):
        return text
    try:
        table = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 'exp', 'linear' or gains by label such as 0,1,3,7; got {text!r}"
        ) from None
    if not all(np.isfinite(table)):
        raise argparse.ArgumentTypeError(f"gains must be finite numbers; got {text!r}")
    return table


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number; got {text!r}") from None
    if not (value > 0 and np.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a number > 0; got {text!r}")
    return value


def _unit_float(text: str) -> float:
    value = _positive_float(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1; got {text!r}")
    return value


def _int_at_least(minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer; got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}; got {text!r}")
        return value

    return parse


@dataclass(frozen=True)
class SegmentSpec:
    """One ``--segment`` argument: ``kind`` and its argument."""

    kind: str
    arg: Any = None


def _segment_spec(text: str) -> SegmentSpec:
    kind, eq, arg = text.partition("=")
    kind = kind.strip()
    if kind == "candidates":
        if not eq:
            return SegmentSpec("candidates", 3)
        try:
            values = [int(v) for v in arg.split(",")]
        except ValueError:
            values = []
        if len(values) == 1 and values[0] >= 1:
            return SegmentSpec("candidates", values[0])
        if len(values) > 1 and all(b > a for a, b in itertools.pairwise(values)):
            return SegmentSpec("candidates", tuple(values))
        raise argparse.ArgumentTypeError(
            f"candidates=N (N quantile bins) or candidates=B1,B2,... (increasing lower "
            f"bounds); got {text!r}"
        )
    if kind in ("frequency", "frequency-log", "type") and eq and arg:
        return SegmentSpec(kind, arg)
    raise argparse.ArgumentTypeError(
        "expected candidates[=BINS], frequency=COLUMN, frequency-log=FILE or type=COLUMN; "
        f"got {text!r}"
    )


def _cuts(text: str) -> tuple[float, float]:
    try:
        a, b = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two shares such as 0.33,0.67; got {text!r}")\
            from None
    if not 0 < a < b <= 1:
        raise argparse.ArgumentTypeError(f"expected two increasing shares in (0, 1]; got {text!r}")
    return a, b


# --------------------------------------------------------------------------- the parser


_DESCRIPTION = """\
Evaluate rankers and compare them with a baseline, stating the conventions of every number.

Inputs (the kind is guessed; force it with --input):
  QRELS RUN [RUN ...]        TREC qrels and runs ('qid iter docno rel', 'qid Q0 docno rank
                             score tag'; comment lines start with '#'; the rank column is
                             ignored: documents are ranked by score)
  TABLE                      CSV, TSV or Parquet, one row per (query, document): a query id,
                             a label and one or more score columns (one per system)
  LIBSVM SCORES [SCORES ...] a LibSVM/SVMlight file with qid: fields and one score file per
                             system (one score per line, in row order)
"""

_EPILOG = """\
examples:
  skrank eval -m ndcg@10 -m ap@10 qrels.txt new.run --baseline bm25.run
  skrank eval --preset trec_eval -m map -m ndcg_cut.10 -q qrels.test results.test --format trec
  skrank eval fixture.csv --score model --baseline bm25 -m ndcg@5 --segment candidates
  skrank eval test.libsvm model.txt --baseline onefeature.txt --format markdown

exit status: 0 success, 1 bad data (one line on stderr), 2 bad usage.
"""


def _add_eval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="QRELS RUN [RUN ...], or TABLE, or LIBSVM SCORES [SCORES ...]")

    g = p.add_argument_group("input")
    g.add_argument("--input", choices=INPUTS, default="auto",
                   help="kind of input (default: guessed from the file name and content)")
    g.add_argument("--qid", default="qid", metavar="COLUMN",
                   help="query id column of a table (default: qid)")
    g.add_argument("--label", default="label", metavar="COLUMN",
                   help="label column of a table (default: label)")
    g.add_argument("--score", action="append", default=[], metavar="COLUMN",
                   help="score column of a table, one per system (repeatable or "
                        "comma-separated; default: every other column)")
    g.add_argument("--doc-id", metavar="COLUMN",
                   help="document id column of a table (needed by --ties docid)")
    g.add_argument("--group", metavar="FILE",
                   help="query sizes, one per line, for a LibSVM file without qid: fields")
    g.add_argument("-c", "--complete", action="store_true",
                   help="TREC: judged topics a run has no result for count (as 0 on every "
                        "metric), like trec_eval -c (same as --qrels-only include)")
    g.add_argument("--qrels-only", choices=("ignore", "include", "error"), default=None,
                   help="TREC: judged topics without results: ignore them (trec_eval's "
                        "default), include them (score 0) or stop with an error")
    g.add_argument("--run-only", choices=("ignore", "include", "error"), default="ignore",
                   help="TREC: topics of a run without judgements: ignore them (trec_eval), "
                        "include them (all labels 0, left to --empty) or stop (default: "
                        "ignore)")
    g.add_argument("-M", "--max-docs", type=_int_at_least(1), metavar="N",
                   help="TREC: evaluate only the first N documents of each topic "
                        "(trec_eval -M)")

    g = p.add_argument_group("metrics and conventions")
    g.add_argument("-m", "--metric", action="append", type=_metric_list, default=[],
                   metavar="METRIC",
                   help="metric such as ndcg@10, ap@10, p@5, r@100, hit@10, rr, err@20, "
                        "dcg@5 (repeatable or comma-separated; trec_eval names such as map, "
                        "ndcg_cut.5,10, P.5, recip_rank work too; default: ndcg@10)")
    g.add_argument("--preset", choices=PRESETS,
                   help="conventions of a reference library; the options below override it")
    g.add_argument("--gain", type=_gain, metavar="{exp,linear,G0,G1,...}",
                   help="gain of a label: exp (2**label - 1; default), linear, or a table "
                        "of gains by label such as 0,1,3,7")
    g.add_argument("--ties", choices=TIE_RULES,
                   help="order of documents with equal scores (default: pessimistic)")
    g.add_argument("--empty", choices=EMPTY_RULES,
                   help="value of a query without relevant documents (default: exclude)")
    g.add_argument("--rel-min", type=_positive_float, metavar="LABEL",
                   help="smallest relevant label for P, R, hit rate, AP, RR (default: 1)")
    g.add_argument("--score-precision", choices=SCORE_PRECISIONS,
                   help="precision at which scores are compared: float64 (default; trec_eval "
                        "10) or float32 (trec_eval 9.x and pytrec_eval read scores into a C "
                        "float, so scores equal in float32 tie; XGBoost)")
    g.add_argument("--idcg", choices=IDCG_SOURCES,
                   help="ideal DCG and number of relevant documents from the ranked rows or "
                        "the whole judgement pool (default: pool for TREC runs, else ranked)")
    g.add_argument("--tie-bounds", action="store_true",
                   help="also report the tie range: each metric's low and high value under "
                        "the pessimistic and optimistic ordering rules")

    g = p.add_argument_group("comparison with a baseline")
    g.add_argument("--baseline", metavar="RUN|COLUMN",
                   help="the system to compare with: one of the systems (run file, score "
                        "column or score file name) or another run / score file")
    g.add_argument("--primary", metavar="METRIC",
                   help="the pre-registered primary comparison (a metric, or SYSTEM:METRIC "
                        "with several systems): tested uncorrected; the others are corrected")
    g.add_argument("--correction", choices=("holm", "bh", "bonferroni", "none"),
                   default="holm", help="multiple-comparison correction (default: holm)")
    g.add_argument("--test", choices=("randomization", "t", "wilcoxon"),
                   default="randomization",
                   help="test whose p-values are corrected and tabulated (default: "
                        "randomization; all three are reported)")
    g.add_argument("--alpha", type=_unit_float, default=0.05,
                   help="significance level (default: 0.05)")
    g.add_argument("--confidence", type=_unit_float, default=0.95,
                   help="confidence level of the intervals (default: 0.95)")
    g.add_argument("--alternative", choices=("two-sided", "greater", "less"),
                   default="two-sided", help="alternative hypothesis (default: two-sided)")
    g.add_argument("--resamples", type=_int_at_least(1), default=10_000, metavar="B",
                   help="bootstrap resamples (default: 10000)")
    g.add_argument("--permutations", type=_int_at_least(1), default=10_000, metavar="B",
                   help="sign flips of the randomisation test (default: 10000)")
    g.add_argument("--top-losses", type=_int_at_least(0), default=5, metavar="N",
                   help="largest per-query losses to list (default: 5)")
    g.add_argument("--seed", type=_int_at_least(0), default=0,
                   help="seed of the bootstrap and randomisation (default: 0)")

    g = p.add_argument_group("segments")
    g.add_argument("--segment", action="append", type=_segment_spec, default=[],
                   metavar="SPEC",
                   help="per-segment table (repeatable): candidates[=BINS] (number of "
                        "candidates; BINS = number of quantile bins or lower bounds "
                        "1,10,50), frequency=COLUMN (head/torso/tail from a frequency "
                        "column), frequency-log=FILE (from a query log, one query id per "
                        "line), type=COLUMN (a categorical query attribute)")
    g.add_argument("--query-table", metavar="FILE",
                   help="CSV/TSV with one row per query (column --qid) holding the columns "
                        "named by --segment, for TREC and LibSVM inputs")
    g.add_argument("--frequency-cuts", type=_cuts, default=(1 / 3, 2 / 3), metavar="A,B",
                   help="traffic shares where torso and tail start (default: 0.333,0.667)")
    g.add_argument("--frequency-basis", choices=("traffic", "queries"), default="traffic",
                   help="shares of traffic (default) or of queries")
    g.add_argument("--segment-metric", type=_metric_list, metavar="METRIC",
                   help="metric of the segment tables (default: --primary, else the first)")

    g = p.add_argument_group("output")
    g.add_argument("--format", choices=FORMATS, default="text",
                   help="text (default), markdown (a pull-request comment), json, csv, or "
                        "trec (trec_eval's layout)")
    g.add_argument("-q", "--per-topic", action="store_true",
                   help="also print per-query values (like trec_eval -q)")
    g.add_argument("-o", "--output", metavar="FILE", help="write the report there, not stdout")
    g.add_argument("--per-query", metavar="FILE",
                   help="write one row per query with every metric of every system and the "
                        "differences (CSV; TSV if FILE ends in .tsv)")
    g.add_argument("--plot", metavar="DIR",
                   help="write figures there (needs matplotlib: pip install 'skrank[plot]')")
    g.add_argument("--plot-format", choices=("png", "svg"), default="png",
                   help="figure format (default: png)")
    g.add_argument("--plot-k", type=_int_at_least(1), default=20, metavar="K",
                   help="largest cutoff of the metric@k curves (default: 20)")
    g.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress messages on stderr (auto: on a terminal, for large inputs)")


def build_parser(prog: str = "skrank") -> argparse.ArgumentParser:
    """The argument parser of ``skrank`` (with its ``eval`` subcommand)."""
    parser = argparse.ArgumentParser(
        prog=prog, description="skrank: convention-explicit ranking evaluation.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    ev = sub.add_parser("eval", help="evaluate rankers and compare them with a baseline",
                        description=_DESCRIPTION, epilog=_EPILOG,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_eval_arguments(ev)
    return parser


def build_eval_parser(prog: str = "rank-eval") -> argparse.ArgumentParser:
    """The parser of ``rank-eval``: ``skrank eval`` as a command of its own."""
    parser = argparse.ArgumentParser(prog=prog, description=_DESCRIPTION, epilog=_EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _add_eval_arguments(parser)
    return parser


# --------------------------------------------------------------------------- progress


class _Progress:
    """Stage messages on stderr, only when asked or for large inputs on a terminal."""

    def __init__(self, mode: str, paths: Sequence[str], stream: TextIO) -> None:
        self.stream = stream
        if mode == "always":
            self.on = True
        elif mode == "never":
            self.on = False
        else:
            size = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
            self.on = bool(getattr(stream, "isatty", lambda: False)()) and size > _LARGE_INPUT
        self.t0 = time.perf_counter()

    def __call__(self, message: str) -> None:
        if self.on:
            print(f"[{time.perf_counter() - self.t0:6.1f}s] {message}", file=self.stream,
                  flush=True)


# --------------------------------------------------------------------------- input


@dataclass
class _System:
    name: str
    kwargs: dict[str, Any]  # arrays for skrank.evaluate (empty when already evaluated)
    runid: str | None = None  # the run tag of a TREC run
    result: Any = None  # the evaluation, when the loader evaluated while reading


@dataclass
class _Loaded:
    kind: str
    systems: list[_System]
    baseline: str | None = None
    inputs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # per-query information for segments: {column: (qids, values)}
    columns: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    candidates: tuple[np.ndarray, np.ndarray] | None = None
    candidates_note: str = ""


def _listing(values: Sequence[Any], limit: int = 5) -> str:
    shown = ", ".join(repr(str(v)) for v in list(values)[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def _has_table_suffix(path: str) -> bool:
    """Whether the name ends like a table file (.csv, .tsv, .parquet, ...), compressed or not."""
    name = path.lower()
    for comp in _COMPRESSED:
        if name.endswith(comp):
            name = name[: -len(comp)]
    return name.endswith(_TABLE_SUFFIXES)


def _guess_kind(paths: Sequence[str]) -> str:
    if _has_table_suffix(paths[0]):
        return "table"
    try:
        with open(paths[0], "rb") as fh:
            head = fh.read(1 << 16)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(paths[0], "rb") as fh:
                head = fh.read(1 << 16)
    except OSError:
        return "trec"  # the reader reports the missing file
    for line in head.decode("utf-8", "replace").splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if any(":" in f for f in fields[1:3]):
            return "libsvm"
        return "trec"
    return "trec"


def _names_from_paths(paths: Sequence[str]) -> list[str]:
    names = [os.path.basename(p) or p for p in paths]
    if len(set(names)) != len(names):
        names = list(paths)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise DataError(f"{dup} is given twice.")
    return names


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _resolve_baseline_path(baseline: str | None, names: list[str], paths: list[str]
                           ) -> tuple[str | None, str | None]:
    """(name of an existing system, or path of an extra file) for --baseline."""
    if baseline is None:
        return None, None
    if baseline in names:
        return baseline, None
    for name, path in zip(names, paths):
        if baseline == path or _same_file(baseline, path):
            return name, None
    if os.path.isfile(baseline):
        return None, baseline
    raise DataError(
        f"--baseline: {baseline!r} is neither one of the systems ({_listing(names, 10)}) "
        "nor a file."
    )


def _system_files(baseline: str | None, paths: list[str]
                  ) -> tuple[list[str], list[str], str | None]:
    """(paths, names, baseline name) of the system files; a --baseline file that is not one
    of ``paths`` is added as the last system."""
    names = _names_from_paths(paths)
    base_name, base_path = _resolve_baseline_path(baseline, names, paths)
    if base_path is not None:
        paths = [*paths, base_path]
        names = _names_from_paths(paths)
        base_name = names[-1]
    return paths, names, base_name


@dataclass
class _Plan:
    """What the loaders need to evaluate a TREC run while reading it."""

    metrics: list[Metric]
    conv: dict[str, Any]
    tie_bounds: bool
    keep_rows: bool  # the rows are needed after evaluation (figures)


class _Interleaved(Exception):
    """A topic of a run comes back after other topics: the file cannot be read in batches."""

    def __init__(self, topic: str, line: int) -> None:
        super().__init__(topic)
        self.topic, self.line = topic, line


@dataclass
class _RunState:
    """Counts over one run file, read whole or in batches."""

    n_rows: int = 0
    tag: str = ""
    topics: set = field(default_factory=set)
    batches: int = 0


def _slice_run(rows: Any, start: int, stop: int) -> Any:
    from .io._trec import LineMap, RunBlock

    lines = LineMap()
    lines.extend(rows.lines, start, stop)
    return RunBlock(rows.qid.slice(start, stop - start), rows.doc.slice(start, stop - start),
                    rows.score[start:stop], lines, rows.tag)


def _topic_batches(path: str, state: _RunState, chunk_bytes: int | None) -> Any:
    """Batches of whole topics of a run whose topics come in contiguous blocks; raises
    :class:`_Interleaved` when a topic comes back after another one."""
    import pyarrow.compute as pc

    from .io._trec import concat_run_blocks, iter_run_blocks

    kwargs = {} if chunk_bytes is None else {"chunk_bytes": chunk_bytes}
    pending = None

    def check(batch: Any) -> None:
        topics = pc.unique(batch.qid).to_pylist()
        again = state.topics.intersection(topics)
        if again:
            topic = min(again)
            row = int(np.flatnonzero(pc.equal(batch.qid, topic).to_numpy(
                zero_copy_only=False))[0])
            raise _Interleaved(topic, batch.lines(row))
        state.topics.update(topics)
        state.batches += 1

    blocks = iter_run_blocks(path, **kwargs)
    block = next(blocks, None)
    while block is not None:
        following = next(blocks, None)  # the last block ends the last topic
        state.n_rows += len(block)
        state.tag = block.tag
        rows = block if pending is None else concat_run_blocks([pending, block])
        block = following
        if following is None:
            cut = len(rows)
        else:
            other = pc.not_equal(rows.qid, rows.qid[len(rows) - 1]).to_numpy(
                zero_copy_only=False)
            starts = np.flatnonzero(other)
            cut = int(starts[-1]) + 1 if starts.size else 0
        pending = _slice_run(rows, cut, len(rows))
        if cut:
            head = _slice_run(rows, 0, cut)
            check(head)
            yield head
    if pending is not None and len(pending):
        check(pending)
        yield pending


def _whole_run(path: str, state: _RunState) -> Any:
    from .io._trec import concat_run_blocks, iter_run_blocks

    blocks = list(iter_run_blocks(path))
    run = concat_run_blocks(blocks)
    del blocks
    state.n_rows, state.tag, state.batches = len(run), run.tag, 1
    if len(run):
        import pyarrow.compute as pc

        state.topics = set(pc.unique(run.qid).to_pylist())
    yield run


@dataclass
class _RunResult:
    result: Any
    state: _RunState
    run_only: np.ndarray
    qrels_only: np.ndarray
    n_negative: int
    candidates: tuple[np.ndarray, np.ndarray]
    kwargs: dict[str, Any] | None
    interleaved: _Interleaved | None = None


def _evaluate_run(path: str, index: Any, args: argparse.Namespace, plan: _Plan,
                  qrels_only: str, progress: _Progress) -> _RunResult:
    """Read a run (in batches of whole topics when it can), join it with the qrels and
    evaluate it; per-query results only are kept (and the rows, for figures)."""
    from .io._align import join
    from .io._trec import LineMap, RunBlock, import_pyarrow
    from .metrics._evaluate import evaluate

    pa, _, _ = import_pyarrow("skrank eval")
    stream = not (plan.keep_rows or plan.tie_bounds) and os.path.isfile(path)
    interleaved = None
    while True:
        state = _RunState()
        parts: list[tuple[np.ndarray, Any]] = []
        candidates: list[tuple[np.ndarray, np.ndarray]] = []
        run_only: list[np.ndarray] = []
        seen = np.zeros(index.n_topics, dtype=bool)
        n_negative = 0
        kwargs = None
        batches = (_topic_batches(path, state, _CHUNK_BYTES) if stream
                   else _whole_run(path, state))
        try:
            for batch in batches:
                joined = join(index, batch, run_source=path, run_only=args.run_only,
                              max_docs=args.max_docs)
                del batch
                seen[joined.judged] = True
                run_only.append(joined.run_only)
                n_negative += joined.n_negative
                if len(joined):
                    if state.batches > 1:
                        progress(f"evaluating topics of {path} up to line "
                                 f"{state.n_rows:,} (batch {state.batches})")
                    res = evaluate(joined.y_true, joined.y_score, joined.code,
                                   doc_id=joined.tiekey, retrieved=joined.retrieved,
                                   metrics=plan.metrics, tie_bounds=plan.tie_bounds,
                                   **plan.conv)
                    parts.append((joined.topics, res))
                    candidates.append((joined.topics, joined.candidates))
                    if plan.keep_rows:
                        kwargs = {"y_true": joined.y_true, "y_score": joined.y_score,
                                  "qid": joined.topics[joined.code],
                                  "doc_id": joined.tiekey, "retrieved": joined.retrieved}
        except _Interleaved as exc:
            interleaved, stream = exc, False
            progress(f"{path}: topic {exc.topic!r} comes back on line {exc.line:,}; reading "
                     "the file whole")
            continue
        break
    if not state.n_rows:
        raise DataError(f"{path}: no results (the file is empty or only has comments).")
    run_only_qids = np.unique(np.concatenate(run_only)) if run_only else np.array([], str)
    missing = np.flatnonzero(~seen)
    qrels_only_qids = index.topic_strings(missing)
    if args.run_only == "error" and run_only_qids.size:
        raise DataError(
            f"{path}: {run_only_qids.size} queries of the run have no judgement in "
            f"{index.source}: {_listing(run_only_qids)} (run_only='error')."
        )
    if qrels_only == "error" and qrels_only_qids.size:
        raise DataError(
            f"{path}: {qrels_only_qids.size} judged queries of {index.source} have no "
            f"result in the run: {_listing(qrels_only_qids)} (qrels_only='error')."
        )
    if qrels_only == "include" and missing.size:
        empty = RunBlock(pa.chunked_array([], type=pa.string()),
                         pa.chunked_array([], type=pa.string()), np.zeros(0), LineMap(), "")
        joined = join(index, empty, run_source=path, extra_topics=missing)
        n_negative += joined.n_negative
        parts.append((joined.topics, evaluate(
            joined.y_true, joined.y_score, joined.code, doc_id=joined.tiekey,
            retrieved=joined.retrieved, metrics=plan.metrics, tie_bounds=plan.tie_bounds,
            **plan.conv)))
        candidates.append((joined.topics, joined.candidates))
        if kwargs is not None:  # figures: the rows of both parts
            kwargs = {"y_true": np.concatenate([kwargs["y_true"], joined.y_true]),
                      "y_score": np.concatenate([kwargs["y_score"], joined.y_score]),
                      "qid": np.concatenate([kwargs["qid"], joined.topics[joined.code]]),
                      "doc_id": np.concatenate([kwargs["doc_id"], joined.tiekey]),
                      "retrieved": np.concatenate([kwargs["retrieved"], joined.retrieved])}
    if not parts:
        raise DataError(f"{path}: no topic of the run is judged in {index.source}.")
    cand_q = np.concatenate([t for t, _ in candidates])
    cand_n = np.concatenate([c for _, c in candidates])
    return _RunResult(_combine(parts), state, run_only_qids, qrels_only_qids, n_negative,
                      (cand_q, cand_n), kwargs, interleaved)


#: bytes of a run read per batch (None: the reader's default)
_CHUNK_BYTES: int | None = None


def _combine(parts: list[tuple[np.ndarray, Any]]) -> Any:
    """One result from the results of batches of whole topics, queries sorted by id (as
    strings, trec_eval's order) and named by their ids."""
    import dataclasses

    from .metrics._kernels import _arrays
    from .metrics._result import EvaluationResult

    first = parts[0][1]
    qids = np.concatenate([topics[np.asarray(res.qids)] for topics, res in parts])
    order = np.argsort(qids, kind="stable")
    qids = qids[order]
    results = {}
    for m in first.metrics:
        pieces = [res[m] for _, res in parts]
        if len(parts) == 1:
            results[m] = dataclasses.replace(pieces[0], qids=qids)
            continue
        per_query = np.concatenate([p.per_query for p in pieces])[order]
        exclude = pieces[0].conventions.empty == "exclude"
        empty = np.isnan(per_query) if exclude else np.zeros(per_query.shape[0], dtype=bool)
        value = _arrays.weighted_mean(np.nan_to_num(per_query), empty, 0, np.zeros(0), False)
        results[m] = dataclasses.replace(
            pieces[0], value=float(value), per_query=per_query, qids=qids,
            n_queries=sum(p.n_queries for p in pieces), n_empty=sum(p.n_empty for p in pieces),
            n_tie_affected=sum(p.n_tie_affected for p in pieces), tie_interval=None,
        )
    return EvaluationResult(first.metrics, qids, first.conventions, results)


def _check_labels(qrels: Any, conv: dict[str, Any], path: str) -> None:
    """Name the qrels line of a label the gain cannot take (evaluate would name a row)."""
    from .conventions import resolve_conventions

    try:
        gain = resolve_conventions(conv.get("preset"), gain=conv.get("gain")).gain
    except SkrankError:  # pragma: no cover - the evaluation reports it
        return
    rel = qrels.rel
    if isinstance(gain, tuple):
        bad = np.flatnonzero(rel >= len(gain))
        limit = (f"has no gain in the table of {len(gain)} gains (labels 0.."
                 f"{len(gain) - 1}; --gain)")
    elif gain == "exp":
        bad = np.flatnonzero(rel > 1000)
        limit = ("is above 1000, the largest label gain=exp takes (2**label overflows); "
                 "choose --gain linear or a gain table")
    else:
        return
    if bad.size:
        row = int(bad[0])
        raise DataError(f"{path}, line {qrels.lines(row)}: the relevance label {int(rel[row])} "
                        f"{limit}.")


def _load_trec(args: argparse.Namespace, progress: _Progress, plan: _Plan) -> _Loaded:
    from .io._align import index_qrels
    from .io._trec import read_qrels_columns

    if len(args.inputs) < 2:
        raise DataError("TREC input needs a qrels file and at least one run: QRELS RUN "
                        "[RUN ...].")
    qrels_path = args.inputs[0]
    run_paths, names, base_name = _system_files(args.baseline, list(args.inputs[1:]))
    progress(f"reading {qrels_path}")
    cols = read_qrels_columns(qrels_path)
    _check_labels(cols, plan.conv, qrels_path)
    index = index_qrels(cols.qid, cols.doc, cols.rel, qrels_path, cols.lines)
    qrels_only = args.qrels_only or ("include" if args.complete else "ignore")
    loaded = _Loaded("trec", [], base_name)
    loaded.inputs.append(f"qrels {qrels_path}: {_plural(index.n_topics, 'topic')}, "
                         f"{_plural(len(cols), 'judgement')}")
    del cols
    candidates = {}
    for name, path in zip(names, run_paths):
        progress(f"reading {path}")
        ev = _evaluate_run(path, index, args, plan, qrels_only, progress)
        read = ""
        if ev.state.batches > 1:
            read = f", read in {ev.state.batches:,} batches of whole topics"
        loaded.inputs.append(f"run {name}: {path} (tag {ev.state.tag}), "
                             f"{_plural(len(ev.state.topics), 'topic')}, "
                             f"{_plural(ev.state.n_rows, 'result')}{read}")
        if ev.interleaved is not None:
            loaded.notes.append(
                f"{name}: read whole, not in batches: its topics are not in contiguous "
                f"blocks (topic {ev.interleaved.topic!r} comes back on line "
                f"{ev.interleaved.line:,}); sort the run by topic to bound the memory."
            )
        if ev.run_only.size:
            n = ev.run_only.size
            how = {"ignore": "ignored, as trec_eval does",
                   "include": "included with every label 0 (--run-only include)"}[args.run_only]
            loaded.notes.append(
                f"{name}: {_plural(n, 'topic')} of the run {'has' if n == 1 else 'have'} no "
                f"judgement ({_listing(ev.run_only)}): {how}."
            )
        if ev.qrels_only.size:
            n = ev.qrels_only.size
            how = {"ignore": "ignored (trec_eval's default; -c counts them as 0)",
                   "include": "counted with value 0 (-c)"}[qrels_only]
            loaded.notes.append(
                f"{name}: {_plural(n, 'judged topic')} {'has' if n == 1 else 'have'} no "
                f"result in the run ({_listing(ev.qrels_only)}): {how}."
            )
        if ev.n_negative:
            loaded.notes.append(
                f"{name}: {_plural(ev.n_negative, 'judgement')} with a negative "
                "label read as 0 (as trec_eval does)."
            )
        loaded.systems.append(_System(name, ev.kwargs or {}, ev.state.tag, result=ev.result))
        candidates[name] = ev.candidates
    ref = base_name or names[0]
    loaded.candidates = candidates[ref]
    loaded.candidates_note = f"documents retrieved by {ref}"
    return loaded


_TABLE_OPTIONS = {"qid": "--qid", "label": "--label", "scores": "--score",
                  "doc_id": "--doc-id", "extra": "--segment"}


def _segment_columns(args: argparse.Namespace) -> list[str]:
    return [s.arg for s in args.segment if s.kind in ("frequency", "type")]


def _load_table(args: argparse.Namespace, progress: _Progress) -> _Loaded:
    from .io import read_table

    if len(args.inputs) != 1:
        raise DataError(f"a table input is one file; got {len(args.inputs)}: "
                        f"{_listing(args.inputs)}.")
    path = args.inputs[0]
    scores = [c.strip() for s in args.score for c in s.split(",") if c.strip()] or None
    if scores is not None and args.baseline is not None and args.baseline not in scores:
        scores.append(args.baseline)
    extra = [] if args.query_table else _segment_columns(args)
    progress(f"reading {path}")
    try:
        table = read_table(path, qid=args.qid, label=args.label, scores=scores,
                           doc_id=args.doc_id, extra=sorted(set(extra)) or None,
                           format=_table_format(path))
    except InvalidParameterError as exc:
        raise _column_error(exc, args) from None
    except SkrankError as exc:
        raise DataError(str(exc).replace("scores=[...]", "--score")) from None
    if args.baseline is not None and args.baseline not in table.scores:
        raise DataError(f"--baseline: {args.baseline!r} is not a score column of {path} "
                        f"(score columns: {_listing(table.systems, 10)}).")
    loaded = _Loaded("table", [], args.baseline)
    n_q = np.unique(table.qid).size
    loaded.inputs.append(
        f"table {path}: {_plural(len(table), 'row')}, {_plural(n_q, 'query', 'queries')}; "
        f"query id {args.qid!r}, label {args.label!r}, systems: {', '.join(table.systems)}"
    )
    for name, values in table.scores.items():
        kwargs = {"y_true": table.y_true, "y_score": values, "qid": table.qid}
        if table.doc_id is not None:
            kwargs["doc_id"] = table.doc_id
        loaded.systems.append(_System(name, kwargs))
    _table_columns(loaded, table.qid, table.extra)
    _rows_as_candidates(loaded, table.qid)
    return loaded


def _table_format(path: str) -> str | None:
    """None when the name tells the format; else parquet by its magic bytes, TSV when the
    first line has a tab, CSV otherwise."""
    if _has_table_suffix(path):
        return None
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except OSError:
        return None  # the reader reports the missing file
    if head[:4] == b"PAR1":
        return "parquet"
    return "tsv" if b"\t" in head.split(b"\n", 1)[0] else "csv"


def _column_error(exc: InvalidParameterError, args: argparse.Namespace) -> DataError:
    """Restate read_table's unknown-column error with the command's option name."""
    text = str(exc)
    m = re.match(r"The '(\w+)' parameter of read_table must be a column of (.+) "
                 r"\(available: (.*)\)\. Got '(.*)' instead\.$", text)
    if not m:
        return DataError(text)
    param, source, available, got = m.groups()
    option = _TABLE_OPTIONS.get(param, param)
    if param == "scores" and got == args.baseline:
        option = "--baseline"
    return DataError(f"{option}: no column {got!r} in {source} (columns: {available}).")


def _table_columns(loaded: _Loaded, qid: np.ndarray, extra: dict[str, np.ndarray]) -> None:
    from .segments import per_query

    for column, values in extra.items():
        try:
            loaded.columns[column] = per_query(qid, values, name=column)
        except SkrankError as exc:
            raise DataError(str(exc)) from None


def _rows_as_candidates(loaded: _Loaded, qid: np.ndarray) -> None:
    from .segments import count_candidates

    loaded.candidates = count_candidates(qid)
    loaded.candidates_note = "rows of each query"


def _load_libsvm(args: argparse.Namespace, progress: _Progress) -> _Loaded:
    from .io import read_scored_libsvm

    if len(args.inputs) < 2 and args.baseline is None:
        raise DataError("LibSVM input needs the data file and at least one score file: "
                        "LIBSVM SCORES [SCORES ...].")
    data = args.inputs[0]
    score_paths, names, base_name = _system_files(args.baseline, list(args.inputs[1:]))
    progress(f"reading {data}")
    table = read_scored_libsvm(data, dict(zip(names, score_paths)), group=args.group)
    loaded = _Loaded("libsvm", [], base_name)
    loaded.inputs.append(
        f"libsvm {data}: {_plural(len(table), 'row')}, "
        f"{_plural(np.unique(table.qid).size, 'query', 'queries')}; scores: "
        + ", ".join(f"{n} ({p})" if n != p else n for n, p in zip(names, score_paths))
    )
    for name, values in table.scores.items():
        loaded.systems.append(_System(name, {"y_true": table.y_true, "y_score": values,
                                             "qid": table.qid}))
    _rows_as_candidates(loaded, table.qid)
    return loaded


def _read_query_table(path: str, qid_column: str, columns: Sequence[str]
                      ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Columns of a per-query CSV/TSV file (plain csv module; no pandas needed)."""
    sep = "\t" if path.lower().endswith((".tsv", ".tab")) else ","
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh, delimiter=sep))
    except FileNotFoundError:
        raise DataError(f"{path}: no such file.") from None
    except UnicodeDecodeError:
        raise DataError(f"{path}: not UTF-8 text.") from None
    if not rows:
        raise DataError(f"{path}: the query table is empty.")
    header = [h.strip() for h in rows[0]]
    for col in [qid_column, *columns]:
        if col not in header:
            option = "--qid" if col == qid_column else "--segment"
            raise DataError(f"{option}: no column {col!r} in {path} (columns: "
                            f"{_listing(header, 20)}).")
    body = [r for r in rows[1:] if any(c.strip() for c in r)]
    for i, r in enumerate(rows[1:], start=2):
        if any(c.strip() for c in r) and len(r) != len(header):
            raise DataError(f"{path}, line {i}: {len(r)} fields but the header has "
                            f"{len(header)}.")
    qi = header.index(qid_column)
    qids = np.array([r[qi].strip() for r in body], dtype=str)
    if len(set(qids.tolist())) != qids.size:
        dup = next(q for q in qids.tolist() if qids.tolist().count(q) > 1)
        raise DataError(f"{path}: query {dup!r} has two rows; a query table has one row per "
                        "query.")
    out = {}
    for col in columns:
        ci = header.index(col)
        out[col] = (qids, np.array([r[ci].strip() for r in body], dtype=object))
    return out


# options that only apply to one kind of input
_KIND_OPTIONS = {
    "trec": (("complete", "-c/--complete"), ("qrels_only", "--qrels-only"),
             ("max_docs", "--max-docs")),
    "table": (("score", "--score"), ("doc_id", "--doc-id")),
    "libsvm": (("group", "--group"),),
}


def _input_kind(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    kind = args.input if args.input != "auto" else _guess_kind(args.inputs)
    for other, options in _KIND_OPTIONS.items():
        for dest, flag in options:
            if other != kind and getattr(args, dest):
                guessed = " (guessed; set it with --input)" if args.input == "auto" else ""
                parser.error(f"{flag} applies to {other} input, but the input is {kind}"
                             f"{guessed}")
    if kind != "trec" and args.run_only != "ignore":
        parser.error(f"--run-only applies to trec input, but the input is {kind}")
    if args.complete and args.qrels_only not in (None, "include"):
        parser.error(f"-c/--complete contradicts --qrels-only {args.qrels_only}")
    return kind


def _load(args: argparse.Namespace, kind: str, progress: _Progress, plan: _Plan) -> _Loaded:
    try:
        if kind == "trec":
            loaded = _load_trec(args, progress, plan)
        else:
            loaded = {"table": _load_table, "libsvm": _load_libsvm}[kind](args, progress)
    except SkrankError as exc:
        # a wrong number of files, or a first line that does not parse, may mean that the
        # kind of input was guessed wrong
        text = str(exc)
        if args.input != "auto" or kind == "table" or not (
                ", line 1:" in text or text.startswith(("TREC input needs",
                                                        "LibSVM input needs"))):
            raise
        other = "table or libsvm" if kind == "trec" else "table or trec"
        raise DataError(f"{exc} (read as {kind} input, guessed from the files; use --input "
                        f"{other} for other formats)") from None
    if args.query_table:
        loaded.columns.update(_read_query_table(args.query_table, args.qid,
                                                sorted(set(_segment_columns(args)))))
        loaded.inputs.append(f"query table {args.query_table}")
    return loaded


# --------------------------------------------------------------------------- segments


def _segmentations(args: argparse.Namespace, loaded: _Loaded) -> list:
    from . import segments as S

    out = []
    for spec in args.segment:
        if spec.kind == "candidates":
            qids, counts = loaded.candidates
            seg = S.by_candidates(qids, counts, bins=spec.arg)
            seg = S.Segmentation(seg.name, seg.qids, seg.labels, seg.order,
                                 f"{seg.description} ({loaded.candidates_note})")
        elif spec.kind == "frequency-log":
            qids = _all_qids(loaded)
            freq = S.count_queries(S.read_query_log(spec.arg), qids)
            seg = S.by_frequency(qids, freq, cuts=args.frequency_cuts,
                                 basis=args.frequency_basis)
            seg = S.Segmentation(seg.name, seg.qids, seg.labels, seg.order,
                                 f"{seg.description}; counts from {spec.arg}")
        else:
            if spec.arg not in loaded.columns:
                where = ("the --query-table" if args.query_table else
                         "a --query-table FILE (TREC and LibSVM inputs have no columns)"
                         if loaded.kind != "table" else "the table")
                raise DataError(f"--segment {spec.kind}={spec.arg}: needs the column "
                                f"{spec.arg!r} in {where}.")
            qids, values = loaded.columns[spec.arg]
            if spec.kind == "frequency":
                try:
                    freq = np.asarray(values, dtype=np.float64)
                except (TypeError, ValueError):
                    raise DataError(f"--segment frequency={spec.arg}: the column must hold "
                                    "numbers.") from None
                seg = S.by_frequency(qids, freq, cuts=args.frequency_cuts,
                                     basis=args.frequency_basis)
            else:
                seg = S.by_column(qids, values, name=spec.arg)
        out.append(seg)
    return out


def _all_qids(loaded: _Loaded) -> np.ndarray:
    seen: dict[str, None] = {}
    for s in loaded.systems:
        qids = s.result.qids if s.result is not None else s.kwargs["qid"]
        for q in np.asarray(qids).tolist():
            seen.setdefault(str(q), None)
    return np.array(list(seen), dtype=str)


# --------------------------------------------------------------------------- main


def _conventions(args: argparse.Namespace, kind: str) -> dict[str, Any]:
    conv: dict[str, Any] = {"preset": args.preset, "gain": args.gain, "ties": args.ties,
                            "empty": args.empty, "rel_min": args.rel_min, "idcg": args.idcg,
                            "score_precision": args.score_precision}
    if kind == "trec" and args.idcg is None and args.preset is None:
        conv["idcg"] = "pool"  # the qrels are the judgement pool
    return conv


def _check_docid(args: argparse.Namespace, loaded: _Loaded, parser) -> None:
    trec_preset = args.preset in ("trec_eval", "trec_eval9")
    wants = args.ties == "docid" or (args.ties is None and trec_preset)
    if wants and loaded.kind != "trec" and not any("doc_id" in s.kwargs
                                                    for s in loaded.systems):
        what = ("--ties docid" if args.ties == "docid"
                else f"--preset {args.preset} (ties=docid)")
        hint = "give --doc-id COLUMN" if loaded.kind == "table" else "use a table or TREC run"
        parser.error(f"{what} breaks ties by document id, but the input has none: {hint}, "
                     "or choose another --ties")


def _check_trec_format(metrics: list[Metric], conv: dict[str, Any], parser) -> None:
    """--format trec prints trec_eval's names: only for trec_eval's conventions."""
    from .conventions import resolve_conventions
    from .reports._render import check_trec_conventions

    try:
        resolved = resolve_conventions(**conv)
    except SkrankError:  # pragma: no cover - the evaluation reports it
        return
    try:
        check_trec_conventions(
            ((m, resolved) for m in metrics),
            "Use --preset trec_eval (trec_eval 10) or --preset trec_eval9 (trec_eval 9, "
            "pytrec_eval) without options that change those conventions (--rel-min and "
            "--score-precision may stay), or another --format.")
    except InvalidParameterError as exc:
        parser.error("--format trec: " + str(exc))


def _curves(args: argparse.Namespace, loaded: _Loaded, metrics, conv, progress) -> dict:
    from .reports import metric_at_k

    curves: dict[str, dict[str, tuple]] = {}
    for m in metrics:
        if m.k is None or m.name in curves:
            continue
        ks = range(1, max(args.plot_k, m.k) + 1)
        progress(f"computing {m.name}@k for k = 1..{ks[-1]}")
        curves[m.name] = {s.name: metric_at_k(**s.kwargs, metric=m.name, ks=ks, **conv)
                          for s in loaded.systems}
    return curves


def _render(report, args: argparse.Namespace, loaded: _Loaded) -> str:
    if args.format == "text":
        return report.to_text(per_query=args.per_topic)
    if args.format == "markdown":
        return report.to_markdown(per_query=args.per_topic)
    if args.format == "json":
        return report.to_json(per_query=args.per_topic)
    if args.format == "csv":
        return report.to_csv()
    runids = {s.name: s.runid for s in loaded.systems if s.runid}
    return report.to_trec(per_query=args.per_topic, runids=runids)


def run_eval(args: argparse.Namespace, parser: argparse.ArgumentParser,
             stdout: TextIO, stderr: TextIO) -> int:
    """Carry out ``skrank eval`` with parsed arguments; raises on bad data."""
    from .metrics._evaluate import evaluate
    from .reports import build_report, write_plots

    metrics: list[Metric] = []
    for group in args.metric or [[Metric("ndcg", 10)]]:
        metrics += [m for m in group if m not in metrics]
    if args.primary is not None:
        system, _, text = args.primary.rpartition(":")
        try:
            primary_metric = Metric.parse(_TREC_PLAIN.get(text, text))
        except InvalidParameterError:
            primary_metric = None
        if primary_metric not in metrics:
            parser.error(f"--primary {args.primary}: not one of the metrics "
                         f"({', '.join(str(m) for m in metrics)})")
        if args.baseline is None:
            parser.error("--primary needs --baseline (it names the primary comparison)")
        primary = f"{system}:{primary_metric}" if system else str(primary_metric)
    else:
        primary = None
    segment_metric = None
    if args.segment_metric:
        segment_metric = args.segment_metric[0]
        if segment_metric not in metrics:
            parser.error(f"--segment-metric {segment_metric}: not one of the metrics "
                         f"({', '.join(str(m) for m in metrics)})")

    kind = _input_kind(args, parser)
    progress = _Progress(args.progress, args.inputs, stderr)
    conv = _conventions(args, kind)
    if args.format == "trec":
        _check_trec_format(metrics, conv, parser)
    plan = _Plan(metrics, conv, args.tie_bounds, keep_rows=bool(args.plot))
    loaded = _load(args, kind, progress, plan)
    _check_docid(args, loaded, parser)
    results = {}
    for system in loaded.systems:
        if system.result is not None:
            results[system.name] = system.result
            continue
        progress(f"evaluating {system.name}")
        results[system.name] = evaluate(**system.kwargs, metrics=metrics,
                                        tie_bounds=args.tie_bounds, **conv)
    segmentations = _segmentations(args, loaded)
    if loaded.baseline is not None:
        progress(f"comparing with {loaded.baseline}: {args.resamples:,} resamples, "
                 f"{args.permutations:,} sign flips per comparison")
    report = build_report(
        results, baseline=loaded.baseline, primary=primary, correction=args.correction,
        test=args.test, alpha=args.alpha, confidence_level=args.confidence,
        alternative=args.alternative, n_resamples=args.resamples,
        n_permutations=args.permutations, top_losses=args.top_losses,
        segmentations=segmentations, segment_metric=segment_metric, rng=args.seed,
        inputs=loaded.inputs, notes=loaded.notes,
    )
    text = _render(report, args, loaded)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        stdout.write(text)
        stdout.flush()
    if args.per_query:
        report.write_per_query(args.per_query)
        progress(f"wrote {args.per_query}")
    if args.plot:
        curves = _curves(args, loaded, metrics, conv, progress)
        written = write_plots(report, args.plot, format=args.plot_format, curves=curves)
        progress(f"wrote {len(written)} figures to {args.plot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments without the program name; ``sys.argv[1:]`` by default. When the
        program is installed as ``rank-eval`` (and ``argv`` is None), the arguments are
        those of ``skrank eval``.
    """
    prog = os.path.basename(sys.argv[0]) if argv is None else "skrank"
    argv = list(sys.argv[1:] if argv is None else argv)
    if prog.startswith("rank-eval"):
        parser = build_eval_parser("rank-eval")
    else:
        prog = "skrank"
        parser = build_parser(prog)
    args = parser.parse_args(argv)  # usage errors exit 2 here
    stdout, stderr = sys.stdout, sys.stderr
    try:
        return run_eval(args, parser, stdout, stderr)
    except SkrankError as exc:
        message = " ".join(str(exc).split())
    except ImportError as exc:
        message = " ".join(str(exc).split())
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            # the reader went away (``skrank eval ... | head``): stop quietly
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 1
        where = f"{exc.filename}: " if exc.filename else ""
        message = f"{where}{exc.strerror or exc}"
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=stderr)
        return 130
    print(f"{prog}: error: {message}", file=stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
