#!/usr/bin/env bash
# --active: the node probes run only with it, each within its budget, and
# clean up. Fixture hosts hosts/h100-active (every probe passes) and
# hosts/h100-active-faulty, and the cases of tests/fixtures/active/ (each
# h100-active with one tool's recordings replaced) replayed through the
# fake commands, which log every invocation (CMAX_FAKE_TRACE).
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
HOSTS=$SRCDIR/tests/fixtures/hosts
CASES=$SRCDIR/tests/fixtures/active

# A copy of data/ whose probe budgets are small: a hang ends in seconds.
cp -r "$SRCDIR/data" "$TMP/data"
"$PY" - "$TMP/data/thresholds.json" <<'PYEOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["probes"]["budget_s"].update({"health.dcgm-diag-r2": 2, "networking.nccl-loopback": 2,
                                "hardware.vboost-control": 2})
json.dump(d, open(p, "w"), indent=2)
PYEOF

# case_dir NAME OVERLAY: h100-active's recordings, each of OVERLAY/cmd/<tool>/<rec> replacing its namesake
case_dir() {
	local d=$TMP/case-$1 r
	mkdir -p "$d"
	cp -rL "$HOSTS/h100-active/cmd" "$d/cmd"
	cp "$HOSTS/h100-active/env" "$d/env"
	ln -s "$HOSTS/h100-healthy/root" "$d/root"
	for r in "$2"/cmd/*/*/; do
		r=${r%/}
		rm -rf "${d:?}/cmd/${r#"$2"/cmd/}"
		cp -r "$r" "$d/cmd/${r#"$2"/cmd/}"
	done
	echo "$d"
}

# run_active HOSTDIR OUT DATADIR [cmax audit args...]; the fake tools log every call to OUT/trace
run_active() {
	local hd=$1 out=$2 data=$3; shift 3
	mkdir -p "$out/bin" "$out/home"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$hd/cmd" "$BUILD/fakecmd" "$out/bin" >/dev/null
	: >"$out/fake.log"
	: >"$out/trace"
	(
		cd "$hd" && exec env -i HOME="$out/home" PATH="$out/bin" TZ=UTC $(grep -v '^#' env) \
			CMAX_FAKE_DIR="$hd/cmd" CMAX_FAKE_LOG="$out/fake.log" CMAX_FAKE_TRACE="$out/trace" \
			CMAX_DATADIR="$data" ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
			${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
			"$CMAX" audit --sysroot root --local --yes --json --output-dir "$out/run" "$@"
	) >"$out/stdout" 2>"$out/stderr" &
	echo $! >"$out/pid"
	wait "$(cat "$out/pid")"
	echo $? >"$out/rc"
}

# row OUT ID: "STATUS summary" of one result
row() {
	"$PY" -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["id"] == sys.argv[2]: print(r["status"], r["summary"])' "$1/stdout" "$2"
}
expect_row() { # OUT ID STATUS [summary regex]
	local got; got=$(row "$1" "$2")
	if [[ $got == "$3 "* ]] && { [ -z "${4:-}" ] || grep -Eq -- "$4" <<<"$got"; }; then
		ok "$(basename "$1"): $2 $3${4:+ ($4)}"
	else
		not_ok "$(basename "$1"): $2 $3${4:+ ($4)}"; echo "$got" | diag
	fi
}
PROBES="health.dcgm-diag-r1 health.dcgm-diag-r2 hardware.vboost-control networking.nccl-loopback"
probe_calls() { grep -E '^(dcgmi diag|all_reduce_perf|nvidia-smi boost-slider --vboost)' "$1/trace"; }

# 1. without --active: nothing that changes state starts, the rows say why
O=$TMP/noactive
run_active "$HOSTS/h100-active" "$O" "$SRCDIR/data"
check "without --active: audit exits 0" test "$(cat "$O/rc")" = 0
check "without --active: the fake tools were called (trace written)" test -s "$O/trace"
if probe_calls "$O" >"$O/calls"; then
	not_ok "without --active: no dcgmi diag, all_reduce_perf or boost-slider --vboost ran"; diag <"$O/calls"
else
	ok "without --active: no dcgmi diag, all_reduce_perf or boost-slider --vboost ran"
fi
check "without --active: the read-only vboost listing ran" grep -qx 'nvidia-smi boost-slider -l' "$O/trace"
for id in $PROBES; do expect_row "$O" "$id" SKIP 'needs --active'; done
expect_row "$O" hardware.vboost PASS 'default 0'

# 2. the plan lists every probe with what it changes
P=$TMP/plan
run_active "$HOSTS/h100-active" "$P" "$SRCDIR/data" --dry-run --active -o json
check "--dry-run --active -o json exits 0" test "$(cat "$P/rc")" = 0
if "$PY" - "$P/stdout" >"$P/check" 2>&1 <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = {"health.dcgm-diag-r1", "health.dcgm-diag-r2", "hardware.vboost-control", "networking.nccl-loopback",
        "storage.k8s-pvc-probe", "networking.k8s-networkpolicy-probe"}
got = {p["id"]: p for p in d["state_changing_probes"]}
assert want <= set(got), sorted(want - set(got))
for i in want:
    p = got[i]
    assert p["changes_state"] is True and p["changes"] and p["budget_s"] > 0, p
    # the node probes run on this host; the Kubernetes ones are listed, out of this plan
    assert p["would_run"] is (not i.startswith(("storage.k8s", "networking.k8s"))), p
assert "active_note" not in d
assert got["hardware.vboost-control"]["cleanup"], "vboost control says what it puts back"
PYEOF
then ok "the plan lists the DCGM r1/r2, vboost, NCCL and k8s PVC/NetworkPolicy probes, changes_state true"
else not_ok "the plan lists the probes with changes_state true"; diag <"$P/check"; fi
run_active "$HOSTS/h100-active" "$TMP/plann" "$SRCDIR/data" --dry-run -o json
check "without --active the plan says no probe would run" "$PY" -c 'import json,sys
d=json.load(open(sys.argv[1])); assert d["state_changing_probes"] and not any(p["would_run"] for p in d["state_changing_probes"])' "$TMP/plann/stdout"
run_active "$HOSTS/h100-active" "$TMP/plant" "$SRCDIR/data" --dry-run --active
check "the text plan lists each probe's change, budget and cleanup" grep -q 'budget: 300 s' "$TMP/plant/stdout"
check "the text plan names the vboost clean-up" grep -q 'cleanup: the vboost value read before is set back' "$TMP/plant/stdout"
check "no plan starts a probe" test ! -s "$TMP/plan/fake.log"
probe_calls "$P" >/dev/null && not_ok "--dry-run --active starts no probe" || ok "--dry-run --active starts no probe"

# 3. --active on the healthy node: every probe passes; vboost set and put back
A=$TMP/active
run_active "$HOSTS/h100-active" "$A" "$SRCDIR/data" --active
check "--active: audit exits 0" test "$(cat "$A/rc")" = 0
check "--active: no unrecorded tool invocation" test ! -s "$A/fake.log"
expect_row "$A" health.dcgm-diag-r1 PASS 'DCGM 4.5.3'
expect_row "$A" health.dcgm-diag-r2 PASS
expect_row "$A" hardware.vboost-control PASS '0 -> 1 and back to 0'
expect_row "$A" networking.nccl-loopback PASS 'peak busbw'
check "--active: vboost set, then put back, in that order" \
	test "$(grep -- '--vboost' "$A/trace" | tr '\n' ';')" = 'nvidia-smi boost-slider --vboost 1;nvidia-smi boost-slider --vboost 0;'
check "--active: all_reduce_perf over the node's 8 GPUs" grep -qx 'all_reduce_perf -b 8 -e 128M -f 2 -g 8' "$A/trace"

# 4. the faulty node: each probe names what it found
F=$TMP/faulty
run_active "$HOSTS/h100-active-faulty" "$F" "$SRCDIR/data" --active
expect_row "$F" health.dcgm-diag-r1 FAIL "Page Retirement/Row Remap' on GPU 3 failed"
expect_row "$F" health.dcgm-diag-r2 WARN "'PCIe' on GPU 5 warned"
expect_row "$F" hardware.vboost-control WARN 'Insufficient Permissions'
expect_row "$F" networking.nccl-loopback FAIL 'wrong results'
check "faulty: a refused set is not 'put back'" test "$(grep -c -- '--vboost' "$F/trace")" = 1

# 5. a Pass that carries a DCGM error is ERROR
E=$TMP/passerr
run_active "$(case_dir pass-with-error "$CASES/pass-with-error")" "$E" "$SRCDIR/data" --active health
expect_row "$E" health.dcgm-diag-r1 ERROR "'software' on GPU 4 as Pass yet carries error 29"
expect_row "$E" health.dcgm-diag-r2 PASS

# 6. hangs are killed at the budget the data declares (2 s here), in bounded time
H=$TMP/hang
t0=$(date +%s)
run_active "$(case_dir hang "$CASES/hang")" "$H" "$TMP/data" --active
t1=$(date +%s)
expect_row "$H" health.dcgm-diag-r2 ERROR 'hung: killed at its 2 s budget'
expect_row "$H" networking.nccl-loopback ERROR 'hung: killed at its 2 s budget'
check "hangs killed in bounded time ($((t1 - t0)) s <= 25 s)" test $((t1 - t0)) -le 25
check "hang: audit still exits 0 and writes its report" test "$(cat "$H/rc")" = 0 -a -s "$H/run/audit.results.json"

# 7. a failed restore is ERROR naming the value to set back
V=$TMP/vrestore
run_active "$(case_dir vrestore "$CASES/vboost-restore-fails")" "$V" "$SRCDIR/data" --active hardware
expect_row "$V" hardware.vboost-control ERROR 'could not be put back to 0'

# 8. a set that hangs is killed and the value is still put back
S=$TMP/vhang
run_active "$(case_dir vhang "$CASES/vboost-set-hangs")" "$S" "$TMP/data" --active hardware
expect_row "$S" hardware.vboost-control ERROR 'hung: killed'
check "hung set: the restore --vboost 0 ran after it" test "$(grep -- '--vboost' "$S/trace" | tail -1)" = 'nvidia-smi boost-slider --vboost 0'

# 9. Ctrl-C while the set hangs: the value is put back, the report is partial, exit 130
I=$TMP/vint
D=$(case_dir vint "$CASES/vboost-set-hangs")
cp -r "$SRCDIR/data" "$TMP/data30"
( run_active "$D" "$I" "$TMP/data30" --active hardware ) &
bg=$!
for _ in $(seq 100); do grep -q -- '--vboost 1' "$I/trace" 2>/dev/null && break; sleep 0.1; done
kill -INT "$(cat "$I/pid")" 2>/dev/null
wait "$bg"
check "interrupt: exit 130 (got $(cat "$I/rc"))" test "$(cat "$I/rc")" = 130
check "interrupt: the restore --vboost 0 still ran" test "$(grep -- '--vboost' "$I/trace" | tail -1)" = 'nvidia-smi boost-slider --vboost 0'
done_testing
