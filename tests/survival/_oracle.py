"""Slow, obviously correct survival metrics: double loops over pairs, written from the
definitions, sharing no code with skrank.survival."""

from __future__ import annotations


def km_censoring(event, time):
    """[(t_k, G(t_k))]: Kaplan-Meier of censoring, events before censorings at one time."""
    steps = []
    g = 1.0
    for t in sorted(set(time)):
        at_risk = sum(1 for s in time if s >= t)
        d = sum(1 for s, e in zip(time, event) if s == t and e)
        c = sum(1 for s, e in zip(time, event) if s == t and not e)
        if c:
            g *= 1.0 - c / (at_risk - d)
        steps.append((t, g))
    return steps


def step_at(steps, t):
    value = 1.0
    for s, g in steps:
        if s <= t:
            value = g
    return value


def concordance(event, time, risk, *, tol=1e-8, tied_risk="half", tied_time="censored_later",
                weights=None, tau=None):
    """(value, concordant, discordant, tied, tied_time) over ordered pairs (i earlier event)."""
    con = dis = tie = tt = 0
    wc = wd = wt = 0.0
    n = len(time)
    for i in range(n):
        if not event[i] or (tau is not None and time[i] >= tau):
            continue
        w = 1.0 if weights is None else weights[i]
        for j in range(n):
            if i == j:
                continue
            if time[j] > time[i]:
                pass
            elif time[j] == time[i] and not event[j]:
                tt += 1
                if tied_time != "censored_later":
                    continue
            else:
                continue
            if abs(risk[j] - risk[i]) <= tol:
                tie += 1
                wt += w
            elif risk[i] > risk[j]:
                con += 1
                wc += w
            else:
                dis += 1
                wd += w
    share = {"half": 0.5, "concordant": 1.0, "discordant": 0.0}
    if tied_risk == "exclude":
        value = wc / (wc + wd)
    else:
        value = (wc + share[tied_risk] * wt) / (wc + wd + wt)
    return value, con, dis, tie, tt


def uno(train_event, train_time, event, time, risk, *, tau=None, **kw):
    steps = km_censoring(train_event, train_time)
    weights = [1.0 / step_at(steps, t) ** 2 if e else 0.0 for e, t in zip(event, time)]
    return concordance(event, time, risk, weights=weights, tau=tau, **kw)


def auc_at(train_event, train_time, event, time, risk, t):
    """Weighted Mann-Whitney: cases (event by t) weighted 1/G(t_i), controls beyond t; a tied
    case/control pair counts 1/2 (exact ties: keep tol out of the oracle's data)."""
    steps = km_censoring(train_event, train_time)
    num = den = 0.0
    for i in range(len(time)):
        if not (event[i] and time[i] <= t):
            continue
        w = 1.0 / step_at(steps, time[i])
        for j in range(len(time)):
            if time[j] <= t:
                continue
            den += w
            if risk[i] > risk[j]:
                num += w
            elif risk[i] == risk[j]:
                num += 0.5 * w
    return num / den


def brier_at(train_event, train_time, event, time, surv, t):
    steps = km_censoring(train_event, train_time)
    total = 0.0
    for e, s, p in zip(event, time, surv):
        if s <= t and e:
            total += p * p / step_at(steps, s)
        elif s > t:
            total += (1 - p) ** 2 / step_at(steps, t)
    return total / len(time)
