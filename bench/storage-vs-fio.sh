#!/usr/bin/env bash
# Benchmark, not a test: does cmax bench storage report what fio reports?
# Runs the sweep through cmax and the very same fio commands (each row's
# `reproduce` field) directly, in the same order in one directory, and
# prints cmax/fio ratios of bandwidth and IOPS. Two rounds in opposite order
# (cmax first, then fio first) and the geometric mean of the two ratios, so
# that whoever runs second (write-back, discards of the first run's files)
# is not always the same. Goal: every ratio within 5% (0.95-1.05). cmax only
# runs and parses fio, so the spread is the file system's run-to-run noise;
# larger --size/--runtime give steadier figures.
#   bench/storage-vs-fio.sh [DIR] [extra cmax bench storage options...]
set -u
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
export CMAX=${CMAX:-$SRCDIR/build/cmax}
DIR=${1:-$(mktemp -d /tmp/cmax-bench-vs-fio.XXXXXX)}
shift || true
export CMAX_DATADIR=$SRCDIR/data
command -v fio >/dev/null || { echo "fio not installed"; exit 1; }
python3 - "$DIR" --size 256M --runtime 3 "$@" <<'PY'
import json, math, os, shlex, shutil, subprocess, sys, tempfile
dir, extra = sys.argv[1], sys.argv[2:]

def run_cmax():
    p = subprocess.run([os.environ["CMAX"], "bench", "storage", "--path", dir, "--yes", "--json"] + extra,
                       capture_output=True, text=True, check=True)
    rows = [r for r in json.loads(p.stdout)["results"] if r["status"] in ("PASS", "WARN", "FAIL")]
    return {r["id"]: (r["observed"]["bw_bytes_per_s"], r["observed"]["iops"], r["reproduce"], r["observed"]["rw"]) for r in rows}

def run_fio(cmds):
    wd = tempfile.mkdtemp(prefix="fio-direct-", dir=dir)
    out = {}
    for rid, (cmd, rw) in cmds.items():
        argv = [a if not a.startswith("--directory=") else "--directory=" + wd for a in shlex.split(cmd)]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=900)
        j = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
        d = "write" if "write" in rw else "read"
        out[rid] = (j[d]["bw_bytes"], j[d]["iops"])
    shutil.rmtree(wd, ignore_errors=True)
    return out

c1 = run_cmax()
cmds = {k: (v[2], v[3]) for k, v in c1.items()}
f1 = run_fio(cmds)          # round 1: cmax first
f2 = run_fio(cmds)          # round 2: fio first
c2 = run_cmax()
print(f"{'case':34} {'cmax MB/s':>10} {'fio MB/s':>10} {'bw ratio':>9} {'iops ratio':>10}")
worst = 0.0
for k in cmds:
    if k not in c2:
        continue
    rb = math.sqrt((c1[k][0] / f1[k][0]) * (c2[k][0] / f2[k][0]))
    ri = math.sqrt((c1[k][1] / f1[k][1]) * (c2[k][1] / f2[k][1]))
    worst = max(worst, abs(rb - 1), abs(ri - 1))
    print(f"{k[14:]:34} {(c1[k][0]+c2[k][0])/2e6:10.1f} {(f1[k][0]+f2[k][0])/2e6:10.1f} {rb:9.3f} {ri:10.3f}")
print(f"largest deviation from 1.0: {worst*100:.1f}% (goal: within 5%)")
PY
