"""The run of ``skrank eval``: evaluation, segments, figures' curves, rendering, and
``main`` with its exit statuses."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from ..exceptions import InvalidParameterError, SkrankError
from ..metrics._spec import _TREC_PLAIN, Metric
from ._args import build_eval_parser, build_parser
from ._common import DataError, _Loaded, _Plan, _Progress
from ._load import _input_kind, _load
from ._trec import _start_qrels

# --------------------------------------------------------------------------- segments


def _segmentations(args: argparse.Namespace, loaded: _Loaded) -> list:
    from .. import segments as S

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
                            "score_precision": args.score_precision,
                            "ideal_order": args.ideal_order,
                            "label_precision": args.label_precision}
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
    from ..conventions import resolve_conventions
    from ..reports._render import check_trec_conventions

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
    from ..reports import metric_at_k

    curves: dict[str, dict[str, tuple]] = {}
    for m in metrics:
        if m.k is None or m.name in curves:
            continue
        ks = range(1, max(args.plot_k, m.k) + 1)
        progress(f"computing {m.name}@k for k = 1..{ks[-1]}")
        curves[m.name] = {s.name: metric_at_k(**s.kwargs, metric=m.name, ks=ks, **conv)
                          for s in loaded.systems}
    return curves


def _render(report, args: argparse.Namespace, loaded: _Loaded, curves: dict) -> str:
    if args.format == "html":
        return report.to_html(curves=curves, per_query=args.per_topic)
    if args.format == "text":
        return report.to_text(per_query=args.per_topic)
    if args.format == "markdown":
        return report.to_markdown(per_query=args.per_topic)
    if args.format == "json":
        return report.to_json(per_query=args.per_topic)
    if args.format == "csv":
        return report.to_csv()
    runids = {s.name: s.runid for s in loaded.systems if s.runid}
    unlisted = {s.name: s.unlisted for s in loaded.systems if s.unlisted}
    return report.to_trec(per_query=args.per_topic, runids=runids, unlisted=unlisted)


def run_eval(args: argparse.Namespace, parser: argparse.ArgumentParser,
             stdout: TextIO, stderr: TextIO) -> int:
    """Carry out ``skrank eval`` with parsed arguments; raises on bad data."""
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

    if args.quiet and args.progress == "always":
        parser.error("--quiet contradicts --progress always")
    if args.per_topic and args.format == "csv":
        parser.error("--per-topic with --format csv: the CSV report has one row per system "
                     "and metric; write the per-query values with --per-query FILE")
    kind = _input_kind(args, parser)
    progress = _Progress("never" if args.quiet else args.progress, args.inputs, stderr)
    qrels_reader = None
    try:
        conv = _conventions(args, kind)
        # the figures' metric@k curves need the rows after evaluation
        plan = _Plan(metrics, conv, args.tie_bounds,
                     keep_rows=bool(args.plot) or args.format == "html")
        # TREC qrels (and the first run) are read in threads from here on, while the
        # modules below are imported
        qrels_reader = _start_qrels(args, plan) if kind == "trec" else None
        if args.format == "trec":
            _check_trec_format(metrics, conv, parser)
        from ..metrics._evaluate import evaluate
        from ..reports import build_report

        loaded = _load(args, kind, progress, plan, qrels_reader)
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
            inputs=loaded.inputs, notes=loaded.notes, progress=progress.stats,
        )
        curves = (_curves(args, loaded, metrics, conv, progress)
                  if args.plot or args.format == "html" else {})
        progress.close()
        text = _render(report, args, loaded, curves)
        if args.output:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        else:
            stdout.write(text)
            stdout.flush()
        if args.format in ("trec", "csv") and not args.quiet:
            # formats without a place for them: the notes on what the data hit go to stderr
            for note in report.notes:
                print(f"skrank: note: {note}", file=stderr)
        if args.per_query:
            report.write_per_query(args.per_query)
            progress(f"wrote {args.per_query}")
        if args.plot:
            from ..reports import write_plots

            written = write_plots(report, args.plot, format=args.plot_format, curves=curves)
            progress(f"wrote {len(written)} figures to {args.plot}")
    finally:
        progress.close()  # no bar left on the terminal, even after an error
        if qrels_reader is not None:
            qrels_reader.close()
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



def command() -> None:
    """The ``skrank`` program (``python -m skrank.cli`` and the console scripts): run
    :func:`main` and end the process with its exit status at once, its output flushed.

    The interpreter's teardown (a last garbage collection, every module freed) would take
    tens of milliseconds after the report is written, with nothing left to do: the command
    closes its files and stops its threads before :func:`main` returns. ``atexit`` handlers
    do not run. :func:`main` itself returns (for callers in a Python process)."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # as Python's own exit: a status of 120
            code = code or 120
    os._exit(code)
