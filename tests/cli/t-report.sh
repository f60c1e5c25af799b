#!/usr/bin/env bash
# cmax report: documents made by the real commands on fixtures (an audit of
# a misconfigured fixture host, bench net through a fake srun replaying
# recorded nccl-tests output, bench storage with fio when installed, an SLA
# month of an NVL72 layout, ratings and a comparison) and the recorded
# documents of tests/fixtures/rate/real, rendered with --html and
# --markdown. The page is parsed with python3's html.parser and checked
# against docs/report.md: well-formed, no script, the CSP, nothing loaded
# from a network, the charts of each document kind with their axis labels,
# and every data mark's values equal to the document's own (computed here
# from the JSON, never from cmax's output). A hostile document comes out
# escaped; bad inputs and an output through a symlink are refused with
# their exit codes.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null; then
	skip "python3 is needed to read the page and the documents"
	done_testing; exit
fi
RATE=$SRCDIR/tests/fixtures/rate
NET=$SRCDIR/tests/unit/net
D=$TMP/docs; mkdir -p "$D"

# --- the documents
run_fixture misconfig-h100 "$TMP/au" --local --yes --json
cp "$TMP/au/stdout" "$D/audit.json"
check "audit of misconfig-h100 made a document" "$PY" -c 'import json,sys; assert json.load(open(sys.argv[1]))["results"]' "$D/audit.json"

# bench net: one fake srun per run (as tests/cli/t-bench-net.sh)
rec() { # DIR TOOL N STDOUT_FILE EXIT ARGS...
	local d=$1/cmd/$2/$3 out=$4 ex=$5; shift 5
	mkdir -p "$d"
	printf '%s\n' "$@" >"$d/argv"
	[ -n "$out" ] && cp "$out" "$d/stdout"
	echo "$ex" >"$d/exit"
}
sweep='-b 8 -e 16G -f 2 -g 1'
N=$TMP/net
rec "$N" srun 1 "$NET/nccl-2.14.1-allreduce-2x8.txt" 0 --nodes=2 --ntasks=16 --ntasks-per-node=8 all_reduce_perf $sweep
rec "$N" srun 2 "$NET/nccl-2.14.1-allreduce-4x8.txt" 0 --nodes=4 --ntasks=32 --ntasks-per-node=8 all_reduce_perf $sweep
rec "$N" all_reduce_perf 1 "" 0 '*'
"$SRCDIR/tests/fakecmd/mkbin.sh" "$N/cmd" "$BUILD/fakecmd" "$N/bin" >/dev/null
env -i HOME="$TMP" PATH="$N/bin" TMPDIR="$TMP" CMAX_DATADIR="$CMAX_DATADIR" CMAX_FAKE_DIR="$N/cmd" \
	CMAX_FAKE_LOG="$N/fake.log" CMAX_HOME="$CMAX_HOME" SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=4 SLURM_GPUS_ON_NODE=8 \
	SLURM_JOB_NODELIST='gpu-a[01-04]' "$CMAX" bench net --sysroot "$SRCDIR/tests/fixtures/hosts/h100-healthy/root" \
	--yes --json --scaling >"$D/bench-net.json" 2>"$TMP/net.err"
check "bench net through the fake srun made a document" "$PY" -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert sum(1 for r in d["results"] if (r.get("observed") or {}).get("curve_size_time_us_busbw_oop_inp")) >= 2' "$D/bench-net.json"
J=$TMP/jag
rec "$J" srun 1 "$NET/nccl-2.14.1-allreduce-jagged-wrong.txt" 0 --nodes=2 --ntasks=16 --ntasks-per-node=8 all_reduce_perf $sweep
rec "$J" all_reduce_perf 1 "" 0 '*'
"$SRCDIR/tests/fakecmd/mkbin.sh" "$J/cmd" "$BUILD/fakecmd" "$J/bin" >/dev/null
env -i HOME="$TMP" PATH="$J/bin" TMPDIR="$TMP" CMAX_DATADIR="$CMAX_DATADIR" CMAX_FAKE_DIR="$J/cmd" \
	CMAX_FAKE_LOG="$J/fake.log" CMAX_HOME="$CMAX_HOME" SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=4 SLURM_GPUS_ON_NODE=8 \
	SLURM_JOB_NODELIST='gpu-a[01-04]' "$CMAX" bench net --sysroot "$SRCDIR/tests/fixtures/hosts/h100-healthy/root" \
	--yes --json --nodes 2 --collectives all_reduce >"$D/bench-net-jagged.json" 2>"$TMP/jag.err"
check "the jagged all_reduce is flagged by bench net itself" "$PY" -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert any((r.get("observed") or {}).get("jagged_dips",0) > 0 for r in d["results"])' "$D/bench-net-jagged.json"

# bench storage: fio on a temp dir at 1 and 2 clients when fio is here, else the recorded run
if command -v fio >/dev/null; then
	mkdir -p "$TMP/fs"
	"$CMAX" bench storage --path "$TMP/fs" --yes --json --clients 2 --size 4M --only seq-read >"$D/bench-storage.json" 2>"$TMP/st.err"
	check "bench storage with fio: exit 0" [ $? -eq 0 ]
else
	cp "$RATE/real/bench-storage.json" "$D/bench-storage.json"
	skip "fio is not installed: the recorded storage document instead"
fi
cp "$RATE/real/bench-storage-endurance.json" "$RATE/real/inject-xid79.json" "$D/"

# an SLA month: NVL72, three trays down at once (a rack outage), exclusion windows
( cd "$SRCDIR/tests/fixtures/sla" && "$CMAX" sla --events nvl72/three-trays.csv nvl72/events.psv --layout nvl72/layout.yaml \
	--period 2026-11 --exclusions nvl72/exclusions.yaml --json ) >"$D/sla.json" 2>"$TMP/sla.err"
check "sla month made a document" "$PY" -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert any(u["intervals"] for u in d["units"]["rack"]) and any(e["applied"] for e in d["exclusions"])' "$D/sla.json"

# ratings: the strong provider, one with nothing but a storage run (categories not measured), a comparison
"$PY" "$RATE/assemble.py" "$TMP/prov" base underperforming >/dev/null
mkdir -p "$TMP/prov/thin" && cp "$RATE/real/bench-storage.json" "$TMP/prov/thin/"
"$CMAX" rate "$TMP/prov/base" --json >"$D/rate.json" 2>/dev/null
"$CMAX" rate "$TMP/prov/thin" --json >"$D/rate-thin.json" 2>/dev/null
"$CMAX" rate --compare "$TMP/prov/underperforming" "$TMP/prov/base" --json >"$D/rate-compare.json" 2>/dev/null
check "rate documents made" "$PY" -c '
import json,sys
assert any(c["score"] is None for c in json.load(open(sys.argv[1]))["categories"])
assert len(json.load(open(sys.argv[2]))["providers"]) == 2' "$D/rate-thin.json" "$D/rate-compare.json"

# a hostile audit document: markup, quotes and control characters in every outside string
"$PY" - "$D/audit.json" "$TMP/hostile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
evil = "<script>alert(1)</script></svg>\"'&\x07\x1b[31m\u009b|`x`"
d["target"] = {"hosts": ["h" + evil]}
for i, r in enumerate(d["results"][:6]):
    r["host"] = "node" + evil
    r["summary"] = "s</td></tr></table><img src=x onerror=alert(1)>" + evil
    r["profile"] = "prof\"'><b>" + evil
    r["status"] = "FAIL"
d["command"] = "cmax </title><script>alert(2)</script>"
json.dump(d, open(sys.argv[2], "w"))
PY

# --- the report
ALL=("$D/audit.json" "$D/bench-net.json" "$D/bench-net-jagged.json" "$D/bench-storage.json" "$D/bench-storage-endurance.json"
	"$D/inject-xid79.json" "$D/sla.json" "$D/rate.json" "$D/rate-thin.json" "$D/rate-compare.json" "$TMP/hostile.json")
"$CMAX" report "${ALL[@]}" --html "$TMP/r.html" --markdown "$TMP/r.md" 2>"$TMP/r.err"
check "report --html --markdown: exit 0" [ $? -eq 0 ]
diag <"$TMP/r.err"
"$CMAX" report "${ALL[@]}" --markdown - >"$TMP/stdout.md" 2>/dev/null
check "--markdown - writes the same page to stdout" cmp -s "$TMP/r.md" "$TMP/stdout.md"

"$PY" - "$TMP/r.html" "${ALL[@]}" >"$TMP/check.out" 2>&1 <<'PY'
import json, math, sys
from collections import Counter
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}

class Node:
    def __init__(s, tag, attrs, parent):
        s.tag, s.attrs, s.parent, s.kids, s.text = tag, dict(attrs), parent, [], ""
    def cls(s):
        return (s.attrs.get("class") or "").split()
    def walk(s):
        yield s
        for k in s.kids:
            yield from k.walk()
    def find(s, tag=None, cls=None):
        return [n for n in s.walk() if n is not s and (tag is None or n.tag == tag) and (cls is None or cls in n.cls())]
    def alltext(s):
        return s.text + "".join(k.alltext() for k in s.kids)

class Tree(HTMLParser):
    def __init__(s):
        super().__init__(convert_charrefs=True)
        s.root = Node("#root", [], None); s.cur = s.root; s.errors = []
    def handle_starttag(s, tag, attrs):
        n = Node(tag, attrs, s.cur); s.cur.kids.append(n)
        if tag not in VOID:
            s.cur = n
    def handle_startendtag(s, tag, attrs):
        s.cur.kids.append(Node(tag, attrs, s.cur))
    def handle_endtag(s, tag):
        if tag in VOID:
            return
        if s.cur.tag != tag:
            s.errors.append("</%s> closes <%s> at %s" % (tag, s.cur.tag, s.getpos()))
            return
        s.cur = s.cur.parent
    def handle_data(s, data):
        s.cur.text += data

results = []
def check(name, cond, why=""):
    results.append((bool(cond), name, why))

raw = open(sys.argv[1], encoding="utf-8").read()
t = Tree(); t.feed(raw); t.close()
root = t.root
check("well-formed: every element closed in order", not t.errors and t.cur is root, "; ".join(t.errors[:3]))
check("one html, head, body", [n.tag for n in root.kids if n.tag == "html"] == ["html"] and len(root.find("body")) == 1)
check("no <script> element", not root.find("script"))
check("no event handler attributes", not [a for n in root.walk() for a in n.attrs if a.lower().startswith("on")])
csp = [m for m in root.find("meta") if (m.attrs.get("http-equiv") or "").lower() == "content-security-policy"]
check("the CSP meta in head", len(csp) == 1 and csp[0].attrs.get("content") ==
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:" and csp[0].parent.tag == "head")
urls = [(n.tag, a, v) for n in root.walk() for a, v in n.attrs.items()
        if a in ("src", "href", "xlink:href", "action", "data") and v and not v.startswith("data:") and not v.startswith("#")]
check("nothing loaded from anywhere (src/href)", not urls, repr(urls[:3]))
check("no http(s):// in any src or href", "http://" not in "".join(str(u) for u in urls) and not root.find("link"))
check("no external style or font", "@import" not in raw and "url(" not in raw)

docs = [json.load(open(p)) for p in sys.argv[2:]]
sections = [n for n in root.find("section") if "run" in n.cls()]
check("one section.run per document", len(sections) == len(docs), "%d sections" % len(sections))
for sec, (path, d) in zip(sections, zip(sys.argv[2:], docs)):
    check("%s: data-schema is the document's" % path, sec.attrs.get("data-schema") == d["schema"])
    check("%s: data-source names it" % path, sec.attrs.get("data-source") == path)
    check("%s: an h2" % path, len(sec.find("h2")) == 1)

def figures(sec, kind):
    return [f for f in sec.find("figure") if "chart" in f.cls() and f.attrs.get("data-kind") == kind]

def chart_ok(f, where):
    svgs = f.find("svg")
    ok = len(svgs) == 1 and svgs[0].attrs.get("role") == "img" and any(k.tag == "title" and k.text.strip() for k in svgs[0].kids)
    for ax in ("x", "y"):
        g = [n for n in f.find("g") if "axis" in n.cls() and ax in n.cls()]
        labels = g[0].find("text", "axis-label") if len(g) == 1 else []
        ok = ok and len(g) == 1 and len(labels) == 1 and "(" in labels[0].alltext() and g[0].find("text", "tick")
    ok = ok and len(f.find("figcaption")) == 1
    check("%s: one svg with a title, axes x and y with a label (unit) and ticks, a caption" % where, ok)

def num(s):
    return float(s)

def clean(s):
    """a string as the page must show it (docs/report.md): tab, CR and newline
    a space, other C0 and C1 controls and DEL '?'"""
    return "".join(" " if ch in "\t\r\n" else "?" if ord(ch) < 32 or 127 <= ord(ch) <= 159 else ch for ch in s)

def marks(f):
    return [m for m in f.find(None, "mark")]

def pairs(f, series=False):
    out = Counter()
    for m in marks(f):
        a = m.attrs
        out[((a["data-series"],) if series else ()) + (num(a["data-x"]), num(a["data-y"]))] += 1
    return out

def rows(d):
    return d.get("results") or []

def obs(r):
    return r.get("observed") if isinstance(r.get("observed"), dict) else {}

by_schema = {}
for sec, d, p in zip(sections, docs, sys.argv[2:]):
    by_schema.setdefault(d["schema"], []).append((sec, d, p))
    where = p.split("/")[-1]
    kinds = []
    if d["schema"] == "cmax.audit.results/1":
        kinds = ["audit-summary"]
        f = figures(sec, "audit-summary")
        counts = Counter((clean(r.get("profile") or "(none)"), r["status"]) for r in rows(d))
        got = {(m.attrs["data-series"], m.attrs["data-x"]): num(m.attrs["data-y"]) for m in marks(f[0])} if f else {}
        check("%s: the stacked bar's counts are the rows' per profile and status" % where,
              all(got.get((st, pr), 0) == n for (pr, st), n in counts.items()) and
              sum(got.values()) == len(rows(d)), repr(list(got.items())[:4]))
        tabs = [tb for tb in sec.find("table") if [th.alltext() for th in tb.find("th")][:2] == ["status", "id"]]
        st = [tr.find("td")[0].alltext() for tr in tabs[0].find("tr") if tr.find("td")] if tabs else []
        check("%s: FAIL, ERROR and WARN rows come first" % where,
              st and st == sorted(st, key=lambda s: s not in ("FAIL", "ERROR", "WARN")), st[:5])
    elif d["schema"] == "cmax.bench.results/1" and d.get("benchmark") == "net":
        colls = sorted({obs(r)["collective"] for r in rows(d) if obs(r).get("curve_size_time_us_busbw_oop_inp")})
        kinds = ["nccl-busbw"] if colls else []
        f = figures(sec, "nccl-busbw")
        check("%s: one busbw chart per collective" % where, len(f) == len(colls), "%d charts" % len(f))
        want, refs, dips = Counter(), set(), set()
        for r in rows(d):
            o = obs(r)
            for pt in o.get("curve_size_time_us_busbw_oop_inp") or []:
                if pt[2] is not None:
                    want[(float(pt[0]), float(pt[2]))] += 1
            if o.get("curve_size_time_us_busbw_oop_inp") and o.get("line_rate_gb_s") is not None:
                refs.add(float(o["line_rate_gb_s"]))
            if o.get("jagged_dips", 0) > 0:
                dips.add(float(o["jagged_worst_at_bytes"]))
        got = sum((pairs(x) for x in f), Counter())
        check("%s: busbw marks are the curves' (size, out-of-place busbw)" % where, got == want and want,
              "%d vs %d" % (sum(got.values()), sum(want.values())))
        gref = {num(n.attrs["data-y"]) for x in f for n in x.find(None, "ref")}
        check("%s: the line rate as a reference line" % where, gref == refs and refs, repr((gref, refs)))
        gdip = {num(m.attrs["data-x"]) for x in f for m in marks(x) if "dip" in m.cls()}
        check("%s: the dips the document flags are marked, no others" % where, gdip == dips, repr((gdip, dips)))
        for x in f:
            check("%s: the size axis is log2 (ticks double)" % where, any("KiB" in tk.alltext() or "MiB" in tk.alltext()
                  for tk in x.find("text", "tick")))
    elif d["schema"] == "cmax.bench.results/1" and d.get("benchmark") == "storage":
        fio = [r for r in rows(d) if obs(r).get("rw") and "clients" in obs(r) and "intervals" not in obs(r)]
        ivs = [r for r in rows(d) if isinstance(obs(r).get("intervals"), list)]
        if fio:
            kinds += ["storage-throughput", "storage-p99"]
            bw = Counter((float(obs(r)["clients"]), float(obs(r)["bw_gb_s"])) for r in fio if obs(r).get("bw_gb_s") is not None)
            p99 = Counter((float(obs(r)["clients"]), float(obs(r)["clat_ns"]["p99"])) for r in fio
                          if (obs(r).get("clat_ns") or {}).get("p99") is not None)
            f = figures(sec, "storage-throughput")
            check("%s: throughput marks are (clients, bw_gb_s)" % where, f and pairs(f[0]) == bw, repr(pairs(f[0]) if f else None))
            f = figures(sec, "storage-p99")
            check("%s: p99 marks are (clients, clat_ns.p99)" % where, f and pairs(f[0]) == p99)
        if ivs:
            kinds += ["endurance-bw"]
            want = Counter((float(i["t_s"]), float(i["bw_bytes_per_s"])) for r in ivs for i in obs(r)["intervals"]
                           if i.get("bw_bytes_per_s") is not None)
            f = figures(sec, "endurance-bw")
            check("%s: endurance marks are (t_s, bw_bytes_per_s)" % where, f and pairs(f[0]) == want)
    elif d["schema"] == "cmax.inject/1":
        kinds = ["inject-timeline"]
        f = figures(sec, "inject-timeline")
        want = {(e["event"], float(e["offset_s"])) for e in d["timeline"]["events"]}
        got = {(m.attrs["data-state"], num(m.attrs["data-start"])) for m in marks(f[0]) if "event" in m.cls()} if f else set()
        check("%s: an event mark per timeline event at its offset" % where, got == want, repr((got, want)))
        check("%s: event marks name the node" % where, f and all(m.attrs["data-series"] == d["node"] for m in marks(f[0])))
        txt = sec.alltext()
        check("%s: the expectations of the document are shown" % where, all(r["expected"] in txt for r in rows(d) if r.get("expected")))
    elif d["schema"] == "cmax.sla/1":
        kinds = ["sla-timeline"]
        f = figures(sec, "sla-timeline")
        def spans(scope):
            return Counter((u["name"], iv["start"], iv["end"]) for u in d["units"][scope] for iv in u["intervals"])
        def got(x):
            return Counter((m.attrs["data-series"], m.attrs["data-start"], m.attrs["data-end"]) for m in marks(x))
        check("%s: a rack timeline and a node timeline" % where, len(f) == 2)
        if len(f) == 2:
            check("%s: rack outages (NVL72: trays down at once) are marks of the rack rows" % where,
                  got(f[0]) == spans("rack") and spans("rack"), repr(got(f[0])))
            check("%s: node downtime marks are the nodes' intervals" % where, got(f[1]) == spans("node"))
            win = {(e["start"], e["end"]) for e in d["exclusions"] if e["applied"]}
            for x in f:
                gw = {(w.attrs["data-start"], w.attrs["data-end"]) for w in x.find(None, "window")}
                check("%s: accepted exclusion windows shaded" % where, gw == win, repr(gw))
            check("%s: every rack has a row" % where, {tk.alltext() for tk in
                  [n for n in f[0].find("g") if "y" in n.cls()][0].find("text", "tick")} == {u["name"] for u in d["units"]["rack"]})
    elif d["schema"] == "cmax.rate/1":
        kinds = ["tier-card"]
        f = figures(sec, "tier-card")
        want = Counter((c["name"], float(c["score"])) for c in d["categories"] if c["score"] is not None)
        got = Counter((m.attrs["data-x"], num(m.attrs["data-y"])) for m in marks(f[0])) if f else None
        check("%s: a bar per measured category at its score" % where, got == want, repr(got))
        nm = sum(1 for c in d["categories"] if c["score"] is None)
        shown = sum(1 for n in f[0].walk() if n.alltext().strip() == "not measured" and n.tag == "text") if f else 0
        check("%s: each category without a score says not measured (%d)" % (where, nm), shown == nm, shown)
        check("%s: the tier is on the card" % where, d["tier"] in sec.alltext())
    elif d["schema"] == "cmax.rate.compare/1":
        kinds = ["rate-compare"]
        f = figures(sec, "rate-compare")
        want = Counter()
        for p in d["providers"]:
            for cid, c in p["categories"].items():
                if c["score"] is not None:
                    want[(p["provider"], cid, float(c["score"]))] += 1
        got = Counter((m.attrs["data-series"].split(". ", 1)[1], m.attrs["data-x"], num(m.attrs["data-y"])) for m in marks(f[0])) if f else None
        check("%s: grouped bars: provider x category at its score" % where, got == want, repr(got)[:300])
    for k in kinds:
        for f in figures(sec, k):
            chart_ok(f, "%s %s" % (where, k))
        check("%s: has a %s chart" % (where, k), figures(sec, k))

# the hostile document
hs = sections[-1]
evil_txt = "<script>alert(1)</script></svg>\"'&??[31m?|`x`"
check("hostile: still no script, no img, no b element anywhere", not root.find("script") and not root.find("img") and not root.find("b"))
check("hostile: no control character reaches the page", not any(ch in raw for ch in "\x07\x1b\u009b"))
check("hostile: the host name comes back as text, escaped", ("node" + evil_txt) in hs.alltext())
f = figures(hs, "audit-summary")
ticks = [tk.alltext() for tk in f[0].find("text", "tick")] if f else []
check("hostile: the profile name is an SVG tick label as text", ("prof\"'><b>" + evil_txt) in ticks, repr(ticks[:3]))
check("hostile: and a data-x attribute", f and any(m.attrs["data-x"] == "prof\"'><b>" + evil_txt for m in marks(f[0])))
check("hostile: the page title is the one given, the command is text",
      root.find("title")[0].alltext() == "cmax report" and "cmax </title><script>alert(2)</script>" in hs.alltext())

for ok, name, why in results:
    print("%s\t%s\t%s" % ("ok" if ok else "not ok", name, str(why)[:300]))
PY
while IFS=$'\t' read -r st name why; do
	case $st in
	ok) ok "$name" ;;
	"not ok") not_ok "$name"; echo "$why" | diag ;;
	*) printf '%s %s %s\n' "$st" "$name" "$why" | diag; not_ok "the page checker ran" ;;
	esac
done <"$TMP/check.out"

# --- Markdown: the same sections, tables whose cells cannot break out
"$PY" - "$TMP/r.md" "${ALL[@]}" >"$TMP/md.out" 2>&1 <<'PY'
import json, re, sys
md = open(sys.argv[1], encoding="utf-8").read()
docs = [json.load(open(p)) for p in sys.argv[2:]]
def out(ok, name):
    print("%s\t%s" % ("ok" if ok else "not ok", name))
out(md.count("\n## ") == len(docs), "markdown: a ## heading per document")
bad = []
for block in re.split(r"\n\n+", md):
    lines = [l for l in block.split("\n") if l.startswith("|")]
    if len(lines) < 2:
        continue
    cells = lambda l: len(re.findall(r"(?<!\\)\|", l))
    n = cells(lines[0])
    bad += [l for l in lines if cells(l) != n]
out(not bad, "markdown: every table row has its header's cells (| escaped in values)")
out("<script" not in md and "<img" not in md and "\x07" not in md and "\x1b" not in md, "markdown: no markup or control character from the hostile document")
out("\\|" in md and "\\`x\\`" in md and "&lt;script&gt;" in md, "markdown: | ` < escaped")
thin = [d for d in docs if d["schema"] == "cmax.rate/1" and any(c["score"] is None for c in d["categories"])][0]
out("_not measured_" in md, "markdown: a category without a score is not measured")
st = [d for d in docs if d.get("benchmark") == "storage" and any("intervals" not in (r.get("observed") or {}) for r in d["results"])][0]
vals = [r["observed"]["bw_gb_s"] for r in st["results"] if (r.get("observed") or {}).get("bw_gb_s") is not None]
out(vals and all(("| %r |" % float(v)).replace(".0 |", " |") in md or ("| %r |" % v) in md for v in vals), "markdown: the storage bandwidths as table values")
PY
while IFS=$'\t' read -r st name; do
	case $st in ok) ok "$name" ;; "not ok") not_ok "$name" ;; *) printf '%s %s\n' "$st" "$name" | diag; not_ok "the markdown checker ran" ;; esac
done <"$TMP/md.out"

# --- inputs: a directory, bad inputs, outputs refused
mkdir -p "$TMP/dir" && cp "$D/sla.json" "$D/inject-xid79.json" "$TMP/dir/" && echo '{"schema": "cmax.bench.plan/1"}' >"$TMP/dir/plan.json"
"$CMAX" report "$TMP/dir" --html "$TMP/dir.html" 2>"$TMP/dir.err"
check "a directory: exit 0" [ $? -eq 0 ]
check "... every result document of it, a plan passed over with a note" \
	[ "$(grep -c '<section class="run"' "$TMP/dir.html")" -eq 2 -a "$(grep -c 'passed over' "$TMP/dir.err")" -eq 1 ]
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }
"$CMAX" report "$TMP/nope.json" --html "$TMP/x.html" 2>"$TMP/e1"
check "missing file: exit 66" [ $? -eq 66 ]
check "... one line naming it" sh -c 'grep -q nope.json "$1" && [ "$(wc -l <"$1")" -eq 1 ]' _ "$TMP/e1"
printf '{"schema": "cmax.audit.results/1", "results": [' >"$TMP/bad.json"
"$CMAX" report "$TMP/bad.json" --html "$TMP/x.html" 2>"$TMP/e2"
check "bad JSON: exit 65" [ $? -eq 65 ]
check "... one line" one_line "$TMP/e2"
echo '{"schema": "example.other/9", "results": []}' >"$TMP/other.json"
"$CMAX" report "$TMP/other.json" --html "$TMP/x.html" 2>"$TMP/e3"
check "unknown schema: exit 65" [ $? -eq 65 ]
check "... one line saying so" sh -c 'grep -q "unknown schema .example.other/9." "$1" && [ "$(wc -l <"$1")" -eq 1 ]' _ "$TMP/e3"
check "no page was written for a bad input" [ ! -e "$TMP/x.html" ]
"$CMAX" report "$D/sla.json" 2>"$TMP/e4"
check "no --html and no --markdown: exit 64" [ $? -eq 64 ]
"$CMAX" report --html "$TMP/x.html" 2>"$TMP/e5"
check "no input: exit 64" [ $? -eq 64 ]
echo keep >"$TMP/target"; ln -s "$TMP/target" "$TMP/link.html"
"$CMAX" report "$D/sla.json" --html "$TMP/link.html" 2>"$TMP/e6"
check "output through a symlink: exit 73" [ $? -eq 73 ]
check "... the link's target untouched" [ "$(cat "$TMP/target")" = keep -a -L "$TMP/link.html" ]
"$CMAX" report "$D/sla.json" --markdown "$TMP/link.html" 2>/dev/null
check "--markdown through a symlink: exit 73" [ $? -eq 73 ]
echo old >"$TMP/again.html"
"$CMAX" report "$D/sla.json" --html "$TMP/again.html"
check "an existing report file is replaced" grep -q '<section class="run"' "$TMP/again.html"
# run:ID from the results store: only when the store is built
if "$CMAX" runs import "$D/sla.json" >"$TMP/imp" 2>&1; then
	id=$("$CMAX" runs list --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])')
	"$CMAX" report "run:${id:0:8}" --html "$TMP/run.html"
	check "run:ID from the store: exit 0" [ $? -eq 0 ]
	check "... labelled run:ID" grep -q "data-source=\"run:$id\"" "$TMP/run.html"
	"$CMAX" report run:ffffffffffff --html "$TMP/run2.html" 2>/dev/null
	check "an unknown run: exit 66" [ $? -eq 66 ]
else
	skip "the results store is not available here: run:ID not tested ($(head -1 "$TMP/imp"))"
fi
# --json: what was written, the charts read back from the page itself
"$CMAX" report "${ALL[@]}" --html "$TMP/j.html" --json >"$TMP/j.json" 2>"$TMP/j.err"
check "report --json: exit 0" [ $? -eq 0 ]
check "report --json: one document entry per input, the charts in page order" python3 -c '
import json, re, sys
j = json.load(open(sys.argv[1])); page = open(sys.argv[2]).read()
assert j["schema"] == "cmax.report/1" and j["html"] == sys.argv[2], j
assert len(j["documents"]) == int(sys.argv[3]), (len(j["documents"]), sys.argv[3])
assert j["charts"] == re.findall(r"<figure class=\"chart\" data-kind=\"([^\"]+)\"", page) and j["charts"], j["charts"]
' "$TMP/j.json" "$TMP/j.html" "${#ALL[@]}"
"$CMAX" report "${ALL[@]}" --markdown - --json >/dev/null 2>"$TMP/j2.err"
check "report --json with --markdown -: usage error 64" [ $? -eq 64 ]
# the method's limits of an injection (fault.expect_*_s, seconds from the
# injection) are shaded on its timeline, and the axis reaches them
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); d["fault"]["expect_detect_s"] = 120; d["fault"]["expect_return_s"] = 3600
json.dump(d, open(sys.argv[2], "w"))' "$D/inject-xid79.json" "$TMP/inject-limits.json"
"$CMAX" report "$TMP/inject-limits.json" --html "$TMP/lim.html" 2>"$TMP/lim.err"
check "inject limits: exit 0" [ $? -eq 0 ]
check "inject limits: one window per limit, from 0 to the limit, labelled" python3 -c '
import re, sys
page = open(sys.argv[1]).read()
fig = re.search(r"<figure class=\"chart\" data-kind=\"inject-timeline\".*?</figure>", page, re.S).group(0)
wins = re.findall(r"<rect class=\"window\"[^>]*data-start=\"([^\"]*)\"[^>]*data-end=\"([^\"]*)\"[^>]*data-label=\"([^\"]*)\"", fig)
assert [(a, b) for a, b, _ in wins] == [("0", "120"), ("0", "3600")], wins
assert "limit" in wins[0][2] and "120" in wins[0][2], wins
xaxis = re.search(r"<g class=\"axis x\">.*?</g>", fig, re.S).group(0)
ticks = [float(t) for t in re.findall(r"class=\"tick\">([0-9.e+]+)</text>", xaxis)]
assert ticks and max(ticks) >= 3000, ticks
' "$TMP/lim.html"
check "inject limits: a document without them has no window" python3 -c '
import re, sys
page = open(sys.argv[1]).read()
figs = re.findall(r"<figure class=\"chart\" data-kind=\"inject-timeline\".*?</figure>", page, re.S)
assert figs and not any("class=\"window\"" in f for f in figs), len(figs)
' "$TMP/r.html"
# an audit's rows: FAIL and ERROR first, then WARN, then the rest, each
# in the document's order
check "audit rows: FAIL/ERROR, then WARN, then the rest, in document order" python3 -c '
import json, re, sys
page = open(sys.argv[1]).read(); doc = json.load(open(sys.argv[2]))
sec = re.search(r"<section class=\"run\" data-schema=\"cmax.audit.results/1\".*?</section>", page, re.S).group(0)
table = re.search(r"<table class=\"rows\">.*?</table>", sec, re.S).group(0)
got = re.findall(r"<tr><td class=\"status-[A-Z]+\">([A-Z]+)</td><td>([^<]*)</td>", table)
rank = lambda st: 0 if st in ("FAIL", "ERROR") else 1 if st == "WARN" else 2
want = [(r["status"], r["id"]) for k in range(3) for r in doc["results"] if rank(r["status"]) == k]
assert got == want, (got[:5], want[:5])
assert any(st == "FAIL" for st, _ in got) and any(st == "WARN" for st, _ in got)
' "$TMP/r.html" "$D/audit.json"
done_testing
