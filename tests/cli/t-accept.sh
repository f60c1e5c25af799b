#!/usr/bin/env bash
# cmax accept (docs/accept.md):
#   --from-results with recorded documents (tests/fixtures/accept/results and
#   the audit fixtures): a plan that passes, one that fails (the criterion
#   named), missing evidence (INCOMPLETE, never a pass), the retest rule with
#   --previous (attempt 1 -> retest list, attempt 2 of 2 -> not accepted or
#   accepted, the window, scope group), the acceptance date passed;
#   run mode with real cmax commands (a fixture audit, a small metadata
#   benchmark), a test over its budget (FAIL "did not finish", its files
#   removed), Ctrl-C (130, results kept), --dry-run writing nothing, the
#   confirmation; both shipped plans validate; bad input gives one-line
#   errors with distinct exit codes.
. "$(dirname "$0")/../lib/tap.sh"
PY=${PYTHON:-python3}
# JSON checks are queued (jcheck DESC FILE EXPR WANT: str(EXPR) with d = the
# document) and judged by one Python process at the end (jflush).
jcheck() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$TMP/jq.queue"; }
keep() { cp "$TMP/out" "$TMP/keep.$1"; } # a stable copy of $TMP/out for jcheck
jflush() {
	local st desc got
	while IFS=$'\t' read -r st desc got; do
		if [ "$st" = 1 ]; then ok "$desc"; else not_ok "$desc"; echo "#   got: $got"; fi
	done < <("$PY" "$FX/jcheck.py" "$TMP/jq.queue")
}
rc_of() { "$@" >"$TMP/out" 2>"$TMP/err"; echo $?; }
one_line() { test "$(wc -l <"$TMP/err")" = 1; }
FX=$SRCDIR/tests/fixtures/accept
R=$FX/results
H=$SRCDIR/tests/fixtures/hosts
PLAN=$FX/small.yaml
D="--date 2026-12-01"

# ---- evidence sets -----------------------------------------------------------
mkdir -p "$TMP/pass" "$TMP/fail" "$TMP/missing"
cp "$R/metadata.json" "$R/storage.json" "$R/storage-endurance.json" "$R/inject-xid79.json" "$R/reboot.json" "$TMP/pass/"
cp "$H/h100-healthy/expected.json" "$TMP/pass/audit.json"
cp "$TMP/pass/"* "$TMP/fail/"
rm "$TMP/fail/inject-xid79.json"
cp "$R/inject-xid79-slow.json" "$TMP/fail/"
cp "$H/misconfig-h100/expected.json" "$TMP/fail/audit.json"
cp "$TMP/pass/"* "$TMP/missing/"
rm "$TMP/missing/reboot.json" "$TMP/missing/storage.json"
cp "$R/storage-nodirect.json" "$TMP/missing/"

# ---- a plan that passes ----------------------------------------------------------
check "pass: exit 0" test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/pass" $D)" = 0
check "pass: ACCEPTED with the attempt and the days left" \
	grep -qx 'Verdict: ACCEPTED: all 6 tests passed (attempt 1 of 2, 14 days before the acceptance date)' "$TMP/out"
check "pass: six PASS lines" test "$(grep -c '^PASS ' "$TMP/out")" = 6
"$CMAX" accept "$PLAN" --from-results "$TMP/pass" $D --json --output-file "$TMP/pass.copy.json" >"$TMP/pass.json"
jcheck "pass --json: schema, verdict, counts" "$TMP/pass.json" \
	'(d["schema"], d["verdict"]["status"], d["counts"]["PASS"], d["counts"]["total"], d["days_to_acceptance_date"], d["retest"])' \
	"('cmax.accept/1', 'ACCEPTED', 6, 6, 14, [])"
jcheck "pass --json: storage floor judged on the best client count of the recorded run (1048576000 B/s)" "$TMP/pass.json" '[t for t in d["tests"] if t["id"]=="storage"][0]["criteria"][0]["observed"]["value"]' 1048576000.0
jcheck "pass --json: inject detection figure read from the timeline (0.001 s)" "$TMP/pass.json" '[t for t in d["tests"] if t["id"]=="inject-xid79"][0]["criteria"][1]["observed"]["value"]' 0.001
jcheck "pass --json: reboot return time from events[event=usable] (1.17 s)" "$TMP/pass.json" '[t for t in d["tests"] if t["id"]=="reboot"][0]["criteria"][1]["observed"]["value"]' 1.17
jcheck "pass --json: every test found its own document (TEST-ID.json)" "$TMP/pass.json" '[len(t["documents"]) for t in d["tests"]]' "[1, 1, 1, 1, 1, 1]"
check "--output-file holds the same document" cmp -s "$TMP/pass.copy.json" "$TMP/pass.json"
"$CMAX" accept "$PLAN" --from-results "$TMP/pass" --json >"$TMP/pass-ev.json"
jcheck "without --date the attempt is dated by its newest document" "$TMP/pass-ev.json" '(d["date"], d["date_source"])' "('2026-11-30', 'evidence')"

# ---- a plan that fails ------------------------------------------------------------
check "fail: exit 2" test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/fail" $D)" = 2
check "fail: the audit criterion names the FAIL row" \
	grep -q '^    FAIL        every row of hardware.\* at most WARN: hardware.gpu-count is FAIL: nvidia-smi cannot reach 1 GPU(s)' "$TMP/out"
check "fail: detection over 2 minutes named with its figure" \
	grep -qx "    FAIL        timeline.times.detect_s <= 120: $TMP/fail/inject-xid79-slow.json = 185.4 > 120" "$TMP/out"
check "fail: attempt 1 of 2: RETEST REQUIRED of the failed tests, by the window" \
	grep -qx 'Retest (scope failed, attempt 2 of 2, by 2026-12-08): audit, inject-xid79' "$TMP/out"
check "fail: verdict line" grep -qx 'Verdict: RETEST REQUIRED: 2 tests failed' "$TMP/out"
sed 's/max_attempts: 2/max_attempts: 1/' "$PLAN" >"$TMP/once.yaml"
check "fail without a retest (max_attempts 1): exit 2" test "$(rc_of "$CMAX" accept "$TMP/once.yaml" --from-results "$TMP/fail" $D)" = 2
check "fail without a retest: NOT ACCEPTED" \
	grep -qx 'Verdict: NOT ACCEPTED: 2 tests failed; attempt 1 of 1: no retest left' "$TMP/out"

# ---- missing evidence ----------------------------------------------------------------
check "missing: exit 2" test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/missing" $D --json)" = 2
cp "$TMP/out" "$TMP/missing.json"
jcheck "missing: INCOMPLETE, not FAIL, never PASS" "$TMP/missing.json" '([t["status"] for t in d["tests"]], d["counts"]["FAIL"], d["verdict"]["status"])' "(['PASS', 'INCOMPLETE', 'PASS', 'PASS', 'PASS', 'INCOMPLETE'], 0, 'RETEST REQUIRED')"
jcheck "missing: a SKIP row is missing evidence, with its reason" "$TMP/missing.json" '[t for t in d["tests"] if t["id"]=="storage"][0]["criteria"][0]["why"]' "bench.storage-seq-read-1m-direct-c1 has no observed.bw_bytes_per_s (SKIP: fio: destination does not support O_DIRECT)"
jcheck "missing: no document at all says what was expected" "$TMP/missing.json" '[t for t in d["tests"] if t["id"]=="reboot"][0]["summary"]' "no result document (expected reboot.json or a cmax.reboot-test/1 document)"
jcheck "missing: the verdict says why it is not a pass" "$TMP/missing.json" 'd["verdict"]["summary"]' "2 tests incomplete (evidence missing: not a pass)"

# ---- retest with --previous ---------------------------------------------------------------
"$CMAX" accept "$PLAN" --from-results "$TMP/fail" $D --json >"$TMP/a1.json"
jcheck "attempt 1: the retest list and its date" "$TMP/a1.json" '(d["attempt"], d["retest"], d["retest_by"])' "(1, ['audit', 'inject-xid79'], '2026-12-08')"
check "attempt 2 of 2, still failing: exit 2" \
	test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/fail" --previous "$TMP/a1.json" --date 2026-12-05 --json)" = 2
cp "$TMP/out" "$TMP/a2.json"
jcheck "attempt 2 of 2 exhausted: NOT ACCEPTED" "$TMP/a2.json" '(d["attempt"], d["verdict"]["status"], d["verdict"]["summary"], d["retest"])' "(2, 'NOT ACCEPTED', '2 tests failed; attempt 2 of 2: no retest left', [])"
jcheck "attempt 2: passed tests carried from attempt 1, the others judged again" "$TMP/a2.json" '[(t["id"], t["carried"], t["attempt"]) for t in d["tests"]][:2]' "[('audit', False, 2), ('storage', True, 1)]"
check "attempt 2 retested and passing: exit 0" \
	test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/pass" --previous "$TMP/a1.json" --date 2026-12-05)" = 0
check "attempt 2: ACCEPTED, carried tests marked" \
	grep -q '^Verdict: ACCEPTED: all 6 tests passed (attempt 2 of 2' "$TMP/out"
check "attempt 2: carried test shows its attempt" grep -q '^PASS        storage .*(attempt 1)$' "$TMP/out"
check "attempt 2 after the 7-day window: exit 2" \
	test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/pass" --previous "$TMP/a1.json" --date 2026-12-10)" = 2
check "attempt 2 after the window: NOT ACCEPTED, window named" \
	grep -qx 'Verdict: NOT ACCEPTED: retest window missed: attempt 1 was on 2026-12-01 and the retest was due by 2026-12-08 (window 7 days)' "$TMP/out"
sed 's/scope: failed/scope: group/' "$PLAN" >"$TMP/group.yaml"
"$CMAX" accept "$TMP/group.yaml" --from-results "$TMP/fail" $D --json >"$TMP/g1.json"
jcheck "scope group: every test of a failed test's group" "$TMP/g1.json" 'd["retest"]' "['audit', 'inject-xid79', 'reboot']"
check "--previous of a final attempt: 64" \
	test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/pass" --previous "$TMP/a2.json")" = 64
check "  says there is nothing to retest" grep -q 'already ended the acceptance (NOT ACCEPTED)' "$TMP/err"
sed 's/^name: .*/name: another plan/' "$PLAN" >"$TMP/other.yaml"
check "--previous of another plan: 65" \
	test "$(rc_of "$CMAX" accept "$TMP/other.yaml" --from-results "$TMP/pass" --previous "$TMP/a1.json")" = 65
check "  one line naming both" one_line
check "--only a test that passed before: 64" \
	test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/pass" --previous "$TMP/a1.json" --only storage)" = 64

# ---- acceptance date passed -------------------------------------------------------------------
check "date passed: exit 2 although every test passes" \
	test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/pass" --date 2026-12-20)" = 2
check "date passed: termination right named" \
	grep -qx 'Verdict: NOT ACCEPTED: acceptance date missed (2026-12-15, this attempt 2026-12-20): termination right per the plan' "$TMP/out"
check "date passed: days counted back" grep -q '(5 days ago); attempt 1 of 2 on 2026-12-20 (--date)' "$TMP/out"

# ---- run mode: real cmax commands ---------------------------------------------------------------
# small-file benchmarks on tmpfs when there is one: the disk of a shared CI
# machine makes fsync-heavy runs slow
SCR=$(mktemp -d /dev/shm/cmax-accept.XXXXXX 2>/dev/null) || SCR=$TMP/scratch
mkdir -p "$SCR"
trap 'rm -rf "$TMP" "$SCR"' EXIT
mkdir -p "$TMP/bin"
"$SRCDIR/tests/fakecmd/mkbin.sh" "$H/h100-healthy/cmd" "$BUILD/fakecmd" "$TMP/bin" >/dev/null
fx() { # the fixture host's environment around cmax, as tests/lib/tap.sh run_fixture sets it up
	env -i HOME="$TMP/home" PATH="$TMP/bin" TZ=UTC $(grep -v '^#' "$H/h100-healthy/env") \
		CMAX_FAKE_DIR="$H/h100-healthy/cmd" CMAX_FAKE_LOG="$TMP/fake.log" CMAX_DATADIR="$SRCDIR/data" \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "$CMAX" "$@"
}
VARS=(--var "ROOT=$H/h100-healthy/root" --var "DIR=$SCR")
# attempt 1 cannot run the benchmark (no such directory); attempt 2 runs only that
O=$TMP/r1
check "run, attempt 1: exit 2" \
	test "$(rc_of fx accept "$FX/run.yaml" --var "ROOT=$H/h100-healthy/root" --var "DIR=$TMP/no-such-dir" --yes --output-dir "$O")" = 2
check "run, attempt 1: the audit passed" grep -q '^PASS        audit ' "$TMP/out"
check "run, attempt 1: a command that ends without a document is INCOMPLETE, with its message" \
	grep -qx '            cmax bench ended without a result document (exit 66 in [0-9]* ms); stderr: cmax bench metadata: --path '"$TMP"'/no-such-dir: No such file or directory' "$TMP/out"
check "run, attempt 1: retest list" grep -qx 'Retest (scope failed, attempt 2 of 2, by 2026-12-15): metadata' "$TMP/out"
check "run, attempt 1: the audit's document, its run directory, the stderr of the failed command and accept.json kept" \
	test -s "$O/audit.json" -a -s "$O/audit.audit-run/audit.results.json" -a -s "$O/metadata.stderr" -a -s "$O/accept.json"
jcheck "run: accept.json records the commands as they ran" "$O/accept.json" \
	'(d["mode"], [t["run"]["exit_code"] for t in d["tests"]], d["tests"][0]["run"]["argv"][-3:])' \
	"('run', [0, 66], ['--json', '--output-dir', '$O/audit.audit-run'])"
jcheck "run: the audit was of the fixture host" "$O/audit.json" '(d["schema"], d["counts"]["FAIL"], d["target"]["sysroot"])' \
	"('cmax.audit.results/1', 0, '$H/h100-healthy/root')"
O2=$TMP/r2
check "run, attempt 2: exit 0" \
	test "$(rc_of fx accept "$FX/run.yaml" "${VARS[@]}" --yes --output-dir "$O2" --previous "$O/accept.json")" = 0
check "run, attempt 2: ACCEPTED" grep -q '^Verdict: ACCEPTED: all 2 tests passed (attempt 2 of 2' "$TMP/out"
check "run, attempt 2: only the test to retest ran" test "$(ls "$O2")" = "$(printf 'accept.json\nmetadata.json')"
jcheck "run, attempt 2: the audit carried from attempt 1" "$O2/accept.json" \
	'[(t["id"], t["status"], t["attempt"], t["carried"]) for t in d["tests"]]' "[('audit', 'PASS', 1, True), ('metadata', 'PASS', 2, False)]"
check "run: the benchmark left nothing behind" test -z "$(ls -A "$SCR")"
check "re-judging both run directories: exit 0" test "$(rc_of "$CMAX" accept "$FX/run.yaml" --from-results "$O" --from-results "$O2" --json)" = 0
keep rejudge
jcheck "re-judging: documents found by test id, accept.json ignored" "$TMP/keep.rejudge" \
	'([t["documents"] for t in d["tests"]], [i["path"] for i in d["ignored"]], d["verdict"]["status"])' \
	"([['$O/audit.json'], ['$O2/metadata.json']], ['$O/accept.json', '$O2/accept.json'], 'ACCEPTED')"
check "an --output-dir that holds files: 73" \
	test "$(rc_of fx accept "$FX/run.yaml" "${VARS[@]}" --yes --output-dir "$O")" = 73
check "  one line" one_line

mkdir -p "$TMP/empty"
check "--dry-run: exit 0" test "$(cd "$TMP/empty" && rc_of fx accept "$FX/run.yaml" "${VARS[@]}" --dry-run)" = 0
check "--dry-run: wrote nothing" test -z "$(ls -A "$TMP/empty")$(ls -A "$SCR")"
check "--dry-run: the exact command with --json added" \
	grep -qF "      $CMAX bench metadata --path $SCR --yes --workers 2 --files 50 --import-files 200 --alloc-mib 1 --lock-iterations 10 --json" "$TMP/out"
check "--dry-run: the audit's run directory inside the accept directory" \
	grep -qF "$CMAX audit --sysroot $H/h100-healthy/root --local --yes --json --output-dir cmax-accept-20261130-120000/audit.audit-run" "$TMP/out"
check "--dry-run: what changes the cluster" grep -qx '      runs a benchmark (writes files, loads the GPUs or the network)' "$TMP/out"
(cd "$TMP/empty" && fx accept "$FX/run.yaml" "${VARS[@]}" --dry-run --json) >"$TMP/dry.json"
jcheck "--dry-run --json" "$TMP/dry.json" '(d["schema"], [t["argv"][1] for t in d["tests"]])' "('cmax.accept.dry-run/1', ['audit', 'bench'])"
check "--dry-run without a value for a variable: 64" test "$(rc_of "$CMAX" accept "$FX/run.yaml" --dry-run)" = 64
check "  names the --var to pass" grep -qx 'cmax accept: test audit needs ${ROOT}, which has no default: pass --var ROOT=VALUE' "$TMP/err"
check "no --yes and no terminal: 64" \
	test "$(cd "$TMP/empty" && rc_of fx accept "$FX/run.yaml" "${VARS[@]}" </dev/null)" = 64
check "  says why, ran nothing" grep -q 'this plan changes the cluster (metadata runs a benchmark.*pass --yes' "$TMP/err"
check "  nothing written" test -z "$(ls -A "$TMP/empty")$(ls -A "$SCR")"

# a test over its budget: asked to stop (SIGINT), so the benchmark removes its files
check "over budget: exit 2" test "$(cd "$TMP/empty" && rc_of fx accept "$FX/slow.yaml" --var "DIR=$SCR" --yes --only slow)" = 2
check "over budget: FAIL did not finish" grep -q '^            did not finish within 1s (stopped with SIGINT after ' "$TMP/out"
check "over budget: the benchmark removed its files" test -z "$(ls -A "$SCR")"
check "over budget: default output directory in the working directory" test -s "$TMP/empty/cmax-accept-20261130-120000/accept.json"
jcheck "over budget: --only leaves the rest unjudged, never passed" "$TMP/empty/cmax-accept-20261130-120000/accept.json" '[(t["id"], t["status"]) for t in d["tests"]]' "[('slow', 'FAIL'), ('second', 'INCOMPLETE')]"

# Ctrl-C: the running test is asked to stop, the rest is not run, results kept
sed 's/duration: 1s/duration: 1m/' "$FX/slow.yaml" >"$TMP/slow-long.yaml"
# exec: the signal must reach cmax, not a shell around it
(fx() { exec env -i HOME="$TMP/home" PATH="$TMP/bin" TZ=UTC CMAX_DATADIR="$SRCDIR/data" \
	${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "$CMAX" "$@"; }
 fx accept "$TMP/slow-long.yaml" --var "DIR=$SCR" --yes --output-dir "$TMP/int" >"$TMP/int.out" 2>"$TMP/int.err") &
pid=$!
for _ in $(seq 100); do grep -q 'budget 1m' "$TMP/int.err" 2>/dev/null && break; sleep 0.05; done
sleep 0.5
kill -INT $pid
wait $pid
check "Ctrl-C: exit 130, got $?" test $? = 130
jcheck "Ctrl-C: accept.json kept, marked interrupted" "$TMP/int/accept.json" '(d["interrupted"], [t["status"] for t in d["tests"]], d["tests"][1]["summary"])' "(True, ['INCOMPLETE', 'INCOMPLETE'], 'not run: accept was interrupted')"
check "Ctrl-C: the benchmark removed its files" test -z "$(ls -A "$SCR")"

# ---- the shipped plans ------------------------------------------------------------------------------
check "hgx-8gpu plan validates (by name)" test "$(rc_of "$CMAX" accept hgx-8gpu --dry-run)" = 0
check "nvl72 plan validates (by path)" test "$(rc_of "$CMAX" accept "$SRCDIR/data/accept/nvl72.yaml" --dry-run)" = 0
M=$FX/method
for n in hgx-8gpu nvl72; do
	"$CMAX" accept $n --dry-run --json >"$TMP/$n.dry.json"
	"$CMAX" accept $n --from-results "$M/good" --json >"$TMP/$n.basis.json"
	# docs/provenance.md: a number is the method's (with its figure) or declared (with reason and revisit)
	jcheck "$n: every numeric criterion says its basis" "$TMP/$n.basis.json" \
		'[c["criterion"] for t in d["tests"] for c in t["criteria"] if any(b in c["criterion"] for b in (">=", "<=", " in [")) and not (isinstance(c.get("basis"), dict) and ((c["basis"]["kind"] == "method" and c["basis"].get("figure")) or (c["basis"]["kind"] == "declared" and c["basis"].get("reason") and c["basis"].get("revisit"))))]' "[]"
	jcheck "$n: declared criteria say so in words" "$TMP/$n.basis.json" \
		'all(c["criterion"].endswith("(declared)") == c["declared"] == ((c.get("basis") or {}).get("kind") == "declared") for t in d["tests"] for c in t["criteria"])' "True"
done
jcheck "hgx-8gpu: every test would run" "$TMP/hgx-8gpu.dry.json" '(len(d["tests"]), all(t["run"] for t in d["tests"]))' "(12, True)"
jcheck "nvl72: every test would run" "$TMP/nvl72.dry.json" '(len(d["tests"]), all(t["run"] for t in d["tests"]))' "(11, True)"
jcheck "nvl72: the method's NVLink-off scale-out run next to the NVLink-on one" "$TMP/nvl72.dry.json" \
	'[(t["id"], t["argv"][t["argv"].index("--nvlink") + 1]) for t in d["tests"] if "--nvlink" in t["argv"]]' \
	"[('nccl', 'on'), ('nccl-scaleout', 'off')]"
jcheck "hgx-8gpu: all-to-all >= 0.80 of its bound, 64 KiB latency <= 60 us, reboot back <= 600 s" "$TMP/hgx-8gpu.basis.json" \
	'[c["criterion"].split(" (")[0] for t in d["tests"] for c in t["criteria"] if "alltoall-n*" in c["criterion"] or "event=usable" in c["criterion"]]' \
	"['bench.net-nccl-alltoall-n* observed.busbw_line_ratio >= 0.8', 'bench.net-nccl-alltoall-n* observed.latency_64k_us <= 60', 'events[event=usable].offset_s <= 600']"

# ---- the method's figures (tests/fixtures/accept/method, README there) -------------------------------------
# good/: a result set at the method's figures; bad/CASE/: the documents that
# differ, each a figure the method calls bad, laid over good/
check "method: the method's good figures are ACCEPTED by hgx-8gpu: exit 0" \
	test "$(rc_of "$CMAX" accept hgx-8gpu --from-results "$M/good" --json)" = 0
keep method-good
jcheck "method good: every test PASS" "$TMP/keep.method-good" '(d["verdict"]["status"], d["counts"])' \
	"('ACCEPTED', {'PASS': 12, 'FAIL': 0, 'INCOMPLETE': 0, 'total': 12})"
jcheck "method good: 4 x 8 all-to-all at 59.44 GB/s reads 0.92 of B x (n-1)/(n-g) (one 400G NIC per GPU)" "$TMP/keep.method-good" \
	'[c["observed"]["value"] for t in d["tests"] if t["id"] == "nccl" for c in t["criteria"] if c["criterion"].startswith("bench.net-nccl-alltoall-n* observed.busbw_line_ratio")]' "[0.92]"
jcheck "method good: 391 of 400 Gb/s per rail, Xid 79 detected in 61.2 s and back in 35 min, reboot back in 124 s" "$TMP/keep.method-good" \
	'[c["observed"]["value"] for t in d["tests"] for c in t["criteria"] if t["id"] in ("rdma", "inject-xid79", "reboot") and "value" in c["observed"]]' \
	"[0.978, 61.2, 2100.0, 124.0]"
mkdir -p "$TMP/m"
case_dir() { rm -rf "$TMP/m/$1"; cp -r "$M/good" "$TMP/m/$1"; cp "$M/bad/$1/"* "$TMP/m/$1/"; }
for c in return-2h reboot-19min allgather-hang efa-latency quick-storage; do
	case_dir $c
	check "method bad $c: not accepted (exit 2)" test "$(rc_of "$CMAX" accept hgx-8gpu --from-results "$TMP/m/$c" --json)" = 2
	keep "m-$c"
done
jcheck "method bad: an HGX node back only after 2 h fails the hour" "$TMP/keep.m-return-2h" \
	'[(t["id"], t["status"], [c["why"] for c in t["criteria"] if c["status"] == "FAIL"][-1]) for t in d["tests"] if t["status"] != "PASS"]' \
	"[('inject-xid79', 'FAIL', '$TMP/m/return-2h/inject-xid79.json = 7200 > 3600')]"
jcheck "method bad: a 19 min reboot fails the declared 10 min" "$TMP/keep.m-reboot-19min" \
	'[(t["id"], t["status"], t["summary"]) for t in d["tests"] if t["status"] != "PASS"]' \
	"[('reboot', 'FAIL', 'events[event=usable].offset_s <= 600 (declared): $TMP/m/reboot-19min/reboot.json = 1130 > 600')]"
jcheck "method bad: all-gather hung at 32 KiB is a FAIL of the network test" "$TMP/keep.m-allgather-hang" \
	'[(t["id"], t["status"], [c["why"][:60] for c in t["criteria"] if c["status"] == "FAIL"]) for t in d["tests"] if t["status"] != "PASS"]' \
	"[('nccl', 'FAIL', ['bench.net-nccl-all-gather-n32 is FAIL: HUNG at 32 KiB: all_g'])]"
jcheck "method bad: 85.26 us at 64 KiB (EFA) fails the plan's 60 us" "$TMP/keep.m-efa-latency" \
	'[(t["id"], t["status"], t["summary"]) for t in d["tests"] if t["status"] != "PASS"]' \
	"[('nccl', 'FAIL', 'bench.net-nccl-alltoall-n* observed.latency_64k_us <= 60 (declared): bench.net-nccl-alltoall-n32 = 85.26 > 60')]"
jcheck "method bad: a quick 32 MiB, 1 s storage run is INCOMPLETE where the plan asks for --full, never FAIL" "$TMP/keep.m-quick-storage" \
	'[(t["id"], t["status"], t["summary"], t["requires"]) for t in d["tests"] if t["status"] != "PASS"]' \
	"[('storage-sweep', 'INCOMPLETE', 'not the evidence the plan asks for: $TMP/m/quick-storage/storage-sweep.json ran in quick mode; the plan asks for --full; 8 clients asked, 1 ran', {'mode': 'full', 'clients': 8})]"
jcheck "method bad: the quick document is named as set aside, its FAIL rows are not judged" "$TMP/keep.m-quick-storage" \
	'[(len(t["set_aside"]), t["documents"], sorted(set(c["status"] for c in t["criteria"]))) for t in d["tests"] if t["id"] == "storage-sweep"]' \
	"[(1, [], ['INCOMPLETE'])]"
# the network documents are what this build's cmax bench net writes from the recordings (not stale)
"$PY" "$FX/gen.py" "$BUILD" --nccl-to "$TMP/nccl-now.json" 2>"$TMP/gen.err"
diag <"$TMP/gen.err"
# (what the plan reads: ids, statuses, modes and the figures of its criteria)
check "method: good/nccl.json is what cmax bench net writes from method/recordings today (rerun gen.py when not)" \
	"$PY" -c 'import json,sys
k = ("busbw_line_ratio", "latency_64k_us", "wrong", "nodes", "bound", "line_rate_gb_s")
a, b = ([(r["id"], r["status"], r.get("mode"), [r["observed"].get(x) for x in k]) for r in json.load(open(p))["results"]] for p in sys.argv[1:])
sys.exit(a != b and print("# now: %s\n# committed: %s" % (a, b)) is None)' "$TMP/nccl-now.json" "$M/good/nccl.json"
# requires: beyond the args, and every unmet requirement named
cat >"$TMP/quick.yaml" <<'EOF'
schema: cmax.accept.plan/1
name: quick storage against --full
system: hgx
acceptance_date: "2026-12-15"
retest: {max_attempts: 1}
tests:
  - id: storage
    title: "Storage sweep the plan asks to run in full"
    args: [bench, storage, --path, /nonexistent, --full, --clients, 8, --yes]
    duration: 1h
    requires: {size: 1G}
    criteria:
      - rows: "bench.storage-seq-read-1m-direct-c*"
        metric: observed.bw_bytes_per_s
        aggregate: max
        min: 3.5e9
        basis: {kind: declared, reason: "a test plan", revisit: "never"}
EOF
"$CMAX" accept "$TMP/quick.yaml" --from-results "$R/storage-quick-mode.json" --json >"$TMP/quick.json"
jcheck "requires: size as well: every unmet requirement named" "$TMP/quick.json" 'd["tests"][0]["set_aside"][0]["why"]' \
	"ran in quick mode; the plan asks for --full; 8 clients asked, 1 ran; size per client 1G asked, 32M ran"
"$CMAX" accept "$TMP/quick.yaml" --from-results "$M/good/storage-sweep.json" --json >"$TMP/quick-ok.json"
jcheck "requires: a full 8-client 1 GiB sweep meets them" "$TMP/quick-ok.json" '(d["tests"][0]["status"], d["tests"][0]["set_aside"])' "('PASS', [])"
jcheck "hgx-8gpu: detection within 2 min, return within 1 h" "$TMP/hgx-8gpu.dry.json" \
	'[t["argv"][1:] for t in d["tests"] if t["id"] == "inject-xid79"][0][:9]' \
	"['inject', 'xid', '79', '--node', 'gpu001', '--yes', '--platform', 'hgx', '--timeout']"

# ---- bad input: one line, a distinct exit code -----------------------------------------------------------
bad() { # name, expected line, yaml
	printf '%s\n' "$3" >"$TMP/$1.yaml"
	local rc
	rc=$(rc_of "$CMAX" accept "$TMP/$1.yaml" --dry-run)
	check "bad plan $1: 65, got $rc" test "$rc" = 65
	check "  one line: $2" grep -qxF "cmax accept: $TMP/$1.yaml: $2" "$TMP/err"
	one_line || not_ok "  $1: more than one line"
}
HDR='schema: cmax.accept.plan/1
name: b
system: hgx
acceptance_date: "2026-12-15"
retest: {max_attempts: 1}'
bad topkey "owner: unknown key (expected schema, name, system, acceptance_date, version, sources, notes, variables, retest or tests)" \
	"$HDR
owner: me
tests: [{id: a, title: t, args: [audit, --yes], duration: 1m, criteria: [{rows: x, status: PASS}]}]"
bad duration "tests[0].duration: '8 hours' is not a duration (e.g. 90s, 15m, 8h, 1h30m, 2d; at most 7d)" \
	"$HDR
tests: [{id: a, title: t, args: [audit, --yes], duration: 8 hours, criteria: [{rows: x, status: PASS}]}]"
bad critkey "tests[0].criteria[0].threshold: unknown key (expected rows, max_status, status, count, metric, doc_metric, min, max, aggregate, skipped, min_rows, note, declared or basis)" \
	"$HDR
tests: [{id: a, title: t, args: [audit, --yes], duration: 1m, criteria: [{rows: x, metric: a, threshold: 3}]}]"
bad noyes "tests[0].args: needs --yes: accept runs each command without a terminal, where cmax inject would refuse to start (accept asks once for the whole plan)" \
	"$HDR
tests: [{id: a, title: t, args: [inject, xid, 79], duration: 1m, criteria: [{rows: x, status: PASS}]}]"
bad schema "schema: missing (expected \"cmax.accept.plan/1\")" "name: b"
bad notyaml "line 3 column 1: did not find expected ',' or ']' while parsing a flow sequence" "tests: [
x"
check "a missing plan: 66" test "$(rc_of "$CMAX" accept "$TMP/nope.yaml")" = 66
check "  one line" one_line
check "no plan: 64" test "$(rc_of "$CMAX" accept)" = 64
check "--var of an undeclared variable: 64" test "$(rc_of "$CMAX" accept "$PLAN" --var X=1 --dry-run)" = 64
check "  lists the declared ones" grep -qx 'cmax accept: --var X: the plan declares no such variable (SHARED_PATH, NODE)' "$TMP/err"
check "--only an unknown test: 64" test "$(rc_of "$CMAX" accept "$PLAN" --only nope --dry-run)" = 64
check "--only a mistyped test: 64" test "$(rc_of "$CMAX" accept "$PLAN" --only=audti --dry-run)" = 64
check "  suggests the test" grep -qx "cmax accept: --only audti: the plan has no such test (did you mean 'audit'?)" "$TMP/err"
check "a mistyped shipped plan: 66" test "$(cd "$TMP" && rc_of "$CMAX" accept hgx-8gp --dry-run)" = 66
check "  suggests the shipped plan" grep -q "hgx-8gp: no such plan file or shipped plan (did you mean 'hgx-8gpu'?)" "$TMP/err"
check "--date in another spelling: 64" test "$(rc_of "$CMAX" accept "$PLAN" --date 12/01/2026 --dry-run)" = 64
check "--dry-run with --from-results: 64" test "$(rc_of "$CMAX" accept "$PLAN" --dry-run --from-results "$TMP/pass")" = 64
check "--from-results that does not exist: 66" test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/nothing")" = 66
mkdir -p "$TMP/broken"
echo '{"schema": "cmax.bench.results/1", "results": [' >"$TMP/broken/x.json"
check "--from-results with broken JSON: 65" test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/broken")" = 65
check "  one line naming the file" grep -q "^cmax accept: $TMP/broken/x.json: not valid JSON" "$TMP/err"
check "--previous that does not exist: 66" test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/pass" --previous "$TMP/none.json")" = 66
check "--previous that is not an accept document: 65" \
	test "$(rc_of "$CMAX" accept "$PLAN" --from-results "$TMP/pass" --previous "$TMP/pass/reboot.json")" = 65
check "  one line" one_line
"$CMAX" accept --help >"$TMP/help"
missing=""
for o in --var --only --dry-run --yes --from-results --output-dir --previous --date --json --output-file --verbose --help; do
	grep -q -- "$o" "$TMP/help" || missing="$missing $o"
done
check "--help lists every option${missing:+ (missing:$missing)}" test -z "$missing"
# ---- impossible evidence: named, never judged (tests/fixtures/accept/extreme.py) ---------------------------
X=$TMP/extreme
"$PY" "$FX/extreme.py" "$X"
for d in "$X"/cases/*; do
	c=${d##*/}
	"$CMAX" accept "$X/plan.yaml" --from-results "$d" --json >"$X/out/$c.json" 2>"$X/out/$c.err"
	echo $? >"$X/out/$c.rc"
done
check "extreme values (negative, -0, subnormal, +-1.8e308, +-2^63, 1e16, NaN/Infinity as strings, a boolean, a list, null): never PASS or FAIL, named as malformed" \
	"$PY" "$FX/extreme.py" --check "$X"
mkdir -p "$TMP/broken-doc"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); [e.update(offset_s=-5.0) for e in d["events"] if e["event"] == "usable"]; json.dump(d, open(sys.argv[2], "w"))' \
	"$M/good/reboot.json" "$TMP/broken-doc/reboot.json"
check "a timeline that goes back before its start is a broken document: 65" \
	test "$(rc_of "$CMAX" accept hgx-8gpu --from-results "$TMP/broken-doc")" = 65
check "  one line naming the document and the field" grep -q "^cmax accept: $TMP/broken-doc/reboot.json: .*offset_s" "$TMP/err"
one_line || not_ok "  more than one line"
jflush
# every accept document above against docs/schema/accept.schema.json and what a schema cannot say
check "every accept --json document and accept.json validates (tests/contract/validate-verdicts.py)" \
	"$PY" "$SRCDIR/tests/contract/validate-verdicts.py" "$TMP"/{pass,pass-ev,missing,a1,a2,g1,quick,quick-ok,hgx-8gpu.basis,nvl72.basis}.json \
	"$TMP/keep.rejudge" "$TMP/keep.method-good" "$TMP"/keep.m-* "$X"/out/*.json \
	"$O/accept.json" "$O2/accept.json" "$TMP/int/accept.json" "$TMP/empty/cmax-accept-20261130-120000/accept.json"
done_testing
