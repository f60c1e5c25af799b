#!/usr/bin/env bash
# Signals (issue 11, defects 4 and 7; src/core/interrupt.c, src/core/runner.c).
# A fake tool that sleeps and records its PID stands in for a wedged
# nvidia-smi on the hostile-tools fixture host (a small script, not fakecmd:
# it must record its PID and start a setsid grandchild):
#  - SIGINT / SIGTERM during the audit: exit 130 / 143 at once, the tool is
#    gone, and audit.results.json / audit.values.json say partial (they
#    validate), audit.out says PARTIAL REPORT;
#  - a tool that exits while a setsid grandchild still holds its stdout is
#    reported as exited (not timed out), quickly, and the grandchild is gone;
#  - SIGKILL of `cmax bench storage` leaves no fio (PR_SET_PDEATHSIG), and
#    SIGINT still ends it with 130 and the rows so far (real fio).
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
HD=$SRCDIR/tests/fixtures/hosts/hostile-tools
checkd() { # description, file to show on failure, command...
	local d=$1 f=$2; shift 2
	if "$@"; then ok "$d"; else not_ok "$d"; diag <"$f"; fi
}

alive() { # pid: running (a zombie is not)
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case $st in Z*) return 1 ;; esac
	return 0
}

# wait_exit PID SECONDS: 0 when it ended within SECONDS (then $? of wait in WRC)
wait_exit() {
	local i
	for i in $(seq $(($2 * 20))); do
		alive "$1" || { wait "$1"; WRC=$?; return 0; }
		sleep 0.05
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
	WRC=$?
	return 1
}

# start_audit DIR TOOL-SCRIPT [args]: cmax audit on the fixture host with
# only the given script on PATH as nvidia-smi; sets APID.
start_audit() {
	local out=$1 tool=$2
	shift 2
	mkdir -p "$out/bin" "$out/home" "$out/sig"
	cp "$tool" "$out/bin/nvidia-smi"
	chmod +x "$out/bin/nvidia-smi"
	(
		cd "$HD" && exec env -i --default-signal=INT HOME="$out/home" PATH="$out/bin" TZ=UTC SIGDIR="$out/sig" \
			$(grep -v '^#' env) CMAX_DATADIR="$SRCDIR/data" \
			${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
			"$CMAX" audit --sysroot root --local --yes --json --output-dir "$out/run" "$@"
	) >"$out/stdout" 2>"$out/stderr" &
	APID=$!
}

cat >"$TMP/sleeper" <<'EOF'
#!/bin/sh
# a wedged tool: records its PID, then sleeps far past any test
echo $$ >>"$SIGDIR/tool.pids"
exec /bin/sleep 60
EOF

for sig in INT TERM; do
	out=$TMP/$sig
	start_audit "$out" "$TMP/sleeper"
	for _ in $(seq 100); do [ -s "$out/sig/tool.pids" ] && break; sleep 0.05; done
	tool=$(head -1 "$out/sig/tool.pids" 2>/dev/null)
	check "SIG$sig: the fake tool started" test -n "$tool"
	kill -s "$sig" "$APID"
	t0=$(date +%s%N)
	wait_exit "$APID" 6
	ended=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	want=$((128 + $(kill -l "$sig")))
	checkd "SIG$sig: cmax ends within 6 s (${ms} ms) with $want (got $WRC)" "$out/stderr" \
		test "$ended" = 0 -a "$WRC" = "$want"
	check "SIG$sig: the fake tool ($tool) is gone" bash -c "! { ps -o stat= -p '$tool' | grep -qv '^Z'; }"
	[ -n "$tool" ] && kill -KILL "$tool" 2>/dev/null
	check "SIG$sig: partial results validate" "$PY" "$SRCDIR/tests/contract/validate.py" "$out/run/audit.results.json"
	"$PY" - "$out/run" "SIG$sig" >"$out/inv" 2>&1 <<'PYEOF'
import json, sys
d, sig = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/audit.results.json"))
v = json.load(open(d + "/audit.values.json"))
assert r.get("partial") is True and r.get("interrupted_by") == sig, (r.get("partial"), r.get("interrupted_by"))
assert v.get("partial") is True and v.get("interrupted_by") == sig
notrun = [x["id"] for x in r["results"] if x["status"] == "ERROR" and "interrupted" in x["summary"]]
assert notrun, "no row says it was not run because of the interrupt"
ev = [e for c in v["facts"].values() for e in c.get("evidence", []) if e.get("command", "").startswith("nvidia-smi")]
assert ev and ev[0]["outcome"] == "interrupted", ev[:1]
print(len(notrun), "rows not run")
PYEOF
	checkd "SIG$sig: results and values say partial and the signal; later checks not run; the tool's evidence says interrupted" \
		"$out/inv" test $? = 0
	check "SIG$sig: audit.values.json validates" "$PY" "$SRCDIR/tests/contract/validate-docs.py" "$out/run/audit.values.json"
	check "SIG$sig: audit.out says PARTIAL REPORT" grep -q "^PARTIAL REPORT: the audit was interrupted by SIG$sig" "$out/run/audit.out"
done

# Defect 7: the tool exits at once, a setsid grandchild keeps its stdout.
cat >"$TMP/leaver" <<'EOF'
#!/bin/sh
/usr/bin/setsid /bin/sh -c 'echo $$ >"$SIGDIR/gc.pid"; exec /bin/sleep 60' &
while [ ! -s "$SIGDIR/gc.pid" ]; do /bin/sleep 0.02; done
echo "Driver Version: 570.00"
exit 0
EOF
out=$TMP/setsid
t0=$(date +%s%N)
start_audit "$out" "$TMP/leaver" --tool-timeout 6
wait_exit "$APID" 20
ms=$((($(date +%s%N) - t0) / 1000000))
gc=$(cat "$out/sig/gc.pid" 2>/dev/null)
check "setsid grandchild: it was started" test -n "$gc"
"$PY" - "$out/run/audit.values.json" >"$out/inv" 2>&1 <<'PYEOF'
import json, sys
v = json.load(open(sys.argv[1]))
ev = [e for c in v["facts"].values() for e in c.get("evidence", []) if e.get("command", "").startswith("nvidia-smi")]
print([(e["outcome"], e.get("exit_code"), e.get("duration_ms")) for e in ev])
assert ev and all(e["outcome"] == "exited" and e["exit_code"] == 0 and e["duration_ms"] < 2000 for e in ev)
PYEOF
checkd "setsid grandchild: the tool is reported as exited 0 within 2 s, not timed out" "$out/inv" test $? = 0
check "setsid grandchild: the audit took under 5 s (${ms} ms; the tool timeout is 6 s)" test "$ms" -lt 5000
check "setsid grandchild ($gc) is gone" bash -c "! { ps -o stat= -p '$gc' | grep -qv '^Z'; }"
[ -n "$gc" ] && kill -KILL "$gc" 2>/dev/null

# bench storage with real fio.
if ! command -v fio >/dev/null; then
	skip "fio is not installed: bench SIGKILL / SIGINT not exercised"
	done_testing
	exit
fi
export CMAX_DATADIR=$SRCDIR/data
D=$TMP/fs
mkdir -p "$D"
# live fio processes working in $D (not this awk, whose arguments hold $D too)
fio_pids() { ps -eo pid=,stat=,args= | awk -v d="--directory=$D" '$3 == "fio" && $2 !~ /^Z/ && index($0, d) { print $1 }'; }
start_bench() {
	"$CMAX" bench storage --path "$D" --yes --json --only rand-read-4k --runtime 30 >"$1.json" 2>"$1.err" &
	BPID=$!
	for _ in $(seq 100); do [ -n "$(fio_pids)" ] && [ -n "$(find "$D" -name 'cmax.0.0' 2>/dev/null)" ] && break; sleep 0.05; done
	sleep 0.3
}

start_bench "$TMP/kill"
check "bench SIGKILL: fio was running" test -n "$(fio_pids)"
{ kill -KILL "$BPID"; wait "$BPID"; } 2>/dev/null
for _ in $(seq 60); do [ -z "$(fio_pids)" ] && break; sleep 0.05; done
left=$(fio_pids)
check "bench SIGKILL: no fio left within 3 s (left: ${left:-none})" test -z "$left"
[ -n "$left" ] && kill -KILL $left 2>/dev/null
rm -rf "$D"/cmax-bench-storage-*

start_bench "$TMP/int"
kill -INT "$BPID"
wait_exit "$BPID" 6
check "bench SIGINT: exit 130 within 6 s (got $WRC)" test "$WRC" = 130
"$PY" - "$TMP/int.json" >"$TMP/int.inv" 2>&1 <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True
r = d["results"]
assert r and any(x["status"] == "SKIP" and "interrupted" in x["summary"] for x in r), [x["summary"] for x in r]
PYEOF
checkd "bench SIGINT: the document is kept, marked interrupted, the stopped case SKIP" "$TMP/int.inv" test $? = 0
check "bench SIGINT: no fio left" test -z "$(fio_pids)"
check "bench SIGINT: work directory removed" test -z "$(find "$D" -mindepth 1 | head -1)"
done_testing
