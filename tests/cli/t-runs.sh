#!/usr/bin/env bash
# `cmax runs` against a real SQLite store ($CMAX_HOME/cmax.db, the test's
# own): import the fixture documents (rate base and real sets, two audit
# goldens), list, show, export (the document back unchanged), diff (the rows
# and figures that moved, with their direction, worked out here from the
# documents themselves), rm, the refusals and their exit codes, a store
# path that is a symlink, parallel imports into one store, and
# `cmax rate --compare run:ID run:ID`.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
export CMAX_DATADIR=$SRCDIR/data
if ! command -v python3 >/dev/null; then
	skip "python3 is needed to read the JSON"
	done_testing; exit
fi
PY=$(python3 -c 'import sys; print(sys.executable)')
R=$SRCDIR/tests/fixtures/rate
H=$SRCDIR/tests/fixtures/hosts
# py EXPR FILE...: EXPR over the parsed documents d (the first) and ds (all)
py() {
	local e=$1; shift
	"$PY" -c 'import json,sys
ds=[json.load(open(f)) for f in sys.argv[2:]]
d=ds[0] if ds else None
print(eval(sys.argv[1]))' "$e" "$@" 2>&1
}
# is DESC GOT WANT
is() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; echo "#   got:  $2" | head -5; echo "#   want: $3"; fi; }

# ---- import ----------------------------------------------------------------
FILES=("$R"/base/*.json "$R"/real/*.json "$H/h100-healthy/expected.json" "$H/misconfig-h100/expected.json")
# distinct documents (the store keys a run by its canonical JSON)
want_n=$(py 'len({json.dumps(x, sort_keys=True) for x in ds})' "${FILES[@]}")
"$CMAX" runs import --json "$R/base" "$R/real" "$H/h100-healthy/expected.json" "$H/misconfig-h100/expected.json" \
	>"$TMP/imp1.json" 2>"$TMP/imp1.err"; rc=$?
is "import of the fixtures exits 0" "$rc" 0
diag <"$TMP/imp1.err"
is "import --json: every file imported" "$(py 'sorted({f["status"] for f in d["files"]})' "$TMP/imp1.json")" "['imported']"
is "import --json: as many files as given" "$(py 'len(d["files"])' "$TMP/imp1.json")" "${#FILES[@]}"
# id_of PATH: the run id the first import gave the file
id_of() { "$PY" -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(next(f["id"] for f in d["files"] if f["path"] == sys.argv[2]))' "$TMP/imp1.json" "$1"; }

"$CMAX" runs list --json >"$TMP/list1.json"; rc=$?
is "list --json exits 0" "$rc" 0
is "list --json: its schema" "$(py 'd["schema"]' "$TMP/list1.json")" "cmax.runs.list/1"
is "list --json: one run per distinct document" "$(py 'len(d["runs"])' "$TMP/list1.json")" "$want_n"
is "list --json: the store named, a SQLite file under CMAX_HOME" \
	"$(py '"cmax-home/cmax.db" in d["store"]' "$TMP/list1.json")" True
# kinds from the documents: audit schema -> audit, bench -> bench.NAME, inject
want_kinds=$(py 'sorted(("audit" if x["schema"] == "cmax.audit.results/1" else "bench." + x["benchmark"]) for x in ds if x["schema"] in ("cmax.audit.results/1", "cmax.bench.results/1"))' "${FILES[@]}")
is "list --json: the audit and bench kinds" \
	"$(py 'sorted(r["kind"] for r in d["runs"] if r["kind"] == "audit" or r["kind"].startswith("bench."))' "$TMP/list1.json")" "$want_kinds"
is "list --json: the inject runs" "$(py 'len([r for r in d["runs"] if r["kind"] == "inject"])' "$TMP/list1.json")" \
	"$(py 'len([x for x in ds if x["schema"] == "cmax.inject/1"])' "${FILES[@]}")"
is "list --json: newest first" \
	"$(py '[r["started_at"] or "" for r in d["runs"]] == sorted([r["started_at"] or "" for r in d["runs"]], reverse=True)' "$TMP/list1.json")" True
"$CMAX" runs list >"$TMP/list1.txt"
is "list: one table line per run and a header" "$(wc -l <"$TMP/list1.txt")" "$((want_n + 1))"
check "list: the table names a bench.storage run and its counts" grep -Eq 'bench\.storage .* 8/0/0/0/0 ' "$TMP/list1.txt"

# importing again records nothing new
"$CMAX" runs import "$R/base" "$R/real" >"$TMP/imp2.txt" 2>&1; rc=$?
is "a second import exits 0" "$rc" 0
is "a second import: every file already recorded" "$(grep -c '^already recorded ' "$TMP/imp2.txt")" \
	"$(ls "$R"/base/*.json "$R"/real/*.json | wc -l)"
"$CMAX" runs list --json >"$TMP/list2.json"
is "a second import: no duplicates" "$(py 'len(d["runs"])' "$TMP/list2.json")" "$want_n"

# filters
"$CMAX" runs list --json --kind bench.storage >"$TMP/l.json"
is "--kind bench.storage: the four storage runs" "$(py 'len(d["runs"])' "$TMP/l.json")" \
	"$(py 'len([x for x in ds if x.get("benchmark") == "storage"])' "${FILES[@]}")"
"$CMAX" runs list --json --limit 2 >"$TMP/l.json"
is "--limit 2: the two newest" "$(py '[r["id"] for r in d["runs"]]' "$TMP/l.json")" \
	"$(py '[r["id"] for r in d["runs"][:2]]' "$TMP/list1.json")"
"$CMAX" runs list --json --since 2026-11-30T13:00:00Z >"$TMP/l.json"
is "--since: every run listed started at or after it" \
	"$(py 'all(r["started_at"] >= "2026-11-30T13:00:00Z" for r in d["runs"])' "$TMP/l.json")" True
BS=$(id_of "$R/base/bench-storage.json")
is "--since: the base bench-storage run (13:00:00) is in" \
	"$("$PY" -c 'import json,sys; print(sys.argv[2] in [r["id"] for r in json.load(open(sys.argv[1]))["runs"]])' "$TMP/l.json" "$BS")" True
"$CMAX" runs list --since 2026-02-30 2>"$TMP/e"; rc=$?
is "--since 2026-02-30 is no date: 64" "$rc" 64

# ---- show, export ------------------------------------------------------------
"$CMAX" runs show --json "$BS" >"$TMP/show.json"; rc=$?
is "show --json exits 0" "$rc" 0
is "show --json: the run's rows, in the document's order" "$(py '[(r["id"], r["status"], r["host"]) for r in d["rows"]]' "$TMP/show.json")" \
	"$(py '[(r["id"], r["status"], r["host"]) for r in d["results"]]' "$R/base/bench-storage.json")"
is "show --json: the run's metadata" "$(py 'd["run"]["id"]' "$TMP/show.json")" "$BS"
"$CMAX" runs show "${BS:0:12}" >"$TMP/show.txt"; rc=$?
is "show by a 12-character prefix exits 0" "$rc" 0
check "show: names a row with its status and host" grep -q 'PASS  bench.storage-seq-read-1m-direct-c1 on gpu017' "$TMP/show.txt"

"$CMAX" runs export "$BS" >"$TMP/exp.json"; rc=$?
is "export exits 0" "$rc" 0
is "export: the document as imported" "$(py 'ds[0] == ds[1]' "$TMP/exp.json" "$R/base/bench-storage.json")" True
GA=$(id_of "$H/h100-healthy/expected.json") GB=$(id_of "$H/misconfig-h100/expected.json")
"$CMAX" runs export "$GA" "$GB" --output-file "$TMP/exp2.json"; rc=$?
is "export of two runs to --output-file exits 0" "$rc" 0
is "export of two runs: an array of the two documents" "$(py 'ds[0] == [ds[1], ds[2]]' "$TMP/exp2.json" \
	"$H/h100-healthy/expected.json" "$H/misconfig-h100/expected.json")" True
ln -s "$TMP/precious" "$TMP/link.json"; echo keep >"$TMP/precious"
"$CMAX" runs export "$BS" --output-file "$TMP/link.json" 2>"$TMP/e"; rc=$?
is "export --output-file through a symlink is refused: 73" "$rc" 73
is "and the link's target is untouched" "$(cat "$TMP/precious")" keep

# ---- diff --------------------------------------------------------------------
"$CMAX" runs import --json "$R/cases/underperforming/bench-storage.json" >"$TMP/imp3.json"
UP=$(py 'd["files"][0]["id"]' "$TMP/imp3.json")
# what moved, from the documents: rows by id (one host each), PASS < WARN < FAIL
EXPECT='import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
rank={"PASS":0,"WARN":1,"FAIL":2}
ra={r["id"]:r for r in a["results"]}
for r in b["results"]:
    x=ra[r["id"]]["status"]; y=r["status"]
    if x == y: continue
    ch = "unknown" if x not in rank or y not in rank else ("worse" if rank[y] > rank[x] else "better")
    print(ch, r["id"], ra[r["id"]]["host"], r["host"], x, y)'
"$PY" -c "$EXPECT" "$R/base/bench-storage.json" "$R/cases/underperforming/bench-storage.json" >"$TMP/want.txt"
"$CMAX" runs diff "$BS" "$UP" >"$TMP/diff.txt"; rc=$?
is "diff exits 0 although the runs differ" "$rc" 0
n=0
while read -r ch id ha hb x y; do
	n=$((n + 1))
	check "diff names $id: $ch, $x -> $y" grep -q "^$ch  *$id on $ha -> $hb: $x -> $y" "$TMP/diff.txt"
done <"$TMP/want.txt"
check "the documents differ in rows (a diff that finds nothing cannot pass)" test "$n" -gt 0
# bandwidth (GB/s: higher is better) that moved by more than 2 %, from the documents
"$PY" -c 'import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
ra={r["id"]:r for r in a["results"]}
for r in b["results"]:
    x=ra[r["id"]]["observed"]["bw_gb_s"]; y=r["observed"]["bw_gb_s"]
    if abs(y - x) / max(abs(x), abs(y)) > 0.02:
        print("worse" if y < x else "better", r["id"], ra[r["id"]]["host"], r["host"], "%g" % x, "%g" % y)' \
	"$R/base/bench-storage.json" "$R/cases/underperforming/bench-storage.json" >"$TMP/wantf.txt"
n=0
while read -r ch id ha hb x y; do
	n=$((n + 1))
	check "diff: $id bandwidth $x -> $y GB/s is $ch" grep -q "^$ch  *$id on $ha -> $hb observed.bw_gb_s: $x -> $y " "$TMP/diff.txt"
done <"$TMP/wantf.txt"
check "the documents differ in bandwidth" test "$n" -gt 0
"$CMAX" runs diff --json "$BS" "$UP" >"$TMP/diff.json"
is "diff --json: its schema" "$(py 'd["schema"]' "$TMP/diff.json")" "cmax.runs.diff/1"
is "diff --json: rows worse" "$(py 'd["counts"]["rows"]["worse"]' "$TMP/diff.json")" "$(grep -c '^worse' "$TMP/want.txt")"
is "diff --json: no row better" "$(py 'd["counts"]["rows"]["better"]' "$TMP/diff.json")" 0
is "diff --json: both runs named" "$(py '[d["a"]["id"], d["b"]["id"]]' "$TMP/diff.json")" "['$BS', '$UP']"
"$CMAX" runs diff --json "$UP" "$BS" >"$TMP/rdiff.json"
is "diff the other way: the same rows better" "$(py 'd["counts"]["rows"]["better"]' "$TMP/rdiff.json")" "$(grep -c '^worse' "$TMP/want.txt")"
is "diff the other way: the same bandwidth figures better" \
	"$(py 'sorted(f["id"] for f in d["figures"] if f["path"] == "observed.bw_gb_s" and f["change"] == "better")' "$TMP/rdiff.json")" \
	"$("$PY" -c 'import sys; print(sorted(l.split()[1] for l in open(sys.argv[1]) if l.startswith("worse")))' "$TMP/wantf.txt")"

# two audit goldens: every moved row, SKIP moves unknown (never better or worse)
"$PY" -c "$EXPECT" "$H/h100-healthy/expected.json" "$H/misconfig-h100/expected.json" >"$TMP/want2.txt"
"$CMAX" runs diff --json "$GA" "$GB" >"$TMP/diff2.json"
is "audit diff: each moved row with the change worked out from the documents" \
	"$("$PY" -c 'import json,sys
d=json.load(open(sys.argv[1]))
for r in d["rows"]:
    if r["change"] in ("better","worse","unknown"): print(r["change"], r["id"], r["host"], r.get("host_b", r["host"]), r["from"], r["to"])' "$TMP/diff2.json" | sort)" \
	"$(sort "$TMP/want2.txt")"
check "audit diff: a PASS -> SKIP move is among them (software.hpc-sdk)" grep -q '^unknown software.hpc-sdk ' "$TMP/want2.txt"
A_CL=$(py 'd["a"].get("cluster")' "$TMP/diff2.json") B_CL=$(py 'd["b"].get("cluster")' "$TMP/diff2.json")
"$CMAX" runs diff "$GA" "$GB" >"$TMP/diff2.txt"
if [ "$A_CL" != "$B_CL" ]; then
	check "runs of two clusters ($A_CL, $B_CL): compared, with a note" grep -q '^note: the runs are of different clusters' "$TMP/diff2.txt"
else
	check "runs of one cluster: no note" test "$(grep -c '^note:' "$TMP/diff2.txt")" = 0
fi
"$CMAX" runs diff "$BS" "$BS" >"$TMP/same.txt"; rc=$?
is "a run against itself: 0" "$rc" 0
check "a run against itself: no difference" grep -q '^0 differences' "$TMP/same.txt"
"$CMAX" runs diff --exit-code "$BS" "$BS" >/dev/null; rc=$?
is "--exit-code, no difference: 0" "$rc" 0
"$CMAX" runs diff --exit-code "$BS" "$UP" >/dev/null; rc=$?
is "--exit-code, differences: 1" "$rc" 1
"$CMAX" runs diff "$BS" "$GA" 2>"$TMP/e"; rc=$?
is "a bench run against an audit run: 64" "$rc" 64
check "in one line naming both kinds" grep -q 'different kinds' "$TMP/e"

# ---- refusals ----------------------------------------------------------------
"$CMAX" runs show zz-no-such-run 2>"$TMP/e"; rc=$?
is "an unknown run id: 66" "$rc" 66
is "in one line" "$(wc -l <"$TMP/e")" 1
# a prefix two ids share (sorted neighbours' common start)
AMB=$("$PY" -c 'import json,sys,os
ids=sorted(r["id"] for r in json.load(open(sys.argv[1]))["runs"])
best=max((os.path.commonprefix([a,b]) for a,b in zip(ids, ids[1:])), key=len)
print(best)' "$TMP/list1.json")
if [ -n "$AMB" ]; then
	"$CMAX" runs show "$AMB" 2>"$TMP/e"; rc=$?
	is "an ambiguous prefix ($AMB): 64" "$rc" 64
else
	not_ok "no two of $want_n run ids share a first character: the test cannot make an ambiguous prefix"
fi
"$CMAX" runs show --limit 3 "$BS" 2>"$TMP/e"; rc=$?
is "an option of another action (show --limit): 64" "$rc" 64
"$CMAX" runs lst 2>"$TMP/e"; rc=$?
is "a mistyped action: 64" "$rc" 64
check "with a did-you-mean" grep -q "did you mean 'list'" "$TMP/e"

# a store path that is a symlink is refused and its target never touched
echo precious >"$TMP/target.db"
ln -s "$TMP/target.db" "$TMP/evil.db"
"$CMAX" runs import --store "$TMP/evil.db" "$R/base/bench-gpu.json" >/dev/null 2>"$TMP/e"; rc=$?
check "a symlinked store path is refused (exit $rc)" test "$rc" -ne 0
is "its target unchanged" "$(cat "$TMP/target.db")" precious
ln -s "$TMP/nowhere.db" "$TMP/dangling.db"
"$CMAX" runs list --store "$TMP/dangling.db" >/dev/null 2>&1; rc=$?
check "a dangling symlink store is refused (exit $rc)" test "$rc" -ne 0
check "and nothing is created at its target" test ! -e "$TMP/nowhere.db"

# ---- import: bad files, run directories, CMAX_STORE ---------------------------
mkdir -p "$TMP/mixed" "$TMP/auditrun"
echo 'not json' >"$TMP/mixed/a-broken.json"
echo '{"hello": 1}' >"$TMP/mixed/b-foreign.json"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["started_at"]="2026-12-01T00:00:00Z"; json.dump(d, open(sys.argv[2],"w"))' \
	"$R/base/bench-net.json" "$TMP/mixed/c-good.json"
"$CMAX" runs import "$TMP/mixed" >"$TMP/o" 2>"$TMP/e"; rc=$?
is "a directory with two bad files: 65 at the end" "$rc" 65
check "the good one is imported" grep -q "^imported $TMP/mixed/c-good.json as " "$TMP/o"
check "the broken one is named with why" grep -q "skipped $TMP/mixed/a-broken.json: not JSON" "$TMP/e"
check "the foreign one is named with why" grep -q "skipped $TMP/mixed/b-foreign.json: not a cmax result document" "$TMP/e"
"$CMAX" runs import "$TMP/no-such-dir" 2>"$TMP/e"; rc=$?
is "a path that is not there: 66" "$rc" 66
cp "$H/h100-active/expected.json" "$TMP/auditrun/audit.results.json"
echo '{"schema": "cmax.audit.values/1"}' >"$TMP/auditrun/audit.values.json"
"$CMAX" runs import "$TMP/auditrun" >"$TMP/o" 2>"$TMP/e"; rc=$?
is "an audit run directory: 0" "$rc" 0
check "its audit.results.json imported" grep -q "^imported $TMP/auditrun/audit.results.json as " "$TMP/o"
is "and nothing else in it" "$(wc -l <"$TMP/o")" 1
CMAX_STORE=$TMP/other.db "$CMAX" runs import "$R/base/bench-s3.json" >/dev/null; rc=$?
is "CMAX_STORE chooses the store: 0" "$rc" 0
is "CMAX_STORE: the run is in that store" "$("$CMAX" runs list --json --store "$TMP/other.db" | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["runs"]))')" 1

# ---- rm ------------------------------------------------------------------------
cp "$R/base/bench-metadata.json" "$TMP/meta.json"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["started_at"]="2026-12-02T00:00:00Z"; json.dump(d, open(sys.argv[1],"w"))' "$TMP/meta.json"
RM=$("$CMAX" runs import --json "$TMP/meta.json" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["files"][0]["id"])')
"$CMAX" runs rm "$RM" </dev/null 2>"$TMP/e"; rc=$?
is "rm without --yes and no terminal: 64" "$rc" 64
"$CMAX" runs show "$RM" >/dev/null 2>&1; rc=$?
is "and the run stays" "$rc" 0
"$CMAX" runs rm --dry-run "$RM" >"$TMP/o"; rc=$?
is "rm --dry-run: 0" "$rc" 0
check "rm --dry-run lists the run" grep -q "^would delete $RM " "$TMP/o"
"$CMAX" runs show "$RM" >/dev/null 2>&1; rc=$?
is "and the run stays" "$rc" 0
"$CMAX" runs rm --yes "$RM" zz-no-such-run >/dev/null 2>&1; rc=$?
is "rm of a known and an unknown run: 66" "$rc" 66
"$CMAX" runs show "$RM" >/dev/null 2>&1; rc=$?
is "and nothing was deleted (every run is resolved first)" "$rc" 0
"$CMAX" runs rm --yes "$RM" >"$TMP/o"; rc=$?
is "rm --yes: 0" "$rc" 0
"$CMAX" runs show "$RM" >/dev/null 2>&1; rc=$?
is "the run is gone: 66" "$rc" 66
check "its document on disk stays" test -s "$TMP/meta.json"

# ---- rate reads runs from the store --------------------------------------------
"$CMAX" rate --compare --json "run:$BS" "run:$UP" >"$TMP/rate.json" 2>"$TMP/e"; rc=$?
is "rate --compare run:A run:B: 0" "$rc" 0
diag <"$TMP/e"
is "rate --compare: two providers" "$(py 'len(d["providers"])' "$TMP/rate.json")" 2
"$CMAX" rate --json "run:$BS" >"$TMP/rate1.json" 2>/dev/null
"$CMAX" rate --json "$R/base/bench-storage.json" >"$TMP/rate2.json" 2>/dev/null
is "rate run:ID scores as the file does" "$(py 'ds[0]["score"] == ds[1]["score"] and ds[0]["tier"] == ds[1]["tier"]' "$TMP/rate1.json" "$TMP/rate2.json")" True
"$CMAX" rate "run:zz-no-such-run" 2>"$TMP/e"; rc=$?
is "rate run:UNKNOWN: 66" "$rc" 66

# ---- parallel imports into one store -----------------------------------------------
mkdir -p "$TMP/par"
"$PY" -c 'import json,sys
d=json.load(open(sys.argv[1]))
for i in range(6):
    d["started_at"]="2026-11-%02dT10:00:00Z" % (i + 1)
    json.dump(d, open("%s/%d.json" % (sys.argv[2], i), "w"))' "$R/base/bench-storage.json" "$TMP/par"
pids=()
for i in 0 1 2 3 4 5; do
	"$CMAX" runs import --store "$TMP/par.db" "$TMP/par/$i.json" >"$TMP/par/$i.out" 2>&1 &
	pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
is "six parallel imports into one store: all exit 0" "$bad" 0
[ "$bad" = 0 ] || cat "$TMP"/par/*.out | diag
is "six parallel imports: six runs recorded" \
	"$("$CMAX" runs list --json --store "$TMP/par.db" | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["runs"]))')" 6

done_testing
