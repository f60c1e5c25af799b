# Helpers for fleet tests against a real Slurm. Source after tests/lib/tap.sh.
#
#   slurm_start PORT [VAR=VALUE...]   slurm-up.sh under $TMP/slurm with the
#                                     knobs given (NNODES=3 GPUS=8 ...), exports
#                                     SLURM_CONF, stops everything (slurm_stop, by
#                                     pid) and removes $TMP at exit; returns
#                                     non-zero when Slurm did not come up
#   fleet_map NODE=FIXTURE...         which fixture host each Slurm node is
#                                     (see tests/slurm/node-wrap.sh: a host name,
#                                     a path, @hang, @fail, @partial; "*" = the rest)
#   fleet_audit OUT [ARGS...]         cmax audit --slurm --yes --json with the
#                                     wrapper as --node-cmd, ARGS appended;
#                                     OUT/{stdout,stderr,rc}, run dir OUT/run
#   fleet_unrecorded                  per-node fake-command logs with lines
#                                     (a tool ran that the fixture did not record)
#
# Each test script picks its own CTLD_PORT (slurmd ports follow it) so that
# scripts can run side by side.
FLEET_WRAP=$SRCDIR/tests/slurm/node-wrap.sh

slurm_start() {
	local port=$1; shift
	export BASE=$TMP/slurm
	chmod 711 "$TMP" # munged wants o+x on every directory above its socket
	trap 'slurm_stop; rm -rf "$TMP"' EXIT
	env CTLD_PORT="$port" "$@" "$SRCDIR/tests/slurm/slurm-up.sh" >"$TMP/slurm-up.log" 2>&1 || return 1
	export SLURM_CONF=$BASE/etc/slurm.conf
}

# Every daemon takes ~2 s to stop and slurm-down.sh stops them one after
# another: TERM them all at once (by pid file), then let slurm-down.sh
# finish whatever is left and remove $BASE.
slurm_stop() {
	local f pids=""
	for f in "$TMP"/slurm/run/slurmd-*.pid "$TMP"/slurm/run/slurmctld.pid; do
		[ -f "$f" ] && pids="$pids $(cat "$f")"
	done
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill -TERM $pids 2>/dev/null
	for _ in $(seq 50); do
		local alive=0 p
		for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	BASE=$TMP/slurm "$SRCDIR/tests/slurm/slurm-down.sh" >/dev/null 2>&1
}

fleet_map() {
	export CMAX_NODE_MAP=$TMP/nodemap CMAX_NODE_WORK=$TMP/nodework CMAX_NODE_BIN=$CMAX CMAX_SRCDIR=$SRCDIR
	mkdir -p "$CMAX_NODE_WORK"
	: >"$CMAX_NODE_MAP"
	local kv
	for kv in "$@"; do
		echo "${kv%%=*} ${kv#*=}" >>"$CMAX_NODE_MAP"
	done
	rm -f "$CMAX_NODE_WORK"/*/fake.log
}

fleet_audit() {
	local out=$1; shift
	mkdir -p "$out"
	"$CMAX" audit --slurm --yes --json --node-cmd "$FLEET_WRAP" --output-dir "$out/run" "$@" \
		>"$out/stdout" 2>"$out/stderr" </dev/null
	echo $? >"$out/rc"
}

fleet_unrecorded() {
	cat "$CMAX_NODE_WORK"/*/fake.log 2>/dev/null
}
