#!/usr/bin/env bash
# Replays every fixture host (sysroot tree + recorded tool outputs) through
# `cmax audit --json` and compares the JSON report and the text report
# (audit.out, -vvv) with the goldens. CMAX_UPDATE_GOLDEN=1 rewrites them.
# Also: the JSON contract holds, no unrecorded tool invocation happened, and
# every check has a PASS and a FAIL-or-WARN case somewhere in the corpus.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1

normalize_json() { # durations and the fixture path vary; nothing else may
	sed -E -e 's/"(duration_ms|timeout_ms)": [0-9]+/"\1": 0/' \
	       -e 's/"finished_at": "[^"]*"/"finished_at": "@FINISHED@"/' \
	       -e "s#$SRCDIR#@SRC@#g" -e "s#$TMP#@TMP@#g"
}
normalize_text() {
	sed -E -e "s#$SRCDIR#@SRC@#g" -e "s#$TMP#@TMP@#g"
}

all_json=() all_values=()
for hd in "$SRCDIR"/tests/fixtures/hosts/*/; do
	host=$(basename "$hd")
	out=$TMP/$host
	t0=$(date +%s)
	extra=$(cat "$hd/args" 2>/dev/null)  # per-host flags, e.g. an older --minimums table
	# shellcheck disable=SC2086
	run_fixture "$host" "$out" --local --yes --json --output-dir "$out/run" $extra
	t1=$(date +%s)
	rc=$(cat "$out/rc")
	check "$host: audit exits 0 (got $rc)" test "$rc" = 0
	[ "$rc" = 0 ] || diag <"$out/stderr"
	check "$host: no unrecorded tool invocation" test ! -s "$out/fake.log"
	[ -s "$out/fake.log" ] && diag <"$out/fake.log"
	check "$host: finished within 30 s ($((t1 - t0)) s)" test $((t1 - t0)) -le 30
	for f in audit.results.json audit.values.json audit.out; do
		check "$host: wrote $f" test -s "$out/run/$f"
	done
	if "${PYTHON:-/usr/bin/python3}" "$SRCDIR/tests/contract/validate.py" "$out/stdout" >"$out/contract" 2>&1; then
		ok "$host: --json output satisfies the contract"
	else
		not_ok "$host: --json output satisfies the contract"; diag <"$out/contract"
	fi
	check "$host: --json equals audit.results.json" cmp -s "$out/stdout" "$out/run/audit.results.json"
	normalize_json <"$out/stdout" >"$out/got.json"
	normalize_text <"$out/run/audit.out" >"$out/got.txt"
	all_json+=("$out/stdout")
	all_values+=("$out/run/audit.values.json")
	for kind in json txt; do
		golden=$hd/expected.$kind
		if [ -n "${CMAX_UPDATE_GOLDEN:-}" ]; then
			cp "$out/got.$kind" "$golden"
			ok "$host: golden expected.$kind updated"
		elif [ ! -f "$golden" ]; then
			not_ok "$host: golden expected.$kind missing (run with CMAX_UPDATE_GOLDEN=1)"
		elif diff -u "$golden" "$out/got.$kind" >"$out/diff.$kind"; then
			ok "$host: matches expected.$kind"
		else
			not_ok "$host: matches expected.$kind"; head -60 "$out/diff.$kind" | diag
		fi
	done
done

# audit.values.json of every host: docs/schema/audit-values.schema.json (collector states, reasons,
# evidence), python3-jsonschema and cmax's own validator agreeing (tests/contract/validate-docs.py)
if "${PYTHON:-/usr/bin/python3}" "$SRCDIR/tests/contract/validate-docs.py" --c-validator "$BUILD/test_docschemas" \
	"${all_values[@]}" >"$TMP/values" 2>&1; then
	ok "every audit.values.json validates (${#all_values[@]} hosts, both validators agree)"
else
	not_ok "every audit.values.json validates (${#all_values[@]} hosts)"; diag <"$TMP/values"
fi

# A healthy host (named *-healthy, or *-patched: the fixed twin of a faulty
# one) has no FAIL row: each field case's twin proves the check does not
# fire where nothing is wrong.
for j in "${all_json[@]}"; do
	h=$(basename "$(dirname "$j")")
	case $h in *-healthy | *-patched) ;; *) continue ;; esac
	fails=$("${PYTHON:-/usr/bin/python3}" -c 'import json,sys; print(" ".join(r["id"] for r in json.load(open(sys.argv[1]))["results"] if r["status"] == "FAIL"))' "$j")
	check "$h: a healthy host has no FAIL row${fails:+ (FAIL: $fails)}" test -z "$fails"
done

# Coverage of the corpus: every check PASSes somewhere and FAILs or WARNs somewhere.
if "${PYTHON:-/usr/bin/python3}" "$SRCDIR/tests/contract/coverage.py" "${all_json[@]}" >"$TMP/coverage" 2>&1; then
	ok "every check has a PASS and a FAIL-or-WARN fixture case"
else
	not_ok "every check has a PASS and a FAIL-or-WARN fixture case"; diag <"$TMP/coverage"
fi
done_testing
