#!/usr/bin/env bash
# The result sink every command that writes a result document ends with
# (src/store/sink.h): --fail-on, --junit, --store / --no-store, on audits of
# fixture hosts, a replayed bench net run (a fake srun replaying recorded
# nccl-tests output, as in t-bench-net.sh), cmax sla on its hand-computed
# fixtures, cmax rate and cmax accept --from-results.
#
# The expected exit code of --fail-on and the expected JUnit counts are
# computed here from the document's own rows, the way each schema keeps
# them (docs/schema/), never from cmax's output text:
#   audit, bench, inject, reboot-test, sla: results[].status
#   accept: tests[].status (INCOMPLETE: no verdict, an error)
#   rate: one row, FAIL when the tier is "Not Recommended - ..."
# --fail-on WARN fires on a WARN or FAIL row, FAIL on FAIL, ERROR on ERROR,
# and only turns an exit 0 into 2.
. "$(dirname "$0")/../lib/tap.sh"
PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null; then
	skip "python3 is needed to read the documents and the XML"
	done_testing
	exit
fi
export CMAX_DATADIR=$SRCDIR/data

cat >"$TMP/sink.py" <<'EOF'
import json, sys
import xml.etree.ElementTree as ET

def rows(d):
    s = d.get("schema")
    if s == "cmax.accept/1":
        return [{"PASS": "PASS", "FAIL": "FAIL"}.get(t["status"], "ERROR") for t in d["tests"]]
    if s == "cmax.rate/1":
        return ["FAIL" if d["tier"].startswith("Not Recommended") else "PASS"]
    if s == "cmax.rate.compare/1":
        return ["FAIL" if p["tier"].startswith("Not Recommended") else "PASS" for p in d["providers"]]
    return [r["status"] for r in d["results"]]

FIRES = {"WARN": {"WARN", "FAIL"}, "FAIL": {"FAIL"}, "ERROR": {"ERROR"}}

def expect(doc, levels, base):
    st = set(rows(json.load(open(doc))))
    want = set().union(*(FIRES[l] for l in levels.upper().split(",")))
    print(2 if int(base) == 0 and st & want else int(base))

def junit(doc, xml):
    r = rows(json.load(open(doc)))
    root = ET.parse(xml).getroot()
    assert root.tag == "testsuites", root.tag
    suites = root.findall("testsuite")
    assert len(suites) == 1, len(suites)
    s = suites[0]
    cases = s.findall("testcase")
    got = {"tests": len(cases),
           "failures": sum(1 for c in cases if c.find("failure") is not None),
           "errors": sum(1 for c in cases if c.find("error") is not None),
           "skipped": sum(1 for c in cases if c.find("skipped") is not None),
           "warn": sum(1 for c in cases if (c.findtext("system-out") or "").startswith("WARN"))}
    want = {"tests": len(r), "failures": r.count("FAIL"), "errors": r.count("ERROR"),
            "skipped": r.count("SKIP"), "warn": r.count("WARN")}
    assert got == want, "testcases %s, rows %s" % (got, want)
    for k in ("tests", "failures", "errors", "skipped"):
        assert s.get(k) == str(want[k]) == root.get(k), (k, s.get(k), root.get(k), want[k])
    props = {p.get("name"): p.get("value") for p in s.iter("property")}
    assert props.get("warnings") == str(want["warn"]), props
    assert props.get("schema") == json.load(open(doc))["schema"], props
    for c in cases:
        assert c.get("classname") and c.get("name") and c.get("time") is not None, c.attrib
    print("ok")

def xml_ok(c):
    o = ord(c)
    return o in (9, 10, 13) or 0x20 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or o >= 0x10000

def name_is(xml, raw):
    names = [c.get("name") for c in ET.parse(xml).getroot().iter("testcase")]
    want = "".join(c for c in raw if xml_ok(c))
    assert names == [want], (names, want)
    print("ok")

def runs(listing, kind, n, source=None):
    rs = [r for r in json.load(open(listing))["runs"] if r["kind"] == kind]
    assert len(rs) == int(n), rs
    assert source is None or [r["source"] for r in rs] == [source], [r["source"] for r in rs]
    print("ok")

def same_doc(a, b):
    x, y = json.load(open(a)), json.load(open(b))
    assert x == y, "the stored document differs from the file"
    print("ok")

{"expect": expect, "junit": junit, "name_is": name_is, "runs": runs, "same_doc": same_doc}[sys.argv[1]](*sys.argv[2:])
EOF
sp() { "$PY" "$TMP/sink.py" "$@" 2>&1; }
# checkpy DESC ARGS...: the helper prints ok, or why not
checkpy() {
	local d=$1 got; shift
	got=$(sp "$@")
	if [ "$got" = ok ]; then ok "$d"; else not_ok "$d"; echo "$got" | tail -3 | diag; fi
}
# Is the results store built (store/store.c)? Before it is, recording is a
# warning; the assertions on recorded runs need it.
if "$CMAX" runs list --store "$TMP/probe.db" --json >/dev/null 2>&1; then STORE=1; else STORE=0; fi
store_skip() { skip "$1: the results store is not built yet (cmax runs list fails)"; }

# ---- audit on fixture hosts --------------------------------------------------
# cpu-only: WARN rows, no FAIL or ERROR; misconfig-h100: FAIL and WARN;
# h100-healthy: neither; hostile-tools: ERROR rows (tools that crash, hang
# and print garbage, their output in the evidence)
for host in cpu-only misconfig-h100 h100-healthy hostile-tools; do
	out=$TMP/$host
	extra=
	[ $host = hostile-tools ] && extra="--tool-timeout 1"
	# shellcheck disable=SC2086
	run_fixture $host "$out" --local --yes --json --output-dir "$out/run" --junit "$out/junit.xml" $extra
	base=$(cat "$out/rc")
	check "$host: audit exits 0 (got $base)" test "$base" = 0
	checkpy "$host: --junit parses; its testcase, failure, error, skipped and WARN counts are the rows'" \
		junit "$out/stdout" "$out/junit.xml"
	if [ $STORE = 1 ]; then
		check "$host: no store warning" sh -c "! grep -q 'results store' '$out/stderr'"
		"$CMAX" runs list --store "$out/home/.cmax/cmax.db" --json >"$out/runs.json" 2>"$out/runs.err"
		checkpy "$host: the run is recorded in the default store (\$HOME/.cmax/cmax.db), its source the results file" \
			runs "$out/runs.json" audit 1 "$out/run/audit.results.json"
		id=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["id"])' "$out/runs.json" 2>/dev/null)
		"$CMAX" runs export "$id" --store "$out/home/.cmax/cmax.db" >"$out/export.json" 2>/dev/null
		checkpy "$host: the stored document is the one written" same_doc "$out/export.json" "$out/run/audit.results.json"
	else
		check "$host: the unbuilt store is one warning line, the run goes on" \
			test "$(grep -c '^cmax audit: results store: ' "$out/stderr")" = 1
		store_skip "$host: the run is recorded"
	fi
	levels="WARN FAIL ERROR FAIL,ERROR"
	[ $host = hostile-tools ] && levels="ERROR"
	for lv in $levels; do
		o2=$TMP/$host-$lv
		# shellcheck disable=SC2086
		run_fixture $host "$o2" --local --yes --json --output-dir "$o2/run" --fail-on $lv --no-store $extra
		want=$(sp expect "$out/stdout" $lv "$base")
		got=$(cat "$o2/rc")
		check "$host: --fail-on $lv exits $want (got $got)" test "$got" = "$want"
		check "$host: --fail-on $lv --no-store: no store, no warning" \
			sh -c "[ ! -e '$o2/home/.cmax/cmax.db' ] && ! grep -q 'results store' '$o2/stderr'"
	done
done
# the cases above only mean something if the hosts differ; then the levels are a
# fixed set (any case), anything else a usage error before the run
w=$(sp expect "$TMP/cpu-only/stdout" WARN 0)
check "cpu-only has WARN rows and no FAIL (the cases above mean something)" \
	test "$w" = 2 -a "$(sp expect "$TMP/cpu-only/stdout" FAIL,ERROR 0)" = 0
run_fixture cpu-only "$TMP/lower" --local --yes --output-dir "$TMP/lower/run" --fail-on warn --no-store
check "--fail-on is not case-sensitive (warn: exit 2)" test "$(cat "$TMP/lower/rc")" = 2
for bad in SKIP PASS 'FAIL,' ',FAIL' 'FAIL;ERROR' 'WARNING' 'FAIL, ERROR'; do
	o2=$TMP/bad
	rm -rf "$o2"
	run_fixture cpu-only "$o2" --local --yes --output-dir "$o2/run" --fail-on "$bad"
	check "--fail-on '$bad': usage error 64, one line, before the run" \
		sh -c "[ \$(cat '$o2/rc') = 64 ] && [ \$(wc -l <'$o2/stderr') = 1 ] && [ ! -e '$o2/run' ]"
done
o2=$TMP/both
run_fixture cpu-only "$o2" --local --yes --output-dir "$o2/run" --store "$TMP/x.db" --no-store
check "--store with --no-store: usage error 64" sh -c "[ \$(cat '$o2/rc') = 64 ] && [ ! -e '$o2/run' ]"

# --junit through a link is refused before anything runs; so is a directory
ln -s "$TMP/victim" "$TMP/junit-link"
o2=$TMP/link
run_fixture cpu-only "$o2" --local --yes --output-dir "$o2/run" --junit "$TMP/junit-link"
check "--junit to a symlink: 73 before the run, the link's target not created" \
	sh -c "[ \$(cat '$o2/rc') = 73 ] && [ ! -e '$TMP/victim' ] && [ ! -e '$o2/run' ] && [ \$(wc -l <'$o2/stderr') = 1 ]"
mkdir "$TMP/junit-dir"
o2=$TMP/jdir
run_fixture cpu-only "$o2" --local --yes --output-dir "$o2/run" --junit "$TMP/junit-dir"
check "--junit to a directory: 73 before the run" sh -c "[ \$(cat '$o2/rc') = 73 ] && [ ! -e '$o2/run' ]"
# an existing regular file is replaced (a CI job writes the same path each run)
echo old >"$TMP/old.xml"
o2=$TMP/old
run_fixture h100-healthy "$o2" --local --yes --json --output-dir "$o2/run" --junit "$TMP/old.xml" --no-store
checkpy "--junit replaces an existing regular file" junit "$o2/stdout" "$TMP/old.xml"
# --dry-run is a plan: no --junit, nothing recorded
o2=$TMP/dry
run_fixture cpu-only "$o2" --local --dry-run --junit "$TMP/dry.xml"
check "--dry-run: exit 0, no --junit file, no store" \
	sh -c "[ \$(cat '$o2/rc') = 0 ] && [ ! -e '$TMP/dry.xml' ] && [ ! -e '$o2/home/.cmax/cmax.db' ]"
if [ $STORE = 1 ]; then
	o2=$TMP/verbose
	run_fixture h100-healthy "$o2" --local --yes --output-dir "$o2/run" -v --store "$TMP/v.db"
	check "-v says which run was recorded where" grep -q "^cmax audit: recorded run [0-9a-f]* in .*v.db" "$o2/stderr"
	"$CMAX" runs list --store "$TMP/v.db" --json >"$TMP/v.json"
	checkpy "--store FILE: the run is recorded there" runs "$TMP/v.json" audit 1
else
	store_skip "-v says which run was recorded"
	store_skip "--store FILE records there"
fi

# ---- bench net, replayed ---------------------------------------------------------
NET=$SRCDIR/tests/unit/net
ROOT=$SRCDIR/tests/fixtures/hosts/h100-healthy/root
rec() { # DIR TOOL N STDOUT_FILE EXIT ARGS...: one fakecmd recording
	local d=$1/cmd/$2/$3 o=$4 ex=$5; shift 5
	mkdir -p "$d"
	printf '%s\n' "$@" >"$d/argv"
	[ -n "$o" ] && cp "$o" "$d/stdout"
	echo "$ex" >"$d/exit"
}
runfake() { # DIR args...: inside a fake 4-node allocation
	local d=$1; shift
	: >"$d/fake.log"
	env -i HOME="$d/home" PATH="$d/bin" TMPDIR="$TMP" CMAX_DATADIR="$CMAX_DATADIR" CMAX_FAKE_DIR="$d/cmd" \
		CMAX_FAKE_LOG="$d/fake.log" SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=4 SLURM_GPUS_ON_NODE=8 \
		SLURM_JOB_NODELIST='gpu-a[01-04]' \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$CMAX" bench net --sysroot "$ROOT" "$@"
}
B=$TMP/bench
mkdir -p "$B/home" # the default store's place: cmax never creates a missing HOME
# nccl-tests all_reduce over 2 nodes with wrong elements and a jagged curve (FAIL)
rec "$B" srun 1 "$NET/nccl-2.14.1-allreduce-jagged-wrong.txt" 0 --nodes=2 --ntasks=16 --ntasks-per-node=8 \
	all_reduce_perf -b 8 -e 16G -f 2 -g 1
rec "$B" all_reduce_perf 1 "" 0 '*'
"$SRCDIR/tests/fakecmd/mkbin.sh" "$B/cmd" "$BUILD/fakecmd" "$B/bin" >/dev/null
runfake "$B" --yes --json --nodes 2 --collectives all_reduce --junit "$TMP/bench.xml" >"$TMP/bench.json" 2>"$TMP/bench.err"
base=$?
check "bench net replay: exit 0 (got $base)" test "$base" = 0
check "bench net replay: no unrecorded command" test ! -s "$B/fake.log"
checkpy "bench net: --junit counts are the rows'" junit "$TMP/bench.json" "$TMP/bench.xml"
if [ $STORE = 1 ]; then
	"$CMAX" runs list --store "$B/home/.cmax/cmax.db" --json >"$TMP/bench-runs.json"
	checkpy "bench net: the run is recorded" runs "$TMP/bench-runs.json" bench.net 1
else
	store_skip "bench net: the run is recorded"
fi
rm -f "$B/home/.cmax/cmax.db"
for lv in WARN FAIL ERROR; do
	runfake "$B" --yes --json --nodes 2 --collectives all_reduce --fail-on $lv --no-store >/dev/null 2>"$TMP/b.err"
	got=$?
	want=$(sp expect "$TMP/bench.json" $lv "$base")
	check "bench net: --fail-on $lv exits $want (got $got)" test "$got" = "$want"
done
check "bench net: --no-store leaves no store" test ! -e "$B/home/.cmax/cmax.db"
runfake "$B" --nodes 2 --collectives all_reduce --fail-on NONE >/dev/null 2>"$TMP/b.err"
check "bench net: bad --fail-on is 64 before the run" sh -c "[ $? = 64 ] && [ \$(wc -l <'$TMP/b.err') = 1 ]"
runfake "$B" --dry-run --nodes 2 --collectives all_reduce --junit "$TMP/bench-dry.xml" >/dev/null 2>&1
check "bench net --dry-run: no --junit file" test ! -e "$TMP/bench-dry.xml"

# ---- sla ---------------------------------------------------------------------------
FX=$SRCDIR/tests/fixtures/sla
for c in nvl72 hgx; do
	case $c in
	nvl72) args="--events $FX/nvl72/two-trays.csv --layout $FX/nvl72/layout.yaml --period 2026-11" ;;
	hgx) args="--events $FX/hgx/slurmctld.log --layout $FX/hgx/layout.json --period 2026-11" ;;
	esac
	rm -f "$CMAX_HOME/cmax.db"
	# shellcheck disable=SC2086
	"$CMAX" sla $args --json --junit "$TMP/sla-$c.xml" >"$TMP/sla-$c.json" 2>"$TMP/sla-$c.err"
	base=$?
	check "sla $c: exit 0 (got $base)" test "$base" = 0
	checkpy "sla $c: --junit counts are the rows'" junit "$TMP/sla-$c.json" "$TMP/sla-$c.xml"
	if [ $STORE = 1 ]; then
		"$CMAX" runs list --json >"$TMP/sla-runs.json"
		checkpy "sla $c: recorded in \$CMAX_HOME/cmax.db" runs "$TMP/sla-runs.json" sla 1
	else
		store_skip "sla $c: the run is recorded"
	fi
	for lv in WARN FAIL ERROR WARN,ERROR; do
		# shellcheck disable=SC2086
		"$CMAX" sla $args --fail-on $lv --no-store >/dev/null 2>&1
		got=$?
		want=$(sp expect "$TMP/sla-$c.json" $lv "$base")
		check "sla $c: --fail-on $lv exits $want (got $got)" test "$got" = "$want"
	done
done
check "the sla cases hold a FAIL and a clean run" \
	test "$(sp expect "$TMP/sla-hgx.json" FAIL 0)$(sp expect "$TMP/sla-nvl72.json" WARN 0)" = 20
rm -f "$CMAX_HOME/cmax.db"
# shellcheck disable=SC2086
"$CMAX" sla $args --no-store >/dev/null 2>"$TMP/sla-ns.err"
check "sla --no-store: no \$CMAX_HOME/cmax.db, no warning" \
	sh -c "[ ! -e '$CMAX_HOME/cmax.db' ] && ! grep -q 'results store' '$TMP/sla-ns.err'"

# ---- reboot-test through a fake kubectl (as tests/cli/t-inject-reboot.sh) ----------
# node gpu-1: "debug node/" reboots it (NotReady for three polls, then Ready
# with a new bootID); a fake replaying kubectl's documented JSON shapes
K=$TMP/k8s
mkdir -p "$K/bin"
cat >"$K/bin/kubectl" <<EOF
#!/bin/sh
case "\$1" in
get)
	case "\$2" in
	node)
		u=''; [ -e $K/cordoned ] && u='"unschedulable":true,'
		r=True
		if [ -e $K/rebooting ]; then
			n=\$(cat $K/rebooting); r=False
			if [ "\$n" -ge 3 ]; then rm $K/rebooting; echo aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee >$K/boot; r=True
			else echo \$((n + 1)) >$K/rebooting; fi
		fi
		printf '{"kind":"Node","metadata":{"name":"gpu-1"},"spec":{%s"taints":[]},"status":{"conditions":[{"type":"Ready","status":"%s"}],"nodeInfo":{"bootID":"%s"}}}\n' "\$u" "\$r" "\$(cat $K/boot)" ;;
	pod) printf Succeeded ;;
	esac ;;
cordon) touch $K/cordoned; echo "node/\$2 cordoned" ;;
uncordon) rm -f $K/cordoned; echo "node/\$2 uncordoned" ;;
drain) echo "node/\$2 drained" ;;
debug) echo 0 >$K/rebooting ;;
run) echo "pod/\$2 created" ;;
delete) echo deleted ;;
*) echo "fake kubectl: unexpected \$*" >&2; exit 1 ;;
esac
EOF
chmod 755 "$K/bin/kubectl"
kube() { # each run starts from the same boot ID
	echo 11111111-2222-3333-4444-555555555555 >"$K/boot"
	PATH=$K/bin:$PATH "$CMAX" reboot-test --k8s --node gpu-1 --i-own-this-node --yes --poll-ms 100 --timeout 20 "$@"
}
rm -f "$CMAX_HOME/cmax.db"
kube --json --junit "$TMP/reboot.xml" >"$TMP/reboot.json" 2>"$TMP/reboot.err"
base=$?
check "reboot-test (fake kubectl): exit 0 (got $base)" test "$base" = 0
checkpy "reboot-test: --junit counts are the rows'" junit "$TMP/reboot.json" "$TMP/reboot.xml"
kube --fail-on WARN --no-store >/dev/null 2>&1
got=$?
check "reboot-test: --fail-on WARN exits $(sp expect "$TMP/reboot.json" WARN $base) (got $got)" \
	test "$got" = "$(sp expect "$TMP/reboot.json" WARN $base)"
if [ $STORE = 1 ]; then
	"$CMAX" runs list --json >"$TMP/reboot-runs.json"
	checkpy "reboot-test: recorded once (--no-store: not again)" runs "$TMP/reboot-runs.json" reboot-test 1
else
	store_skip "reboot-test: recorded"
fi
kube --dry-run --junit "$TMP/reboot-dry.xml" >/dev/null 2>&1
check "reboot-test --dry-run: no --junit file" test ! -e "$TMP/reboot-dry.xml"

# ---- rate: a hostile provider name -----------------------------------------------------
RF=$SRCDIR/tests/fixtures/rate
rm -f "$CMAX_HOME/cmax.db"
if "$PY" "$RF/assemble.py" "$TMP/rate" base underperforming >/dev/null 2>&1; then
	hostile=$'P<&"\'>\x01\x1b[1m\xc3\xa9 \xef\xbf\xbf]]> --'
	"$CMAX" rate "$TMP/rate/base" --provider "$hostile" --json --junit "$TMP/rate.xml" >"$TMP/rate.json" 2>/dev/null
	check "rate: exit 0" test $? = 0
	checkpy "rate: --junit is one testcase, counts the rating's" junit "$TMP/rate.json" "$TMP/rate.xml"
	checkpy "rate: the hostile provider name is escaped; what XML cannot hold is dropped" \
		name_is "$TMP/rate.xml" "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["provider"])' "$TMP/rate.json")"
	"$CMAX" rate "$TMP/rate/underperforming" --json --junit "$TMP/rate-u.xml" >"$TMP/rate-u.json" 2>/dev/null
	base=$?
	checkpy "rate, not recommended: --junit counts" junit "$TMP/rate-u.json" "$TMP/rate-u.xml"
	"$CMAX" rate "$TMP/rate/underperforming" --fail-on FAIL --no-store >/dev/null 2>&1
	got=$?
	check "rate, not recommended: --fail-on FAIL exits $(sp expect "$TMP/rate-u.json" FAIL $base) (got $got)" \
		test "$got" = "$(sp expect "$TMP/rate-u.json" FAIL $base)"
	"$CMAX" rate --compare "$TMP/rate/base" "$TMP/rate/underperforming" --json --junit "$TMP/cmp.xml" \
		>"$TMP/cmp.json" 2>/dev/null
	checkpy "rate --compare: a testcase per provider" junit "$TMP/cmp.json" "$TMP/cmp.xml"
	if [ $STORE = 1 ]; then
		"$CMAX" runs list --json >"$TMP/rate-runs.json"
		checkpy "rate: two ratings recorded (--no-store: not the third)" runs "$TMP/rate-runs.json" rate 2
		checkpy "rate --compare: recorded" runs "$TMP/rate-runs.json" rate.compare 1
	else
		store_skip "rate: the ratings are recorded"
	fi
else
	skip "rate: the fixtures did not assemble"
fi

# ---- accept --from-results ---------------------------------------------------------------
AR=$SRCDIR/tests/fixtures/accept/results
mkdir -p "$TMP/acc"
cp "$AR/metadata.json" "$AR/storage.json" "$AR/storage-endurance.json" "$AR/inject-xid79.json" "$AR/reboot.json" \
	"$TMP/acc/"
cp "$SRCDIR/tests/fixtures/hosts/h100-healthy/expected.json" "$TMP/acc/audit.json"
PLAN=$SRCDIR/tests/fixtures/accept/small.yaml
rm -f "$CMAX_HOME/cmax.db"
"$CMAX" accept "$PLAN" --from-results "$TMP/acc" --date 2026-12-01 --json --junit "$TMP/acc.xml" \
	>"$TMP/acc.json" 2>"$TMP/acc.err"
base=$?
check "accept --from-results: exit 0 (accepted)" test "$base" = 0
checkpy "accept: --junit has a testcase per test" junit "$TMP/acc.json" "$TMP/acc.xml"
"$CMAX" accept "$PLAN" --from-results "$TMP/acc" --date 2026-12-01 --fail-on WARN --no-store >/dev/null 2>&1
got=$?
check "accept: --fail-on WARN exits $(sp expect "$TMP/acc.json" WARN $base) (got $got)" \
	test "$got" = "$(sp expect "$TMP/acc.json" WARN $base)"
if [ $STORE = 1 ]; then
	"$CMAX" runs list --json >"$TMP/acc-runs.json"
	checkpy "accept: recorded once (--no-store: not again)" runs "$TMP/acc-runs.json" accept 1
else
	store_skip "accept: recorded"
fi
"$CMAX" accept "$PLAN" --from-results "$TMP/acc" --fail-on ERRORS >/dev/null 2>"$TMP/acc.err"
check "accept: bad --fail-on is 64, one line" sh -c "[ $? = 64 ] && [ \$(wc -l <'$TMP/acc.err') = 1 ]"
# accept running its tests (a fixture audit and a small metadata benchmark, as
# t-accept.sh): --store or --no-store is handed to every test it runs, so one
# store holds the attempt and its evidence
HH=$SRCDIR/tests/fixtures/hosts/h100-healthy
mkdir -p "$TMP/ab" "$TMP/ahome" "$TMP/ascr"
"$SRCDIR/tests/fakecmd/mkbin.sh" "$HH/cmd" "$BUILD/fakecmd" "$TMP/ab" >/dev/null
afx() {
	env -i HOME="$TMP/ahome" PATH="$TMP/ab" TZ=UTC $(grep -v '^#' "$HH/env") CMAX_FAKE_DIR="$HH/cmd" \
		CMAX_FAKE_LOG="$TMP/afake.log" CMAX_DATADIR="$SRCDIR/data" \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "$CMAX" "$@"
}
AV=(--var "ROOT=$HH/root" --var "DIR=$TMP/ascr" --yes)
afx accept "$SRCDIR/tests/fixtures/accept/run.yaml" "${AV[@]}" --output-dir "$TMP/arun1" --store "$TMP/acc.db" \
	--junit "$TMP/arun.xml" --json >"$TMP/arun.json" 2>"$TMP/arun.err"
check "accept run: exit 0 (got $?)" test $? = 0
checkpy "accept run: --junit has a testcase per test" junit "$TMP/arun.json" "$TMP/arun.xml"
if [ $STORE = 1 ]; then
	"$CMAX" runs list --store "$TMP/acc.db" --json >"$TMP/arun-runs.json"
	checkpy "accept run --store: the attempt is recorded there" runs "$TMP/arun-runs.json" accept 1
	checkpy "accept run --store: so is the audit it ran" runs "$TMP/arun-runs.json" audit 1
	checkpy "accept run --store: and the benchmark" runs "$TMP/arun-runs.json" bench.metadata 1
	check "accept run --store: nothing in the default store" test ! -e "$TMP/ahome/.cmax/cmax.db"
else
	store_skip "accept run: the attempt and its tests are recorded"
fi
afx accept "$SRCDIR/tests/fixtures/accept/run.yaml" "${AV[@]}" --output-dir "$TMP/arun2" --no-store >/dev/null 2>&1
check "accept run --no-store: exit 0, and no test it ran recorded anything either" \
	sh -c "[ $? = 0 ] && [ ! -e '$TMP/ahome/.cmax/cmax.db' ]"
# a store URL's password is never written: not in the results, not on stderr
# (nothing listens on port 1: the store is a warning), not in accept's plan
PG='postgresql://cmax:s3cr3t-pw@127.0.0.1:1/cmax'
o2=$TMP/pg
run_fixture h100-healthy "$o2" --local --yes --output-dir "$o2/run" --store "$PG"
check "--store on an unreachable PostgreSQL: exit 0, one warning line" \
	sh -c "[ \$(cat '$o2/rc') = 0 ] && [ \$(grep -c 'results store' '$o2/stderr') = 1 ]"
check "--store URL: its password in no file of the run and not on stderr" \
	sh -c "! grep -rq 's3cr3t-pw' '$o2/run' '$o2/stderr' '$o2/stdout'"
afx accept "$SRCDIR/tests/fixtures/accept/run.yaml" "${AV[@]}" --dry-run --json --store "$PG" >"$TMP/apg.json" 2>&1
check "accept --dry-run --store URL: handed to the tests, without its password" \
	sh -c "grep -q -- '--store=postgresql://\\*\\*\\*@127.0.0.1:1/cmax' '$TMP/apg.json' && ! grep -q 's3cr3t-pw' '$TMP/apg.json'"
done_testing
