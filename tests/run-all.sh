#!/usr/bin/env bash
# Runs the whole suite against a build directory and prints one closing line
# "N passed, N failed, N skipped". Every test speaks TAP: C unit tests
# (tests/unit), fuzz corpus replays (fuzz/corpus/<target>), shell tests
# (tests/cli/t-*.sh). A test program that exits non-zero without a
# "not ok" line counts as one failure.
set -u
BUILD=${1:-build}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
case $BUILD in /*) ;; *) BUILD=$SRCDIR/$BUILD ;; esac
export BUILD SRCDIR CMAX_SRCDIR=$SRCDIR
export TZ=UTC LC_ALL=C
LOGDIR=$(mktemp -d /tmp/cmax-tests.XXXXXX)
pass=0 fail=0 skip=0
failed_names=()

run_one() { # name, command...
	local name=$1; shift
	local log=$LOGDIR/$(echo "$name" | tr '/ ' '__').log
	local t0=$SECONDS
	"$@" >"$log" 2>&1
	local rc=$?
	local secs=$((SECONDS - t0))
	local p f s
	p=$(grep -Ec '^ok [0-9]+' "$log" | head -1)
	s=$(grep -Ec '^ok [0-9]+.*# (SKIP|skip)' "$log" | head -1)
	f=$(grep -Ec '^not ok [0-9]+' "$log" | head -1)
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited $rc without a failing assertion" >>"$log"
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		failed_names+=("$name")
		printf 'FAIL %-40s %d passed, %d failed (%ds)\n' "$name" "$p" "$f" "$secs"
		grep -E '^(not ok|#)' "$log" | head -30 | sed 's/^/     /'
	else
		printf 'ok   %-40s %d passed%s (%ds)\n' "$name" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")" "$secs"
	fi
}

for t in "$BUILD"/test_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$BUILD"/fuzz-replay-*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	name=${t##*/fuzz-replay-}
	run_one "fuzz/$name" "$t" "$SRCDIR/fuzz/corpus/$name"
done
for t in "$SRCDIR"/tests/cli/t-*.sh; do
	run_one "cli/$(basename "$t" .sh)" bash "$t"
done

echo "logs: $LOGDIR"
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
