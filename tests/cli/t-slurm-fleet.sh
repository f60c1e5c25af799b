#!/usr/bin/env bash
# The fleet audit against a real Slurm (tests/slurm/slurm-up.sh: munge,
# slurmctld and three slurmd on loopback, 8 fake GPUs each). Every node is
# a fixture host through tests/slurm/node-wrap.sh, so drift can be planted:
# node3 is misconfig-h100 (older driver, kernel, OS point release, NCCL).
# Covers: the hidden node collector, one srun step with --nodes from outside
# an allocation and auto-detected inside one, the merged report and its
# contract, drift findings naming the outlier, and nodes that hang, fail or
# send half a document.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
. "$SRCDIR/tests/slurm/fleet-lib.sh"
PY=${PYTHON:-/usr/bin/python3}

for t in slurmctld slurmd munged srun salloc scontrol; do
	if ! command -v "$t" >/dev/null; then
		skip "Slurm not installed ($t missing): apt-get install slurm-wlm slurmctld slurmd slurm-client munge"
		done_testing
		exit
	fi
done
if [ "$(id -u)" != 0 ]; then
	skip "the test Slurm runs its daemons as root"
	done_testing
	exit
fi

# jcheck FILE < "description ::: python expression" lines: one assertion per
# line over the JSON document d (rows = its results; row(id, host) = one row),
# all in one interpreter.
jcheck() {
	local st desc
	while IFS=$'\t' read -r st desc; do
		if [ "$st" = 1 ]; then ok "$desc"; else not_ok "$desc"; fi
	done < <("$PY" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    d = {"error": repr(e)}
rows = d.get("results", [])
def row(i, h):
    m = [r for r in rows if r["id"] == i and r["host"] == h]
    return m[0] if m else {"status": None, "summary": ""}
def rows_of(i, status=None, *words):
    return [r for r in rows if r["id"] == i and (status is None or r["status"] == status)
            and all(w in r["summary"] for w in words)]
for line in sys.stdin:
    if ":::" not in line:
        continue
    desc, expr = (x.strip() for x in line.split(":::", 1))
    try:
        good = bool(eval(expr))
    except Exception as e:
        good, desc = False, desc + " (" + repr(e) + ")"
    print("1" if good else "0", desc, sep="\t")
' "$1")
}
contract() { "$PY" "$SRCDIR/tests/contract/validate.py" "$1" >"$TMP/contract" 2>&1 || { diag <"$TMP/contract"; return 1; }; }

# --- usage: what a fleet audit needs before it touches anything ---
"$CMAX" audit --slurm --yes >"$TMP/o" 2>"$TMP/e" </dev/null
check "--slurm outside an allocation without --nodes is a usage error" test $? = 64
check "... and says what to do" grep -q -- '--nodes' "$TMP/e"
"$CMAX" audit --slurm --nodes 'node[1-3]' >"$TMP/o" 2>"$TMP/e" </dev/null
check "--nodes takes an allocation: no TTY and no --yes refuses" test $? = 64
check "... naming --yes" grep -q -- '--yes' "$TMP/e"
"$CMAX" audit --vm --nodes x --yes >"$TMP/o" 2>"$TMP/e" </dev/null
check "--nodes with a host target is a usage error" test $? = 64

# --- the node collector alone: one document, short lines, nothing written ---
fleet_map '*=h100-healthy'
mkdir -p "$TMP/nc"
SLURMD_NODENAME=nodeX HOME=$TMP/nc/home "$FLEET_WRAP" node-collect >"$TMP/nc/out" 2>"$TMP/nc/err"
check "node-collect exits 0" test $? = 0
check "node-collect prints only CMAXNODE lines of at most 1000 bytes" \
	awk 'length($0) >= 1000 || $1 != "CMAXNODE" || $2 != "nodeX" { bad = 1 } END { exit bad || NR < 2 }' "$TMP/nc/out"
check "node-collect's document is complete cmax.node/1 with rows and facts" "$PY" -c '
import json, sys
parts = {}
for l in open(sys.argv[1]):
    tag, node, seq, chunk = l.rstrip("\n").split(" ", 3)
    n, t = map(int, seq.split("/"))
    parts[n] = chunk
assert sorted(parts) == list(range(1, t + 1))
d = json.loads("".join(parts[i] for i in sorted(parts)))
assert d["schema"] == "cmax.node/1" and d["node"] == "nodeX" and d["host"] == "gpu-h100-001"
assert d["results"] and d["facts"]["os"]["facts"]["kernel_release"]
assert all("evidence" not in c for c in d["facts"].values())
ids = {r["id"] for r in d["results"]}
assert "versions.nvidia-driver" in ids and not any(i.startswith("versions.drift") for i in ids)
' "$TMP/nc/out"
check "node-collect writes nothing (no HOME, no run directory)" test ! -e "$TMP/nc/home"

# --- a real Slurm with three GPU nodes ---
t0=$(date +%s)
if ! slurm_start NNODES=3 GPUS=8; then
	not_ok "Slurm came up"; diag <"$TMP/slurm-up.log"
	done_testing
	exit
fi
ok "Slurm came up with 3 nodes ($(($(date +%s) - t0)) s)"

# 1. From outside an allocation: --nodes takes a short one.
fleet_map node1=h100-healthy node2=h100-healthy node3=misconfig-h100
R=$TMP/nodes
t0=$(date +%s)
fleet_audit "$R" --nodes 'node[1-3]'
check "--nodes node[1-3]: exits 0 (got $(cat "$R/rc"), $(($(date +%s) - t0)) s)" test "$(cat "$R/rc")" = 0
[ "$(cat "$R/rc")" = 0 ] || diag <"$R/stderr"
check "--nodes: the JSON contract holds" contract "$R/stdout"
check "--nodes: --json equals audit.results.json" cmp -s "$R/stdout" "$R/run/audit.results.json"
jcheck "$R/stdout" <<'EOF'
target: slurm harness, every node in hosts ::: d["target"]["harness"] == "slurm" and d["target"]["environment"] == "slurm" and d["target"]["hosts"] == ["node1", "node2", "node3"]
every node answered, and its own rows carry its node name ::: all(f["answered"] for f in d["fleet"]) and all(row("versions.nvidia-driver", h)["status"] for h in ("node1", "node2", "node3"))
per-node verdicts are the node's own (node3 is the misconfigured one) ::: row("versions.nvidia-driver", "node1")["status"] == "PASS" and row("isolation.kernel-current", "node3")["status"] == "FAIL"
node-side checks do not run on the login node ::: not [r for r in rows if r["host"] not in ("node1", "node2", "node3") and r["id"] == "versions.nvidia-driver"]
cluster rows carry Slurm's ClusterName ::: d["target"]["cluster"] == "cmaxci" and row("orchestration.fleet-coverage", "cmaxci")["status"] == "PASS"
counts cover every row of every node ::: d["counts"]["total"] == len(rows) and len({r["host"] for r in rows}) == 4
drift-driver FAILs naming node3 ::: rows_of("versions.drift-driver", "FAIL", "570.211.01 on 1 node (node3)", "580.159.03 on 2 of 3 nodes read (node[1-2])", "covers 3 of 3 nodes")
drift-kernel FAILs naming node3 ::: rows_of("versions.drift-kernel", "FAIL", "5.15.0-105-generic on 1 node (node3)")
drift-nccl WARNs naming node3 ::: rows_of("versions.drift-nccl", "WARN", "2.18.5 on 1 node (node3)")
drift-os WARNs naming node3 ::: rows_of("versions.drift-os", "WARN", "Ubuntu 22.04.4 LTS on 1 node (node3)")
drift-firmware FAILs on node3's mixed VBIOS ::: rows_of("versions.drift-firmware", "FAIL", "node3")
drift-cuda PASSes over 3 of 3 nodes ::: rows_of("versions.drift-cuda", "PASS", "13.1.0", "3 of 3 nodes")
drift-gpus PASSes over 3 of 3 nodes ::: rows_of("hardware.drift-gpus", "PASS", "8 x NVIDIA H100 80GB HBM3", "3 of 3 nodes")
fleet-coverage PASSes: all 3 answered ::: rows_of("orchestration.fleet-coverage", "PASS", "3 of 3")
no Kubernetes-only rows in a Slurm fleet report ::: not [r for r in rows if r["id"].split(".")[1].startswith("k8s-")]
EOF
jcheck "$R/run/audit.values.json" <<'EOF'
audit.values.json holds every node's facts under nodes ::: sorted(d["nodes"]) == ["node1", "node2", "node3"] and d["nodes"]["node3"]["os"]["facts"]["kernel_release"] == "5.15.0-105-generic"
EOF
check "audit.out: fleet summary first, then rows grouped by host" \
	grep -q '^## fleet: 3 of 3 nodes answered' "$R/run/audit.out"
# progress (core/progress.h): without a terminal, one stderr line per node
# as its document comes back, each node once, counted up to 3, no ETA guessed
check "progress: one line per node whose document came, counted 1..3, ETA ? until the last" "$PY" -c '
import re, sys
got = re.findall(r"^cmax audit: node (\d)/3 (node\d) done in \S+ \(elapsed \S+, ETA (\S+)\)$", open(sys.argv[1]).read(), re.M)
assert sorted(g[1] for g in got) == ["node1", "node2", "node3"], got
assert [g[0] for g in got] == ["1", "2", "3"] and [g[2] for g in got] == ["?", "?", "0s"], got
' "$R/stderr"
check "audit.out: a section per node" grep -q '^# node node3' "$R/run/audit.out"
check "no unrecorded tool ran on any node" test -z "$(fleet_unrecorded)"
fleet_unrecorded | head -5 | diag
check "the short allocation is gone afterwards" test -z "$(squeue -h 2>/dev/null)"

# 1b. --baseline: the run above as the fleet's baseline, node by node; then a
# copy in which node3 had another driver (versions.baseline-fleet WARNs
# naming it); and --no-sudo forwarded to every node's collector.
B=$TMP/base
fleet_audit "$B" --nodes 'node[1-3]' --baseline "$R/run" --no-sudo
check "--baseline (fleet): exits 0 (got $(cat "$B/rc"))" test "$(cat "$B/rc")" = 0
[ "$(cat "$B/rc")" = 0 ] || diag <"$B/stderr"
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["nodes"]["node3"]["nvidia"]["facts"]["driver_version"] = "550.54.15"; json.dump(d, open(sys.argv[2], "w"))' \
	"$R/run/audit.values.json" "$TMP/base-old.json"
B2=$TMP/base2
fleet_audit "$B2" --nodes 'node[1-3]' --baseline "$TMP/base-old.json"
jcheck "$B/stdout" <<'EOF'
baseline-fleet PASSes: 3 nodes unchanged ::: rows_of("versions.baseline-fleet", "PASS", "3 nodes unchanged")
--no-sudo reached every node: access.sudo SKIPs there ::: all(row("access.sudo", h)["status"] == "SKIP" and "--no-sudo" in row("access.sudo", h)["summary"] for h in ("node1", "node2", "node3"))
EOF
jcheck "$B2/stdout" <<'EOF'
baseline-fleet WARNs naming node3 only ::: rows_of("versions.baseline-fleet", "WARN", "1 of 3 nodes compared", "NVIDIA driver 550.54.15 -> 570.211.01 on node3")
EOF

# 2. Inside an allocation: auto-detected from SLURM_JOB_ID, all nodes alike.
fleet_map '*=h100-healthy'
R=$TMP/alloc
mkdir -p "$R"
salloc -N3 --time=2 bash -c '"$0" audit --yes --json --node-cmd "$1" --output-dir "$2/run" >"$2/stdout" 2>"$2/stderr"; echo $? >"$2/rc"' \
	"$CMAX" "$FLEET_WRAP" "$R" </dev/null >"$R/salloc.log" 2>&1
check "inside salloc: exits 0" test "$(cat "$R/rc" 2>/dev/null)" = 0
[ "$(cat "$R/rc" 2>/dev/null)" = 0 ] || { diag <"$R/salloc.log"; diag <"$R/stderr"; }
check "inside salloc: the JSON contract holds" contract "$R/stdout"
jcheck "$R/stdout" <<'EOF'
inside salloc: the allocation is auto-detected as the target ::: d["target"]["harness"] == "slurm" and d["target"]["selection"] == "auto-detected" and "inside Slurm job" in d["target"]["detection"]
inside salloc: every drift check PASSes over 3 of 3 identical nodes ::: len([r for r in rows if "drift" in r["id"] and r["status"] == "PASS" and "3 of 3 nodes" in r["summary"]]) == 7
EOF

# 3. A node that never answers: the audit finishes and names it.
fleet_map node1=h100-healthy node2=@hang node3=misconfig-h100
R=$TMP/hang
t0=$(date +%s)
fleet_audit "$R" --nodes 'node[1-3]' --node-timeout 3
el=$(($(date +%s) - t0))
check "a hung node: the audit still finishes, exit 0 ($el s)" test "$(cat "$R/rc")" = 0 -a "$el" -le 30
[ "$(cat "$R/rc")" = 0 ] || diag <"$R/stderr"
check "a hung node: the JSON contract holds" contract "$R/stdout"
jcheck "$R/stdout" <<'EOF'
node2 gets one ERROR row saying it did not answer ::: [r["status"] for r in rows if r["host"] == "node2"] == ["ERROR"] and "did not answer" in row("orchestration.fleet-coverage", "node2")["summary"]
fleet-coverage FAILs: 2 of 3 answered, node2 named ::: rows_of("orchestration.fleet-coverage", "FAIL", "2 of 3 nodes answered", "node2")
drift verdicts say they cover 2 of 3 nodes and name node2 ::: rows_of("versions.drift-driver", "FAIL", "covers 2 of 3 nodes", "did not answer: node2")
node2 stays in target.hosts and the fleet summary ::: "node2" in d["target"]["hosts"] and [f for f in d["fleet"] if f["host"] == "node2" and not f["answered"] and f["error"]]
EOF
check "nothing of the step is left running" test -z "$(squeue -h 2>/dev/null)"

# 4. A node that fails and one that sends half a document.
fleet_map node1=h100-healthy node2=@partial node3=@fail
R=$TMP/broken
fleet_audit "$R" --nodes 'node[1-3]' --node-timeout 20
check "broken nodes: exit 0" test "$(cat "$R/rc")" = 0
check "broken nodes: the JSON contract holds" contract "$R/stdout"
jcheck "$R/stdout" <<'EOF'
half a document is named incomplete ::: "incomplete document" in row("orchestration.fleet-coverage", "node2")["summary"]
a failing node is named with srun's word on it ::: "exit code 3" in row("orchestration.fleet-coverage", "node3")["summary"]
one node answered: drift SKIPs, nothing to compare ::: all(r["status"] == "SKIP" and "only node1" in r["summary"] for r in rows if "drift" in r["id"])
EOF
# 5. Ctrl-C while the step runs: the SIGINT reaches srun (src/core/interrupt.h
# passes it on to the runner's process group), so Slurm cancels the step; the
# audit exits 130 with a report that says it is partial, and leaves no job.
fleet_map '*=@hang'
R=$TMP/sigint
mkdir -p "$R"
"$CMAX" audit --slurm --yes --json --node-cmd "$FLEET_WRAP" --output-dir "$R/run" --nodes 'node[1-3]' \
	--node-timeout 60 >"$R/stdout" 2>"$R/stderr" </dev/null &
pid=$!
for _ in $(seq 100); do
	[ -n "$(squeue -h -n cmax-node-collect 2>/dev/null)" ] && break
	sleep 0.1
done
sleep 1 # the step's tasks started on the nodes
t0=$(date +%s)
kill -INT "$pid"
wait "$pid"
rc=$? el=$(($(date +%s) - t0))
check "SIGINT during the srun step: exit 130 within 15 s (got $rc after $el s)" test "$rc" = 130 -a "$el" -le 15
[ "$rc" = 130 ] || diag <"$R/stderr"
gone=0
for _ in $(seq 100); do
	[ -z "$(squeue -h 2>/dev/null)" ] && { gone=1; break; }
	sleep 0.1
done
check "SIGINT during the srun step: Slurm cancelled the step, no job left" test "$gone" = 1
check "SIGINT during the srun step: no srun left behind" test -z "$(pgrep -f 'job-name=cmax-node-collect' 2>/dev/null)"
res=$(ls "$R"/run/audit.results.json "$R"/run/*/audit.results.json 2>/dev/null | head -1)
if [ -n "$res" ] && "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("partial") is True and d.get("interrupted_by") == "SIGINT" else 1)' "$res"; then
	ok "SIGINT during the srun step: the results say partial, interrupted by SIGINT"
else
	not_ok "SIGINT during the srun step: the results say partial, interrupted by SIGINT"; ls -R "$R/run" | diag
fi
done_testing
