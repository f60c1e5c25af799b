# Shell side of the test library: TAP assertions for tests/cli/t-*.sh.
# Source it; call ok/not_ok/check/skip; finish with done_testing.
: "${BUILD:?run through tests/run-all.sh}" "${SRCDIR:?}"
CMAX=$BUILD/cmax
_n=0 _failed=0
ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $* # SKIP"; }
check() { # description, command...
	local d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
diag() { sed 's/^/# /'; }
done_testing() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }
TMP=$(mktemp -d /tmp/cmax-t.XXXXXX) && [ -d "$TMP" ] || exit 1  # every test path is under TMP: never run with it empty
trap 'rm -rf "$TMP"' EXIT
# the results store of every cmax this test runs (store/store.h): its own,
# never the user's ~/.cmax
export CMAX_HOME=$TMP/cmax-home
unset CMAX_STORE

# Fixture host runner: sets up the fake-command PATH and the pinned clock.
# usage: run_fixture HOST OUTDIR [cmax args...]; stdout/stderr to OUTDIR/{stdout,stderr}
run_fixture() {
	local host=$1 out=$2; shift 2
	local hd=$SRCDIR/tests/fixtures/hosts/$host
	mkdir -p "$out/bin" "$out/home"
	"$SRCDIR/tests/fakecmd/mkbin.sh" "$hd/cmd" "$BUILD/fakecmd" "$out/bin" >/dev/null
	: >"$out/fake.log"
	(
		cd "$hd" && env -i HOME="$out/home" PATH="$out/bin" TZ=UTC $(grep -v '^#' env) \
			CMAX_FAKE_DIR="$hd/cmd" CMAX_FAKE_LOG="$out/fake.log" CMAX_DATADIR="$SRCDIR/data" \
			${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
			"$CMAX" audit --sysroot root "$@"
	) >"$out/stdout" 2>"$out/stderr"
	echo $? >"$out/rc"
}
