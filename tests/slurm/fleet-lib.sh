# Helpers for fleet tests against a real Slurm. Source after tests/lib/tap.sh.
#
#   slurm_start [VAR=VALUE...]        slurm-up.sh under $TMP/slurm with the
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
# slurm-up.sh claims a free port block itself (tests/slurm/ports.sh), so
# scripts can run side by side.
FLEET_WRAP=$SRCDIR/tests/slurm/node-wrap.sh

slurm_start() {
	export BASE=$TMP/slurm
	chmod 711 "$TMP" # munged wants o+x on every directory above its socket
	trap 'slurm_stop; rm -rf "$TMP"' EXIT
	env "$@" "$SRCDIR/tests/slurm/slurm-up.sh" >"$TMP/slurm-up.log" 2>&1 || return 1
	export SLURM_CONF=$BASE/etc/slurm.conf
}

# slurm-down.sh stops every daemon at once (by pid file) and removes $BASE.
slurm_stop() {
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
