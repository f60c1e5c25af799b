#!/usr/bin/env bash
# cmax bench storage against real fio on the real file system under a temp
# dir: --dry-run writes nothing, --yes is required without a terminal, a
# quick sweep validates against the bench schema and leaves nothing behind,
# O_DIRECT refused (ramfs) is a SKIP with fio's message, Ctrl-C cleans up,
# a tiny --endurance run reports a degradation figure.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
if ! command -v fio >/dev/null; then
	skip "fio is not installed (apt-get install fio)"
	done_testing; exit
fi
D=$TMP/fs; mkdir -p "$D"
left() { find "$D" -mindepth 1 | head -3; }

"$CMAX" bench storage --path "$D" --dry-run >"$TMP/plan" 2>&1
check "dry-run exits 0" [ $? -eq 0 ]
check "dry-run names the work directory and the fio command" grep -q "cmax-bench-storage-XXXXXX.*--rw=randread" "$TMP/plan"
check "dry-run wrote nothing" [ -z "$(left)" ]
"$CMAX" bench storage --path "$D" --dry-run --json --clients 4 >"$TMP/plan.json"
check "dry-run --json: 3 client counts x 8 cases, 4 files" python3 -c '
import json,sys; p=json.load(open(sys.argv[1])); assert p["schema"]=="cmax.bench.plan/1"
assert len(p["commands"])==24 and len(p["files"])==4, p' "$TMP/plan.json"

"$CMAX" bench storage --path "$D" </dev/null >"$TMP/out" 2>"$TMP/err"
check "without --yes and no terminal: exit 64" [ $? -eq 64 ]
check "... and says why" grep -q -- "--yes" "$TMP/err"
"$CMAX" bench storage --path "$TMP/nope" --yes >/dev/null 2>&1
check "missing --path directory: exit 66" [ $? -eq 66 ]
"$CMAX" bench nosuch >/dev/null 2>&1
check "unknown benchmark: exit 64" [ $? -eq 64 ]

t0=$(date +%s)
"$CMAX" bench storage --path "$D" --yes --json --clients 2 --size 8M --output-file "$TMP/copy.json" >"$TMP/q.json" 2>"$TMP/q.err"
rc=$?
check "quick sweep at 1 and 2 clients exits 0" [ $rc -eq 0 ]
diag <"$TMP/q.err"
check "quick sweep validates against the bench schema" python3 "$SRCDIR/tests/contract/validate-bench.py" "$TMP/q.json"
check "--output-file has the same document" python3 -c '
import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a["results"]==b["results"]' "$TMP/q.json" "$TMP/copy.json"
check "16 rows, all graded (no ERROR), figures recorded" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); r=d["results"]; assert len(r)==16, len(r)
for x in r:
    assert x["status"] in ("PASS","WARN","FAIL","SKIP"), (x["id"], x["summary"])
    assert x["profile"]=="storage" and x["reproduce"].startswith("fio ")
    if x["status"]!="SKIP":
        o=x["observed"]; assert o["bw_bytes_per_s"]>0 and o["iops"]>0 and o["errors"]==0, o
        assert "p99.9" in o["clat_ns"] and o["clat_ns"]["p99"] is not None, o
    assert x["evidence"][0]["kind"]=="command"
assert any(x["id"]=="bench.storage-rand-read-64k-direct-c2" for x in r)' "$TMP/q.json"
check "work directory removed after the run" [ -z "$(left)" ]
check "quick sweep took under 40 s" [ $(( $(date +%s) - t0 )) -lt 40 ]
"$CMAX" bench storage --path "$D" --yes --only rand-read-4k >"$TMP/text" 2>&1
check "text table has the case and its figures" grep -Eq '^(PASS|WARN|FAIL) +rand-read-4k-buffered-c1 +[0-9.]+ +[0-9]+' "$TMP/text"

# O_DIRECT refused: ramfs has no direct I/O (tmpfs has it since Linux 6.6).
R=$TMP/ramfs; mkdir -p "$R"
if mount -t ramfs none "$R" 2>/dev/null; then
	"$CMAX" bench storage --path "$R" --yes --json --only seq-read --size 4M >"$TMP/r.json" 2>"$TMP/r.err"
	check "ramfs run exits 0 (a refusal does not fail the run)" [ $? -eq 0 ]
	diag <"$TMP/r.err"
	check "direct case SKIP with fio's error, buffered case measured" python3 -c '
import json,sys; r={x["id"]:x for x in json.load(open(sys.argv[1]))["results"]}
d=r["bench.storage-seq-read-1m-direct-c1"]; b=r["bench.storage-seq-read-1m-buffered-c1"]
assert d["status"]=="SKIP" and "O_DIRECT" in d["summary"] and "ramfs" in d["summary"], d["summary"]
assert b["status"] in ("PASS","WARN","FAIL") and b["observed"]["bw_bytes_per_s"]>0' "$TMP/r.json"
	check "ramfs document validates" python3 "$SRCDIR/tests/contract/validate-bench.py" "$TMP/r.json"
	check "nothing left on ramfs" [ -z "$(find "$R" -mindepth 1 | head -1)" ]
	umount "$R"
else
	skip "cannot mount ramfs here (not root): O_DIRECT refusal not exercised"
fi

# Ctrl-C in the middle of a long case: fio is killed, the directory removed.
"$CMAX" bench storage --path "$D" --yes --only rand-read-4k --runtime 30 >"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 50); do [ -n "$(find "$D" -name 'cmax.0.0' 2>/dev/null)" ] && break; sleep 0.1; done
sleep 0.5
kill -INT $pid
t1=$(date +%s); wait $pid; rc=$?
check "SIGINT: exit 130" [ $rc -eq 130 ]
check "SIGINT: stopped within 5 s, not after the 30 s case" [ $(( $(date +%s) - t1 )) -lt 5 ]
check "SIGINT: work directory removed" [ -z "$(left)" ]
check "SIGINT: no live fio left behind" bash -c '! ps -eo stat=,args= | grep -v "^Z" | grep -q "[f]io --name=rand-read-4k-buffered --directory='"$D"'"'

# Endurance with a tiny phase: 3 s per phase, 1 s intervals.
"$CMAX" bench storage --path "$D" --yes --json --endurance --endurance-minutes 0.05 --size 16M >"$TMP/e.json" 2>"$TMP/e.err"
check "endurance exits 0" [ $? -eq 0 ]
check "endurance: two phases with intervals and a degradation figure" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); r=d["results"]; assert len(r)==2, r
for x in r:
    o=x["observed"]; assert x["status"] in ("PASS","WARN","FAIL"), x["summary"]
    assert len(o["intervals"])>=2 and "degradation_pct" in o and o["interval_s"]==1, o
    assert o["intervals"][0]["bw_bytes_per_s"]>0 and o["intervals"][0]["p99_ns"]>0
assert d["parameters"]["mode"]=="endurance"' "$TMP/e.json"
check "endurance validates" python3 "$SRCDIR/tests/contract/validate-bench.py" "$TMP/e.json"
check "endurance left nothing" [ -z "$(left)" ]

PATH=/nonexistent "$CMAX" bench storage --path "$D" --yes --json >"$TMP/nofio.json" 2>/dev/null
check "no fio: a SKIP row, nothing written" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert d["counts"]["SKIP"]==1 and "fio" in d["results"][0]["summary"]' "$TMP/nofio.json"
check "no fio: nothing left" [ -z "$(left)" ]
done_testing
