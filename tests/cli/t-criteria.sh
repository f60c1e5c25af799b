#!/usr/bin/env bash
# Every criterion of the public ClusterMAX audit (docs/upstream-criteria.json,
# copied from its criteria-checks.json) maps to cmax check ids that exist in
# the check table, or says why no check grades it (issue 13). The table in
# docs/checks.md is rendered from the same file (t-docs.sh keeps it current).
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1

for t in --local "--slurm --nodes node1" --k8s; do
	# shellcheck disable=SC2086
	"$CMAX" audit $t --dry-run -o json >"$TMP/plan.json" 2>"$TMP/plan.err" || { cat "$TMP/plan.err" | diag; }
	"${PYTHON:-/usr/bin/python3}" -c 'import json,sys; [print(c["id"]) for c in json.load(open(sys.argv[1]))["checks"]]' \
		"$TMP/plan.json" >>"$TMP/ids.all"
done
sort -u "$TMP/ids.all" >"$TMP/ids"
check "the dry-run plans list the check table ($(wc -l <"$TMP/ids") ids)" test "$(wc -l <"$TMP/ids")" -gt 80

verify() { # FILE: prints one line per problem
	"${PYTHON:-/usr/bin/python3}" - "$1" "$TMP/ids" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ids = set(open(sys.argv[2]).read().split())
crit = doc["criteria"]
if len(crit) != doc["source"]["count"]:
    print(f"{len(crit)} criteria, the source says {doc['source']['count']}")
seen = set()
for e in crit:
    cid = e.get("id", "?")
    if cid in seen:
        print(f"{cid}: listed twice")
    seen.add(cid)
    if e.get("coverage") not in ("audit", "partial"):
        print(f"{cid}: coverage {e.get('coverage')!r}")
    if not e.get("harnesses") or set(e["harnesses"]) - {"slurm", "k8s", "standalone"}:
        print(f"{cid}: harnesses {e.get('harnesses')!r}")
    checks, why = e.get("checks", []), e.get("not_graded", "")
    if bool(checks) == bool(why.strip()):
        print(f"{cid}: needs either check ids or a reason it is not graded, not {'both' if checks else 'neither'}")
    for k in checks:
        if k not in ids:
            print(f"{cid}: check {k} is not in the check table")
PY
}
verify "$SRCDIR/docs/upstream-criteria.json" >"$TMP/problems"
check "every public-audit criterion maps to existing checks or a reason" test ! -s "$TMP/problems"
diag <"$TMP/problems"
n=$("${PYTHON:-/usr/bin/python3}" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["criteria"]))' "$SRCDIR/docs/upstream-criteria.json")
check "the public audit's 73 criteria are all listed ($n)" test "$n" = 73
ungraded=$("${PYTHON:-/usr/bin/python3}" -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["criteria"] if not e.get("checks")))' "$SRCDIR/docs/upstream-criteria.json")
check "at most 2 criteria left ungraded, each with its reason ($ungraded)" test "$ungraded" -le 2

# the verifier finds what it must: an unknown check, a duplicate, neither checks nor reason
"${PYTHON:-/usr/bin/python3}" - "$SRCDIR/docs/upstream-criteria.json" "$TMP/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["criteria"][0]["checks"] = ["access.no-such-check"]
d["criteria"].append(dict(d["criteria"][1]))
d["criteria"][2].pop("checks", None); d["criteria"][2].pop("not_graded", None)
json.dump(d, open(sys.argv[2], "w"))
PY
verify "$TMP/bad.json" >"$TMP/bad.out"
check "a criterion naming an unknown check is refused" grep -q 'access.no-such-check is not in the check table' "$TMP/bad.out"
check "a criterion listed twice is refused" grep -q 'listed twice' "$TMP/bad.out"
check "a criterion with neither checks nor reason is refused" grep -q 'not neither' "$TMP/bad.out"
check "a count that disagrees with the source is refused" grep -q 'the source says' "$TMP/bad.out"

# each criterion appears once in docs/checks.md's table
rows=$(grep -c '^| `[a-z0-9-]*` |' "$SRCDIR/docs/checks.md")
check "docs/checks.md has one table row per criterion ($rows)" test "$rows" = "$n"
done_testing
