#!/usr/bin/env bash
# Hostile output paths (issue 11, defects 1, 9, 10; core/outfile.h): cmax
# runs as root on shared nodes, so where it writes may hold a device node, a
# symlink planted for a predictable temporary name, or a directory anyone can
# write. Every output (rate, health --state and --textfile, sla, accept,
# audit plans and run directories) must refuse those with 73 and leave them
# as they were. $TMPDIR/cmax-<uid> planted as a link is refused; two audits
# into one --output-dir get separate directories; --output-dir /dev/null is
# refused before any tool runs. Needs root (mknod, chown); everything
# happens inside this test's own temporary directory.
. "$(dirname "$0")/../lib/tap.sh"
if [ "$(id -u)" != 0 ]; then
	skip "hostile-path tests need root (mknod, chown of planted files)"
	done_testing; exit
fi
if ! command -v python3 >/dev/null; then
	skip "python3 is needed to plant links and read the JSON"
	done_testing; exit
fi
export CMAX_DATADIR=$SRCDIR/data
T=$TMP/h
mkdir -p "$T"
H=$SRCDIR/tests/fixtures/hosts
is_chr() { test -c "$1" && ! test -L "$1"; }
one_line() { test "$(wc -l <"$1")" = 1; }
# plant LINK_PREFIX TARGET: symlinks PREFIX<pid> -> TARGET for the next 4000
# PIDs (the temporary names the old writers used: P.tmp.<pid>)
plant() {
	python3 - "$1" "$2" <<'EOF'
import os, sys
prefix, target = sys.argv[1], sys.argv[2]
last = int(open("/proc/sys/kernel/ns_last_pid").read())
pid_max = int(open("/proc/sys/kernel/pid_max").read())
for i in range(1, 4001):
    n = (last + i) % pid_max
    if n > 300:
        try:
            os.symlink(target, "%s%d" % (prefix, n))
        except FileExistsError:
            pass
EOF
}
unplant() { find "$(dirname "$1")" -maxdepth 1 -type l -name "$(basename "$1")*" -delete; }

RATE_IN=$SRCDIR/tests/fixtures/rate/base
rate() { "$CMAX" rate "$RATE_IN" --output-file "$1" >/dev/null 2>"$T/err"; echo $?; }

mkdir "$T/dev" "$T/ww" "$T/pl"
chmod 0777 "$T/ww"   # world-writable, no sticky bit
mknod "$T/dev/null" c 1 3 && chmod 0666 "$T/dev/null"
check "mknod made a char device" is_chr "$T/dev/null"

# ---- rate ---------------------------------------------------------------------------------------
rc=$(rate "$T/dev/null")
check "rate --output-file onto a char device: 73 (got $rc), one line" test "$rc" = 73 -a "$(wc -l <"$T/err")" = 1
check "rate: the device is still a char device" is_chr "$T/dev/null"
echo precious >"$T/victim"
ln -s "$T/victim" "$T/link.json"
rc=$(rate "$T/link.json")
check "rate --output-file onto a symlink: 73 (got $rc)" test "$rc" = 73
check "rate: the link's target unchanged, the link still a link" \
	sh -c "test \"\$(cat '$T/victim')\" = precious && test -L '$T/link.json'"
rc=$(rate "$T/ww/rate.json")
check "rate --output-file in a world-writable non-sticky directory: 73 (got $rc)" test "$rc" = 73
check "rate: nothing written there" test -z "$(ls -A "$T/ww")"
echo keep >"$T/pl/victim"
plant "$T/pl/rate.json.tmp." "$T/pl/victim"
rc=$(rate "$T/pl/rate.json")
check "rate beside links planted for P.tmp.<pid>: written (got $rc)" test "$rc" = 0 -a -f "$T/pl/rate.json" -a ! -L "$T/pl/rate.json"
check "rate: the planted links' target unchanged" test "$(cat "$T/pl/victim")" = keep
check "rate: a regular file is still replaced (its policy)" test "$(rate "$T/pl/rate.json")" = 0
unplant "$T/pl/rate.json.tmp."
check "rate: no temporary file left" test "$(ls -A "$T/pl")" = "$(printf 'rate.json\nvictim')"

# ---- health --state and --textfile -----------------------------------------------------------------
: >"$T/kern.log"
health() { # DIR-for-cwd, args...
	(cd "$T" && "$CMAX" health check --log-file kern.log --node node1 --report-only "$@") >/dev/null 2>"$T/err"
	echo $?
}
mkdir "$T/hs" "$T/htf"
mknod "$T/hs/state.json" c 1 3
rc=$(health --state "$T/hs/state.json")
check "health --state onto a char device: 73 (got $rc)" test "$rc" = 73
check "health: the state device is still a char device" is_chr "$T/hs/state.json"
mknod "$T/htf/cmax_health.prom" c 1 3
rc=$(health --state "$T/hs/ok.json" --textfile "$T/htf")
check "health --textfile DIR with a char device at DIR/cmax_health.prom: 73 (got $rc)" test "$rc" = 73
check "health: the textfile device is still a char device" is_chr "$T/htf/cmax_health.prom"
rc=$(health --state "$T/ww/state.json")
check "health --state in a world-writable non-sticky directory: 73 (got $rc)" test "$rc" = 73
rc=$(health --state "$T/hs/ok2.json" --textfile "$T/ww")
check "health --textfile a world-writable non-sticky directory: 73 (got $rc)" test "$rc" = 73
check "health: nothing written in the world-writable directory" test -z "$(ls -A "$T/ww" | grep -v '^state.json.lock$')"
mkdir "$T/hp"
echo keep >"$T/hp/victim"
plant "$T/hp/state.json.tmp." "$T/hp/victim"
plant "$T/hp/.cmax_health.prom." "$T/hp/victim"
rc=$(health --state "$T/hp/state.json" --textfile "$T/hp")
check "health beside links planted for the state's and textfile's temporary names: 0 (got $rc)" test "$rc" = 0
check "health: the planted links' target unchanged" test "$(cat "$T/hp/victim")" = keep
check "health: state and textfile written as regular files" test -f "$T/hp/state.json" -a ! -L "$T/hp/state.json" -a -s "$T/hp/cmax_health.prom"
unplant "$T/hp/state.json.tmp."
unplant "$T/hp/.cmax_health.prom."
mkdir "$T/hl"
ln -s "$T/hl/created-by-link" "$T/hl/state.json.lock"
rc=$(health --state "$T/hl/state.json")
check "health: a lock file planted as a dangling link: 73 (got $rc)" test "$rc" = 73
check "health: nothing created where the lock link points" test ! -e "$T/hl/created-by-link"

# ---- sla ----------------------------------------------------------------------------------------------
sla() {
	(cd "$SRCDIR/tests/fixtures/sla" && "$CMAX" sla --events hgx/slurmctld.log --layout hgx/layout.json \
		--period 2026-11 --json --output-file "$1") >/dev/null 2>"$T/err"
	echo $?
}
rc=$(sla "$T/dev/null")
check "sla --output-file onto a char device: 73 (got $rc), one line" test "$rc" = 73 -a "$(wc -l <"$T/err")" = 1
check "sla: the device is still a char device" is_chr "$T/dev/null"
rc=$(sla "$T/link.json")
check "sla --output-file onto a symlink: 73 (got $rc); its target unchanged" \
	test "$rc" = 73 -a "$(cat "$T/victim")" = precious
rc=$(sla "$T/ww/sla.json")
check "sla --output-file in a world-writable non-sticky directory: 73 (got $rc)" test "$rc" = 73
check "sla: a regular file is written (got $(sla "$T/pl/sla.json"))" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/pl/sla.json"

# ---- accept -----------------------------------------------------------------------------------------
AF=$SRCDIR/tests/fixtures/accept
mkdir "$T/ev"
cp "$AF/results/metadata.json" "$AF/results/storage.json" "$AF/results/storage-endurance.json" \
	"$AF/results/inject-xid79.json" "$AF/results/reboot.json" "$T/ev/"
cp "$H/h100-healthy/expected.json" "$T/ev/audit.json"
accept() {
	"$CMAX" accept "$AF/small.yaml" --from-results "$T/ev" --date 2026-12-01 --output-file "$1" >/dev/null 2>"$T/err"
	echo $?
}
rc=$(accept "$T/dev/null")
check "accept --output-file onto a char device: 73 (got $rc), one line" test "$rc" = 73 -a "$(wc -l <"$T/err")" = 1
check "accept: the device is still a char device" is_chr "$T/dev/null"
rc=$(accept "$T/link.json")
check "accept --output-file onto a symlink: 73 (got $rc); its target unchanged" \
	test "$rc" = 73 -a "$(cat "$T/victim")" = precious
rc=$(accept "$T/ww/accept.json")
check "accept --output-file in a world-writable non-sticky directory: 73 (got $rc)" test "$rc" = 73
check "accept: a regular file is written (got $(accept "$T/pl/accept.json"))" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/pl/accept.json"

# ---- audit ------------------------------------------------------------------------------------------------
# audit_run OUT HOMEDIR [args...]: the h100-healthy fixture host, every tool it
# runs logged to OUT/tools.log (a wrapper in front of the fake commands)
HD=$H/h100-healthy
mkdir -p "$T/fake" "$T/bin"
"$SRCDIR/tests/fakecmd/mkbin.sh" "$HD/cmd" "$BUILD/fakecmd" "$T/fake" >/dev/null
for f in "$T/fake"/*; do
	printf '#!/bin/sh\necho "$0 $*" >>"$TOOLS_LOG"\nexec "%s" "$@"\n' "$f" >"$T/bin/${f##*/}"
done
chmod +x "$T/bin"/*
audit_run() {
	local out=$1 home=$2; shift 2
	mkdir -p "$out"
	: >"$out/tools.log"
	(
		cd "$HD" && env -i HOME="$home" PATH="$T/bin:/usr/bin:/bin" TZ=UTC TOOLS_LOG="$out/tools.log" \
			${TMPDIR_FOR_AUDIT:+TMPDIR=$TMPDIR_FOR_AUDIT} $(grep -v '^#' env) CMAX_FAKE_DIR="$HD/cmd" \
			CMAX_DATADIR="$SRCDIR/data" ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
			${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "$CMAX" audit --sysroot root --local --yes "$@"
	) >"$out/stdout" 2>"$out/stderr"
	echo $? >"$out/rc"
}
valid_results() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema'].startswith('cmax.audit.results/')" "$1"; }

# --output-dir that cannot hold a run directory: refused before anything runs
audit_run "$T/a-null" "$T/a-null" --output-dir /dev/null
check "audit --output-dir /dev/null: 73 (got $(cat "$T/a-null/rc")), one line" \
	sh -c "test \"\$(cat '$T/a-null/rc')\" = 73 && test \"\$(wc -l <'$T/a-null/stderr')\" = 1"
check "audit --output-dir /dev/null: no tool was run first" test ! -s "$T/a-null/tools.log"
audit_run "$T/a-under" "$T/a-under" --output-dir "$T/victim/run"
check "audit --output-dir under a regular file: 73 (got $(cat "$T/a-under/rc")), no tool run" \
	test "$(cat "$T/a-under/rc")" = 73 -a ! -s "$T/a-under/tools.log"
audit_run "$T/a-ww" "$T/a-ww" --output-dir "$T/ww/run"
check "audit --output-dir in a world-writable non-sticky directory: 73 (got $(cat "$T/a-ww/rc")), no tool run" \
	test "$(cat "$T/a-ww/rc")" = 73 -a ! -s "$T/a-ww/tools.log"
audit_run "$T/a-real" "$T/a-real" --output-dir "$T/a-real/run"
check "audit: the fixture's tools are logged when it does run (the log is real; rc $(cat "$T/a-real/rc"))" \
	test -s "$T/a-real/tools.log" -a "$(cat "$T/a-real/rc")" = 0

# two audits into one --output-dir at the same (pinned) second
audit_run "$T/c1" "$T/c1" --output-dir "$T/shared-run" &
p1=$!
audit_run "$T/c2" "$T/c2" --output-dir "$T/shared-run" &
p2=$!
wait $p1 $p2
d1=$(sed -n 's/^Run saved in //p' "$T/c1/stdout")
d2=$(sed -n 's/^Run saved in //p' "$T/c2/stdout")
check "concurrent audits: both exit 0 (got $(cat "$T/c1/rc") $(cat "$T/c2/rc"))" test "$(cat "$T/c1/rc") $(cat "$T/c2/rc")" = "0 0"
check "concurrent audits: two different run directories ('$d1', '$d2')" test -n "$d1" -a -n "$d2" -a "$d1" != "$d2"
check "concurrent audits: both inside the --output-dir" sh -c "case '$d1' in '$T/shared-run'*) ;; *) exit 1;; esac; case '$d2' in '$T/shared-run'*) ;; *) exit 1;; esac"
check "concurrent audits: both reports intact" sh -c "$(declare -f valid_results); valid_results '$d1/audit.results.json' && valid_results '$d2/audit.results.json'"
check "concurrent audits: the one moved aside says where" grep -qh 'holds another run; this run is saved in' "$T/c1/stderr" "$T/c2/stderr"
sum1=$(cat "$T/shared-run/audit.results.json" | cksum)
audit_run "$T/c3" "$T/c3" --output-dir "$T/shared-run"
d3=$(sed -n 's/^Run saved in //p' "$T/c3/stdout")
check "a later audit into the same --output-dir: a third directory ('$d3')" \
	test "$(cat "$T/c3/rc")" = 0 -a -n "$d3" -a "$d3" != "$d1" -a "$d3" != "$d2" -a "$d3" != "$T/shared-run"
check "a later audit: the first run's report untouched" test "$(cat "$T/shared-run/audit.results.json" | cksum)" = "$sum1"

# the $TMPDIR/cmax-<uid> fallback (HOME does not exist) in a shared, sticky TMPDIR
mkdir -m 1777 "$T/shared-tmp"
mkdir "$T/elsewhere"
ln -s "$T/elsewhere" "$T/shared-tmp/cmax-0"
chown -h 65534:65534 "$T/shared-tmp/cmax-0"
TMPDIR_FOR_AUDIT=$T/shared-tmp audit_run "$T/f1" /nonexistent
check "TMPDIR/cmax-0 planted as a symlink: 73 (got $(cat "$T/f1/rc")), one line" \
	sh -c "test \"\$(cat '$T/f1/rc')\" = 73 && test \"\$(wc -l <'$T/f1/stderr')\" = 1"
check "TMPDIR/cmax-0 planted as a symlink: nothing written where it points, the link kept" \
	test -z "$(ls -A "$T/elsewhere")" -a -L "$T/shared-tmp/cmax-0"
rm "$T/shared-tmp/cmax-0"
mkdir "$T/shared-tmp/cmax-0"
chown 65534:65534 "$T/shared-tmp/cmax-0"
TMPDIR_FOR_AUDIT=$T/shared-tmp audit_run "$T/f2" /nonexistent
check "TMPDIR/cmax-0 planted as another user's directory: 73 (got $(cat "$T/f2/rc")), nothing in it" \
	test "$(cat "$T/f2/rc")" = 73 -a -z "$(ls -A "$T/shared-tmp/cmax-0")"
rm -rf "$T/shared-tmp/cmax-0"
TMPDIR_FOR_AUDIT=$T/shared-tmp audit_run "$T/f3" /nonexistent
d4=$(sed -n 's/^Run saved in //p' "$T/f3/stdout")
check "TMPDIR/cmax-0 absent: created, the run saved under it (rc $(cat "$T/f3/rc"), '$d4')" \
	sh -c "test \"\$(cat '$T/f3/rc')\" = 0 && case '$d4' in '$T/shared-tmp/cmax-0/audit/'*) ;; *) exit 1;; esac"
check "TMPDIR/cmax-0: a private directory (0700, root's)" test "$(stat -c '%a %u' "$T/shared-tmp/cmax-0")" = "700 0"

# the --dry-run plan's --output-file never overwrites, never follows
plan() { audit_run "$T/$1" "$T/$1" --dry-run -o json --output-file "$2"; cat "$T/$1/rc"; }
rc=$(plan p1 "$T/dev/null")
check "audit --dry-run --output-file onto a char device: 73 (got $rc), still a device" test "$rc" = 73 -a -c "$T/dev/null"
rc=$(plan p2 "$T/pl/plan.json")
check "audit --dry-run --output-file: a new file written (got $rc)" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/pl/plan.json"
rc=$(plan p3 "$T/pl/plan.json")
check "audit --dry-run --output-file onto an existing file: 73 (got $rc), never overwritten" test "$rc" = 73
done_testing
