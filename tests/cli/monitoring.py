#!/usr/bin/env python3
"""Helpers of tests/cli/t-monitoring.sh for data/monitoring/ (stdlib only).

  monitoring.py exposed METRICS_TEXT        metric names of the samples in a
                                            Prometheus text exposition
  monitoring.py names FILE...               metric names the PromQL of a rules
                                            file (.yml: expr and the query
                                            templates of annotations) or a
                                            dashboard (.json: targets and
                                            query variables) selects
  monitoring.py dashboard FILE              structure problems of a Grafana
                                            dashboard, one a line; exit 1 if any
  monitoring.py queries FILE NODE API       run every dashboard query, $node
                                            and the interval variables
                                            substituted, through the Prometheus
                                            HTTP API at API (/api/v1/query):
                                            "N queries", then a line per one that
                                            fails or returns no series; exit 1
                                            if any

Names are found without a PromQL grammar, by removing what is not a selector:
string literals, label matchers {...}, ranges [...], the label lists of by,
without, on, ignoring, group_left and group_right, function names (an
identifier before "("), keywords and numbers.  What remains are metric names.
The rules file is read as text (no YAML library needed): expr blocks and the
`printf "SELECTOR" ... | query` of annotation templates.
"""
import json
import re
import sys
import urllib.parse
import urllib.request

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool", "and", "or",
            "unless", "atan2", "inf", "nan", "start", "end",
            # aggregation operators, also written before their by/without clause
            "sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk", "quantile",
            "count_values", "group"}
LABEL_LIST = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")


def promql_names(expr):
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    e = LABEL_LIST.sub(" ", e)
    e = re.sub(r"\$\{?\w+\}?", " ", e)	# a dashboard variable left in place
    out = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", e):
        name = m.group(0)
        if name.lower() in KEYWORDS or re.match(r"\s*\(", e[m.end():]):
            continue
        if m.start() > 0 and (e[m.start() - 1].isdigit() or e[m.start() - 1] == "."):
            continue	# 1h, 5m, 1e3
        out.add(name)
    return out


def rules_exprs(text):
    """The expr of each rule (block scalar or one line) and the selectors of query templates."""
    exprs = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(?:-\s+)?expr:\s*(.*)$", lines[i])
        if m:
            ind, rest = len(m.group(1)), m.group(2).strip()
            if rest in ("|", "|-", ">", ">-"):
                body = []
                i += 1
                while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > ind):
                    body.append(lines[i])
                    i += 1
                exprs.append("\n".join(body))
                continue
            exprs.append(rest.strip("'\""))
        for q in re.finditer(r'printf\s+"((?:[^"\\]|\\.)*)"[^|}]*\|\s*query', lines[i]):
            exprs.append(q.group(1).replace("%s", "x"))
        i += 1
    return exprs


def dashboard_exprs(d):
    out = []
    for p in walk_panels(d.get("panels", [])):
        for t in p.get("targets", []):
            if t.get("expr"):
                out.append(t["expr"])
    for v in d.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            m = re.match(r"\s*label_values\((.*),\s*\w+\)\s*$", q or "")
            out.append(m.group(1) if m else q)
    return out


def walk_panels(panels):
    for p in panels:
        yield p
        yield from walk_panels(p.get("panels", []))


def names_of(path):
    text = open(path, encoding="utf-8").read()
    exprs = dashboard_exprs(json.loads(text)) if path.endswith(".json") else rules_exprs(text)
    if not exprs:
        sys.exit("%s: no queries found" % path)
    out = set()
    for e in exprs:
        out |= promql_names(e)
    return out


def dashboard_problems(d):
    bad = []
    if not isinstance(d.get("schemaVersion"), int) or d["schemaVersion"] < 36:
        bad.append("schemaVersion %r: want a current one (39)" % d.get("schemaVersion"))
    var = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    if var.get("datasource", {}).get("type") != "datasource" or var["datasource"].get("query") != "prometheus":
        bad.append("no datasource variable of type prometheus")
    if var.get("node", {}).get("type") != "query":
        bad.append("no node query variable")
    ids = [p.get("id") for p in walk_panels(d.get("panels", []))]
    dup = sorted({i for i in ids if ids.count(i) > 1}, key=str)
    if dup or None in ids:
        bad.append("panel ids not unique (%s)" % ", ".join(map(str, dup or [None])))
    for p in walk_panels(d.get("panels", [])):
        if p.get("type") in ("row", "text"):
            continue
        ds = [p.get("datasource")] + [t.get("datasource") for t in p.get("targets", [])]
        if any(not isinstance(x, dict) or x.get("uid") != "${datasource}" for x in ds):
            bad.append("panel %s (%s): data source is not ${datasource}" % (p.get("id"), p.get("title")))
        if not p.get("targets") or any(not t.get("expr") for t in p["targets"]):
            bad.append("panel %s (%s): a target without a query" % (p.get("id"), p.get("title")))
        elif not any("$node" in t["expr"] for t in p["targets"]):
            bad.append("panel %s (%s): no query selects $node" % (p.get("id"), p.get("title")))
        g = p.get("gridPos", {})
        if not all(isinstance(g.get(k), int) for k in "xywh") or g["x"] + g["w"] > 24:
            bad.append("panel %s (%s): gridPos %r" % (p.get("id"), p.get("title"), g))
    return bad


def run_queries(d, node, api):
    n, bad = 0, []
    for p in walk_panels(d.get("panels", [])):
        for t in p.get("targets", []):
            e = t["expr"].replace("$node", node)
            e = e.replace("$__rate_interval", "1m").replace("$__interval", "15s").replace("$__range", "1h")
            url = api + "/query?" + urllib.parse.urlencode({"query": e})
            n += 1
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    res = json.load(r)
            except Exception as ex:	# a 400 is a query that does not parse
                body = getattr(ex, "read", lambda: b"")()
                res = {"status": "error", "error": body.decode(errors="replace")[:200] or str(ex)}
            if res.get("status") != "success" or not res["data"]["result"]:
                bad.append("panel %s (%s) %s: %s" % (p["id"], p["title"], t["refId"],
                                                    res.get("error", "no series")))
    print("%d queries" % n)
    for b in bad:
        print(b)
    return 1 if bad or not n else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "exposed":
        names = set()
        for line in open(argv[2], encoding="utf-8"):
            m = re.match(r"^([A-Za-z_:][A-Za-z0-9_:]*)(\{|\s)", line)
            if m:
                names.add(m.group(1))
        print("\n".join(sorted(names)))
    elif len(argv) >= 3 and argv[1] == "names":
        out = set()
        for p in argv[2:]:
            out |= names_of(p)
        print("\n".join(sorted(out)))
    elif len(argv) == 3 and argv[1] == "dashboard":
        bad = dashboard_problems(json.load(open(argv[2], encoding="utf-8")))
        for b in bad:
            print(b)
        return 1 if bad else 0
    elif len(argv) == 5 and argv[1] == "queries":
        return run_queries(json.load(open(argv[2], encoding="utf-8")), argv[3], argv[4])
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
