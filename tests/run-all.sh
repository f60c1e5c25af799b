#!/usr/bin/env bash
# Runs the whole suite against a build directory and prints one closing line
# "N passed, N failed, N skipped". Every test speaks TAP: C unit tests
# (tests/unit), fuzz corpus replays (fuzz/corpus/<target>), shell tests
# (tests/cli/t-*.sh). A test program that exits non-zero without a
# "not ok" line counts as one failure.
#
# Tests run CMAX_TEST_JOBS at a time (default: one per CPU). Each has its
# own $TMP, claims its daemons' ports (tests/slurm/ports.sh) and its own
# store, so they do not meet; most of their time is spent waiting on
# daemons and child processes, not on a CPU. CMAX_TEST_JOBS=1 runs them
# one after another. A test whose timing is its subject (two workers that
# must overlap) says so with a line "# run-all: alone" and runs at the end,
# by itself.
set -u
BUILD=${1:-build}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
case $BUILD in /*) ;; *) BUILD=$SRCDIR/$BUILD ;; esac
export BUILD SRCDIR CMAX_SRCDIR=$SRCDIR
export TZ=UTC LC_ALL=C
LOGDIR=$(mktemp -d /tmp/cmax-tests.XXXXXX)
JOBS=${CMAX_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $JOBS in '' | *[!0-9]* | 0) echo "CMAX_TEST_JOBS=$JOBS: want a number of tests at a time, 1 or more" >&2; exit 64 ;; esac
pass=0 fail=0 skip=0
failed_names=()
names=()

# Runs one test, prints its line (and its failures) when it ends, and
# leaves "passed failed skipped" in its .res file for the totals.
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
	echo "$p $f $s" >"$log.res"
	if [ "$f" -gt 0 ]; then
		{ printf 'FAIL %-40s %d passed, %d failed (%ds)\n' "$name" "$p" "$f" "$secs"
		  grep -E '^(not ok|#)' "$log" | head -30 | sed 's/^/     /'; } | flock "$LOGDIR" cat
	else
		printf 'ok   %-40s %d passed%s (%ds)\n' "$name" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")" "$secs" |
			flock "$LOGDIR" cat
	fi
}

# Starts a test once fewer than JOBS run.
start() { # name, command...
	names+=("$1")
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	run_one "$@" &
}

for t in "$BUILD"/test_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	start "unit/$(basename "$t")" "$t"
done
for t in "$BUILD"/fuzz-replay-*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	name=${t##*/fuzz-replay-}
	start "fuzz/$name" "$t" "$SRCDIR/fuzz/corpus/$name"
done
alone=()
for t in "$SRCDIR"/tests/cli/t-*.sh; do
	if grep -q '^# run-all: alone' "$t"; then
		alone+=("$t")
		continue
	fi
	start "cli/$(basename "$t" .sh)" bash "$t"
done
wait
JOBS=1
for t in ${alone[@]+"${alone[@]}"}; do
	start "cli/$(basename "$t" .sh)" bash "$t"
	wait
done

for name in "${names[@]}"; do
	res=$LOGDIR/$(echo "$name" | tr '/ ' '__').log.res
	read -r p f s 2>/dev/null <"$res" || { p=0 f=1 s=0; echo "FAIL $name: no result (killed?)"; }
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	[ "$f" -gt 0 ] && failed_names+=("$name")
done

echo "logs: $LOGDIR"
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
