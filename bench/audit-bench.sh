#!/usr/bin/env bash
# Wall time of a full audit: the healthy H100 fixture (goal < 1 s on a
# 2-core machine) and a live audit of this machine (goal < 3 s). Prints
# figures (median of N runs); it is a benchmark, not a test.
set -euo pipefail
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$SRCDIR/build}
N=${N:-5}
CMAX=$BUILD/cmax
[ -x "$CMAX" ] || { echo "build first: make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hd=$SRCDIR/tests/fixtures/hosts/h100-healthy
"$SRCDIR/tests/fakecmd/mkbin.sh" "$hd/cmd" "$BUILD/fakecmd" "$tmp/bin" >/dev/null

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { date +%s%N; }

for i in $(seq "$N"); do
	t0=$(ms)
	(cd "$hd" && env -i PATH="$tmp/bin" $(cat env) CMAX_FAKE_DIR="$hd/cmd" CMAX_DATADIR="$SRCDIR/data" \
		"$CMAX" audit --sysroot root --local --yes --json --output-dir "$tmp/f$i" >/dev/null)
	echo $(( ($(ms) - t0) / 1000000 ))
done | median >"$tmp/fixture"
for i in $(seq "$N"); do
	t0=$(ms)
	"$CMAX" audit --yes --json --output-dir "$tmp/l$i" >/dev/null </dev/null
	echo $(( ($(ms) - t0) / 1000000 ))
done | median >"$tmp/live"
checks=$("$CMAX" audit --local --dry-run -o json | grep -c '"id":')
echo "machine: $(nproc) cores, $(uname -m); $checks checks; median of $N runs"
printf 'fixture h100-healthy full audit: %5d ms  (goal < 1000 ms) %s\n' "$(cat "$tmp/fixture")" \
	"$([ "$(cat "$tmp/fixture")" -lt 1000 ] && echo met || echo MISSED)"
printf 'live audit of this machine:      %5d ms  (goal < 3000 ms) %s\n' "$(cat "$tmp/live")" \
	"$([ "$(cat "$tmp/live")" -lt 3000 ] && echo met || echo MISSED)"
