"""The argument parser of ``skrank eval`` and its argument types."""

from __future__ import annotations

import argparse
import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._version import __version__
from ..conventions import (
    EMPTY_RULES,
    IDCG_SOURCES,
    IDEAL_ORDERS,
    LABEL_PRECISIONS,
    PRESETS,
    SCORE_PRECISIONS,
    TIE_RULES,
)
from ..metrics._spec import Metric, MetricNameError, parse_metric_list

FORMATS = ("text", "markdown", "html", "json", "csv", "trec")
INPUTS = ("auto", "trec", "table", "libsvm")


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
  skrank eval fixture.csv --score model --baseline bm25 --format html -o report.html

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
    g.add_argument("--ideal-order", choices=IDEAL_ORDERS,
                   help="order of the labels in NDCG's ideal ranking: by decreasing gain "
                        "(default; the true maximum DCG) or by decreasing label (LightGBM); "
                        "they differ only for a gain table that does not increase with the "
                        "label")
    g.add_argument("--label-precision", choices=LABEL_PRECISIONS,
                   help="precision at which labels are held: float64 (default) or float32 "
                        "(XGBoost: non-integer labels rounded as XGBoost stores them)")
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
                   help="text (default), markdown (a pull-request comment), html (one "
                        "self-contained page with the figures, to open in a browser: use -o "
                        "report.html), json, csv, or trec (trec_eval's layout)")
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
                   help="progress on stderr: what is being done and the resampling's "
                        "progress bar (auto: on a terminal, for large inputs or work that "
                        "lasts more than 2 seconds)")
    g.add_argument("--quiet", action="store_true",
                   help="nothing on stderr but errors (same as --progress never)")


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

