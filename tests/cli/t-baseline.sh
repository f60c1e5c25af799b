#!/usr/bin/env bash
# cmax audit --baseline RUN (src/audit/baseline.c, src/checks/baseline.c):
# a fixture host audited into a run directory, then audited again against
# it (every versions.baseline-* row PASS), then against a copy with planted
# changes (WARN with before -> after), and bad baselines: a missing path
# (66), garbage JSON (65), a JSON file that is not a values document (65),
# another host's run (65), each one line on stderr, before anything runs.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1

# row FILE ID FIELD
row() {
	"${PYTHON:-/usr/bin/python3}" - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["results"] if x["id"] == sys.argv[2]]
print(r[0].get(sys.argv[3], "") if r else "(no row)")
EOF
}
ids="versions.baseline-driver versions.baseline-firmware versions.baseline-os versions.baseline-software versions.baseline-settings"
host=h100-healthy

run_fixture "$host" "$TMP/a" --local --yes --json --output-dir "$TMP/a/run"
check "first run exits 0" test "$(cat "$TMP/a/rc")" = 0
for id in $ids; do
	check "without --baseline: $id SKIP" test "$(row "$TMP/a/stdout" "$id" status)" = SKIP
done
row "$TMP/a/stdout" versions.baseline-driver summary | grep -q 'no --baseline given' &&
	ok "the SKIP says no --baseline was given" || not_ok "the SKIP says no --baseline was given"

# the same host against its own run: nothing changed
run_fixture "$host" "$TMP/b" --local --yes --json --output-dir "$TMP/b/run" --baseline "$TMP/a/run"
check "against its own run: exits 0" test "$(cat "$TMP/b/rc")" = 0
for id in $ids; do
	check "against its own run: $id PASS" test "$(row "$TMP/b/stdout" "$id" status)" = PASS
done

# a stored run with other versions and settings: each category WARNs with before -> after
"${PYTHON:-/usr/bin/python3}" "$SRCDIR/tests/fixtures/gen-baseline.py" "$TMP/a/run/audit.values.json" "$TMP/old.json" \
	nvidia.driver_version=550.54.15 'nvidia.vbios_versions=["96.00.74.00.01"]' \
	network.hcas.*.fw_ver=28.39.1002 os.kernel_release=5.15.0-105-generic \
	cuda.default_toolkit_version=12.4.1 software.nccl.version=2.21.5 \
	nvidia.gpus.*.persistence_mode=Disabled sysctl.perf_event_paranoid=4
run_fixture "$host" "$TMP/c" --local --yes --json --output-dir "$TMP/c/run" --baseline "$TMP/old.json"
check "against a changed run: exits 0" test "$(cat "$TMP/c/rc")" = 0
for id in $ids; do
	check "against a changed run: $id WARN" test "$(row "$TMP/c/stdout" "$id" status)" = WARN
done
row "$TMP/c/stdout" versions.baseline-driver summary | grep -q 'NVIDIA driver 550.54.15 -> ' &&
	ok "the driver row says before -> after" || { not_ok "the driver row says before -> after"; row "$TMP/c/stdout" versions.baseline-driver summary | diag; }
for want in 'kernel 5.15.0-105-generic -> ' 'CUDA default toolkit 12.4.1 -> ' 'NCCL 2.21.5 -> ' \
	'GPU persistence mode Disabled -> Enabled' 'kernel.perf_event_paranoid 4 -> ' 'HCA firmware 28.39.1002 on '; do
	grep -qF -- "$want" "$TMP/c/stdout" && ok "names the change: $want" || not_ok "names the change: $want"
done
if "${PYTHON:-/usr/bin/python3}" - "$TMP/c/stdout" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
obs = {r["id"]: r["observed"] for r in d["results"] if r["id"].startswith("versions.baseline-")}
assert [c["item"] for c in obs["versions.baseline-os"]["changed"]] == ["kernel"], obs["versions.baseline-os"]
assert "OS release" in [u["item"] for u in obs["versions.baseline-os"]["unchanged"]]
assert "IOMMU kernel parameters" in [u["item"] for u in obs["versions.baseline-settings"]["unchanged"]]
EOF
then ok "unchanged items are not reported as changed (OS release, IOMMU parameters in another key order)"
else not_ok "unchanged items are not reported as changed"; fi

# bad baselines: one line, a distinct exit code, nothing gathered
bad() { # description, expected rc, pattern, baseline
	local d=$1 want=$2 pat=$3 b=$4 out=$TMP/bad$RANDOM
	run_fixture "$host" "$out" --local --yes --json --output-dir "$out/run" --baseline "$b"
	check "$d: exit $want (got $(cat "$out/rc"))" test "$(cat "$out/rc")" = "$want"
	check "$d: one line on stderr" test "$(wc -l <"$out/stderr")" = 1
	grep -q -- "$pat" "$out/stderr" && ok "$d: says $pat" || { not_ok "$d: says $pat"; diag <"$out/stderr"; }
	check "$d: no run written" test ! -e "$out/run/audit.results.json"
}
bad "missing path" 66 "cmax audit: --baseline $TMP/nowhere" "$TMP/nowhere"
mkdir -p "$TMP/emptyrun"
bad "run directory without audit.values.json" 66 "audit.values.json" "$TMP/emptyrun"
printf '{"schema": "cmax.audit.values/1", "facts": ' >"$TMP/garbage.json"
bad "garbage JSON" 65 "not JSON" "$TMP/garbage.json"
bad "another document (the results, not the values)" 65 "not a cmax audit.values.json document" \
	"$TMP/a/run/audit.results.json"
sed 's/"host": "[^"]*"/"host": "gpu-other-99"/' "$TMP/a/run/audit.values.json" >"$TMP/other.json"
bad "another host's run" 65 "is a run of host gpu-other-99, not of this host" "$TMP/other.json"
"${PYTHON:-/usr/bin/python3}" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["nodes"] = {}; d["cluster"] = "cluster"; d["fleet_error"] = None; json.dump(d, open(sys.argv[2], "w"))' \
	"$TMP/a/run/audit.values.json" "$TMP/fleet.json"
bad "a fleet run for a one-host audit" 65 "is a fleet run (--slurm, --k8s); this audit of one host" "$TMP/fleet.json"

# a fleet audit refuses one host's run before it asks the scheduler anything
mkdir -p "$TMP/f/home"
env -i HOME="$TMP/f/home" PATH="$TMP/f/nobin" TZ=UTC SLURM_JOB_ID=4242 CMAX_DATADIR="$SRCDIR/data" \
	"$CMAX" audit --slurm --yes --baseline "$TMP/a/run" --output-dir "$TMP/f/run" >"$TMP/f/stdout" 2>"$TMP/f/stderr"
check "--slurm with one host's run: exit 65 (got $?)" test $? = 65
grep -q "is one host's run; a fleet audit compares with a fleet run" "$TMP/f/stderr" &&
	ok "--slurm with one host's run: says why" || { not_ok "--slurm with one host's run: says why"; diag <"$TMP/f/stderr"; }
done_testing
