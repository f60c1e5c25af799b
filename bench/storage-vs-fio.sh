#!/usr/bin/env bash
# Benchmark, not a test: does cmax bench storage report what fio reports?
# The sweep is cut into groups that share a file the way the sweep does: a
# write case lays the file out and fsyncs it, the read case of the same
# block size and mode reads it (1m-buffered, 1m-direct, 4k-buffered,
# 64k-direct). For each group, `cmax bench storage --only GROUP` and the very
# same fio commands (the plan's, in order, in a fresh directory next to
# cmax's) run back to back, the order alternating from round to round and
# from group to group, for several rounds, each run after `sync`. Each round
# gives one paired ratio cmax/fio per case; the table shows per case the
# order-balanced median ratio and its spread (min..max). A pair shares the file system's
# state of that moment, so the median measures cmax (it only starts fio and
# parses its JSON), not the file system's drift over a sweep. Goal: every
# median within 5% of 1.0.
#
#   bench/storage-vs-fio.sh [DIR] [--rounds N] [--size SIZE] [--runtime S]
#                           [--groups 1m-buffered,...] [-v] [cmax bench storage options]
# -v prints every pair as it is measured. Defaults: 6 rounds (even, so that
# each group runs as often with cmax first as with fio first), 256M, 2 s:
# about 3-4 minutes on a small VM. Steadier: --rounds 10 --runtime 5 --size 1G.
set -u
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
export CMAX=${CMAX:-$SRCDIR/build/cmax}
DIR=
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
	DIR=$1
	shift
fi
DIR=${DIR:-$(mktemp -d /tmp/cmax-bench-vs-fio.XXXXXX)}
export CMAX_DATADIR=${CMAX_DATADIR:-$SRCDIR/data}
command -v fio >/dev/null || { echo "fio not installed"; exit 1; }
[ -x "$CMAX" ] || { echo "no $CMAX: build first (ninja -C build)"; exit 1; }
# a private copy: a rebuild during the minutes this takes must not swap it
BIN=$(mktemp -d /tmp/cmax-bin.XXXXXX)
trap 'rm -rf "$BIN"' EXIT
cp "$CMAX" "$BIN/cmax" && export CMAX=$BIN/cmax
python3 - "$DIR" "$@" <<'PY'
import json, math, os, re, shlex, shutil, statistics, subprocess, sys, tempfile, time

dir, argv = sys.argv[1], sys.argv[2:]
rounds, size, runtime, only, extra, verbose = 6, "256M", "2", None, [], False
i = 0
while i < len(argv):
    a = argv[i]
    if a in ("--rounds", "--size", "--runtime", "--groups") and i + 1 < len(argv):
        v = argv[i + 1]
        if a == "--rounds": rounds = int(v)
        elif a == "--size": size = v
        elif a == "--runtime": runtime = v
        else: only = v.split(",")
        i += 2
        continue
    if a in ("-v", "--verbose"):
        verbose = True
    else:
        extra.append(a)
    i += 1
cmax = os.environ["CMAX"]
common = ["--path", dir, "--size", size, "--runtime", runtime] + extra

def norm(cmd):
    # the directory is the only thing that differs between cmax's run and ours
    return tuple(a for a in shlex.split(cmd) if not a.startswith("--directory="))

def mb(x):
    return x / 1e6

plan = json.loads(subprocess.run([cmax, "bench", "storage", "--dry-run", "--json"] + common,
                                 capture_output=True, text=True, check=True).stdout)
names = []
for c in plan["commands"]:
    n = re.search(r"--name=(\S+)", c).group(1)
    if n not in names:
        names.append(n)
# "seq-write-1m-buffered" -> group "1m-buffered"; --only GROUP runs exactly
# the plan's cases containing it, in plan order, in one work directory
groups = {}
for n in names:
    parts = n.split("-")
    key = "-".join(parts[2:]) if len(parts) > 2 else n
    if sum(key in m for m in names) != sum(key == "-".join(m.split("-")[2:]) for m in names):
        key = n
    groups.setdefault(key, [])
for key in groups:
    groups[key] = [c for c in plan["commands"] if key in re.search(r"--name=(\S+)", c).group(1)]
if only:
    groups = {k: v for k, v in groups.items() if k in only}

def run_cmax(key):
    os.sync()
    p = subprocess.run([cmax, "bench", "storage", "--yes", "--json", "--only", key] + common,
                       capture_output=True, text=True)
    out = {}
    for r in json.loads(p.stdout)["results"]:
        o = r.get("observed") or {}
        if r["status"] in ("PASS", "WARN", "FAIL") and o.get("bw_bytes_per_s"):
            out[norm(r["reproduce"])] = (o["bw_bytes_per_s"], o["iops"], r["id"])
    return out

def run_fio(cmds):
    # the group's commands in order in one fresh directory, as cmax runs them
    wd = tempfile.mkdtemp(prefix="fio-direct-", dir=dir)
    os.sync()
    out = {}
    try:
        for cmd in cmds:
            argv = [a if not a.startswith("--directory=") else "--directory=" + wd for a in shlex.split(cmd)]
            p = subprocess.run(argv, capture_output=True, text=True, timeout=900)
            j = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
            rw = re.search(r"--rw=(\S+)", cmd).group(1)
            d = j["write" if "write" in rw else "read"]
            out[norm(cmd)] = (d["bw_bytes"], d["iops"])
    finally:
        shutil.rmtree(wd, ignore_errors=True)
    return out

t0 = time.time()
pairs = {}     # normalized command -> [(cmax bw, fio bw, cmax iops, fio iops, cmax ran first)]
ids = {}
print(f"cmax bench storage --only GROUP vs the same fio commands: {rounds} rounds, {size}, {runtime} s, "
      f"groups {', '.join(groups)}, in {dir}", flush=True)
for rnd in range(rounds):
    for gi, (key, cmds) in enumerate(groups.items()):
        cmax_first = (rnd + gi) % 2 == 0
        if cmax_first:
            got = run_cmax(key)
            fio = run_fio(cmds)
        else:
            fio = run_fio(cmds)
            got = run_cmax(key)
        for k, (fb, fi) in fio.items():
            if k in got and fb > 0 and fi > 0:
                pairs.setdefault(k, []).append((got[k][0], fb, got[k][1], fi, cmax_first))
                ids[k] = got[k][2][len("bench.storage-"):]
                if verbose:
                    print(f"    {ids[k]:28} cmax {mb(got[k][0]):8.1f} MB/s  fio {mb(fb):8.1f} MB/s"
                          f"  ({'cmax' if cmax_first else 'fio'} first)", flush=True)
    print(f"  round {rnd + 1}/{rounds} done ({time.time() - t0:.0f} s)", flush=True)

print()
print(f"{'case':28} {'cmax MB/s':>10} {'fio MB/s':>10} {'bw ratio':>9} {'min':>6} {'max':>6} "
      f"{'1st/2nd':>8} {'iops ratio':>10}")
worst, worst_case = 0.0, "-"
for k, ps in pairs.items():
    rb = [p[0] / p[1] for p in ps]
    ri = [p[2] / p[3] for p in ps]

    def balanced(rs):
        # Order-balanced: the geometric mean of the median ratio with cmax
        # first and the one with fio first, so that what running second gains
        # (a page cache the first run warmed, a write-back it waited out)
        # cancels instead of landing on whichever order had more rounds.
        a = [r for r, p in zip(rs, ps) if p[4]]
        b = [r for r, p in zip(rs, ps) if not p[4]]
        if a and b:
            return math.sqrt(statistics.median(a) * statistics.median(b))
        return statistics.median(rs)
    med_b, med_i = balanced(rb), balanced(ri)
    # how much running first helps: median ratio with cmax first / with fio first
    a = [p[0] / p[1] for p in ps if p[4]]
    b = [p[0] / p[1] for p in ps if not p[4]]
    order = f"{statistics.median(a) / statistics.median(b):8.3f}" if a and b else f"{'-':>8}"
    dev = max(abs(med_b - 1), abs(med_i - 1))
    if dev > worst:
        worst, worst_case = dev, ids[k]
    print(f"{ids[k]:28} {mb(statistics.median(p[0] for p in ps)):10.1f} {mb(statistics.median(p[1] for p in ps)):10.1f} "
          f"{med_b:9.3f} {min(rb):6.3f} {max(rb):6.3f} {order} {med_i:10.3f}")
print()
print("bw/iops ratio: cmax/fio from back-to-back pairs, the geometric mean of the median with cmax first and")
print("the median with fio first (order-balanced); min/max: the spread of single pairs;")
print("1st/2nd: median ratio when cmax ran first over when fio ran first (>1: running first helps).")
verdict = "met" if worst <= 0.05 else "NOT met"
print(f"largest deviation of a median ratio from 1.0: {worst * 100:.1f}% ({worst_case}); goal within 5%: {verdict}")
print(f"total {time.time() - t0:.0f} s")
PY
