#!/usr/bin/env bash
# cmax inject end to end on a REAL Slurm (munge, slurmctld, two slurmd on
# loopback) with `cmax health check` as HealthCheckProgram (interval 2 s):
#   - Xid 79 via --log-file: detected and drained; after the test's own
#     `scontrol update State=RESUME` the node is back and `srun -w true`
#     runs; every time present, monotonic and plausible
#   - Xids 13 and 43 (no drain needed): not detected, verdict PASS
#   - a second Slurm without a health program: Xid 79 "not detected", FAIL
. "$(dirname "$0")/../lib/tap.sh"
for c in slurmctld slurmd munged scontrol sinfo srun python3; do
	command -v $c >/dev/null || { skip "$c not installed (apt-get install slurm-wlm slurmctld slurmd slurm-client munge)"; done_testing; exit; }
done
[ "$(id -u)" = 0 ] || { skip "real Slurm needs root"; done_testing; exit; }

chmod 755 "$TMP"	# munged wants o+x on every directory above its socket
HC_INTERVAL=2
export HC_INTERVAL NNODES=2
. "$SRCDIR/tests/slurm/inject-lib.sh"
trap 'inject_slurm_down "$TMP/slurm" "$TMP/slurm-nohc"; [ -n "${KEEPT:-}" ] || rm -rf "$TMP"' EXIT

BASE=$TMP/slurm
mkdir -p "$BASE/etc"
: >"$TMP/kern-node1.log"
: >"$TMP/kern-node2.log"
"$SRCDIR/tests/slurm/inject-hc-wrapper.sh" "$BASE/etc/hc.sh" "$CMAX" "$TMP" "$BASE/etc/slurm.conf"
if ! BASE=$BASE HEALTH_PROGRAM=$BASE/etc/hc.sh "$SRCDIR/tests/slurm/slurm-up.sh" >"$TMP/up.log" 2>&1; then
	not_ok "slurm-up"; diag <"$TMP/up.log"; done_testing; exit 1
fi
export SLURM_CONF=$BASE/etc/slurm.conf

drained() { case $(sinfo -h -n "$1" -o %T) in drain*) return 0 ;; esac; return 1; }
# Slurm ran the health program once at slurmd start: its state file exists
check "health program ran at slurmd start" wait_for 10 test -s "$TMP/hc-state-node1.json"

# --- Xid 79: detect, drain, resume (by the test, as an operator would), usable
"$CMAX" inject xid 79 --method log --log-file "$TMP/kern-node1.log" --node node1 --gpu 0000:5a:00 \
	--yes --json --i-own-this-node --timeout 20 --wait-return 30 >"$TMP/i79.json" 2>"$TMP/i79.err" &
pid=$!
if wait_for 15 drained node1; then
	ok "node1 drained after the injected Xid 79 ($(sinfo -h -R -n node1 -o %E))"
	sleep 0.5
	scontrol update NodeName=node1 State=RESUME
else
	not_ok "node1 drained after the injected Xid 79"
	diag <"$TMP/hc-node1.out"
fi
wait $pid
rc=$?
check "inject exit 0 (verdict not FAIL), got $rc" test $rc -eq 0
diag <"$TMP/i79.err"
python3 - "$TMP/i79.json" "$HC_INTERVAL" >"$TMP/py.out" 2>&1 <<'EOF' || echo "FAIL report unreadable" >>"$TMP/py.out"
import json, sys
d = json.load(open(sys.argv[1])); hc = float(sys.argv[2])
t = d["timeline"]["times"]
ev = d["timeline"]["events"]
def chk(name, cond):
    print(("ok " if cond else "FAIL ") + name)
chk("schema cmax.inject/1", d["schema"] == "cmax.inject/1")
chk("verdict PASS: %s" % d["verdict"]["summary"], d["verdict"]["status"] == "PASS")
for k in ("detect_s", "drain_s", "drained_for_s", "return_s", "usable_s"):
    chk("%s present (%s)" % (k, t[k]), isinstance(t[k], (int, float)))
if all(isinstance(t[k], (int, float)) for k in ("detect_s", "drain_s", "return_s", "usable_s")):
    chk("detection within HC interval + 2 s (%.2f s)" % t["detect_s"], 0 < t["detect_s"] <= hc + 2)
    chk("drain not before detection", t["drain_s"] >= t["detect_s"])
    chk("return after drain", t["return_s"] > t["drain_s"])
    chk("usable not before return", t["usable_s"] >= t["return_s"])
    chk("drained_for = return - drain", abs(t["drained_for_s"] - (t["return_s"] - t["drain_s"])) < 0.002)
    chk("back within the wait (%.1f s)" % t["usable_s"], t["usable_s"] < 30)
names = [e["event"] for e in ev]
chk("events in order: %s" % names, names == ["injected", "detected", "drained", "returned", "usable"])
offs = [e["offset_s"] for e in ev]
chk("offsets monotonic", offs == sorted(offs) and offs[0] == 0)
chk("every event has an ISO time", all(e["at"].endswith("Z") and "T" in e["at"] for e in ev))
dr = [e for e in ev if e["event"] == "drained"]
chk("drain reason names Xid 79: %s" % (dr[0]["detail"] if dr else None), bool(dr) and "79" in dr[0]["detail"])
us = [e for e in ev if e["event"] == "usable"]
chk("usable means srun -w node1 true ran", bool(us) and "srun" in us[0]["detail"] and "exit 0" in us[0]["detail"])
r = {x["id"]: x["status"] for x in d["results"]}
chk("rows: %s" % r, r == {"inject.detect": "PASS", "inject.isolate": "PASS", "inject.return": "PASS"})
chk("line in the driver format", d["line"] == "NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
EOF
while read -r st name; do
	if [ "$st" = ok ]; then ok "79: $name"; else not_ok "79: $st $name"; fi
done <"$TMP/py.out"
grep -q "FAIL" "$TMP/py.out" && diag <"$TMP/i79.json"
check "node1 back to idle" wait_for 10 node_state_is node1 idle
check "the log file holds the marker and the line" grep -q "cmax-inject: synthetic Xid 79 on PCI:0000:5a:00 follows" "$TMP/kern-node1.log"

# --- Xids that need no drain: not detected is the right answer
for code in 13 43; do
	"$CMAX" inject xid $code --log-file "$TMP/kern-node2.log" --node node2 --yes --json --i-own-this-node \
		--timeout 5 >"$TMP/i$code.json" 2>"$TMP/i$code.err"
	rc=$?
	check "xid $code: exit 0, got $rc" test $rc -eq 0
	v=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["verdict"]["status"], d["verdict"]["summary"], d["fault"]["isolation_expected"], d["timeline"]["times"]["detect_s"])' "$TMP/i$code.json" 2>&1)
	case $v in
	"PASS not detected within 5 s (correct: Xid $code asks for "*" False None") ok "xid $code: $v" ;;
	*) not_ok "xid $code: $v" ;;
	esac
	check "xid $code: node2 not drained ($(sinfo -h -n node2 -o %T))" test "$(sinfo -h -n node2 -o %T)" = idle
done
check "the health program saw the app Xids (state file records node2's log)" grep -q "kern-node2.log" "$TMP/hc-state-node2.json"

# --- text output of a real run (short): the timeline and verdict lines
"$CMAX" inject xid 31 --log-file "$TMP/kern-node2.log" --node node2 --yes --i-own-this-node --timeout 3 >"$TMP/i31.txt" 2>&1
check "text output has a timeline and a verdict" grep -q "^Verdict: PASS: not detected within 3 s (correct" "$TMP/i31.txt"
check "text output names the injected event" grep -q " injected  NVRM: Xid (PCI:" "$TMP/i31.txt"
check "text output without -v has no row detail" sh -c '! grep -q "^ *Observed" "$1"' _ "$TMP/i31.txt"
"$CMAX" inject xid 31 --log-file "$TMP/kern-node2.log" --node node2 --yes --i-own-this-node --timeout 3 -v >"$TMP/i31v.txt" 2>&1
check "-v adds each row's observed value (the audit's levels)" grep -q "Observed" "$TMP/i31v.txt"

# --- refusals and interruption on the real scheduler
scontrol update NodeName=node2 State=DRAIN Reason="operator: maintenance"
"$CMAX" inject xid 79 --log-file "$TMP/kern-node2.log" --node node2 --yes --i-own-this-node >"$TMP/o" 2>"$TMP/e"
check "a node already drained by someone else: refused (64), got $?" grep -q "refused: node2 is not in service now (IDLE+DRAIN reason=\"operator: maintenance\")" "$TMP/e"
scontrol update NodeName=node2 State=RESUME
wait_for 5 node_state_is node2 idle
n0=$(wc -l <"$TMP/kern-node2.log")
"$CMAX" inject xid 79 --log-file "$TMP/kern-node2.log" --node node2 --i-own-this-node </dev/null >"$TMP/o" 2>"$TMP/e"
rc=$?
check "no --yes and no terminal: refused (64), got $rc" test $rc = 64
check "  nothing injected" test "$(wc -l <"$TMP/kern-node2.log")" = "$n0"
SLURM_JOB_NODELIST="node[2-3]" "$CMAX" inject xid 13 --log-file "$TMP/kern-node2.log" --node node2 --yes --json \
	--timeout 30 >"$TMP/int.json" 2>"$TMP/int.err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
check "interrupted: exit 130, got $rc" test $rc = 130
v=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["interrupted"], d["verdict"]["summary"][:17], d["ownership"]["allowed"])' "$TMP/int.json" 2>&1)
check "interrupted: the partial report says so ($v)" test "$v" = "True interrupted after True"
"$CMAX" inject xid 13 --log-file "$TMP/kern-node2.log" --node node2 --yes --json --i-own-this-node --timeout 5 \
	--gpu 0000:77:00 \
	--detect-cmd "grep -q 'Xid (PCI:0000:77:00): 13' $TMP/kern-node2.log" >"$TMP/dc.json" 2>"$TMP/dc.err"
rc=$?
v=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); e=d["timeline"]["events"]; print([x["event"] for x in e], e[1]["detail"] if len(e) > 1 else None, d["verdict"]["status"])' "$TMP/dc.json" 2>&1 | sed "s/^/$rc /")
check "--detect-cmd: the provider signal counts as detection, no drain: WARN ($v)" \
	test "$v" = "0 ['injected', 'detected'] --detect-cmd signalled WARN"

# --- no health program at all: nothing can notice
BASE=$TMP/slurm-nohc
mkdir -p "$BASE"
if ! BASE=$BASE NNODES=1 HEALTH_PROGRAM="" "$SRCDIR/tests/slurm/slurm-up.sh" >"$TMP/up2.log" 2>&1; then
	not_ok "slurm-up without a health program"; diag <"$TMP/up2.log"
else
	export SLURM_CONF=$BASE/etc/slurm.conf
	check "no HealthCheckProgram configured" test -z "$(scontrol show config | grep -E '^HealthCheckProgram +=' | grep -v '(null)')"
	: >"$TMP/kern-nohc.log"
	"$CMAX" inject xid 79 --log-file "$TMP/kern-nohc.log" --node node1 --yes --json --i-own-this-node \
		--timeout 4 >"$TMP/nohc.json" 2>"$TMP/nohc.err"
	rc=$?
	check "no health program: exit 2 (FAIL), got $rc" test $rc -eq 2
	v=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["verdict"]["status"], "|", d["verdict"]["summary"])' "$TMP/nohc.json" 2>&1)
	check "no health program: verdict '$v'" test "$v" = "FAIL | not detected within 4 s"
fi

# every document above matches docs/schema/inject.schema.json, its times and verdict consistent;
# python3-jsonschema and cmax's own validator agree (tests/contract/validate-docs.py)
docs=()
for f in "$TMP"/{i79,i13,i43,int,dc,nohc}.json; do [ -s "$f" ] && docs+=("$f"); done
if python3 "$SRCDIR/tests/contract/validate-docs.py" --c-validator "$BUILD/test_docschemas" "${docs[@]}" >"$TMP/vd" 2>&1; then
	ok "every inject document validates (${#docs[@]})"
else
	not_ok "every inject document validates (${#docs[@]})"; diag <"$TMP/vd"
fi
done_testing
