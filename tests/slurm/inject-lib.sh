# Shell helpers for the inject / reboot-test scripts on a real Slurm.
# Source it after tests/lib/tap.sh (or on its own in bench scripts).
# Each Slurm instance gets a free port block from slurm-up.sh itself
# (tests/slurm/ports.sh).

# inject_slurm_down BASE...: stop every instance, all daemons told at once
# (each takes about 2 s to exit; one after the other that adds up)
inject_slurm_down() {
	local b f
	for b in "$@"; do
		for f in "$b"/run/slurm*.pid; do [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null; done
	done
	for b in "$@"; do
		[ -d "$b" ] && BASE=$b "${SRCDIR:?}/tests/slurm/slurm-down.sh" >/dev/null 2>&1 &
	done
	wait
}

# wait_for SECONDS COMMAND...: poll every 0.1 s
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.1; done
}

# node_state_is NODE STATE: sinfo's long state for NODE equals STATE
node_state_is() {
	[ "$(sinfo -h -n "$1" -o %T 2>/dev/null)" = "$2" ]
}
