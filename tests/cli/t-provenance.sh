#!/usr/bin/env bash
# Every graded figure in data/ carries a basis (docs/provenance.md), checked
# by tests/contract/provenance.py: first the checker itself on small files
# built to pass or to fail one rule each, then every shipped data file, one
# assertion per file with its problems as diagnostics.
. "${SRCDIR:?run through tests/run-all.sh}/tests/lib/tap.sh" || exit 1
PY=${PYTHON:-python3}
PROV="$SRCDIR/tests/contract/provenance.py"
D="$TMP/data"

# prov NAME CONTENT...: write $D/NAME, run the checker on it alone.
prov() {
	local name=$1; shift
	rm -rf "$D" && mkdir -p "$D/$(dirname "$name")"
	printf '%s\n' "$@" >"$D/$name"
	"$PY" "$PROV" --data-dir "$D" --today 2026-12-01 "$D/$name" >"$TMP/out" 2>"$TMP/err"
	echo $? >"$TMP/rc"
}
# clean: exit 0, nothing printed. fails_with STR...: exit 1, every STR printed.
clean() { [ "$(cat "$TMP/rc")" = 0 ] && [ ! -s "$TMP/out" ]; }
fails_with() {
	[ "$(cat "$TMP/rc")" = 1 ] || return 1
	local s
	for s in "$@"; do grep -qF -- "$s" "$TMP/out" || { diag <"$TMP/out"; return 1; }; done
}

DECL='"basis": {"kind": "declared", "reason": "r", "revisit": "v"}'

prov thresholds.json '{"a": {"warn_below": 1, "fail_below": 0.5, '"$DECL"'},
  "b": {"m": {"kind": "method", "figure": "f"}, "basis": {"kind": "method", "figure": "the method says 3"}, "n": 3},
  "grid": {"m": [1, 2], "tiers": [{"below": 9, "credit_pct": 5}], '"$DECL"'},
  "spec": {"x": 2.5, "basis": {"kind": "source", "url": "https://example.com/a", "checked": "2026-12-01", "figure": "2.5"}},
  "guess": {"x": 1, "basis": {"kind": "estimated", "reason": "r", "revisit": "v"}},
  "flag": true, "name": "strings are not figures"}'
check "covered numbers, numbers in arrays and in objects of an array pass" clean

prov thresholds.json '{"a": {"warn_below": 1, "fail_below": 0.5}}'
check "a number without a basis fails, naming file and pointer" \
	fails_with 'thresholds.json: /a/warn_below: 1 has no basis' 'thresholds.json: /a/fail_below: 0.5 has no basis'

prov thresholds.json '{"basis": {"kind": "declared", "reason": "r", "revisit": "v"}, "a": {"b": {"warn_below": 1}}}'
check "a basis further up does not cover a nested object's number" fails_with '/a/b/warn_below'

prov thresholds.json '{"a": [{"x": [{"y": 1}]}], "basis": {"kind": "method", "figure": "f"}}'
check "an array holder covers only its own array's objects, not deeper ones" fails_with '/a/0/x/0/y'

prov rubric.json '{"tiers": [{"name": "Gold", "score": 80}], "basis": {"kind": "method", "figure": "f"}}'
check "objects in an array are covered by the object holding the array" clean

prov thresholds.json '{"a": {"x": 1, "basis": {"kind": "guess", "reason": "r"}}}'
check "an unknown basis kind fails" fails_with "/a/basis: basis kind 'guess'"

prov thresholds.json '{"a": {"x": 1, "basis": {"kind": "declared", "reason": "r"}}}'
check "a declared basis without revisit fails" fails_with "needs a non-empty string 'revisit'"

prov thresholds.json '{"a": {"x": 1, "basis": {"kind": "method", "figure": "  "}}}'
check "an empty field fails" fails_with "needs a non-empty string 'figure'"

prov thresholds.json '{"a": {"x": 1, "basis": {"kind": "method", "figure": "f", "reason": "r"}}}'
check "a field the kind does not have fails" fails_with "has no field 'reason'"

prov thresholds.json '{"a": {"x": 1, "basis": {"kind": "source", "url": "https://e.org", "checked": "2026-12-02", "figure": "1"}}}'
check "a checked date later than today fails" fails_with 'later than today'

prov thresholds.json '{"a": {"x": 1, "basis": {"kind": "source", "url": "https://e.org", "checked": "2026-02-30", "figure": "1"}}}'
check "a checked date that does not exist fails" fails_with 'is not a YYYY-MM-DD date'

prov thresholds.json '{"a": {"x": 1, "basis": {"kind": "source", "url": "ftp://e.org/x", "checked": "2026-11-30", "figure": "1"}}}'
check "a url that is not http(s) fails" fails_with 'is not an http(s) URL'

prov thresholds.json '{"a": {"x": 1, "basis": "declared"}}'
check "a basis that is not an object fails" fails_with '/a/basis: basis must be an object'

prov minimum-versions.json '{"schemaVersion": 1, "components": {"runc": {"kind": "ladder", "ladder": {"1.4": "1.4.3"}},
  "x": {"kind": "distroPackages", "packages": {"linux": {"fixed": "6.8.0-1.1"}}, "basis": {"kind": "method", "figure": "f"}}}}'
check "a minimum-table component or package without a basis fails (its figures are strings)" \
	fails_with 'minimum-versions.json: /components/runc: this object needs a basis' \
	'minimum-versions.json: /components/x/packages/linux: this object needs a basis'
check "the minimum table's format version is exempt" bash -c "! grep -qF /schemaVersion '$TMP/out'"

prov xid-catalog.json '{"basis": {"kind": "method", "figure": "f"}, "xids": [{"code": 79, "mnemonic": "GPU_HAS_FALLEN_OFF_THE_BUS"}], "sxid_ranges": [{"first": 10001, "last": 10008}]}'
check "exempt identifiers (Xid and SXid codes) pass" clean

prov thresholds.json '{"version": 1, "xids": [{"code": 79}]}'
check "an exemption applies only to the file it names" fails_with 'thresholds.json: /version: 1' 'thresholds.json: /xids/0/code: 79'

prov accept/plan.yaml 'version: 1' 'tests:' '  - id: t' '    criteria:' '      - min: 3.5e9' '        basis: {kind: declared, reason: r, revisit: v}' '      - max: 0'
check "YAML plans are walked too: a covered criterion passes, a bare one fails" \
	fails_with 'accept/plan.yaml: /tests/0/criteria/1/max: 0 has no basis'
check "  and the covered one is not reported" bash -c "[ \$(wc -l <'$TMP/out') = 1 ]"

prov thresholds.json '{"a": }'
check "an unreadable file is exit 2, named on stderr" bash -c "[ \$(cat '$TMP/rc') = 2 ] && grep -qF thresholds.json '$TMP/err'"

# The shipped data: every file, one assertion each.
for f in "$SRCDIR"/data/*.json "$SRCDIR"/data/accept/*.yaml; do
	rel=${f#"$SRCDIR"/data/}
	if "$PY" "$PROV" --data-dir "$SRCDIR/data" "$f" >"$TMP/ship" 2>&1; then
		ok "data/$rel: every figure has a valid basis"
	else
		not_ok "data/$rel: figures without a valid basis ($(wc -l <"$TMP/ship") problems)"
		head -40 "$TMP/ship" | diag
	fi
done
done_testing
