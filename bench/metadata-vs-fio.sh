#!/usr/bin/env bash
# Benchmark, not a test: cmax bench metadata's create rate against fio's
# filecreate engine, same worker count, same directory, empty files (fio's
# filecreate does no I/O: cmax runs with --file-size 0). Each round runs the
# two back to back, the order alternating, so a pair shares the file
# system's state of that moment; prints every round's ratio cmax/fio, then
# the median ratio and its spread. Goal: median at least 0.9x.
#
#   bench/metadata-vs-fio.sh [DIR] [WORKERS] [FILES_PER_WORKER] [ROUNDS]
# Defaults: 4 workers x 5000 files, 7 rounds: 1-2 minutes on a small VM
# (fio's filecreate runs at a few thousand files/s there); more files or
# rounds for steadier figures.
set -u
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
CMAX=${CMAX:-$SRCDIR/build/cmax}
DIR=${1:-$(mktemp -d /tmp/cmax-meta-vs-fio.XXXXXX)}
W=${2:-4}
N=${3:-5000}
R=${4:-7}
export CMAX_DATADIR=${CMAX_DATADIR:-$SRCDIR/data}
command -v fio >/dev/null || { echo "fio not installed"; exit 1; }
[ -x "$CMAX" ] || { echo "no $CMAX: build first (ninja -C build)"; exit 1; }
# a private copy: a rebuild while this runs must not swap it
BIN=$(mktemp -d /tmp/cmax-bin.XXXXXX)
trap 'rm -rf "$BIN"' EXIT
cp "$CMAX" "$BIN/cmax" && CMAX=$BIN/cmax

# Each run starts after `sync`: the previous run's unlinks and journal
# commits are flushed instead of landing in the next run's timing.
run_cmax() {
	sync
	# the other probes at their smallest: only the create rate is compared
	"$CMAX" bench metadata --path "$DIR" --yes --json --workers "$W" --files "$N" --file-size 0 \
		--import-files 100 --alloc-mib 1 --lock-iterations 1 |
		python3 -c 'import json,sys; r={x["id"]:x for x in json.load(sys.stdin)["results"]}; print(r["bench.metadata-create"]["observed"]["per_s"])'
}
run_fio() {
	local fd rate
	fd=$(mktemp -d "$DIR/fio-filecreate.XXXXXX")
	sync
	# filecreate accounts each create as one read I/O
	rate=$(fio --name=fc --directory="$fd" --ioengine=filecreate --filesize=4k --nrfiles="$N" --openfiles=1 \
		--numjobs="$W" --group_reporting=1 --create_on_open=1 --output-format=json |
		python3 -c 'import json,sys; t=sys.stdin.read(); j=json.loads(t[t.index("{"):])["jobs"][0]; print(j["read"]["iops"])')
	rm -rf "$fd"
	echo "$rate"
}

echo "cmax bench metadata create vs fio filecreate: $W workers x $N files, $R rounds, in $DIR"
t0=$(date +%s)
out=""
for round in $(seq 1 "$R"); do
	if [ $((round % 2)) -eq 1 ]; then
		C=$(run_cmax); F=$(run_fio); first=cmax
	else
		F=$(run_fio); C=$(run_cmax); first=fio
	fi
	[ -n "$C" ] && [ -n "$F" ] || { echo "round $round: a run failed (cmax '$C', fio '$F')"; exit 1; }
	out="$out$round $first $C $F"$'\n'
	python3 -c "c,f=$C,$F; print(f'  round $round ($first first): cmax {c:9.0f} creates/s, fio {f:9.0f} files/s, ratio {c/f:.3f}')"
done
printf '%s' "$out" | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
r = [float(c) / float(f) for _, _, c, f in rows]
a = [float(c) / float(f) for _, w, c, f in rows if w == "cmax"]
b = [float(c) / float(f) for _, w, c, f in rows if w == "fio"]
m = statistics.median(r)
fb = statistics.median(b) if b else float("nan")
print(f"median ratio {m:.3f} (min {min(r):.3f}, max {max(r):.3f}); cmax first {statistics.median(a):.3f}, "
      f"fio first {fb:.3f}")
print(f"median cmax {statistics.median(float(x[2]) for x in rows):.0f} creates/s, "
      f"median fio {statistics.median(float(x[3]) for x in rows):.0f} files/s; goal >= 0.9x: " + ("met" if m >= 0.9 else "NOT met"))'
echo "total $(( $(date +%s) - t0 )) s"
