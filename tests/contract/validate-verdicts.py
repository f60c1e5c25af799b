#!/usr/bin/env python3
"""Validate the verdict documents of cmax rate, sla and accept.

usage: validate-verdicts.py FILE...

Each FILE is checked against the JSON Schema its "schema" field names
(docs/schema/rate.schema.json for cmax.rate/1, rate-compare.schema.json for
cmax.rate.compare/1, sla.schema.json for cmax.sla/1, accept.schema.json for
cmax.accept/1; Draft 2020-12), then against what a schema cannot say:

  rate     category score = weighted mean of its items with evidence,
           confidence = their share of the weight, the same one level up;
           figure scores from their anchors; the tier is the uncapped tier
           lowered by exactly the disqualifiers applied (Unavailable stays);
           the goodput total is the sum of the measured lines
  compare  ranks 1..n by tier, then score; each summary is its rating's;
           category ranks; every embedded rating as a cmax.rate/1 document
  sla      per unit of every scope: eligible = period - excluded,
           availability = 1 - downtime / eligible (unknown when nothing is
           eligible), downtime = the counted intervals and never above the
           eligible time; credit tiers, targets, termination, summaries,
           the layout's counts, the credits owed and their GPU-hours
  accept   counts = the tests' statuses; the verdict, the retest list and
           its date from those statuses, the attempt and the dates

Every problem is printed as "# FILE: problem" (a TAP diagnostic line, so the
shell tests can show it); the exit status is 1 when there was any, 0 when
every file is valid, 2 on usage.
"""
import calendar
import datetime
import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = os.path.join(HERE, "..", "..", "docs", "schema")
SCHEMAS = {
    "cmax.rate/1": "rate.schema.json",
    "cmax.rate.compare/1": "rate-compare.schema.json",
    "cmax.sla/1": "sla.schema.json",
    "cmax.accept/1": "accept.schema.json",
}
_validators = {}


def schema_errors(doc, name):
    if name not in _validators:
        with open(os.path.join(SCHEMA_DIR, SCHEMAS[name])) as f:
            _validators[name] = jsonschema.Draft202012Validator(json.load(f))
    errs = sorted(_validators[name].iter_errors(doc), key=lambda e: [str(p) for p in e.path])
    return ["/%s: %s" % ("/".join(map(str, e.path)), e.message[:300]) for e in errs]


def close(a, b, tol):
    return a is not None and b is not None and abs(a - b) <= tol


# ---- cmax.rate/1 -------------------------------------------------------------------

TIERS = ["Platinum", "Gold", "Silver", "Bronze", "Participation Ribbon",
         "Not Recommended - Underperforming", "Not Recommended - Unavailable"]
UNAVAILABLE = TIERS[-1]
SCORE_TOL = 1e-3  # every number is rounded to 4 decimals
CONF_TOL = 5e-4


def wmean(pairs):
    """Weighted mean of (weight, value) pairs, None without weight."""
    w = sum(p[0] for p in pairs)
    return sum(p[0] * p[1] for p in pairs) / w if w > 0 else None


def figure_score(it):
    if it["never"]:
        return 0.0
    if it.get("absent"):
        return it["absent_score"]
    v, good, bad = it["value"], it["good"], it["bad"]
    if v is None or good == bad:
        return None
    t = (bad - v) / (bad - good)
    floor = it.get("floor", 0.0)
    return floor + (100.0 - floor) * min(1.0, max(0.0, t))


def check_item(cid, it, out):
    where = it["id"]
    if not where.startswith(cid + "."):
        out.append("%s: an item of category %s must be named %s.ID" % (where, cid, cid))
    if it["kind"] == "checks":
        counted = [r for r in it["rows"] if r["counted"]]
        if it["evidence"] != bool(counted):
            out.append("%s: evidence is %s but %d rows counted" % (where, it["evidence"], len(counted)))
    for r in it.get("rows", []):
        # a SKIP may count only as "absent" (an NVL72 return not required), never with a value
        if r["counted"] and (r["status"] == "ERROR" or (r["status"] == "SKIP" and not r.get("absent"))):
            out.append("%s: a %s row (%s) is counted: SKIP and ERROR are listed, never scored" % (where, r["status"], r["id"]))
        if r["counted"] and r.get("malformed"):
            out.append("%s: row %s holds malformed evidence (%s) and is counted" % (where, r["id"], r["malformed"]))
    if it["kind"] == "attestation" and it["evidence"] != (it["attestation"] is not None):
        out.append("%s: evidence is %s but the attestation field is %s" % (where, it["evidence"], it["attestation"]))
    if it["kind"] == "figure" and it["evidence"]:
        if it["value"] is None and not it["never"] and not it.get("absent"):
            out.append("%s: evidence without a value, not never and not absent" % where)
        want = figure_score(it)
        span = abs(it["bad"] - it["good"]) or 1
        if want is not None and not close(it["score"], want, SCORE_TOL + 1e-2 / span):
            out.append("%s: score %s, but %s between good %s and bad %s scores %.4f" %
                       (where, it["score"], "never" if it["never"] else it["value"], it["good"], it["bad"], want))


def check_rate(doc, out):
    cats = doc["categories"]
    ids = [c["id"] for c in cats]
    if len(set(ids)) != len(ids):
        out.append("categories: an id appears twice: %s" % ids)
    n_ev = n_meas = 0
    for c in cats:
        items = c["items"]
        for it in items:
            check_item(c["id"], it, out)
        ev = [it for it in items if it["evidence"]]
        if c["items_counted"] != len(ev) or c["items_missing"] != len(items) - len(ev):
            out.append("%s: items_counted %d / items_missing %d, but %d of %d items have evidence" %
                       (c["id"], c["items_counted"], c["items_missing"], len(ev), len(items)))
        wall = sum(it["weight"] for it in items)
        # an item earns its weight times its own confidence (quick-mode rows count less)
        conf = sum(it["weight"] * it.get("confidence", 1.0) for it in ev) / wall if wall > 0 else 0.0
        if not close(c["confidence"], conf, CONF_TOL):
            out.append("%s: confidence %s, but the items with evidence hold %.4f of the weight" % (c["id"], c["confidence"], conf))
        score = wmean([(it["weight"], it["score"]) for it in ev])
        if (score is None) != (c["score"] is None) or (score is not None and not close(c["score"], score, SCORE_TOL)):
            out.append("%s: score %s, but the weighted mean of its items with evidence is %s" %
                       (c["id"], c["score"], None if score is None else round(score, 4)))
        if c["score"] is not None and c["weight"] > 0:
            n_ev += 1
            n_meas += any(it["kind"] != "attestation" for it in ev)
    if doc["categories_with_evidence"] != n_ev:
        out.append("categories_with_evidence is %d, but %d weighted categories have a score" % (doc["categories_with_evidence"], n_ev))
    if doc["categories_measured"] != n_meas:
        out.append("categories_measured is %d, but %d have hands-on evidence" % (doc["categories_measured"], n_meas))
    wall = sum(c["weight"] for c in cats)
    conf = sum(c["weight"] * c["confidence"] for c in cats) / wall if wall > 0 else 0.0
    if not close(doc["confidence"], conf, CONF_TOL):
        out.append("confidence %s, but the weighted mean of the category confidences is %.4f" % (doc["confidence"], conf))
    score = wmean([(c["weight"], c["score"]) for c in cats if c["score"] is not None and c["weight"] > 0])
    if (score is None) != (doc["score"] is None) or (score is not None and not close(doc["score"], score, SCORE_TOL)):
        out.append("score %s, but the weighted mean of the categories with evidence is %s" %
                   (doc["score"], None if score is None else round(score, 4)))

    # the tier: the uncapped tier, lowered by exactly the disqualifiers applied
    applied = [(q["id"], q["cap"]) for q in doc["disqualifiers"] if q["state"] == "applied"]
    listed = [(q["id"], q["cap"]) for q in doc["capped_by"]]
    if applied != listed:
        out.append("capped_by lists %s, but the disqualifiers applied are %s" % (listed, applied))
    dq_ids = [q["id"] for q in doc["disqualifiers"]]
    if len(set(dq_ids)) != len(dq_ids):
        out.append("disqualifiers: an id appears twice: %s" % dq_ids)
    unc = doc["tier_uncapped"]
    if unc == UNAVAILABLE:
        want = UNAVAILABLE
    else:
        want = TIERS[max([TIERS.index(unc)] + [TIERS.index(cap) for _, cap in listed])]
        if doc["score"] is None:
            out.append("tier_uncapped %s without a score: only Unavailable can be" % unc)
    if doc["tier"] != want:
        out.append("tier %s, but %s capped by %s is %s" % (doc["tier"], unc, [c for _, c in listed] or "nothing", want))
    # what fixing each disqualifier gives: the uncapped tier under the other caps
    for k, q in enumerate(doc["capped_by"]):
        others = [TIERS.index(c) for j, (_, c) in enumerate(listed) if j != k]
        would = UNAVAILABLE if unc == UNAVAILABLE else TIERS[max([TIERS.index(unc)] + others)]
        if "would_rate" in q and q["would_rate"] != would:
            out.append("capped_by %s: would_rate %s, but %s under the other caps is %s" % (q["id"], q["would_rate"], unc, would))
    if n_ev == 0 and doc["tier"] != UNAVAILABLE:
        out.append("tier %s without a category with evidence" % doc["tier"])

    # goodput: the total is the measured lines; a line not measured makes it a lower bound
    g = doc["goodput"]
    a = {k: v["value"] for k, v in g["assumptions"].items()}
    lines = g["lines"]
    causes = [l["cause"] for l in lines]
    if len(set(causes)) != len(causes):
        out.append("goodput: a cause appears twice: %s" % causes)
    measured = [l for l in lines if l["state"] == "measured"]
    total = sum(l["gpu_hours_per_month"] for l in measured)
    if not close(g["total_gpu_hours_per_month"], total, 1e-3):
        out.append("goodput total %s GPU-h, but the measured lines add up to %.4f" % (g["total_gpu_hours_per_month"], total))
    if g["lower_bound"] != (len(measured) < len(lines)):
        out.append("goodput lower_bound is %s with %d of %d lines measured" % (g["lower_bound"], len(measured), len(lines)))
    rent = a["gpus"] * a["hours_per_month"]
    if not close(g["rent_gpu_hours_per_month"], rent, 1e-3):
        out.append("goodput rent %s, but gpus x hours_per_month is %s" % (g["rent_gpu_hours_per_month"], rent))
    if rent > 0:
        for l in measured:
            if not close(l["pct_of_rent"], l["gpu_hours_per_month"] / rent * 100, 1e-3):
                out.append("goodput %s: pct_of_rent %s of a rent of %s GPU-h" % (l["cause"], l["pct_of_rent"], rent))
        if not close(g["total_pct_of_rent"], g["total_gpu_hours_per_month"] / rent * 100, 1e-3):
            out.append("goodput total_pct_of_rent %s does not follow from the total" % g["total_pct_of_rent"])
    price = a["price_per_gpu_hour"]
    money = [g["total_money_per_month"]] + [l["money_per_month"] for l in measured]
    if price is None:
        if any(m is not None for m in money) or g["effective_price_per_productive_gpu_hour"] is not None:
            out.append("goodput: money without a price")
    else:
        tol = 1e-3 * max(1.0, price)
        if not close(g["total_money_per_month"], g["total_gpu_hours_per_month"] * price, tol):
            out.append("goodput total_money_per_month %s is not the total x %s" % (g["total_money_per_month"], price))
        for l in measured:
            if not close(l["money_per_month"], l["gpu_hours_per_month"] * price, tol):
                out.append("goodput %s: money_per_month %s is not its GPU-h x %s" % (l["cause"], l["money_per_month"], price))
        pct = g["total_pct_of_rent"]
        eff = g["effective_price_per_productive_gpu_hour"]
        if pct < 100 and not close(eff, price / (1 - pct / 100), tol):
            out.append("goodput effective price %s, but %s / (1 - %s%%) is %.4f" % (eff, price, pct, price / (1 - pct / 100)))


def check_compare(doc, out):
    provs = doc["providers"]
    ranks = [p["rank"] for p in provs]
    if ranks != list(range(1, len(provs) + 1)):
        out.append("providers: ranks %s, expected 1..%d best first" % (ranks, len(provs)))
    for x, y in zip(provs, provs[1:]):
        tx, ty = TIERS.index(x["tier"]), TIERS.index(y["tier"])
        sx = -1 if x["score"] is None else x["score"]
        sy = -1 if y["score"] is None else y["score"]
        if tx > ty or (tx == ty and sx < sy):
            out.append("providers: %s (%s, %s) ranked above %s (%s, %s): ranked by tier, then score" %
                       (x["provider"], x["tier"], x["score"], y["provider"], y["tier"], y["score"]))
    for p in provs:
        r = p["rating"]
        errs = schema_errors(r, "cmax.rate/1")
        if errs:
            out.extend("provider %s: rating%s" % (p["provider"], e) for e in errs)
            continue
        sub = []
        check_rate(r, sub)
        out.extend("provider %s: rating: %s" % (p["provider"], e) for e in sub)
        for k in ("tier", "score", "confidence"):
            if p[k] != r[k]:
                out.append("provider %s: %s %s, but its rating says %s" % (p["provider"], k, p[k], r[k]))
        if r["rubric"]["version"] != doc["rubric"]["version"]:
            out.append("provider %s: rated with rubric %s, the comparison names %s" %
                       (p["provider"], r["rubric"]["version"], doc["rubric"]["version"]))
        rc = {c["id"]: c for c in r["categories"]}
        for cid in doc["categories"]:
            e = p["categories"][cid]
            if cid not in rc or e["score"] != rc[cid]["score"] or e["confidence"] != rc[cid]["confidence"]:
                out.append("provider %s: category %s differs from its rating" % (p["provider"], cid))
            others = [q["categories"][cid]["score"] for q in provs if q is not p and q["categories"][cid]["score"] is not None]
            if e["score"] is None:
                if e["rank"] is not None:
                    out.append("provider %s: category %s ranked %s without a score" % (p["provider"], cid, e["rank"]))
            else:
                # ties share a rank: 1 + the providers above; rounding may hide a difference, so a band
                lo = 1 + sum(s > e["score"] for s in others)
                hi = 1 + sum(s >= e["score"] for s in others)
                if e["rank"] is None or not lo <= e["rank"] <= hi:
                    out.append("provider %s: category %s score %s ranked %s, expected %s" %
                               (p["provider"], cid, e["score"], e["rank"], lo if lo == hi else "%d..%d" % (lo, hi)))
    if sorted(doc["categories"]) != sorted(provs[0]["categories"]):
        out.append("categories %s are not the providers' categories" % doc["categories"])


# ---- cmax.sla/1 --------------------------------------------------------------------

SCOPES = ["node", "rack", "cluster", "site"]
PCT_TOL = 1e-5  # percentages are rounded to 6 decimals


def iso_ms(t):
    """RFC 3339 UTC (the schema's pattern) to milliseconds since the epoch."""
    ms = int(t[20:23]) if len(t) > 20 else 0
    return calendar.timegm((int(t[0:4]), int(t[5:7]), int(t[8:10]), int(t[11:13]), int(t[14:16]), int(t[17:19]))) * 1000 + ms


def tier_credit(tiers, avail):
    best = 0.0
    for t in tiers:
        if avail < t["below"] and t["credit_pct"] > best:
            best = t["credit_pct"]
    return best


def near_boundary(avail, bounds):
    return any(b is not None and abs(avail - b) <= PCT_TOL for b in bounds)


def check_sla(doc, out):
    per = doc["period"]
    t0, t1 = iso_ms(per["from"]), iso_ms(per["to"])
    period = per["seconds"]
    if not close((t1 - t0) / 1000.0, period, 1e-3):
        out.append("period: %s s, but %s .. %s is %.3f s" % (period, per["from"], per["to"], (t1 - t0) / 1000.0))
    if not close(per["hours"], period / 3600.0, 1e-6):
        out.append("period: %s hours for %s s" % (per["hours"], period))
    lv = doc["level"]
    units = doc["units"]
    by_name = {s: {u["name"]: u for u in units[s]} for s in SCOPES}
    for s in SCOPES:
        if len(by_name[s]) != len(units[s]):
            out.append("units.%s: a name appears twice" % s)
        target = lv["targets"].get(s)
        term = lv["termination"].get(s)
        for u in units[s]:
            w = "units.%s %s" % (s, u["name"])
            down, excl, elig, av = u["downtime_s"], u["excluded_s"], u["eligible_s"], u["availability_pct"]
            if not close(elig, period - excl, 1e-3):
                out.append("%s: eligible %s s, but the period %s s less %s s excluded is %s" % (w, elig, period, excl, period - excl))
            if excl > period + 1e-3:
                out.append("%s: %s s excluded of a %s s period" % (w, excl, period))
            if down > elig + 1e-3:
                out.append("%s: downtime %s s exceeds the eligible time %s s (period %s s)" % (w, down, elig, period))
            if elig > 0:
                want = 100.0 * (1 - down / elig)
                if not close(av, want, PCT_TOL):
                    out.append("%s: availability %s%%, but 1 - %s / (%s - %s) is %.6f%%" % (w, av, down, period, excl, want))
            elif av is not None:
                out.append("%s: availability %s with nothing eligible (must be unknown)" % (w, av))
            # the counted intervals are the downtime, each inside the period, in order, not overlapping
            counted = 0.0
            prev_end = None
            for iv in u["intervals"]:
                a, b = iso_ms(iv["start"]), iso_ms(iv["end"])
                cut = sum(x["seconds"] for x in iv["excluded"])
                counted += iv["counted_s"]
                if a < t0 or b > t1 or b < a:
                    out.append("%s: interval %s .. %s is not inside the period" % (w, iv["start"], iv["end"]))
                if prev_end is not None and a < prev_end:
                    out.append("%s: interval %s starts before the one before it ends" % (w, iv["start"]))
                prev_end = b
                if not close(iv["seconds"], (b - a) / 1000.0, 1e-3):
                    out.append("%s: interval %s .. %s is %s s long, not %s" % (w, iv["start"], iv["end"], (b - a) / 1000.0, iv["seconds"]))
                if not close(iv["counted_s"], iv["seconds"] - cut, 1e-3):
                    out.append("%s: interval %s counts %s s of %s s with %s s excluded" % (w, iv["start"], iv["counted_s"], iv["seconds"], cut))
            if not close(counted, down, 1e-3):
                out.append("%s: downtime %s s, but its intervals count %s s" % (w, down, counted))
            # grades: unknown availability grades nothing
            if av is None:
                for k in ("credit_pct", "below_target", "below_termination"):
                    if u[k] is not None:
                        out.append("%s: %s is %s with availability unknown" % (w, k, u[k]))
                continue
            if u["target_pct"] != target:
                out.append("%s: target %s, the level's is %s" % (w, u["target_pct"], target))
            edge = near_boundary(av, [target, term] + [t["below"] for t in lv["credits"][s]])
            if target is None:
                if u["below_target"] is not None:
                    out.append("%s: below_target %s without a target" % (w, u["below_target"]))
            elif u["below_target"] != (av < target) and not edge:
                out.append("%s: below_target %s at %s%% against %s%%" % (w, u["below_target"], av, target))
            if term is None:
                if u["below_termination"] is not None:
                    out.append("%s: below_termination %s without a threshold" % (w, u["below_termination"]))
            elif u["below_termination"] != (av < term) and not edge:
                out.append("%s: below_termination %s at %s%% against %s%%" % (w, u["below_termination"], av, term))
            want = tier_credit(lv["credits"][s], av)
            if not close(u["credit_pct"], want, PCT_TOL) and not edge:
                out.append("%s: credit %s%% at %s%%, the level's tiers give %s%%" % (w, u["credit_pct"], av, want))

    # the layout: parents exist, counts and GPUs add up
    lay = doc["layout"]
    for s, key in zip(SCOPES, ("nodes", "racks", "clusters", "sites")):
        if lay[key] != len(units[s]):
            out.append("layout: %d %s, units.%s has %d" % (lay[key], key, s, len(units[s])))
    if lay["gpus"] != sum(u["gpus"] for u in units["node"]):
        out.append("layout: %s GPUs, the nodes have %d" % (lay["gpus"], sum(u["gpus"] for u in units["node"])))
    for i, s in enumerate(SCOPES[:-1]):
        parent = SCOPES[i + 1]
        kids = {}
        for u in units[s]:
            if u[parent] not in by_name[parent]:
                out.append("units.%s %s: %s %s is not in the layout" % (s, u["name"], parent, u[parent]))
            kids.setdefault(u[parent], []).append(u)
        for p in units[parent]:
            k = kids.get(p["name"], [])
            nodes = len(k) if s == "node" else sum(x["nodes"] for x in k)
            if (p["units"], p["nodes"], p["gpus"]) != (len(k), nodes, sum(x["gpus"] for x in k)):
                out.append("units.%s %s: %s units, %s nodes, %s GPUs, but holds %d %ss with %d nodes and %d GPUs" %
                           (parent, p["name"], p["units"], p["nodes"], p["gpus"], len(k), s, nodes, sum(x["gpus"] for x in k)))

    # summaries
    for s in SCOPES:
        sm, us = doc["summary"][s], units[s]
        known = [u for u in us if u["availability_pct"] is not None]
        want = {"units": len(us), "with_downtime": sum(u["downtime_s"] > 0 for u in us),
                "below_target": sum(u["below_target"] is True for u in us),
                "availability_unknown": len(us) - len(known)}
        for k, v in want.items():
            if sm[k] != v:
                out.append("summary.%s.%s is %s, the units give %s" % (s, k, sm[k], v))
        if not close(sm["downtime_s"], sum(u["downtime_s"] for u in us), 1e-3):
            out.append("summary.%s.downtime_s is not the sum of the units'" % s)
        if not known:
            if sm["worst"] is not None:
                out.append("summary.%s.worst without a unit of known availability" % s)
        else:
            low = min(u["availability_pct"] for u in known)
            wu = by_name[s].get(sm["worst"]["name"]) if sm["worst"] else None
            if wu is None or wu["availability_pct"] != low or sm["worst"]["availability_pct"] != low \
                    or sm["worst"]["downtime_s"] != wu["downtime_s"]:
                out.append("summary.%s.worst is %s, but the lowest availability is %s%%" % (s, sm["worst"], low))

    # credits: per node the highest of its scopes, capped; GPU-hours and the share of the fee
    cap = lv["credit_cap_pct"]
    hours = per["hours"]
    owed = {}
    for n in units["node"]:
        chain, u = [n], n
        for i, s in enumerate(SCOPES[:-1]):
            u = by_name[SCOPES[i + 1]].get(u[SCOPES[i + 1]])
            if u is None:
                break
            chain.append(u)
        cps = [c["credit_pct"] for c in chain if c["credit_pct"] is not None]
        want = min(cap, max(cps)) if cps else None
        if (want is None) != (n["credit_owed_pct"] is None) or (want is not None and not close(n["credit_owed_pct"], want, PCT_TOL)):
            out.append("units.node %s: credit owed %s%%, the highest of its node, rack, cluster and site credits capped at %s%% is %s" %
                       (n["name"], n["credit_owed_pct"], cap, want))
        owed[n["name"]] = n["credit_owed_pct"]
    cr = doc["credits"]
    known = [n for n in units["node"] if n["credit_owed_pct"] is not None]
    gh = sum(n["credit_owed_pct"] / 100.0 * n["gpus"] * hours for n in known)
    if not close(cr["gpu_hours"], gh, 1e-3 + 1e-9 * gh):
        out.append("credits: %s GPU-hours, the nodes owed add up to %.3f" % (cr["gpu_hours"], gh))
    gsum = sum(n["gpus"] for n in known)
    pct = sum(n["credit_owed_pct"] * n["gpus"] for n in known) / gsum if gsum else 0.0
    if not close(cr["pct_of_fee"], pct, PCT_TOL):
        out.append("credits: %s%% of the fee, the GPU-weighted credits owed give %.6f%%" % (cr["pct_of_fee"], pct))
    if cr["nodes_unknown"] != len(units["node"]) - len(known):
        out.append("credits: nodes_unknown %s, %d nodes have no credit known" % (cr["nodes_unknown"], len(units["node"]) - len(known)))
    if not close(cr["fee_gpu_hours"], hours * lay["gpus"], 1e-3):
        out.append("credits: fee %s GPU-hours for %s GPUs over %s h" % (cr["fee_gpu_hours"], lay["gpus"], hours))
    if cr["amount"] is not None and not close(cr["amount"], cr["gpu_hours"] * cr["price_per_gpu_hour"], 0.01 + 1e-3 * cr["price_per_gpu_hour"]):
        out.append("credits: amount %s is not %s GPU-hours x %s" % (cr["amount"], cr["gpu_hours"], cr["price_per_gpu_hour"]))
    listed = {x["node"]: x for x in cr["nodes"]}
    for name, o in owed.items():
        if o != 0 and name not in listed:
            out.append("credits.nodes: %s is owed %s%% but not listed" % (name, o))
    for name, x in listed.items():
        if name not in owed or x["credit_pct"] != owed[name] or owed[name] == 0:
            out.append("credits.nodes: %s listed at %s%%, its unit owes %s" % (name, x["credit_pct"], owed.get(name)))

    # termination: a rule per scope with a threshold, crossed by the units below it
    rules = doc["termination"]["rules"]
    if [r["scope"] for r in rules] != [s for s in SCOPES if s in lv["termination"]]:
        out.append("termination: rules for %s, the level sets %s" % ([r["scope"] for r in rules], sorted(lv["termination"])))
    unknown = False
    for r in rules:
        below = [u["name"] for u in units[r["scope"]] if u["below_termination"] is True]
        unknown |= any(u["below_termination"] is None for u in units[r["scope"]])
        if [u["name"] for u in r["units"]] != below or r["crossed"] != bool(below):
            out.append("termination %s: crossed %s by %s, the units below %s%% are %s" %
                       (r["scope"], r["crossed"], [u["name"] for u in r["units"]], r["below_pct"], below))
    want = True if any(r["crossed"] for r in rules) else (None if unknown else False)
    if doc["termination"]["crossed"] != want:
        out.append("termination: crossed %s, the rules give %s" % (doc["termination"]["crossed"], want))

    # issues counted, the level compared with itself, the result rows
    iss = doc["issues"]
    for k, n in iss["counts"].items():
        if k in iss and len(iss[k]) != n:
            out.append("issues.counts.%s is %s, %d listed" % (k, n, len(iss[k])))
    mine = [l for l in doc["levels"] if l["name"] == lv["name"]]
    if len(mine) != 1:
        out.append("levels: the level used (%s) is not compared exactly once" % lv["name"])
    else:
        m = mine[0]
        for k in ("gpu_hours", "pct_of_fee", "amount"):
            if m["credits"][k] != cr[k]:
                out.append("levels %s: credits.%s %s, the report says %s" % (lv["name"], k, m["credits"][k], cr[k]))
        if m["termination_crossed"] != doc["termination"]["crossed"]:
            out.append("levels %s: termination_crossed differs from the report" % lv["name"])
        for s in SCOPES:
            sm = doc["summary"][s]
            if m["scopes"][s]["below_target"] != sm["below_target"] or \
                    m["scopes"][s]["worst_pct"] != (sm["worst"]["availability_pct"] if sm["worst"] else None):
                out.append("levels %s: scope %s differs from the summary" % (lv["name"], s))
    rows = {r["id"]: r["status"] for r in doc["results"]}
    for s in SCOPES:
        sm = doc["summary"][s]
        want = "SKIP" if s not in lv["targets"] or sm["worst"] is None else "FAIL" if sm["below_target"] else "PASS"
        if rows.get("sla.availability." + s) != want:
            out.append("results: sla.availability.%s is %s, the summary gives %s" % (s, rows.get("sla.availability." + s), want))
    t = doc["termination"]["crossed"]
    want = "SKIP" if not rules or t is None else "FAIL" if t else "PASS"
    if rows.get("sla.termination") != want:
        out.append("results: sla.termination is %s, termination gives %s" % (rows.get("sla.termination"), want))
    bad = iss["counts"]["malformed"] + iss["counts"]["unknown_node"] + iss["counts"]["unmapped_state"]
    if rows.get("sla.inputs") != ("WARN" if bad else "PASS"):
        out.append("results: sla.inputs is %s with %d malformed, unknown-node or unmapped records" % (rows.get("sla.inputs"), bad))


# ---- cmax.accept/1 -----------------------------------------------------------------

def day_num(d):
    return datetime.date(int(d[0:4]), int(d[5:7]), int(d[8:10])).toordinal()


def day_str(n):
    return datetime.date.fromordinal(n).isoformat()


def check_accept(doc, out):
    plan, tests = doc["plan"], doc["tests"]
    ids = [t["id"] for t in tests]
    if len(set(ids)) != len(ids):
        out.append("tests: an id appears twice: %s" % ids)
    counts = {k: sum(t["status"] == k for t in tests) for k in ("PASS", "FAIL", "INCOMPLETE")}
    counts["total"] = len(tests)
    if doc["counts"] != counts:
        out.append("counts %s, the tests give %s" % (doc["counts"], counts))
    if doc["max_attempts"] != plan["retest"]["max_attempts"] or doc["retest_scope"] != plan["retest"]["scope"]:
        out.append("max_attempts / retest_scope differ from the plan's retest rule")
    prev = doc["previous"]
    if (prev["attempt"] + 1 if prev else 1) != doc["attempt"]:
        out.append("attempt %d after %s" % (doc["attempt"], "attempt %d" % prev["attempt"] if prev else "no previous attempt"))
    for t in tests:
        w = "test %s" % t["id"]
        st = [c["status"] for c in t["criteria"]]
        if t["documents"] and "FAIL" in st and t["status"] != "FAIL":
            out.append("%s: %s with a failed criterion (a measured violation outranks missing evidence)" % (w, t["status"]))
        if t["carried"]:
            if t["status"] != "PASS" or t["attempt"] >= doc["attempt"]:
                out.append("%s: carried from attempt %d as %s into attempt %d" % (w, t["attempt"], t["status"], doc["attempt"]))
        elif t["attempt"] != doc["attempt"]:
            out.append("%s: judged in attempt %d of a document of attempt %d" % (w, t["attempt"], doc["attempt"]))
        if t["run"] is not None and t["run"]["budget_s"] != t["duration_s"] and not t["carried"]:
            out.append("%s: run with a budget of %s s, the test's duration is %s s" % (w, t["run"]["budget_s"], t["duration_s"]))
        # impossible evidence is never judged; evidence set aside is never used
        for c in t["criteria"]:
            if c["status"] == "PASS" and isinstance(c["observed"], dict) and c["observed"].get("malformed"):
                out.append("%s: %s PASSes with malformed evidence %s" % (w, c["criterion"], c["observed"]["malformed"]))
        aside = {a["document"] for a in t.get("set_aside", [])}
        if aside & set(t["documents"]):
            out.append("%s: %s both set aside and used as evidence" % (w, sorted(aside & set(t["documents"]))))

    date = doc["date"]
    if date is None:
        out.append("date unknown: the verdict cannot be checked")
        return
    due = day_num(plan["acceptance_date"])
    if doc["days_to_acceptance_date"] != due - day_num(date):
        out.append("days_to_acceptance_date %s, but %s - %s is %d" %
                   (doc["days_to_acceptance_date"], plan["acceptance_date"], date, due - day_num(date)))
    late = day_num(date) > due
    window_missed = bool(prev and prev["retest_due_by"]) and day_num(date) > day_num(prev["retest_due_by"]) and not late
    allpass = counts["PASS"] == len(tests)
    if allpass and not late and not window_missed:
        want = "ACCEPTED"
    elif late or window_missed or doc["attempt"] >= doc["max_attempts"]:
        want = "NOT ACCEPTED"
    else:
        want = "RETEST REQUIRED"
    v = doc["verdict"]["status"]
    if v != want:
        out.append("verdict %s, but %d of %d tests PASS, attempt %d of %d, %s%s: %s" %
                   (v, counts["PASS"], len(tests), doc["attempt"], doc["max_attempts"],
                    "after the acceptance date" if late else "on time",
                    ", retest window missed" if window_missed else "", want))
    if v == "RETEST REQUIRED":
        bad = [t for t in tests if t["status"] != "PASS"]
        scope = doc["retest_scope"]
        groups = {t["group"] for t in bad}
        wanted = [t["id"] for t in tests if scope == "all" or t["status"] != "PASS" or
                  (scope == "group" and t["group"] in groups)]
        if doc["retest"] != wanted:
            out.append("retest %s, scope %s gives %s" % (doc["retest"], scope, wanted))
        by = due
        if plan["retest"]["window_days"] is not None:
            by = min(due, day_num(date) + plan["retest"]["window_days"])
        if doc["retest_by"] != day_str(by):
            out.append("retest_by %s, expected %s (the window from %s or the acceptance date)" % (doc["retest_by"], day_str(by), date))
    elif doc["retest"] or doc["retest_by"] is not None:
        out.append("%s with a retest list %s (by %s)" % (v, doc["retest"], doc["retest_by"]))


# ---- driver --------------------------------------------------------------------------

CHECKS = {"cmax.rate/1": check_rate, "cmax.rate.compare/1": check_compare, "cmax.sla/1": check_sla,
          "cmax.accept/1": check_accept}


def check(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return ["cannot read: %s" % e]
    name = doc.get("schema") if isinstance(doc, dict) else None
    if name not in SCHEMAS:
        return ["schema %r is not one of %s" % (name, ", ".join(SCHEMAS))]
    errs = schema_errors(doc, name)
    if errs:
        return errs  # the invariants assume the shape
    out = []
    try:
        CHECKS[name](doc, out)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:  # a shape the schema let through
        out.append("cannot check the invariants: %s: %s" % (type(e).__name__, e))
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 2
    rc = 0
    for p in argv:
        for e in check(p):
            print("# %s: %s" % (p, e))
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
