#!/usr/bin/env bash
# A fleet of 2,000 nodes through the replaying launcher of the scale
# benchmark (bench/fleet-replay.py, bench/fleet-replay/fake-slurm-replay):
# real node documents recorded from h100-healthy, the last rack (1%) from
# misconfig-h100, returned by a fake srun at once. Each drift check is one
# cluster row that counts the nodes of every value and names them as
# hostlist ranges; none is per node. Timing belongs to the benchmark, not here.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
N=2000

BUILD=$BUILD "$PY" - "$SRCDIR" "$TMP" "$N" <<'EOF' >"$TMP/gen.log" 2>&1
import importlib.util, json, os, sys
src, tmp, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
spec = importlib.util.spec_from_file_location("fr", os.path.join(src, "bench", "fleet-replay.py"))
fr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fr)
good = fr.template(fr.wire_decode_of(tmp, "h100-healthy"))
bad = fr.template(fr.wire_decode_of(tmp, "misconfig-h100"))
expr, drifted = fr.replay_dir(os.path.join(tmp, "replay"), n, good, bad)
os.makedirs(os.path.join(tmp, "fakebin"))
for t in ("srun", "scontrol", "sinfo", "sacct", "ssh"):
    os.symlink(os.path.join(src, "bench", "fleet-replay", "fake-slurm-replay"), os.path.join(tmp, "fakebin", t))
print(expr)
EOF
check "the replay of $N nodes was built" test $? = 0 || diag <"$TMP/gen.log"
expr=$(tail -1 "$TMP/gen.log")

env -i HOME="$TMP/home" PATH="$TMP/fakebin" TZ=UTC LC_ALL=C CMAX_REPLAY_DIR="$TMP/replay" CMAX_DATADIR="$SRCDIR/data" \
	"$CMAX" audit --slurm --yes --json --nodes "$expr" --output-dir "$TMP/run" >"$TMP/out.json" 2>"$TMP/err" </dev/null
rc=$?
check "audit --slurm over $N replayed nodes exits 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || diag <"$TMP/err"
check "the coordinator called nothing the replay does not hold" test ! -e "$TMP/replay/unrecorded"
[ -e "$TMP/replay/unrecorded" ] && diag <"$TMP/replay/unrecorded"

"$PY" - "$TMP/out.json" "$N" <<'EOF' >"$TMP/checks" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
rows = d["results"]
ids = ["versions.drift-driver", "versions.drift-cuda", "versions.drift-firmware", "versions.drift-kernel",
       "versions.drift-nccl", "versions.drift-os", "hardware.drift-gpus"]
cluster = d["target"]["cluster"]
good, bad = "gpu[00001-01980]", "gpu[01981-02000]"
def one(i):
    m = [r for r in rows if r["id"] == i]
    return m[0] if len(m) == 1 else None
def t(desc, cond):
    print(("ok" if cond else "not ok") + "\t" + desc)
t("every node answered", sum(f["answered"] for f in d["fleet"]) == n)
t("one row per drift check, on the cluster", all(one(i) and one(i)["host"] == cluster for i in ids))
drv = one("versions.drift-driver") or {"summary": "", "observed": {}, "status": None}
t("drift-driver FAILs with both values counted and as ranges",
  drv["status"] == "FAIL" and "580.159.03 on 1980 of 2000 nodes read (%s)" % good in drv["summary"]
  and "570.211.01 on 20 nodes (%s)" % bad in drv["summary"] and "covers 2000 of 2000 nodes" in drv["summary"])
v = drv["observed"].get("values", {})
t("drift-driver observed: counts and hostlists per value",
  v.get("580.159.03") == {"nodes": 1980, "hostlist": good} and v.get("570.211.01") == {"nodes": 20, "hostlist": bad})
t("drift-driver evidence: one note a value, with the full hostlist",
  [e["text"] for e in drv["evidence"]] == ["580.159.03 on 1980 nodes: " + good, "570.211.01 on 20 nodes: " + bad])
for i, w in (("versions.drift-kernel", "5.15.0-105-generic on 20 nodes (%s)" % bad),
             ("versions.drift-nccl", "2.18.5 on 20 nodes (%s)" % bad),
             ("versions.drift-os", "Ubuntu 22.04.4 LTS on 20 nodes (%s)" % bad)):
    r = one(i) or {"summary": "", "status": None}
    t("%s names the rack as one range" % i, r["status"] in ("FAIL", "WARN") and w in r["summary"])
for i in ("versions.drift-cuda", "hardware.drift-gpus"):
    r = one(i) or {"summary": "", "status": None}
    t("%s PASSes over 2000 of 2000 nodes" % i, r["status"] == "PASS" and "covers 2000 of 2000 nodes" in r["summary"])
cov = [r for r in rows if r["id"] == "orchestration.fleet-coverage"]
t("fleet-coverage: one PASS row", len(cov) == 1 and cov[0]["status"] == "PASS" and "all 2000 of 2000" in cov[0]["summary"])
long = [r["id"] for r in rows if r["id"] in ids + ["orchestration.fleet-coverage"] and r["summary"].count("gpu0") > 1]
t("no drift or coverage summary lists nodes one by one" + (": %s" % long if long else ""), not long)
EOF
while IFS=$'\t' read -r st desc; do
	if [ "$st" = ok ]; then ok "$desc"; else not_ok "$desc"; fi
done <"$TMP/checks"
grep -v "^ok\|^not ok" "$TMP/checks" | diag
done_testing
