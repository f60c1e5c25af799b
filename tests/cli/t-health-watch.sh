#!/usr/bin/env bash
# cmax health watch on a REAL Slurm whose HealthCheckInterval is 300 s: an
# appended Xid 79 drains the node within ~2 s (inotify, no polling); an
# application Xid does not; a rotated log is followed; /metrics answers on
# the loopback address given with --listen.
. "$(dirname "$0")/../lib/tap.sh"
for c in slurmctld slurmd munged scontrol sinfo curl; do
	command -v $c >/dev/null || { skip "$c not installed"; done_testing; exit; }
done
[ "$(id -u)" = 0 ] || { skip "real Slurm needs root"; done_testing; exit; }

chmod 755 "$TMP"	# munged wants o+x on every directory above its socket
BASE=$TMP/slurm
export BASE NNODES=1 HC_INTERVAL=300 HEALTH_PROGRAM=""
LOG=$TMP/kern.log
: >"$LOG"
WPID=
. "$SRCDIR/tests/slurm/ports.sh"
trap '[ -n "$WPID" ] && kill "$WPID" 2>/dev/null; "$SRCDIR/tests/slurm/slurm-down.sh" >/dev/null 2>&1; ports_release; rm -rf "$TMP"' EXIT
if ! "$SRCDIR/tests/slurm/slurm-up.sh" >"$TMP/up.log" 2>&1; then
	not_ok "slurm-up"; diag <"$TMP/up.log"; done_testing; exit 1
fi
export SLURM_CONF=$BASE/etc/slurm.conf
# the --listen port, from the same pool as Slurm's
PORT=$(ports_claim 1) || { not_ok "no free port for --listen"; done_testing; exit 1; }
mkdir -p "$TMP/prom"
"$CMAX" health watch --log-file "$LOG" --node node1 --state "$TMP/state.json" \
	--textfile "$TMP/prom" --listen 127.0.0.1:$PORT --json >"$TMP/watch.out" 2>"$TMP/watch.err" &
WPID=$!

wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.05; done
}
line() { echo "[ 100.000000] NVRM: Xid (PCI:0000:$2:00): $1" >>"$LOG"; }
drained() { sinfo -h -n node1 -o %T | grep -q drain; }

check "watch wrote its first pass" wait_for 5 test -s "$TMP/prom/cmax_health.prom"
check "/metrics answers on 127.0.0.1:$PORT" sh -c "curl -sf http://127.0.0.1:$PORT/metrics | grep -q '^cmax_health_last_check_timestamp_seconds '"
check "/ is not served" sh -c "! curl -sf http://127.0.0.1:$PORT/"

line "43, pid=7, name=app, Ch 00000010" 5a
check "watch saw the Xid 43" wait_for 3 grep -q '"events":1' "$TMP/watch.out"
sleep 1
check "Xid 43 does not drain ($(sinfo -h -n node1 -o %T))" test "$(sinfo -h -n node1 -o %T)" = idle

t0=$(date +%s%N)
line "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." 5a
if wait_for 5 drained; then
	ms=$((($(date +%s%N) - t0) / 1000000))
	check "Xid 79 drained node1 in ${ms} ms (HealthCheckInterval=300 s)" test "$ms" -le 2000
else
	not_ok "Xid 79 drained node1"; diag <"$TMP/watch.err"
fi
check "reason names the Xid" sh -c "sinfo -h -R -n node1 -o %E | grep -q '^cmax: Xid 79 on 0000:5a:00 at .*Z (reboot)$'"
check "/metrics says drained" sh -c "curl -sf http://127.0.0.1:$PORT/metrics | grep -q '^cmax_health_node_drained 1'"

# Rotation: the log is moved away and a new one starts; after the operator
# returned the node, a 79 in the new file drains it again.
scontrol update NodeName=node1 State=RESUME
mv "$LOG" "$LOG.1"
: >"$LOG"
wait_for 15 sh -c '[ "$(sinfo -h -n node1 -o %T)" = idle ]'
line "79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." 3b
check "79 in the rotated log drains again" wait_for 5 sh -c "sinfo -h -R -n node1 -o %E | grep -q '0000:3b:00'"
kill "$WPID"; wait "$WPID" 2>/dev/null; rc=$?; WPID=
check "watch exits 0 on SIGTERM (rc $rc)" test "$rc" = 0
check "every output line is JSON" python3 -c "
import json,sys
for l in open('$TMP/watch.out'): json.loads(l)"
done_testing
