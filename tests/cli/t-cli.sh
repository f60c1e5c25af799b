#!/usr/bin/env bash
# The command line: usage errors and their exit codes, targets and the
# confirmation prompt, --show / --dry-run plans, the run directory, review.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-/usr/bin/python3}
H=$SRCDIR/tests/fixtures/hosts

expect_rc() { # want, description, command...
	local want=$1 d=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	local rc=$?
	if [ "$rc" = "$want" ]; then ok "$d (exit $rc)"; else not_ok "$d (exit $rc, want $want)"; diag <"$TMP/err"; fi
}
one_line_err() { [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^cmax' "$TMP/err"; }

expect_rc 0 "--version" "$CMAX" --version
check "version names cmax" grep -q '^cmax [0-9]' "$TMP/out"
expect_rc 64 "no command is a usage error" "$CMAX"
expect_rc 64 "unknown command" "$CMAX" frobnicate
check "unknown command: one-line error" one_line_err
expect_rc 64 "unknown audit flag" "$CMAX" audit --bogus
check "unknown flag: one-line error" one_line_err
expect_rc 64 "unknown profile" "$CMAX" audit nonsense --yes
expect_rc 64 "bad --timeout" "$CMAX" audit --timeout abc --yes
expect_rc 64 "bad --tool-timeout" "$CMAX" audit --tool-timeout 0 --yes
expect_rc 64 "two targets" "$CMAX" audit --vm --container --yes
expect_rc 64 "-o without --dry-run" "$CMAX" audit -o yaml
# the one option table (core/options.h): --opt=value, bundled -vvv, no
# prefixes, "did you mean" for a profile
expect_rc 64 "a prefix of --timeout is refused" "$CMAX" audit --time 5 --yes
check "  and names what it abbreviates" grep -q "unknown option '--time' (did you mean '--timeout'?)" "$TMP/err"
expect_rc 64 "--timeout=0 is judged like --timeout 0" "$CMAX" audit --timeout=0 --yes
check "  out of range, from the table" grep -q -- "--timeout '0' is out of range (1 to 86400 seconds)" "$TMP/err"
expect_rc 64 "a mistyped profile" "$CMAX" audit hardwre --yes
check "  suggests the profile" grep -q "unknown profile 'hardwre' (did you mean 'hardware'?)" "$TMP/err"
expect_rc 64 "-o text is not a graded-report format" "$CMAX" audit -o text
expect_rc 64 "audit review: a second PATH" "$CMAX" audit review a b
check "  says one PATH at most" grep -q "cmax audit review: one PATH at most" "$TMP/err"
expect_rc 64 "node-collect: a mistyped profile" "$CMAX" node-collect --profile secrity
check "  suggests the profile" grep -q "did you mean 'security'?" "$TMP/err"
expect_rc 64 "rate: --gpus=many is judged like --gpus many" "$CMAX" rate --gpus=many "$TMP"
check "  names the option" grep -q -- "--gpus wants a number such as 7.5, not 'many'" "$TMP/err"
env -u SLURM_JOB_ID "$CMAX" audit --slurm --yes >"$TMP/out" 2>"$TMP/err" </dev/null
check "--slurm outside an allocation without --nodes is a usage error (exit $?)" test $? = 64
check "--slurm says why" grep -q 'needs an allocation' "$TMP/err"
expect_rc 64 "no TTY, no target, no --yes" "$CMAX" audit
check "no TTY: asks for an explicit target" grep -q -- '--yes' "$TMP/err"
expect_rc 66 "missing --sysroot" "$CMAX" audit --sysroot /nonexistent-cmax --yes
expect_rc 66 "missing --minimums" "$CMAX" audit --minimums /nonexistent.json --yes
echo '{"schemaVersion": 1, "components": ' >"$TMP/broken.json"
expect_rc 65 "broken --minimums" "$CMAX" audit --minimums "$TMP/broken.json" --yes --output-dir "$TMP/x"
check "broken --minimums: one-line error" one_line_err

# --show and --dry-run plans, on a fixture so the output is stable
run_fixture h100-healthy "$TMP/show" --local --show
check "--show lists the checks" grep -q 'versions.nvidia-driver' "$TMP/show/stdout"
check "--show runs nothing and writes nothing" test ! -e "$TMP/show/home/.cmax"
run_fixture h100-healthy "$TMP/plan" --local --dry-run -o json
check "--dry-run -o json is JSON" "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="cmax.audit.plan/1" and d["checks"]' "$TMP/plan/stdout"
check "--dry-run names state-changing probes" "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "state_changing_probes" in d and d["writes_outside_output_dir"] is False' "$TMP/plan/stdout"
run_fixture h100-healthy "$TMP/plany" --local --dry-run -o yaml
check "--dry-run -o yaml is YAML with the same plan" "$PY" -c '
import json,sys,yaml
y=yaml.safe_load(open(sys.argv[1])); j=json.load(open(sys.argv[2]))
y.pop("output_dir"); j.pop("output_dir")  # each fixture run has its own HOME
assert y==j, "yaml and json plans differ"' "$TMP/plany/stdout" "$TMP/plan/stdout"
run_fixture h100-healthy "$TMP/plans" security --local --dry-run -o yaml
check "security plan holds only versions and isolation" "$PY" -c '
import sys,yaml
d=yaml.safe_load(open(sys.argv[1])); assert d["profile"]=="security"
assert {c["profile"] for c in d["checks"]} <= {"versions","isolation"} and d["checks"]' "$TMP/plans/stdout"
touch "$TMP/exists.yaml"
expect_rc 73 "--output-file never overwrites" "$CMAX" audit --local --dry-run -o yaml --output-file "$TMP/exists.yaml"
expect_rc 0 "--output-file writes a new file" "$CMAX" audit --local --dry-run -o yaml --output-file "$TMP/new.yaml"
check "--output-file content" grep -q 'cmax.audit.plan/1' "$TMP/new.yaml"
# every plan above (JSON and YAML, fixture and this machine, full and security) and one with
# --active matches docs/schema/audit-plan.schema.json, its collectors and probes consistent;
# python3-jsonschema and cmax's own validator agree (tests/contract/validate-docs.py)
run_fixture h100-healthy "$TMP/plana" --local --active --dry-run -o json
if "$PY" "$SRCDIR/tests/contract/validate-docs.py" --c-validator "$BUILD/test_docschemas" \
	"$TMP"/plan{,y,s,a}/stdout "$TMP/new.yaml" >"$TMP/vd" 2>&1; then
	ok "every --dry-run plan validates (both validators agree)"
else
	not_ok "every --dry-run plan validates"; diag <"$TMP/vd"
fi

# security profile: exit 2 on FAIL unless --exit-zero
run_fixture misconfig-b300 "$TMP/sec" security --local --yes --output-dir "$TMP/sec/run"
check "security with FAIL rows exits 2" test "$(cat "$TMP/sec/rc")" = 2
run_fixture misconfig-b300 "$TMP/secz" security --local --yes --exit-zero --output-dir "$TMP/secz/run"
check "--exit-zero exits 0" test "$(cat "$TMP/secz/rc")" = 0
run_fixture misconfig-b300 "$TMP/full" --local --yes --output-dir "$TMP/full/run"
check "full audit with FAIL rows exits 0" test "$(cat "$TMP/full/rc")" = 0

# default run directory and review of the newest run
run_fixture cpu-only "$TMP/home1" --local --yes
runs=$(ls -d "$TMP/home1/home/.cmax/audit/"*/ 2>/dev/null | wc -l)
check "default run directory ~/.cmax/audit/<UTC stamp>/" test "$runs" = 1
d=$(ls -d "$TMP/home1/home/.cmax/audit/"*/ 2>/dev/null | head -1)
check "run dir name is the pinned UTC time" test "$(basename "$d")" = "20261130-120000"
# (without the test's CMAX_HOME, tests/lib/tap.sh: these are about HOME)
env -u CMAX_HOME HOME=$TMP/home1/home "$CMAX" audit review --command summary >"$TMP/rev" 2>&1 </dev/null
check "review finds the newest run" grep -q "Run $TMP/home1/home/.cmax/audit/20261130-120000" "$TMP/rev"
# a service account's HOME=/nonexistent: cmax must not create it
env -u CMAX_HOME HOME=$TMP/no-home TMPDIR=$TMP/tmpdir CMAX_NOW=2026-11-30T12:00:00Z "$CMAX" audit storage --yes >/dev/null 2>&1 </dev/null
check "a missing HOME is never created" test ! -e "$TMP/no-home"
check "runs go to \$TMPDIR/cmax-<uid>/audit instead" test -d "$TMP/tmpdir/cmax-$(id -u)/audit/20261130-120000"
check "and the results store to \$TMPDIR/cmax-<uid>/cmax.db" test -f "$TMP/tmpdir/cmax-$(id -u)/cmax.db"
R=$TMP/full/run
"$CMAX" audit review "$R" --command 'show versions.nvidia-driver' >"$TMP/rev" 2>&1 </dev/null
check "review show ID" grep -q 'versions.nvidia-driver' "$TMP/rev"
"$CMAX" audit review "$R/audit.results.json" --command 'show 1' >"$TMP/rev" 2>&1 </dev/null
check "review show N (path to the results file)" grep -qE '^ +1 (PASS|WARN|FAIL|SKIP|ERROR)' "$TMP/rev"
"$CMAX" audit review "$R" --command 'find runc' >"$TMP/rev" 2>&1 </dev/null
check "review find TEXT" grep -q 'versions.runc' "$TMP/rev"
"$CMAX" audit review "$R" --command 'raw FAIL' >"$TMP/rev" 2>&1 </dev/null
check "review raw TEXT greps audit.out with line numbers" grep -qE '^ +[0-9]+: .*FAIL' "$TMP/rev"
"$CMAX" audit review "$R" --command 'summary' --no-interactive >"$TMP/rev" 2>&1 </dev/null
check "review summary lists failures" grep -q 'FAIL' "$TMP/rev"
expect_rc 66 "review of a missing path" "$CMAX" audit review /nonexistent-run
mkdir -p "$TMP/badrun" && echo '{"schema":"something-else"}' >"$TMP/badrun/audit.results.json"
expect_rc 65 "review of a foreign file" "$CMAX" audit review "$TMP/badrun"

# the confirmation prompt on a terminal: default No (130), y runs, c changes target
prompt() { # answers, args...
	local answers=$1; shift
	"$PY" - "$answers" "$CMAX" "$@" <<'PYEOF'
import os, pty, sys, time, select
answers = sys.argv[1].split(",")
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
out = b""
def drain(t):
    global out
    end = time.time() + t
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                d = os.read(fd, 65536)
            except OSError:
                return False
            if not d:
                return False
            out += d
    return True
for a in answers:
    drain(1.0)
    os.write(fd, (a + "\n").encode())
while drain(0.5):
    pass
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace"))
sys.exit(os.waitstatus_to_exitcode(st))
PYEOF
}
prompt "" audit --output-dir "$TMP/p1" >"$TMP/pty1"
check "prompt: Enter means No, exit 130" test $? = 130
check "prompt shows the target and the question" grep -q 'Run this audit? \[y\]es, \[c\]hange target, \[N\]o' "$TMP/pty1"
prompt "y" audit storage --output-dir "$TMP/p2" >"$TMP/pty2"
check "prompt: y runs the audit" test $? = 0 -a -s "$TMP/p2/audit.results.json"
prompt "c,2,y" audit storage --output-dir "$TMP/p3" >"$TMP/pty3"
check "prompt: c lets the operator change the target" grep -q '"environment": "vm"' "$TMP/p3/audit.results.json"
check "on a terminal the report is coloured" grep -q $'\033\[' "$TMP/pty2"
NO_COLOR=1 prompt "y" audit storage --output-dir "$TMP/p4" >"$TMP/pty4"
check "NO_COLOR turns colour off" test -z "$(grep $'\033\[' "$TMP/pty4")"
"$CMAX" audit storage --yes --output-dir "$TMP/p5" >"$TMP/pipe5" </dev/null
check "no colour when stdout is not a terminal" test -z "$(grep $'\033\[' "$TMP/pipe5")"
done_testing
