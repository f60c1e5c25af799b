# Free loopback ports for tests that start daemons (Slurm, the health agent's
# --listen), safe when several scripts or whole `make check` runs start them
# at the same time on one machine: a fixed port collides ("Address already
# in use").  Source it (bash).
#
#   first=$(ports_claim COUNT [OWNER_PID])  COUNT consecutive ports on
#                                           127.0.0.1, claimed for OWNER_PID
#                                           (default: this shell, $$, which a
#                                           $(...) subshell keeps)
#   ports_release [OWNER_PID]               drop every claim of OWNER_PID
#   ports_release_block FIRST COUNT OWNER   drop one block's claims, those
#                                           still OWNER's
#
# A claim is a directory per port under $CMAX_PORT_LOCKS holding its owner's
# pid.  Claims are taken under one flock, so two claimants never get the
# same port, and only for ports nothing listens on, so a daemon someone
# started with a fixed port is avoided too.  A claim whose owner is gone is
# stale and taken over (a crashed test leaves no debris behind that counts).
#
# Knobs: CMAX_PORT_LOCKS (default /tmp/cmax-ports), CMAX_PORT_RANGE (default
# 17100-17999: below the kernel's ephemeral range, so outgoing connections
# never sit on them).

CMAX_PORT_LOCKS=${CMAX_PORT_LOCKS:-/tmp/cmax-ports}
CMAX_PORT_RANGE=${CMAX_PORT_RANGE:-17100-17999}

_ports_listening() { # PORT: does anything accept on 127.0.0.1:PORT?
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

_ports_free() { # PORT: no live claim and nothing listening
	local owner
	if [ -d "$CMAX_PORT_LOCKS/$1" ]; then
		owner=$(cat "$CMAX_PORT_LOCKS/$1/pid" 2>/dev/null)
		if [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null; then
			return 1
		fi
	fi
	! _ports_listening "$1"
}

ports_claim() {
	local count=${1:?ports_claim COUNT [OWNER_PID]} owner=${2:-$$}
	local lo=${CMAX_PORT_RANGE%-*} hi=${CMAX_PORT_RANGE#*-} p k fd rc=1
	mkdir -p "$CMAX_PORT_LOCKS" 2>/dev/null || true
	chmod 1777 "$CMAX_PORT_LOCKS" 2>/dev/null || true
	exec {fd}>>"$CMAX_PORT_LOCKS/.lock" || return 1
	if flock -w 60 "$fd"; then
		p=$lo
		while [ $((p + count - 1)) -le "$hi" ]; do
			for ((k = 0; k < count; k++)); do
				_ports_free $((p + k)) || break
			done
			if [ "$k" -eq "$count" ]; then
				for ((k = p; k < p + count; k++)); do
					rm -rf "${CMAX_PORT_LOCKS:?}/$k"
					mkdir "$CMAX_PORT_LOCKS/$k" && echo "$owner" >"$CMAX_PORT_LOCKS/$k/pid"
				done
				echo "$p"
				rc=0
				break
			fi
			p=$((p + k + 1)) # past the port in use
		done
	fi
	exec {fd}>&-
	return $rc
}

ports_release() {
	local owner=${1:-$$} d
	for d in "$CMAX_PORT_LOCKS"/[0-9]*; do
		[ "$(cat "$d/pid" 2>/dev/null)" = "$owner" ] && rm -rf "$d"
	done
	return 0
}

ports_release_block() {
	local k
	for ((k = $1; k < $1 + $2; k++)); do
		[ "$(cat "$CMAX_PORT_LOCKS/$k/pid" 2>/dev/null)" = "$3" ] && rm -rf "${CMAX_PORT_LOCKS:?}/$k"
	done
	return 0
}
