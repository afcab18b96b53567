"""Online metrics from an event log, one row per unit for :func:`analyze_experiment` (private).

An event log has one row per event: the user, the session, the time, the event type (a query
shown, a click, a conversion, anything else), and for clicks the item and its position. Every
metric is a named convention with a closed set of choices, because each one changes the
numbers:

- **Order.** Events are sorted once by user, session and time; at equal times a query comes
  before the other events, then the log's order. Without a session column
  (``session=None``) a user's session ends after ``session_gap`` seconds without an event
  (30 minutes, the usual web-analytics rule): a gap ``> session_gap`` starts a new one. A
  click or conversion belongs to the last query before it in its session; clicks before the
  first query of a session belong to no query (they are counted, ``n_unattributed_clicks``,
  and still have a dwell time).
- **CTR@k** (``ctr_definition``): ``"any_click"``, the share of queries with at least one
  click at a position ``<= k``; ``"clicks_per_impression"``, clicks at positions ``<= k`` per
  query (with ``repeat_clicks="first"`` a second click on the same item of the same query is
  not counted again). Positions are 1-based.
- **Abandonment** (``abandonment``): ``"query"``, the share of queries with no click;
  ``"session"``, the share of sessions with a query that have no click after their first query.
- **Reformulation** (``reformulation``): a query is reformulated when the next query of the
  same session (same user) follows within ``reformulation_window`` seconds (``<=``);
  ``"next_query_no_click"`` also requires that the query got no click.
- **Time to first click** (``time_to_click``): ``"query"``, seconds from each query to its
  first click, averaged over the queries with a click; ``"session"``, from the first query of
  each session to the session's first click after it, over the sessions with one.
- **Dwell time**: seconds from a click to the next event of its session, capped at
  ``dwell_timeout``; a session's last click (no next event) gets ``dwell_timeout``
  (``last_click="timeout"``) or no dwell at all (``"exclude"``). A click is **satisfied** when
  its dwell is ``>= satisfied_dwell`` (30 s, Fox et al., 2005); both are averaged over the
  clicks with a dwell.
- **Conversion** (``conversion``): ``"session"``, the share of sessions with a conversion
  event; ``"user"``, the share of users with one (``unit="user"`` only).
- **Retention** (``unit="user"`` only): a user is retained when active again (any event) in
  ``[first + d1 days, first + d2 days)``, ``first`` being the user's first event;
  ``retention_window=(d1, d2)``. A user whose window ends after the log's last event is
  censored: left out (``retention_censoring="exclude"``) or counted as not retained
  (``"include"``).

References for the definitions: abandonment as a query without a click, which also counts
"good abandonment" (the answer was on the result page: Li, Huffman and Tokuda, SIGIR 2009);
reformulation as a signal of dissatisfaction (Hassan, Shi, Craswell and Ramsey, CIKM 2013);
the 30-second satisfied click (Fox, Karnawat, Mydland, Dumais and White, TOIS 2005).

Rates are ratios of sums over units (queries of a user are not independent trials), written as
a numerator and a denominator column, which :func:`analyze_experiment` analyses by the delta
method; the conversion of users is a 0/1 column, a mean. The log is read into arrays by
:mod:`skrank.online._event_log`; the result is an :class:`EventUnits` (``_event_units``).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import BOOL, Interval, Options, Satisfies, input_error, validate_params
from ._event_log import _CALLER, _TIME_UNITS, _check_arm, _codes, _event_order, _is_event, _seconds
from ._event_units import EventUnits

__all__ = [
    "ABANDONMENT_DEFINITIONS",
    "CONVERSION_DEFINITIONS",
    "EVENT_METRICS",
    "LAST_CLICK_RULES",
    "REFORMULATION_DEFINITIONS",
    "RETENTION_CENSORING",
    "TIME_TO_CLICK_DEFINITIONS",
    "event_metrics",
]

#: Metrics :func:`event_metrics` computes (``metrics=``).
EVENT_METRICS = ("ctr", "abandonment", "reformulation", "time_to_first_click", "dwell",
                 "satisfied_clicks", "conversion", "retention")
#: What counts as abandonment: a query without a click, or a session without one.
ABANDONMENT_DEFINITIONS = ("query", "session")
#: What counts as a reformulation: the next query within the window (without a click between).
REFORMULATION_DEFINITIONS = ("next_query", "next_query_no_click")
#: Time to first click from each query, or from the first query of each session.
TIME_TO_CLICK_DEFINITIONS = ("query", "session")
#: The dwell of a session's last click: the timeout, or none.
LAST_CLICK_RULES = ("timeout", "exclude")
#: Conversion of sessions or of users.
CONVERSION_DEFINITIONS = ("session", "user")
#: Users whose retention window ends after the log: left out, or not retained.
RETENTION_CENSORING = ("exclude", "include")

_DAY = 86_400.0


def _is_column_name(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def _window_ok(v: Any) -> bool:
    if not isinstance(v, (tuple, list)) or len(v) != 2:
        return False
    ok = all(isinstance(x, numbers.Real) and not isinstance(x, bool) and np.isfinite(x)
             for x in v)
    return ok and 0 <= v[0] < v[1]


def _metrics_ok(v: Any) -> bool:
    return (isinstance(v, (tuple, list)) and len(v) > 0
            and all(isinstance(m, str) and m in EVENT_METRICS for m in v)
            and len(set(v)) == len(v))


_COLUMN = Satisfies(_is_column_name, "a column name (a non-empty str)")
_SECONDS = Interval(float, 0, closed="neither", text="a finite real number > 0 (seconds)")


@validate_params({
    "unit": Options(("user", "session")),
    "user": _COLUMN, "session": [_COLUMN, None], "timestamp": _COLUMN, "event": _COLUMN,
    "position": _COLUMN, "item": [_COLUMN, None], "arm": [_COLUMN, None],
    "metrics": [Satisfies(_metrics_ok, f"a non-empty list of distinct names among "
                                       f"{EVENT_METRICS!r}"), None],
    "k": Interval(int, 1),
    "ctr_definition": Options(("any_click", "clicks_per_impression")),
    "repeat_clicks": Options(("count", "first")),
    "abandonment": Options(ABANDONMENT_DEFINITIONS),
    "reformulation": Options(REFORMULATION_DEFINITIONS),
    "session_gap": _SECONDS,
    "reformulation_window": _SECONDS,
    "time_to_click": Options(TIME_TO_CLICK_DEFINITIONS),
    "last_click": Options(LAST_CLICK_RULES),
    "dwell_timeout": _SECONDS,
    "satisfied_dwell": _SECONDS,
    "conversion": Options(CONVERSION_DEFINITIONS),
    "retention_window": Satisfies(_window_ok, "a pair (d1, d2) of finite reals with "
                                              "0 <= d1 < d2 (days)"),
    "retention_censoring": Options(RETENTION_CENSORING),
    "time_unit": Options(tuple(_TIME_UNITS)),
    "query_event": Satisfies(lambda v: v is not None, "an event type (not None)"),
    "click_event": Satisfies(lambda v: v is not None, "an event type (not None)"),
    "conversion_event": Satisfies(lambda v: v is not None, "an event type (not None)"),
    "check_arm": BOOL,
})
def event_metrics(
    events: Any,
    *,
    unit: str = "user",
    user: str = "user",
    session: str | None = "session",
    timestamp: str = "timestamp",
    event: str = "event",
    position: str = "position",
    item: str | None = None,
    arm: str | None = "arm",
    metrics: Sequence[str] | None = None,
    k: int = 10,
    session_gap: float = 1800.0,
    ctr_definition: str = "any_click",
    repeat_clicks: str = "count",
    abandonment: str = "query",
    reformulation: str = "next_query",
    reformulation_window: float = 60.0,
    time_to_click: str = "query",
    last_click: str = "timeout",
    dwell_timeout: float = 1800.0,
    satisfied_dwell: float = 30.0,
    conversion: str = "session",
    retention_window: tuple[float, float] = (1, 8),
    retention_censoring: str = "exclude",
    time_unit: str = "s",
    query_event: Any = "query",
    click_event: Any = "click",
    conversion_event: Any = "conversion",
    check_arm: bool = True,
) -> EventUnits:
    """Online metrics of an event log, one row per user or session, ready for an A/B analysis.

    Parameters
    ----------
    events : pandas, polars or pyarrow DataFrame
        One row per event.
    unit : {"user", "session"}, default="user"
        The randomisation unit: one output row per user, or per (user, session).
    user, session, timestamp, event, position : str
        Column names. ``timestamp`` holds datetimes or numbers in ``time_unit``;
        ``position`` the 1-based position of a clicked item (read on click rows only).
        ``session=None`` cuts each user's events into sessions at gaps of more than
        ``session_gap`` seconds (with ``unit="session"`` the table's ``session`` column
        then numbers a user's sessions from 0).
    item : str or None, default=None
        Column of the clicked item, needed by ``repeat_clicks="first"``.
    arm : str or None, default="arm"
        Column of the arm, carried through to the unit table (constant within a unit).
    metrics : list of str or None, default=None
        Among ``"ctr"``, ``"abandonment"``, ``"reformulation"``, ``"time_to_first_click"``,
        ``"dwell"``, ``"satisfied_clicks"``, ``"conversion"``, ``"retention"``; None is all of
        them (without ``"retention"`` for sessions).
    session_gap : float, default=1800.0
        Seconds of inactivity that end a session when ``session`` is None.
    k : int, default=10
        Cutoff of CTR@k.
    ctr_definition : {"any_click", "clicks_per_impression"}, default="any_click"
        Share of queries with a click in the top ``k``, or clicks in the top ``k`` per query.
    repeat_clicks : {"count", "first"}, default="count"
        Whether a repeated click on the same item of the same query counts again in
        ``"clicks_per_impression"``.
    abandonment : {"query", "session"}, default="query"
        Share of queries without a click, or of sessions with a query but no click.
    reformulation : {"next_query", "next_query_no_click"}, default="next_query"
        A query followed by another of its session within ``reformulation_window`` seconds
        (and, for ``"next_query_no_click"``, without a click of its own).
    reformulation_window : float, default=60.0
        Seconds.
    time_to_click : {"query", "session"}, default="query"
        From each query to its first click, or from a session's first query to its first
        click.
    last_click : {"timeout", "exclude"}, default="timeout"
        The dwell of a click with no later event in its session: ``dwell_timeout``, or none.
    dwell_timeout : float, default=1800.0
        Seconds; every dwell is capped at it.
    satisfied_dwell : float, default=30.0
        A click with a dwell of at least this many seconds is satisfied.
    conversion : {"session", "user"}, default="session"
        Share of sessions with a conversion event, or of users with one (``unit="user"``).
    retention_window : (float, float), default=(1, 8)
        ``[d1, d2)`` days after the user's first event in which any event makes them retained.
    retention_censoring : {"exclude", "include"}, default="exclude"
        Users whose window ends after the log's last event: left out, or not retained.
    time_unit : {"s", "ms", "us", "ns"}, default="s"
        Unit of a numeric ``timestamp``.
    query_event, click_event, conversion_event : default "query", "click", "conversion"
        The values of ``event`` that mark a query (a result list shown), a click and a
        conversion; other values are events too (they end a dwell and make a user active).
    check_arm : bool, default=True
        Check that the arm is constant within each unit (an error names the first unit that
        has two arms).

    Returns
    -------
    EventUnits
        ``.table`` (one row per unit, the log's data frame kind), ``.metrics`` (the
        ``metrics=`` of :func:`analyze_experiment`), ``.conventions``, the counts, and
        ``.analyze(control)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from skrank.online import event_metrics
    >>> log = pd.DataFrame({
    ...     "user":      [1, 1, 1, 1, 2, 2, 2],
    ...     "session":   [1, 1, 1, 1, 1, 1, 1],
    ...     "timestamp": [0, 4, 40, 50, 0, 20, 30],
    ...     "event":     ["query", "click", "query", "click", "query", "query", "click"],
    ...     "position":  [None, 2, None, 1, None, None, 12],
    ...     "arm":       ["A", "A", "A", "A", "B", "B", "B"],
    ... })
    >>> res = event_metrics(log, metrics=["ctr", "abandonment", "dwell"], k=10)
    >>> res.metrics["ctr@10"], res.metrics["abandonment"]
    (('clicked_queries@10', 'queries'), ('abandoned_queries', 'queries'))
    >>> res.table[["user", "arm", "queries", "clicked_queries@10", "abandoned_queries"]]
       user arm  queries  clicked_queries@10  abandoned_queries
    0     1   A        2                   2                  0
    1     2   B        2                   0                  1
    >>> res.table["dwell_seconds"].tolist()      # 4 -> 40, and the last click's timeout
    [1836.0, 1800.0]
    """
    import narwhals.stable.v2 as nw

    frame = nw.from_native(events, eager_only=True, pass_through=True)
    if not isinstance(frame, nw.DataFrame):
        raise input_error("events", "a pandas, polars or pyarrow DataFrame with one row per "
                          "event", type(events).__name__, _CALLER)
    names = {"user": user, "timestamp": timestamp, "event": event}
    if session is not None:
        names["session"] = session
    if arm is not None:
        names["arm"] = arm
    if item is not None:
        names["item"] = item
    for role, col in names.items():
        if col not in frame.columns:
            raise input_error(role, f"a column of events (columns: {list(frame.columns)})",
                              repr(col), _CALLER)
    n = len(frame)
    if n == 0:
        raise input_error("events", "at least one event", "0 rows", _CALLER)
    wanted = (tuple(m for m in EVENT_METRICS if unit == "user" or m != "retention")
              if metrics is None else tuple(metrics))
    if unit == "session":
        for m, why in (("retention", "retention"),
                       ("conversion", "conversion='user'" if conversion == "user" else None)):
            if why is not None and m in wanted:
                raise input_error("unit", f"'user' for {why} (a property of users)",
                                  "'session'", _CALLER)
    if repeat_clicks == "first" and "ctr" in wanted and item is None:
        raise input_error("item", "the item column for repeat_clicks='first'", "None",
                          _CALLER)
    need_position = "ctr" in wanted
    if need_position and position not in frame.columns:
        raise input_error("position", f"a column of events (columns: {list(frame.columns)})",
                          repr(position), _CALLER)

    # -- columns as arrays, one sort -----------------------------------------------------
    ucode = _codes(frame[user], "user")
    scode = None if session is None else _codes(frame[session], "session")
    t = _seconds(frame[timestamp], time_unit)
    ev = frame[event]
    is_q = _is_event(ev, query_event)
    is_c = _is_event(ev, click_event)
    is_v = _is_event(ev, conversion_event)
    order = _event_order(ucode, scode, t, is_q)
    u, t = ucode[order], t[order]
    is_q, is_c, is_v = is_q[order], is_c[order], is_v[order]

    new_user = np.empty(n, dtype=bool)
    new_user[0] = True
    np.not_equal(u[1:], u[:-1], out=new_user[1:])
    new_sess = new_user.copy()
    if scode is None:
        new_sess[1:] |= t[1:] - t[:-1] > session_gap
    else:
        s = scode[order]
        new_sess[1:] |= s[1:] != s[:-1]
    sess = np.cumsum(new_sess) - 1                     # session index of each event
    usr = np.cumsum(new_user) - 1                       # user index of each event
    n_sess, n_users = int(sess[-1]) + 1, int(usr[-1]) + 1
    sess_start = np.flatnonzero(new_sess)
    user_of_sess = usr[sess_start]
    unit_of_sess = user_of_sess if unit == "user" else np.arange(n_sess)
    n_units = n_users if unit == "user" else n_sess
    first_rows = order[np.flatnonzero(new_user if unit == "user" else new_sess)]

    # queries and the query each event belongs to
    q_rows = np.flatnonzero(is_q)
    nq = q_rows.size
    q_sess = sess[q_rows]
    q_t = t[q_rows]
    qid = np.cumsum(is_q) - 1                           # last query at or before the event
    attributed = qid >= 0
    attributed[attributed] = q_sess[qid[attributed]] == sess[attributed]
    click_rows = np.flatnonzero(is_c)
    c_att = attributed[click_rows]
    c_q = qid[click_rows][c_att]                       # query of each attributed click
    c_rows_att = click_rows[c_att]
    clicks_per_q = np.bincount(c_q, minlength=nq)

    def per_unit_from_queries(x: np.ndarray) -> np.ndarray:
        return np.bincount(unit_of_sess[q_sess], weights=x, minlength=n_units)

    def per_unit_from_sessions(x: np.ndarray) -> np.ndarray:
        return np.bincount(unit_of_sess, weights=x, minlength=n_units)

    ones_q = np.ones(nq)
    cols: dict[str, np.ndarray] = {
        "sessions": per_unit_from_sessions(np.ones(n_sess)),
        "queries": per_unit_from_queries(ones_q),
    }
    out_metrics: dict[str, Any] = {}
    conv: dict[str, Any] = {
        "unit": unit, "sessions": (f"column {session!r}" if session is not None
                                   else f"gaps > {session_gap:g} s"),
        "order": "user, session, time (queries first at equal times)",
        "click_owner": "last query before it in its session"}

    if "ctr" in wanted:
        try:
            pos = np.asarray(frame[position].to_numpy(), dtype=np.float64)[order][click_rows]
        except (TypeError, ValueError):
            raise input_error("position", "a column of numbers", f"column {position!r}",
                              _CALLER) from None
        bad = ~(np.isfinite(pos) & (pos >= 1) & (pos == np.round(pos)))
        if bad.any():
            j = int(np.argmax(bad))
            raise input_error("position", "an int >= 1 (1-based) on every click row",
                              f"{float(pos[j])!r} at row {int(order[click_rows[j]])}", _CALLER)
        top = pos[c_att] <= k
        if ctr_definition == "any_click":
            hit = np.bincount(c_q[top], minlength=nq) > 0
            num = f"clicked_queries@{k}"
        else:
            kept_q = c_q[top]
            if repeat_clicks == "first":
                items = _codes(frame[item], "item")[order][c_rows_att][top]
                o2 = np.lexsort((items, kept_q))         # stable: earliest first within pairs
                same = (kept_q[o2][1:] == kept_q[o2][:-1]) & (items[o2][1:] == items[o2][:-1])
                kept_q = np.delete(kept_q, o2[1:][same])
            hit = np.bincount(kept_q, minlength=nq)
            num = f"clicks@{k}"
        cols[num] = per_unit_from_queries(hit.astype(np.float64))
        out_metrics[f"ctr@{k}"] = (num, "queries")
        conv.update(ctr_definition=ctr_definition, k=k, repeat_clicks=repeat_clicks)

    if "abandonment" in wanted:
        if abandonment == "query":
            cols["abandoned_queries"] = per_unit_from_queries((clicks_per_q == 0) * 1.0)
            out_metrics["abandonment"] = ("abandoned_queries", "queries")
        else:
            q_in_s = np.bincount(q_sess, minlength=n_sess)
            c_in_s = np.bincount(q_sess, weights=clicks_per_q, minlength=n_sess)
            cols["abandoned_sessions"] = per_unit_from_sessions(
                ((q_in_s > 0) & (c_in_s == 0)) * 1.0)
            cols["query_sessions"] = per_unit_from_sessions((q_in_s > 0) * 1.0)
            out_metrics["abandonment"] = ("abandoned_sessions", "query_sessions")
        conv["abandonment"] = abandonment

    if "reformulation" in wanted:
        ref = np.zeros(nq, dtype=bool)
        if nq > 1:
            ref[:-1] = (q_sess[1:] == q_sess[:-1]) & (q_t[1:] - q_t[:-1] <= reformulation_window)
        if reformulation == "next_query_no_click":
            ref &= clicks_per_q == 0
        cols["reformulated_queries"] = per_unit_from_queries(ref * 1.0)
        out_metrics["reformulation"] = ("reformulated_queries", "queries")
        conv.update(reformulation=reformulation, reformulation_window=reformulation_window)

    if "time_to_first_click" in wanted:
        # attributed clicks are in time order; the first of each query is where c_q changes
        first = np.ones(c_q.size, dtype=bool)
        first[1:] = c_q[1:] != c_q[:-1]
        fq, fc = c_q[first], t[c_rows_att[first]]
        if time_to_click == "query":
            wait = np.zeros(nq)
            wait[fq] = fc - q_t[fq]
            cols["first_click_seconds"] = per_unit_from_queries(wait)
            cols["clicked_queries"] = per_unit_from_queries((clicks_per_q > 0) * 1.0)
            out_metrics["time_to_first_click"] = ("first_click_seconds", "clicked_queries")
        else:
            fs = q_sess[fq]
            firsts = np.ones(fs.size, dtype=bool)
            firsts[1:] = fs[1:] != fs[:-1]
            q_first_t = np.full(n_sess, np.nan)
            q_first = np.ones(nq, dtype=bool)
            q_first[1:] = q_sess[1:] != q_sess[:-1]
            q_first_t[q_sess[q_first]] = q_t[q_first]
            wait = np.zeros(n_sess)
            has = np.zeros(n_sess)
            wait[fs[firsts]] = fc[firsts] - q_first_t[fs[firsts]]
            has[fs[firsts]] = 1.0
            cols["first_click_seconds"] = per_unit_from_sessions(wait)
            cols["clicked_sessions"] = per_unit_from_sessions(has)
            out_metrics["time_to_first_click"] = ("first_click_seconds", "clicked_sessions")
        conv["time_to_click"] = time_to_click

    if "dwell" in wanted or "satisfied_clicks" in wanted:
        nxt = click_rows + 1
        has_next = nxt < n
        has_next[has_next] = sess[nxt[has_next]] == sess[click_rows[has_next]]
        dwell = np.full(click_rows.size, float(dwell_timeout))
        dwell[has_next] = np.minimum(t[nxt[has_next]] - t[click_rows[has_next]], dwell_timeout)
        counted = np.ones(click_rows.size, dtype=bool) if last_click == "timeout" else has_next
        c_unit = unit_of_sess[sess[click_rows[counted]]]
        dwell = dwell[counted]
        cols["dwell_clicks"] = np.bincount(c_unit, minlength=n_units).astype(np.float64)
        if "dwell" in wanted:
            cols["dwell_seconds"] = np.bincount(c_unit, weights=dwell, minlength=n_units)
            out_metrics["dwell"] = ("dwell_seconds", "dwell_clicks")
        if "satisfied_clicks" in wanted:
            cols["satisfied_clicks"] = np.bincount(c_unit, weights=(dwell >= satisfied_dwell)
                                                   * 1.0, minlength=n_units)
            out_metrics["satisfied_clicks"] = ("satisfied_clicks", "dwell_clicks")
            conv["satisfied_dwell"] = satisfied_dwell
        conv.update(last_click=last_click, dwell_timeout=dwell_timeout)

    if "conversion" in wanted:
        v_s = np.bincount(sess[is_v], minlength=n_sess) > 0
        if conversion == "session":
            cols["converted_sessions"] = per_unit_from_sessions(v_s * 1.0)
            out_metrics["conversion"] = ("converted_sessions", "sessions")
        else:
            cols["converted"] = (np.bincount(user_of_sess, weights=v_s * 1.0,
                                             minlength=n_users) > 0) * 1.0
            out_metrics["conversion"] = "converted"
        conv["conversion"] = conversion

    n_censored = None
    if "retention" in wanted:
        d1, d2 = (float(x) * _DAY for x in retention_window)
        # a user's sessions are sorted by id, not time: the first event is the minimum
        user_first = np.minimum.reduceat(t, np.flatnonzero(new_user))
        since = t - user_first[usr]
        active = (since >= d1) & (since < d2)
        retained = np.bincount(usr, weights=active * 1.0, minlength=n_users) > 0
        eligible = (user_first + d2 <= t.max() if retention_censoring == "exclude"
                    else np.ones(n_users, dtype=bool))
        n_censored = int(n_users - eligible.sum())
        cols["retained"] = (retained & eligible) * 1.0
        cols["retention_eligible"] = eligible * 1.0
        out_metrics["retention"] = ("retained", "retention_eligible")
        conv.update(retention_window=tuple(retention_window),
                    retention_censoring=retention_censoring)

    # -- the unit table ------------------------------------------------------------------
    if arm is not None and check_arm:
        _check_arm(frame, arm, order, new_user if unit == "user" else new_sess)
    ids = [user] if unit == "user" else [user, "session" if session is None else session]
    keep_cols = [c for c in ids if c in names.values()]
    keep_cols += [arm] if arm is not None and arm not in ids else []
    head = nw.maybe_reset_index(frame.select(keep_cols)[first_rows])
    backend = nw.get_native_namespace(frame)
    body_cols = {c: v if c.endswith("_seconds") else v.astype(np.int64) for c, v in cols.items()}
    if unit == "session" and session is None:     # a user's sessions numbered from 0
        first_sess_of_user = np.flatnonzero(np.r_[True, user_of_sess[1:] != user_of_sess[:-1]])
        body_cols = {"session": np.arange(n_sess) - first_sess_of_user[user_of_sess],
                     **body_cols}
    body = nw.from_dict(body_cols, backend=backend)
    table = nw.concat([head, body], how="horizontal")
    table = table.select([*ids, *(c for c in table.columns if c not in ids)]).to_native()
    means = {}
    for name, spec in out_metrics.items():
        if isinstance(spec, str):
            means[name] = float(cols[spec].mean())
        else:
            den = cols[spec[1]].sum()
            means[name] = float(cols[spec[0]].sum() / den) if den > 0 else float("nan")
    return EventUnits(
        table=table, metrics=out_metrics, unit=unit, arm=arm, conventions=conv,
        n_events=n, n_units=n_units, n_sessions=n_sess, n_queries=nq,
        n_clicks=int(click_rows.size), n_unattributed_clicks=int((~c_att).sum()),
        n_censored=n_censored, _means=means,
    )
