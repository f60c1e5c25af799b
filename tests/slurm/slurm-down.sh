#!/usr/bin/env bash
# Stop what slurm-up.sh started (by pid file only), then remove $BASE.
: "${BASE:?set BASE}"
stop() {
	local f=$1 pid
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
	fi
	rm -f "$f"
}
for f in "$BASE"/run/slurmd-*.pid; do stop "$f"; done
stop "$BASE/run/slurmctld.pid"
stop "$BASE/run/munged.pid"
[ "${KEEP:-0}" = 1 ] || rm -rf "$BASE"
