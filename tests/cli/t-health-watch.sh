#!/usr/bin/env bash
# cmax health watch (docs/health.md).
#
# Part 1, no scheduler at all (--report-only, an empty PATH): an Xid 79 is
# reported once, not on every heartbeat; a log that vanishes while watch
# runs is an outage (cmax_health_source_up 0 on /metrics and in the
# textfile, one line on stderr, a JSON line with `error`), watch keeps
# serving and picks the file up again; a rotation (rename + create) is no
# outage; a FIFO put in its place is refused without blocking; a directory
# that is not there yet is retried; a masked /dev/kmsg is an outage.
#
# Part 2, a REAL Slurm whose HealthCheckInterval is 300 s: an appended Xid
# 79 drains the node within ~2 s (inotify, no polling); an application Xid
# does not; a rotated log is followed; /metrics answers on the loopback
# address given with --listen.
. "$(dirname "$0")/../lib/tap.sh"
# the interpreter itself, not a version-manager shim (0.5 s a call)
PY=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
. "$SRCDIR/tests/slurm/ports.sh"
WPID=
trap '[ -n "$WPID" ] && kill "$WPID" 2>/dev/null; [ -n "${BASE:-}" ] && "$SRCDIR/tests/slurm/slurm-down.sh" >/dev/null 2>&1; ports_release; rm -rf "$TMP"' EXIT
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.05; done
}
metric() { awk -v m="$2" '$1==m{print $2}' "$1/cmax_health.prom" 2>/dev/null; }
scrape() { curl -sf "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1==m{print $2}'; }
# the pass writes the textfile, then hands the metrics to the server thread:
# a scrape right after the textfile changed may still see the pass before
scrape_is() { test "$(scrape "$1" "$2")" = "$3"; }
jcount() { # FILE PYTHON-CONDITION-ON-d: JSON lines that match
	"$PY" -c "
import json,sys
n=0
for l in open(sys.argv[1]):
    d=json.loads(l)
    n+=bool(eval(sys.argv[2]))
print(n)" "$@"
}
X79="[  100.000000] NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
X48="[  200.000000] NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, name=python3, Ch 00000008, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0."
mkdir -p "$TMP/empty" "$TMP/ro/prom"
# bare(ARGS...) &: cmax health watch with no scheduler anywhere on PATH;
# backgrounded only (it execs, so that $! is cmax itself)
bare() { exec env -i PATH="$TMP/empty" CMAX_DATADIR="$SRCDIR/data" ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
	${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "$CMAX" health watch --node node1 "$@"; }

L=$TMP/ro/kern.log
: >"$L"
HAVE_CURL=; command -v curl >/dev/null && HAVE_CURL=1
RPORT=$(ports_claim 1) || { not_ok "no free port for --listen"; done_testing; exit 1; }
bare --report-only --log-file "$L" --state "$TMP/ro/state.json" --textfile "$TMP/ro/prom" \
	--listen 127.0.0.1:$RPORT --heartbeat 1 --json >"$TMP/ro/out" 2>"$TMP/ro/err" &
WPID=$!
check "report-only watch: first pass written" wait_for 5 test -s "$TMP/ro/prom/cmax_health.prom"
echo "$X79" >>"$L"
check "report-only watch: the 79 is reported (would_drain)" \
	wait_for 3 sh -c "grep -q would_drain $TMP/ro/out"
sleep 2.2	# two heartbeats
check "report-only watch: reported once, not on every heartbeat ($(jcount "$TMP/ro/out" 'd["node_action"]') lines with an action)" \
	test "$(jcount "$TMP/ro/out" 'd["node_action"] and d["node_action"]["decision"]=="would_drain"')" = 1
check "report-only watch: metrics say unhealthy, report-only, not drained" \
	test "$(metric "$TMP/ro/prom" cmax_health_unhealthy) $(metric "$TMP/ro/prom" cmax_health_report_only) $(metric "$TMP/ro/prom" cmax_health_node_drained)" = "1 1 0"

# vanished: deleted and not replaced
rm -f "$L"
check "vanished: textfile cmax_health_source_up 0" wait_for 4 sh -c "grep -q '^cmax_health_source_up 0' $TMP/ro/prom/cmax_health.prom"
if [ -n "$HAVE_CURL" ]; then
	check "vanished: /metrics still answers, source_up 0" wait_for 4 scrape_is $RPORT cmax_health_source_up 0
else
	skip "curl not installed: /metrics"
fi
check "vanished: one line on stderr says so" grep -q "cannot see the log: $L vanished" "$TMP/ro/err"
check "vanished: a JSON line with the error" \
	test "$(jcount "$TMP/ro/out" 'd["error"] and "vanished" in d["error"] and d["source"]["up"] is False')" -ge 1
sleep 2.2	# retried on two heartbeats
check "vanished: still down, said once ($(grep -c 'cannot see' "$TMP/ro/err") stderr lines)" \
	test "$(grep -c 'cannot see' "$TMP/ro/err")" = 1
kill -0 "$WPID" 2>/dev/null && ok "watch keeps running while the source is down" || not_ok "watch keeps running while the source is down"
# back, with a new event in it: read from its start and reported
echo "$X48" >"$L"
check "back: source_up 1 again" wait_for 4 sh -c "grep -q '^cmax_health_source_up 1' $TMP/ro/prom/cmax_health.prom"
# the textfile is written before the pass prints its report: wait for the line
check "back: stderr says it can be read again" wait_for 2 grep -q "the log can be read again: $L" "$TMP/ro/err"
check "back: the new Xid 48 in it is reported" \
	wait_for 3 sh -c "[ \$($PY -c \"import json;print(sum(1 for l in open('$TMP/ro/out') if json.loads(l)['node_action'] and '0000:3b:00' in json.loads(l)['node_action']['reason']))\") = 1 ]"
# a rotation (rename, then a new file at once) is no outage
mv "$L" "$L.1"; : >"$L"
sleep 1.5
check "rotation (rename + create): no outage ($(grep -c 'cannot see' "$TMP/ro/err") stderr lines)" \
	test "$(grep -c 'cannot see' "$TMP/ro/err")" = 1
# rotated away and not replaced: an outage too
mv "$L" "$L.2"
check "rotated away, not replaced: vanished (a second outage)" \
	wait_for 4 sh -c "[ \$(grep -c 'cannot see the log: $L vanished' $TMP/ro/err) = 2 ]"
# a FIFO in its place: refused, never opened, watch goes on
rm -f "$L"; mkfifo "$L"
check "FIFO in its place: an outage naming it" wait_for 4 grep -q "cannot see the log: $L is a FIFO" "$TMP/ro/err"
if [ -n "$HAVE_CURL" ]; then
	# the metrics text is handed to the server when a pass ends, a moment after its stderr line
	check "FIFO: watch is not blocked (/metrics answers, source_up 0)" \
		wait_for 4 sh -c "[ \"\$(timeout 2 curl -sf http://127.0.0.1:$RPORT/metrics | awk '\$1==\"cmax_health_source_up\"{print \$2}')\" = 0 ]"
fi
rm -f "$L"; : >"$L"
check "FIFO replaced by a file: up again" wait_for 4 sh -c "grep -q '^cmax_health_source_up 1' $TMP/ro/prom/cmax_health.prom"
kill "$WPID"; wait "$WPID" 2>/dev/null; r=$?; WPID=
check "report-only watch exits 0 on SIGTERM (rc $r)" test "$r" = 0
check "report-only watch: every output line is JSON" "$PY" -c "
import json
for l in open('$TMP/ro/out'): json.loads(l)"

# a directory that is not there yet: down from the start, then picked up
mkdir -p "$TMP/nd/prom"
bare --report-only --log-file "$TMP/nd/later/kern.log" --state "$TMP/nd/state.json" \
	--textfile "$TMP/nd/prom" --heartbeat 1 >"$TMP/nd/out" 2>"$TMP/nd/err" &
WPID=$!
check "missing directory: watch starts, source_up 0" wait_for 4 sh -c "grep -qs '^cmax_health_source_up 0' $TMP/nd/prom/cmax_health.prom"
mkdir -p "$TMP/nd/later"; echo "$X79" >"$TMP/nd/later/kern.log"
check "directory created: watched again, the 79 is reported" wait_for 5 grep -q 'would drain node node1' "$TMP/nd/out"
kill "$WPID"; wait "$WPID" 2>/dev/null; WPID=

# a masked /dev/kmsg: an outage, watch keeps serving
if unshare -m true 2>/dev/null; then
	mkdir -p "$TMP/km/prom"
	timeout 2.5 unshare -m sh -c "mount --bind /dev/null /dev/kmsg && exec env -i PATH=$TMP/empty CMAX_DATADIR=$SRCDIR/data \
		$CMAX health watch --kmsg --report-only --node node1 --state $TMP/km/state.json --textfile $TMP/km/prom --heartbeat 1" \
		>"$TMP/km/out" 2>"$TMP/km/err"
	r=$?
	check "watch --kmsg masked: keeps running until stopped (rc $r = timeout's 124)" test "$r" = 124
	check "watch --kmsg masked: source_up 0, said once" \
		sh -c "grep -q '^cmax_health_source_up 0' $TMP/km/prom/cmax_health.prom && [ \$(grep -c 'not the kernel ring' $TMP/km/err) = 1 ]"
else
	skip "unshare -m not permitted here: masked /dev/kmsg under watch"
fi

# ---- part 2: a real Slurm ----
for c in slurmctld slurmd munged scontrol sinfo curl; do
	command -v $c >/dev/null || { skip "$c not installed"; done_testing; exit; }
done
[ "$(id -u)" = 0 ] || { skip "real Slurm needs root"; done_testing; exit; }

chmod 755 "$TMP"	# munged wants o+x on every directory above its socket
BASE=$TMP/slurm
export BASE NNODES=1 HC_INTERVAL=300 HEALTH_PROGRAM=""
LOG=$TMP/kern.log
: >"$LOG"
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
# the server answers off the watch loop (httpd.c): the text of a pass is
# published when the pass ends, a moment after its drain command ran
check "/metrics says drained" wait_for 3 sh -c "curl -sf http://127.0.0.1:$PORT/metrics | grep -q '^cmax_health_node_drained 1'"

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
check "every output line is JSON" "$PY" -c "
import json,sys
for l in open('$TMP/watch.out'): json.loads(l)"
done_testing
