#!/usr/bin/env bash
# The results store itself (store/store.h) on both backends, each a real
# one: the SQLite file's shape (STRICT tables, user_version, WAL), what a
# record holds (one row per result row, one figure per number under a
# row's "observed", counted here from the documents), parallel writers
# losing no run, the stores it refuses (a newer cmax's, not a database, no
# such directory, an unknown URL scheme); then a real PostgreSQL server
# (tests/lib/pg.sh): the same documents round-trip through it (list,
# export, show, diff agree with the SQLite store's), parallel writers, a
# password in the URL never shown, an unreachable server is 69.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
. "$SRCDIR/tests/lib/pg.sh" || exit 1
export CMAX_DATADIR=$SRCDIR/data
trap 'pg_stop; rm -rf "$TMP"' EXIT
if ! command -v python3 >/dev/null; then
	skip "python3 is needed to read the JSON and the SQLite file"
	done_testing; exit
fi
PY=$(python3 -c 'import sys; print(sys.executable)')
is() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; echo "#   got:  $2" | head -5; echo "#   want: $3"; fi; }
py() { "$PY" -c "$@" 2>&1; }
R=$SRCDIR/tests/fixtures/rate
H=$SRCDIR/tests/fixtures/hosts
DOCS=("$R"/base/*.json "$H/h100-healthy/expected.json" "$H/misconfig-h100/expected.json")
DB=$CMAX_HOME/cmax.db

# ---- SQLite: the file ------------------------------------------------------------
"$CMAX" runs import --json "${DOCS[@]}" >"$TMP/imp.json" 2>"$TMP/imp.err"; rc=$?
is "import into the default store: 0" "$rc" 0
diag <"$TMP/imp.err"
check "the default store is \$CMAX_HOME/cmax.db" test -f "$DB"
is "its directory is private (0700)" "$(stat -c %a "$CMAX_HOME")" 700
is "schema version by user_version: 1" "$(py 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version").fetchone()[0])' "$DB")" 1
is "journal mode WAL" "$(py 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA journal_mode").fetchone()[0])' "$DB")" wal
is "runs, rows and figures are STRICT tables" \
	"$(py 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
print(sorted(n for n,s in c.execute("SELECT name, sql FROM sqlite_master WHERE type=\"table\"") if s.rstrip().upper().endswith("STRICT")))' "$DB")" \
	"['figures', 'rows', 'runs']"
# what the documents hold, counted here: rows ("results" or "tests") and
# every finite number under a row's "observed", objects walked
COUNTS='import json,sys
def nums(v):
    if isinstance(v, bool): return 0
    if isinstance(v, (int, float)): return 1
    if isinstance(v, dict): return sum(nums(x) for x in v.values())
    return 0
seen, rows, figs = set(), 0, 0
for f in sys.argv[1:]:
    d = json.load(open(f)); k = json.dumps(d, sort_keys=True)
    if k in seen: continue
    seen.add(k)
    rs = d.get("results") if isinstance(d.get("results"), list) else d.get("tests") or []
    rows += len(rs); figs += sum(nums(r.get("observed")) for r in rs if isinstance(r, dict))
print(len(seen), rows, figs)'
want=$(py "$COUNTS" "${DOCS[@]}")
got=$(py 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
print(*(c.execute("SELECT count(*) FROM " + t).fetchone()[0] for t in ("runs","rows","figures")))' "$DB")
is "one run per document, one row per result row, one figure per number observed" "$got" "$want"
is "a run's figures are its rows' (no orphans)" \
	"$(py 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM figures f LEFT JOIN rows r ON r.run_id=f.run_id AND r.seq=f.row_seq WHERE r.run_id IS NULL").fetchone()[0])' "$DB")" 0
"$CMAX" runs import --json "${DOCS[0]}" >"$TMP/again.json"; rc=$?
is "recording a document again: 0" "$rc" 0
is "is a no-op naming the first run" \
	"$(py 'import json,sys; a=json.load(open(sys.argv[1]))["files"][0]; b=json.load(open(sys.argv[2]))["files"][0]; print(b["status"], b["id"] == a["id"])' "$TMP/imp.json" "$TMP/again.json")" "recorded True"

# ---- SQLite: parallel writers ----------------------------------------------------
# 24 distinct documents (one fixture, its started_at moved) and the same
# document 8 times, all written at once into one new store
mkdir -p "$TMP/par"
py 'import json,sys
d=json.load(open(sys.argv[1]))
for i in range(24):
    d["started_at"] = "2026-11-%02dT10:00:00Z" % (i + 1)
    json.dump(d, open("%s/%02d.json" % (sys.argv[2], i), "w"))' "$H/h100-healthy/expected.json" "$TMP/par"
pids=()
for f in "$TMP"/par/*.json "$TMP"/par/00.json "$TMP"/par/00.json "$TMP"/par/00.json "$TMP"/par/01.json \
	"$TMP"/par/01.json "$TMP"/par/02.json "$TMP"/par/02.json "$TMP"/par/03.json; do
	"$CMAX" runs import --store "$TMP/par.db" "$f" >/dev/null 2>>"$TMP/par.err" &
	pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
is "32 parallel writers into one SQLite store: all exit 0" "$bad" 0
diag <"$TMP/par.err"
is "no run lost, none doubled: 24 runs" \
	"$("$CMAX" runs list --json --store "$TMP/par.db" | py 'import json,sys; print(len(json.load(sys.stdin)["runs"]))')" 24
is "and each run's rows whole" \
	"$(py 'import sqlite3,sys; print(sorted(set(n for (n,) in sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM rows GROUP BY run_id"))))' "$TMP/par.db")" \
	"[$(py 'import json,sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$TMP/par/00.json")]"

# ---- SQLite: the stores it refuses -----------------------------------------------
cp "$TMP/par.db" "$TMP/newer.db"
py 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 99"); c.commit()' "$TMP/newer.db" >/dev/null
"$CMAX" runs list --store "$TMP/newer.db" >/dev/null 2>"$TMP/e"; rc=$?
is "a store of a newer cmax: 65" "$rc" 65
check "saying so in one line" grep -q "newer cmax" "$TMP/e"
is "one line" "$(wc -l <"$TMP/e")" 1
printf 'not a database, but text\n%.0s' $(seq 200) >"$TMP/junk.db"
"$CMAX" runs list --store "$TMP/junk.db" >/dev/null 2>"$TMP/e"; rc=$?
is "a file that is no database: 65" "$rc" 65
"$CMAX" runs list --store "$TMP/no/such/dir/x.db" >/dev/null 2>"$TMP/e"; rc=$?
is "a store in a directory that is not there: 66" "$rc" 66
"$CMAX" runs list --store "https://example.invalid/db" >/dev/null 2>"$TMP/e"; rc=$?
is "a URL scheme that is no store: 64" "$rc" 64

# ---- PostgreSQL ------------------------------------------------------------------------
if ! pg_start; then
	skip "PostgreSQL: $PG_WHY"
	done_testing; exit
fi
diag <<<"PostgreSQL at $PG_URL"
"$CMAX" runs import --json --store "$PG_URL" "${DOCS[@]}" >"$TMP/pimp.json" 2>"$TMP/pimp.err"; rc=$?
is "import into PostgreSQL: 0" "$rc" 0
diag <"$TMP/pimp.err"
is "the same run ids as in SQLite" \
	"$(py 'import json,sys; print([f["id"] for f in json.load(open(sys.argv[1]))["files"]])' "$TMP/pimp.json")" \
	"$(py 'import json,sys; print([f["id"] for f in json.load(open(sys.argv[1]))["files"]])' "$TMP/imp.json")"
"$CMAX" runs list --json --store "$PG_URL" >"$TMP/plist.json"
"$CMAX" runs list --json >"$TMP/slist.json"
# (the same order where the start times say it: runs that started at the
# same time are ordered by when each store recorded them)
is "list: the same runs with the same metadata, both newest first" \
	"$(py 'import json,sys
a,b=(json.load(open(f))["runs"] for f in sys.argv[1:])
drop=lambda r: {k:v for k,v in r.items() if k != "recorded_at"}
key=lambda r: r["id"]
newest=lambda rs: [r["started_at"] or "" for r in rs] == sorted([r["started_at"] or "" for r in rs], reverse=True)
print(sorted(map(drop, a), key=key) == sorted(map(drop, b), key=key) and newest(a) and newest(b), len(a))' "$TMP/plist.json" "$TMP/slist.json")" "True $(py "$COUNTS" "${DOCS[@]}" | cut -d' ' -f1)"
check "list --json names the PostgreSQL store" grep -q '"store": "postgresql://cmax@' "$TMP/plist.json"
# every document back unchanged
bad=0
for f in "${DOCS[@]}"; do
	id=$(py 'import json,sys; print(next(x["id"] for x in json.load(open(sys.argv[1]))["files"] if x["path"].endswith(sys.argv[2])))' "$TMP/pimp.json" "${f#"$SRCDIR"/}")
	"$CMAX" runs export --store "$PG_URL" "$id" >"$TMP/exp.json" || bad=$((bad + 1))
	[ "$(py 'import json,sys; print(json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])))' "$TMP/exp.json" "$f")" = True ] || bad=$((bad + 1))
done
is "export from PostgreSQL: every document equal to its file" "$bad" 0
A=$(py 'import json,sys; print(next(x["id"] for x in json.load(open(sys.argv[1]))["files"] if x["path"].endswith("h100-healthy/expected.json")))' "$TMP/pimp.json")
B=$(py 'import json,sys; print(next(x["id"] for x in json.load(open(sys.argv[1]))["files"] if x["path"].endswith("misconfig-h100/expected.json")))' "$TMP/pimp.json")
"$CMAX" runs show --json --store "$PG_URL" "$A" >"$TMP/pshow.json"
"$CMAX" runs show --json "$A" >"$TMP/sshow.json"
is "show: the same rows from both stores" "$(py 'import json,sys; a,b=(json.load(open(f))["rows"] for f in sys.argv[1:]); print(a == b, len(a))' "$TMP/pshow.json" "$TMP/sshow.json")" \
	"True $(py 'import json,sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$H/h100-healthy/expected.json")"
"$CMAX" runs diff --json --store "$PG_URL" "$A" "$B" >"$TMP/pdiff.json"
"$CMAX" runs diff --json "$A" "$B" >"$TMP/sdiff.json"
is "diff: the same rows and figures from both stores" \
	"$(py 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print(a["rows"] == b["rows"] and a["figures"] == b["figures"], a["differences"] > 0)' "$TMP/pdiff.json" "$TMP/sdiff.json")" "True True"
"$CMAX" runs import --json --store "$PG_URL" "${DOCS[0]}" >"$TMP/pagain.json"
is "recording again into PostgreSQL is a no-op" "$(py 'import json,sys; print(json.load(open(sys.argv[1]))["files"][0]["status"])' "$TMP/pagain.json")" recorded
"$CMAX" runs rm --yes --store "$PG_URL" "$B" >/dev/null; rc=$?
is "rm from PostgreSQL: 0" "$rc" 0
"$CMAX" runs show --store "$PG_URL" "$B" >/dev/null 2>&1; rc=$?
is "the run is gone: 66" "$rc" 66
pids=()
for f in "$TMP"/par/*.json "$TMP"/par/00.json "$TMP"/par/00.json "$TMP"/par/05.json; do
	"$CMAX" runs import --store "$PG_URL" "$f" >/dev/null 2>>"$TMP/ppar.err" &
	pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
is "27 parallel writers into PostgreSQL: all exit 0" "$bad" 0
diag <"$TMP/ppar.err"
is "no run lost, none doubled" \
	"$("$CMAX" runs list --json --store "$PG_URL" --kind audit | py 'import json,sys; print(len(json.load(sys.stdin)["runs"]))')" \
	"$(("$(py 'import json,sys; print(len([x for x in json.load(open(sys.argv[1]))["runs"] if x["kind"] == "audit"]))' "$TMP/plist.json")" - 1 + 24))"
# a password in the URL (trust authentication ignores it) is never shown
SECRET_URL="postgresql://cmax:pw-s3cr3t-77@/cmax?host=$PG_DIR&port=$PG_PORT"
"$CMAX" runs list --json --store "$SECRET_URL" >"$TMP/sec.out" 2>"$TMP/sec.err"; rc=$?
is "a URL with a password works: 0" "$rc" 0
check "and the password is in no output" bash -c "! grep -q pw-s3cr3t-77 '$TMP/sec.out' '$TMP/sec.err'"
pg_stop
"$CMAX" runs list --store "$SECRET_URL" >"$TMP/down.out" 2>"$TMP/down.err"; rc=$?
is "a PostgreSQL server that cannot be reached: 69" "$rc" 69
is "in one line" "$(wc -l <"$TMP/down.err")" 1
check "without the password" bash -c "! grep -q pw-s3cr3t-77 '$TMP/down.err'"
done_testing
