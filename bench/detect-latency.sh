#!/usr/bin/env bash
# Detection latency on a REAL Slurm (munge, slurmctld, one slurmd on
# loopback): median time from the synthetic Xid 79 log line to DRAIN visible
# to `sinfo`, over N injections (default 10), for
#   1. `cmax health watch` (event-driven: inotify on the log file), and
#   2. `cmax health check` as HealthCheckProgram, HealthCheckInterval=5 s
#      (polling; injections at a random phase of the interval).
# Each injection is `cmax inject xid 79 --method log --poll-with sinfo`,
# whose drain_s is the figure; the node is resumed between injections.
# Prints figures; not a test (the goal is under 2 s for watch mode).
#
#   sudo bench/detect-latency.sh [BUILD_DIR]      N=10 HC_INTERVAL=5 POLL_MS=20
set -u
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRCDIR/build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
CMAX=$BUILD/cmax
N=${N:-10}
HC=${HC_INTERVAL:-5}
POLL_MS=${POLL_MS:-20}
export SRCDIR LC_ALL=C
for c in slurmctld slurmd munged scontrol sinfo python3; do
	command -v $c >/dev/null || { echo "detect-latency: $c not installed" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "detect-latency: needs root (real Slurm daemons)" >&2; exit 1; }
[ -x "$CMAX" ] || { echo "detect-latency: $CMAX not built" >&2; exit 1; }
. "$SRCDIR/tests/slurm/inject-lib.sh"
T=$(mktemp -d /tmp/cmax-detect-bench.XXXXXX)
chmod 755 "$T"
WATCH_PID=""
cleanup() {
	[ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null
	inject_slurm_down "$T/watch" "$T/poll"
	rm -rf "$T"
}
trap cleanup EXIT

# run_series NAME: N injections on node1 of the Slurm at $SLURM_CONF; prints
# the drain_s values one per line into $T/NAME.times
run_series() {
	local name=$1 i j
	: >"$T/$name.times"
	for i in $(seq 1 "$N"); do
		[ "$name" = poll ] && sleep "$(python3 -c "import random; print(round(random.uniform(0, $HC), 2))")"
		"$CMAX" inject xid 79 --method log --log-file "$T/kern-node1.log" --node node1 --gpu 0000:5a:00 \
			--yes --json --i-own-this-node --timeout $((HC * 3 + 10)) --wait-return 0 \
			--poll-with sinfo --poll-ms "$POLL_MS" >"$T/$name-$i.json" 2>"$T/$name-$i.err"
		python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["timeline"]["times"]["drain_s"]; print(t if t is not None else "none")' \
			"$T/$name-$i.json" >>"$T/$name.times" 2>/dev/null || echo none >>"$T/$name.times"
		printf '  %s #%d: drain visible after %s s\n' "$name" "$i" "$(tail -1 "$T/$name.times")" >&2
		scontrol update NodeName=node1 State=RESUME 2>/dev/null
		wait_for 15 node_state_is node1 idle || echo "  node1 did not return to idle" >&2
	done
}

summary() { # NAME LABEL
	python3 - "$T/$1.times" "$2" <<'EOF'
import statistics, sys
vals = [l.strip() for l in open(sys.argv[1])]
ok = sorted(float(v) for v in vals if v != "none")
miss = len(vals) - len(ok)
if not ok:
    print("%-44s no drain observed in %d injections" % (sys.argv[2], len(vals)))
else:
    print("%-44s median %.2f s  (min %.2f, max %.2f, n=%d%s)" % (sys.argv[2], statistics.median(ok), ok[0], ok[-1],
          len(ok), ", %d not drained" % miss if miss else ""))
EOF
}

echo "detect-latency: $N injections of Xid 79 per mode; time from the log line to DRAIN visible to sinfo" >&2
have_watch=0
"$CMAX" health watch --help >/dev/null 2>&1 && have_watch=1

# 1. watch mode: no HealthCheckProgram at all, the agent follows the file
if [ $have_watch = 1 ]; then
	B=$T/watch
	: >"$T/kern-node1.log"
	BASE=$B NNODES=1 HEALTH_PROGRAM="" "$SRCDIR/tests/slurm/slurm-up.sh" >"$T/up-watch.log" 2>&1 ||
		{ cat "$T/up-watch.log" >&2; exit 1; }
	export SLURM_CONF=$B/etc/slurm.conf
	"$CMAX" health watch --log-file "$T/kern-node1.log" --node node1 --state "$T/watch-state.json" \
		>"$T/watch.out" 2>&1 &
	WATCH_PID=$!
	sleep 1
	run_series watch
	kill "$WATCH_PID" 2>/dev/null
	wait "$WATCH_PID" 2>/dev/null
	WATCH_PID=""
	inject_slurm_down "$B"
fi

# 2. polling: cmax health check as HealthCheckProgram every $HC s
B=$T/poll
: >"$T/kern-node1.log"
mkdir -p "$B/etc"
"$SRCDIR/tests/slurm/inject-hc-wrapper.sh" "$B/etc/hc.sh" "$CMAX" "$T" "$B/etc/slurm.conf"
BASE=$B NNODES=1 HEALTH_PROGRAM=$B/etc/hc.sh HC_INTERVAL=$HC "$SRCDIR/tests/slurm/slurm-up.sh" \
	>"$T/up-poll.log" 2>&1 || { cat "$T/up-poll.log" >&2; exit 1; }
export SLURM_CONF=$B/etc/slurm.conf
sleep 1
run_series poll

echo
echo "Detection latency, log line -> DRAIN visible to sinfo (Xid 79, $N injections each, sinfo polled every ${POLL_MS} ms):"
if [ $have_watch = 1 ]; then
	summary watch "cmax health watch (event-driven):"
else
	echo "cmax health watch (event-driven):             unavailable in this build (cmax health watch missing)"
fi
summary poll "HealthCheckInterval=$HC s + cmax health check:"
echo "Goal: under 2 s in watch mode."
