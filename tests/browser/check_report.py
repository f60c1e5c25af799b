#!/usr/bin/env python3
"""Judges the facts cdriver.py read off a `cmax report --html` page against
the JSON documents the page was made from. The expected values are worked
out here from the documents alone, by what each chart kind of the DOM
contract (docs/report.md) plots; the page's raw data-* values are compared
as numbers with a tight relative tolerance (1e-9), times as instants.

    check_report.py FACTS.json --doc LABEL[,LABEL...]=PATH ... [--min-charts N]
                    [--want-kind KIND]... [--want-text STRING]...

One line per assertion on stdout: "ok DESCRIPTION" or "not ok DESCRIPTION"
followed by indented detail lines; exit 0 whatever they say (the caller
turns the lines into TAP). Labels name a document as the page may
(data-source): its path, run:ID, ID.

What each kind is expected to plot (a mark's values must be one of these,
and every one of them must be plotted by some mark):
  nccl-busbw          per nccl row with a curve: (message size, busbw) of
                      observed.curve_size_time_us_busbw_oop_inp, out-of-place
                      or in-place; one series is one row
  storage-throughput  per measured storage row: bw_bytes_per_s or bw_gb_s
                      (x and series, when given, name the case or the client
                      count); per endurance interval: (t_s, bw_bytes_per_s)
  storage-p99         per measured row clat_ns.p99; per interval (t_s, p99_ns)
  endurance-bw        per endurance interval (t_s, bw_bytes_per_s; S3: mb_s)
  audit-summary       rows per status (x or series the status), or per
                      profile and status (a grid: its zeros included)
  sla-timeline        the units' down intervals: series the unit, start, end
  inject-timeline     segments between the timeline's events: every start and
                      end an event's time (ISO) or offset, or the end of the
                      observation; every event's time is some segment's edge
  tier-card           per category its score (x or series the id or name);
                      the overall score
  rate-compare        per provider (series, perhaps after its rank: "1. Alpha
                      Cloud") and category (x) the score
Every number of a mark and of a reference line is a number of its document
(audit-summary's counts of rows excepted: they are counted, not stated)."""
import argparse
import collections
import datetime
import json
import math
import os
import re

REL = 1e-9
OVERALL = ("score", "overall", "total", "tier")
STATUSES = ("PASS", "WARN", "FAIL", "SKIP", "ERROR")


def close(a, b):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=REL, abs_tol=1e-12)


def same_instant(a, b):
    """Instants within a millisecond (a relative tolerance on seconds since
    1970 would allow seconds)."""
    return a is not None and b is not None and abs(a - b) < 1e-3


def num(v):
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    try:
        f = float(str(v).strip())
        return f if math.isfinite(f) else None
    except ValueError:
        return None


ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$")


def instant(v):
    """An ISO time as seconds since the epoch; None for anything else."""
    if not isinstance(v, str) or not ISO.match(v.strip()):
        return None
    s = v.strip().replace("Z", "+00:00")
    try:
        t = datetime.datetime.fromisoformat(s)
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return t.timestamp()


def leaves(doc):
    nums, times = [], []

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str):
            t = instant(v)
            if t is not None:
                times.append(t)
        else:
            n = num(v)
            if n is not None:
                nums.append(n)
    walk(doc)
    return nums, times


def norm(s):
    return re.sub(r"\s+", " ", str(s)).strip().lower() if s is not None else None


class Report:
    def __init__(self):
        self.lines = []

    def check(self, desc, problems):
        problems = [p for p in problems if p]
        self.lines.append(("not ok " if problems else "ok ") + desc)
        for p in problems[:8]:
            self.lines.append("    " + p)
        if len(problems) > 8:
            self.lines.append("    ... and %d more" % (len(problems) - 8))


# ---- expected values per kind: a list of units, each a dict with
# "level" (which family of values it is), "what" (for messages) and
# "match(mark) -> bool"; a mark must match some unit, and every unit of a
# level that some mark matched must be matched

def unit(level, what, match):
    return {"level": level, "what": what, "match": match}


def results(doc):
    return [r for r in doc.get("results") or [] if isinstance(r, dict)]


def x_names_row(m, r):
    x = m["x"]
    if x is None:
        return True
    o = r.get("observed") or {}
    if num(x) is not None:
        return close(num(x), num(o.get("clients")))
    nx = norm(x)
    rid = norm(r.get("id")) or ""
    return nx == rid or nx in rid or nx == norm(r.get("title"))


def series_names_row(m, r):
    """The series of a storage mark, when given, names the case (a part of
    the row's id, or its title) or its client count ("2", "c2", "2 clients")."""
    sr = norm(m["series"])
    if sr is None:
        return True
    o = r.get("observed") or {}
    c = re.fullmatch(r"c?(\d+)( clients?)?", sr)
    if c:
        return close(float(c.group(1)), num(o.get("clients")))
    return sr in (norm(r.get("id")) or "") or sr == norm(r.get("title"))


def nccl_units(doc):
    out = []
    for r in results(doc):
        curve = (r.get("observed") or {}).get("curve_size_time_us_busbw_oop_inp")
        if not isinstance(curve, list):
            continue
        for p in curve:
            size, oop, inp = num(p[0]), num(p[2]), num(p[3])
            out.append(unit("row:" + r["id"], "%s at %g B: %g or %g GB/s" % (r["id"], size, oop, inp),
                            lambda m, size=size, oop=oop, inp=inp: close(num(m["x"]), size)
                            and (close(num(m["y"]), oop) or close(num(m["y"]), inp))))
    return out


def storage_units(doc, figure):
    out = []
    for r in results(doc):
        o = r.get("observed") or {}
        if r.get("status") == "SKIP":
            continue
        if isinstance(o.get("intervals"), list):
            for iv in o["intervals"]:
                t = num(iv.get("t_s"))
                # S3 endurance intervals carry MB/s instead of bytes/s
                y = num(iv.get("bw_bytes_per_s", iv.get("mb_s")) if figure == "bw" else iv.get("p99_ns"))
                out.append(unit("interval", "%s t=%g s: %g" % (r["id"], t, y),
                                lambda m, t=t, y=y: close(num(m["x"]), t) and close(num(m["y"]), y)))
            continue
        if figure == "bw":
            ys = [num(o.get("bw_bytes_per_s")), num(o.get("bw_gb_s"))]
        else:
            ys = [num((o.get("clat_ns") or {}).get("p99"))]
        ys = [y for y in ys if y is not None]
        if not ys:
            continue
        out.append(unit("row", "%s: %s" % (r["id"], " or ".join("%g" % y for y in ys)),
                        lambda m, r=r, ys=ys: any(close(num(m["y"]), y) for y in ys) and x_names_row(m, r)
                        and series_names_row(m, r)))
    return out


def endurance_units(doc):
    return [u for u in storage_units(doc, "bw") if u["level"] == "interval"]


def audit_units(doc):
    rs = results(doc)
    by_status = collections.Counter(str(r.get("status")).upper() for r in rs)
    by_profile = collections.Counter((norm(r.get("profile")), str(r.get("status")).upper()) for r in rs)
    out = []
    for st, n in by_status.items():
        out.append(unit("status", "%s: %d rows" % (st, n),
                        lambda m, st=st, n=n: close(num(m["y"]), n)
                        and st in (str(m["x"]).upper(), str(m["series"]).upper())))
    # a grid of profile x status (stacked bars) has its zeros: a profile
    # with no row of a status has 0 of it, which is the document's too
    profiles = {pr for pr, _ in by_profile}
    for pr in profiles:
        for st in STATUSES:
            by_profile.setdefault((pr, st), 0)
    for (pr, st), n in by_profile.items():
        out.append(unit("profile", "%s %s: %d rows" % (pr, st, n),
                        lambda m, pr=pr, st=st, n=n: close(num(m["y"]), n)
                        and {pr, st.lower()} == {norm(m["x"]), norm(m["series"])}))
    return out


def sla_units(doc):
    out = []
    for scope, us in (doc.get("units") or {}).items():
        for u in us or []:
            for iv in u.get("intervals") or []:
                a, b = instant(iv.get("start")), instant(iv.get("end"))
                out.append(unit("scope:" + scope, "%s %s %s..%s" % (scope, u.get("name"), iv.get("start"), iv.get("end")),
                                lambda m, name=u.get("name"), a=a, b=b:
                                norm(m["series"]) is not None and norm(m["series"]).endswith(norm(name))
                                and same_instant(instant(m["start"]), a) and same_instant(instant(m["end"]), b)))
    return out


def inject_edges(doc):
    tl = doc.get("timeline") or {}
    ev = tl.get("events") or []
    times = [num(v) for v in (tl.get("times") or {}).values() if num(v) is not None]
    t0 = instant(ev[0]["at"]) if ev else None
    isos = [instant(e.get("at")) for e in ev] + ([t0 + t for t in times] if t0 is not None else [])
    offs = [num(e.get("offset_s")) for e in ev] + times
    return ev, [t for t in isos if t is not None], [t for t in offs if t is not None]


def inject_edge_ok(v, isos, offs):
    t = instant(v)
    if t is not None:
        return any(same_instant(t, x) for x in isos)
    n = num(v)
    return n is not None and any(close(n, x) for x in offs)


def inject_units(doc):
    ev, isos, offs = inject_edges(doc)
    out = []
    for e in ev:
        at, off = instant(e.get("at")), num(e.get("offset_s"))
        out.append(unit("event", "event %s at %s (+%s s)" % (e.get("event"), e.get("at"), e.get("offset_s")),
                        lambda m, at=at, off=off: inject_edge_ok(m["start"], isos, offs)
                        and inject_edge_ok(m["end"], isos, offs)
                        and any((instant(v) is not None and same_instant(instant(v), at))
                                or (instant(v) is None and close(num(v), off)) for v in (m["start"], m["end"]))))
    # a segment that ends at the end of the observation touches no event
    # of its own: allowed when both its edges are the timeline's
    out.append(unit("edge", "a segment between the timeline's times",
                    lambda m: inject_edge_ok(m["start"], isos, offs) and inject_edge_ok(m["end"], isos, offs)))
    return out


def tier_units(doc):
    out = []
    for c in doc.get("categories") or []:
        s = num(c.get("score"))
        if s is None:
            continue
        names = {norm(c.get("id")), norm(c.get("name"))}
        out.append(unit("category", "%s: %g" % (c.get("id"), s),
                        lambda m, s=s, names=names: close(num(m["y"]), s)
                        and (norm(m["x"]) in names or norm(m["series"]) in names)))
    s = num(doc.get("score"))
    if s is not None:
        out.append(unit("overall", "overall score %g" % s,
                        lambda m, s=s: close(num(m["y"]), s)
                        and (norm(m["x"]) in OVERALL or norm(m["series"]) in OVERALL or m["x"] is None)))
    return out


def compare_units(doc):
    out = []
    for p in doc.get("providers") or []:
        # the series names the provider, perhaps after its rank ("1. Alpha Cloud")
        prov = {norm(p.get("provider")), norm("%s. %s" % (p.get("rank"), p.get("provider")))}
        for cid, c in (p.get("categories") or {}).items():
            s = num((c or {}).get("score"))
            if s is None:
                continue
            out.append(unit("category", "%s %s: %g" % (p.get("provider"), cid, s),
                            lambda m, prov=prov, cid=norm(cid), s=s: close(num(m["y"]), s)
                            and norm(m["series"]) in prov and norm(m["x"]) == cid))
        s = num(p.get("score"))
        if s is not None:
            out.append(unit("overall", "%s overall %g" % (p.get("provider"), s),
                            lambda m, prov=prov, s=s: close(num(m["y"]), s) and norm(m["series"]) in prov
                            and (norm(m["x"]) in OVERALL or m["x"] is None)))
    return out


KINDS = {
    "nccl-busbw": nccl_units,
    "storage-throughput": lambda d: storage_units(d, "bw"),
    "storage-p99": lambda d: storage_units(d, "p99"),
    "endurance-bw": endurance_units,
    "audit-summary": audit_units,
    "sla-timeline": sla_units,
    "inject-timeline": inject_units,
    "tier-card": tier_units,
    "rate-compare": compare_units,
}


def mark_str(m):
    return "{%s}" % ", ".join("%s=%r" % (k, m[k]) for k in ("series", "x", "y", "start", "end", "state")
                              if m.get(k) is not None)


def check_values(kind, chart, doc):
    units = KINDS[kind](doc)
    problems = []
    if not units:
        return ["the document has nothing a %s chart plots" % kind]
    matched = collections.defaultdict(set)
    used, count = set(), collections.Counter()
    for m in chart["marks"]:
        hits = [i for i, u in enumerate(units) if u["match"](m)]
        if not hits:
            problems.append("mark %s is none of the document's values" % mark_str(m))
        lv = {units[i]["level"] for i in hits}
        count.update(lv)
        if len(lv - {"edge"}) == 1:
            used |= lv - {"edge"}  # this mark is of one family of values only
        for i in hits:
            matched[units[i]["level"]].add(i)
    # alternatives (rows per status or per profile and status): the family
    # some mark belongs to alone, else the one most marks match, must be
    # plotted whole
    if not used and count:
        used = {max(count, key=lambda l: (count[l], l != "edge"))} - {"edge"}
    for i, u in enumerate(units):
        if u["level"] in used and i not in matched[u["level"]]:
            problems.append("not plotted: %s" % u["what"])
    if kind == "nccl-busbw":
        by_series = collections.defaultdict(list)
        for m in chart["marks"]:
            by_series[m["series"]].append(m)
        for s, ms in by_series.items():
            rows = None
            for m in ms:
                r = {u["level"] for u in units if u["match"](m)}
                if r:  # a mark of no row is reported above
                    rows = r if rows is None else rows & r
            if rows is not None and not rows:
                problems.append("series %r mixes the curves of several rows" % s)
    return problems


def check_generic(chart, doc):
    nums, _ = leaves(doc)
    problems = []

    def known(v):
        if v is None:
            return True
        if instant(v) is not None:
            return True  # instants are judged per kind (a segment may end where the observation did)
        n = num(v)
        if n is None:
            return True  # a name (a case, a status), not a number
        return any(close(n, x) for x in nums)
    for m in chart["marks"]:
        for k in ("x", "y"):
            if not known(m[k]):
                problems.append("mark %s: %s=%r is no number of the document" % (mark_str(m), k, m[k]))
    for r in chart["refs"]:
        if num(r["y"]) is None:
            problems.append("reference line without a numeric data-y: %r" % r["y"])
        elif not known(r["y"]):
            problems.append("reference line at %r: no number of the document" % r["y"])
    return problems


def check_structure(chart):
    p = []
    if chart["svgs"] != 1:
        p.append("%d <svg> in the figure, want 1" % chart["svgs"])
    if chart["svg_role"] != "img":
        p.append("svg role=%r, want img" % chart["svg_role"])
    if not chart["title"] or not chart.get("title_first"):
        p.append("the svg's first child is no non-empty <title> (title %r)" % chart["title"])
    for a in ("x", "y"):
        ax = chart["axes"][a]
        if ax["groups"] != 1:
            p.append("%d <g class='axis %s'>, want 1" % (ax["groups"], a))
        if len(ax["labels"]) != 1 or not ax["labels"][0]:
            p.append("axis %s: labels %r, want one non-empty text.axis-label" % (a, ax["labels"]))
        elif not re.search(r"\S \([^()]+\)$", ax["labels"][0]):
            p.append("axis %s: label %r is not 'LABEL (unit)'" % (a, ax["labels"][0]))
        if not ax["ticks"]:
            p.append("axis %s: no text.tick" % a)
    if not chart["caption"]:
        p.append("no <figcaption>")
    if not chart["marks"]:
        p.append("no data mark")
    if not chart["box"] or min(chart["box"]) <= 0 or not chart["svg_box"] or min(chart["svg_box"]) <= 0:
        p.append("not laid out: figure %r, svg %r" % (chart["box"], chart["svg_box"]))
    if chart["kind"] not in KINDS:
        p.append("kind %r is none of the contract's" % chart["kind"])
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("facts")
    ap.add_argument("--doc", action="append", default=[], help="LABEL[,LABEL...]=PATH")
    ap.add_argument("--min-charts", type=int, default=0)
    ap.add_argument("--want-kind", action="append", default=[])
    ap.add_argument("--want-text", action="append", default=[])
    ap.add_argument("--name", default="report")
    a = ap.parse_args()
    f = json.load(open(a.facts))
    docs = []
    for spec in a.doc:
        labels, path = spec.rsplit("=", 1)
        d = json.load(open(path))
        docs.append({"labels": set(x for x in labels.split(",") if x) | {path, os.path.basename(path)}, "doc": d,
                     "path": path})
    R = Report()
    n = a.name

    # the page as a whole: nothing runs, nothing is fetched, nothing complains
    R.check("%s: no <script> element (any namespace)" % n, ["%d script elements" % f["scripts"]] if f["scripts"] else [])
    R.check("%s: no event-handler attribute, no javascript: URL, no frame" % n,
            ["%s: %d" % (k, f[k]) for k in ("event_handlers", "javascript_urls", "iframes") if f[k]])
    R.check("%s: no alert or other dialog" % n, ["dialog: %r" % t for t in f["alerts"]])
    R.check("%s: no console message at error level" % n,
            ["%s %s: %s" % (c["level"], c["source"], c["message"]) for c in f["console"]
             if c["level"] in ("SEVERE", "ERROR")])
    R.check("%s: no network request (performance log)" % n, ["request: %s" % u for u in f["requests"]])
    R.check("%s: no connection reached the recording proxy" % n, ["proxy: %s" % h for h in f["proxy_requests"]])
    R.check("%s: Content-Security-Policy meta with default-src 'none'" % n,
            [] if any(re.search(r"default-src\s+'none'", c or "") for c in f["csp"]) else ["csp: %r" % f["csp"]])
    for t in a.want_text:
        R.check("%s: the page text has %r" % (n, t), [] if f["text_contains"].get(t) else ["absent from innerText"])

    # sections: one per document, in order, each naming its schema
    secs = f["sections"]
    sec_doc = {}
    probs = []
    if len(secs) != len(docs):
        probs.append("%d sections, %d documents" % (len(secs), len(docs)))
    for i, s in enumerate(secs):
        hit = [d for d in docs if s["source"] in d["labels"]]
        if not hit and i < len(docs) and docs[i]["doc"].get("schema") == s["schema"]:
            hit = [docs[i]]
            probs.append("section %d: data-source %r names none of %s (matched by position)" %
                         (i, s["source"], sorted(docs[i]["labels"])))
        if not hit:
            probs.append("section %d (%r, %r): no document" % (i, s["schema"], s["source"]))
            continue
        sec_doc[i] = hit[0]
        if hit[0]["doc"].get("schema") != s["schema"]:
            probs.append("section %d: data-schema %r, the document's %r" % (i, s["schema"], hit[0]["doc"].get("schema")))
        if not s["h2"]:
            probs.append("section %d: no <h2>" % i)
    R.check("%s: one <section class=run> per document with its schema, source and <h2>" % n, probs)

    charts = f["charts"]
    R.check("%s: at least %d charts (got %d)" % (n, a.min_charts, len(charts)),
            [] if len(charts) >= a.min_charts else ["kinds: %s" % [c["kind"] for c in charts]])
    kinds = collections.Counter(c["kind"] for c in charts)
    for k in a.want_kind:
        R.check("%s: a %s chart" % (n, k), [] if kinds.get(k) else ["kinds present: %s" % dict(kinds)])
    for i, c in enumerate(charts):
        label = "%s: chart %d (%s%s)" % (n, i, c["kind"], ", " + c["title"][:50] if c["title"] else "")
        R.check(label + ": one svg role=img with a title first, 'LABEL (unit)' x and y axis labels, ticks, marks, "
                "a caption",
                check_structure(c))
        d = sec_doc.get(c["section"])
        if d is None:
            R.check(label + ": in a run section with its document", ["section %r" % c["section"]])
            continue
        if c["kind"] in KINDS:
            R.check(label + ": marks equal %s's values" % os.path.basename(d["path"]),
                    check_values(c["kind"], c, d["doc"]))
        if c["kind"] != "audit-summary":  # its values are counts of rows, judged above
            R.check(label + ": every mark and reference number is one of the document's", check_generic(c, d["doc"]))
    print("\n".join(R.lines))


if __name__ == "__main__":
    main()
