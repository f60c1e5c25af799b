#!/usr/bin/env bash
# cmax health check as Slurm's HealthCheckProgram on a REAL Slurm (munge,
# slurmctld, two slurmd on loopback): an Xid 79 line drains the node with a
# reason naming code, GPU and time; application Xids (13, 31, 43, 45) do
# not; a node someone else drained keeps its reason; the textfile metrics
# are fresh and well-formed.
. "$(dirname "$0")/../lib/tap.sh"
for c in slurmctld slurmd munged scontrol sinfo; do
	command -v $c >/dev/null || { skip "$c not installed (apt-get install slurm-wlm slurmctld slurmd slurm-client munge)"; done_testing; exit; }
done
[ "$(id -u)" = 0 ] || { skip "real Slurm needs root"; done_testing; exit; }

chmod 755 "$TMP"	# munged wants o+x on every directory above its socket
BASE=$TMP/slurm
export BASE NNODES=2 HC_INTERVAL=1
mkdir -p "$BASE/etc" "$BASE/prom-node1" "$BASE/prom-node2"
: >"$BASE/kern-node1.log"
: >"$BASE/kern-node2.log"
# The program slurmd runs: nothing exported; cmax finds slurm.conf through
# the slurmd that started it (-f), and PATH through its own default.
HEALTH_PROGRAM=$BASE/etc/hc.sh
cat >"$HEALTH_PROGRAM" <<EOF
#!/bin/sh
exec $CMAX health check --log-file $BASE/kern-\$SLURMD_NODENAME.log --node "\$SLURMD_NODENAME" \
	--state $BASE/health-state.json --textfile $BASE/prom-\$SLURMD_NODENAME >>$BASE/hc-\$SLURMD_NODENAME.out 2>&1
EOF
chmod 755 "$HEALTH_PROGRAM"
export HEALTH_PROGRAM
trap '"$SRCDIR/tests/slurm/slurm-down.sh" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
if ! "$SRCDIR/tests/slurm/slurm-up.sh" >"$TMP/up.log" 2>&1; then
	not_ok "slurm-up"; diag <"$TMP/up.log"; done_testing; exit 1
fi
export SLURM_CONF=$BASE/etc/slurm.conf

state() { sinfo -h -n "$1" -o %T; }
reason() { sinfo -h -R -n "$1" -o %E; }
# wait_for SECONDS COMMAND...: poll every 0.1 s
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.1; done
}
prom() { cat "$BASE/prom-$1/cmax_health.prom" 2>/dev/null; }
seen() { prom "$1" | grep -q "^cmax_health_xid_events_total{code=\"$2\"} [1-9]"; }
line() { echo "$(date -u +%Y-%m-%dT%H:%M:%S+0000) $(hostname -s) kernel: NVRM: Xid (PCI:0000:5a:00): $1" >>"$BASE/kern-$2.log"; }

check "slurmd ran the health program (textfile written)" wait_for 10 test -s "$BASE/prom-node1/cmax_health.prom"

# Application Xids: seen, counted, never a drain.
line "13, pid=4242, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0)" node1
line "31, pid=4242, name=python3, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f0a_00000000" node1
line "43, pid=4242, name=python3, Ch 00000008" node1
line "45, pid=4242, name=python3, Ch 00000008" node1
check "Xids 13/31/43/45 were read by the health program" wait_for 10 seen node1 45
sleep 1.5
check "node1 not drained after Xids 13, 31, 43, 45 (state $(state node1))" test "$(state node1)" = idle
grep -q 'cmax_health_action{action="restart_app"} 1' <(prom node1) && ok "last action restart_app" || not_ok "last action restart_app"

# Xid 79: drained, reason names code, PCI, time and action.
t0=$(date +%s.%N)
line "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." node1
if wait_for 10 sh -c "sinfo -h -n node1 -o %T | grep -q drain"; then
	ok "Xid 79 drained node1 in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s (HealthCheckInterval=$HC_INTERVAL)"
else
	not_ok "Xid 79 drained node1 (state $(state node1))"; diag <"$BASE/hc-node1.out"
fi
r=$(reason node1)
check "drain reason names code, PCI, time, action: '$r'" \
	bash -c '[[ $1 =~ ^cmax:\ Xid\ 79\ on\ 0000:5a:00\ at\ 20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:]{8}Z\ \(reboot\)$ ]]' _ "$r"
check "metrics say drained" wait_for 5 sh -c "grep -q '^cmax_health_node_drained 1' $BASE/prom-node1/cmax_health.prom"
check "metrics count the 79" seen node1 79

# Someone else's drain is left alone.
scontrol update NodeName=node2 State=DRAIN Reason="maintenance"
line "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." node2
check "node2's health program saw the 79" wait_for 10 seen node2 79
check "foreign drain kept its reason ('$(reason node2)')" test "$(reason node2)" = maintenance
grep -q '^cmax_health_node_drained 0' <(prom node2) && ok "node2: not counted as cmax's drain" || not_ok "node2: not counted as cmax's drain"
grep -q 'someone else' "$BASE/hc-node2.out" && ok "the pass says it left node2 alone" || { not_ok "the pass says it left node2 alone"; diag <"$BASE/hc-node2.out"; }

# Freshness: the last-check time moves with every pass.
ts=$(prom node2 | awk '/^cmax_health_last_check_timestamp_seconds/{print $2}')
now=$(date +%s)
check "last check is fresh ($((now - ts)) s old)" test $((now - ts)) -le 5
if command -v promtool >/dev/null; then
	check "promtool check metrics accepts the textfile" sh -c "promtool check metrics <$BASE/prom-node1/cmax_health.prom && promtool check metrics <$BASE/prom-node2/cmax_health.prom"
else
	skip "promtool not installed (apt-get install prometheus)"
fi
slurmd_restarts=$(grep -c 'HealthCheck' "$BASE/log/slurmd-node1.log" 2>/dev/null || true)
[ -s "$BASE/hc-node1.out" ] && ok "health program output kept ($slurmd_restarts slurmd log lines)" || not_ok "health program output kept"
done_testing
