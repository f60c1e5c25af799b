#!/usr/bin/env bash
# Hostile tools: one never exits, one prints garbage, one prints megabytes,
# one crashes. The audit finishes within its budget, records each as
# evidence, and still writes its reports; a tight global budget cuts the rest
# short with exit 75 and the reports still written.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
t0=$(date +%s)
run_fixture hostile-tools "$TMP/a" --local --yes --json --tool-timeout 2 --output-dir "$TMP/a/run"
t1=$(date +%s)
check "hostile host: exit 0 (got $(cat "$TMP/a/rc"))" test "$(cat "$TMP/a/rc")" = 0
check "hostile host: bounded by the 2 s tool timeout cap ($((t1 - t0)) s <= 15 s)" test $((t1 - t0)) -le 15
check "hostile host: reports written" test -s "$TMP/a/run/audit.results.json" -a -s "$TMP/a/run/audit.out" -a -s "$TMP/a/run/audit.values.json"
"$PY" - "$TMP/a/stdout" >"$TMP/a/inv" 2>&1 <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = [(r, e) for r in d["results"] for e in r["evidence"] if e.get("kind") == "command"]
def has(pred, what):
    hits = [r["id"] for r, e in ev if pred(r, e)]
    print(f"{what}: {sorted(set(hits))}")
    return bool(hits)
ok = True
ok &= has(lambda r, e: e["outcome"] == "timeout" and r["status"] == "ERROR", "ERROR rows with a timed-out tool as evidence")
ok &= has(lambda r, e: e.get("stdout_truncated") and r["status"] in ("ERROR", "WARN"), "rows with capped megabyte output as evidence")
ok &= has(lambda r, e: e["outcome"] == "signaled" or (e.get("exit_code") or 0) >= 128, "rows with a crashed tool as evidence")
ok &= has(lambda r, e: r["status"] == "ERROR" and "?" in (e.get("stdout") or ""), "ERROR rows with garbage output as evidence")
sizes = [len(json.dumps(e)) for r, e in ev]
print(f"largest evidence item: {max(sizes) if sizes else 0} bytes")
ok &= (max(sizes) if sizes else 0) < 16384
sys.exit(0 if ok else 1)
PYEOF
if [ $? = 0 ]; then ok "each hostile tool is recorded as evidence, excerpts capped"; else not_ok "each hostile tool is recorded as evidence, excerpts capped"; fi
diag <"$TMP/a/inv"

t0=$(date +%s)
run_fixture hostile-tools "$TMP/b" --local --yes --json --timeout 3 --output-dir "$TMP/b/run"
t1=$(date +%s)
check "tight budget: exit 75 (got $(cat "$TMP/b/rc"))" test "$(cat "$TMP/b/rc")" = 75
check "tight budget: done within 6 s ($((t1 - t0)) s)" test $((t1 - t0)) -le 6
check "tight budget: reports still written" test -s "$TMP/b/run/audit.results.json" -a -s "$TMP/b/run/audit.out"
check "tight budget: unrun checks say the budget was spent" grep -q 'budget was spent' "$TMP/b/run/audit.results.json"
done_testing
