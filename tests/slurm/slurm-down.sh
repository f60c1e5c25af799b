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
# Jobs first: their slurmstepd processes outlive slurmd otherwise.
if [ -f "$BASE/etc/slurm.conf" ] && [ -f "$BASE/run/slurmctld.pid" ]; then
	jobs=$(SLURM_CONF=$BASE/etc/slurm.conf timeout 5 squeue -h -o %i 2>/dev/null)
	if [ -n "$jobs" ]; then
		# shellcheck disable=SC2086
		SLURM_CONF=$BASE/etc/slurm.conf timeout 5 scancel --quiet $jobs 2>/dev/null
		for _ in $(seq 20); do
			[ -z "$(SLURM_CONF=$BASE/etc/slurm.conf timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
fi
stop_all "$BASE"/run/slurmd-*.pid "$BASE/run/slurmctld.pid"
stop_all "$BASE/run/munged.pid"
# the port block slurm-up.sh claimed (CTLD_PORT=auto): free now, not only
# when the claimant exits, for scripts that start one Slurm after another
if read -r first count owner 2>/dev/null <"$BASE/run/ports"; then
	. "$(dirname "$0")/ports.sh"
	ports_release_block "$first" "$count" "$owner"
fi
[ "${KEEP:-0}" = 1 ] || rm -rf "$BASE"
exit 0
