#!/usr/bin/env bash
# The layers of the sources (tools/layers.py, issue 12): no file includes a
# header of a higher layer, and the build itself enforces it. Each layer's
# library is compiled with only its view of src/ (BUILD/layers/<layer>/),
# so a deliberate back-edge fails to compile while the same include from a
# higher layer builds.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1

out=$(python3 "$SRCDIR/tools/layers.py" check "$SRCDIR" 2>&1)
check "no include of a higher layer, no relative include, under src/" test -z "$out"
[ -n "$out" ] && echo "$out" | diag

# the checker itself finds a back-edge: a copy of the tree with one added
mkdir -p "$TMP/tree"
cp -r "$SRCDIR/src" "$TMP/tree/src"
printf '#include "checks/check.h"\n' >>"$TMP/tree/src/core/strbuf.c"
printf '#include "../audit/cli.h"\n' >>"$TMP/tree/src/parse/fio.c"
printf '#include "bench/bench.h"\n' >>"$TMP/tree/src/rate/score.c"
out=$(python3 "$SRCDIR/tools/layers.py" check "$TMP/tree" 2>&1); rc=$?
check "the checker exits 1 on back-edges" test "$rc" -eq 1
check "core -> checks is named" grep -q 'core/strbuf.c: includes "checks/check.h": layer core may not include checks' <<<"$out"
check "a relative include is named" grep -q 'parse/fio.c: relative include' <<<"$out"
check "one command including another is named" grep -q 'rate/score.c: includes "bench/bench.h"' <<<"$out"

# the compiler enforces it with the views meson builds each layer with
views=$BUILD/layers
CC=${CC:-cc}
if [ ! -d "$views/core" ] || ! command -v "$CC" >/dev/null; then
	skip "no layer views under $views or no C compiler"
else
	printf '#include "checks/check.h"\nint x;\n' >"$TMP/back.c"
	printf '#include "core/strbuf.h"\n#include "engine/context.h"\nint x;\n' >"$TMP/down.c"
	check "core's view does not see checks/ (a back-edge fails to build)" \
		sh -c '! "$1" -fsyntax-only -I"$2" -I"$3" "$4" 2>/dev/null' _ "$CC" "$BUILD" "$views/core" "$TMP/back.c"
	check "engine's view does not see checks/" \
		sh -c '! "$1" -fsyntax-only -I"$2" -I"$3" "$4" 2>/dev/null' _ "$CC" "$BUILD" "$views/engine" "$TMP/back.c"
	check "the checks layer builds the same include" \
		"$CC" -fsyntax-only $(pkg-config --cflags jansson) -I"$BUILD" -I"$views/checks" "$TMP/back.c"
	check "a higher layer sees the lower ones" \
		"$CC" -fsyntax-only $(pkg-config --cflags jansson) -I"$BUILD" -I"$views/collect" "$TMP/down.c"
	printf '#include "audit/cli.h"\nint x;\n' >"$TMP/cmd.c"
	check "a command's view does not see another command" \
		sh -c '! "$1" -fsyntax-only -I"$2" -I"$3" "$4" 2>/dev/null' _ "$CC" "$BUILD" "$views/cmd-rate" "$TMP/cmd.c"
	for layer in core base engine collect checks output fleet cmd-audit cmd-bench; do
		[ -d "$views/$layer" ] || not_ok "view $layer missing"
	done
fi
done_testing
