#!/usr/bin/env bash
# cmax bench metadata on the real file system under a temp dir: every
# correctness check PASSes here (ext4 or overlay), the rates and the import
# probe are measured, the document validates, nothing is left behind. The
# FAIL paths of the checkers are exercised by tests/unit/test_bench_meta.c
# with fakes (a lock that does not lock, a mkdir that lies); the two-node
# lock test (SKIP here, outside Slurm) by tests/cli/t-bench-slurm.sh.
. "$(dirname "$0")/../lib/tap.sh"
export CMAX_DATADIR=$SRCDIR/data
D=$TMP/fs; mkdir -p "$D"
left() { find "$D" -mindepth 1 | head -3; }
small=(--files 500 --import-files 2000 --alloc-mib 16)

"$CMAX" bench metadata --path "$D" --dry-run --json >"$TMP/plan.json"
check "dry-run --json plan" python3 -c '
import json,sys; p=json.load(open(sys.argv[1])); assert p["benchmark"]=="metadata" and p["bytes_max"]>0' "$TMP/plan.json"
check "dry-run wrote nothing" [ -z "$(left)" ]
"$CMAX" bench metadata --path "$D" </dev/null >/dev/null 2>"$TMP/err"
check "no --yes without a terminal: exit 64" [ $? -eq 64 ]
"$CMAX" bench metadata --path "$D" --workers 0 --yes >/dev/null 2>&1
check "bad --workers: exit 64" [ $? -eq 64 ]

t0=$(date +%s)
env -u SLURM_JOB_ID -u SLURM_JOBID "$CMAX" bench metadata --path "$D" --yes --json --workers 3 "${small[@]}" >"$TMP/m.json" 2>"$TMP/m.err"
check "metadata run exits 0" [ $? -eq 0 ]
diag <"$TMP/m.err"
check "document validates against the bench schema" python3 "$SRCDIR/tests/contract/validate-bench.py" "$TMP/m.json"
check "all correctness checks PASS on $(stat -f -c %T "$D")" python3 -c '
import json,sys; r={x["id"]:x for x in json.load(open(sys.argv[1]))["results"]}
for k in ("mkdir-race","flock-lock","fcntl-lock","names"):
    x=r["bench.metadata-"+k]; assert x["status"]=="PASS", (k, x["summary"])
assert r["bench.metadata-flock-lock"]["observed"]["violations"]==0
assert r["bench.metadata-mkdir-race"]["observed"]["spurious_errors"]==0
assert r["bench.metadata-names"]["observed"]["names_tried"]>=30' "$TMP/m.json"
check "rates, import probe and 4 KiB writes measured" python3 -c '
import json,sys; r={x["id"]:x for x in json.load(open(sys.argv[1]))["results"]}
for k in ("create","stat","open-read-close","unlink"):
    x=r["bench.metadata-"+k]; assert x["status"] in ("PASS","WARN","FAIL"), x["summary"]
    assert x["observed"]["per_s"]>0 and x["observed"]["ops"]==1500 and x["observed"]["errors"]==0, x["observed"]
i=r["bench.metadata-import-probe"]["observed"]; assert i["files"]==2000 and i["predicted_import_torch_s"]>=1.0, i
a=r["bench.metadata-alloc-write-4k"]["observed"]; assert a["writes"]==4096 and a["mb_s"]>0, a' "$TMP/m.json"
check "outside Slurm the two-node lock rows are SKIP with the reason" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); r={x["id"]:x for x in d["results"]}
for k in ("flock","fcntl"):
    x=r["bench.metadata-%s-lock-nodes" % k]
    assert x["status"]=="SKIP" and "not in a Slurm allocation with 2+ nodes" in x["summary"], x["summary"]
assert d["target"]["harness"]=="standalone"' "$TMP/m.json"
check "work directory removed" [ -z "$(left)" ]
check "run took under 30 s" [ $(( $(date +%s) - t0 )) -lt 30 ]

"$CMAX" bench metadata --path "$D" --yes --workers 2 "${small[@]}" >"$TMP/text" 2>&1
check "text table lists the lock checks" grep -Eq '^PASS +fcntl-lock +200 exclusive fcntl' "$TMP/text"
check "text table has counts" grep -q 'passed' "$TMP/text"

"$CMAX" bench metadata --path "$D" --yes --files 200000 --import-files 2000 >"$TMP/int.out" 2>&1 &
pid=$!
for _ in $(seq 50); do [ -d "$(ls -d "$D"/cmax-bench-metadata-* 2>/dev/null | head -1)/rates" ] && break; sleep 0.1; done
sleep 0.3
kill -INT $pid
wait $pid
check "SIGINT: exit 130" [ $? -eq 130 ]
check "SIGINT: work directory removed" [ -z "$(left)" ]
check "SIGINT: no worker left" bash -c '! pgrep -P '"$pid"' >/dev/null'
done_testing
