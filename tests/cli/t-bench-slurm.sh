#!/usr/bin/env bash
# run-all: alone (the two-node lock test needs its workers to overlap: no other test may slow one of them)
# cmax bench storage and metadata across the nodes of a real Slurm
# (tests/slurm/slurm-up.sh: munge, slurmctld and two slurmd on loopback).
# Every "node" is this host, so a local temp dir stands in for the shared
# file system. Covers: usage errors, the srun commands of --dry-run, fio on
# 1 and 2 nodes with the aggregate equal to the sum of the per-node figures,
# a node whose fio prints garbage (ERROR naming it, the other figures
# kept), Ctrl-C cancelling the srun step, and the two-node lock test: PASS
# with real locks, FAIL when the test hook CMAX_BENCH_LOCK_NOOP=1 makes the
# workers skip the lock (the detector can fail).
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
. "$SRCDIR/tests/slurm/fleet-lib.sh"
export CMAX_DATADIR=$SRCDIR/data
PY=${PYTHON:-/usr/bin/python3}

for t in slurmctld slurmd munged srun salloc squeue scancel fio; do
	if ! command -v "$t" >/dev/null; then
		skip "$t missing: apt-get install slurm-wlm slurmctld slurmd slurm-client munge fio"
		done_testing
		exit
	fi
done
if [ "$(id -u)" != 0 ]; then
	skip "the test Slurm runs its daemons as root"
	done_testing
	exit
fi

D=$TMP/fs
mkdir -p "$D"
left() { find "$D" -mindepth 1 | head -3; }
# pycheck DESCRIPTION FILE CODE: CODE runs with d = the JSON document of FILE
# and rows = {id: row}; an assertion error fails the check.
pycheck() {
	local desc=$1 file=$2 code=$3
	if "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["id"]: r for r in d.get("results", [])}
exec(sys.argv[2])' "$file" "$code" >"$TMP/pycheck.out" 2>&1; then
		ok "$desc"
	else
		not_ok "$desc"
		tail -5 "$TMP/pycheck.out" | diag
	fi
}
# the documents are validated together at the end (one interpreter start)
docs=()
# inalloc CMD...: CMD inside a fresh 2-node allocation (salloc runs it here)
inalloc() { salloc -N2 --time=2 --job-name=cmax-test "$@" </dev/null 2>>"$TMP/salloc.log"; }

# --- usage, before any Slurm is needed ---
(unset SLURM_JOB_ID SLURM_JOBID; "$CMAX" bench storage --path "$D" --slurm --yes >/dev/null 2>"$TMP/e")
check "storage --slurm outside an allocation: exit 64" test $? = 64
check "... and says to use an allocation or --nodes" grep -q -- '--nodes N' "$TMP/e"
"$CMAX" bench storage --path "$D" --nodes 2 --clients 2 --dry-run >/dev/null 2>"$TMP/e"
check "--clients across nodes: exit 64, naming --clients-per-node" \
	bash -c '[ $0 = 64 ] && grep -q -- --clients-per-node "$1"' $? "$TMP/e"
"$CMAX" bench storage --path "$D" --clients-per-node 2 --dry-run >/dev/null 2>&1
check "--clients-per-node on one host: exit 64" test $? = 64
"$CMAX" bench storage --path "$D" --nodes 2 --endurance --dry-run >/dev/null 2>&1
check "--endurance across nodes: exit 64 (not supported)" test $? = 64
"$CMAX" bench metadata --path "$D" --nodes 1 --dry-run >/dev/null 2>"$TMP/e"
check "metadata --nodes 1: exit 64 (the lock test needs 2)" test $? = 64
"$CMAX" bench metadata --lock-worker "$D" --lock-kind flock >/dev/null 2>&1
check "the hidden lock worker without a worker id: exit 64" test $? = 64

# dry-run outside an allocation: srun takes its own 2-node allocations
"$CMAX" bench storage --path "$D" --nodes 2 --dry-run --only seq-read-1m-buffered >"$TMP/plan.txt" 2>&1
check "dry-run --nodes 2: exit 0, nothing written" bash -c '[ $0 = 0 ] && [ -z "$1" ]' $? "$(left)"
check "dry-run lists the srun command of each node count" \
	bash -c 'grep -q "srun -v --nodes=1 --ntasks=1 " "$0" && grep -q "srun -v --nodes=2 --ntasks=2 .*--immediate=30.*--multi-prog" "$0"' "$TMP/plan.txt"
check "dry-run shows the --multi-prog line with one file set per node" grep -q "with .*\.conf: \* 'fio' .*--filename_format=cmax.n%t" "$TMP/plan.txt"

# --- a real Slurm with two nodes ---
t0=$(date +%s)
if ! slurm_start NNODES=2; then
	not_ok "Slurm came up"
	diag <"$TMP/slurm-up.log"
	done_testing
	exit
fi
ok "Slurm came up with 2 nodes ($(($(date +%s) - t0)) s)"

inalloc "$CMAX" bench storage --path "$D" --slurm --dry-run --json --only seq-write-1m-buffered >"$TMP/plan.json"
pycheck "dry-run in the allocation: srun on node1, then node1,node2, with their --multi-prog lines" "$TMP/plan.json" '
c = d["commands"]; assert len(c) == 2, c
assert "--nodelist=node1 --overlap" in c[0] and "--nodelist=node1,node2 --overlap" in c[1], c
assert d["nodes"] == ["node1", "node2"] and d["harness"] == "slurm"
mp = d["multi_prog"]; assert len(mp) == 2 and all(v.startswith("* '"'"'fio'"'"'") for v in mp.values()), mp
assert d["files"][-1].endswith("/cmax.n1.0.0"), d["files"]'

# 1. fio on 1 and 2 nodes
t0=$(date +%s)
inalloc "$CMAX" bench storage --path "$D" --slurm --yes --json --only 1m-buffered --size 4M --runtime 1 >"$TMP/s.json" 2>"$TMP/s.err"
rc=$?
check "storage across 2 nodes: exit 0 ($(($(date +%s) - t0)) s)" test $rc = 0
[ $rc = 0 ] || diag <"$TMP/s.err"
docs+=("$TMP/s.json")
pycheck "rows per node count 1 and 2, write then read, all graded" "$TMP/s.json" '
ids = [r["id"] for r in d["results"]]
assert ids == ["bench.storage-seq-write-1m-buffered-n1", "bench.storage-seq-read-1m-buffered-n1",
               "bench.storage-seq-write-1m-buffered-n2", "bench.storage-seq-read-1m-buffered-n2"], ids
for r in d["results"]:
    assert r["status"] in ("PASS", "WARN", "FAIL"), (r["id"], r["summary"])
    assert r["reproduce"].startswith("srun -v --nodes=") and "--multi-prog" in r["reproduce"], r["reproduce"]
assert d["target"]["harness"] == "slurm" and d["target"]["hosts"] == ["node1", "node2"], d["target"]
assert d["parameters"]["nodes_max"] == 2 and d["parameters"]["clients_per_node"] == 1'
pycheck "per-node hosts listed: node1 alone, then node1 and node2" "$TMP/s.json" '
for n, hosts in ((1, ["node1"]), (2, ["node1", "node2"])):
    for c in ("seq-write-1m-buffered", "seq-read-1m-buffered"):
        o = rows["bench.storage-%s-n%d" % (c, n)]["observed"]
        assert o["nodes"] == n and o["hosts"] == hosts, o
        assert [p["host"] for p in o["per_node"]] == hosts, o["per_node"]
        assert all(p["problem"] is None and p["errors"] == 0 and p["bw_bytes_per_s"] > 0 for p in o["per_node"])'
pycheck "aggregate = sum of the per-node figures, latency = the worst node" "$TMP/s.json" '
for r in d["results"]:
    o = r["observed"]; p = o["per_node"]
    bw = sum(x["bw_bytes_per_s"] for x in p); io = sum(x["iops"] for x in p)
    assert abs(o["bw_bytes_per_s"] - bw) <= len(p), (r["id"], o["bw_bytes_per_s"], bw)
    assert abs(o["iops"] - io) <= 0.1 * len(p) + 1e-9, (r["id"], o["iops"], io)
    assert o["clat_ns"]["p99.9"] == max(x["clat_ns"]["p99.9"] for x in p), r["id"]
    assert o["errors"] == sum(x["errors"] for x in p) == 0
    assert o["io_bytes"] == 4 * 1048576 * len(p), o["io_bytes"]
    s = o["slowest_node"]; assert s["bw_bytes_per_s"] == min(x["bw_bytes_per_s"] for x in p), s
    assert o["graded_on"] == "slowest_node"'
check "storage across nodes: work directory removed" test -z "$(left)"

# 2. node2's fio prints garbage
mkdir -p "$TMP/bin"
cat >"$TMP/bin/fio-node2-garbage" <<'EOF'
#!/bin/sh
if [ "$SLURMD_NODENAME" = node2 ]; then echo 'fio: this is { not JSON'; echo 'simulated breakage' >&2; exit 0; fi
exec fio "$@"
EOF
chmod 755 "$TMP/bin/fio-node2-garbage"
inalloc "$CMAX" bench storage --path "$D" --slurm --yes --json --only seq-write-1m-buffered --size 4M \
	--fio "$TMP/bin/fio-node2-garbage" >"$TMP/g.json" 2>"$TMP/g.err"
check "garbage from node2: exit 0, no crash" test $? = 0
docs+=("$TMP/g.json")
pycheck "1 node: graded; 2 nodes: ERROR naming node2, node1's figure kept" "$TMP/g.json" '
a = rows["bench.storage-seq-write-1m-buffered-n1"]; b = rows["bench.storage-seq-write-1m-buffered-n2"]
assert a["status"] in ("PASS", "WARN", "FAIL"), a["summary"]
assert b["status"] == "ERROR" and "node2: no usable fio JSON" in b["summary"] and "node1:" not in b["summary"], b["summary"]
p = {x["host"]: x for x in b["observed"]["per_node"]}
assert p["node1"]["bw_bytes_per_s"] > 0 and p["node1"]["problem"] is None, p
assert "no usable fio JSON" in p["node2"]["problem"] and "bw_bytes_per_s" not in p["node2"], p
assert b["observed"]["bw_bytes_per_s"] == p["node1"]["bw_bytes_per_s"]'
check "garbage from node2: work directory removed" test -z "$(left)"

# 3. Ctrl-C while both nodes run a long case: the step is cancelled
salloc -N2 --time=2 --job-name=cmax-test bash -c 'echo $$ >"$0"; exec "$@"' "$TMP/int.pid" \
	"$CMAX" bench storage --path "$D" --slurm --yes --only rand-read-4k --runtime 30 --size 4M \
	>"$TMP/int.out" 2>"$TMP/int.err" </dev/null &
spid=$!
for _ in $(seq 100); do [ -n "$(find "$D" -name 'cmax.n0.0.0' 2>/dev/null)" ] && break; sleep 0.1; done
sleep 0.5
t1=$(date +%s)
kill -INT "$(cat "$TMP/int.pid")"
wait $spid
rc=$?
check "SIGINT across nodes: exit 130 within 10 s ($(($(date +%s) - t1)) s)" \
	bash -c '[ $0 = 130 ] && [ $1 -lt 10 ]' $rc $(($(date +%s) - t1))
check "SIGINT across nodes: no step of cmax left in Slurm" bash -c '! squeue -h -s -o %j | grep -q cmax-bench'
check "SIGINT across nodes: no fio left" bash -c '! ps -eo stat=,args= | grep -v "^Z" | grep -q "[f]io --name=rand-read-4k-buffered --directory='"$D"'"'
check "SIGINT across nodes: work directory removed" test -z "$(left)"
check "SIGINT across nodes: the case is SKIP, interrupted" grep -q 'SKIP .*interrupted.*srun step cancelled' "$TMP/int.out"

# 4. the two-node locks
small=(--workers 2 --files 100 --import-files 100 --alloc-mib 1)
t0=$(date +%s)
inalloc "$CMAX" bench metadata --path "$D" --yes --json "${small[@]}" >"$TMP/m.json" 2>"$TMP/m.err"
check "metadata in a 2-node allocation: exit 0 ($(($(date +%s) - t0)) s)" test $? = 0
docs+=("$TMP/m.json")
pycheck "two-node flock and fcntl locks PASS with 0 violations, 100 rounds on each node" "$TMP/m.json" '
for k in ("flock", "fcntl"):
    r = rows["bench.metadata-%s-lock-nodes" % k]; o = r["observed"]
    assert r["status"] == "PASS", r["summary"]
    assert o["violations"] == 0 and o["overlaps"] == 0 and o["lost_updates"] == 0 and o["errors"] == 0, o
    assert o["nodes"] == ["node1", "node2"] and o["iterations"] == 100, o
    assert o["rounds_done"] == 200 and o["final_counter"] == 200, o
    assert [(p["node"], p["iterations"]) for p in o["per_node"]] == [("node1", 100), ("node2", 100)], o["per_node"]
    assert all(p["rendezvous_ok"] and p["overlap_ok"] for p in o["per_node"])
    assert "test_hook" not in o and r["reproduce"].startswith("srun -v --nodes=2")
    assert rows["bench.metadata-%s-lock" % k]["status"] == "PASS"
assert d["target"]["harness"] == "slurm" and d["target"]["hosts"][1:] == ["node1", "node2"], d["target"]'
check "metadata across nodes: work directory removed" test -z "$(left)"

# 5. the detector can fail: workers that take no lock
CMAX_BENCH_LOCK_NOOP=1 inalloc "$CMAX" bench metadata --path "$D" --yes --json "${small[@]}" >"$TMP/n.json" 2>"$TMP/n.err"
check "metadata with the no-lock test hook: exit 0" test $? = 0
docs+=("$TMP/n.json")
pycheck "no-lock hook: two-node locks FAIL with violations > 0, the hook named" "$TMP/n.json" '
for k in ("flock", "fcntl"):
    r = rows["bench.metadata-%s-lock-nodes" % k]; o = r["observed"]
    assert r["status"] == "FAIL" and o["violations"] > 0, (r["status"], o)
    assert ("of 200 exclusive %s() locks violated between 2 nodes" % k) in r["summary"], r["summary"]
    assert "CMAX_BENCH_LOCK_NOOP" in r["summary"] and "test_hook" in o
    assert rows["bench.metadata-%s-lock" % k]["status"] == "PASS", "the hook is for the hidden worker only"'
check "nothing of cmax left running in Slurm" bash -c '! squeue -h -s -o %j | grep -q cmax-bench'
if "$PY" "$SRCDIR/tests/contract/validate-bench.py" "${docs[@]}" >"$TMP/contract" 2>&1; then
	ok "all ${#docs[@]} result documents validate against the bench schema"
else
	not_ok "all ${#docs[@]} result documents validate against the bench schema"
	diag <"$TMP/contract"
fi
done_testing
