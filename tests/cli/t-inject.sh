#!/usr/bin/env bash
# cmax inject without a scheduler: usage errors, --dry-run output of every
# method (exact writes and commands), the ownership refusals, the secondary
# bus reset against a dumped sysfs tree (the bridge's config space is a file
# there, so the write is real and checked byte by byte), amd-ras "not
# available here", and the Kubernetes timeline against a fake kubectl
# (no API server can run here). The Slurm timeline runs on a real Slurm in
# t-inject-slurm.sh.
. "$(dirname "$0")/../lib/tap.sh"
PY=${PYTHON:-python3}
HOST=$(hostname)
unset SLURM_JOB_NODELIST SLURM_JOB_ID SLURMD_NODENAME

rc_of() { "$@" >"$TMP/out" 2>"$TMP/err"; echo $?; }
jget() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@" 2>&1; }

# --- usage
check "no fault: 64" test "$(rc_of "$CMAX" inject)" = 64
check "xid without code: 64" test "$(rc_of "$CMAX" inject xid --node n1)" = 64
check "no --node: 64" test "$(rc_of "$CMAX" inject xid 79)" = 64
check "--node named in the message" grep -q -- "--node NODE is required" "$TMP/err"
check "bad method: 64" test "$(rc_of "$CMAX" inject xid 79 --node n1 --method smash)" = 64
check "bad code: 64" test "$(rc_of "$CMAX" inject xid 79x --node n1)" = 64
check "sbr without --gpu: 64" test "$(rc_of "$CMAX" inject xid 79 --method sbr --node n1)" = 64
check "sbr makes only Xid 79: 64" test "$(rc_of "$CMAX" inject xid 48 --method sbr --gpu 5a:00.0 --node n1)" = 64
check "sxid through dcgm: 64" test "$(rc_of "$CMAX" inject sxid 20034 --method dcgm --node n1)" = 64
check "--log-file with dcgm: 64" test "$(rc_of "$CMAX" inject xid 79 --method dcgm --log-file /x --node n1)" = 64
check "bad --platform: 64" test "$(rc_of "$CMAX" inject xid 79 --node n1 --platform dgx)" = 64
check "--help: 0" test "$(rc_of "$CMAX" inject --help)" = 0
check "--help lists the methods" grep -q "sbr: secondary bus reset" "$TMP/out"
check "reboot-test --help: 0" test "$(rc_of "$CMAX" reboot-test --help)" = 0
check "reboot-test without --node: 64" test "$(rc_of "$CMAX" reboot-test)" = 64

# --- dry runs print the exact steps and change nothing
LOG=$TMP/kern.log
check "dry run log: 0" test "$(rc_of "$CMAX" inject xid 79 --node node1 --gpu 0000:5a:00 --log-file "$LOG" --dry-run)" = 0
check "dry run shows the driver line" grep -qF "line:     NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." "$TMP/out"
check "dry run shows the append" grep -qF "1. append to $LOG:" "$TMP/out"
check "dry run shows the poll" grep -qF 'then poll `scontrol show node -o node1` every 100 ms' "$TMP/out"
check "dry run says a real run would refuse (no allocation)" grep -q "a real run would refuse" "$TMP/out"
check "dry run wrote nothing" test ! -e "$LOG"
SLURM_JOB_NODELIST='node[1-2]' "$CMAX" inject xid 95 --node node2 --log-file "$LOG" --dry-run --json >"$TMP/d.json"
check "dry run JSON: ownership from SLURM_JOB_NODELIST" test "$(jget "$TMP/d.json" 'd["ownership"]["allowed"]')" = True
check "dry run JSON: 95 expects isolation (reset_gpu)" test "$(jget "$TMP/d.json" '(d["fault"]["action"], d["fault"]["isolation_expected"])')" = "('reset_gpu', True)"
check "dry run JSON: plan step is an append" test "$(jget "$TMP/d.json" 'd["plan"][0]["kind"]')" = append
check "dry run JSON: 95 carries RST fields" grep -q 'RST: Yes, D-RST: No' "$TMP/d.json"
"$CMAX" inject xid 13 --node node2 --log-file "$LOG" --dry-run --json >"$TMP/d13.json"
check "dry run JSON: 13 expects no isolation" test "$(jget "$TMP/d13.json" 'd["fault"]["isolation_expected"]')" = False
"$CMAX" inject xid 48 --method dcgm --gpu 2 --node node7 --dry-run >"$TMP/out"
check "dcgm on another node runs through srun" grep -qF "srun -w node7 -N1 -n1 dcgmi test --inject --gpuid 2 -f 230 -v 48" "$TMP/out"
check "dcgm repeats until detection" grep -q "repeated every 1000 ms" "$TMP/out"
"$CMAX" inject xid 79 --node node7 --dry-run >"$TMP/out"
check "log without --log-file on another node: /dev/kmsg through srun" grep -qF "srun -w node7 -N1 -n1 sh -c" "$TMP/out"
check "  ...the marker and the line as separate records" grep -qF "'<3>NVRM: Xid (PCI:0000:00:00): 79" "$TMP/out"
"$CMAX" inject xid 79 --node node7 --k8s --dry-run >"$TMP/out"
check "k8s: kubectl debug node/ pod with the host at /host" grep -qF "kubectl debug node/node7 -q --profile=sysadmin --image busybox:1.36 -- chroot /host sh -c" "$TMP/out"
check "k8s: polls kubectl get node" grep -qF 'kubectl get node node7 -o json' "$TMP/out"
"$CMAX" inject sxid 20034 --node node7 --gpu 0000:05:00.0 --dry-run >"$TMP/out"
check "SXid line in the switch driver's form" grep -qF "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 0" "$TMP/out"
"$CMAX" reboot-test --node node3 --dry-run >"$TMP/out"
check "reboot-test dry run: scontrol reboot ASAP nextstate=RESUME" grep -qF "scontrol reboot ASAP nextstate=RESUME 'reason=cmax reboot-test' node3" "$TMP/out"
check "reboot-test dry run: boot id through srun" grep -qF "srun -w node3 -N1 -n1 cat /proc/sys/kernel/random/boot_id" "$TMP/out"
check "reboot-test dry run: cancel on interrupt" grep -qF "on interrupt or timeout before the reboot is issued: scontrol cancel_reboot node3" "$TMP/out"
"$CMAX" reboot-test --node gpu-1 --k8s --dry-run >"$TMP/out"
check "reboot-test k8s dry run: cordon, drain, reboot pod, uncordon" \
	grep -qzF "kubectl cordon gpu-1"$'\n'"  3. kubectl drain gpu-1 --ignore-daemonsets --delete-emptydir-data --timeout=300s"$'\n'"  4. kubectl debug node/gpu-1" "$TMP/out"

# --- refusals of a real run (before anything is touched)
check "not in an allocation: 64" test "$(rc_of "$CMAX" inject xid 79 --node node1 --log-file "$LOG" --yes)" = 64
check "  says why" grep -q "refused: not inside a Slurm allocation" "$TMP/err"
check "node outside the allocation: 64" test "$(SLURM_JOB_NODELIST='node[3-4]' rc_of "$CMAX" inject xid 79 --node node1 --log-file "$LOG" --yes)" = 64
check "  names the allocation" grep -q "node\[3-4\]: node1 is not in your allocation" "$TMP/err"
check "garbled SLURM_JOB_NODELIST: 64" test "$(SLURM_JOB_NODELIST='node[3-' rc_of "$CMAX" inject xid 79 --node node1 --log-file "$LOG" --yes)" = 64
check "k8s needs --i-own-this-node: 64" test "$(rc_of "$CMAX" inject xid 79 --k8s --node node1 --log-file "$LOG" --yes)" = 64
check "reboot-test outside the allocation: 64" test "$(rc_of "$CMAX" reboot-test --node node1 --yes)" = 64
check "nothing was written by the refusals" test ! -e "$LOG"
check "no scheduler to observe: 71 before injecting" \
	test "$(PATH=/nonexistent rc_of "$CMAX" inject xid 79 --node node1 --log-file "$LOG" --yes --i-own-this-node)" = 71
check "  says --inject-only" grep -q "use --inject-only" "$TMP/err"
check "  nothing injected" test ! -e "$LOG"

# --- --inject-only: the line lands; cmax health classifies it as drain-worthy
SLURM_JOB_NODELIST="node[1-2]" "$CMAX" inject xid 79 --node node1 --gpu 0000:3b:00.0 --log-file "$LOG" --yes --inject-only >"$TMP/out" 2>&1
check "inject-only wrote two lines" test "$(wc -l <"$LOG")" = 2
check "  marker first" grep -q "^[0-9T:-]*+0000 node1 kernel: cmax-inject: synthetic Xid 79 on PCI:0000:3b:00.0 follows" "$LOG"
check "  then the driver line" grep -q "^[0-9T:-]*+0000 node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.$" "$LOG"
if "$CMAX" health --help >/dev/null 2>&1; then
	"$CMAX" health check --log-file "$LOG" --since --report-only --node node1 --state "$TMP/hstate.json" >"$TMP/h.out" 2>&1
	check "cmax health check reads the synthetic line as needing action (exit 1)" test $? = 1
fi

# --- secondary bus reset on a dumped sysfs tree
R=$TMP/root
D=$R/sys/devices/pci0000:00/0000:00:01.0
mkdir -p "$D/0000:5a:00.0" "$R/sys/bus/pci/devices" "$R/sys/devices/pci0000:00/0000:00:02.0"
echo 0x060400 >"$D/class"
echo 0x030200 >"$D/0000:5a:00.0/class"
echo 0x10de >"$D/0000:5a:00.0/vendor"
echo 0x030200 >"$R/sys/devices/pci0000:00/0000:00:02.0/class"
"$PY" -c 'import sys; b=bytearray(256); b[0x3e]=0x03; b[0x3f]=0x00; open(sys.argv[1],"wb").write(b)' "$D/config"
ln -s ../../../devices/pci0000:00/0000:00:01.0/0000:5a:00.0 "$R/sys/bus/pci/devices/0000:5a:00.0"
ln -s ../../../devices/pci0000:00/0000:00:02.0 "$R/sys/bus/pci/devices/0000:00:02.0"
"$CMAX" inject xid 79 --method sbr --gpu 5a:00.0 --node "$HOST" --sysroot "$R" --dry-run >"$TMP/out"
check "sbr dry run: assert bit 6 of Bridge Control" grep -qF "write bytes [43 00] at offset 0x3e of /sys/devices/pci0000:00/0000:00:01.0/config" "$TMP/out"
check "sbr dry run: then restore" grep -qF "write bytes [03 00] at offset 0x3e of /sys/devices/pci0000:00/0000:00:01.0/config" "$TMP/out"
check "sbr dry run: names the bridge" grep -qF "target:   bridge 0000:00:01.0 above GPU 0000:5a:00.0" "$TMP/out"
"$CMAX" inject xid 79 --method sbr --gpu 5a:00.0 --node "$HOST" --sysroot "$R" --dry-run --json >"$TMP/sbr.json"
check "sbr JSON: devices below the bridge listed" test "$(jget "$TMP/sbr.json" 'd["notes"]["devices_reset"]')" = "['0000:5a:00.0']"
rc=$(rc_of "$CMAX" inject xid 79 --method sbr --gpu 5a:00.0 --node "$HOST" --sysroot "$R" --yes --i-own-this-node --inject-only --json)
check "sbr real run on the dump: 0, got $rc" test "$rc" = 0
check "  two config writes, both ok" test "$(jget "$TMP/out" '[(e["ok"], e["text"][:14]) for e in d["evidence"]]')" = "[(True, 'write bytes [4'), (True, 'write bytes [0')]"
cp "$TMP/out" "$TMP/sbr-run.json"
check "  Bridge Control restored to 0x0003" test "$(od -An -tx1 -j $((0x3e)) -N2 "$D/config" | tr -d ' ')" = 0300
check "sbr on a GPU without a bridge: 66" test "$(rc_of "$CMAX" inject xid 79 --method sbr --gpu 0000:00:02.0 --node "$HOST" --sysroot "$R" --yes --i-own-this-node)" = 66
check "  says why" grep -q "directly on the root complex" "$TMP/err"
check "sbr for another node: 66" test "$(rc_of "$CMAX" inject xid 79 --method sbr --gpu 5a:00.0 --node node-far --sysroot "$R" --yes --i-own-this-node)" = 66
check "  run it on the node itself" grep -q "run cmax inject on node-far itself" "$TMP/err"

# --- AMD RAS
check "amd-ras without RAS here: 66" test "$(rc_of "$CMAX" inject ras --node "$HOST" --sysroot "$R" --yes --i-own-this-node)" = 66
check "  not available here" grep -q "not available here: /sys/kernel/debug/dri/0/ras/ras_ctrl does not exist" "$TMP/err"
mkdir -p "$R/sys/kernel/debug/dri/1/ras"
: >"$R/sys/kernel/debug/dri/1/ras/ras_ctrl"
rc=$(rc_of "$CMAX" inject ras umc --gpu 1 --node "$HOST" --sysroot "$R" --yes --i-own-this-node --inject-only)
check "amd-ras with ras_ctrl: 0, got $rc" test "$rc" = 0
check "  wrote the inject command" test "$(cat "$R/sys/kernel/debug/dri/1/ras/ras_ctrl")" = "inject umc ue 0x0 0x0 0x0"

# --- the reliability limits come from data/thresholds.json; broken policy never passes
DD=$TMP/data; cp -r "$SRCDIR/data" "$DD"
"$PY" - "$DD/thresholds.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); del d["reliability"]["reboot_back_s"]["fail_above"]
json.dump(d, open(sys.argv[1], "w"))
PY
check "limits: a missing reboot limit is exit 65 for reboot-test" test "$(CMAX_DATADIR=$DD rc_of "$CMAX" reboot-test --node n1 --dry-run)" = 65
check "  naming the file and the key" grep -q "thresholds.json: /reliability/reboot_back_s" "$TMP/err"
"$PY" - "$DD/thresholds.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["reliability"]["inject_detect_s"]["fail_above"] = "120"
json.dump(d, open(sys.argv[1], "w"))
PY
check "limits: a detection limit written as a string is exit 65 for inject" test "$(CMAX_DATADIR=$DD rc_of "$CMAX" inject xid 79 --node n1 --log-file "$LOG" --dry-run)" = 65
check "  naming the key" grep -q "/reliability/inject_detect_s/fail_above" "$TMP/err"
check "reboot-test dry run names the graded limits" bash -c '"$0" reboot-test --node n3 --dry-run | grep -q "within 300 s PASS, 900 s WARN"' "$CMAX"

# --- the test hook CMAX_TEST_SCHED_REPLAY (docs/reliability.md)
RP=$SRCDIR/tests/fixtures/method/reliability
rm -f "$LOG"
check "replay: a missing file is exit 66" test "$(CMAX_TEST_SCHED_REPLAY=$TMP/none.json SLURM_JOB_NODELIST=gpu017 rc_of "$CMAX" inject xid 79 --node gpu017 --log-file "$LOG" --yes)" = 66
printf '{"schema":"cmax.test.sched-replay/1","epoch":"2026-11-30T06:00:00Z","commands":[{"argv":["scontrol"],"at":[{"s":5},{"s":1}]}]}' >"$TMP/bad-replay.json"
check "replay: entries out of time order are exit 65" test "$(CMAX_TEST_SCHED_REPLAY=$TMP/bad-replay.json SLURM_JOB_NODELIST=gpu017 rc_of "$CMAX" inject xid 79 --node gpu017 --log-file "$LOG" --yes)" = 65
check "  naming the entry" grep -q "commands\[0\].at\[1\].s: entries must be in time order" "$TMP/err"
check "  nothing injected" test ! -e "$LOG"
# a poll the recording does not have: logged, and the scheduler counts as unreadable
check "replay: an unrecorded poll is exit 71 (cannot observe), nothing injected" test "$(CMAX_TEST_SCHED_REPLAY=$RP/hgx-xid79-67s-35min.json CMAX_TEST_SCHED_REPLAY_LOG=$TMP/replay.log SLURM_JOB_NODELIST=gpu099 rc_of "$CMAX" inject xid 79 --node gpu099 --log-file "$LOG" --yes)" = 71
check "  logged as NO RECORDING" grep -q "scontrol show node -o gpu099	NO RECORDING" "$TMP/replay.log"
check "  nothing injected" test ! -e "$LOG"
# two hours of a replayed HGX failure in well under a second, and the document says it is a replay
t0=$(date +%s)
CMAX_TEST_SCHED_REPLAY=$RP/hgx-xid79-back-2h.json SLURM_JOB_ID=1 SLURM_JOB_NODELIST=gpu017 \
	"$CMAX" inject xid 79 --node gpu017 --gpu 0000:5a:00 --log-file "$LOG" --yes --json --poll-ms 1000 --wait-return 10800 >"$TMP/r2h.json" 2>"$TMP/r2h.err"
check "replay: verdict FAIL (exit 2) for a node back only after 2 h" test $? = 2
check "  the line was really appended" grep -q "NVRM: Xid (PCI:0000:5a:00): 79" "$LOG"
check "  2 h of simulated polling every second: 7200 polls" test "$(jget "$TMP/r2h.json" 'd["timeline"]["polls"] >= 7200 and d["timeline"]["times"]["usable_s"] >= 7200')" = True
check "  timestamps on the simulated wall clock" test "$(jget "$TMP/r2h.json" '[e["at"] for e in d["timeline"]["events"]][0]')" = "2026-11-30T06:00:00.000Z"
check "  the document names the replay" test "$(jget "$TMP/r2h.json" 'd["test_replay"]["file"].endswith("hgx-xid79-back-2h.json")')" = True
check "  in seconds, not hours" test $(( $(date +%s) - t0 )) -lt 20
# progress (core/progress.h): without a terminal, one stderr line per
# milestone as it is seen, in the timeline's order, timed on its clock
check "  progress: one line per milestone seen, in order, with its time from the injection" "$PY" -c '
import json, re, sys
d = json.load(open(sys.argv[1])); err = open(sys.argv[2]).read()
tm = d["timeline"]["times"]
seen = sorted(((tm[k + "_s"], k) for k in ("detect", "drain", "return", "usable") if tm.get(k + "_s") is not None))
names = {"detect": "detected", "drain": "drained", "return": "returned", "usable": "usable"}
got = re.findall(r"^cmax inject: milestone (\d)/4 (\w+) done in (\S+?),? ", err, re.M)
assert [g[1] for g in got] == [names[k] for _, k in seen], (got, seen)
assert [int(g[0]) for g in got] == list(range(1, len(seen) + 1)), got
fmt = lambda s: "%ds" % s if s < 60 else ("%dm%02ds" % (s // 60, s % 60) if s < 3600 else "%dh%02dm" % (s // 3600, s % 3600 // 60))
assert all(abs(int(re.sub(r"\D", "", g[2]) or 0) - int(re.sub(r"\D", "", fmt(int(t))))) <= 1 for g, (t, _) in zip(got, seen)), (got, seen)
' "$TMP/r2h.json" "$TMP/r2h.err"
rm -f "$LOG"
# a 10-minute reboot: between the limits, WARN (exit 0)
"$PY" - "$RP/reboot-back-2min.json" "$TMP/reboot-10min.json" "$RP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["commands"]:
    for e in c["at"]:
        if e["s"] == 112:
            e["s"] = 600
        if "stdout_file" in e:
            e["stdout_file"] = sys.argv[3] + "/" + e["stdout_file"]
json.dump(d, open(sys.argv[2], "w"))
PY
CMAX_TEST_SCHED_REPLAY=$TMP/reboot-10min.json SLURM_JOB_ID=1 SLURM_JOB_NODELIST=gpu018 \
	"$CMAX" reboot-test --node gpu018 --yes --json >"$TMP/rb10.json" 2>"$TMP/rb10.err"
check "replay: a reboot back after 10 min exits 0" test $? = 0
check "  reboot.return WARN, verdict WARN" test "$(jget "$TMP/rb10.json" '(d["results"][1]["status"], d["verdict"]["status"])')" = "('WARN', 'WARN')"
check "  progress: one stderr line per event of the document, in order, numbered, no ETA guessed" "$PY" -c '
import json, re, sys
d = json.load(open(sys.argv[1])); err = open(sys.argv[2]).read()
got = re.findall(r"^cmax reboot-test: event (\d+) (\S+) done in \S+ .*ETA (\S+)\)$", err, re.M)
assert [g[1] for g in got] == [e["event"] for e in d["events"]], (got, d["events"])
assert [int(g[0]) for g in got] == list(range(1, len(got) + 1)) and all(g[2] == "?" for g in got), got
' "$TMP/rb10.json" "$TMP/rb10.err"

# --- Kubernetes timeline against a fake kubectl that reacts to the log
K=$TMP/k8s
mkdir -p "$K/bin"
cat >"$K/bin/kubectl" <<EOF
#!/bin/sh
# fake kubectl: node gpu-1 is cordoned and tainted once the log holds an Xid
# line, until \$K/uncordoned exists; pods succeed at once
echo "\$*" >>$K/calls
case "\$1 \$2" in
"get node")
	if grep -q "NVRM: Xid" $LOG 2>/dev/null && [ ! -e $K/uncordoned ]; then
		u='"unschedulable":true,'; t=',{"key":"cmax.io/xid","value":"79","effect":"NoSchedule"}'; touch $K/cordoned
	else u=''; t=''; fi
	printf '{"kind":"Node","metadata":{"name":"gpu-1"},"spec":{%s"taints":[{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}%s]},"status":{"conditions":[{"type":"Ready","status":"True"}],"nodeInfo":{"bootID":"b"}}}\n' "\$u" "\$t" ;;
"run "*) echo "pod/\$2 created" ;;
"get pod") printf Succeeded ;;
"delete pod") echo deleted ;;
*) echo "fake kubectl: unexpected \$*" >&2; exit 1 ;;
esac
EOF
chmod 755 "$K/bin/kubectl"
rm -f "$LOG"
PATH=$K/bin:$PATH "$CMAX" inject xid 79 --k8s --node gpu-1 --log-file "$LOG" --yes --i-own-this-node --json \
	--timeout 10 --wait-return 10 --probe-image cuda:test >"$TMP/k.json" 2>"$TMP/k.err" &
pid=$!
wait_for() { local end=$((SECONDS + $1)); shift; until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.1; done; }
check "k8s: the fake saw the cordon" wait_for 10 test -e "$K/cordoned"
sleep 0.3
touch "$K/uncordoned"
wait $pid
check "k8s: exit 0" test $? = 0
check "k8s: verdict PASS" test "$(jget "$TMP/k.json" 'd["verdict"]["status"]')" = PASS
check "k8s: events" test "$(jget "$TMP/k.json" '[e["event"] for e in d["timeline"]["events"]]')" = "['injected', 'detected', 'drained', 'returned', 'usable']"
check "k8s: drained means cordon + new taint" grep -q 'Ready,SchedulingDisabled taints=nvidia.com/gpu=present:NoSchedule,cmax.io/xid=79:NoSchedule' "$TMP/k.json"
check "k8s: usable = a pod ran nvidia-smi" test "$(jget "$TMP/k.json" '[e["detail"] for e in d["timeline"]["events"]][-1]')" = "pod $(grep -o 'cmax-probe-[0-9]*-0' "$K/calls" | head -1) running nvidia-smi on gpu-1: Succeeded"
check "k8s: probe pod pinned to the node, asks for a GPU, image given" \
	grep -q '^run cmax-probe-[0-9]*-0 --restart=Never --image cuda:test --overrides .*"nodeSelector":{"kubernetes.io/hostname":"gpu-1"}.*"nvidia.com/gpu":"1"' "$K/calls"
check "k8s: probe pod deleted" grep -q '^delete pod cmax-probe-[0-9]*-0 --wait=false --ignore-not-found' "$K/calls"

# --- every document printed above matches its schema (docs/schema/inject, reboot-test), with the
# timeline and verdict consistent; python3-jsonschema and cmax's own validator agree on each and on
# mutated copies (tests/contract/validate-docs.py). The other methods' dry runs, as JSON, too.
"$CMAX" inject xid 48 --method dcgm --gpu 2 --node node7 --dry-run --json >"$TMP/dcgm.json"
"$CMAX" inject xid 79 --node node7 --k8s --platform nvl72 --dry-run --json >"$TMP/k8s-dry.json"
"$CMAX" inject sxid 20034 --node node7 --gpu 0000:05:00.0 --dry-run --json >"$TMP/sxid.json"
"$CMAX" inject ras --node "$HOST" --sysroot "$R" --dry-run --json >"$TMP/ras-none.json"
check "amd-ras dry run where RAS is missing: a document that says it is not available" \
	test "$(jget "$TMP/ras-none.json" '(d["available"], d["fault"]["block"])')" = "(False, 'umc')"
docs=("$TMP"/{d,d13,sbr,sbr-run,dcgm,k8s-dry,sxid,ras-none,r2h,rb10,k}.json)
if "$PY" "$SRCDIR/tests/contract/validate-docs.py" --c-validator "$BUILD/test_docschemas" "${docs[@]}" >"$TMP/vd" 2>&1; then
	ok "every inject and reboot-test document validates (${#docs[@]}, both validators agree)"
else
	not_ok "every inject and reboot-test document validates"; diag <"$TMP/vd"
fi
done_testing
