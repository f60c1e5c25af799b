#!/usr/bin/env bash
# The real thing on the machine running the tests (CI has no GPU): the
# contract holds, the engine reports no ERROR, GPU checks SKIP with a reason.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
t0=$(date +%s%N)
"$CMAX" audit --yes --json --output-dir "$TMP/run" >"$TMP/live.json" 2>"$TMP/err" </dev/null
rc=$?
t1=$(date +%s%N)
check "live audit exits 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || diag <"$TMP/err"
check "live audit finishes within 20 s ($(( (t1 - t0) / 1000000 )) ms)" test $(( (t1 - t0) / 1000000 )) -lt 20000
if "$PY" "$SRCDIR/tests/contract/validate.py" "$TMP/live.json" >"$TMP/c" 2>&1; then ok "live JSON satisfies the contract"; else not_ok "live JSON satisfies the contract"; diag <"$TMP/c"; fi
"$PY" - "$TMP/live.json" >"$TMP/inv" 2>&1 <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["results"]
problems = []
if len(rows) < 40:
    problems.append(f"only {len(rows)} checks ran")
for r in rows:
    if r["status"] == "ERROR":
        problems.append(f"ERROR {r['id']}: {r['summary']}")
gpu = [r for r in rows if r["id"].startswith(("hardware.gpu-", "versions.nvidia-driver", "software.nvcc-arch", "software.gpu-profiling"))]
if not gpu:
    problems.append("no GPU checks in the report")
for r in gpu:
    if r["status"] != "SKIP" or len(r["summary"]) < 10:
        problems.append(f"{r['id']} should SKIP with a reason on a machine without GPUs: {r['status']} {r['summary']}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PYEOF
if [ $? = 0 ]; then ok "no ERROR rows; GPU checks SKIP with a reason"; else not_ok "no ERROR rows; GPU checks SKIP with a reason"; diag <"$TMP/inv"; fi
check "run directory holds the three artifacts" test -s "$TMP/run/audit.out" -a -s "$TMP/run/audit.values.json" -a -s "$TMP/run/audit.results.json"
check "values file names its schema" grep -q '"schema": "cmax.audit.values/1"' "$TMP/run/audit.values.json"
done_testing
