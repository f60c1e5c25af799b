#!/usr/bin/env bash
# Stop what slurm-up.sh started (by pid file only), then remove $BASE.
# The Slurm daemons get TERM together (one after another costs ~2 s each),
# munged only after them, since they still talk to it while shutting down.
: "${BASE:?set BASE}"
stop_all() { # pid files...
	local pids=() f pid alive
	for f in "$@"; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid"
			pids+=("$pid")
		fi
		rm -f "$f"
	done
	for _ in $(seq 50); do
		alive=0
		for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
		[ "$alive" = 0 ] && return
		sleep 0.1
	done
	for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"; done
}
stop_all "$BASE"/run/slurmd-*.pid "$BASE/run/slurmctld.pid"
stop_all "$BASE/run/munged.pid"
[ "${KEEP:-0}" = 1 ] || rm -rf "$BASE"
exit 0
