"""event_metrics: every metric against a slow loop oracle over the events, on random logs.

The oracle walks each session's events in time order (queries first at equal times, then the
log's order), one event at a time, with the definitions written out as in the module
docstring. CTR@k is also checked against :func:`skrank.online.ctr_at_k` on the same clicks.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank.exceptions import InputError, InvalidParameterError
from skrank.online import analyze_experiment, ctr_at_k, event_metrics

polars = pytest.importorskip("polars")

DAY = 86_400.0


def random_log(rng, n_users=30, max_events=40, span=12 * DAY, arms=("A", "B")):
    rows = []
    for u in range(n_users):
        arm = arms[rng.integers(len(arms))]
        for _ in range(rng.integers(1, max_events)):
            kind = rng.choice(["query", "click", "conversion", "scroll"], p=[0.35, 0.45, 0.05,
                                                                            0.15])
            rows.append({
                "user": f"u{u}", "session": int(rng.integers(3)),
                # coarse times: many ties
                "timestamp": float(rng.integers(0, 40) * rng.choice([1.0, 7.0, 3600.0, DAY])),
                "event": kind,
                "position": float(rng.integers(1, 15)) if kind == "click" else np.nan,
                "item": int(rng.integers(4)) if kind == "click" else -1,
                "arm": arm,
            })
    rng.shuffle(rows)
    return pd.DataFrame(rows)


def oracle(df, unit="user", k=10, ctr_definition="any_click", repeat_clicks="count",
           abandonment="query", reformulation="next_query", reformulation_window=60.0,
           time_to_click="query", last_click="timeout", dwell_timeout=1800.0,
           satisfied_dwell=30.0, conversion="session", retention_window=(1, 8),
           retention_censoring="exclude"):
    """Per unit key: dict column -> value, by loops over each session's events."""
    records = df.to_dict("records")
    for i, r in enumerate(records):
        r["_i"] = i
    sessions = defaultdict(list)
    for r in records:
        sessions[(r["user"], r["session"])].append(r)
    out = defaultdict(lambda: defaultdict(float))
    user_conv = defaultdict(bool)
    for key, evs in sessions.items():
        evs.sort(key=lambda r: (r["timestamp"], r["event"] != "query", r["_i"]))
        row = out[key[0] if unit == "user" else key]
        row["sessions"] += 1
        queries = []  # each: dict(t, clicks=[(t, pos, item)])
        clicks = []   # (index in evs)
        for j, r in enumerate(evs):
            if r["event"] == "query":
                queries.append({"t": r["timestamp"], "clicks": []})
            elif r["event"] == "click":
                clicks.append(j)
                if queries:
                    queries[-1]["clicks"].append((r["timestamp"], r["position"], r["item"]))
        for qi, q in enumerate(queries):
            row["queries"] += 1
            top = [c for c in q["clicks"] if c[1] <= k]
            if ctr_definition == "any_click":
                row[f"clicked_queries@{k}"] += 1 if top else 0
            else:
                seen, n = set(), 0
                for c in top:
                    if repeat_clicks == "first" and c[2] in seen:
                        continue
                    seen.add(c[2])
                    n += 1
                row[f"clicks@{k}"] += n
            row["abandoned_queries"] += 0 if q["clicks"] else 1
            nxt = queries[qi + 1] if qi + 1 < len(queries) else None
            ref = nxt is not None and nxt["t"] - q["t"] <= reformulation_window
            if reformulation == "next_query_no_click" and q["clicks"]:
                ref = False
            row["reformulated_queries"] += ref
            if q["clicks"]:
                row["clicked_queries"] += 1
                if time_to_click == "query":
                    row["first_click_seconds"] += q["clicks"][0][0] - q["t"]
        if queries:
            row["query_sessions"] += 1
            all_clicks = [c for q in queries for c in q["clicks"]]
            row["abandoned_sessions"] += 0 if all_clicks else 1
            if all_clicks:
                row["clicked_sessions"] += 1
                if time_to_click == "session":
                    row["first_click_seconds"] += all_clicks[0][0] - queries[0]["t"]
        for j in clicks:
            if j + 1 < len(evs):
                d = min(evs[j + 1]["timestamp"] - evs[j]["timestamp"], dwell_timeout)
            elif last_click == "timeout":
                d = dwell_timeout
            else:
                continue
            row["dwell_clicks"] += 1
            row["dwell_seconds"] += d
            row["satisfied_clicks"] += d >= satisfied_dwell
        conv = any(r["event"] == "conversion" for r in evs)
        row["converted_sessions"] += conv
        user_conv[key[0]] |= conv
        row["_arm"] = evs[0]["arm"]
    if unit == "user":
        end = max(r["timestamp"] for r in records)
        for u, row in out.items():
            row["converted"] = float(user_conv[u])
            ts = [r["timestamp"] for r in records if r["user"] == u]
            first = min(ts)
            d1, d2 = retention_window
            active = any(first + d1 * DAY <= x < first + d2 * DAY for x in ts)
            eligible = retention_censoring == "include" or first + d2 * DAY <= end
            row["retained"] = float(active and eligible)
            row["retention_eligible"] = float(eligible)
    return out


def assert_matches(res, expected, unit="user"):
    table = res.table
    assert len(table) == len(expected)
    cols = [c for spec in res.metrics.values()
            for c in ((spec,) if isinstance(spec, str) else spec)]
    for rec in table.to_dict("records"):
        key = rec["user"] if unit == "user" else (rec["user"], rec["session"])
        exp = expected[key]
        assert rec["arm"] == exp["_arm"]
        for c in ["sessions", "queries", *cols]:
            assert math.isclose(rec[c], exp[c], abs_tol=1e-9), (key, c, rec[c], exp[c])


CONVENTIONS = [
    {},
    {"ctr_definition": "clicks_per_impression", "k": 3},
    {"ctr_definition": "clicks_per_impression", "k": 5, "repeat_clicks": "first"},
    {"abandonment": "session", "time_to_click": "session"},
    {"reformulation": "next_query_no_click", "reformulation_window": 7.0},
    {"last_click": "exclude", "dwell_timeout": 100.0, "satisfied_dwell": 7.0},
    {"conversion": "user", "retention_window": (0.5, 3), "retention_censoring": "include"},
    {"retention_window": (2, 5)},
]


@pytest.mark.parametrize("conv", CONVENTIONS, ids=[str(c) for c in CONVENTIONS])
def test_equals_the_loop_oracle_per_user(conv):
    df = random_log(np.random.default_rng(len(str(conv))))
    res = event_metrics(df, item="item", **conv)
    assert_matches(res, oracle(df, **conv))
    assert res.n_events == len(df)
    for key, value in conv.items():
        if key in res.conventions:
            assert res.conventions[key] == value


@pytest.mark.parametrize("conv", [c for c in CONVENTIONS
                                  if "conversion" not in c and "retention_window" not in c],
                         ids=str)
def test_equals_the_loop_oracle_per_session(conv):
    df = random_log(np.random.default_rng(1 + len(str(conv))))
    res = event_metrics(df, unit="session", item="item", **conv)
    assert_matches(res, oracle(df, unit="session", **conv), unit="session")
    assert "retention" not in res.metrics


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_users=st.integers(1, 6), k=st.integers(1, 15),
       ctr_definition=st.sampled_from(["any_click", "clicks_per_impression"]),
       last_click=st.sampled_from(["timeout", "exclude"]),
       window=st.sampled_from([1.0, 7.0, 60.0, 4000.0]))
def test_property_equals_the_oracle(seed, n_users, k, ctr_definition, last_click, window):
    df = random_log(np.random.default_rng(seed), n_users=n_users, max_events=12)
    conv = {"k": k, "ctr_definition": ctr_definition, "last_click": last_click,
            "reformulation_window": window}
    assert_matches(event_metrics(df, **conv), oracle(df, **conv))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_property_invariant_to_the_row_order_and_user_level_sums(seed):
    rng = np.random.default_rng(seed)
    df = random_log(rng, n_users=5, max_events=15)
    # distinct times: the log's order is then irrelevant
    df["timestamp"] = df["timestamp"] + rng.permutation(len(df)) * 1e-3
    a = event_metrics(df)
    b = event_metrics(df.sample(frac=1.0, random_state=seed % 1000))
    pd.testing.assert_frame_equal(a.table, b.table)
    # session rows add up to the user rows (counts, not retention)
    s = event_metrics(df, unit="session", metrics=["ctr", "abandonment", "dwell"])
    summed = s.table.drop(columns=["session", "arm"]).groupby("user").sum().sort_index()
    u = event_metrics(df, metrics=["ctr", "abandonment", "dwell"]).table.set_index("user")
    pd.testing.assert_frame_equal(summed, u[summed.columns].sort_index(), check_dtype=False)


def test_ctr_agrees_with_ctr_at_k():
    rng = np.random.default_rng(3)
    clicks = rng.random((200, 8)) < 0.2
    rows = []
    for q, row in enumerate(clicks):
        rows.append({"user": q, "session": 0, "timestamp": 0.0, "event": "query",
                     "position": np.nan, "arm": q % 2})
        for p in np.flatnonzero(row):
            rows.append({"user": q, "session": 0, "timestamp": 1.0 + p, "event": "click",
                         "position": p + 1, "arm": q % 2})
    df = pd.DataFrame(rows)
    for definition in ("any_click", "clicks_per_impression"):
        for k in (1, 3, 8):
            res = event_metrics(df, metrics=["ctr"], k=k, ctr_definition=definition)
            num, den = res.metrics[f"ctr@{k}"]
            ours = res.table[num].sum() / res.table[den].sum()
            assert ours == pytest.approx(ctr_at_k(clicks, k, definition=definition), abs=1e-12)


def test_polars_pyarrow_and_datetimes_give_the_same_table():
    df = random_log(np.random.default_rng(5))
    base = event_metrics(df, item="item").table
    pl_df = polars.from_pandas(df)
    got = event_metrics(pl_df, item="item").table
    assert isinstance(got, polars.DataFrame)
    pd.testing.assert_frame_equal(got.to_pandas(), base, check_dtype=False)
    pa = pytest.importorskip("pyarrow")
    arrow = event_metrics(pa.Table.from_pandas(df, preserve_index=False), item="item").table
    assert isinstance(arrow, pa.Table)
    pd.testing.assert_frame_equal(arrow.to_pandas(), base, check_dtype=False)
    dt = df.assign(timestamp=pd.Timestamp("2026-01-01") + pd.to_timedelta(df["timestamp"], "s"))
    pd.testing.assert_frame_equal(event_metrics(dt, item="item").table, base)
    ms = df.assign(timestamp=df["timestamp"] * 1000)
    pd.testing.assert_frame_equal(event_metrics(ms, item="item", time_unit="ms").table, base)


def test_feeds_analyze_experiment():
    df = random_log(np.random.default_rng(9), n_users=200)
    res = event_metrics(df)
    direct = analyze_experiment(res.table, arm="arm", control="A", metrics=res.metrics)
    via = res.analyze("A")
    assert [e.difference for e in via.effects] == [e.difference for e in direct.effects]
    assert via["ctr@10"].value_control == pytest.approx(
        res.table.query("arm == 'A'")["clicked_queries@10"].sum()
        / res.table.query("arm == 'A'")["queries"].sum())
    text = str(res)
    assert text.startswith("EventUnits: 200 users") and "ctr_definition=any_click" in text
    assert res.to_dict()["overall"]["abandonment"] == pytest.approx(
        res.table["abandoned_queries"].sum() / res.table["queries"].sum())


def test_handmade_log():
    log = pd.DataFrame({
        "user": [1, 1, 1, 1, 1, 1, 1],
        "session": [1, 1, 1, 1, 1, 2, 2],
        "timestamp": [0.0, 0.0, 10.0, 50.0, 55.0, 2 * DAY, 2 * DAY + 5],
        # a click logged before its query at the same time still belongs to it
        "event": ["click", "query", "click", "query", "conversion", "click", "query"],
        "position": [1, None, 3, None, None, 2, None],
        "arm": ["A"] * 7,
    })
    res = event_metrics(log, retention_window=(1, 3), retention_censoring="include")
    row = res.table.iloc[0]
    assert row["queries"] == 3 and row["clicked_queries@10"] == 1
    assert row["abandoned_queries"] == 2 and row["reformulated_queries"] == 1   # 50 - 0 <= 60
    assert row["first_click_seconds"] == 0.0 and row["clicked_queries"] == 1
    # dwell: 0 -> 10 is 10 s, 10 -> 50 is 40 s, 55 is not a click; session 2's click
    # is before any query (unattributed) and gets 5 s
    assert row["dwell_seconds"] == 10 + 40 + 5 and row["satisfied_clicks"] == 1
    assert row["converted_sessions"] == 1 and row["sessions"] == 2
    assert row["retained"] == 1
    assert res.n_unattributed_clicks == 1


def test_errors_name_the_parameter():
    df = random_log(np.random.default_rng(0), n_users=3)
    with pytest.raises(InputError, match=r"'user' parameter of event_metrics must be a column "
                                         r"of events .* Got 'uid' instead"):
        event_metrics(df, user="uid")
    with pytest.raises(InvalidParameterError, match=r"'ctr_definition' parameter of "
                                                    r"event_metrics must be one of"):
        event_metrics(df, ctr_definition="positional")
    with pytest.raises(InvalidParameterError, match=r"'retention_window'.*0 <= d1 < d2"):
        event_metrics(df, retention_window=(3, 1))
    with pytest.raises(InvalidParameterError, match=r"'metrics'.*Got \['ctr', 'revenue'\]"):
        event_metrics(df, metrics=["ctr", "revenue"])
    with pytest.raises(InputError, match=r"'unit' parameter .* must be 'user' for retention"):
        event_metrics(df, unit="session", metrics=["retention"])
    with pytest.raises(InputError, match=r"'item' parameter .* repeat_clicks='first'"):
        event_metrics(df, ctr_definition="clicks_per_impression", repeat_clicks="first")
    bad = df.copy()
    i = int(np.flatnonzero(bad["event"] == "click")[0])
    bad.loc[i, "position"] = 0
    with pytest.raises(InputError, match=rf"'position'.*int >= 1.*Got 0.0 at row {i}"):
        event_metrics(bad)
    mixed = df.copy()
    counts = mixed["user"].value_counts()
    rows = np.flatnonzero(mixed["user"] == counts.index[0])   # a user with several events
    mixed.loc[rows[-1], "arm"] = "B" if mixed.loc[rows[0], "arm"] == "A" else "A"
    with pytest.raises(InputError, match=r"'arm'.*constant within each unit.*a second arm "
                                         r"at row"):
        event_metrics(mixed)
    nan_t = df.assign(timestamp=df["timestamp"].where(df.index != 2))
    with pytest.raises(InputError, match=r"'timestamp'.*without missing values"):
        event_metrics(nan_t)
    with pytest.raises(InputError, match=r"'events'.*DataFrame.*Got list"):
        event_metrics([1, 2])


def pandas_reference(df, k=10, window=60.0, timeout=1800.0, sat=30.0):
    """The default definitions per user by pandas' own operations: clicks matched to queries
    by ``merge_asof`` (the last query at or before, by user and session), next events by
    ``groupby().shift``."""
    d = df.assign(_nq=df["event"] != "query", _i=np.arange(len(df)))
    d = d.sort_values(["user", "session", "timestamp", "_nq", "_i"]).reset_index(drop=True)
    d["seq"] = np.arange(len(d))
    d["next_t"] = d.groupby(["user", "session"])["timestamp"].shift(-1)
    queries = d[d["event"] == "query"][["user", "session", "seq", "timestamp"]].rename(
        columns={"timestamp": "q_t"})
    queries["qid"] = np.arange(len(queries))
    queries["next_q_t"] = queries.groupby(["user", "session"])["q_t"].shift(-1)
    clicks = d[d["event"] == "click"]
    matched = pd.merge_asof(clicks, queries[["user", "session", "seq", "qid", "q_t"]],
                            on="seq", by=["user", "session"], direction="backward")
    matched = matched.dropna(subset=["qid"]).assign(top=lambda m: m["position"] <= k)
    per_q = matched.groupby("qid").agg(n=("seq", "size"), first=("timestamp", "min"),
                                       top=("top", "max"))
    q = queries.set_index("qid").join(per_q)
    q["n"] = q["n"].fillna(0)
    q["top"] = q["top"].fillna(False).astype(bool)
    q["wait"] = (q["first"] - q["q_t"]).fillna(0.0)
    q["ref"] = (q["next_q_t"] - q["q_t"]) <= window
    q["abandoned"], q["clicked"] = q["n"] == 0, q["n"] > 0
    dwell = (clicks["next_t"] - clicks["timestamp"]).fillna(timeout).clip(upper=timeout)
    by_q = q.groupby("user")
    out = pd.DataFrame({
        "queries": by_q.size(), "clicked_queries@10": by_q["top"].sum(),
        "abandoned_queries": by_q["abandoned"].sum(),
        "reformulated_queries": by_q["ref"].sum(), "first_click_seconds": by_q["wait"].sum(),
        "clicked_queries": by_q["clicked"].sum(),
    })
    c = clicks.assign(dwell=dwell, sat=dwell >= sat).groupby("user")
    out = out.join(pd.DataFrame({"dwell_clicks": c.size(), "dwell_seconds": c["dwell"].sum(),
                                 "satisfied_clicks": c["sat"].sum()}), how="outer")
    return out.fillna(0)


def test_equals_a_pandas_merge_asof_reference_on_a_larger_log():
    df = random_log(np.random.default_rng(17), n_users=600, max_events=80)
    ref = pandas_reference(df)
    got = event_metrics(df, metrics=["ctr", "abandonment", "reformulation",
                                     "time_to_first_click", "dwell", "satisfied_clicks"])
    table = got.table.set_index("user").loc[ref.index]
    for col in ref.columns:
        np.testing.assert_allclose(table[col].to_numpy(dtype=float),
                                   ref[col].to_numpy(dtype=float), rtol=0, atol=1e-6,
                                   err_msg=col)
    assert len(df) > 20_000


def sessionize(df, gap):
    """The log with each user's sessions numbered from 0, cut at gaps > ``gap``, by a loop."""
    out = df.copy()
    by_user = defaultdict(list)
    for i, r in enumerate(df.to_dict("records")):
        by_user[r["user"]].append((r["timestamp"], r["event"] != "query", i))
    session = np.zeros(len(df), dtype=np.int64)
    for evs in by_user.values():
        evs.sort()
        current, last = 0, None
        for t, _, i in evs:
            if last is not None and t - last > gap:
                current += 1
            session[i], last = current, t
    out["session"] = session
    return out


@pytest.mark.parametrize("unit", ["user", "session"])
@pytest.mark.parametrize("gap", [7.0, 3600.0])
def test_sessions_from_gaps_equal_the_oracle(unit, gap):
    df = random_log(np.random.default_rng(int(gap)), n_users=40).drop(columns="session")
    conv = {"abandonment": "session", "time_to_click": "session"}
    metrics = None if unit == "user" else ["ctr", "abandonment", "reformulation",
                                           "time_to_first_click", "dwell", "conversion"]
    res = event_metrics(df, unit=unit, session=None, session_gap=gap, metrics=metrics, **conv)
    assert_matches(res, oracle(sessionize(df, gap), unit=unit, **conv), unit=unit)
    assert res.conventions["sessions"] == f"gaps > {gap:g} s"
    if unit == "session":
        assert list(res.table.columns[:3]) == ["user", "session", "arm"]


def test_ids_that_do_not_fit_one_sort_key_give_the_same_table():
    # float ids and huge integer ids take numpy.lexsort instead of the one-key sort
    df = random_log(np.random.default_rng(12))
    df["uid"] = df["user"].str[1:].astype(np.int64)
    base = event_metrics(df, user="uid", item="item").table.drop(columns="uid")
    for ids in (df["uid"] * 1.5, df["uid"] * 10**17):
        got = event_metrics(df.assign(uid=ids), user="uid", item="item").table
        pd.testing.assert_frame_equal(got.drop(columns="uid"), base)
