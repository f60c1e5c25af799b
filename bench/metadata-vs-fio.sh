#!/usr/bin/env bash
# Benchmark, not a test: cmax bench metadata's create rate against fio's
# filecreate engine, same worker count, same directory, empty files (fio's
# filecreate does no I/O: cmax runs with --file-size 0). Prints the ratio
# cmax/fio; goal at least 0.9x.
#   bench/metadata-vs-fio.sh [DIR] [WORKERS] [FILES_PER_WORKER]
set -u
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
CMAX=${CMAX:-$SRCDIR/build/cmax}
DIR=${1:-$(mktemp -d /tmp/cmax-meta-vs-fio.XXXXXX)}
W=${2:-4}
N=${3:-5000}
export CMAX_DATADIR=$SRCDIR/data
command -v fio >/dev/null || { echo "fio not installed"; exit 1; }
for round in 1 2 3; do
	C=$("$CMAX" bench metadata --path "$DIR" --yes --json --workers "$W" --files "$N" --file-size 0 \
		--import-files 100 --alloc-mib 1 --lock-iterations 1 |
		python3 -c 'import json,sys; r={x["id"]:x for x in json.load(sys.stdin)["results"]}; print(r["bench.metadata-create"]["observed"]["per_s"])')
	FD=$(mktemp -d "$DIR/fio-filecreate.XXXXXX")
	F=$(fio --name=fc --directory="$FD" --ioengine=filecreate --filesize=4k --nrfiles="$N" --openfiles=1 \
		--numjobs="$W" --group_reporting=1 --create_on_open=1 --output-format=json |
		python3 -c 'import json,sys; t=sys.stdin.read(); j=json.loads(t[t.index("{"):])["jobs"][0]; print(j["read"]["iops"])')
	rm -rf "$FD"
	python3 -c "c,f=$C,$F; print(f'round $round: $W workers x $N files: cmax {c:.0f} creates/s, fio filecreate {f:.0f} files/s, ratio {c/f:.2f}x (goal >= 0.9x)')"
done
