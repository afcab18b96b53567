"""Input loading: the kind of input, tables, LibSVM files and the per-query table."""

from __future__ import annotations

import argparse
import lzma
import os
import re
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._text import listing, plural
from ..exceptions import InputError, InvalidParameterError, SkrankError
from ._common import (
    DataError,
    RefusedValue,
    _Loaded,
    _Plan,
    _Progress,
    _System,
    _system_files,
)
from ._trec import _load_trec

_TABLE_SUFFIXES = (".csv", ".tsv", ".tab", ".parquet", ".pq")
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")

def _has_table_suffix(path: str) -> bool:
    """Whether the name ends like a table file (.csv, .tsv, .parquet, ...), compressed or not."""
    name = path.lower()
    for comp in _COMPRESSED:
        if name.endswith(comp):
            name = name[: -len(comp)]
    return name.endswith(_TABLE_SUFFIXES)


def _guess_kind(paths: Sequence[str]) -> str:
    """``table`` by the first file's name, else ``libsvm`` where its first line holds
    ``index:value`` fields, else ``trec``; a pipe is not read here (its bytes would be
    gone), nor a file that cannot be read (its reader says why)."""
    if _has_table_suffix(paths[0]):
        return "table"
    if not os.path.isfile(paths[0]):
        return "trec"
    from ..io._arrow import read_head

    try:
        head = read_head(paths[0], 1 << 16)
    except (OSError, EOFError, lzma.LZMAError, zlib.error, SkrankError):
        return "trec"
    for line in head.decode("utf-8", "replace").splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if any(":" in f for f in fields[1:3]):
            return "libsvm"
        return "trec"
    return "trec"


_TABLE_OPTIONS = {"qid": "--qid", "label": "--label", "scores": "--score",
                  "doc_id": "--doc-id", "extra": "--segment"}


def _segment_columns(args: argparse.Namespace) -> list[str]:
    return [s.arg for s in args.segment if s.kind in ("frequency", "type")]


def _load_table(args: argparse.Namespace, progress: _Progress, plan: _Plan) -> _Loaded:
    from ..io import read_table

    if len(args.inputs) != 1:
        raise DataError(f"a table input is one file; got {len(args.inputs)}: "
                        f"{listing(args.inputs)}.")
    path = args.inputs[0]
    scores = [c.strip() for s in args.score for c in s.split(",") if c.strip()] or None
    if scores is not None and args.baseline is not None and args.baseline not in scores:
        scores.append(args.baseline)
    extra = [] if args.query_table else _segment_columns(args)
    progress(f"reading {path}")
    fmt, source, raw = _table_source(path)
    refused: SkrankError | None = None
    try:
        table = read_table(source, qid=args.qid, label=args.label, scores=scores,
                           doc_id=args.doc_id, extra=sorted(set(extra)) or None, format=fmt)
    except InvalidParameterError as exc:
        raise _column_error(exc, args) from None
    except SkrankError as exc:
        refused = exc
    if refused is not None:
        # a value the reader refuses (missing, not a number, ...): a value of the rows
        # before it that the conventions refuse is named first (it comes first in the file)
        before = getattr(refused, "_read_before", None)
        if before is not None:
            _check_table_values(before[0], before[1], plan, path, args.label, fmt, raw)
        raise DataError(str(refused).replace("scores=[...]", "--score"))
    if args.baseline is not None and args.baseline not in table.scores:
        raise DataError(f"--baseline: {args.baseline!r} is not a score column of {path} "
                        f"(score columns: {listing(table.systems, 10)}).")
    _check_table_values(table.y_true, table.scores, plan, path, args.label, fmt, raw)
    loaded = _Loaded("table", [], args.baseline)
    n_q = np.unique(table.qid).size
    loaded.inputs.append(
        f"table {path}: {plural(len(table), 'row')}, {plural(n_q, 'query', 'queries')}; "
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


def _check_table_values(y_true: np.ndarray, scores: dict[str, np.ndarray], plan: _Plan,
                        path: str, label: str, fmt: str | None, raw: bytes | None) -> None:
    """Refuse, with the file and the line (the row of a Parquet file), a label or score of a
    table that the evaluation refuses (see :func:`_check_values`); ``fmt``: the format
    given to the reader (None: told by the name); ``raw``: the bytes of a pipe, read once
    (None: a file). The line is found by reading the file again (or the pipe's bytes), on
    the error path only (blank lines and quoted line breaks counted as the reader counts
    them)."""
    from ..io._table import _guess_format, table_row_place

    fmt = fmt or _guess_format(path) or "csv"
    where = path if raw is None else raw

    def place(row: int) -> str:
        return f"{path}, {table_row_place(where, fmt, row)}"

    columns = [(place, f"column {label!r}", y_true, True)]
    columns += [(place, f"column {name!r}", values, False) for name, values in scores.items()]
    _check_values(columns, plan)


def _check_libsvm_values(table: Any, plan: _Plan, data: str, files: dict[str, str],
                         raw: bytes | None = None) -> None:
    """Refuse, with the file and the line, a label of a LibSVM file or a score of a scores
    file that the evaluation refuses (see :func:`_check_values`); ``raw``: the bytes of a
    data file read from a pipe (see :func:`_pipe_bytes`), None for a file. The line of a
    row is found by reading the file again (or the pipe's bytes, decompressed again), on the
    error path only, with comments and blank lines counted as the reader counts them.

    ``table`` may be the :class:`~skrank.io._libsvm.LabelsBefore` of a reader's error: the
    labels read before its line (with their lines, or None: all of them) and the scores
    files read whole before a scores file's error."""
    from ..io._libsvm import LabelsBefore

    if isinstance(table, LabelsBefore):
        y_true, scores = table.y, table.scores or {}
        lines: list[np.ndarray] = [] if table.lines is None else [table.lines]
    else:
        y_true, scores, lines = table.y_true, table.scores, []

    def label_place(row: int) -> str:
        if not lines:  # on the error path only
            import io

            from ..io._libsvm import row_lines

            lines.append(row_lines(data if raw is None else io.BytesIO(raw), data))
        return f"{data}, line {int(lines[0][row])}"

    columns = [(label_place, "the first field (the label)", y_true, True)]
    for name, path in files.items():  # a score file's line n holds its n-th score
        if name in scores:
            columns.append((lambda row, p=path: f"{p}, line {row + 1}", "the scores file",
                            scores[name], False))
    _check_values(columns, plan)


def _check_values(columns: Sequence[tuple[Any, str, np.ndarray, bool]], plan: _Plan) -> None:
    """Refuse, naming its place, a label or score that the evaluation refuses under the
    command's conventions and metrics (a negative label where the gain or NDCG/ERR cannot
    take it, one above 1000 with gain=exp, one outside a gain table, a value that float32
    cannot hold, ...): evaluate would name a row of its arrays instead. ``columns``: (the
    place of a row, what the values are, the values, whether they are labels). The rules are
    evaluate's own checks, run on each column."""
    from ..conventions import resolve_conventions
    from ..metrics._inputs import _check_labels, _float32_labels, _labels_array, _to_float32
    from ..metrics._spec import metric_specs

    caller = "evaluate"
    try:
        conv = resolve_conventions(**plan.conv)
        specs = metric_specs(plan.metrics, caller)
    except SkrankError:  # pragma: no cover - the evaluation reports it
        return

    def labels(values: np.ndarray) -> None:
        values = _labels_array(values)
        if conv.label_precision == "float32":
            values = _float32_labels(values, caller)
        _check_labels(values.astype(np.float64, copy=False), conv, specs, caller)

    def scores(values: np.ndarray) -> None:
        if conv.score_precision == "float32":
            _to_float32(values, "y_score", "scores", "score_precision", caller)

    found = []  # the first value refused in each column: the earliest row is named
    for order, (place, what, values, is_label) in enumerate(columns):
        exc = _first_refused(values, labels if is_label else scores)
        if exc is not None:
            found.append((exc.row, order, place, what, values, exc))
    if found:
        row, _, place, what, values, exc = min(found, key=lambda f: f[:2])
        raise RefusedValue(f"{place(row)}: {what} must hold {exc.allowed}; "
                           f"got {_number(values[row])}.")


def _first_refused(values: np.ndarray, check: Any) -> InputError | None:
    """The error of the first value of ``values`` that ``check`` refuses, or None.

    ``check`` raises an :class:`~skrank.InputError` naming the first value of one kind that
    it refuses (its ``row``), one kind after the other; so the values before that row are
    checked again, until they pass. Each round finds an earlier row of a kind checked later,
    so there are at most as many rounds as kinds."""
    found, n = None, values.shape[0]
    while True:
        try:
            check(values[:n])
        except InputError as exc:
            if exc.row is None or exc.allowed is None or exc.row >= n:
                raise  # pragma: no cover - each check of a value names it
            found, n = exc, exc.row
            continue
        return found


def _number(value: Any) -> str:
    """A label or score as the file has it: 3 rather than 3.0."""
    v = float(value)
    return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)


def _table_format(path: str) -> str | None:
    """None when the name tells the format (or the file is a pipe, or cannot be read: the
    reader says why); else what :func:`_sniff_table` says of its text."""
    if _has_table_suffix(path) or not os.path.isfile(path):
        return None
    return _sniff_table(path)


def _sniff_table(source: Any) -> str | None:
    """Parquet by its magic bytes, TSV when the first line of the text (decompressed) has a
    tab, CSV otherwise; None where it cannot be read (the reader says why)."""
    from ..io._arrow import read_head

    try:
        head = read_head(source, 1 << 16)
    except (OSError, EOFError, lzma.LZMAError, zlib.error, SkrankError):
        return None
    if head.startswith(b"PAR1"):  # (compressed whole, the reader says so)
        return "parquet"
    first = head.replace(b"\r", b"\n").split(b"\n", 1)[0]
    return "tsv" if b"\t" in first else "csv"


def _table_source(path: str) -> tuple[str | None, Any, bytes | None]:
    """(format, what to give read_table, the bytes of a pipe) of a table input. A pipe (or
    another file that is not a regular one) is read once, here: its format is then told by
    its name, else by its content (as a file's), and its lines can be named."""
    raw = _pipe_bytes(path)
    if raw is None:
        return _table_format(path), path, None
    import io

    from ..io._table import _guess_format

    source = io.BytesIO(raw)
    source.name = path  # (named in the reader's messages)
    fmt = _guess_format(path) or _sniff_table(io.BytesIO(raw)) or "csv"
    return fmt, source, raw


def _column_error(exc: InvalidParameterError, args: argparse.Namespace) -> DataError:
    """Restate read_table's unknown-column error with the command's option name."""
    text = str(exc)
    if text.startswith("The 'format' parameter of read_table"):  # a pipe, say
        return DataError(f"{args.inputs[0]}: the table's format cannot be told from its name "
                         "(give a file named .csv, .tsv, .parquet, ...).")
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
    from ..segments import per_query

    for column, values in extra.items():
        try:
            loaded.columns[column] = per_query(qid, values, name=column)
        except SkrankError as exc:
            raise DataError(str(exc)) from None


def _rows_as_candidates(loaded: _Loaded, qid: np.ndarray) -> None:
    from ..segments import count_candidates

    loaded.candidates = count_candidates(qid)
    loaded.candidates_note = "rows of each query"


def _load_libsvm(args: argparse.Namespace, progress: _Progress, plan: _Plan) -> _Loaded:
    from ..io import read_scored_libsvm

    if len(args.inputs) < 2 and args.baseline is None:
        raise DataError("LibSVM input needs the data file and at least one score file: "
                        "LIBSVM SCORES [SCORES ...].")
    data = args.inputs[0]
    score_paths, names, base_name = _system_files(args.baseline, list(args.inputs[1:]))
    progress(f"reading {data}")
    files = dict(zip(names, score_paths))
    raw = _pipe_bytes(data)
    source: Any = data
    if raw is not None:
        import io

        source = io.BytesIO(raw)
        source.name = data  # (named in the reader's messages)
    try:
        table = read_scored_libsvm(source, files, group=args.group)
    except InputError as exc:
        # a line the reader refuses (in the data file, or a scores file): a label of the
        # rows before it that the conventions refuse is named first (it comes first in the
        # data file, which is read first), then a score of the scores files read before
        before = getattr(exc, "_read_before", None)
        if before is not None:
            _check_libsvm_values(before, plan, data, files, raw)
        raise
    _check_libsvm_values(table, plan, data, files, raw)
    loaded = _Loaded("libsvm", [], base_name)
    loaded.inputs.append(
        f"libsvm {data}: {plural(len(table), 'row')}, "
        f"{plural(np.unique(table.qid).size, 'query', 'queries')}; scores: "
        + ", ".join(f"{n} ({p})" if n != p else n for n, p in zip(names, score_paths))
    )
    for name, values in table.scores.items():
        loaded.systems.append(_System(name, {"y_true": table.y_true, "y_score": values,
                                             "qid": table.qid}))
    _rows_as_candidates(loaded, table.qid)
    return loaded


def _pipe_bytes(path: str) -> bytes | None:
    """The bytes of an input that is a pipe (or another file that is not a regular one:
    ``<(zcat d.svm.gz)``, ``/dev/stdin``), read once, here, so that its format can be told
    and the line of a refused value counted in them (the readers decompress them as a
    file's); None for a regular file, a directory, a missing file or one that cannot be
    opened (the reader says why). A LibSVM score file needs no such copy: its line ``n``
    holds its ``n``-th score, and the reader of a ``--group`` file names its lines itself."""
    if not os.path.exists(path) or os.path.isfile(path) or os.path.isdir(path):
        return None
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _read_query_table(path: str, qid_column: str, columns: Sequence[str]
                      ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Columns of a per-query CSV/TSV file (plain csv module; no pandas needed)."""
    import csv  # here: the TREC runs' reading starts without it

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
                            f"{listing(header, 20)}).")
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


def _load(args: argparse.Namespace, kind: str, progress: _Progress, plan: _Plan,
          qrels_reader: Any = None) -> _Loaded:
    """The systems of the input files; ``qrels_reader``: TREC qrels already being read
    (see :func:`~skrank.cli._trec._start_qrels`)."""
    try:
        if kind == "trec":
            loaded = _load_trec(args, progress, plan, qrels_reader)
        elif kind == "table":
            loaded = _load_table(args, progress, plan)
        else:
            loaded = _load_libsvm(args, progress, plan)
    except SkrankError as exc:
        # a wrong number of files, or a first line that does not parse, may mean that the
        # kind of input was guessed wrong
        text = str(exc)
        if args.input != "auto" or kind == "table" or not (
                ", line 1:" in text or text.startswith(("TREC input needs",
                                                        "LibSVM input needs"))):
            raise
        if isinstance(exc, RefusedValue):
            raise  # a value refused on a line that was read: not a wrong kind of input
        other = "table or libsvm" if kind == "trec" else "table or trec"
        raise DataError(f"{exc} (read as {kind} input, guessed from the files; use --input "
                        f"{other} for other formats)") from None
    if args.query_table:
        loaded.columns.update(_read_query_table(args.query_table, args.qid,
                                                sorted(set(_segment_columns(args)))))
        loaded.inputs.append(f"query table {args.query_table}")
    return loaded

