#!/usr/bin/env python3
"""Validate the documents of cmax inject, cmax reboot-test and cmax audit
(audit.values.json and the --dry-run plan).

usage: validate-docs.py [--c-validator TEST_DOCSCHEMAS] FILE...

Each FILE (JSON, or YAML for a plan written with -o yaml) is checked against
the JSON Schema its "schema" field names (docs/schema/inject.schema.json for
cmax.inject/1, reboot-test.schema.json for cmax.reboot-test/1,
audit-values.schema.json for cmax.audit.values/1, audit-plan.schema.json for
cmax.audit.plan/1; python3-jsonschema, Draft 2020-12), then against what a
schema cannot say:

  inject       each time in timeline.times is the offset of its event (null
               when the event did not happen), drained_for_s is return_s -
               drain_s, the injection is the first event at 0 s, nothing
               happened after observed_s; the verdict is the worst graded row
               (SKIP only when every row is); a fault expects isolation
               exactly when its action is reset_gpu or stronger
  reboot-test  events in the order they happened (offsets and wall clock),
               each at most once; the verdict from the two rows (ERROR counts
               as FAIL) with the return row's summary; a PASS or WARN return
               has a "usable" event, a PASS boot ID row two different IDs
  audit plan   every collector a check requires is listed; the
               state-changing probes in the plan are the checks that change
               state, and a probe would run exactly with --active when its
               check is in the plan and applies to the target

With --c-validator (build/test_docschemas), cmax's own validator (the one
doc_selfcheck uses) checks every FILE and mutated copies of it (a key
deleted, an unknown key added, a value of the wrong type, a string outside
its enum): the two validators must agree on every one.

Every problem is printed as "# FILE: problem" (a TAP diagnostic line, so the
shell tests can show it); the exit status is 1 when there was any, 0 when
every file is valid, 2 on usage.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = os.path.join(HERE, "..", "..", "docs", "schema")
SCHEMAS = {
    "cmax.inject/1": "inject.schema.json",
    "cmax.reboot-test/1": "reboot-test.schema.json",
    "cmax.audit.values/1": "audit-values.schema.json",
    "cmax.audit.plan/1": "audit-plan.schema.json",
}
_validators = {}
TOL = 0.0015  # times are written with millisecond resolution


def validator(tag):
    if tag not in _validators:
        with open(os.path.join(SCHEMA_DIR, SCHEMAS[tag])) as f:
            _validators[tag] = jsonschema.Draft202012Validator(json.load(f))
    return _validators[tag]


def schema_errors(doc):
    tag = doc.get("schema") if isinstance(doc, dict) else None
    if tag not in SCHEMAS:
        return ["top level: schema %r is none of %s" % (tag, ", ".join(SCHEMAS))]
    errs = sorted(validator(tag).iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    return ["/%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:300]) for e in errs]


def load(path):
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        import yaml  # a plan written with -o yaml
        return yaml.safe_load(text)


# ---- what a schema cannot say ---------------------------------------------------------

ISOLATING = {"reset_gpu", "drain_and_reset", "reboot", "contact_support"}
TIME_OF = {"detect_s": "detected", "drain_s": "drained", "return_s": "returned", "usable_s": "usable"}


def worst(statuses):
    """The verdict tl_grade gives: FAIL or ERROR over WARN over PASS; SKIP only alone."""
    if any(s in ("FAIL", "ERROR") for s in statuses):
        return {"FAIL", "ERROR"}
    if "WARN" in statuses:
        return {"WARN"}
    if "PASS" in statuses:
        return {"PASS"}
    return {"SKIP"}


def inject_rules(d):
    p = []
    f = d["fault"]
    if f["isolation_expected"] != (f["action"] in ISOLATING):
        p.append("fault: isolation_expected is %s for action %s" % (f["isolation_expected"], f["action"]))
    tl = d.get("timeline")
    if tl:
        at = {}
        for e in tl["events"]:
            if e["event"] in at:
                p.append("timeline: event %s twice" % e["event"])
            at[e["event"]] = e["offset_s"]
        if tl["events"][0]["event"] != "injected" or tl["events"][0]["offset_s"] != 0:
            p.append("timeline: the first event is not the injection at 0 s")
        t = tl["times"]
        for k, ev in TIME_OF.items():
            want = at.get(ev)
            if (want is None) != (t[k] is None) or (want is not None and abs(want - t[k]) > TOL):
                p.append("timeline.times.%s is %s but the %s event is at %s" % (k, t[k], ev, want))
        if t["drain_s"] is not None and t["return_s"] is not None:
            if t["drained_for_s"] is None or abs(t["drained_for_s"] - (t["return_s"] - t["drain_s"])) > 2 * TOL:
                p.append("timeline.times.drained_for_s %s is not return_s - drain_s" % t["drained_for_s"])
        elif t["drained_for_s"] is not None:
            p.append("timeline.times.drained_for_s without both a drain and a return")
        late = [e["event"] for e in tl["events"] if e["offset_s"] > t["observed_s"] + TOL]
        if late:
            p.append("timeline: %s after observation stopped (%s s)" % (late, t["observed_s"]))
    if "results" in d:
        ids = [r["id"] for r in d["results"]]
        if len(set(ids)) != len(ids):
            p.append("results: a row twice: %s" % ids)
        hosts = {r["host"] for r in d["results"]}
        if hosts != {d["node"]}:
            p.append("results: rows about %s, not the node %s" % (sorted(hosts), d["node"]))
        st = d["verdict"]["status"]
        if st not in worst([r["status"] for r in d["results"]]):
            p.append("verdict %s is not the worst row (%s)" % (st, [r["status"] for r in d["results"]]))
        if d["interrupted"] and not d["verdict"]["summary"].startswith("interrupted"):
            p.append("verdict: an interrupted run that does not say so")
    return p


def reboot_rules(d):
    p = []
    ev = d["events"]
    names = [e["event"] for e in ev]
    if len(set(names)) != len(names):
        p.append("events: an event twice: %s" % names)
    for a, b in zip(ev, ev[1:]):
        if b["offset_s"] < a["offset_s"] or b["epoch_s"] < a["epoch_s"] - TOL:
            p.append("events: %s before %s" % (b["event"], a["event"]))
    if ev and d["boot_id_before"] is not None and names[0] != "boot_id_before":
        p.append("events: the boot ID before is not the first event")
    bid, ret = d["results"]
    statuses = [bid["status"], ret["status"]]
    if any(s in ("FAIL", "ERROR") for s in statuses):
        want = "FAIL"
    elif "WARN" in statuses:
        want = "WARN"
    elif "SKIP" in statuses:
        want = "SKIP"
    else:
        want = "PASS"
    if d["verdict"]["status"] != want:
        p.append("verdict %s, the rows %s give %s" % (d["verdict"]["status"], statuses, want))
    if d["verdict"]["summary"] != ret["summary"]:
        p.append("verdict summary is not the return row's")
    if ret["status"] in ("PASS", "WARN") and "usable" not in names:
        p.append("reboot.return %s without a usable event" % ret["status"])
    if bid["status"] == "PASS" and (d["boot_id_before"] is None or d["boot_id_after"] is None or
                                    d["boot_id_before"].strip().lower() == d["boot_id_after"].strip().lower()):
        p.append("reboot.boot_id PASS without two different boot IDs")
    return p


def plan_rules(d):
    p = []
    listed = {c["name"] for c in d["collectors"]}
    for c in d["checks"]:
        for n in filter(None, (x.strip() for x in c["requires"].split(","))):
            if n not in listed:
                p.append("check %s requires collector %s, which the plan does not list" % (c["id"], n))
    active = {c["id"] for c in d["checks"] if c["changes_state"]}
    inplan = {a["id"] for a in d["state_changing_probes"] if a["in_plan"]}
    if active != inplan:
        p.append("state_changing_probes in the plan %s are not the checks that change state %s"
                 % (sorted(inplan), sorted(active)))
    applies = {c["id"]: c["applies"] for c in d["checks"]}
    for a in d["state_changing_probes"]:
        want = d["active"] and a["in_plan"] and applies.get(a["id"], False)
        if a["would_run"] != want:
            p.append("probe %s would_run %s with active %s, in_plan %s" % (a["id"], a["would_run"], d["active"],
                                                                         a["in_plan"]))
    return p


RULES = {"cmax.inject/1": inject_rules, "cmax.reboot-test/1": reboot_rules, "cmax.audit.plan/1": plan_rules}


def check(doc):
    errs = schema_errors(doc)
    if errs:
        return errs
    rules = RULES.get(doc["schema"])
    return rules(doc) if rules else []


# ---- the C validator's verdicts on mutated copies ------------------------------------

MUTATIONS_PER_FILE = 24


def nodes(v, path=()):
    """(path, value) of every object and array, breadth first (shallow ones first)."""
    queue = [(path, v)]
    while queue:
        p, x = queue.pop(0)
        if isinstance(x, dict):
            yield p, x
            queue.extend((p + (k,), y) for k, y in x.items())
        elif isinstance(x, list):
            yield p, x
            queue.extend((p + (i,), y) for i, y in enumerate(x))


def get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def mutations(doc):
    """Deterministic mutated copies, spread over the document's objects."""
    cands = []
    for path, obj in nodes(doc):
        if not isinstance(obj, dict) or len(path) > 5:
            continue
        for k, v in obj.items():
            cands.append(("del", path, k))
            if isinstance(v, str):
                cands.append(("enum", path, k))
            cands.append(("type", path, k))
        cands.append(("add", path, "cmax_unknown_key"))
    # as many from every depth as there are (round robin, spread within each):
    # a big document's free-form facts must not crowd out its envelope
    by_depth = {}
    for c in cands:
        by_depth.setdefault(len(c[1]), []).append(c)
    picked, rounds = [], 0
    while len(picked) < MUTATIONS_PER_FILE and rounds < MUTATIONS_PER_FILE:
        for depth in sorted(by_depth):
            group = by_depth[depth]
            i = rounds * 7919 % len(group) if rounds < len(group) else None
            if i is not None and group[i] not in picked and len(picked) < MUTATIONS_PER_FILE:
                picked.append(group[i])
        rounds += 1
    out = []
    for kind, path, k in picked:
        m = copy.deepcopy(doc)
        o = get(m, path)
        if kind == "del":
            del o[k]
        elif kind == "enum":
            o[k] = o[k] + "-not-a-value" if o[k] else "x"
        elif kind == "type":
            o[k] = "12345" if not isinstance(o[k], str) else 12345
        else:
            o[k] = True
        out.append(("%s %s/%s" % (kind, "/".join(map(str, path)), k), m))
    return out


def c_verdicts(exe, files):
    r = subprocess.run([exe, "--check"] + files, capture_output=True, text=True, timeout=120)
    got = {}
    for line in r.stdout.splitlines():
        word, _, rest = line.partition(" ")
        name = rest.split(": ", 1)[0] if word == "invalid" else rest
        got[name] = (word == "valid", rest[len(name):])
    return got


def cross_check(exe, docs, problems):
    with tempfile.TemporaryDirectory() as tmp:
        files, meta = [], {}
        for path, doc in docs:
            cands = [("as written", doc)] + mutations(doc)
            for i, (what, m) in enumerate(cands):
                fn = os.path.join(tmp, "%d-%d.json" % (len(meta), i))
                with open(fn, "w") as f:
                    json.dump(m, f)
                files.append(fn)
                meta[fn] = (path, what, not schema_errors(m))
        got = c_verdicts(exe, files)
        for fn in files:
            path, what, py_ok = meta[fn]
            if fn not in got:
                problems.append((path, "the C validator gave no verdict on %s" % what))
                continue
            c_ok, why = got[fn]
            if c_ok != py_ok:
                problems.append((path, "%s: python3-jsonschema says %s, cmax's validator %s%s" % (
                    what, "valid" if py_ok else "invalid", "valid" if c_ok else "invalid", why)))
        return len(files)


def main(argv):
    exe = None
    if argv[:1] == ["--c-validator"]:
        if len(argv) < 2:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
        exe, argv = argv[1], argv[2:]
    if not argv:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    problems, docs = [], []
    for path in argv:
        try:
            doc = load(path)
        except (OSError, ValueError) as e:
            problems.append((path, "cannot read: %s" % e))
            continue
        for p in check(doc):
            problems.append((path, p))
        docs.append((path, doc))
    if exe and docs:
        cross_check(exe, docs, problems)
    for path, p in problems:
        print("# %s: %s" % (path, p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
