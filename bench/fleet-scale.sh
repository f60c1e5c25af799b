#!/usr/bin/env bash
# Fleet audit scaling: N simulated Slurm nodes (N slurmd on this host, every
# one the healthy H100 fixture through tests/slurm/node-wrap.sh), one
# `cmax audit --slurm --nodes node[1-N]` each, wall time per N (median of
# RUNS), and the ratio N=32 / N=1. The goal is at most 2: the nodes work in
# parallel. Here every "node" shares this machine's cores, so CPU-bound node
# work grows with N / cores; the figure is printed as measured, with the
# core count. A benchmark, not a test. Needs root and Debian's Slurm
# packages (slurm-wlm slurmctld slurmd slurm-client munge).
#
#   bench/fleet-scale.sh            # SIZES="1 8 32" RUNS=3 CTLD_PORT=auto
set -euo pipefail
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$SRCDIR/build}
CMAX=$BUILD/cmax
SIZES=${SIZES:-1 8 32}
RUNS=${RUNS:-3}
PORT=${CTLD_PORT:-auto} # auto: slurm-up.sh claims a free block (tests/slurm/ports.sh)
[ -x "$CMAX" ] || { echo "build first: make" >&2; exit 1; }
for t in slurmctld slurmd munged srun; do
	command -v "$t" >/dev/null || { echo "fleet-scale: $t not installed" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/cmax-fleet-bench.XXXXXX)
chmod 711 "$tmp" # munged wants o+x above its socket
export BASE=$tmp/slurm
stop() { # every daemon at once, by pid file; frees the port block
	[ -d "$BASE" ] || return 0
	"$SRCDIR/tests/slurm/slurm-down.sh" >/dev/null 2>&1 || true
}
trap 'stop; rm -rf "$tmp"' EXIT

export CMAX_NODE_MAP=$tmp/nodemap CMAX_NODE_WORK=$tmp/work CMAX_NODE_BIN=$CMAX CMAX_SRCDIR=$SRCDIR
echo "* h100-healthy" >"$CMAX_NODE_MAP"
mkdir -p "$CMAX_NODE_WORK"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { date +%s%N; }

declare -A wall answered
for n in $SIZES; do
	stop
	NNODES=$n GPUS=8 CTLD_PORT=$PORT WAIT_S=120 "$SRCDIR/tests/slurm/slurm-up.sh" >"$tmp/up-$n.log" 2>&1 ||
		{ echo "fleet-scale: Slurm with $n nodes did not come up" >&2; tail "$tmp/up-$n.log" >&2; exit 1; }
	export SLURM_CONF=$BASE/etc/slurm.conf
	for i in $(seq "$RUNS"); do
		t0=$(ms)
		"$CMAX" audit --slurm --yes --json --nodes "node[1-$n]" --node-cmd "$SRCDIR/tests/slurm/node-wrap.sh" \
			--output-dir "$tmp/run-$n-$i" >"$tmp/out-$n-$i.json" </dev/null
		echo $((($(ms) - t0) / 1000000))
	done | median >"$tmp/wall-$n"
	wall[$n]=$(cat "$tmp/wall-$n")
	answered[$n]=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(f["answered"] for f in d["fleet"]))' \
		"$tmp/out-$n-1.json")
	printf 'N=%-3s %6s ms  (%s of %s nodes answered, median of %s)\n' "$n" "${wall[$n]}" "${answered[$n]}" "$n" "$RUNS"
done
first=${SIZES%% *}
last=${SIZES##* }
awk -v a="${wall[$first]}" -v b="${wall[$last]}" -v f="$first" -v l="$last" -v c="$(nproc)" 'BEGIN {
	r = b / a
	printf "ratio N=%s / N=%s: %.2f (goal <= 2) on %d CPU core(s)%s\n", l, f, r, c,
		r <= 2 ? "" : ": above the goal; every simulated node shares these cores"
}'
