#!/usr/bin/env bash
# cmax health: the /metrics server and bounded sources (issue 11: defects
# 2, 3 and the health part of 10; docs/health.md).
#
#  - While a slow client holds the metrics port (one byte every 0.5 s,
#    tests/cli/slowclient.py) and idle connections sit on it, an Xid 79
#    appended to the log is acted on within 1 s and a scrape answers at
#    once; the slow client is cut by the whole-request deadline (3 s), the
#    idle ones by the idle timeout (2 s), connections past the per-address
#    cap (4) at once; with the whole table (32) held by slow clients a
#    scrape waits and is answered, not refused; SIGTERM still stops watch
#    at once (the server's threads never take the signal).
#  - --listen with a port outside 1..65535 or an address that is not one
#    is a usage error (64); one that cannot be bound is 69.
#  - Two log sources (--kmsg --journal) and --since with --from-end: 64.
#  - --log-file /dev/zero: 66 at once (check), an outage that does not
#    block (watch); a file with more new bytes than --read-cap is read in
#    steps, each pass bounded, and the Xid at its end is still found.
# Scheduler-free (--report-only, an empty PATH): the actions are observed
# as watch's JSON lines ("would_drain"), as in t-health-watch.sh.
. "$(dirname "$0")/../lib/tap.sh"
PY=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
. "$SRCDIR/tests/slurm/ports.sh"
WPID=
trap '[ -n "$WPID" ] && kill "$WPID" 2>/dev/null; ports_release; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/empty"
now_ms() { echo $(($(date +%s%N) / 1000000)); }
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.02; done
}
# cmax health with no scheduler anywhere on PATH (env execs it: $! of a
# backgrounded "${BARE[@]}" ... is cmax itself)
BARE=(env -i PATH="$TMP/empty" CMAX_DATADIR="$SRCDIR/data" ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS}
	${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "$CMAX" health)
hrc() { # SECONDS MODE ARGS...: exit status of cmax health under timeout; output in $TMP/o, $TMP/e
	local t=$1; shift
	timeout "$t" "${BARE[@]}" "$@" --node node1 >"$TMP/o" 2>"$TMP/e"
	echo $?
}
X79="[  100.000000] NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."

# ---- usage: ports, addresses, sources ----
PORT=$(ports_claim 4) || { not_ok "no free ports"; done_testing; exit 1; }
: >"$TMP/k.log"
W=(--report-only --log-file "$TMP/k.log" --state "$TMP/u.json")
r=$(hrc 5 watch "${W[@]}" --listen 127.0.0.1:99999)
check "--listen 127.0.0.1:99999: 64, not a random port (rc $r)" test "$r" = 64
check "  the line names the port and the range" grep -q "'99999' is not a TCP/UDP port (1 to 65535)" "$TMP/e"
r=$(hrc 5 watch "${W[@]}" --listen 127.0.0.1:0)
check "--listen 127.0.0.1:0: 64 (rc $r)" test "$r" = 64
r=$(hrc 5 watch "${W[@]}" --listen localhost:$PORT)
check "--listen localhost:PORT (not a numeric address): 64 (rc $r)" test "$r" = 64
r=$(hrc 5 watch "${W[@]}" --listen 127.0.0.1)
check "--listen without a port: 64 (rc $r)" test "$r" = 64
r=$(hrc 5 watch "${W[@]}" --listen 192.0.2.1:$PORT)
check "--listen on an address this host does not have (TEST-NET-1): 69 (rc $r)" test "$r" = 69
"$PY" -c "import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1',$((PORT + 1)))); s.listen(); open(sys.argv[1],'w').close(); time.sleep(4)" "$TMP/busy" &
BPID=$!
# SO_REUSEADDR: earlier runs' connections in TIME_WAIT must not keep the holder from binding
check "a listener holds the port" wait_for 5 test -e "$TMP/busy"
r=$(hrc 5 watch "${W[@]}" --listen 127.0.0.1:$((PORT + 1)))
check "--listen on a port in use: 69 (rc $r)" test "$r" = 69
check "  the line says why" grep -q "Address already in use" "$TMP/e"
kill $BPID 2>/dev/null; wait $BPID 2>/dev/null
r=$(hrc 5 check --report-only --kmsg --journal --state "$TMP/u.json")
check "--kmsg --journal: 64 (rc $r)" test "$r" = 64
check "  the line names both" grep -q -- "--kmsg and --journal name two log sources" "$TMP/e"
r=$(hrc 5 check --report-only --log-file "$TMP/k.log" --kmsg --state "$TMP/u.json")
check "--log-file F --kmsg: 64 (rc $r)" test "$r" = 64
r=$(hrc 5 check --report-only --log-file "$TMP/k.log" --since --from-end --state "$TMP/u.json")
check "--since --from-end: 64 (rc $r)" test "$r" = 64

# ---- sources that never end, sources larger than a pass ----
mkdir -p "$TMP/z"
t0=$(now_ms)
r=$(hrc 5 check --report-only --log-file /dev/zero --state "$TMP/z/s.json" --textfile "$TMP/z")
ms=$(($(now_ms) - t0))
check "check --log-file /dev/zero: 66 in ${ms} ms (rc $r, 5 s allowed)" test "$r" = 66
check "  the reason says it is a device with no end" grep -q "/dev/zero is a character device (1:5), not a log file" "$TMP/e"
check "  cmax_health_source_up 0" grep -q '^cmax_health_source_up 0$' "$TMP/z/cmax_health.prom"
r=$(hrc 2 watch --report-only --log-file /dev/zero --state "$TMP/z/w.json" --heartbeat 1)
check "watch --log-file /dev/zero: an outage, keeps running until stopped (rc $r = timeout's 124)" test "$r" = 124
check "  said once" test "$(grep -c 'not a log file' "$TMP/e")" = 1
# 40000 noise lines (2.4 MiB), the 79 at the end; one pass reads 1 MiB
"$PY" -c "import sys
with open(sys.argv[1], 'w') as f:
    for i in range(40000): f.write('[ %6d.000000] eth0: link up, 100 Gbps full duplex, noise noise noise\n' % i)
    f.write(sys.argv[2] + '\n')" "$TMP/big.log" "$X79"
rcs=
for i in 1 2 3; do
	rcs="$rcs $(hrc 60 check --report-only --log-file "$TMP/big.log" --read-cap 1MiB --state "$TMP/big.json")"
	[ $i = 1 ] && cp "$TMP/e" "$TMP/e1"
done
check "--read-cap 1MiB on 2.4 MiB: two bounded passes (66) then the 79 (1) (rc$rcs)" test "$rcs" = " 66 66 1"
check "  the first says the rest is the next pass's" grep -q "more than the 1 MiB one pass reads (--read-cap): read to offset" "$TMP/e1"
check "  the third reports the 79" grep -q "would drain node node1" "$TMP/o"
r=$(hrc 60 check --report-only --log-file "$TMP/big.log" --read-cap 1000 --state "$TMP/big.json")
check "--read-cap below 1 MiB: 64 (rc $r)" test "$r" = 64
"${BARE[@]}" watch --node node1 --report-only --log-file "$TMP/big.log" --read-cap 1MiB --state "$TMP/bigw.json" --heartbeat 60 --json \
	>"$TMP/bigw.out" 2>"$TMP/bigw.err" &
WPID=$!
check "watch --read-cap 1MiB: the steps follow at once, the 79 at the end is reported" \
	wait_for 5 grep -q would_drain "$TMP/bigw.out"
kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null; WPID=

# ---- slow and idle clients ----
command -v curl >/dev/null || { skip "curl not installed: /metrics under slow clients"; done_testing; exit; }
"$PY" -c "import socket; s=socket.socket(); s.bind(('127.0.0.2',0))" 2>/dev/null ||
	{ skip "cannot bind 127.0.0.2 (the attackers' source addresses)"; done_testing; exit; }
LP=$((PORT + 2))
: >"$TMP/w.log"
"${BARE[@]}" watch --node node1 --report-only --log-file "$TMP/w.log" --state "$TMP/w.json" --listen 127.0.0.1:$LP \
	--heartbeat 60 --json >"$TMP/w.out" 2>"$TMP/w.err" &
WPID=$!
scrape() { # -> "CODE MS"
	local t0; t0=$(now_ms)
	local code; code=$(curl -s -m 10 -o "$TMP/scrape" -w '%{http_code}' "http://127.0.0.1:$LP${1:-/metrics}")
	echo "$code $(($(now_ms) - t0))"
}
check "watch serves /metrics" wait_for 5 sh -c "curl -sf http://127.0.0.1:$LP/metrics | grep -q '^cmax_health_checks_total 1$'"
check "/ is not served (404)" test "$(scrape / | cut -d' ' -f1)" = 404
check "POST /metrics is 405" test "$(curl -s -o /dev/null -w '%{http_code}' -X POST http://127.0.0.1:$LP/metrics)" = 405
check "HEAD /metrics is 200" sh -c "curl -sfI http://127.0.0.1:$LP/metrics | grep -q '^HTTP/1.1 200'"

# one slow client and 5 idle from 127.0.0.2 (the cap per address is 4), 4 idle from each of .3 and .4
"$PY" "$SRCDIR/tests/cli/slowclient.py" --port $LP --hold 7 --ready "$TMP/ready" \
	--conn 127.0.0.2:trickle:1 --conn 127.0.0.2:idle:5 --conn 127.0.0.3:idle:4 --conn 127.0.0.4:idle:4 \
	>"$TMP/sc.json" &
SC=$!
wait_for 5 test -e "$TMP/ready"
t0=$(now_ms)
echo "$X79" >>"$TMP/w.log"
if wait_for 5 grep -q would_drain "$TMP/w.out"; then
	ms=$(($(now_ms) - t0))
	check "Xid 79 acted on in ${ms} ms while a slow client and 12 idle ones hold the port (1000 allowed)" test "$ms" -le 1000
else
	not_ok "Xid 79 acted on while a slow client holds the port"
fi
read -r code ms < <(scrape)
check "a scrape meanwhile: $code in ${ms} ms (1000 allowed)" sh -c "[ '$code' = 200 ] && [ $ms -le 1000 ]"
check "  it shows the 79 (cmax_health_unhealthy 1)" grep -q '^cmax_health_unhealthy 1$' "$TMP/scrape"
wait $SC
held() { "$PY" -c "import json,sys
d=json.load(open(sys.argv[1]))
print(' '.join(str(c['closed_after']) for c in d if eval(sys.argv[2])))" "$TMP/sc.json" "$1"; }
t=$(held 'c["kind"]=="trickle"')
check "the slow client is cut by the deadline: after $t s (3 s deadline; 2.5..4.5 allowed)" \
	"$PY" -c "import sys; t=float(sys.argv[1]); sys.exit(not 2.5 <= t <= 4.5)" "$t"
t=$(held 'c["kind"]=="idle"')
check "idle connections are closed: after $t s (2 s idle timeout, or at once past the cap)" \
	"$PY" -c "import sys; v=sys.argv[1].split(); sys.exit(not (len(v)==13 and 'None' not in v and all(float(x)<=3.5 for x in v)))" "$t"
t=$(held 'c["src"]=="127.0.0.2" and c["kind"]=="idle" and c["closed_after"] is not None and c["closed_after"]<0.5')
check "past the cap of 4 per address, 2 of the 6 from 127.0.0.2 are closed at once ($t)" test "$(echo $t | wc -w)" = 2

# the whole table (8 addresses x 4) held by slow clients: a scrape waits in the backlog, is answered
args=(); for i in 2 3 4 5 6 7 8 9; do args+=(--conn 127.0.0.$i:trickle:4); done
rm -f "$TMP/ready"
"$PY" "$SRCDIR/tests/cli/slowclient.py" --port $LP --hold 7 --ready "$TMP/ready" "${args[@]}" >"$TMP/sc2.json" &
SC=$!
wait_for 5 test -e "$TMP/ready"
sleep 0.3
read -r code ms < <(scrape)
check "32 slow clients hold every slot: a scrape is answered ($code) in ${ms} ms, not refused (5000 allowed)" \
	sh -c "[ '$code' = 200 ] && [ $ms -le 5000 ]"
wait $SC
t=$(held 'True' | tr ' ' '\n' | sort -n | tail -1)
check "  every slow client cut by the deadline (the last after $t s)" \
	"$PY" -c "import sys; sys.exit(not float(sys.argv[1]) <= 4.5)" "$t"

# SIGTERM lands in the watch loop, not in the server's threads: it stops at once
"$PY" "$SRCDIR/tests/cli/slowclient.py" --port $LP --hold 3 --conn 127.0.0.2:trickle:1 >/dev/null &
SC=$!
sleep 0.5
t0=$(now_ms)
kill "$WPID"; wait "$WPID"; r=$?; WPID=
ms=$(($(now_ms) - t0))
check "SIGTERM with a client connected: exit 0 in ${ms} ms (heartbeat 60 s; 1000 allowed) (rc $r)" \
	sh -c "[ $r = 0 ] && [ $ms -le 1000 ]"
wait $SC
check "every watch output line is JSON" "$PY" -c "
import json,sys
for l in open(sys.argv[1]): json.loads(l)" "$TMP/w.out"
done_testing
