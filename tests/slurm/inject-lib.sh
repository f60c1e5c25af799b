# Shell helpers for the inject / reboot-test scripts on a real Slurm.
# Source it after tests/lib/tap.sh (or on its own in bench scripts).
#
# The test suite may run while someone else runs it too (several `make
# check` at once on one machine): a fixed CTLD_PORT would collide.  Each
# Slurm instance claims a block of 10 ports (slurmctld + up to 9 slurmd)
# in 17400-17499 with a lock directory holding the claimant's pid, and
# only where nothing listens.

INJECT_PORT_LOCKS=/tmp/cmax-inject-ports
INJECT_CLAIMED=""

_inject_listening() { # PORT: is anything listening on 127.0.0.1:PORT?
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# inject_claim_port: print a free block's first port (claimed for this shell's pid)
inject_claim_port() {
	local p k busy owner
	mkdir -p "$INJECT_PORT_LOCKS" 2>/dev/null
	for p in $(seq 17400 10 17490); do
		if ! mkdir "$INJECT_PORT_LOCKS/$p" 2>/dev/null; then
			owner=$(cat "$INJECT_PORT_LOCKS/$p/pid" 2>/dev/null)
			if [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null; then continue; fi
			rm -rf "$INJECT_PORT_LOCKS/$p"	# stale: its owner is gone
			mkdir "$INJECT_PORT_LOCKS/$p" 2>/dev/null || continue
		fi
		echo "$$" >"$INJECT_PORT_LOCKS/$p/pid"
		busy=0
		for k in 0 1 2 3; do _inject_listening $((p + k)) && busy=1; done
		if [ $busy = 1 ]; then
			rm -rf "$INJECT_PORT_LOCKS/$p"
			continue
		fi
		echo "$p"
		return 0
	done
	return 1
}

# inject_release_ports: drop every block this shell claimed
inject_release_ports() {
	local d
	for d in "$INJECT_PORT_LOCKS"/*; do
		[ "$(cat "$d/pid" 2>/dev/null)" = "$$" ] && rm -rf "$d"
	done
	return 0
}

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
